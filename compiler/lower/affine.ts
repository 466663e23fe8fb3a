/**
 * The affine part of lowerDma (seed 004 §3.1-§3.4, §4.1): a DMA with no indexed side. Both access
 * patterns become canonical shapes, paired into one loop nest, split to fit the backend, and each
 * piece of the split becomes either a host-built walk (backend none) or one descriptor program:
 * the micro-op stream of its DMA channel and the 2-D descriptors it builds (emit.ts). A cross-bar
 * transpose's descriptors are held to the xbar rules.
 */
import { hex } from '../../common/errors.ts';
import { GATHER_XPOSE_RULES, type DgeDescriptor } from '../../csr/formats/dge-desc.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import { DstReduce, TransposeKind } from '../ir/enums.ts';
import type { Instr } from '../ir/module.ts';
import { BACKEND_DIMS, type Backend } from './backend.ts';
import {
  ROW_DST_ADDR,
  ROW_SRC_ADDR,
  lowerError,
  type DmaBuild,
  type HostPlan,
  type HostWalk,
  type LowerCtx,
} from './context.ts';
import { countPieces, walkRanges, type AffineWalk } from './expand.ts';
import { COMPUTE_OP, nestDescriptors, nestMicroOps } from './emit.ts';
import {
  DGE_SHAPE_DEPTH,
  apShape,
  buildNest,
  splitNest,
  type Nest,
  type NestLimits,
} from './shape.ts';

/** RTL_DIMS: the loop dims of an RTL descriptor program (the 5 of "5 + 2", seed 004 §3.4/§4.1). */
export const RTL_NEST_DIMS = 5;

/** The deepest loop nest one descriptor program of a DGE backend may hold. */
export function nestDepth(backend: Backend): number {
  return backend === 'rtl' ? RTL_NEST_DIMS : Math.min(DGE_SHAPE_DEPTH, BACKEND_DIMS[backend]);
}

/** Host-built transfers: the nest is walked as it is, only the piece count bounds it. */
const HOST_LIMITS = { maxDepth: Infinity, fieldLimits: false, unpairedBelow: Infinity };

/** Lowers an affine DMA `I` (src -> dst of `elemSize`-byte elements) into `b`. */
export function lowerAffine(
  b: DmaBuild,
  I: Instr,
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
): void {
  if (!b.dge) {
    lowerHost(b, src, dst, elemSize);
    return;
  }
  const ss = apShape(src);
  const ds = apShape(dst);
  const nest = buildNest(
    ss,
    ds,
    elemSize,
    src.tensor.address + ss.baseElem * elemSize,
    dst.tensor.address + ds.baseElem * elemSize,
  );
  const maxNests = b.ctx.maxNests;
  const transpose = I.transpose !== TransposeKind.none;
  const xbar = I.transpose === TransposeKind.xbar;
  // Pool and software walk the nest through the 4-deep dge_shape ($S registers); RTL expands
  // "the 5 + 2-dim form" in hardware (seed 004 §4.1), so an RTL program keeps 5 dims.
  const limits: NestLimits = {
    maxDepth: nestDepth(b.backend),
    fieldLimits: true,
    unpairedBelow: transpose ? 0 : 2,
    maxNests,
  };
  const nests: Nest[] = [];
  splitNest(nest, limits, nests);
  const ec = b.ec;
  for (const n of nests) {
    b.nextChannel();
    const descs = nestDescriptors(ec, n, transpose);
    if (ec.computeOp !== COMPUTE_OP[DstReduce.none]) for (const x of descs) b.addReduce(x);
    if (xbar) for (const d of descs) xbarCheck(b.label, d);
    b.addStream(b.ctx.keep ? nestMicroOps(ec, n, BACKEND_DIMS[b.backend]) : [], n, descs);
  }
}

/**
 * A host-built transfer (backend none): the nest is walked as it is, only the piece count bounds
 * it. The walks depend on the two access patterns' dims and the element size only, the addresses
 * aside, so they are planned once per shape (hostPlanFor) and moved to each DMA's addresses.
 */
function lowerHost(b: DmaBuild, src: AccessPattern, dst: AccessPattern, elemSize: number): void {
  b.plan = hostPlanFor(b.ctx, src, dst, elemSize);
  b.planSrc = startAddress(src, elemSize);
  b.planDst = startAddress(dst, elemSize);
  // the walks are the plan's moved to these addresses (DmaBuild.addPlanWalks, when kept)
}

/** The host plan of a pair of access patterns, planned on first use (ctx.hostPlans). */
export function hostPlanFor(
  ctx: LowerCtx,
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
): HostPlan {
  const plans = ctx.hostPlans;
  let plan = plans.get(src, dst, elemSize);
  if (plan === undefined) {
    plan = hostPlan(src, dst, elemSize, ctx.maxNests);
    plans.set(src, dst, elemSize, plan);
  }
  return plan;
}

