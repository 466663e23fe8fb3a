/**
 * The 64-byte -> 16-byte expansion (seed 004 §5.4): each DGE descriptor (and each host-built
 * transfer of a DGEType None DMA) becomes a stream of pieces `(src, dst, len)`, one TX and one RX
 * ring descriptor each. A piece is a byte range contiguous on both sides and at most 64 KiB long:
 * the common refinement of the source's and the destination's contiguous runs, in the walk order
 * of the descriptor. bds.ts turns pieces into 16-byte BDs.
 *
 * The semantics of each descriptor kind are those of docs/descriptors.md; `walkOf` is the one
 * place that reads them, the expander below the one place that walks them.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { BD_MAX_LEN } from '../../csr/formats/bd.ts';
import { IndirectSide, type DgeDescriptor } from '../../csr/formats/dge-desc.ts';

/** An affine transfer: two independent nests (innermost dim first) of equal element totals. */
export interface AffineWalk {
  type: 'affine';
  elemSize: number;
  srcAddr: number;
  dstAddr: number;
  srcNum: readonly number[];
  srcStep: readonly number[];
  dstNum: readonly number[];
  dstStep: readonly number[];
}

/** The fields an indexed walk shares with the 64-byte descriptor it comes from. */
interface IndexedRows {
  elemSize: number;
  srcAddr: number;
  dstAddr: number;
  /** Device address of the index tensor (u32 row numbers). */
  idxAddr: number;
  numIdx: number;
  rowElems: number;
  srcStep: number;
  dstStep: number;
  /** Every index must be below this (0: unchecked). */
  idxLimit: number;
}

/**
 * An indexed row copy (INDIRECT1D): for i < numIdx, r = idx[i]: GATHER copies the row at
 * src + r * srcStep to dst + i * dstStep; SCATTER the row at src + i * srcStep to dst + r * dstStep.
 */
export interface IndirectWalk extends IndexedRows {
  type: 'indirect';
  side: IndirectSide;
}

/** A gather transpose (GATHER_XPOSE): G[i][j] = row idx[i] element j lands at dst + (j * dstStep + i). */
export interface GatherXposeWalk extends IndexedRows {
  type: 'gather_xpose';
}

export type Walk = AffineWalk | IndirectWalk | GatherXposeWalk;

/**
 * The values of an indexed walk's index tensor, its first `numIdx` u32 row numbers as the DMA
 * reads them when it runs (the caller reads them from memory: the lowering reads nothing).
 */
export type IndexValues = ArrayLike<number>;

/** Receives the pieces of a walk in order. */
export interface PieceSink {
  /** One piece; `closes` ends the packet with it (a packet byte cap, PacketCut). */
  piece(src: number, dst: number, len: number, closes?: boolean): void;
  /**
   * Optional bulk form: `n` pieces, piece i at src + i * srcStride and dst + i * dstStride, each
   * `len` bytes but the last, which is `lastLen` (the same as n calls of `piece`).
   */
  pieces?(
    src: number,
    dst: number,
    len: number,
    n: number,
    srcStride: number,
    dstStride: number,
    lastLen: number,
  ): void;
}

/**
 * The walk a 64-byte descriptor describes (docs/descriptors.md):
 *  - DIRECT2D: both sides walked as `[inner, outer]` nests;
 *  - DIRECT2D_XPOSE: the source is a src_num_elem[1] x src_num_elem[0] matrix; element (r, c)
 *    lands at destination (row c, column r). nxdma walks it column by column (c outermost), which
 *    visits the destination in its own row order;
 *  - INDIRECT1D / GATHER_XPOSE: indexed rows.
 */
