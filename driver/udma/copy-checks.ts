/**
 * The argument checks of a copy queue, each naming the offending value, where it was and what was
 * expected: a copy's source, destination and size (device addresses below 2^53, disjoint, outside
 * every ring of the engine, inside mapped memory unless the engine was opened with
 * checkBuffers: false), scatter-gather segment lists (a private snapshot of each, validated with
 * the same rules, destinations disjoint from each other and from every source), enqueue options,
 * counts, and the RING_FULL errors. Nothing here reads or writes the device; the common case of a
 * valid copy allocates nothing.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { BD_MAX_LEN } from '../../csr/formats/bd.ts';
import type { MemoryIO } from '../../csr/io.ts';
import type { EnqueueOptions, OpStatus, Segment } from './queue-types.ts';
import type { RingGuard, RingProducer } from './ring.ts';

const TWO_POW_53 = 2 ** 53;
// An imported binding copied into a module constant (a plain local on the hot path).
const MAX_LEN = BD_MAX_LEN;

export const badArg = (where: string, message: string, expected: string, actual: unknown) =>
  new NxdmaError('BAD_ARGUMENT', `${where}: ${message}`, { where, expected, actual });

/** A validated snapshot of one side of a scatter-gather copy. */
export interface SegmentList {
  addr: number[];
  len: number[];
  total: number;
  /** Descriptors the segments take (each in chunks of at most 64 KiB). */
  descs: number;
}

/** The options of an enqueue call, read once. */
export interface EnqueueFlags {
  barrier: boolean;
  interrupt: boolean;
  onComplete: ((s: OpStatus) => void) | undefined;
}

export class CopyChecks {
  /** How messages name the queue ("udma0 queue 3"). */
  readonly where: string;
  /** Copies check that source and destination are mapped device memory. */
  readonly checkBuffers: boolean;
  /** Rings of the engine a copy may not touch (shared by the engine's queues). */
  private readonly guard: RingGuard;
  private readonly memory: MemoryIO;

  constructor(where: string, guard: RingGuard, memory: MemoryIO, checkBuffers: boolean) {
    this.where = where;
    this.guard = guard;
    this.memory = memory;
    this.checkBuffers = checkBuffers;
  }

  /**
   * Validates one copy (batch entry `index`, or -1 for a single copy); returns its descriptor
   * count. Reads nothing, writes nothing, allocates nothing unless it throws.
   */
  copy(src: number, dst: number, bytes: number, index: number): number {
    if (
      typeof bytes === 'number' &&
      Number.isSafeInteger(bytes) &&
      bytes >= 1 &&
      typeof src === 'number' &&
      Number.isSafeInteger(src) &&
      src >= 0 &&
      src + bytes <= TWO_POW_53 &&
      typeof dst === 'number' &&
      Number.isSafeInteger(dst) &&
      dst >= 0 &&
      dst + bytes <= TWO_POW_53 &&
      (src >= dst + bytes || dst >= src + bytes) &&
      (src + bytes <= this.guard.lo || src >= this.guard.hi || !this.guard.hit(src, bytes)) &&
      (dst + bytes <= this.guard.lo || dst >= this.guard.hi || !this.guard.hit(dst, bytes)) &&
      (!this.checkBuffers || (this.memory.isMapped(src, bytes) && this.memory.isMapped(dst, bytes)))
    ) {
      return bytes <= MAX_LEN ? 1 : Math.ceil(bytes / MAX_LEN);
    }
    throw this.copyError(src, dst, bytes, index < 0 ? this.where : `${this.where} batch[${index}]`);
  }

