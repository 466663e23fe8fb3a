/**
 * One queue of a UDMA engine driven as a memory-to-memory copy channel (UDMA-FACTS.md
 * "Memory-to-memory copy"): a TX ring on M2S_Q[q] reading the source and an RX ring on S2M_Q[q]
 * writing the destination, in chunks of at most 64 KiB, each chunk one packet (a TX descriptor
 * with first|last and its RX descriptor), doorbells rung RX first, then TX.
 *
 * This is the channel itself: programming the queue (queue-program.ts), submitting copies and
 * batches, reading the heads. Producer state (tails, ring ids) lives in the queue's two
 * RingProducers, written through the driver's BD writer; submission performs no MMIO read while
 * the driver knows there is room. Completion is read from the RX head (rdrhp): a copy is complete
 * when the engine has consumed its last RX descriptor. The argument checks are in copy-checks.ts,
 * the per-operation bookkeeping in ops.ts; UdmaQueue (queue.ts) adds the dmadev-style API.
 */
import { NxdmaError } from '../../common/errors.ts';
import type { MemoryIO } from '../../csr/io.ts';
import { BdWriter } from './bd-writer.ts';
import { CopyChecks, badArg } from './copy-checks.ts';
import type { EngineIO } from './engine-io.ts';
import { OpLog } from './ops.ts';
import { programHalf, setEnabled } from './queue-program.ts';
import { ringDoorbells, type HalfQueueRegs, type QueueRegs } from './queue-regs.ts';
import type { CopyOptions, CopyRequest, QueueOwner, QueueRings } from './queue-types.ts';
import { RingProducer, type RingGuard } from './ring.ts';

// An imported binding copied into a module constant (a plain local on the hot path).
const doorbells = ringDoorbells;

/** A batch's private snapshot (plain arrays: small integers stay unboxed). */
interface BatchSnapshot {
  src: number[];
  dst: number[];
  bytes: number[];
  flags: number[];
}

function newSnapshot(): BatchSnapshot {
  return { src: [], dst: [], bytes: [], flags: [] };
}

/**
 * The snapshot every queue's copyBatch reuses, so that its arrays grow once and not once per
 * queue; a batch submitted while another batch is being read (from a getter) takes its own.
 */
let spareSnapshot: BatchSnapshot | null = newSnapshot();

function copyRings(r: QueueRings): QueueRings {
  return { tx: { base: r.tx.base, size: r.tx.size }, rx: { base: r.rx.base, size: r.rx.size } };
}