export function walkOf(d: DgeDescriptor): Walk {
  switch (d.kind) {
    case 'DIRECT2D':
      return affineOf(
        d,
        [d.src_num_elem[0], d.src_num_elem[1]],
        [d.src_step_elem[0], d.src_step_elem[1]],
      );
    case 'DIRECT2D_XPOSE':
      // r inner (src rows: step[1]), c outer (src columns: step[0]); dst (row c, col r) =
      // r * dst_step[0] + c * dst_step[1]
      return affineOf(
        d,
        [d.src_num_elem[1], d.src_num_elem[0]],
        [d.src_step_elem[1], d.src_step_elem[0]],
      );
    case 'INDIRECT1D':
      return { type: 'indirect', side: d.indirect_side as IndirectSide, ...rowsOf(d) };
    case 'GATHER_XPOSE':
      return { type: 'gather_xpose', ...rowsOf(d) };
  }
}

/** An affine walk of a 2-D descriptor: the source dims given, the destination's as they are. */
function affineOf(
  d: Extract<DgeDescriptor, { kind: 'DIRECT2D' | 'DIRECT2D_XPOSE' }>,
  srcNum: number[],
  srcStep: number[],
): AffineWalk {
  return {
    type: 'affine',
    elemSize: d.elem_size,
    srcAddr: d.src_addr,
    dstAddr: d.dst_addr,
    srcNum,
    srcStep,
    dstNum: [d.dst_num_elem[0], d.dst_num_elem[1]],
    dstStep: [d.dst_step_elem[0], d.dst_step_elem[1]],
  };
}

/** The indexed-row fields of an INDIRECT1D or GATHER_XPOSE descriptor. */
function rowsOf(d: Extract<DgeDescriptor, { kind: 'INDIRECT1D' | 'GATHER_XPOSE' }>): IndexedRows {
  return {
    elemSize: d.elem_size,
    srcAddr: d.src_addr,
    dstAddr: d.dst_addr,
    idxAddr: d.idx_addr,
    numIdx: d.num_idx,
    rowElems: d.row_num_elem,
    srcStep: d.src_step_elem,
    dstStep: d.dst_step_elem,
    idxLimit: d.idx_limit,
  };
}

/** Elements a walk moves. */
export function walkElements(w: Walk): number {
  if (w.type !== 'affine') return w.numIdx * w.rowElems;
  let n = 1;
  for (const v of w.srcNum) n *= v;
  return n;
}

function product(a: readonly number[]): number {
  let n = 1;
  for (const v of a) n *= v;
  return n;
}

/** Pieces of `total` contiguous bytes on both sides: 64 KiB chunks. */
function contiguous(s: number, d: number, total: number, sink: PieceSink | null): number {
  const n = Math.ceil(total / BD_MAX_LEN);
  if (sink !== null && n > 0) {
    const full = n - 1;
    const last = total - full * BD_MAX_LEN;
    if (sink.pieces !== undefined) {
      sink.pieces(s, d, BD_MAX_LEN, n, BD_MAX_LEN, BD_MAX_LEN, last);
    } else {
      for (let i = 0; i < full; i++) sink.piece(s + i * BD_MAX_LEN, d + i * BD_MAX_LEN, BD_MAX_LEN);
      sink.piece(s + full * BD_MAX_LEN, d + full * BD_MAX_LEN, last);
    }
  }
  return n;
}

/**
 * Pieces of an affine walk. Each side is a sequence of runs: its inner dims as far as they
 * continue each other from step 1, else single elements; the pieces are the common refinement of the two run
 * sequences, cut at 64 KiB. No allocation per piece.
 */
