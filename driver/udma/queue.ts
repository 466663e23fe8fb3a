/**
 * One queue of a UDMA engine driven as a memory-to-memory copy channel (UDMA-FACTS.md
 * "Memory-to-memory copy"): a TX ring on M2S_Q[q] reading the source and an RX ring on S2M_Q[q]
 * writing the destination, in chunks of at most 64 KiB, each chunk one packet (a TX descriptor
 * with first|last and its RX descriptor), doorbells rung RX first, then TX.
 *
 * Producer state (tails, ring ids) lives here; submission performs no MMIO read while the driver
 * knows there is room. Completion is read from the RX head (rdrhp): a copy is complete when the
 * engine has consumed its last RX descriptor.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { BD_MAX_LEN, BD_SIZE, LEN_CTRL } from '../../csr/formats/bd.ts';
import type { MemoryIO } from '../../csr/io.ts';
import { BdWriter } from './bd-writer.ts';
import type { DeviceClock, EngineHealth } from './engine.ts';
import type { EngineIO } from './engine-io.ts';
import { ringDoorbells, type HalfQueueRegs, type QueueRegs } from './queue-regs.ts';
import { RingProducer, zeroMemory, type RingGuard, type RingSpec } from './ring.ts';

/** Per-copy options. */
export interface CopyOptions {
  /**
   * Data memory barrier (dmb) on the copy's first TX descriptor: every transfer submitted earlier
   * on this queue completes before this copy starts.
   */
  barrier?: boolean;
  /** Raise an interrupt when the copy completes (int_en on its last RX descriptor). */
  interrupt?: boolean;
  /**
   * Called once with the operation's final status when the driver observes it (dmaengine's
   * per-descriptor callback): success, aborted by a fault, or discarded by a reset.
   */
  onComplete?: (status: OpStatus) => void;
}

/** Options of the enqueue calls: a copy's options plus `fence` (an alias of `barrier`). */
export interface EnqueueOptions extends CopyOptions {
  /** The operation starts only after every earlier operation on the queue completed (dmb). */
  fence?: boolean;
}

/** One scatter-gather segment (dmadev's rte_dma_sge). */
export interface Segment {
  addr: number;
  length: number;
}

/** Final state of one operation. */
export type OpState = 'success' | 'aborted' | 'discarded';

/** Where an aborted operation faulted. */
export interface OpFault {
  /** The faulting address when the device reports it (the mock does), else null. */
  address: number | null;
  /** What faulted ('data', 'descriptor-fetch', 'completion'), or 'engine-abort' when unknown. */
  kind: string;
  /** Which half raised it, when known. */
  half: 'm2s' | 's2m' | null;
  /** Buffers of the descriptors at the TX and RX heads when the engine stopped (read back). */
  descriptor: { src: number; dst: number } | null;
  message: string;
}

/** The status of one finished operation. */
export interface OpStatus {
  queue: number;
  seq: number;
  status: OpState;
  /** For `aborted`. */
  fault?: OpFault;
}

/** What `completed(max)` returns (dmadev rte_dma_completed). */
export interface CompletedResult {
  /** Operations newly reported as successful. */
  count: number;
  /** Sequence number of the last operation reported (0 before any). */
  lastSeq: number;
  /** The next operation did not succeed: read it with `completedStatus`. */
  hasError: boolean;
}

/** What `completedStatus(max)` returns (dmadev rte_dma_completed_status). */
export interface CompletedStatusResult {
  count: number;
  lastSeq: number;
  statuses: OpStatus[];
}

/** Options of `done`. */
export interface DoneOptions {
  /** Reject with the signal's reason once it aborts. */
  signal?: AbortSignal;
  /** Reject with TIMEOUT after this many milliseconds. Default 1000. */
  timeoutMs?: number;
}

/** What a queue needs from its engine. */
export interface QueueOwner {
  /** M2S_rd.desc_pref_cfg_2.max_desc_per_pkt as bring-up set it (the default when not). */
  readonly maxDescPerPkt: number;
  readonly clock: DeviceClock | null;
  health(): EngineHealth;
  /** The device's own record of the last abort of this queue, when the device keeps one. */
  faultOf(queue: number): OpFault | null | undefined;
}

/** One copy of a batch. */
export interface CopyRequest extends CopyOptions {
  src: number;
  dst: number;
  bytes: number;
}

/** The two rings of a copy queue. */
export interface QueueRings {
  tx: RingSpec;
  rx: RingSpec;
}

/** Per-queue counters (copies unless stated). */
export interface QueueStats {
  engine: number;
  queue: number;
  /** Copies submitted (doorbell rung). */
  submitted: number;
  /** Operations written into the rings and waiting for `submit()`. */
  enqueued: number;
  /** Operations aborted by an engine fault. */
  aborted: number;
  /** Copies whose last RX descriptor the engine consumed. */
  completed: number;
  /** Copies submitted and not yet seen complete. */
  inFlight: number;
  /** Bytes of the completed copies. */
  bytes: number;
  /** Bytes of the submitted copies. */
  bytesSubmitted: number;
  /** Descriptor pairs (TX + RX) submitted. */
  descriptors: number;
  /** Errors seen on this queue: timeouts, engine aborts, inconsistent head pointers. */
  errors: number;
  /** Copies dropped by a queue reset or re-initialization (in flight or enqueued). */
  discarded: number;
  /** Copies refused for lack of ring room (RING_FULL; nothing was written for them). */
  refused: number;
  paused: boolean;
}

const TWO_POW_53 = 2 ** 53;

