/**
 * The lowering's output held in columns: one row per DMA, in program order. What the flow reads
 * for every DMA it submits (queue, BD pairs, bytes, hazard ranges, packet size) sits in typed
 * arrays; a DMA whose walks come from a host plan (a host-built transfer, counted without a packet
 * byte size: the common case) keeps no object at all: its walks are the plan's, moved to the
 * DMA's two start addresses. Every other DMA keeps its LoweredDma record as the lowering built it.
 *
 * `record(i)` materialises the LoweredDma of row i on demand (the same fields and values as the
 * record the lowering built; one object per row, kept once made); `walk(i, k)` hands the flow a
 * row's walks without materialising anything.
 */
import type { Module } from '../ir/module.ts';
import { BACKENDS, BACKEND_NONE, type Backend } from './backend.ts';
import { dmaLabel, type HostPlan } from './context.ts';
import type { AffineWalk, Walk } from './expand.ts';
import type { LoweredDma } from './types.ts';

/** The empty record list of a DMA that has none (the one DmaBuild starts from). */
const NONE: never[] = Object.freeze([]) as unknown as never[];

export class DmaTable {
  readonly length: number;
  /** Queue index (module.queues) of each row. */
  readonly queue: Int32Array;
  /** BD pairs on the rings (0 for a destination reduce). */
  readonly descriptors: Float64Array;
  /** Bytes moved. */
  readonly bytes: Float64Array;
  /** 64-byte DGE descriptors (0 for backend none). */
  readonly dgeDescriptors: Float64Array;
  /** Byte ranges read and written, [lo, hi). */
  readonly srcLo: Float64Array;
  readonly srcHi: Float64Array;
  readonly dstLo: Float64Array;
  readonly dstHi: Float64Array;
  /** Packet byte size of the BDs (0: bounded by descriptors per packet only). */
  readonly packetBytes: Float64Array;
  /** Largest BD count of one walk of the row. */
  readonly maxWalk: Float64Array;
  /** Index in BACKENDS. */
  readonly backend: Uint8Array;
  /** 1 when the row is a destination reduce (the Pool core executes it). */
  readonly reduce: Uint8Array;
  private readonly priorityClass: Uint8Array;
  private readonly computeOp: Uint8Array;
  private readonly channelMask: Int32Array;
  private readonly srcAddr: Float64Array;
  private readonly dstAddr: Float64Array;
  /** The row's host plan (compact rows), else null. */
  private readonly plans: (HostPlan | null)[];
  /** The row's record (rows that are not compact, and rows materialised already). */
  private readonly records: (LoweredDma | null)[];
  private readonly instrs: LoweredDma['instr'][];
  private n = 0;
  private materialised: LoweredDma[] | null = null;
  /** One walk per plan walk, moved to a row's addresses by forEachWalk (reused). */
  private readonly moved = new Map<HostPlan, AffineWalk[]>();
  /** The plan walk() served last and its moved walks (consecutive rows mostly share a plan). */
  private lastPlan: HostPlan | null = null;
  private lastMoved: AffineWalk[] = [];

  constructor(
    private readonly m: Module,
    capacity: number,
  ) {
    this.length = capacity;
    this.queue = new Int32Array(capacity);
    this.descriptors = new Float64Array(capacity);
    this.bytes = new Float64Array(capacity);
    this.dgeDescriptors = new Float64Array(capacity);
    this.srcLo = new Float64Array(capacity);
    this.srcHi = new Float64Array(capacity);
    this.dstLo = new Float64Array(capacity);
    this.dstHi = new Float64Array(capacity);
    this.packetBytes = new Float64Array(capacity);
    this.maxWalk = new Float64Array(capacity);
    this.backend = new Uint8Array(capacity);
    this.reduce = new Uint8Array(capacity);
    this.priorityClass = new Uint8Array(capacity);
    this.computeOp = new Uint8Array(capacity);
    this.channelMask = new Int32Array(capacity);
    this.srcAddr = new Float64Array(capacity);
    this.dstAddr = new Float64Array(capacity);
    this.plans = new Array<HostPlan | null>(capacity).fill(null);
    this.records = new Array<LoweredDma | null>(capacity).fill(null);
    this.instrs = new Array<LoweredDma['instr']>(capacity);
  }

  /** Rows added so far. */
  get size(): number {
    return this.n;
  }

  /** Adds the next row: DMA `d`, its record as the lowering built it (kept). Returns the row. */
  add(d: LoweredDma): number {
    let max = 0;
    for (const p of d.pieces) if (p > max) max = p;
    const i = this.put(d.instr, d.backend, d.descriptors, d.bytes, d.dgeDescriptors, max);
    this.srcLo[i] = d.srcLo;
    this.srcHi[i] = d.srcHi;
    this.dstLo[i] = d.dstLo;
    this.dstHi[i] = d.dstHi;
    this.packetBytes[i] = d.packetBytes;
    this.reduce[i] = d.reduceDescriptors.length > 0 ? 1 : 0;
    this.priorityClass[i] = d.priorityClass;
    this.computeOp[i] = d.computeOp;
    this.channelMask[i] = d.channelMask;
    this.records[i] = d;
    return i;
  }