function expandAffine(w: AffineWalk, sink: PieceSink | null): number {
  const es = w.elemSize;
  const sN = w.srcNum;
  const sS = w.srcStep;
  const dN = w.dstNum;
  const dS = w.dstStep;
  const total = product(sN) * es;
  const dTotal = product(dN) * es;
  if (dTotal !== total) {
    throw new NxdmaError(
      'LOWER_ERROR',
      `walk moves ${total} source bytes and ${dTotal} destination bytes`,
      { where: 'expand', expected: 'equal byte counts', actual: dTotal },
    );
  }
  // a run: the inner dims that continue each other from step 1 (num-1 dims included)
  let s0 = 0;
  let sRunE = 1;
  while (s0 < sN.length && (sS[s0] === sRunE || sN[s0] === 1)) sRunE *= sN[s0++];
  let d0 = 0;
  let dRunE = 1;
  while (d0 < dN.length && (dS[d0] === dRunE || dN[d0] === 1)) dRunE *= dN[d0++];
  const sRun = sRunE * es;
  const dRun = dRunE * es;
  // fast path: both sides one run
  if (sRun === total && dRun === total) return contiguous(w.srcAddr, w.dstAddr, total, sink);
  const sDepth = sN.length - s0;
  const dDepth = dN.length - d0;
  // fast path: runs of one size, one outer dim of the same count on both sides (a 2-D tile)
  if (sRun === dRun && sRun <= BD_MAX_LEN && sDepth === 1 && dDepth === 1 && sN[s0] === dN[d0]) {
    const n = sN[s0];
    if (sink !== null) {
      const ss = sS[s0] * es;
      const ds = dS[d0] * es;
      if (sink.pieces !== undefined) {
        sink.pieces(w.srcAddr, w.dstAddr, sRun, n, ss, ds, sRun);
      } else {
        let s = w.srcAddr;
        let d = w.dstAddr;
        for (let i = 0; i < n; i++, s += ss, d += ds) sink.piece(s, d, sRun);
      }
    }
    return n;
  }
  // fast path (a bulk sink): one side one run, the other runs of one size <= 64 KiB along one
  // outer dim; the pieces are those runs, as the walk below cuts them
  const bulk = total > 0 && sink?.pieces !== undefined ? (sink as Required<PieceSink>) : null;
  if (bulk !== null && sDepth === 1 && dDepth === 0 && sRun <= BD_MAX_LEN) {
    bulk.pieces(w.srcAddr, w.dstAddr, sRun, sN[s0], sS[s0] * es, sRun, sRun);
    return sN[s0];
  }
  if (bulk !== null && sDepth === 0 && dDepth === 1 && dRun <= BD_MAX_LEN) {
    bulk.pieces(w.srcAddr, w.dstAddr, dRun, dN[d0], dRun, dS[d0] * es, dRun);
    return dN[d0];
  }
  const sCnt = new Array<number>(sDepth).fill(0);
  const dCnt = new Array<number>(dDepth).fill(0);
  let sStart = w.srcAddr;
  let dStart = w.dstAddr;
  let sAddr = sStart;
  let dAddr = dStart;
  let sLeft = sRun;
  let dLeft = dRun;
  let n = 0;
  for (;;) {
    let len = sLeft < dLeft ? sLeft : dLeft;
    if (len > BD_MAX_LEN) len = BD_MAX_LEN;
    if (sink !== null) sink.piece(sAddr, dAddr, len);
    n++;
    sAddr += len;
    dAddr += len;
    sLeft -= len;
    dLeft -= len;
    if (sLeft === 0) {
      // next source run
      let k = 0;
      for (; k < sDepth; k++) {
        const step = sS[s0 + k] * es;
        if (++sCnt[k] < sN[s0 + k]) {
          sStart += step;
          break;
        }
        sStart -= step * (sN[s0 + k] - 1);
        sCnt[k] = 0;
      }
      if (k === sDepth) break; // source done (the destination is done with it: equal totals)
      sAddr = sStart;
      sLeft = sRun;
    }
    if (dLeft === 0) {
      let k = 0;
      for (; k < dDepth; k++) {
        const step = dS[d0 + k] * es;
        if (++dCnt[k] < dN[d0 + k]) {
          dStart += step;
          break;
        }
        dStart -= step * (dN[d0 + k] - 1);
        dCnt[k] = 0;
      }
      dAddr = dStart;
      dLeft = dRun;
    }
  }
  return n;
}

