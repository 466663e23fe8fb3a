/**
 * The operations of one copy queue, kept by the driver without touching the device: sequence
 * numbers (1, 2, ...; never reset), the completion FIFO (for each operation in flight, the RX and
 * TX `produced` counts at which it ends, and its bytes), the doorbell marks (what was written and
 * not handed over yet), each operation's final status (success, aborted with its fault, discarded
 * by a reset), the reports of `completed` / `completedStatus` (dmadev rte_dma_completed /
 * rte_dma_completed_status), `done` (dma_sync_wait as a Promise), the per-operation callbacks and
 * 'completion' listeners (dmaengine callbacks), and the counters of `stats`.
 *
 * UdmaQueue (queue.ts) feeds it what it writes and what it reads from the engine's heads.
 */
import { NxdmaError } from '../../common/errors.ts';
import type { DeviceClock } from './engine-types.ts';
import type {
  CompletedResult,
  CompletedStatusResult,
  DoneOptions,
  OpFault,
  OpState,
  OpStatus,
  QueueStats,
} from './queue-types.ts';
import type { RingProducer } from './ring.ts';
import { badArg } from './copy-checks.ts';

/** What `done` needs from its queue besides the log. */
export interface DoneContext {
  /** How messages name the queue ("udma0 queue 3"). */
  where: string;
  /** What steps a device that does not run by itself (the mock), or null. */
  clock(): DeviceClock | null;
  /** Polls the heads (and the engine state when nothing moved). */
  observe(): void;
  paused(): boolean;
}

// A run of the completion FIFO: the RX and TX ends of its first operation, the steps by which
// the ends advance from one operation to the next, each operation's bytes, the operations.
const R_RX = 0;
const R_TX = 1;
const R_RX_STEP = 2;
const R_TX_STEP = 3;
const R_BYTES = 4;
const R_COUNT = 5;
const RUN = 6;
/** Runs the FIFO has room for at first. */
const MIN_RUNS = 8;

export class OpLog {
  readonly engine: number;
  readonly queue: number;
  /**
   * The completion FIFO of the operations in flight, oldest first, run-length encoded: a run is
   * consecutive operations of the same bytes whose ends advance by the same steps (a batch of
   * equal copies is one run). Each run is RUN numbers in a ring buffer of runs, grown on demand
   * (no memory per ring slot): see the R_* offsets.
   */
  private runs = new Float64Array(RUN * MIN_RUNS);
  /** Index (in runs) of the oldest run, and how many runs are queued. */
  private head = 0;
  private nRuns = 0;
  /** Operations in flight (the runs' counts summed). */
  private count = 0;
  /** The RX and TX ends of the last operation queued (meaningful while count > 0). */
  private lastRx = 0;
  private lastTx = 0;
  /** Sequence number of the last operation written. */
  seq = 0;
  /** Sequence number and bytes written at the last doorbell (what lies beyond is enqueued). */
  rungSeq = 0;
  private bytesWritten = 0;
  private bytesRung = 0;
  /** Sequence number of the last operation seen complete (0: none; operations complete in order). */
  lastDoneSeq = 0;
  /** Sequence number of the last operation `completed` / `completedStatus` reported. */
  private reported = 0;
  /** Aborted operations and their faults. */
  private readonly abortedOps = new Map<number, OpFault>();
  /** Sequence numbers dropped by resets, as [first, last] ranges (resets are rare). */
  private readonly dropped: [number, number][] = [];
  /** 'completion' listeners. */
  private readonly listeners: ((s: OpStatus) => void)[] = [];
  /** Per-operation callbacks (onComplete). */
  private readonly callbacks = new Map<number, (s: OpStatus) => void>();
  // Counters (stats({ reset }) zeroes them).
  private submitted = 0;
  private completedOps = 0;
  private abortedCount = 0;
  private bytesDone = 0;
  private bytesSubmitted = 0;
  private descs = 0;
  private discarded = 0;
  /** Copies refused for lack of ring room. */
  refused = 0;
  /** Errors counted on this queue (the engine adds timeouts and aborts). */
  errors = 0;

  /** A log for one queue (its FIFO grows with the runs in flight, not with the ring). */
  constructor(engine: number, queue: number) {
    this.engine = engine;
    this.queue = queue;
  }

  /** Operations written (submitted or enqueued) and not yet seen complete. */
  get inFlight(): number {
    return this.count;
  }

  /** Operations written and not handed to the engine yet. */
  get enqueued(): number {
    return this.seq - this.rungSeq;
  }

