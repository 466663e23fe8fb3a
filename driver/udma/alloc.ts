/**
 * DmaAllocator: places rings and buffers in a device's DMA-visible memory so users need not pick
 * addresses, alignment and non-overlap by hand. First fit, lowest address first, over the memory
 * windows the device maps (the mock's regions, a mapped device's memory windows); nothing it hands
 * out overlaps anything already placed, any ring of an engine attached to it, or a DGE core's host
 * table. Placement only: it writes nothing to the device.
 *
 *   const alloc = eng.allocator;                     // one per device, shared by its engines
 *   const rings = alloc.allocQueueRings(256);         // { tx, rx }: 256-byte aligned, 256 descriptors
 *   eng.initQueue(0, rings);
 *   const src = alloc.alloc(1 << 20, { name: 'src' });
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { BD_SIZE } from '../../csr/formats/bd.ts';
import type { Device } from '../../csr/io.ts';
import { RING_ALIGN, ringSizeFor } from '../../csr/formats/ring.ts';
import { badArg } from './copy-checks.ts';
import type { RingSpec } from './ring.ts';
import type { QueueRings } from './queue.ts';

/** A device address given to the allocator: a safe integer >= 0 (BAD_ARGUMENT naming `where`). */
function checkBase(where: string, base: unknown): asserts base is number {
  if (typeof base !== 'number' || !Number.isSafeInteger(base) || base < 0)
    throw badArg(
      where,
      `base ${String(base)} is not a device address`,
      'a safe integer >= 0',
      base,
    );
}

/** A range of DMA-visible device memory the allocator may hand out. */
export interface DmaWindow {
  base: number;
  size: number;
  name?: string;
}

/** One placed range. */
export interface Placement {
  base: number;
  size: number;
  /** First byte past the range. */
  end: number;
  name: string;
  kind: 'ring' | 'buffer' | 'reserved';
}

/** A range the allocator must keep clear of (an engine's rings, a DGE table). */
export interface AvoidRange {
  base: number;
  end: number;
  name: string;
}

export interface AllocOptions {
  /** Alignment in bytes, a power of two. Default 64. */
  align?: number;
  /** How listings and errors name the range. */
  name?: string;
}

export class DmaAllocator {
  private readonly wins: DmaWindow[];
  private readonly placed: Placement[] = [];
  private readonly avoidSources: (() => readonly AvoidRange[])[] = [];
  private counter = 0;