  /**
   * Adds the next row, compact: DMA `I` (backend `backend`) whose walks are exactly host plan
   * `plan` moved to `srcAddr` and `dstAddr`, its BD counts the plan's (no packet byte size), with
   * no stream, no reduce, no index tensor and no DGE descriptor; its byte ranges `ranges`
   * ([srcLo, srcHi, dstLo, dstHi], bounds.ts checkPlanBounds); the other fields of its record as
   * given. Returns the row.
   */
  addPlan(
    I: LoweredDma['instr'],
    backend: Backend,
    plan: HostPlan,
    srcAddr: number,
    dstAddr: number,
    ranges: Float64Array,
    bytes: number,
    priorityClass: number,
    channelMask: number,
    computeOp: number,
  ): number {
    const i = this.put(I, backend, plan.total, bytes, 0, plan.maxCount);
    this.srcLo[i] = ranges[0];
    this.srcHi[i] = ranges[1];
    this.dstLo[i] = ranges[2];
    this.dstHi[i] = ranges[3];
    // packetBytes and reduce stay 0
    this.priorityClass[i] = priorityClass;
    this.computeOp[i] = computeOp;
    this.channelMask[i] = channelMask;
    this.plans[i] = plan;
    this.srcAddr[i] = srcAddr;
    this.dstAddr[i] = dstAddr;
    return i;
  }

  /** Starts the next row with the columns every row has; returns it. */
  private put(
    I: LoweredDma['instr'],
    backend: Backend,
    descriptors: number,
    bytes: number,
    dgeDescriptors: number,
    maxWalk: number,
  ): number {
    const i = this.n++;
    this.instrs[i] = I;
    this.queue[i] = I.queue!.index;
    this.backend[i] = backend === 'none' ? BACKEND_NONE : BACKENDS.indexOf(backend);
    this.descriptors[i] = descriptors;
    this.bytes[i] = bytes;
    this.dgeDescriptors[i] = dgeDescriptors;
    this.maxWalk[i] = maxWalk;
    return i;
  }

  /** The backend of row i. */
  backendOf(i: number): Backend {
    return BACKENDS[this.backend[i]];
  }

  /** Row i's record (materialised once, on the first call). */
  record(i: number): LoweredDma {
    const r = this.records[i];
    if (r !== null) return r;
    const plan = this.plans[i]!;
    const sa = this.srcAddr[i];
    const da = this.dstAddr[i];
    const I = this.instrs[i];
    const walks: Walk[] = plan.walks.map((w) => ({
      type: 'affine',
      elemSize: plan.elemSize,
      srcAddr: sa + w.srcOff,
      dstAddr: da + w.dstOff,
      srcNum: w.srcNum,
      srcStep: w.srcStep,
      dstNum: w.dstNum,
      dstStep: w.dstStep,
    }));
    const d: LoweredDma = {
      instr: I,
      label: dmaLabel(I),
      queue: this.m.queues[this.queue[i]],
      backend: this.backendOf(i),
      priorityClass: this.priorityClass[i],
      streams: NONE,
      dgeDescriptors: this.dgeDescriptors[i],
      walks,
      pieces: plan.counts as number[],
      descriptors: this.descriptors[i],
      bytes: this.bytes[i],
      srcLo: this.srcLo[i],
      srcHi: this.srcHi[i],
      dstLo: this.dstLo[i],
      dstHi: this.dstHi[i],
      indexTensor: null,
      computeOp: this.computeOp[i],
      packetBytes: this.packetBytes[i],
      channelMask: this.channelMask[i],
      reduceDescriptors: NONE,
    };
    this.records[i] = d;
    return d;
  }

  /** Every row's record, in program order (materialised once). */
  allRecords(): LoweredDma[] {
    if (this.materialised === null) {
      const out = new Array<LoweredDma>(this.n);
      for (let i = 0; i < this.n; i++) out[i] = this.record(i);
      this.materialised = out;
    }
    return this.materialised;
  }

  /** Row i's label, `#12 (name)`. */
  labelOf(i: number): string {
    return dmaLabel(this.instrs[i]);
  }

  /** Row i's reduce descriptors (empty for a copy). */
  reduceOf(i: number): LoweredDma['reduceDescriptors'] {
    const r = this.records[i];
    return r === null ? NONE : r.reduceDescriptors;
  }

  /** The number of walks of row i. */
  walksOf(i: number): number {
    const r = this.records[i];
    return r !== null ? r.walks.length : this.plans[i]!.walks.length;
  }

  /** BD pairs of walk k of row i. */
  piecesOf(i: number, k: number): number {
    const r = this.records[i];
    return r !== null ? r.pieces[k] : this.plans[i]!.counts[k];
  }

  /**
   * Walk k of row i: its record's, or (a compact row) the plan's walk moved to the row's
   * addresses, in an object reused by the next call for the same plan walk (read it before then).
   */
  walk(i: number, k: number): Walk {
    const r = this.records[i];
    if (r !== null) return r.walks[k];
    const plan = this.plans[i]!;
    let moved = plan === this.lastPlan ? this.lastMoved : this.moved.get(plan);
    if (moved === undefined) {
      moved = plan.walks.map((w) => ({
        type: 'affine',
        elemSize: plan.elemSize,
        srcAddr: 0,
        dstAddr: 0,
        srcNum: w.srcNum,
        srcStep: w.srcStep,
        dstNum: w.dstNum,
        dstStep: w.dstStep,
      }));
      this.moved.set(plan, moved);
    }
    this.lastPlan = plan;
    this.lastMoved = moved;
    const w = moved[k];
    w.srcAddr = this.srcAddr[i] + plan.walks[k].srcOff;
    w.dstAddr = this.dstAddr[i] + plan.walks[k].dstOff;
    return w;
  }
}
