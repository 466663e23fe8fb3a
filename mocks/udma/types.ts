/**
 * The public vocabulary of the mock UDMA engine: the mock's encoding of the per-queue `status`
 * word, the fault records, the per-queue counters and ring positions `queueStats` returns, and
 * the engine's options. No behaviour lives here.
 */
import type { RegisterAccessEvent } from '../register-file.ts';

/**
 * The mock's encoding of the per-queue `status` word (M2S_Q[q].status, S2M_Q[q].status). The
 * schema knows the register only as a whole word, so these bits are the mock's own: sticky error
 * bits cleared by q_sw_ctrl.rst_q, and STALLED while the queue waits on an error.
 */
export const MOCK_QUEUE_STATUS = {
  /** A descriptor carried a ring id other than the expected phase (unless err_log_mask masks it). */
  RING_ID_ERROR: 1 << 0,
  /** A descriptor fetch hit unmapped memory (the ring is not mapped). */
  DESC_FETCH_FAULT: 1 << 1,
  /** A data buffer (source or destination) is not mapped. */
  DATA_FAULT: 1 << 2,
  /** A completion entry could not be written (the completion ring is not mapped). */
  COMPLETION_FAULT: 1 << 3,
  /** No LAST within M2S_rd.desc_pref_cfg_2.max_desc_per_pkt descriptors. */
  PKT_TOO_LONG: 1 << 4,
  /** The queue is stopped on one of the errors above. */
  STALLED: 1 << 8,
} as const;

export type UdmaHalf = 'm2s' | 's2m';

export type UdmaFaultKind =
  'ring-id' | 'descriptor-fetch' | 'data' | 'completion' | 'packet-too-long';

/** One error the engine raised (also visible in the status registers). */
export interface UdmaFault {
  engine: number;
  half: UdmaHalf;
  queue: number;
  kind: UdmaFaultKind;
  /** True when the engine was aborted (memory faults); false for a queue stall. */
  aborted: boolean;
  /** Ring offset (descriptor index) of the descriptor concerned. */
  descriptor: number;
  /** Faulting address (unmapped memory) or the descriptor's address (ring id, packet length). */
  address: number;
  length: number;
  expected?: number;
  actual?: number;
  /** Engine cycle. */
  cycle: number;
  message: string;
}

export interface QueueCounters {
  bytes: number;
  descriptors: number;
  packets: number;
  /** Descriptors completed with int_en set. */
  interrupts: number;
}

export interface RingPosition {
  headOffset: number;
  headRingId: number;
  tailOffset: number;
  tailRingId: number;
  /** Descriptors handed over by doorbells and not yet consumed. */
  pending: number;
}

export interface QueueStats {
  queue: number;
  m2s: QueueCounters & RingPosition & { status: number; stalled: boolean };
  s2m: QueueCounters & RingPosition & { status: number; stalled: boolean };
}

/** When the engine runs by itself. */
export type AutoRun = 'none' | 'on-doorbell' | 'on-read';

export interface MockUdmaUnitOptions {
  /** Default 'on-read': any register read first lets the engine run until idle. */
  autoRun?: AutoRun;
  /** Bytes the data path moves per engine cycle (the service trace's time base). Default 64. */
  bytesPerCycle?: number;
  /** Register files throw on bad accesses instead of logging them. */
  strict?: boolean;
  /** Register access trace. */
  registerTrace?: ((ev: RegisterAccessEvent) => void) | null;
}