  /**
   * Queues the completion entry of the operation just written: it ends when the engine has consumed
   * `rxEnd` RX (and `txEnd` TX) descriptors. Returns its sequence number.
   */
  push(rxEnd: number, txEnd: number, bytes: number): number {
    const runs = this.runs;
    this.bytesWritten += bytes;
    if (this.nRuns > 0) {
      // The newest run takes the operation when it continues its steps.
      let t = this.head + (this.nRuns - 1) * RUN;
      if (t >= runs.length) t -= runs.length;
      const n = runs[t + R_COUNT];
      const dRx = rxEnd - this.lastRx;
      const dTx = txEnd - this.lastTx;
      if (
        runs[t + R_BYTES] === bytes &&
        (n === 1 || (runs[t + R_RX_STEP] === dRx && runs[t + R_TX_STEP] === dTx))
      ) {
        runs[t + R_RX_STEP] = dRx;
        runs[t + R_TX_STEP] = dTx;
        runs[t + R_COUNT] = n + 1;
        return this.queued(rxEnd, txEnd);
      }
    }
    if (this.nRuns * RUN === runs.length) this.grow();
    let t = this.head + this.nRuns * RUN;
    if (t >= this.runs.length) t -= this.runs.length;
    const r = this.runs;
    r[t + R_RX] = rxEnd;
    r[t + R_TX] = txEnd;
    r[t + R_RX_STEP] = 0;
    r[t + R_TX_STEP] = 0;
    r[t + R_BYTES] = bytes;
    r[t + R_COUNT] = 1;
    this.nRuns++;
    return this.queued(rxEnd, txEnd);
  }

  /** The operation just queued ends at `rxEnd` / `txEnd`: its sequence number. */
  private queued(rxEnd: number, txEnd: number): number {
    this.lastRx = rxEnd;
    this.lastTx = txEnd;
    this.count++;
    return ++this.seq;
  }

  /** Twice the room for runs, the queued ones moved to the front in order. */
  private grow(): void {
    const old = this.runs;
    const next = new Float64Array(old.length * 2);
    const first = old.subarray(this.head);
    next.set(first);
    next.set(old.subarray(0, this.head), first.length);
    this.runs = next;
    this.head = 0;
  }

  /** A doorbell handed `descs` descriptor pairs over: everything written so far is submitted. */
  rung(descs: number): void {
    this.submitted += this.seq - this.rungSeq;
    this.bytesSubmitted += this.bytesWritten - this.bytesRung;
    this.descs += descs;
    this.rungSeq = this.seq;
    this.bytesRung = this.bytesWritten;
  }

  /**
   * Pops every operation whose last RX descriptor is consumed (`rxConsumed` of them), raises what
   * the TX producer knows consumed (an operation's last RX descriptor is consumed after all its TX
   * descriptors), then reports the successes. Returns the number retired.
   */
  retire(rxConsumed: number, tx: RingProducer): number {
    const runs = this.runs;
    let done = 0;
    let txDone = -1;
    while (this.nRuns > 0) {
      const h = this.head;
      const first = runs[h + R_RX];
      if (first > rxConsumed) break;
      // The run's first k operations end at or before rxConsumed (ends ascend by the step).
      const n = runs[h + R_COUNT];
      const step = runs[h + R_RX_STEP];
      let k = step === 0 ? n : Math.min(n, Math.floor((rxConsumed - first) / step) + 1);
      while (k > 1 && first + (k - 1) * step > rxConsumed) k--;
      while (k < n && first + k * step <= rxConsumed) k++;
      const txStep = runs[h + R_TX_STEP];
      this.bytesDone += k * runs[h + R_BYTES];
      txDone = runs[h + R_TX] + (k - 1) * txStep;
      this.count -= k;
      done += k;
      if (k < n) {
        runs[h + R_RX] = first + k * step;
        runs[h + R_TX] += k * txStep;
        runs[h + R_COUNT] = n - k;
        break;
      }
      this.head = h + RUN === runs.length ? 0 : h + RUN;
      this.nRuns--;
    }
    if (done === 0) return 0;
    this.completedOps += done;
    tx.consumedAtLeast(txDone);
    // Operations retire in submission order: the last one retired is the one before the FIFO head.
    const before = this.lastDoneSeq;
    this.lastDoneSeq = this.seq - this.count;
    if (this.notifying()) {
      const out: OpStatus[] = [];
      for (let s = before + 1; s <= this.lastDoneSeq; s++)
        if (this.statusOf(s) === 'success')
          out.push({ queue: this.queue, seq: s, status: 'success' });
      this.dispatch(out);
    }
    return done;
  }