  constructor(windows: readonly DmaWindow[]) {
    if (!Array.isArray(windows))
      throw badArg('DmaAllocator', 'windows must be an array', 'DmaWindow[]', windows);
    const wins: DmaWindow[] = [];
    windows.forEach((w: unknown, i) => {
      const where = `DmaAllocator windows[${i}]`;
      if (w === null || typeof w !== 'object')
        throw badArg(where, 'not a window', '{ base, size }', w);
      const { base, size, name } = w as DmaWindow;
      checkBase(where, base);
      if (
        typeof size !== 'number' ||
        !Number.isSafeInteger(size) ||
        size < 1 ||
        !Number.isSafeInteger(base + size)
      )
        throw badArg(
          where,
          `size ${String(size)} is not a byte count`,
          'a safe integer >= 1',
          size,
        );
      wins.push({ base, size, name: typeof name === 'string' ? name : `window ${i}` });
    });
    wins.sort((a, b) => a.base - b.base);
    for (let i = 1; i < wins.length; i++) {
      const a = wins[i - 1];
      const b = wins[i];
      if (b.base < a.base + a.size) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `DmaAllocator: window ${b.name} overlaps ${a.name}`,
          {
            where: 'DmaAllocator windows',
            expected: 'disjoint windows',
            actual: { a: hex(a.base), b: hex(b.base) },
          },
        );
      }
    }
    this.wins = wins;
  }

  /**
   * The allocator over a device's DMA-visible memory: the memory windows of a mapped device, the
   * regions of the mock, minus every DGE core's host table window.
   */
  static forDevice(device: Device): DmaAllocator {
    const mem = device.memory as unknown as {
      windows?: () => { deviceAddress: number; size: number; readOnly?: boolean; where?: string }[];
      regions?: () => readonly { base: number; size: number; name: string }[];
    };
    let wins: DmaWindow[] = [];
    if (typeof mem.windows === 'function') {
      wins = mem
        .windows()
        .filter((w) => w.readOnly !== true)
        .map((w) => ({
          base: w.deviceAddress,
          size: w.size,
          name: w.where ?? hex(w.deviceAddress),
        }));
    } else if (typeof mem.regions === 'function') {
      wins = mem.regions().map((r) => ({ base: r.base, size: r.size, name: r.name }));
    }
    const a = new DmaAllocator(wins);
    const tables: AvoidRange[] = [];
    for (const c of device.dgeCores()) {
      const core = device.dgeCore(c);
      tables.push({
        base: core.dramBase,
        end: core.dramBase + core.dram.size,
        name: `DGE core ${c} host table`,
      });
    }
    if (tables.length > 0) a.avoid(() => tables);
    return a;
  }

  /** Adds ranges to keep clear of, read at every placement (an engine's current rings). */
  avoid(source: () => readonly AvoidRange[]): void {
    if (!this.avoidSources.includes(source)) this.avoidSources.push(source);
  }

  /** The windows it places into. */
  windows(): DmaWindow[] {
    return this.wins.map((w) => ({ ...w }));
  }

  /** Everything placed, by address. */
  placements(): Placement[] {
    return this.placed.map((p) => ({ ...p })).sort((a, b) => a.base - b.base);
  }

  /** `bytes` bytes at the lowest free address with the alignment asked (default 64). */
  alloc(bytes: number, opts: AllocOptions = {}): Placement {
    return this.place(bytes, opts, 'buffer');
  }

  /**
   * A ring for at least `descriptors` descriptors: the smallest legal ring size (a multiple of 16,
   * at least 32), 256-byte aligned.
   */
  allocRing(descriptors: number, opts: { name?: string } = {}): RingSpec {
    if (typeof descriptors !== 'number' || !Number.isInteger(descriptors) || descriptors < 1)
      throw badArg(
        'allocRing',
        `${String(descriptors)} is not a descriptor count`,
        'an integer >= 1',
        descriptors,
      );
    const size = ringSizeFor(descriptors);
    if (size < descriptors)
      throw badArg(
        'allocRing',
        `${descriptors} descriptors exceed the largest ring (${size})`,
        `<= ${size}`,
        descriptors,
      );
    const p = this.place(size * BD_SIZE, { align: RING_ALIGN, name: opts.name }, 'ring');
    return { base: p.base, size };
  }

  /** A TX and an RX ring for one queue (`rxDescriptors` defaults to `txDescriptors`). */
  allocQueueRings(
    txDescriptors: number,
    rxDescriptors = txDescriptors,
    name = 'queue',
  ): QueueRings {
    const tx = this.allocRing(txDescriptors, { name: `${name} TX ring` });
    try {
      return { tx, rx: this.allocRing(rxDescriptors, { name: `${name} RX ring` }) };
    } catch (e) {
      this.free(tx.base);
      throw e;
    }
  }

  /**
   * Marks [base, base + bytes) as placed (memory the caller chose): MEMORY_OVERLAP when it overlaps
   * anything placed or avoided, MEMORY_UNMAPPED when it is not inside one window.
   */
  reserve(base: number, bytes: number, name = 'reserved'): Placement {
    const where = `reserve(${String(base)}, ${String(bytes)})`;
    checkBase(where, base);
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1)
      throw badArg(where, `size ${String(bytes)} is not a byte count`, 'an integer >= 1', bytes);
    const end = base + bytes;
    if (!this.wins.some((w) => base >= w.base && end <= w.base + w.size)) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `${where}: ${hex(base)}..${hex(end)} is not inside one DMA-visible window`,
        {
          where,
          expected:
            this.wins.map((w) => `${hex(w.base)}..${hex(w.base + w.size)}`).join(', ') ||
            'a window',
          actual: { base: hex(base), end: hex(end) },
        },
      );
    }
    const hit = this.conflict(base, end);
    if (hit) {
      throw new NxdmaError(
        'MEMORY_OVERLAP',
        `${where}: ${hex(base)}..${hex(end)} overlaps ${hit.name} at ${hex(hit.base)}..${hex(hit.end)}`,
        {
          where,
          expected: 'a range that overlaps nothing placed',
          actual: { base: hex(base), other: hit.name },
        },
      );
    }
    const p: Placement = { base, size: bytes, end, name, kind: 'reserved' };
    this.placed.push(p);
    return { ...p };
  }

  /** Releases the range placed at `base`; BAD_ARGUMENT when nothing was placed there. */
  free(base: number | { base: number }): void {
    const b = typeof base === 'object' && base !== null ? base.base : base;
    const i = this.placed.findIndex((p) => p.base === b);
    if (i < 0)
      throw badArg('free', `nothing was placed at ${String(b)}`, 'the base of a placement', b);
    this.placed.splice(i, 1);
  }

  private conflict(base: number, end: number): AvoidRange | undefined {
    for (const p of this.placed) if (base < p.end && p.base < end) return p;
    for (const src of this.avoidSources)
      for (const r of src()) if (base < r.end && r.base < end) return r;
    return undefined;
  }

  private place(bytes: number, opts: AllocOptions, kind: Placement['kind']): Placement {
    const where = 'alloc';
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1)
      throw badArg(where, `size ${String(bytes)} is not a byte count`, 'an integer >= 1', bytes);
    if (opts === null || typeof opts !== 'object')
      throw badArg(where, 'options must be an object', '{ align?, name? }', opts);
    const align = opts.align ?? 64;
    if (
      typeof align !== 'number' ||
      !Number.isSafeInteger(align) ||
      align < 1 ||
      (align & (align - 1)) !== 0
    )
      throw badArg(where, `align ${String(align)} is not a power of two`, 'a power of two', align);
    const name = opts.name ?? `${kind} ${++this.counter}`;
    const taken: AvoidRange[] = [...this.placed];
    for (const src of this.avoidSources) taken.push(...src());
    taken.sort((a, b) => a.base - b.base);
    for (const w of this.wins) {
      const wend = w.base + w.size;
      let at = Math.ceil(w.base / align) * align;
      for (const t of taken) {
        if (t.end <= at) continue;
        if (t.base >= at + bytes) break;
        at = Math.ceil(t.end / align) * align;
      }
      if (at + bytes <= wend) {
        const p: Placement = { base: at, size: bytes, end: at + bytes, name, kind };
        this.placed.push(p);
        return { ...p };
      }
    }
    throw new NxdmaError(
      'MEMORY_UNMAPPED',
      `${where}: no free ${bytes}-byte range aligned to ${align} in the DMA-visible memory`,
      {
        where,
        expected: `${bytes} free bytes in one window`,
        actual: { windows: this.wins.length, placed: this.placed.length },
        needed: bytes,
      },
    );
  }
}

const perDevice = new WeakMap<Device, DmaAllocator>();

/** The one allocator of a device (created on first use). */
export function dmaAllocator(device: Device): DmaAllocator {
  let a = perDevice.get(device);
  if (!a) {
    a = DmaAllocator.forDevice(device);
    perDevice.set(device, a);
  }
  return a;
}
