/**
 * The lowering's output held in columns: one row per DMA, in program order. What the flow reads
 * for every DMA it submits (queue, BD pairs, bytes, hazard ranges, packet size) sits in typed
 * arrays; a DMA whose walks come from a host plan (a host-built transfer, counted without a packet
 * byte size: the common case) keeps no object at all: its walks are the plan's, moved to the
 * DMA's two start addresses. Every other DMA keeps its LoweredDma record as the lowering built it.
 *
 * `record(i)` materialises the LoweredDma of row i on demand (the same fields and values as the
 * record the lowering built; one object per row, kept once made); `walk(i, k)` hands the flow a
 * row's walks without materialising anything, and `movePieces(i, k, stream)` a compact row's
 * pieces without a walk: its plan's pieces, laid out once per plan, moved to the row's addresses.
 */
import type { Module } from '../ir/module.ts';
import { DESC_PER_PKT } from '../../csr/formats/ring.ts';
import { BACKENDS, type Backend } from './backend.ts';
import { DescriptorStream } from './bds.ts';
import { ROW_DST_ADDR, ROW_SRC_ADDR, dmaLabel, type HostPlan } from './context.ts';
import { expandWalk, type AffineWalk, type Walk } from './expand.ts';
import type { LoweredDma } from './types.ts';

/** The empty record list of a DMA that has none (the one DmaBuild starts from). */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** The most pieces a plan may have to be laid out (a larger plan is expanded row by row). */
const PLAN_PIECES_MAX = 4096;

/**
 * A host plan's pieces laid out once: each plan walk expanded with its two start addresses at its
 * offsets from the DMA's (srcOff, dstOff), so that a row's pieces are these moved by the row's
 * two start addresses. Walk k's pieces are `from[k]` .. `from[k + 1] - 1`.
 */
interface PlanPieces {
  src: Float64Array;
  dst: Float64Array;
  len: Uint32Array;
  from: Int32Array;
  /** The largest |offset| + length of any piece: the sums stay exact for rows within 2^53 of it. */
  reach: number;
}

/**
 * The pieces of `plan` laid out (PlanPieces): each walk expanded at its offsets into a descriptor
 * stream, as the flow expands a row's walk; null when the plan has too many pieces, a piece the
 * stream refuses (the row's own expansion then refuses it where it stands) or an offset that is
 * not an integer.
 */