/** A copy channel: one queue's two rings, its programming, copy submission and head reads. */
export class CopyQueue {
  readonly engine: number;
  readonly index: number;
  // Producers and rings: replaced when initQueue programs the queue again with other rings.
  protected txp: RingProducer;
  protected rxp: RingProducer;
  /** Writes every descriptor of the queue at the producers' tails. */
  protected writer: BdWriter;
  private ringSpecs: QueueRings;
  protected readonly checks: CopyChecks;
  protected readonly ops: OpLog;
  protected readonly eio: EngineIO;
  protected readonly regs: QueueRegs;
  protected readonly memory: MemoryIO;
  protected readonly owner: QueueOwner;
  protected pausedFlag = false;
  /** The producers' `produced` at the last doorbell (what lies beyond is not handed over). */
  private rungTx = 0;
  private rungRx = 0;
  /** The next enqueued operation carries a fence. */
  protected fenceNext = false;
  /** Stall detection: RX consumption at the last look. */
  protected lastSeenConsumed = -1;
  /** How messages name the queue ("udma0 queue 3"). */
  protected readonly where: string;

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
    this.checks = new CopyChecks(this.where, guard, memory, checkBuffers);
    this.ringSpecs = copyRings(rings);
    this.txp = new RingProducer('tx', this.ringSpecs.tx, memory);
    this.rxp = new RingProducer('rx', this.ringSpecs.rx, memory);
    this.writer = new BdWriter(this.txp, this.rxp);
    this.ops = new OpLog(eio.engine, regs.queue);
  }

  /** Copy entries check that source and destination are mapped device memory. */
  get checkBuffers(): boolean {
    return this.checks.checkBuffers;
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

  /** Errors counted on this queue (the engine adds timeouts and aborts). */
  get errors(): number {
    return this.ops.errors;
  }

  set errors(n: number) {
    this.ops.errors = n;
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
    this.fenceNext = false;
    this.lastSeenConsumed = -1;
    this.ops.dropAll();
    if (rings !== this.ringSpecs) {
      this.ringSpecs = rings;
      this.txp = new RingProducer('tx', rings.tx, this.memory);
      this.rxp = new RingProducer('rx', rings.rx, this.memory);
      this.writer = new BdWriter(this.txp, this.rxp);
    }
    programHalf(this.eio, this.memory, this.regs.m2s, rings.tx, !this.pausedFlag, stale);
    programHalf(this.eio, this.memory, this.regs.s2m, rings.rx, true, stale);
    this.txp.reset();
    this.rxp.reset();
    this.rungTx = 0;
    this.rungRx = 0;
  }

  /**
   * @internal Programs the queue again on new rings (UdmaEngine.initQueue on an initialized
   * queue, rings validated there): in-flight copies are dropped as by `reset`; sequence numbers
   * and counters go on.
   */
  reinit(rings: QueueRings): void {
    this.reprogram(copyRings(rings));
  }

  /**
   * Stops the queue from fetching and scheduling new packets: clears M2S_Q[q].cfg.en_pref and
   * en_scheduling (one write; the cfg word comes from the shadow). The S2M half stays enabled so
   * data already in flight lands. Submitting to a paused queue is allowed: it runs on resume.
   */
  pause(): void {
    setEnabled(this.eio, this.regs.m2s, false);
    this.pausedFlag = true;
  }

  /** Sets en_pref and en_scheduling again (one write). */
  resume(): void {
    setEnabled(this.eio, this.regs.m2s, true);
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
   * Makes sure both rings have room for `n` more descriptors, reading the engine's heads only when
   * the driver's own count says there may not be. Throws RING_FULL (nothing written) otherwise.
   */
  protected ensureRoom(ntx: number, nrx: number, copies: number): void {
    const tx = this.txp;
    const rx = this.rxp;
    // The common case: the driver's own counts show room (`room`, inlined).
    if (
      tx.size - (tx.produced - tx.consumed) >= ntx &&
      rx.size - (rx.produced - rx.consumed) >= nrx
    )
      return;
    if (rx.room < nrx) this.readRxHead();
    if (tx.room < ntx) this.readTxHead();
    if (tx.room >= ntx && rx.room >= nrx) return;
    this.ops.refused += copies;
    throw this.checks.ringFull(tx, rx, ntx, nrx);
  }

  /**
   * Submits one copy: ceil(bytes / 64 KiB) TX and RX descriptors written into the rings, then the
   * RX doorbell, then the TX doorbell. Returns the copy's sequence number on this queue (1, 2, ...;
   * compare with `completedCount`). A refused copy (bad argument, ring full) writes nothing.
   */
  copy(src: number, dst: number, bytes: number, opts?: CopyOptions): number {
    const n = this.checks.copy(src, dst, bytes, -1);
    const cb = opts?.onComplete;
    if (cb !== undefined) this.checks.callback(cb);
    this.ensureRoom(n, n, 1);
    const seq = this.put(src, dst, bytes, opts?.barrier === true, opts?.interrupt === true);
    if (cb !== undefined) this.ops.onDone(seq, cb);
    this.ring();
    return seq;
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
    const b = spareSnapshot ?? newSnapshot();
    spareSnapshot = null;
    try {
      return this.submitBatch(copies, count, b);
    } finally {
      spareSnapshot = b;
    }
  }

  /** copyBatch from `count` entries of `copies` through the snapshot `b`. */
  private submitBatch(copies: readonly CopyRequest[], count: number, b: BatchSnapshot): number {
    const where = this.where;
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
      // checks.copy() refuses anything but safe integers, so the snapshot holds exactly these.
      n += this.checks.copy(src, dst, bytes, i);
      bs[i] = src;
      bd[i] = dst;
      bb[i] = bytes;
      bf[i] = (r.barrier === true ? 1 : 0) | (r.interrupt === true ? 2 : 0);
    }
    if (n === 0) return this.ops.seq;
    if (n > this.txp.size || n > this.rxp.size) throw this.batchTooBig(n, count);
    this.ensureRoom(n, n, count);
    for (let i = 0; i < count; i++) {
      const f = bf[i];
      this.put(bs[i], bd[i], bb[i], (f & 1) !== 0, (f & 2) !== 0);
    }
    this.ring();
    return this.ops.seq;
  }

  /** RING_FULL for a batch needing `n` descriptors, more than a ring holds (counted refused). */
  private batchTooBig(n: number, count: number): NxdmaError {
    this.ops.refused += count;
    return this.checks.batchTooBig(this.txp, this.rxp, n, count);
  }

  /**
   * Writes one copy's descriptors (room already checked) and queues its completion entry. Returns
   * its sequence number.
   */
  protected put(
    src: number,
    dst: number,
    bytes: number,
    barrier: boolean,
    interrupt: boolean,
  ): number {
    this.writer.copy(src, dst, bytes, barrier, interrupt);
    return this.ops.push(this.rxp.produced, this.txp.produced, bytes);
  }

  /**
   * Hands every written descriptor to the engine: the RX doorbell first, then the TX doorbell
   * (nothing when nothing is pending).
   */
  protected ring(): void {
    const ntx = this.txp.produced - this.rungTx;
    const nrx = this.rxp.produced - this.rungRx;
    if (ntx === 0 && nrx === 0) return;
    doorbells(this.eio.unit, this.regs, nrx, ntx);
    this.eio.writes += 2;
    this.ops.rung(ntx > nrx ? ntx : nrx);
    this.rungTx = this.txp.produced;
    this.rungRx = this.rxp.produced;
  }

  // -------------------------------------------------------------------------------------------
  // Completion: the heads.

  private head(h: HalfQueueRegs, ring: RingProducer): void {
    const w = this.eio.read(h.headOffset.reg);
    const off = h.headOffset.get(w);
    const rid = h.headRingId.get(w);
    if (!ring.observeHead(off, rid)) {
      this.ops.errors++;
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

  /** Reads the RX head and retires every copy whose last RX descriptor is consumed. */
  protected readRxHead(): void {
    this.head(this.regs.s2m, this.rxp);
    this.ops.retire(this.rxp.consumed, this.txp);
  }

  protected readTxHead(): void {
    this.head(this.regs.m2s, this.txp);
  }

  /**
   * Reads the RX head (one MMIO read) when copies are in flight and retires the completed ones.
   * Returns the number of copies newly seen complete.
   */
  poll(): number {
    if (this.ops.inFlight === 0) return 0;
    this.head(this.regs.s2m, this.rxp);
    return this.ops.retire(this.rxp.consumed, this.txp);
  }

  /** Operations written (submitted or enqueued) and not yet seen complete. */
  get inFlight(): number {
    return this.ops.inFlight;
  }

  /**
   * Sequence number of the last copy seen complete (copies complete in order). Sequence numbers
   * keep counting across resets, so after a reset that dropped copies this is not `completed`.
   */
  get completedCount(): number {
    return this.ops.lastDoneSeq;
  }

  /**
   * True when copy `seq` (a value `copy` returned) is known complete; false for a copy a reset
   * dropped.
   */
  isComplete(seq: number): boolean {
    return this.ops.statusOf(seq) === 'success';
  }
}
