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
import { BD_MAX_LEN, BD_SIZE, LEN_CTRL, putRx, putTx } from '../../csr/formats/bd.ts';
import type { MemoryIO } from '../../csr/io.ts';
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
  /** In-flight copies dropped by a queue reset. */
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
  private ringSpecs: QueueRings;
  /** Rings of the engine a copy may not touch (shared by the engine's queues). */
  private readonly guard: RingGuard;
  /** Copy entries check that source and destination are mapped device memory. */
  readonly checkBuffers: boolean;
  private readonly eio: EngineIO;
  private readonly regs: QueueRegs;
  private readonly memory: MemoryIO;
  // Completion FIFO: the RX `produced` count at which each in-flight copy ends, and its bytes.
  private ends: Float64Array;
  private sizes: Float64Array;
  private fifoHead = 0;
  private fifoCount = 0;
  private pausedFlag = false;
  // Counters.
  private submitted = 0;
  private completed = 0;
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
  ) {
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
    this.ends = new Float64Array(rings.rx.size);
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
      this.ends = new Float64Array(rings.rx.size);
      this.sizes = new Float64Array(rings.rx.size);
    }
    this.programHalf(this.regs.m2s, rings.tx, !this.pausedFlag, stale);
    this.programHalf(this.regs.s2m, rings.rx, true, stale);
    this.txp.reset();
    this.rxp.reset();
  }

  /** Drops every copy in flight, accounting for each (discarded, and reported discarded). */
  private dropInFlight(): void {
    if (this.fifoCount > 0) {
      this.dropped.push([this.submitted - this.fifoCount + 1, this.submitted]);
      this.discarded += this.fifoCount;
    }
    this.fifoHead = 0;
    this.fifoCount = 0;
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
  private ensureRoom(n: number, copies: number, where: string): void {
    const tx = this.txp;
    const rx = this.rxp;
    if (rx.room < n) this.readRxHead();
    if (tx.room < n) this.readTxHead();
    if (tx.room >= n && rx.room >= n) return;
    this.refused += copies;
    const ring = tx.room < n ? tx : rx;
    throw new NxdmaError(
      'RING_FULL',
      `${where}: the ${ring.kind.toUpperCase()} ring has room for ${ring.room} descriptors, the copy needs ${n} ` +
        `(ring of ${ring.size}; ${ring.pending} in flight)`,
      {
        where,
        expected: `${n} free descriptors on both rings`,
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
    this.ensureRoom(n, 1, where);
    this.emit(src, dst, bytes, opts?.barrier === true, opts?.interrupt === true);
    this.ring(n);
    return this.submitted;
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
    if (n === 0) return this.submitted;
    if (n > this.txp.size || n > this.rxp.size) throw this.batchTooBig(n, count);
    this.ensureRoom(n, count, where);
    for (let i = 0; i < count; i++) {
      const f = bf[i];
      this.emit(bs[i], bd[i], bb[i], (f & 1) !== 0, (f & 2) !== 0);
    }
    this.ring(n);
    return this.submitted;
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
  private emit(
    src: number,
    dst: number,
    bytes: number,
    barrier: boolean,
    interrupt: boolean,
  ): void {
    const tx = this.txp;
    const rx = this.rxp;
    const txw = tx.words;
    const rxw = rx.words;
    // Producer state in locals for the loop; stored back once.
    let tt = tx.tail;
    let tr = tx.ringId;
    let rt = rx.tail;
    let rr = rx.ringId;
    const tsize = tx.size;
    const rsize = rx.size;
    let n = 0;
    // Each chunk is one packet: TX first | last (dmb on the copy's first chunk when asked);
    // RX carries int_en on the copy's last chunk when asked.
    const txFlags = LEN_CTRL.FIRST | LEN_CTRL.LAST;
    let off = 0;
    while (off < bytes) {
      const len = bytes - off < BD_MAX_LEN ? bytes - off : BD_MAX_LEN;
      const tf = off === 0 && barrier ? txFlags | LEN_CTRL.DMB : txFlags;
      const rf = interrupt && off + len === bytes ? LEN_CTRL.INT_EN : 0;
      if (txw !== null) {
        putTx(txw, tt * BD_SIZE, len, tr, tf, src + off);
      } else {
        putTx(tx.scratchBuffer, 0, len, tr, tf, src + off);
        tx.flushScratch(tt);
      }
      if (rxw !== null) {
        putRx(rxw, rt * BD_SIZE, len, rr, rf, dst + off);
      } else {
        putRx(rx.scratchBuffer, 0, len, rr, rf, dst + off);
        rx.flushScratch(rt);
      }
      if (++tt === tsize) {
        tt = 0;
        tr = (tr + 1) & 3;
      }
      if (++rt === rsize) {
        rt = 0;
        rr = (rr + 1) & 3;
      }
      n++;
      off += len;
    }
    tx.tail = tt;
    tx.ringId = tr;
    tx.produced += n;
    rx.tail = rt;
    rx.ringId = rr;
    rx.produced += n;
    this.descs += n;
    let slot = this.fifoHead + this.fifoCount;
    if (slot >= this.ends.length) slot -= this.ends.length;
    this.ends[slot] = rx.produced;
    this.sizes[slot] = bytes;
    this.fifoCount++;
    this.submitted++;
    this.bytesSubmitted += bytes;
  }

  /** Hands `n` descriptors to the engine: the RX doorbell first, then the TX doorbell. */
  private ring(n: number): void {
    ringDoorbells(this.eio.unit, this.regs, n);
    this.eio.writes += 2;
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
    // An RX descriptor is consumed only after its TX pair: the RX count bounds the TX count.
    this.txp.consumedAtLeast(this.rxp.consumed);
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
    while (this.fifoCount > 0 && ends[this.fifoHead] <= consumed) {
      this.bytesDone += this.sizes[this.fifoHead];
      if (++this.fifoHead === ends.length) this.fifoHead = 0;
      this.fifoCount--;
      done++;
    }
    this.completed += done;
    // Copies retire in submission order: the last one retired is the one before the FIFO head.
    if (done > 0) this.lastDoneSeq = this.submitted - this.fifoCount;
    return done;
  }

  /**
   * Reads the RX head (one MMIO read) when copies are in flight and retires the completed ones.
   * Returns the number of copies newly seen complete.
   */
  poll(): number {
    if (this.fifoCount === 0) return 0;
    const before = this.completed;
    this.readRxHead();
    return this.completed - before;
  }

  /** Copies submitted and not yet seen complete. */
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
    if (seq > this.lastDoneSeq) return false;
    for (const [first, last] of this.dropped) if (seq >= first && seq <= last) return false;
    return true;
  }

  stats(): QueueStats {
    return {
      engine: this.engine,
      queue: this.index,
      submitted: this.submitted,
      completed: this.completed,
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
