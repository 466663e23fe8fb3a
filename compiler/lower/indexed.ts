/**
 * The indexed-row part of lowerDma (seed 004 §5.3-§5.4, §7.1): a DMA whose source (gather) or
 * destination (scatter) is indexed by a tensor of row numbers. The indexed side's free dims are
 * its rows; the direct side walks the rows as its outermost dimension. Each run of a row becomes
 * an INDIRECT1D descriptor program (or, for the host, an indirect walk); a gather transpose is one
 * GATHER_XPOSE descriptor held to its constraints. The index values a channel program's GENERATEs
 * name come from the index tensor's initial values (index tensors are read-only).
 */
import {
  GATHER_XPOSE_RULES,
  IndirectSide,
  gatherXposeProblem,
  type DgeDescriptor,
} from '../../csr/formats/dge-desc.ts';
import type { MicroOp } from '../../csr/formats/dge-ops.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Tensor } from '../ir/module.ts';
import { BACKEND_DIMS } from './backend.ts';
import { lowerError, type DmaBuild } from './context.ts';
import {
  gatherXposeDescriptor,
  indirectDescriptor,
  indirectMicroOps,
  type IndexedRow,
  type IndirectFields,
} from './emit.ts';
import {
  MAX_DIM_NUM,
  apFreeShape,
  apShape,
  buildNest,
  splitNest,
  splitOuter,
  type Nest,
} from './shape.ts';

/**
 * Lowers an indexed DMA into `b`: `sIdx` indexes the source (a gather), else `dIdx` the
 * destination (a scatter); `gatherXpose` makes the gather a transpose.
 */
export function lowerIndexed(
  b: DmaBuild,
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
  sIdx: Tensor | null,
  dIdx: Tensor | null,
  gatherXpose: boolean,
): void {
  const gather = sIdx !== null;
  const X = gather ? src : dst; // the indexed side
  const Y = gather ? dst : src; // the direct side
  const idxT = (sIdx ?? dIdx)!;
  const numIdx = X.partNum;
  const fx = apFreeShape(X);
  const ys = apShape(Y);
  const sp = splitOuter(ys, numIdx);
  if (sp === null) {
    throw lowerError(
      b.label,
      `indirect DMA: the ${gather ? 'destination' : 'source'} must walk the ${numIdx} index rows as its outermost dimension`,
      `an access pattern whose outer ${numIdx} iterations are equal blocks`,
      Y.dims(),
    );
  }
  const [iMin] = indexRange(idxT, numIdx);
  if (iMin < 0) {
    throw lowerError(
      b.label,
      `index tensor "${idxT.name}" holds ${iMin}: row indices are u32`,
      'indices >= 0',
      iMin,
    );
  }
  const xAddr = X.tensor.address;
  const yAddr = Y.tensor.address + sp.inner.baseElem * elemSize;
  if (gatherXpose && b.dge) {
    const rowElems = fx.nums.length === 0 ? 1 : fx.nums[0];
    const rowOk = fx.nums.length === 0 || (fx.nums.length === 1 && fx.steps[0] === 1);
    const innerOk =
      sp.inner.nums.length === 0 || (sp.inner.nums.length === 1 && sp.inner.nums[0] === rowElems);
    if (!rowOk || !innerOk || (numIdx > 1 && sp.outerStep !== 1)) {
      throw lowerError(
        b.label,
        'gather transpose: each gathered row must be contiguous and land as a destination column (row i, element j at dst + j * stride + i)',
        'source rows [1, row] and a destination walked [1, numIdx] x [stride, row]',
        { src: X.dims(), dst: Y.dims() },
      );
    }
    if (idxT.dtype !== 'uint32') {
      throw lowerError(
        b.label,
        `gather transpose: the index tensor "${idxT.name}" is ${idxT.dtype}`,
        'a UINT32 index tensor',
        idxT.dtype,
      );
    }
    const f: IndirectFields = {
      elemSize,
      side: IndirectSide.GATHER,
      src: xAddr + fx.baseElem * elemSize,
      dst: yAddr,
      idx: idxT.address,
      numIdx,
      rowElems,
      srcStep: X.partStep,
      dstStep: sp.inner.nums.length === 0 ? 1 : sp.inner.steps[0],
      idxLimit: idxLimit(X.tensor, fx.baseElem, rowElems - 1, X.partStep),
    };
    b.nextChannel();
    const d = gatherXposeDescriptor(b.ec, f);
    gatherCheck(b.label, d, idxT);
    b.addStream(indirectOps(b, idxT, f, true), null, [d]);
  } else {
    // rows: pair the indexed side's free dims with the direct side's inner block
    const rowNest = gather
      ? buildNest(fx, sp.inner, elemSize, 0, 0)
      : buildNest(sp.inner, fx, elemSize, 0, 0);
    const runs: Nest[] = [];
    splitNest(
      rowNest,
      { maxDepth: 1, fieldLimits: true, unpairedBelow: 0, maxNests: b.ctx.maxNests },
      runs,
    );
    for (const r of runs) {
      // r: offsets in bytes from the row bases; one contiguous run or single elements
      const len = r.srcNum.length === 0 ? 1 : r.srcNum[0];
      const contiguous = len === 1 || (r.srcStep[0] === 1 && r.dstStep[0] === 1);
      const count = contiguous ? 1 : len;
      for (let e = 0; e < count; e++) {
        const so = r.srcAddr + (contiguous ? 0 : e * r.srcStep[0] * elemSize);
        const dOff = r.dstAddr + (contiguous ? 0 : e * r.dstStep[0] * elemSize);
        const rowElems = contiguous ? len : 1;
        const xo = (gather ? so : dOff) / elemSize; // element offset on the indexed side
        const f: IndirectFields = {
          elemSize,
          side: gather ? IndirectSide.GATHER : IndirectSide.SCATTER,
          src: gather ? xAddr + (fx.baseElem + xo) * elemSize : yAddr + so,
          dst: gather ? yAddr + dOff : xAddr + (fx.baseElem + xo) * elemSize,
          idx: idxT.address,
          numIdx,
          rowElems,
          srcStep: gather ? X.partStep : sp.outerStep,
          dstStep: gather ? sp.outerStep : X.partStep,
          idxLimit: idxLimit(X.tensor, fx.baseElem + xo, rowElems - 1, X.partStep),
        };
        if (rowElems > MAX_DIM_NUM) {
          throw lowerError(
            b.label,
            `a row of ${rowElems} elements exceeds row_num_elem (u16)`,
            `<= ${MAX_DIM_NUM}`,
            rowElems,
          );
        }
        if (b.dge) {
          b.nextChannel();
          b.addStream(indirectOps(b, idxT, f, false), null, [indirectDescriptor(b.ec, f)]);
        } else {
          b.addWalk({
            type: 'indirect',
            elemSize,
            side: f.side,
            srcAddr: f.src,
            dstAddr: f.dst,
            idxAddr: f.idx,
            numIdx,
            rowElems,
            srcStep: f.srcStep,
            dstStep: f.dstStep,
            idxLimit: f.idxLimit,
          });
        }
        if (b.walks.length > b.ctx.maxNests) {
          throw lowerError(
            b.label,
            `more than ${b.ctx.maxNests} descriptor programs`,
            `<= ${b.ctx.maxNests}`,
            b.walks.length,
          );
        }
      }
    }
  }
}

