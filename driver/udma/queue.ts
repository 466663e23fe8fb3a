/**
 * The copy queue with the API users of DPDK dmadev and Linux dmaengine expect (docs/driver.md maps
 * each call): enqueue copies and scatter-gather copies without a doorbell, `fence`, `submit` once,
 * `burstCapacity`; per-operation completion (`completed`, `completedStatus`, `statusOf`, `done` as a
 * Promise with a signal and a timeout), abort detection with the device's fault, completion
 * callbacks and 'completion' events, and `stats`. The channel itself (rings, programming, copy,
 * copyBatch, heads) is CopyQueue (copy-queue.ts).
 */
import { BD_SIZE } from '../../csr/formats/bd.ts';
import { badArg } from './copy-checks.ts';
import { CopyQueue } from './copy-queue.ts';
import type { DoneContext } from './ops.ts';
import type {
  CompletedResult,
  CompletedStatusResult,
  DoneOptions,
  EnqueueOptions,
  OpState,
  OpStatus,
  QueueStats,
  Segment,
} from './queue-types.ts';

export type {
  CompletedResult,
  CompletedStatusResult,
  CopyOptions,
  CopyRequest,
  DoneOptions,
  EnqueueOptions,
  OpFault,
  OpState,
  OpStatus,
  QueueOwner,
  QueueRings,
  QueueStats,
  Segment,
} from './queue-types.ts';

export class UdmaQueue extends CopyQueue {
  /** When the engine state was last read for stall detection (a device that runs by itself). */
  private lastHealthAt = -Infinity;
  /** What `done` reads of the queue besides its operations. */
  private readonly doneContext: DoneContext = {
    where: this.where,
    clock: () => this.owner.clock,
    observe: () => this.observe(),
    paused: () => this.pausedFlag,
  };

  // -------------------------------------------------------------------------------------------
  // Enqueue / submit (dmadev rte_dma_copy / rte_dma_copy_sg without RTE_DMA_OP_FLAG_SUBMIT, then
  // rte_dma_submit).

  /**
   * Writes one copy's descriptors without ringing a doorbell (same checks and chunking as `copy`);
   * `submit()` hands every enqueued operation to the engine at once. Returns the sequence number.
   */
  enqueueCopy(src: number, dst: number, bytes: number, opts?: EnqueueOptions): number {
    const n = this.checks.copy(src, dst, bytes, -1);
    const o = this.checks.enqueueOptions(opts, this.fenceNext);
    this.ensureRoom(n, n, 1);
    return this.afterEnqueue(this.put(src, dst, bytes, o.barrier, o.interrupt), o.onComplete);
  }

  /**
   * Writes one scatter-gather copy without a doorbell: the source segments, in order, are copied to
   * the destination segments, in order, as ONE packet (TX descriptors first .. last, at most
   * max_desc_per_pkt of them; each segment in chunks of at most 64 KiB). The totals must be equal;
   * no destination segment may overlap another or any source segment; every segment follows the
   * buffer rules of `copy`. Returns the sequence number.
   */
  enqueueSg(src: readonly Segment[], dst: readonly Segment[], opts?: EnqueueOptions): number {
    const max = this.owner.maxDescPerPkt;
    const s = this.checks.segments(src, 'source', max);
    const d = this.checks.segments(dst, 'destination', this.rxp.size);
    this.checks.scatterGather(s, d, max);
    const o = this.checks.enqueueOptions(opts, this.fenceNext);
    this.ensureRoom(s.descs, d.descs, 1);
    this.writer.sg(s, d, o.barrier, o.interrupt);
    const seq = this.ops.push(this.rxp.produced, this.txp.produced, s.total);
    return this.afterEnqueue(seq, o.onComplete);
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
    const n = this.ops.enqueued;
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

  /** Book-keeping after an enqueue wrote operation `seq`. */
  private afterEnqueue(seq: number, cb: ((s: OpStatus) => void) | undefined): number {
    this.fenceNext = false;
    if (cb !== undefined) this.ops.onDone(seq, cb);
    return seq;
  }

  // -------------------------------------------------------------------------------------------
  // Per-operation completion (dmadev rte_dma_completed / rte_dma_completed_status; dmaengine
  // callbacks and dma_sync_wait).

  /**
   * The state of operation `seq`: 'success', 'aborted', 'discarded', 'pending' (written, not
   * finished) or 'unknown' (no such operation). Reads nothing.
   */
  statusOf(seq: number): OpState | 'pending' | 'unknown' {
    return this.ops.statusOf(seq);
  }

  /**
   * Reports up to `max` operations that completed successfully since the last report (dmadev
   * rte_dma_completed): polls the RX head first, and reads the engine state when nothing moved.
   * Stops before the first operation that did not succeed and sets `hasError`; that operation
   * and the ones after it are read with `completedStatus`.
   */
  completed(max?: number): CompletedResult {
    const m = this.checks.max(max, 'completed');
    this.observe();
    return this.ops.completed(m);
  }

  /**
   * Reports up to `max` finished operations since the last report with a status each (dmadev
   * rte_dma_completed_status): success, aborted (with the fault) or discarded by a reset.
   */
  completedStatus(max?: number): CompletedStatusResult {
    const m = this.checks.max(max, 'completedStatus');
    this.observe();
    return this.ops.completedStatus(m);
  }

  /**
   * Resolves with the status of operation `seq` once it completed successfully; rejects with
   * ENGINE_ERROR when a fault aborted it, QUEUE_STATE when a reset discarded it (or it was never
   * submitted), TIMEOUT after `timeoutMs` (default 1000), or the signal's reason when `signal`
   * aborts. Steps a device that does not run by itself (the mock), like `waitIdle`.
   */
  done(seq: number, opts: DoneOptions = {}): Promise<OpStatus> {
    return this.ops.done(seq, opts, this.doneContext);
  }

  /**
   * Polls the RX head; when operations handed to the engine are in flight and nothing moved since
   * the last look, reads the engine state (at most once a millisecond on a device that runs by
   * itself) and marks the head operation aborted when the engine aborted on this queue.
   */
  private observe(): void {
    const ops = this.ops;
    if (ops.inFlight === 0) return;
    this.readRxHead();
    if (ops.inFlight - ops.enqueued === 0) return;
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
    const head = this.ops.abortCandidate();
    if (head === 0) return;
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
    this.ops.abort(head, fault);
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

  /**
   * Listens to the 'completion' event: `fn(status)` for every operation of the queue once its final
   * status is observed (in order for successes). Returns the queue.
   */
  on(event: 'completion', fn: (status: OpStatus) => void): this {
    if (event !== 'completion')
      throw badArg(this.where, `no event ${String(event)}`, "'completion'", event);
    this.checks.callback(fn);
    this.ops.listen(fn);
    return this;
  }

  /** Stops `fn` listening to 'completion'. */
  off(event: 'completion', fn: (status: OpStatus) => void): this {
    if (event === 'completion') this.ops.unlisten(fn);
    return this;
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
    const s = this.ops.stats(this.pausedFlag);
    if (reset === true) this.ops.resetStats();
    return s;
  }
}
