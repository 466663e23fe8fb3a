/**
 * The checks a prepared flow makes of a device before writing anything to it: the engines it
 * needs exist, the rings lie in mapped memory clear of every region and DGE host table, and a
 * destination reduce has a DGE core that executes descriptors.
 */
import { NxdmaError, hex } from '../common/errors.ts';
import type { DgeCoreIO, Device } from '../csr/io.ts';
import { RING_ALIGN } from '../csr/formats/ring.ts';
import type { PreparedFlow } from './prepare.ts';

/**
 * The DGE core that executes a destination reduce's DIRECT2D descriptors (the Pool backend's
 * compute_op): the device's first core offering executeDescriptor. Throws DEVICE_UNAVAILABLE, before
 * anything is written, when the program has a reduce and the device has no such core.
 */
export function poolCoreFor(device: Device, p: PreparedFlow): DgeCoreIO | null {
  const t = p.lowered.table;
  const row = t.reduce.indexOf(1);
  if (row < 0) return null;
  const reduce = t.record(row);
  for (const c of device.dgeCores()) {
    const core = device.dgeCore(c);
    if (typeof core.executeDescriptor === 'function') return core;
  }
  throw new NxdmaError(
    'DEVICE_UNAVAILABLE',
    `${reduce.label}: a destination reduce is a DIRECT2D compute_op the Pool DGE core executes; device ${device.name} offers no DGE core that executes descriptors (a ring descriptor only copies bytes)`,
    {
      where: reduce.label,
      expected: 'a DGE core with executeDescriptor (the mock)',
      actual: device.dgeCores(),
    },
  );
}

/** Checks, before any write, that the device can run the prepared flow. */
export function checkDevice(device: Device, p: PreparedFlow, ringBase: number): void {
  const engines = new Set(device.engines());
  for (const pl of p.active) {
    if (!engines.has(pl.engine)) {
      throw new NxdmaError(
        'DEVICE_UNAVAILABLE',
        `queue "${pl.queue.name}" is placed on udma${pl.engine} queue ${pl.qid}, an engine device ${device.name} does not offer`,
        {
          where: `udma${pl.engine}`,
          expected: `one of the device's engines`,
          actual: [...engines].slice(0, 16),
        },
      );
    }
  }
  for (const r of p.module.regions) {
    if (!device.memory.isMapped(r.base, r.size)) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `bound layer 1: region "${r.name}" (${hex(r.base)}..${hex(r.base + r.size)}) is not mapped on device ${device.name}`,
        {
          where: `region ${r.name}`,
          expected: 'every declared region mapped on the device',
          actual: hex(r.base),
        },
      );
    }
  }
  if (ringBase % RING_ALIGN !== 0) {
    throw new NxdmaError('RING_INVALID', `ring base ${hex(ringBase)} is not 256-byte aligned`, {
      where: 'ringBase',
      expected: 'a multiple of 0x100',
      actual: hex(ringBase),
    });
  }
  if (p.ringBytes > 0 && !device.memory.isMapped(ringBase, p.ringBytes)) {
    throw new NxdmaError(
      'MEMORY_UNMAPPED',
      `the rings need ${p.ringBytes} bytes at ${hex(ringBase)}, which device ${device.name} does not map`,
      { where: 'ringBase', expected: `${p.ringBytes} mapped bytes`, actual: hex(ringBase) },
    );
  }
  // Nothing the run writes may land on a DGE core's host tables (docs/device.md, layout rules).
  const spans = p.module.regions.map((r) => ({
    name: `region "${r.name}"`,
    base: r.base,
    size: r.size,
  }));
  if (p.ringBytes > 0) spans.push({ name: 'the rings', base: ringBase, size: p.ringBytes });
  for (const c of device.dgeCores()) {
    const core = device.dgeCore(c);
    const end = core.dramBase + core.dram.size;
    for (const s of spans) {
      if (s.base < end && core.dramBase < s.base + s.size) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `${s.name} (${hex(s.base)}+${hex(s.size)}) overlaps DGE core ${c}'s host tables (${hex(core.dramBase)}+${hex(core.dram.size)})`,
          {
            where: s.name,
            expected: `memory outside DGE core ${c}'s dge_host window`,
            actual: {
              first: `${s.name} ${hex(s.base)}+${hex(s.size)}`,
              second: `DGE core ${c} dge_host ${hex(core.dramBase)}+${hex(core.dram.size)}`,
            },
          },
        );
      }
    }
  }
  for (const r of p.module.regions) {
    if (ringBase < r.base + r.size && r.base < ringBase + p.ringBytes) {
      throw new NxdmaError(
        'MEMORY_OVERLAP',
        `the rings (${hex(ringBase)}+${p.ringBytes}) overlap region "${r.name}"`,
        {
          where: 'ringBase',
          expected: 'rings outside every declared region',
          actual: hex(ringBase),
        },
      );
    }
  }
}