function copyRings(r: QueueRings): QueueRings {
  return { tx: { base: r.tx.base, size: r.tx.size }, rx: { base: r.rx.base, size: r.rx.size } };
}

function badArg(where: string, message: string, expected: string, actual: unknown): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `${where}: ${message}`, { where, expected, actual });
}

export class UdmaQueue {
  readonly engine: number;
  readonly index: number;
  // Producers and rings: replaced when initQueue programs the queue again with other rings.
  private txp: RingProducer;
  private rxp: RingProducer;
  /** Writes every descriptor of the queue at the producers' tails. */
  private writer: BdWriter;
  private ringSpecs: QueueRings;
  /** Rings of the engine a copy may not touch (shared by the engine's queues). */
  private readonly guard: RingGuard;
  /** Copy entries check that source and destination are mapped device memory. */
  readonly checkBuffers: boolean;
  private readonly eio: EngineIO;
  private readonly regs: QueueRegs;
  private readonly memory: MemoryIO;
  // Completion FIFO: the RX and TX `produced` counts at which each in-flight copy ends, its bytes.
  private ends: Float64Array;
  private txEnds: Float64Array;
  private sizes: Float64Array;
  private fifoHead = 0;
  private fifoCount = 0;
  private pausedFlag = false;
  private readonly owner: QueueOwner;
  /** Sequence number of the last operation written (1, 2, ...; never reset). */
  private seq = 0;
  // Written and not handed over yet (enqueue without submit).
  // Written and not handed over: what lies between these marks (taken at each doorbell) and the
  // producers' `produced`, the sequence number and the bytes written.
  private rungTx = 0;
  private rungRx = 0;
  private rungSeq = 0;
  private bytesWritten = 0;
  private bytesRung = 0;
  /** The next enqueued operation carries a fence. */
  private fenceNext = false;
  /** Sequence number of the last operation completed / completedStatus reported. */
  private reported = 0;
  /** Aborted operations and their faults. */
  private readonly abortedOps = new Map<number, OpFault>();
  /** 'completion' listeners. */
  private readonly listeners: ((s: OpStatus) => void)[] = [];
  /** Per-operation callbacks (onComplete). */
  private readonly callbacks = new Map<number, (s: OpStatus) => void>();
  /** Stall detection: RX consumption at the last look, and when the engine state was read. */
  private lastSeenConsumed = -1;
  private lastHealthAt = -Infinity;
  // Counters (stats({ reset }) zeroes them).
  private submitted = 0;
  private completedOps = 0;
  private abortedCount = 0;
  private bytesDone = 0;
  private bytesSubmitted = 0;
  private descs = 0;
  private discarded = 0;
  private refused = 0;
  /** Sequence number of the last copy seen complete (0: none). */
  private lastDoneSeq = 0;
  /** Sequence numbers dropped by resets, as [first, last] ranges (resets are rare). */
  private readonly dropped: [number, number][] = [];
  /** Errors counted on this queue (the engine adds timeouts and aborts). */
  errors = 0;
  /** How messages name the queue ("udma0 queue 3"). */
  private readonly where: string;

  /** @internal Created by UdmaEngine.initQueue, which validated the rings. */
  constructor(
    eio: EngineIO,
    regs: QueueRegs,
    rings: QueueRings,
    memory: MemoryIO,
    checkBuffers: boolean,
    guard: RingGuard,
    owner: QueueOwner,
  ) {
    this.owner = owner;
    this.eio = eio;
    this.engine = eio.engine;
    this.index = regs.queue;
    this.where = `udma${eio.engine} queue ${regs.queue}`;
    this.regs = regs;
    this.memory = memory;
    this.checkBuffers = checkBuffers;
    this.guard = guard;
    this.ringSpecs = copyRings(rings);
    this.txp = new RingProducer('tx', this.ringSpecs.tx, memory);
    this.rxp = new RingProducer('rx', this.ringSpecs.rx, memory);
    this.writer = new BdWriter(this.txp, this.rxp);
    this.ends = new Float64Array(rings.rx.size);
    this.txEnds = new Float64Array(rings.rx.size);
    this.sizes = new Float64Array(rings.rx.size);
  }

  /** The TX (M2S) ring's producer. */
  get tx(): RingProducer {
    return this.txp;
  }

  /** The RX (S2M) ring's producer. */
  get rx(): RingProducer {
    return this.rxp;
  }

  /** Where the rings live (a copy). */
  get rings(): QueueRings {
    return copyRings(this.ringSpecs);
  }

  // -------------------------------------------------------------------------------------------
  // Queue programming (init, pause, resume, reset).

  /**
   * The queue-init sequence of the public driver, on each half (M2S then S2M): cfg without the
   * enable bits, q_sw_ctrl.rst_q, ring base (low, high), ring length, comp_cfg = 0 (no completion
   * ring: completion is read from the heads), cfg with the enable bits (unless paused).
   */
  program(): void {
    this.reprogram(this.ringSpecs);
  }

