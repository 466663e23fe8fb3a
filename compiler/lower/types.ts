/**
 * The lowering's vocabulary: its options and what it returns (a LoweredProgram of per-queue
 * descriptor programs), shared by lower.ts and the parts that lower one DMA (affine.ts,
 * indexed.ts, bounds.ts).
 */
import type { DgeDescriptor } from '../../csr/formats/dge-desc.ts';
import type { MicroOp } from '../../csr/formats/dge-ops.ts';
import { DESC_PER_PKT, MAX_RING_SIZE } from '../../csr/formats/ring.ts';
import type { DmaQueue, Instr, Module, Tensor } from '../ir/module.ts';
import type { Backend, BackendAvailability } from './backend.ts';
import type { Walk } from './expand.ts';
import type { DmaTable } from './table.ts';
import type { DgeShape } from './shape.ts';

/** Descriptors per packet the lowering emits (the engine's max_desc_per_pkt is 64 + 1). */
export const DEFAULT_MAX_DESC_PER_PACKET = DESC_PER_PKT;
/** MEMCOPY_CARVEOUT_CFG's count is 16 bits: the most descriptors one memcopy may write. */
export const DEFAULT_CARVEOUT_DESCRIPTORS = 0xffff;
/** Largest ring, in descriptors (2^24 - 16). */
export const DEFAULT_RING_SIZE = MAX_RING_SIZE;
/** Most descriptor programs one DMA may be split into. */
export const DEFAULT_MAX_NESTS = 65536;

export interface LowerOptions {
  /** Backends the DGE offers (default: the ArchLevel's row of BACKEND_AVAILABILITY). */
  availability?: Partial<BackendAvailability>;
  /** Descriptors per packet (default 64). */
  maxDescPerPacket?: number;
  /** Carveout capacity in descriptors: bound layer 3 for DGE DMAs (default 65535). */
  carveoutDescriptors?: number;
  /** Ring capacity in descriptors: bound layer 3 for every descriptor program (default 2^24 - 16). */
  ringSize?: number;
  /** Most descriptor programs per DMA (default 65536). */
  maxNests?: number;
  /** Keep the micro-op streams and 64-byte descriptors (default true). */
  keepRecords?: boolean;
  /**
   * Hold a DMA whose walks are its host plan's as a table row only, its LoweredDma made when it is
   * asked for (default true); false keeps every record as the lowering built it.
   */
  compact?: boolean;
  /**
   * Lower a compact DMA whose signature (tensors, pattern dims, queue, QoS class, route,
   * transpose, reduce) a compact row was made of already by its addresses and bounds alone
   * (planned.ts; default true). false runs every DMA through every check: the same rows.
   */
  planMemo?: boolean;
  /**
   * The packet byte size of a DMA (0: packets are bounded by maxDescPerPacket only): the flow
   * gives the DGE host table's per-class bytes per packet (+0x18) and the CCE prio cap here
   * (flow/host-tables.ts). May throw LOWER_ERROR.
   */
  packetBytes?: (d: PacketInfo) => number;
  /**
   * The 16-bit DMA-channel mask a DGE operation of this wire priority class may use (the DGE
   * mailbox rule, +0x28); default 0xFFFF. ANDed with the queue's channels.
   */
  dmaMask?: (priorityClass: number) => number;
}

/** What packetBytes is asked about one DMA. */
export interface PacketInfo {
  instr: Instr;
  label: string;
  backend: Backend;
  priorityClass: number;
  elemSize: number;
  elements: number;
  arch: number;
}

/** One DMA channel's program: its micro-ops, the two dge_shapes and the descriptors it builds. */
export interface LoweredStream {
  channel: number;
  microOps: MicroOp[];
  src: DgeShape | null;
  dst: DgeShape | null;
  descriptors: DgeDescriptor[];
}

export interface LoweredDma {
  instr: Instr;
  /** `#12 (name)`. */
  label: string;
  queue: DmaQueue;
  backend: Backend;
  /** DMA_CONFIGS.priority_class of every descriptor (toPriorityClass of the DMA's class). */
  priorityClass: number;
  /** Channel programs (DGE backends only; empty when records are not kept or backend none). */
  streams: LoweredStream[];
  /** Number of 64-byte descriptors (0 for backend none). */
  dgeDescriptors: number;
  /** What the BDs are expanded from: one walk per 64-byte descriptor (or host transfer). */
  walks: Walk[];
  /** BD pairs of each walk. */
  pieces: number[];
  /**
   * BD pairs of the DMA on the rings (TX descriptors; RX has as many); 0 for a destination reduce,
   * which the Pool core executes from its DIRECT2D descriptors.
   */
  descriptors: number;
  /** Bytes the DMA moves. */
  bytes: number;
  /** Byte ranges it reads and writes: [lo, hi). */
  srcLo: number;
  srcHi: number;
  dstLo: number;
  dstHi: number;
  /** Index tensor read by the DMA (indirect), or null. */
  indexTensor: Tensor | null;
  /** DIRECT2D compute_op of a destination reduce (ComputeOp.NONE for a copy). */
  computeOp: number;
  /** Packet byte size of its BDs (0: bounded by descriptors per packet only). */
  packetBytes: number;
  /** DMA channels its streams may use (lo16 of MEMCOPY_DMA_CFG); 0 for backend none. */
  channelMask: number;
  /**
   * A destination reduce's DIRECT2D descriptors, in order (kept whatever keepRecords says): BDs
   * only copy bytes, so the Pool core executes these itself (DgeCoreIO.executeDescriptor).
   */
  reduceDescriptors: DgeDescriptor[];
}

export interface LoweredQueue {
  queue: DmaQueue;
  /** Its DMAs' records (made on first access from the program's table). */
  readonly dmas: LoweredDma[];
  /** Number of its DMAs. */
  count: number;
  /** Channels its DMAs rotate over: min(queue.dmaEngines, 16). */
  channels: number;
  /** BD pairs of one pass over its DMAs (loop bodies once). */
  descriptors: number;
  bytes: number;
  /** Largest descriptor program of the queue, in BD pairs. */
  maxWalk: number;
}

export interface LoweredBlock {
  fn: string;
  name: string;
  /** 1, or the loop's iteration count. */
  iterations: number;
  /** Its DMAs: rows first .. first + count - 1 of the program's table. */
  first: number;
  count: number;
  /** Their records (made on first access). */
  readonly dmas: LoweredDma[];
}

/** What each queue executes (loop bodies per iteration), by queue index (module.queues). */
export interface QueueExecution {
  descriptors: Float64Array;
  bytes: Float64Array;
  dmas: Float64Array;
}

export interface LoweredProgram {
  module: Module;
  maxDescPerPacket: number;
  queues: LoweredQueue[];
  /** Blocks in execution order (functions in declaration order). */
  blocks: LoweredBlock[];
  /** Every DMA once, in program order: one row each (the columns the flow reads). */
  table: DmaTable;
  /** Every DMA's record, in program order (made on first access from the table). */
  readonly dmas: LoweredDma[];
  totals: {
    dmas: number;
    /** DMAs executed (loop bodies counted per iteration). */
    executed: number;
    dgeDescriptors: number;
    /** BD pairs executed. */
    descriptors: number;
    /** Bytes moved by the execution. */
    bytes: number;
    byBackend: Record<Backend, number>;
  };
  /** The BD pairs, bytes and DMAs each queue executes (flow/prepare.ts executedByQueue). */
  executedByQueue: QueueExecution;
}