function checkIndex(w: IndirectWalk | GatherXposeWalk, i: number, r: number): void {
  if (!Number.isInteger(r) || r < 0 || (w.idxLimit !== 0 && r >= w.idxLimit)) {
    throw new NxdmaError(
      'DESCRIPTOR_INVALID',
      `index ${i} at ${hex(w.idxAddr + 4 * i)} is ${String(r)}, outside 0..${w.idxLimit === 0 ? 'any' : w.idxLimit - 1} (idx_limit)`,
      { where: `idx[${i}]`, expected: `an index below idx_limit ${w.idxLimit}`, actual: r },
    );
  }
}

function expandIndirect(w: IndirectWalk, sink: PieceSink | null, idx: IndexValues | null): number {
  const es = w.elemSize;
  const row = w.rowElems * es;
  const per = Math.ceil(row / BD_MAX_LEN);
  if (sink === null) return w.numIdx * per;
  if (idx === null) {
    throw new NxdmaError('LOWER_ERROR', 'an indirect descriptor needs its index tensor to expand', {
      where: 'expand',
      expected: 'the index values',
      actual: null,
    });
  }
  const ix = needIndices(w, idx);
  const gather = w.side === IndirectSide.GATHER;
  let n = 0;
  for (let i = 0; i < w.numIdx; i++) {
    const r = ix[i];
    checkIndex(w, i, r);
    const s = w.srcAddr + (gather ? r : i) * w.srcStep * es;
    const d = w.dstAddr + (gather ? i : r) * w.dstStep * es;
    for (let off = 0; off < row; off += BD_MAX_LEN) {
      sink.piece(s + off, d + off, Math.min(BD_MAX_LEN, row - off));
      n++;
    }
  }
  return n;
}

function expandGatherXpose(
  w: GatherXposeWalk,
  sink: PieceSink | null,
  idx: IndexValues | null,
): number {
  const es = w.elemSize;
  if (sink === null) return w.numIdx * w.rowElems;
  if (idx === null) {
    throw new NxdmaError('LOWER_ERROR', 'a gather transpose needs its index tensor to expand', {
      where: 'expand',
      expected: 'the index values',
      actual: null,
    });
  }
  const ix = needIndices(w, idx);
  let n = 0;
  for (let i = 0; i < w.numIdx; i++) {
    const r = ix[i];
    checkIndex(w, i, r);
    const s = w.srcAddr + r * w.srcStep * es;
    for (let j = 0; j < w.rowElems; j++) {
      sink.piece(s + j * es, w.dstAddr + (j * w.dstStep + i) * es, es);
      n++;
    }
  }
  return n;
}

/** The index values of an indexed walk, checked to hold one per row. */
function needIndices(w: IndirectWalk | GatherXposeWalk, idx: IndexValues): IndexValues {
  if (idx.length < w.numIdx) {
    throw new NxdmaError(
      'LOWER_ERROR',
      `the index tensor at ${hex(w.idxAddr)} was handed ${idx.length} values for ${w.numIdx} rows`,
      { where: 'expand', expected: `${w.numIdx} index values`, actual: idx.length },
    );
  }
  return idx;
}

/**
 * Expands a walk into pieces (sink null: counts them). Returns the number of pieces. An indexed
 * walk is handed its index tensor's values in `idx` (needed only when there is a sink: the count
 * does not depend on them).
 */
export function expandWalk(
  w: Walk,
  sink: PieceSink | null,
  idx: IndexValues | null = null,
): number {
  switch (w.type) {
    case 'affine':
      return expandAffine(w, sink);
    case 'indirect':
      return expandIndirect(w, sink, idx);
    case 'gather_xpose':
      return expandGatherXpose(w, sink, idx);
  }
}

/**
 * Cuts a walk's byte stream into packets of `bytes` bytes (the last one shorter): a piece that
 * crosses a packet boundary is split there, and the piece that reaches the boundary closes its
 * packet. Used for the per-class packet sizes of the DGE host table (+0x18) and the CCE prio cap
 * (docs/lowering.md "packet sizes"). Starts a fresh stream per walk.
 */