/**
 * The channel program of one indexed row stream (kept only when the records are): one GENERATE
 * per indexed row, its addresses from the index tensor's values (read-only: init).
 */
function indirectOps(b: DmaBuild, idxT: Tensor, f: IndirectFields, xpose: boolean): MicroOp[] {
  if (!b.ctx.keep) return [];
  const idxValues = idxT.init ?? [];
  const rows: IndexedRow[] = [];
  const g = f.side === IndirectSide.GATHER;
  for (let i = 0; i < f.numIdx; i++) {
    const r = idxValues[i] ?? 0;
    rows.push({
      src: f.src + (g ? r : i) * f.srcStep * f.elemSize,
      dst: xpose ? f.dst + i * f.elemSize : f.dst + (g ? i : r) * f.dstStep * f.elemSize,
    });
  }
  return indirectMicroOps(
    b.ec,
    BACKEND_DIMS[b.backend],
    f.elemSize,
    rows,
    f.rowElems,
    xpose ? f.dstStep : 1,
  );
}

/** The smallest and largest of the first `n` index values (index tensors are read-only: init). */
export function indexRange(t: Tensor, n: number): [number, number] {
  const v = t.init;
  if (v === null || v.length < n) return [0, 0];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  return [lo, hi];
}

/** idx_limit: rows at or past it would leave the indexed tensor (0: unchecked, for steps <= 0). */
function idxLimit(t: Tensor, baseElem: number, rowMax: number, step: number): number {
  if (step <= 0) return 0;
  const lim = Math.floor((t.numElements - 1 - baseElem - rowMax) / step) + 1;
  return Math.max(0, Math.min(lim, 0xffffffff));
}

/** The gather-transpose constraints (csr/formats/dge-desc.ts gatherXposeProblem) plus the index dtype. */
function gatherCheck(lab: string, d: DgeDescriptor, idx: Tensor): void {
  if (d.kind !== 'GATHER_XPOSE') return;
  const p = gatherXposeProblem(d);
  if (p) {
    throw lowerError(
      lab,
      `gather transpose: ${p.field} expected ${p.expected}, got ${String(p.actual)}`,
      p.expected,
      p.actual,
    );
  }
  if (idx.elemSize !== GATHER_XPOSE_RULES.indexSize) {
    throw lowerError(
      lab,
      `gather transpose: index tensor "${idx.name}" is ${idx.dtype}`,
      'UINT32 indices',
      idx.dtype,
    );
  }
}