function layOut(plan: HostPlan): PlanPieces | null {
  if (plan.total > PLAN_PIECES_MAX) return null;
  const s = new DescriptorStream(DESC_PER_PKT, Math.max(1, plan.total));
  const from = new Int32Array(plan.walks.length + 1);
  try {
    for (let k = 0; k < plan.walks.length; k++) {
      const w = plan.walks[k];
      from[k] = s.length;
      s.begin(plan.counts[k]);
      expandWalk(
        {
          type: 'affine',
          elemSize: plan.elemSize,
          srcAddr: w.srcOff,
          dstAddr: w.dstOff,
          srcNum: w.srcNum,
          srcStep: w.srcStep,
          dstNum: w.dstNum,
          dstStep: w.dstStep,
        },
        s,
      );
      s.end();
    }
  } catch {
    return null;
  }
  from[plan.walks.length] = s.length;
  let reach = 0;
  for (let i = 0; i < s.length; i++) {
    const a = s.src[i];
    const b = s.dst[i];
    if (!(Number.isInteger(a) && Number.isInteger(b))) return null;
    const r = Math.max(Math.abs(a), Math.abs(b)) + s.len[i];
    if (r > reach) reach = r;
  }
  if (!(reach <= Number.MAX_SAFE_INTEGER)) return null;
  return { src: s.src, dst: s.dst, len: s.len, from, reach };
}

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
  /** The row's host plan (compact rows): 1 + its index in `planList`; 0 for a row with a record. */
  private readonly planAt: Int32Array;
  /** The distinct plans of the compact rows, and each one's index there. */
  private readonly planList: HostPlan[] = [];
  private readonly planIndex = new Map<HostPlan, number>();
  private addedPlan: HostPlan | null = null;
  private addedAt = 0;
  /**
   * The row's record (rows that are not compact, and rows materialised already), else null; made
   * on the first record (a table of compact rows only holds no per-row object at all).
   */
  private records: (LoweredDma | null)[] | null = null;
  /** The instruction id of the row's DMA (module.instrs). */
  private readonly instrId: Int32Array;
  private n = 0;
  private materialised: LoweredDma[] | null = null;
  /** One walk per plan walk, moved to a row's addresses by forEachWalk (reused). */
  private readonly moved = new Map<HostPlan, AffineWalk[]>();
  /** The plan walk() served last and its moved walks (consecutive rows mostly share a plan). */
  private lastPlan: HostPlan | null = null;
  private lastMoved: AffineWalk[] = [];
  /** Each plan's pieces laid out (null: expanded per row), and the one movePieces served last. */
  private readonly laidOut = new Map<HostPlan, PlanPieces | null>();
  private piecesPlan: HostPlan | null = null;
  private lastPieces: PlanPieces | null = null;

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
    this.planAt = new Int32Array(capacity);
    this.instrId = new Int32Array(capacity);
  }

  /** Row i's record, if it has one (kept by add, or materialised by record). */
  private recordAt(i: number): LoweredDma | null {
    const rs = this.records;
    return rs === null ? null : rs[i];
  }

  /** Sets row i's record, making the record list on the first. */
  private keep(i: number, d: LoweredDma): void {
    if (this.records === null) this.records = new Array<LoweredDma | null>(this.length).fill(null);
    this.records[i] = d;
  }

  /** Row i's host plan (a compact row). */
  private planOf(i: number): HostPlan {
    return this.planList[this.planAt[i] - 1];
  }

  /** Row i's instruction. */
  private instrOf(i: number): LoweredDma['instr'] {
    return this.m.instrs[this.instrId[i]];
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
    this.keep(i, d);
    return i;
  }

  /**
   * Adds the next row, compact: DMA `I` (backend `backend`) whose walks are exactly host plan
   * `plan` moved to its two start addresses, its BD counts the plan's (no packet byte size), with
   * no stream, no reduce, no index tensor and no DGE descriptor; `row` holds its byte ranges
   * ([srcLo, srcHi, dstLo, dstHi], bounds.ts checkPlanBounds) and its start addresses (context.ts
   * ROW_SRC_ADDR, ROW_DST_ADDR); the other fields of its record as given. Returns the row.
   */
  addPlan(
    I: LoweredDma['instr'],
    backend: Backend,
    plan: HostPlan,
    row: Float64Array,
    bytes: number,
    priorityClass: number,
    channelMask: number,
    computeOp: number,
  ): number {
    const i = this.put(I, backend, plan.total, bytes, 0, plan.maxCount);
    this.srcLo[i] = row[0];
    this.srcHi[i] = row[1];
    this.dstLo[i] = row[2];
    this.dstHi[i] = row[3];
    // packetBytes and reduce stay 0; so do the columns given 0 (a fresh row's columns are 0, and
    // a column no row writes is memory never touched)
    this.priorityClass[i] = priorityClass;
    if (computeOp !== 0) this.computeOp[i] = computeOp;
    if (channelMask !== 0) this.channelMask[i] = channelMask;
    if (plan !== this.addedPlan) {
      let at = this.planIndex.get(plan);
      if (at === undefined) {
        at = this.planList.push(plan);
        this.planIndex.set(plan, at);
      }
      this.addedPlan = plan;
      this.addedAt = at;
    }
    this.planAt[i] = this.addedAt;
    this.srcAddr[i] = row[ROW_SRC_ADDR];
    this.dstAddr[i] = row[ROW_DST_ADDR];
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
    this.instrId[i] = I.id;
    this.queue[i] = I.cols.queue[I.id]; // I.queue's index (the lowering rejects a DMA with none)
    if (backend !== 'none') this.backend[i] = BACKENDS.indexOf(backend); // BACKEND_NONE is 0
    this.descriptors[i] = descriptors;
    this.bytes[i] = bytes;
    if (dgeDescriptors !== 0) this.dgeDescriptors[i] = dgeDescriptors;
    this.maxWalk[i] = maxWalk;
    return i;
  }

  /** The backend of row i. */
  backendOf(i: number): Backend {
    return BACKENDS[this.backend[i]];
  }

  /** Row i's record (materialised once, on the first call). */
  record(i: number): LoweredDma {
    const r = this.recordAt(i);
    if (r !== null) return r;
    const plan = this.planOf(i);
    const sa = this.srcAddr[i];
    const da = this.dstAddr[i];
    const I = this.instrOf(i);
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
    this.keep(i, d);
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
    return dmaLabel(this.instrOf(i));
  }

  /** Row i's reduce descriptors (empty for a copy). */
  reduceOf(i: number): LoweredDma['reduceDescriptors'] {
    const r = this.recordAt(i);
    return r === null ? NONE : r.reduceDescriptors;
  }

  /**
   * The number of walks of row i. A compact row's are its plan's (a record materialised from it
   * holds the same), so its plan answers first.
   */
  walksOf(i: number): number {
    const p = this.planAt[i];
    return p > 0 ? this.planList[p - 1].walks.length : this.recordAt(i)!.walks.length;
  }

  /** BD pairs of walk k of row i (a compact row's: its plan's, as walksOf). */
  piecesOf(i: number, k: number): number {
    const p = this.planAt[i];
    return p > 0 ? this.planList[p - 1].counts[k] : this.recordAt(i)!.pieces[k];
  }

  /**
   * Walk k of row i: its record's, or (a compact row) the plan's walk moved to the row's
   * addresses, in an object reused by the next call for the same plan walk (read it before then).
   */
  walk(i: number, k: number): Walk {
    const r = this.recordAt(i);
    if (r !== null) return r.walks[k];
    const plan = this.planOf(i);
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

  /**
   * Writes the pieces of walk k of row i into `stream` (between its begin and end), as
   * expandWalk(walk(i, k), stream) does, and returns true, when row i is compact and its plan's
   * pieces are laid out: the plan's pieces moved to the row's two start addresses (no walk, no
   * expansion). Returns false, writing nothing, for any other row (expand its walk instead).
   */
  movePieces(i: number, k: number, stream: DescriptorStream): boolean {
    // a compact row (materialised or not: a record made from a plan holds the plan's walks)
    const at = this.planAt[i];
    if (at === 0) return false;
    const plan = this.planList[at - 1];
    let p: PlanPieces | null | undefined;
    if (plan === this.piecesPlan) p = this.lastPieces;
    else {
      p = this.laidOut.get(plan);
      if (p === undefined) {
        p = layOut(plan);
        this.laidOut.set(plan, p);
      }
      this.piecesPlan = plan;
      this.lastPieces = p;
    }
    if (p === null) return false;
    const sa = this.srcAddr[i];
    const da = this.dstAddr[i];
    // integer start addresses whose sums with every offset stay below 2^53: the moved pieces are
    // exactly the ones the walk expands into
    const lim = Number.MAX_SAFE_INTEGER - p.reach;
    if (!(
      Number.isInteger(sa) &&
      Number.isInteger(da) &&
      Math.abs(sa) <= lim &&
      Math.abs(da) <= lim
    ))
      return false;
    const from = p.from[k];
    stream.movedAt(
      p.src,
      p.dst,
      p.len,
      from,
      p.from[k + 1] - from,
      this.srcAddr,
      this.dstAddr,
      i,
      i,
    );
    return true;
  }
}