export class PacketCut implements PieceSink {
  private off = 0;
  constructor(
    private readonly inner: PieceSink,
    readonly bytes: number,
  ) {}

  piece(src: number, dst: number, len: number): void {
    let s = src;
    let d = dst;
    let left = len;
    do {
      const room = this.bytes - (this.off % this.bytes);
      const k = left < room ? left : room;
      this.off += k;
      this.inner.piece(s, d, k, this.off % this.bytes === 0);
      s += k;
      d += k;
      left -= k;
    } while (left > 0);
  }
}

/** Index values of zero, for counting (the lengths of an indexed walk's pieces do not depend on them). */
let zeros = new Uint32Array(64);
function zeroIndices(n: number): Uint32Array {
  if (zeros.length < n) zeros = new Uint32Array(Math.max(n, zeros.length * 2));
  return zeros;
}

/**
 * Number of pieces (TX / RX descriptor pairs) a walk expands into; with `packetBytes` (> 0) the
 * pieces a PacketCut of that size makes (index values do not change the lengths).
 */
export function countPieces(w: Walk, packetBytes = 0): number {
  if (packetBytes <= 0) return expandWalk(w, null);
  let n = 0;
  const counter: PieceSink = {
    piece: () => {
      n++;
    },
  };
  expandWalk(
    w,
    new PacketCut(counter, packetBytes),
    w.type === 'affine' ? null : zeroIndices(w.numIdx),
  );
  return n;
}

/**
 * Byte ranges a walk can touch, [srcLo, srcHi) and [dstLo, dstHi), for index values in
 * [idxMin, idxMax] (ignored by affine walks).
 */
export function walkRanges(w: Walk, idxMin = 0, idxMax = 0): [number, number, number, number] {
  const es = w.elemSize;
  if (w.type === 'affine') {
    const [sl, sh] = nestRange(w.srcNum, w.srcStep);
    const [dl, dh] = nestRange(w.dstNum, w.dstStep);
    return [
      w.srcAddr + sl * es,
      w.srcAddr + (sh + 1) * es,
      w.dstAddr + dl * es,
      w.dstAddr + (dh + 1) * es,
    ];
  }
  const rowSpan = (w.type === 'indirect' ? w.rowElems : w.rowElems) - 1;
  const idxSide = (step: number): [number, number] => {
    const a = idxMin * step;
    const b = idxMax * step;
    return [Math.min(a, b), Math.max(a, b)];
  };
  const seqSide = (step: number): [number, number] => {
    const a = (w.numIdx - 1) * step;
    return [Math.min(0, a), Math.max(0, a)];
  };
  if (w.type === 'indirect') {
    const gather = w.side === IndirectSide.GATHER;
    const [sl, sh] = gather ? idxSide(w.srcStep) : seqSide(w.srcStep);
    const [dl, dh] = gather ? seqSide(w.dstStep) : idxSide(w.dstStep);
    return [
      w.srcAddr + sl * es,
      w.srcAddr + (sh + rowSpan + 1) * es,
      w.dstAddr + dl * es,
      w.dstAddr + (dh + rowSpan + 1) * es,
    ];
  }
  const [sl, sh] = idxSide(w.srcStep);
  const [dl, dh] = nestRange([w.numIdx, w.rowElems], [1, w.dstStep]);
  return [
    w.srcAddr + sl * es,
    w.srcAddr + (sh + rowSpan + 1) * es,
    w.dstAddr + dl * es,
    w.dstAddr + (dh + 1) * es,
  ];
}

/** Smallest and largest element offset of a nest. */
export function nestRange(nums: readonly number[], steps: readonly number[]): [number, number] {
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < nums.length; k++) {
    const span = steps[k] * (nums[k] - 1);
    if (span < 0) lo += span;
    else hi += span;
  }
  return [lo, hi];
}