  /**
   * Drops every operation in flight or enqueued (a queue reset): each is accounted (`discarded`,
   * and reported discarded) unless a fault already aborted it.
   */
  dropAll(): void {
    const n = this.count;
    const first = this.seq - n + 1;
    this.head = 0;
    this.nRuns = 0;
    this.count = 0;
    this.rungSeq = this.seq;
    this.bytesRung = this.bytesWritten;
    if (n === 0) return;
    this.dropped.push([first, this.seq]);
    let lost = 0;
    for (let s = first; s <= this.seq; s++) if (!this.abortedOps.has(s)) lost++;
    this.discarded += lost;
    if (this.notifying()) {
      const out: OpStatus[] = [];
      for (let s = first; s <= this.seq; s++)
        if (!this.abortedOps.has(s)) out.push({ queue: this.queue, seq: s, status: 'discarded' });
      this.dispatch(out);
    }
  }

  /**
   * The sequence number of the oldest operation handed to the engine and not complete, or 0 when
   * there is none (or it is already marked aborted).
   */
  abortCandidate(): number {
    if (this.count - (this.seq - this.rungSeq) === 0) return 0;
    const head = this.seq - this.count + 1;
    return this.abortedOps.has(head) ? 0 : head;
  }

  /** Marks operation `seq` aborted by `fault` and reports it. */
  abort(seq: number, fault: OpFault): void {
    this.abortedOps.set(seq, fault);
    this.abortedCount++;
    this.errors++;
    if (this.notifying()) this.dispatch([this.record(seq, 'aborted')]);
  }

  /** Registers the onComplete callback of operation `seq`. */
  onDone(seq: number, cb: (s: OpStatus) => void): void {
    this.callbacks.set(seq, cb);
  }

  /**
   * The state of operation `seq`: 'success', 'aborted', 'discarded', 'pending' (written, not
   * finished) or 'unknown' (no such operation).
   */
  statusOf(seq: number): OpState | 'pending' | 'unknown' {
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1 || seq > this.seq)
      return 'unknown';
    if (this.abortedOps.has(seq)) return 'aborted';
    for (const [first, last] of this.dropped) if (seq >= first && seq <= last) return 'discarded';
    return seq <= this.lastDoneSeq ? 'success' : 'pending';
  }

  /**
   * Reports up to `max` operations that completed successfully since the last report; stops before
   * the first that did not succeed and sets `hasError`.
   */
  completed(max: number): CompletedResult {
    let s = this.reported;
    let count = 0;
    let hasError = false;
    while (count < max && s < this.seq) {
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

  /** Reports up to `max` finished operations since the last report with a status each. */
  completedStatus(max: number): CompletedStatusResult {
    let s = this.reported;
    const statuses: OpStatus[] = [];
    while (statuses.length < max && s < this.seq) {
      const st = this.statusOf(s + 1);
      if (st === 'pending' || st === 'unknown') break;
      s++;
      statuses.push(this.record(s, st));
    }
    this.reported = s;
    return { count: statuses.length, lastSeq: s, statuses };
  }

  /** See UdmaQueue.done. */
  async done(seq: number, opts: DoneOptions, q: DoneContext): Promise<OpStatus> {
    const where = `${q.where} done(${String(seq)})`;
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
    const clock = q.clock();
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
      q.observe();
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
        const paused = q.paused();
        throw new NxdmaError(
          'TIMEOUT',
          `${where}: operation ${seq} not complete after ${timeoutMs} ms` +
            (paused ? ' (queue paused)' : ''),
          {
            where,
            expected: `complete within ${timeoutMs} ms`,
            actual: this.stats(paused),
          },
        );
      }
      await new Promise<void>((resolve) =>
        clock ? setTimeout(resolve, 1) : setImmediate(resolve),
      );
    }
  }

  /** The status record of a finished operation. */
  record(seq: number, st: OpState): OpStatus {
    const out: OpStatus = { queue: this.queue, seq, status: st };
    if (st === 'aborted') out.fault = this.abortedOps.get(seq);
    return out;
  }

  private notifying(): boolean {
    return this.callbacks.size > 0 || this.listeners.length > 0;
  }

  /** Adds a 'completion' listener (the queue checked it is a function). */
  listen(fn: (status: OpStatus) => void): void {
    this.listeners.push(fn);
  }

  /** Removes a 'completion' listener. */
  unlisten(fn: (status: OpStatus) => void): void {
    const i = this.listeners.indexOf(fn);
    if (i >= 0) this.listeners.splice(i, 1);
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

  /** The counters now. */
  stats(paused: boolean): QueueStats {
    return {
      engine: this.engine,
      queue: this.queue,
      submitted: this.submitted,
      enqueued: this.seq - this.rungSeq,
      aborted: this.abortedCount,
      completed: this.completedOps,
      inFlight: this.count,
      bytes: this.bytesDone,
      bytesSubmitted: this.bytesSubmitted,
      descriptors: this.descs,
      errors: this.errors,
      discarded: this.discarded,
      refused: this.refused,
      paused,
    };
  }

  /** Zeroes the counters (not the sequence numbers or what is in flight). */
  resetStats(): void {
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
}