  /**
   * Programs the queue onto `rings` (already validated by the engine): every copy in flight is
   * dropped and accounted (`discarded`, reported discarded), and every descriptor slot the driver
   * wrote since the last reset that the restarted queue will fetch from again is zeroed while its
   * half is stopped and reset. rst_q restarts the engine's phase at ring id 1, the id the dropped
   * descriptors of the first lap carry; a zero descriptor carries ring id 0, which the restarted
   * ring expects only on its fourth lap, after the producer has rewritten every slot. A stray
   * doorbell past the producer therefore meets a ring-id mismatch and stalls, never a dropped copy.
   */
  private reprogram(rings: QueueRings): void {
    const stale = [this.txp.writtenRange(), this.rxp.writtenRange()].filter((r) => r.end > r.base);
    this.dropInFlight();
    if (rings !== this.ringSpecs) {
      this.ringSpecs = rings;
      this.txp = new RingProducer('tx', rings.tx, this.memory);
      this.rxp = new RingProducer('rx', rings.rx, this.memory);
      this.writer = new BdWriter(this.txp, this.rxp);
      this.ends = new Float64Array(rings.rx.size);
      this.txEnds = new Float64Array(rings.rx.size);
      this.sizes = new Float64Array(rings.rx.size);
    }
    this.programHalf(this.regs.m2s, rings.tx, !this.pausedFlag, stale);
    this.programHalf(this.regs.s2m, rings.rx, true, stale);
    this.txp.reset();
    this.rxp.reset();
    this.rungTx = 0;
    this.rungRx = 0;
  }

  /** Drops every copy in flight, accounting for each (discarded, and reported discarded). */
  private dropInFlight(): void {
    const n = this.fifoCount;
    const first = this.seq - n + 1;
    this.fifoHead = 0;
    this.fifoCount = 0;
    this.rungSeq = this.seq;
    this.bytesRung = this.bytesWritten;
    this.fenceNext = false;
    this.lastSeenConsumed = -1;
    if (n === 0) return;
    this.dropped.push([first, this.seq]);
    let lost = 0;
    for (let s = first; s <= this.seq; s++) if (!this.abortedOps.has(s)) lost++;
    this.discarded += lost;
    if (this.notifying()) {
      const out: OpStatus[] = [];
      for (let s = first; s <= this.seq; s++)
        if (!this.abortedOps.has(s)) out.push({ queue: this.index, seq: s, status: 'discarded' });
      this.dispatch(out);
    }
  }

  /**
   * @internal Programs the queue again on new rings (UdmaEngine.initQueue on an initialized
   * queue, rings validated there): in-flight copies are dropped as by `reset`; sequence numbers
   * and counters go on.
   */
  reinit(rings: QueueRings): void {
    this.reprogram(copyRings(rings));
  }

  private programHalf(
    h: HalfQueueRegs,
    ring: RingSpec,
    enable: boolean,
    stale: readonly { base: number; end: number }[],
  ): void {
    const eio = this.eio;
    const cfg = eio.current(h.cfg);
    eio.write(h.cfg, (cfg & ~h.enableMask) >>> 0);
    eio.write(h.swCtrl, h.swCtrl.encode({ [h.rstQ.name]: 1 }, 0));
    // The half is stopped and reset: scrub what it will fetch again.
    const end = ring.base + ring.size * BD_SIZE;
    for (const r of stale) {
      const lo = Math.max(r.base, ring.base);
      const hi = Math.min(r.end, end);
      if (hi > lo) zeroMemory(this.memory, lo, hi - lo);
    }
    const lo = ring.base % 2 ** 32;
    const hi = Math.floor(ring.base / 2 ** 32);
    eio.write(h.baseLo.reg, h.baseLo.reg.encode({ [h.baseLo.name]: lo >>> h.baseLo.lsb }));
    eio.write(h.baseHi.reg, h.baseHi.reg.encode({ [h.baseHi.name]: hi }));
    eio.write(h.len.reg, h.len.reg.encode({ [h.len.name]: ring.size }));
    eio.write(h.compCfg, 0);
    if (enable) eio.write(h.cfg, (cfg | h.enableMask) >>> 0);
  }

  /**
   * Stops the queue from fetching and scheduling new packets: clears M2S_Q[q].cfg.en_pref and
   * en_scheduling (one write; the cfg word comes from the shadow). The S2M half stays enabled so
   * data already in flight lands. Submitting to a paused queue is allowed: it runs on resume.
   */
  pause(): void {
    const h = this.regs.m2s;
    this.eio.write(h.cfg, (this.eio.current(h.cfg) & ~h.enableMask) >>> 0);
    this.pausedFlag = true;
  }

  /** Sets en_pref and en_scheduling again (one write). */
  resume(): void {
    const h = this.regs.m2s;
    this.eio.write(h.cfg, (this.eio.current(h.cfg) | h.enableMask) >>> 0);
    this.pausedFlag = false;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /**
   * Resets the queue (q_sw_ctrl.rst_q on both halves, inside the full queue-init sequence so the
   * ring registers are programmed again): pointers back to slot 0 and ring id 1; copies in flight
   * are dropped (counted in `discarded`). The queue is left enabled (a paused queue is resumed).
   */
  reset(): void {
    this.pausedFlag = false;
    this.program();
  }

  // -------------------------------------------------------------------------------------------
  // Submission.

  /**
   * Validates one copy (batch entry `index`, or -1 for a single copy); returns its descriptor
   * count. Reads nothing, writes nothing, allocates nothing unless it throws.
   */
  private check(src: number, dst: number, bytes: number, index: number): number {
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
      return Math.ceil(bytes / BD_MAX_LEN);
    }
    throw this.checkError(
      src,
      dst,
      bytes,
      index < 0 ? this.where : `${this.where} batch[${index}]`,
    );
  }

