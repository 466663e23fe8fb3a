/**
 * The public types of UdmaEngine: its options, what bring-up takes and reports, the engine's
 * health, `info()` (dmadev rte_dma_info_get), `dump()` (rte_dma_dump), `start()`'s report and the
 * options of `waitIdle`; and the device clock a simulated device offers.
 */
import type { Simulation } from '../../csr/io.ts';
import type { RegisterWrite } from './engine-io.ts';
import type { QueueRings, QueueStats } from './queue-types.ts';
import type { RegisterShadow } from './shadow.ts';
import type { UdmaFileName } from './regs.ts';

/**
 * A device that only makes progress when told to (the mock). `step()` moves at most one packet
 * per engine and returns false when nothing can move. A real device runs by itself and is not one.
 */
export type DeviceClock = Pick<Simulation, 'step'>;

export interface UdmaEngineOptions {
  /**
   * Write registers that hold inferred facts (spec/REGISTERS.md) during bring-up:
   * AXI_M2S.desc_rd_cfg_3 (its max_desc_burst width is inferred). Without it such registers are
   * skipped and listed in the bring-up report, on the mock as on hardware. Default false.
   */
  allowInferred?: boolean;
  /**
   * Register shadow. Default: the device's own (deviceShadow), which applyQos and every other
   * layer share; the words it knows belong to the device's register windows either way.
   */
  shadow?: RegisterShadow;
  /**
   * How `waitIdle` advances a device that does not run by itself. Default: the device's own
   * `step()` when it is a non-hardware Device that has one (the mock); null on hardware.
   */
  clock?: DeviceClock | null;
  /**
   * Copies check that source and destination lie in the device's mapped memory (MEMORY_UNMAPPED
   * otherwise). Set false to copy between device addresses the process has not mapped. Default true.
   */
  checkBuffers?: boolean;
}

export interface BringUpOptions {
  /**
   * M2S_rd.desc_pref_cfg_2.max_desc_per_pkt, also the prefetch threshold (pref_thr) of both halves:
   * 8..128. Default 65 (64 + 1 on these devices).
   */
  maxDescPerPkt?: number;
  /**
   * M2S_rd.data_cfg.data_fifo_depth in data beats. No source states the trn2 value; the default 1024
   * (32 KiB of 256-bit beats) is the public driver's documented example.
   */
  dataFifoDepth?: number;
}

/** What bring-up did. */
export interface BringUpReport {
  engine: number;
  /** Every register write, in order. */
  writes: RegisterWrite[];
  /** Registers left at their current value because they hold inferred facts (no allowInferred). */
  skipped: { file: UdmaFileName; path: string; offset: number; reason: string }[];
}

/** What one read of the two state registers shows. */
export interface EngineHealth {
  engine: number;
  m2s: Record<string, number>;
  s2m: Record<string, number>;
  /** Some state field of either half shows abort. */
  aborted: boolean;
}

/** What the engine and its driver can do (dmadev rte_dma_info_get). */
export interface EngineInfo {
  engine: number;
  device: { name: string; profile: string; isHardware: boolean };
  /** Queues per half (virtual channels in dmadev terms). */
  queues: number;
  initializedQueues: number[];
  /** Ring sizes in descriptors. */
  minRingSize: number;
  maxRingSize: number;
  ringSizeMultiple: number;
  ringAlign: number;
  /** TX descriptors one packet (one scatter-gather copy) may hold: max_desc_per_pkt. */
  maxDescPerPkt: number;
  /** Source segments of one scatter-gather copy (each at most maxBytesPerDescriptor). */
  maxSgSegments: number;
  maxBytesPerDescriptor: number;
  /** The largest single copy: one ring of 64 KiB descriptors (the smallest initialized ring). */
  maxCopyBytes: number | null;
  capabilities: string[];
  broughtUp: boolean;
  checkBuffers: boolean;
}

/** One queue in a dump: the registers as read, and the driver's view when it drives the queue. */
export interface QueueDump {
  queue: number;
  m2s: HalfDump;
  s2m: HalfDump;
  driver: {
    rings: QueueRings;
    tx: { tail: number; ringId: number; produced: number; consumed: number };
    rx: { tail: number; ringId: number; produced: number; consumed: number };
    stats: QueueStats;
  } | null;
}

export interface HalfDump {
  cfg: number;
  enabled: boolean;
  status: number;
  ringBase: number;
  ringSize: number;
  head: { offset: number; ringId: number };
  tail: { offset: number; ringId: number };
}

/** `dump()`: the engine's state, every queue's ring registers, and the driver's bookkeeping. */
export interface EngineDump {
  engine: number;
  device: { name: string; profile: string; isHardware: boolean };
  health: EngineHealth;
  maxDescPerPkt: number;
  queues: QueueDump[];
}

/** What `start()` did. */
export interface StartReport {
  engine: number;
  /** The engine was aborted and has been recovered. */
  recovered: boolean;
  /** Queues reset during the recovery. */
  queuesReset: number[];
  /** Operations the recovery discarded (in flight behind the fault). */
  discarded: number;
  /** Operations the fault aborted. */
  aborted: number;
}

export interface WaitOptions {
  /** Give up after this many milliseconds (TIMEOUT). Default 1000. */
  timeoutMs?: number;
  /** Only this queue (default: every initialized queue). */
  queue?: number;
}
