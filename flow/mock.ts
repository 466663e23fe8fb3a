/**
 * A mock device laid out for one program: the program's regions as memory regions, a region for
 * the rings, and the UDMA engines its queues are placed on. Engines do not run by themselves
 * (autoRun 'none'): the flow runs them between doorbells and reads.
 */
import type { Device } from '../csr/io.ts';
import {
  MAILBOX_NEVER_MASKS,
  encodeMailboxes,
  encodePriorityClassMap,
  mailboxAddress,
  priorityClassMapAddress,
} from '../csr/formats/dge-host.ts';
import { MockDevice } from '../mocks/device.ts';
import type { MemoryRegionSpec } from '../mocks/memory.ts';
import type { PreparedFlow } from './flow.ts';

/** Size and alignment of the flow mock's DGE region (it holds the dge_host window). */
const DGE_WINDOW_ALIGN = 0x10000;

export interface FlowMockOptions {
  /** Service-trace entries kept (default 1,000,000). */
  traceLimit?: number;
}

/** Builds the mock a prepared flow runs on, with its rings at `ringBase`. */
export function flowMock(p: PreparedFlow, ringBase: number, opts: FlowMockOptions = {}): Device {
  const memory: MemoryRegionSpec[] = p.module.regions.map((r) => ({
    name: r.name,
    base: r.base,
    size: r.size,
  }));
  if (p.ringBytes > 0)
    memory.push({ name: 'nxdma.rings', kind: 'rings', base: ringBase, size: p.ringBytes });
  // one DGE core (the Pool backend: executes destination reduces, holds the host tables), its
  // dge_host window in a region of its own past the program's regions and the rings
  let end = ringBase + p.ringBytes;
  for (const r of p.module.regions) end = Math.max(end, r.base + r.size);
  const dgeBase = Math.ceil(end / DGE_WINDOW_ALIGN) * DGE_WINDOW_ALIGN;
  memory.push({ name: 'nxdma.dge', kind: 'dge', base: dgeBase, size: DGE_WINDOW_ALIGN });
  const engines = [...new Set(p.active.map((a) => a.engine))].sort((a, b) => a - b);
  const dev = new MockDevice({
    name: `mock:${p.module.name}`,
    engines: engines.length > 0 ? engines : [0],
    dgeCores: [{ core: 0, dramBase: dgeBase }],
    memory,
    autoRun: 'none',
    serviceTrace: { limit: opts.traceLimit ?? 1_000_000 },
  });
  // the host tables as the seed's device starts: no bytes-per-packet preference, every mailbox
  // {0, 0xFF, 0xFFFF} (never masks)
  const core = dev.dgeCore(0);
  dev.memory.write(priorityClassMapAddress(core.dramBase), encodePriorityClassMap([0, 0, 0, 0]));
  dev.memory.write(
    mailboxAddress(core.dramBase),
    encodeMailboxes([
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
    ]),
  );
  return dev;
}
