/**
 * The public types of a copy queue (UdmaQueue): per-copy and enqueue options, scatter-gather
 * segments, the status of an operation and its fault, what `completed` / `completedStatus` / `done`
 * take and return, the queue's rings, its counters, and what a queue needs from its engine.
 */
import type { DeviceClock, EngineHealth } from './engine-types.ts';
import type { RingSpec } from './ring.ts';

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
