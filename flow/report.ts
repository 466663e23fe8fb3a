/**
 * The report of a flow: what `nxdma run --json` prints, one per program. The fields the issue
 * names come first: { passes, queues: [{ name, engine, qid, descriptors, bytes }], bytesMoved,
 * verifiedBytes, mismatches, arbitration }.
 */
import type { Backend } from '../compiler/lower/backend.ts';
import type { DgeShape } from '../compiler/lower/shape.ts';
import type { ServiceTraceEntry } from '../csr/io.ts';

export interface QueueReport {
  /** The DMAQueue's full name (alloc_queues). */
  name: string;
  /** UDMA engine and queue index the queue's rings live on. */
  engine: number;
  qid: number;
  /** TX descriptors executed (as many RX descriptors). */
  descriptors: number;
  /** Bytes moved. */
  bytes: number;
  /** DMAs executed (loop bodies per iteration). */
  dmas: number;
  qos: string;
  /** Ring size in descriptors (0: the queue has no DMA and no rings). */
  ringSize: number;
  doorbells: number;
}

export interface MismatchSample {
  address: string;
  region: string;
  tensor: string | null;
  /** True when a DMA should have written the byte. */
  destination: boolean;
  expected: number;
  actual: number;
}

export interface ArbitrationQueue {
  name: string;
  engine: number;
  qid: number;
  qos: string;
  /** M2S_Q[qid].dwrr_cfg_2.q_qos when served (null: never served). */
  qQos: number | null;
  packets: number;
  bytes: number;
  firstCycle: number | null;
  lastCycle: number | null;
}

export interface FlowReport {
  program: string;
  file: string | null;
  device: string;
  mock: boolean;
  passes: { name: string; order: number | null; counters: Record<string, number> }[];
  queues: QueueReport[];
  /** Bytes the program's DMAs moved. */
  bytesMoved: number;
  /** Destination bytes (distinct bytes some DMA writes), each compared with the reference. */
  verifiedBytes: number;
  /** Every byte of every declared region compared. */
  checkedBytes: number;
  /** Bytes that differ from the reference interpreter (destination or not). */
  mismatches: number;
  mismatchSamples: MismatchSample[];
  /** What the arbiters served during the flow (a device that ran earlier flows: this one's only). */
  arbitration: {
    /** 'qos': strict levels and DWRR from each queue's class; 'round-robin': the reset arbiters. */
    mode: 'qos' | 'round-robin';
    /** False when the device keeps no service trace (a mapped device). */
    observed: boolean;
    warnings: string[];
    queues: ArbitrationQueue[];
    /** Queue names of the first 64 packets served, in grant order. */
    firstGrants: string[];
  };
  lowering: {
    dmas: number;
    executed: number;
    dgeDescriptors: number;
    descriptors: number;
    byBackend: Record<Backend, number>;
    /** DIRECT2D descriptors of destination reduces the Pool DGE core executed itself. */
    poolExecuted: number;
  };
  /** Epochs the program ran in (cross-queue ordering points). */
  epochs: number;
  drains: number;
  elapsedMs: number;
  trace?: FlowTrace;
}

export interface FlowTrace {
  dmas: {
    dma: string;
    queue: string;
    backend: Backend;
    priorityClass: number;
    descriptors: number;
    streams: {
      channel: number;
      microOps: string[];
      src: DgeShape | null;
      dst: DgeShape | null;
      descriptors: string[];
    }[];
  }[];
  /**
   * The first 10,000 entries of the device's service trace (mocks/service-trace.ts) recorded during
   * the flow.
   */
  service: ServiceTraceEntry[];
}

/** Totals over several reports (a directory run). */
export interface FlowTotals {
  programs: number;
  passed: number;
  failed: number;
  bytesMoved: number;
  verifiedBytes: number;
  mismatches: number;
  descriptors: number;
}

export function totalsOf(reports: readonly FlowReport[]): FlowTotals {
  const t: FlowTotals = {
    programs: reports.length,
    passed: 0,
    failed: 0,
    bytesMoved: 0,
    verifiedBytes: 0,
    mismatches: 0,
    descriptors: 0,
  };
  for (const r of reports) {
    if (r.mismatches === 0) t.passed++;
    else t.failed++;
    t.bytesMoved += r.bytesMoved;
    t.verifiedBytes += r.verifiedBytes;
    t.mismatches += r.mismatches;
    t.descriptors += r.lowering.descriptors;
  }
  return t;
}