  /** The error `check` throws (built off the hot path). */
  private checkError(src: number, dst: number, bytes: number, where: string): NxdmaError {
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1) {
      return badArg(
        where,
        `copy size ${String(bytes)} is not a positive integer`,
        'an integer >= 1',
        bytes,
      );
    }
    if (
      typeof src !== 'number' ||
      !Number.isSafeInteger(src) ||
      src < 0 ||
      src + bytes > TWO_POW_53
    ) {
      return badArg(
        where,
        `source ${String(src)} is not a device address for ${bytes} bytes`,
        'a non-negative safe integer',
        src,
      );
    }
    if (
      typeof dst !== 'number' ||
      !Number.isSafeInteger(dst) ||
      dst < 0 ||
      dst + bytes > TWO_POW_53
    ) {
      return badArg(
        where,
        `destination ${String(dst)} is not a device address for ${bytes} bytes`,
        'a non-negative safe integer',
        dst,
      );
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
   * Makes sure both rings have room for `n` more descriptors, reading the engine's heads only when
   * the driver's own count says there may not be. Throws RING_FULL (nothing written) otherwise.
   */
  private ensureRoom(ntx: number, nrx: number, copies: number, where: string): void {
    const tx = this.txp;
    const rx = this.rxp;
    if (rx.room < nrx) this.readRxHead();
    if (tx.room < ntx) this.readTxHead();
    if (tx.room >= ntx && rx.room >= nrx) return;
    this.refused += copies;
    const ring = tx.room < ntx ? tx : rx;
    const n = ring === tx ? ntx : nrx;
    throw new NxdmaError(
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

  /**
   * Submits one copy: ceil(bytes / 64 KiB) TX and RX descriptors written into the rings, then the
   * RX doorbell, then the TX doorbell. Returns the copy's sequence number on this queue (1, 2, ...;
   * compare with `completedCount`). A refused copy (bad argument, ring full) writes nothing.
   */
  copy(src: number, dst: number, bytes: number, opts?: CopyOptions): number {
    const where = this.where;
    const n = this.check(src, dst, bytes, -1);
    const cb = opts?.onComplete;
    if (cb !== undefined) this.checkCallback(cb);
    this.ensureRoom(n, n, 1, where);
    this.put(src, dst, bytes, opts?.barrier === true, opts?.interrupt === true);
    if (cb !== undefined) this.callbacks.set(this.seq, cb);
    this.ring();
    return this.seq;
  }

  /**
   * Submits many copies with one RX doorbell and one TX doorbell: every copy is validated and the
   * room for all of them checked first, so a refused batch writes nothing. Returns the sequence
   * number of the batch's last copy.
   */
  copyBatch(copies: readonly CopyRequest[]): number {
    const where = this.where;
    if (!Array.isArray(copies))
      throw badArg(where, 'copyBatch takes an array of copies', 'CopyRequest[]', copies);
    // A private snapshot: every value is read once (getters, Proxies), then validated, then
    // written from the snapshot.
    const count = copies.length;
    if (!Number.isSafeInteger(count) || count < 0)
      throw badArg(where, 'copyBatch: the array length is not a count', 'an array', count);
    // Every copy takes at least one descriptor: a batch longer than a ring never fits (and the
    // snapshot stays bounded by the ring size).
    if (count > this.txp.size || count > this.rxp.size) throw this.batchTooBig(count, count);
    const b = this.snap;
    const bs = b.src;
    const bd = b.dst;
    const bb = b.bytes;
    const bf = b.flags;
    let n = 0;
    for (let i = 0; i < count; i++) {
      const c: unknown = copies[i];
      if (c === null || typeof c !== 'object')
        throw badArg(`${where} batch[${i}]`, 'not a copy request', '{ src, dst, bytes }', c);
      const r = c as CopyRequest;
      const src = r.src;
      const dst = r.dst;
      const bytes = r.bytes;
      // check() refuses anything but safe integers, so the snapshot holds exactly these numbers.
      n += this.check(src, dst, bytes, i);
      bs[i] = src;
      bd[i] = dst;
      bb[i] = bytes;
      bf[i] = (r.barrier === true ? 1 : 0) | (r.interrupt === true ? 2 : 0);
    }
    if (n === 0) return this.seq;
    if (n > this.txp.size || n > this.rxp.size) throw this.batchTooBig(n, count);
    this.ensureRoom(n, n, count, where);
    for (let i = 0; i < count; i++) {
      const f = bf[i];
      this.put(bs[i], bd[i], bb[i], (f & 1) !== 0, (f & 2) !== 0);
    }
    this.ring();
    return this.seq;
  }

  /** RING_FULL for a batch needing `n` descriptors, more than a ring holds. */
  private batchTooBig(n: number, count: number): NxdmaError {
    this.refused += count;
    const where = this.where;
    return new NxdmaError(
      'RING_FULL',
      `${where}: the batch needs ${count === n ? 'at least ' : ''}${n} descriptors per ring, more than the rings hold (TX ${this.txp.size}, RX ${this.rxp.size})`,
      {
        where,
        expected: `at most ${Math.min(this.txp.size, this.rxp.size)} descriptors per batch`,
        actual: n,
        needed: n,
      },
    );
  }

  /** Reused snapshot of a batch (plain arrays: small integers stay unboxed). */
  private readonly snap = {
    src: [] as number[],
    dst: [] as number[],
    bytes: [] as number[],
    flags: [] as number[],
  };

  /** Writes one copy's descriptors (room already checked) and queues its completion entry. */
  private put(src: number, dst: number, bytes: number, barrier: boolean, interrupt: boolean): void {
    this.writer.copy(src, dst, bytes, barrier, interrupt);
    // The completion entry (push(), inlined on this path).
    let slot = this.fifoHead + this.fifoCount;
    if (slot >= this.ends.length) slot -= this.ends.length;
    this.ends[slot] = this.rxp.produced;
    this.txEnds[slot] = this.txp.produced;
    this.sizes[slot] = bytes;
    this.fifoCount++;
    this.seq++;
    this.bytesWritten += bytes;
  }

  /** Queues the completion entry of the operation just written (its descriptors counted). */
  private push(bytes: number): void {
    let slot = this.fifoHead + this.fifoCount;
    if (slot >= this.ends.length) slot -= this.ends.length;
    this.ends[slot] = this.rxp.produced;
    this.txEnds[slot] = this.txp.produced;
    this.sizes[slot] = bytes;
    this.fifoCount++;
    this.seq++;
    this.bytesWritten += bytes;
  }

  /**
   * Hands every written descriptor to the engine: the RX doorbell first, then the TX doorbell
   * (nothing when nothing is pending).
   */
  private ring(): void {
    const ntx = this.txp.produced - this.rungTx;
    const nrx = this.rxp.produced - this.rungRx;
    if (ntx === 0 && nrx === 0) return;
    ringDoorbells(this.eio.unit, this.regs, nrx, ntx);
    this.eio.writes += 2;
    this.submitted += this.seq - this.rungSeq;
    this.bytesSubmitted += this.bytesWritten - this.bytesRung;
    this.descs += ntx > nrx ? ntx : nrx;
    this.rungTx = this.txp.produced;
    this.rungRx = this.rxp.produced;
    this.rungSeq = this.seq;
    this.bytesRung = this.bytesWritten;
  }

  // -------------------------------------------------------------------------------------------
  // Completion.

  private head(h: HalfQueueRegs, ring: RingProducer): void {
    const w = this.eio.read(h.headOffset.reg);
    const off = h.headOffset.get(w);
    const rid = h.headRingId.get(w);
    if (!ring.observeHead(off, rid)) {
      this.errors++;
      throw new NxdmaError(
        'QUEUE_STATE',
        `${this.where}: the ${ring.kind.toUpperCase()} head (offset ${off}, ring id ${rid}) is inconsistent with the ` +
          `driver's tail (offset ${ring.tail}, ring id ${ring.ringId}, ${ring.pending} in flight); was the queue reset behind the driver?`,
        {
          where: `${this.where} ${h.headOffset.reg.path}`,
          expected: `a head at most ${ring.pending} descriptors behind the tail`,
          actual: { offset: off, ringId: rid },
        },
      );
    }
  }

  private readRxHead(): void {
    this.head(this.regs.s2m, this.rxp);
    this.retire();
  }

  private readTxHead(): void {
    this.head(this.regs.m2s, this.txp);
  }

  /** Pops every copy whose last RX descriptor is consumed. */
  private retire(): number {
    const consumed = this.rxp.consumed;
    const ends = this.ends;
    let done = 0;
    let txDone = -1;
    while (this.fifoCount > 0 && ends[this.fifoHead] <= consumed) {
      this.bytesDone += this.sizes[this.fifoHead];
      txDone = this.txEnds[this.fifoHead];
      if (++this.fifoHead === ends.length) this.fifoHead = 0;
      this.fifoCount--;
      done++;
    }
    if (done === 0) return 0;
    this.completedOps += done;
    // An operation's last RX descriptor is consumed after all its TX descriptors.
    this.txp.consumedAtLeast(txDone);
    // Copies retire in submission order: the last one retired is the one before the FIFO head.
    const before = this.lastDoneSeq;
    this.lastDoneSeq = this.seq - this.fifoCount;
    if (this.notifying()) {
      const out: OpStatus[] = [];
      for (let s = before + 1; s <= this.lastDoneSeq; s++)
        if (this.statusOf(s) === 'success')
          out.push({ queue: this.index, seq: s, status: 'success' });
      this.dispatch(out);
    }
    return done;
  }

  /**
   * Reads the RX head (one MMIO read) when copies are in flight and retires the completed ones.
   * Returns the number of copies newly seen complete.
   */
  poll(): number {
    if (this.fifoCount === 0) return 0;
    const before = this.completedOps;
    this.readRxHead();
    return this.completedOps - before;
  }

  /** Operations written (submitted or enqueued) and not yet seen complete. */
  get inFlight(): number {
    return this.fifoCount;
  }

  /**
   * Sequence number of the last copy seen complete (copies complete in order). Sequence numbers
   * keep counting across resets, so after a reset that dropped copies this is not `completed`.
   */
  get completedCount(): number {
    return this.lastDoneSeq;
  }

  /**
   * True when copy `seq` (a value `copy` returned) is known complete; false for a copy a reset
   * dropped.
   */
  isComplete(seq: number): boolean {
    return this.statusOf(seq) === 'success';
  }

  // -------------------------------------------------------------------------------------------
  // Enqueue / submit (dmadev rte_dma_copy / rte_dma_copy_sg without RTE_DMA_OP_FLAG_SUBMIT, then
  // rte_dma_submit).

  /**
   * Writes one copy's descriptors without ringing a doorbell (same checks and chunking as `copy`);
   * `submit()` hands every enqueued operation to the engine at once. Returns the sequence number.
   */
  enqueueCopy(src: number, dst: number, bytes: number, opts?: EnqueueOptions): number {
    const n = this.check(src, dst, bytes, -1);
    const o = this.enqueueOptions(opts);
    this.ensureRoom(n, n, 1, this.where);
    this.put(src, dst, bytes, o.barrier, o.interrupt);
    return this.afterEnqueue(o.onComplete);
  }

  /**
   * Writes one scatter-gather copy without a doorbell: the source segments, in order, are copied to
   * the destination segments, in order, as ONE packet (TX descriptors first .. last, at most
   * max_desc_per_pkt of them; each segment in chunks of at most 64 KiB). The totals must be equal;
   * no destination segment may overlap another or any source segment; every segment follows the
   * buffer rules of `copy`. Returns the sequence number.
   */
  enqueueSg(src: readonly Segment[], dst: readonly Segment[], opts?: EnqueueOptions): number {
    const where = this.where;
    const s = this.segments(src, 'source', where);
    const d = this.segments(dst, 'destination', where);
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
    const max = this.owner.maxDescPerPkt;
    if (s.descs > max) {
      throw badArg(
        where,
        `scatter-gather: the source takes ${s.descs} TX descriptors, more than the ${max} one packet may hold (max_desc_per_pkt)`,
        `at most ${max} TX descriptors (64 KiB each) per scatter-gather copy`,
        s.descs,
      );
    }
    const o = this.enqueueOptions(opts);
    this.ensureRoom(s.descs, d.descs, 1, where);
    this.emitSg(s, d, o.barrier, o.interrupt);
    return this.afterEnqueue(o.onComplete);
  }

  /** `enqueueSg` then `submit` (dmadev rte_dma_copy_sg with RTE_DMA_OP_FLAG_SUBMIT). */
  copySg(src: readonly Segment[], dst: readonly Segment[], opts?: EnqueueOptions): number {
    const seq = this.enqueueSg(src, dst, opts);
    this.submit();
    return seq;
  }

  /**
   * The next enqueued operation starts only after every earlier one completed (dmadev
   * RTE_DMA_OP_FLAG_FENCE, dmaengine DMA_PREP_FENCE): its first TX descriptor carries dmb.
   */
  fence(): void {
    this.fenceNext = true;
  }

  /**
   * Rings the doorbells once for everything enqueued since the last doorbell (RX first, then TX).
   * Returns the number of operations handed over (0 writes nothing).
   */
  submit(): number {
    const n = this.seq - this.rungSeq;
    this.ring();
    return n;
  }

  /**
   * Free descriptors on the tighter of the two rings, read from the engine's heads when anything
   * is in flight (dmadev rte_dma_burst_capacity): the number of copies of at most 64 KiB that can be
   * enqueued now.
   */
  burstCapacity(): number {
    if (this.rxp.pending > 0) this.readRxHead();
    if (this.txp.pending > 0) this.readTxHead();
    const t = this.txp.room;
    const r = this.rxp.room;
    return t < r ? t : r;
  }

  private enqueueOptions(opts: EnqueueOptions | undefined): {
    barrier: boolean;
    interrupt: boolean;
    onComplete: ((s: OpStatus) => void) | undefined;
  } {
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
    if (onComplete !== undefined) this.checkCallback(onComplete);
    const f = this.fenceNext;
    return {
      barrier: barrier === true || fence === true || f,
      interrupt: interrupt === true,
      onComplete,
    };
  }

  /** Book-keeping after an enqueue wrote its descriptors. */
  private afterEnqueue(cb: ((s: OpStatus) => void) | undefined): number {
    this.fenceNext = false;
    if (cb !== undefined) this.callbacks.set(this.seq, cb);
    return this.seq;
  }

  private checkCallback(cb: unknown): void {
    if (typeof cb !== 'function')
      throw badArg(this.where, 'onComplete must be a function', '(status) => void', cb);
  }

  /** A private snapshot of a segment list, validated with the buffer rules of `copy`. */
  private segments(
    list: readonly Segment[],
    kind: 'source' | 'destination',
    where: string,
  ): { addr: number[]; len: number[]; total: number; descs: number } {
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
    const limit = kind === 'source' ? this.owner.maxDescPerPkt : this.rxp.size;
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

  /** Writes one scatter-gather packet (room already checked) and queues its completion entry. */
  private emitSg(
    s: { addr: number[]; len: number[]; total: number; descs: number },
    d: { addr: number[]; len: number[]; total: number; descs: number },
    barrier: boolean,
    interrupt: boolean,
  ): void {
    const w = this.writer;
    let k = 0;
    for (let i = 0; i < s.addr.length; i++) {
      for (let off = 0; off < s.len[i]; off += BD_MAX_LEN) {
        const len = Math.min(BD_MAX_LEN, s.len[i] - off);
        let f = 0;
        if (k === 0) f |= LEN_CTRL.FIRST | (barrier ? LEN_CTRL.DMB : 0);
        if (k === s.descs - 1) f |= LEN_CTRL.LAST;
        w.putTx(len, f, s.addr[i] + off);
        k++;
      }
    }
    let m = 0;
    for (let i = 0; i < d.addr.length; i++) {
      for (let off = 0; off < d.len[i]; off += BD_MAX_LEN) {
        const len = Math.min(BD_MAX_LEN, d.len[i] - off);
        const f = interrupt && m === d.descs - 1 ? LEN_CTRL.INT_EN : 0;
        w.putRx(len, f, d.addr[i] + off);
        m++;
      }
    }
    this.push(s.total);
  }

  // -------------------------------------------------------------------------------------------
  // Per-operation completion (dmadev rte_dma_completed / rte_dma_completed_status; dmaengine
  // callbacks and dma_sync_wait).

  /**
   * The state of operation `seq`: 'success', 'aborted', 'discarded', 'pending' (written, not
   * finished) or 'unknown' (no such operation). Reads nothing.
   */
  statusOf(seq: number): OpState | 'pending' | 'unknown' {
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1 || seq > this.seq)
      return 'unknown';
    if (this.abortedOps.has(seq)) return 'aborted';
    for (const [first, last] of this.dropped) if (seq >= first && seq <= last) return 'discarded';
    return seq <= this.lastDoneSeq ? 'success' : 'pending';
  }

  /**
   * Reports up to `max` operations that completed successfully since the last report (dmadev
   * rte_dma_completed): polls the RX head first, and reads the engine state when nothing moved.
   * Stops before the first operation that did not succeed and sets `hasError`; that operation
   * and the ones after it are read with `completedStatus`.
   */
  completed(max?: number): CompletedResult {
    const m = this.checkMax(max, 'completed');
    this.observe();
    let s = this.reported;
    let count = 0;
    let hasError = false;
    while (count < m && s < this.seq) {
      const st = this.statusOf(s + 1);
      if (st === 'success') {
        s++;
        count++;
        continue;
      }
      if (st !== 'pending') hasError = true;
      break;
    }
    this.reported = s;
    return { count, lastSeq: s, hasError };
  }

  /**
   * Reports up to `max` finished operations since the last report with a status each (dmadev
   * rte_dma_completed_status): success, aborted (with the fault) or discarded by a reset.
   */
  completedStatus(max?: number): CompletedStatusResult {
    const m = this.checkMax(max, 'completedStatus');
    this.observe();
    let s = this.reported;
    const statuses: OpStatus[] = [];
    while (statuses.length < m && s < this.seq) {
      const st = this.statusOf(s + 1);
      if (st === 'pending' || st === 'unknown') break;
      s++;
      statuses.push(this.record(s, st));
    }
    this.reported = s;
    return { count: statuses.length, lastSeq: s, statuses };
  }

  /**
   * Resolves with the status of operation `seq` once it completed successfully; rejects with
   * ENGINE_ERROR when a fault aborted it, QUEUE_STATE when a reset discarded it (or it was never
   * submitted), TIMEOUT after `timeoutMs` (default 1000), or the signal's reason when `signal`
   * aborts. Steps a device that does not run by itself (the mock), like `waitIdle`.
   */
  async done(seq: number, opts: DoneOptions = {}): Promise<OpStatus> {
    const where = `${this.where} done(${String(seq)})`;
    if (opts === null || typeof opts !== 'object')
      throw badArg(where, 'options must be an object', '{ signal?, timeoutMs? }', opts);
    const signal = opts.signal;
    const timeoutMs = opts.timeoutMs ?? 1000;
    if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0))
      throw badArg(
        where,
        `timeoutMs ${String(timeoutMs)} is not a duration`,
        'a number of milliseconds >= 0',
        timeoutMs,
      );
    if (
      signal !== undefined &&
      (signal === null || typeof (signal as AbortSignal).aborted !== 'boolean')
    )
      throw badArg(where, 'signal must be an AbortSignal', 'AbortSignal', signal);
    if (this.statusOf(seq) === 'unknown')
      throw badArg(
        where,
        `no operation ${String(seq)} on this queue (1..${this.seq})`,
        `1..${this.seq}`,
        seq,
      );
    const deadline = performance.now() + timeoutMs;
    const clock = this.owner.clock;
    for (;;) {
      if (signal?.aborted)
        throw signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
      if (this.statusOf(seq) === 'pending' && seq > this.rungSeq) {
        throw new NxdmaError(
          'QUEUE_STATE',
          `${where}: operation ${seq} is enqueued but not submitted (call submit())`,
          {
            where,
            expected: 'a submitted operation',
            actual: 'enqueued',
          },
        );
      }
      this.observe();
      const st = this.statusOf(seq);
      if (st === 'success') return this.record(seq, st);
      if (st === 'aborted') {
        const fault = this.abortedOps.get(seq)!;
        throw new NxdmaError(
          'ENGINE_ERROR',
          `${where}: aborted by an engine fault: ${fault.message}`,
          {
            where,
            expected: 'success',
            actual: 'aborted',
            fault,
          },
        );
      }
      if (st === 'discarded') {
        throw new NxdmaError(
          'QUEUE_STATE',
          `${where}: operation ${seq} was discarded by a queue reset`,
          {
            where,
            expected: 'success',
            actual: 'discarded',
          },
        );
      }
      let progressed = false;
      if (clock) for (let i = 0; i < 4096 && clock.step(); i++) progressed = true;
      if (progressed) continue;
      if (performance.now() >= deadline) {
        this.errors++;
        throw new NxdmaError(
          'TIMEOUT',
          `${where}: operation ${seq} not complete after ${timeoutMs} ms` +
            (this.pausedFlag ? ' (queue paused)' : ''),
          {
            where,
            expected: `complete within ${timeoutMs} ms`,
            actual: this.statsNow(),
          },
        );
      }
      await new Promise<void>((resolve) =>
        clock ? setTimeout(resolve, 1) : setImmediate(resolve),
      );
    }
  }

  private checkMax(max: number | undefined, name: string): number {
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

  private record(seq: number, st: OpState): OpStatus {
    const out: OpStatus = { queue: this.index, seq, status: st };
    if (st === 'aborted') out.fault = this.abortedOps.get(seq);
    return out;
  }

  /**
   * Polls the RX head; when operations handed to the engine are in flight and nothing moved since
   * the last look, reads the engine state (at most once a millisecond on a device that runs by
   * itself) and marks the head operation aborted when the engine aborted on this queue.
   */
  private observe(): void {
    if (this.fifoCount === 0) return;
    this.readRxHead();
    if (this.fifoCount - (this.seq - this.rungSeq) === 0) return;
    const consumed = this.rxp.consumed;
    if (consumed !== this.lastSeenConsumed) {
      this.lastSeenConsumed = consumed;
      if (this.owner.clock === null) return;
    }
    if (this.owner.clock === null) {
      const now = performance.now();
      if (now - this.lastHealthAt < 1) return;
      this.lastHealthAt = now;
    }
    if (this.owner.health().aborted) this.noteAbort();
  }

  /**
   * @internal The engine aborted: the operation at the head of this queue (if any was handed over)
   * is marked aborted with the fault the device reports for this queue. A device that keeps a
   * fault record and names another queue leaves this queue's operations pending (a later `start`
   * discards them); a device without one gets the buffers of the descriptors at the heads.
   */
  noteAbort(): void {
    if (this.fifoCount - (this.seq - this.rungSeq) === 0) return;
    const head = this.seq - this.fifoCount + 1;
    if (this.abortedOps.has(head)) return;
    let fault = this.owner.faultOf(this.index);
    if (fault === undefined) return; // the device says the abort was another queue's
    if (fault === null) {
      fault = {
        address: null,
        kind: 'engine-abort',
        half: null,
        descriptor: this.headDescriptors(),
        message: `udma${this.engine}: the engine aborted with operation ${head} of queue ${this.index} at the head`,
      };
    } else if (fault.descriptor === null) {
      fault = { ...fault, descriptor: this.headDescriptors() };
    }
    this.abortedOps.set(head, fault);
    this.abortedCount++;
    this.errors++;
    if (this.notifying()) this.dispatch([this.record(head, 'aborted')]);
  }

  /** The buffer addresses of the descriptors at the TX and RX heads (one head read, ring reads). */
  private headDescriptors(): { src: number; dst: number } | null {
    try {
      this.readTxHead();
      const b = new Uint8Array(BD_SIZE);
      const tx = this.txp;
      const rx = this.rxp;
      this.memory.read(tx.slotAddress(tx.consumed % tx.size), b);
      const dv = new DataView(b.buffer);
      const src = dv.getUint32(8, true) + dv.getUint32(12, true) * 2 ** 32;
      this.memory.read(rx.slotAddress(rx.consumed % rx.size), b);
      const dst = dv.getUint32(8, true) + dv.getUint32(12, true) * 2 ** 32;
      return { src, dst };
    } catch {
      return null;
    }
  }

  private notifying(): boolean {
    return this.callbacks.size > 0 || this.listeners.length > 0;
  }

  /**
   * Listens to the 'completion' event: `fn(status)` for every operation of the queue once its final
   * status is observed (in order for successes). Returns the queue.
   */
  on(event: 'completion', fn: (status: OpStatus) => void): this {
    if (event !== 'completion')
      throw badArg(this.where, `no event ${String(event)}`, "'completion'", event);
    this.checkCallback(fn);
    this.listeners.push(fn);
    return this;
  }

  /** Stops `fn` listening to 'completion'. */
  off(event: 'completion', fn: (status: OpStatus) => void): this {
    const i = event === 'completion' ? this.listeners.indexOf(fn) : -1;
    if (i >= 0) this.listeners.splice(i, 1);
    return this;
  }

  /**
   * Delivers final statuses: each operation's onComplete, then the 'completion' event. Called
   * after the driver state is updated; the first listener error is rethrown once all ran.
   */
  private dispatch(list: readonly OpStatus[]): void {
    let failure: unknown;
    let failed = false;
    const call = (fn: (s: OpStatus) => void, st: OpStatus): void => {
      try {
        fn(st);
      } catch (e) {
        if (!failed) {
          failed = true;
          failure = e;
        }
      }
    };
    const listeners = [...this.listeners];
    for (const st of list) {
      const cb = this.callbacks.get(st.seq);
      if (cb !== undefined) {
        this.callbacks.delete(st.seq);
        call(cb, st);
      }
      for (const fn of listeners) call(fn, st);
    }
    if (failed) throw failure;
  }

  /**
   * Counters of the queue. With `{ reset: true }` the counters (not the sequence numbers, the
   * ring positions or what is in flight) start again from zero after being read (dmadev
   * rte_dma_stats_reset).
   */
  stats(opts?: { reset?: boolean }): QueueStats {
    const reset = opts?.reset;
    if (reset !== undefined && typeof reset !== 'boolean')
      throw badArg(`${this.where} stats`, 'reset must be a boolean', 'true | false', reset);
    const s = this.statsNow();
    if (reset === true) {
      this.submitted = 0;
      this.completedOps = 0;
      this.bytesDone = 0;
      this.bytesSubmitted = 0;
      this.descs = 0;
      this.discarded = 0;
      this.refused = 0;
      this.abortedCount = 0;
      this.errors = 0;
    }
    return s;
  }

  private statsNow(): QueueStats {
    return {
      engine: this.engine,
      queue: this.index,
      submitted: this.submitted,
      enqueued: this.seq - this.rungSeq,
      aborted: this.abortedCount,
      completed: this.completedOps,
      inFlight: this.fifoCount,
      bytes: this.bytesDone,
      bytesSubmitted: this.bytesSubmitted,
      descriptors: this.descs,
      errors: this.errors,
      discarded: this.discarded,
      refused: this.refused,
      paused: this.pausedFlag,
    };
  }
}