/** The byte address of the element an access pattern starts at: a host plan's address 0. */
export function startAddress(ap: AccessPattern, elemSize: number): number {
  return ap.tensor.address + baseElem(ap) * elemSize;
}

/**
 * A DMA's two start addresses (startAddress of each side) into slots ROW_SRC_ADDR and
 * ROW_DST_ADDR of a row's ranges: stored, not returned (an address returned as a number by a call
 * that is not inlined is boxed, one heap number per DMA).
 */
export function putStartAddresses(
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
  row: Float64Array,
): void {
  row[ROW_SRC_ADDR] = src.tensor.address + baseElem(src) * elemSize;
  row[ROW_DST_ADDR] = dst.tensor.address + baseElem(dst) * elemSize;
}

/** The host plan of a pair of access patterns: their nest at addresses 0, its BD counts and ranges. */
function hostPlan(
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
  maxNests: number,
): HostPlan {
  const nests: Nest[] = [];
  splitNest(
    buildNest(apShape(src), apShape(dst), elemSize, 0, 0),
    { ...HOST_LIMITS, maxNests },
    nests,
  );
  const walks = nests.map((n) => {
    // ranges relative to the walk's own addresses
    const w: AffineWalk = {
      type: 'affine',
      elemSize,
      srcAddr: 0,
      dstAddr: 0,
      srcNum: n.srcNum,
      srcStep: n.srcStep,
      dstNum: n.dstNum,
      dstStep: n.dstStep,
    };
    const [srcLo, srcHi, dstLo, dstHi] = walkRanges(w);
    return {
      srcOff: n.srcAddr,
      dstOff: n.dstAddr,
      srcNum: n.srcNum,
      srcStep: n.srcStep,
      dstNum: n.dstNum,
      dstStep: n.dstStep,
      srcLo,
      srcHi,
      dstLo,
      dstHi,
      count: countPieces(w),
    };
  });
  let total = 0;
  let maxCount = 0;
  for (const w of walks) {
    total += w.count;
    if (w.count > maxCount) maxCount = w.count;
  }
  return {
    elemSize,
    walks,
    counts: Object.freeze(walks.map((w) => w.count)),
    total,
    maxCount,
    hull: planHull(walks),
  };
}

/** A plan's `hull` (context.ts HostPlan): its walks' ranges moved by their offsets, or null. */
export function planHull(walks: readonly HostWalk[]): Float64Array | null {
  const h = new Float64Array([Infinity, -Infinity, Infinity, -Infinity]);
  for (const w of walks) {
    for (const x of [w.srcOff, w.dstOff, w.srcLo, w.srcHi, w.dstLo, w.dstHi])
      if (!Number.isInteger(x) || Math.abs(x) > HULL_EXACT) return null;
    h[0] = Math.min(h[0], w.srcOff + w.srcLo);
    h[1] = Math.max(h[1], w.srcOff + w.srcHi);
    h[2] = Math.min(h[2], w.dstOff + w.dstLo);
    h[3] = Math.max(h[3], w.dstOff + w.dstHi);
  }
  return walks.length > 0 ? h : null;
}

/** The largest offset or range a plan's hull is kept for (2^50: see HostPlan.hull). */
const HULL_EXACT = 2 ** 50;

/** The element an access pattern starts at (apShape's baseElem). */
function baseElem(ap: AccessPattern): number {
  return ap.offset + (ap.scalarOffset ? ap.scalarOffset.value : 0);
}

/** The cross-bar rules on a DIRECT2D_XPOSE (2-byte dtype, 32-byte aligned destination, 16-row tiles). */
function xbarCheck(lab: string, d: DgeDescriptor): void {
  if (d.kind !== 'DIRECT2D_XPOSE') return;
  const r = GATHER_XPOSE_RULES;
  if (d.elem_size !== r.elemSize) {
    throw lowerError(
      lab,
      `xbar transpose of ${d.elem_size}-byte elements: only 2-byte dtypes (BF16/FP16)`,
      '2-byte elements',
      d.elem_size,
    );
  }
  if (d.dst_addr % r.dstAlign !== 0) {
    throw lowerError(
      lab,
      `xbar transpose destination ${hex(d.dst_addr)} is not 32-byte aligned`,
      '32-byte aligned destination',
      hex(d.dst_addr),
    );
  }
  if (d.src_num_elem[1] % r.tileRows !== 0) {
    throw lowerError(
      lab,
      `xbar transpose of ${d.src_num_elem[1]} source rows: the xbar moves 16 x 128 tiles (rows a multiple of 16)`,
      'a multiple of 16 source rows',
      d.src_num_elem[1],
    );
  }
}