  /** The error `copy` throws (built off the hot path). */
  private copyError(src: number, dst: number, bytes: number, where: string): NxdmaError {
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1) {
      return badArg(
        where,
        `copy size ${String(bytes)} is not a positive integer`,
        'an integer >= 1',
        bytes,
      );
    }
    for (const [side, addr] of [
      ['source', src],
      ['destination', dst],
    ] as const) {
      if (
        typeof addr !== 'number' ||
        !Number.isSafeInteger(addr) ||
        addr < 0 ||
        addr + bytes > TWO_POW_53
      ) {
        return badArg(
          where,
          `${side} ${String(addr)} is not a device address for ${bytes} bytes`,
          'a non-negative safe integer',
          addr,
        );
      }
    }
    if (src < dst + bytes && dst < src + bytes) {
      return new NxdmaError(
        'MEMORY_OVERLAP',
        `${where}: source ${hex(src)}+${bytes} and destination ${hex(dst)}+${bytes} overlap`,
        {
          where,
          expected: 'disjoint source and destination ranges',
          actual: { src: hex(src), dst: hex(dst), bytes },
        },
      );
    }
    for (const [side, addr] of [
      ['source', src],
      ['destination', dst],
    ] as const) {
      const ring = this.guard.hit(addr, bytes);
      if (ring) {
        return new NxdmaError(
          'MEMORY_OVERLAP',
          `${where}: ${side} ${hex(addr)}+${bytes} overlaps the ${ring.name} at ${hex(ring.base)}..${hex(ring.end)}: a copy may not read or write descriptor rings`,
          {
            where,
            expected: `a ${side} outside every ring of the engine`,
            actual: { [side]: hex(addr), bytes, ring: ring.name },
          },
        );
      }
    }
    const side = !this.memory.isMapped(src, bytes) ? 'source' : 'destination';
    const addr = side === 'source' ? src : dst;
    return new NxdmaError(
      'MEMORY_UNMAPPED',
      `${where}: ${side} ${hex(addr)}+${bytes} is not mapped device memory`,
      {
        where,
        expected: `a ${side} inside the device memory windows (or an engine opened with checkBuffers: false)`,
        actual: hex(addr),
      },
    );
  }

  /**
   * A private snapshot of a segment list of at most `limit` segments, validated with the buffer
   * rules of `copy`.
   */
  segments(list: readonly Segment[], kind: 'source' | 'destination', limit: number): SegmentList {
    const where = this.where;
    const w = `${where} ${kind === 'source' ? 'src' : 'dst'}`;
    if (!Array.isArray(list))
      throw badArg(
        where,
        `scatter-gather ${kind} must be an array of { addr, length }`,
        'Segment[]',
        list,
      );
    const count = list.length;
    if (!Number.isSafeInteger(count) || count < 1)
      throw badArg(w, `scatter-gather ${kind} has no segment`, 'at least one segment', count);
    if (count > limit)
      throw badArg(
        w,
        `${count} ${kind} segments, more than ${limit}`,
        `at most ${limit} segments`,
        count,
      );
    const addr: number[] = [];
    const len: number[] = [];
    let total = 0;
    let descs = 0;
    for (let i = 0; i < count; i++) {
      const seg: unknown = list[i];
      if (seg === null || typeof seg !== 'object')
        throw badArg(`${w}[${i}]`, 'not a segment', '{ addr, length }', seg);
      const a: unknown = (seg as Segment).addr;
      const l: unknown = (seg as Segment).length;
      const here = `${w}[${i}]`;
      if (typeof l !== 'number' || !Number.isSafeInteger(l) || l < 1)
        throw badArg(
          here,
          `segment length ${String(l)} is not a positive integer`,
          'an integer >= 1',
          l,
        );
      if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 0 || a + l > TWO_POW_53)
        throw badArg(
          here,
          `segment address ${String(a)} is not a device address for ${l} bytes`,
          'a non-negative safe integer',
          a,
        );
      const ring = this.guard.hit(a, l);
      if (ring) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `${here}: ${kind} segment ${hex(a)}+${l} overlaps the ${ring.name} at ${hex(ring.base)}..${hex(ring.end)}: a copy may not read or write descriptor rings`,
          {
            where: here,
            expected: `a ${kind} outside every ring of the engine`,
            actual: { addr: hex(a), bytes: l, ring: ring.name },
          },
        );
      }
      if (this.checkBuffers && !this.memory.isMapped(a, l)) {
        throw new NxdmaError(
          'MEMORY_UNMAPPED',
          `${here}: ${kind} segment ${hex(a)}+${l} is not mapped device memory`,
          {
            where: here,
            expected: `a ${kind} inside the device memory windows (or an engine opened with checkBuffers: false)`,
            actual: hex(a),
          },
        );
      }
      addr.push(a);
      len.push(l);
      total += l;
      descs += Math.ceil(l / BD_MAX_LEN);
    }
    if (!Number.isSafeInteger(total))
      throw badArg(w, `scatter-gather ${kind} totals ${total} bytes`, 'a total below 2^53', total);
    return { addr, len, total, descs };
  }

  /**
   * The two sides of a scatter-gather copy agree: equal totals, no destination segment overlapping
   * another or any source segment, and the source within one packet of `maxDescPerPkt` TX
   * descriptors.
   */
  scatterGather(s: SegmentList, d: SegmentList, maxDescPerPkt: number): void {
    const where = this.where;
    if (s.total !== d.total) {
      throw badArg(
        where,
        `scatter-gather: the source segments hold ${s.total} bytes, the destination segments ${d.total}`,
        'equal source and destination totals',
        { source: s.total, destination: d.total },
      );
    }
    for (let i = 0; i < d.addr.length; i++) {
      const a = d.addr[i];
      const al = d.len[i];
      for (const [other, kind] of [
        [s, 'source'],
        [d, 'destination'],
      ] as const) {
        for (let j = 0; j < other.addr.length; j++) {
          if (other === d && j === i) continue;
          const b = other.addr[j];
          const bl = other.len[j];
          if (a < b + bl && b < a + al) {
            throw new NxdmaError(
              'MEMORY_OVERLAP',
              `${where}: destination segment ${i} ${hex(a)}+${al} overlaps ${kind} segment ${j} ${hex(b)}+${bl}`,
              {
                where: `${where} dst[${i}]`,
                expected: 'destination segments disjoint from each other and from every source',
                actual: { dst: hex(a), other: hex(b), kind },
              },
            );
          }
        }
      }
    }
    if (s.descs > maxDescPerPkt) {
      throw badArg(
        where,
        `scatter-gather: the source takes ${s.descs} TX descriptors, more than the ${maxDescPerPkt} one packet may hold (max_desc_per_pkt)`,
        `at most ${maxDescPerPkt} TX descriptors (64 KiB each) per scatter-gather copy`,
        s.descs,
      );
    }
  }

  /** The options of an enqueue call, read once; `fenceNext` is a pending `fence()`. */
  enqueueOptions(opts: EnqueueOptions | undefined, fenceNext: boolean): EnqueueFlags {
    if (opts !== undefined && (opts === null || typeof opts !== 'object'))
      throw badArg(
        this.where,
        'options must be an object',
        '{ fence?, interrupt?, onComplete? }',
        opts,
      );
    const barrier = opts?.barrier;
    const fence = opts?.fence;
    const interrupt = opts?.interrupt;
    const onComplete = opts?.onComplete;
    for (const [name, v] of [
      ['barrier', barrier],
      ['fence', fence],
      ['interrupt', interrupt],
    ] as const) {
      if (v !== undefined && typeof v !== 'boolean')
        throw badArg(this.where, `${name} must be a boolean`, 'true | false', v);
    }
    if (onComplete !== undefined) this.callback(onComplete);
    return {
      barrier: barrier === true || fence === true || fenceNext,
      interrupt: interrupt === true,
      onComplete,
    };
  }

  /** A completion callback or listener must be a function. */
  callback(cb: unknown): void {
    if (typeof cb !== 'function')
      throw badArg(this.where, 'onComplete must be a function', '(status) => void', cb);
  }

  /** The `max` of completed / completedStatus: a count, Infinity when absent. */
  max(max: number | undefined, name: string): number {
    if (max === undefined) return Infinity;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 0)
      throw badArg(
        `${this.where} ${name}`,
        `max ${String(max)} is not a count`,
        'an integer >= 0',
        max,
      );
    return max;
  }

  /** RING_FULL: `ring` (of tx / rx) has no room for the `ntx` / `nrx` descriptors needed. */
  ringFull(tx: RingProducer, rx: RingProducer, ntx: number, nrx: number): NxdmaError {
    const where = this.where;
    const ring = tx.room < ntx ? tx : rx;
    const n = ring === tx ? ntx : nrx;
    return new NxdmaError(
      'RING_FULL',
      `${where}: the ${ring.kind.toUpperCase()} ring has room for ${ring.room} descriptors, the copy needs ${n} ` +
        `(ring of ${ring.size}; ${ring.pending} in flight)`,
      {
        where,
        expected: `${ntx} free TX and ${nrx} free RX descriptors`,
        actual: { txFree: tx.room, rxFree: rx.room, txSize: tx.size, rxSize: rx.size },
        needed: n,
      },
    );
  }

  /** RING_FULL for a batch needing `n` descriptors, more than a ring holds. */
  batchTooBig(tx: RingProducer, rx: RingProducer, n: number, count: number): NxdmaError {
    const where = this.where;
    return new NxdmaError(
      'RING_FULL',
      `${where}: the batch needs ${count === n ? 'at least ' : ''}${n} descriptors per ring, more than the rings hold (TX ${tx.size}, RX ${rx.size})`,
      {
        where,
        expected: `at most ${Math.min(tx.size, rx.size)} descriptors per batch`,
        actual: n,
        needed: n,
      },
    );
  }
}
