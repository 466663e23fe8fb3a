/**
 * A mock device laid out for one program: the program's regions as memory regions, a region for
 * the rings, and the UDMA engines its queues are placed on. Engines do not run by themselves
 * (autoRun 'none'): the flow runs them between doorbells and reads.
 */
import type { Device } from '../../csr/io.ts';
import { MockDevice } from '../../mocks/device.ts';
import type { MemoryRegionSpec } from '../../mocks/memory.ts';
import type { PreparedFlow } from './flow.ts';

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
  const engines = [...new Set(p.active.map((a) => a.engine))].sort((a, b) => a - b);
  return new MockDevice({
    name: `mock:${p.module.name}`,
    engines: engines.length > 0 ? engines : [0],
    memory,
    autoRun: 'none',
    serviceTrace: { limit: opts.traceLimit ?? 1_000_000 },
  });
}
