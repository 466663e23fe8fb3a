/**
 * The bound layers of lowerDma (seed 004 §6), after its descriptor programs are built: each walk's
 * BD count (with the DMA's packet byte size), bound layer 3 (a descriptor program fits a ring; a
 * DGE DMA's descriptors fit the carveout, MEMCOPY_CARVEOUT_CFG) and bound layer 1 (every byte a
 * walk can touch, for the index tensor's values, lies inside its tensor's declared region). Bound
 * layer 2 (equal byte counts on both sides) is checked before anything is built (lower.ts). The
 * byte ranges found here are the DMA's hazard ranges in the flow.
 */
import { hex, type NxdmaError } from '../../common/errors.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Instr, Region, Tensor } from '../ir/module.ts';
import {
  ROW_DST_ADDR,
  ROW_SRC_ADDR,
  dmaLabel,
  lowerError,
  type DmaBuild,
  type HostPlan,
  type LowerCtx,
} from './context.ts';
import { countPieces, walkRanges } from './expand.ts';
import { indexRange } from './indexed.ts';

/**
 * Counts the BD pairs of every walk of `b` and checks bound layers 3 and 1; sets `b.pieces`,
 * `b.total` and the byte ranges (the index tensor, `sIdx` of the source or `dIdx` of the
 * destination, is read by the DMA: it is part of the source range). Throws LOWER_ERROR.
 */
export function checkBounds(
  b: DmaBuild,
  src: AccessPattern,
  dst: AccessPattern,
  sIdx: Tensor | null,
  dIdx: Tensor | null,
  packetBytes: number,
): void {
  const ctx = b.ctx;
  const plan = packetBytes === 0 ? b.plan : null;
  if (plan !== null) {
    // a host plan's counts serve every DMA of its shape (shared, read-only)
    const r = ctx.ranges;
    r[ROW_SRC_ADDR] = b.planSrc;
    r[ROW_DST_ADDR] = b.planDst;
    b.total = checkPlanBounds(ctx, b.instr, plan, src, dst, r);
    b.pieces = plan.counts as number[];
    b.srcLo = r[0];
    b.srcHi = r[1];
    b.dstLo = r[2];
    b.dstHi = r[3];
    return;
  }
  const walks = b.walks;
  const pieces: number[] = new Array(walks.length);
  let total = 0;
  let srcLo = Infinity;
  let srcHi = -Infinity;
  let dstLo = Infinity;
  let dstHi = -Infinity;
  const idxT = sIdx ?? dIdx;
  let iMin = 0;
  let iMax = 0;
  if (idxT) [iMin, iMax] = indexRange(idxT, (sIdx ? src : dst).partNum);
  const sReg = src.tensor.region;
  const dReg = dst.tensor.region;
  for (let k = 0; k < walks.length; k++) {
    const n = countPieces(walks[k], packetBytes);
    checkRing(ctx, b.instr, n);
    pieces[k] = n;
    total += n;
    const [sl, sh, dl, dh] = walkRanges(walks[k], iMin, iMax);
    checkRegions(b.instr, sl, sh, dl, dh, sReg, dReg);
    if (sl < srcLo) srcLo = sl;
    if (sh > srcHi) srcHi = sh;
    if (dl < dstLo) dstLo = dl;
    if (dh > dstHi) dstHi = dh;
  }
  if (b.dge && total > ctx.carveout) {
    throw lowerError(
      b.label,
      `bound layer 3: the DMA needs ${total} descriptors, more than the ${ctx.carveout} of the DGE carveout (MEMCOPY_CARVEOUT_CFG)`,
      `<= ${ctx.carveout} descriptors per memcopy`,
      total,
    );
  }
  if (idxT !== null) {
    // the index tensor is read by the DMA as well
    if (idxT.address < srcLo) srcLo = idxT.address;
    if (idxT.address + idxT.byteSize > srcHi) srcHi = idxT.address + idxT.byteSize;
  }
  b.pieces = pieces;
  b.total = total;
  b.srcLo = srcLo;
  b.srcHi = srcHi;
  b.dstLo = dstLo;
  b.dstHi = dstHi;
}

/**
 * Bound layers 3 and 1 of DMA `I` whose walks are host plan `plan` moved to the start addresses
 * in `out` (slots ROW_SRC_ADDR and ROW_DST_ADDR; a host-built transfer counted without a packet
 * byte size: the plan's counts are its BD counts). Writes the DMA's byte ranges [srcLo, srcHi,
 * dstLo, dstHi] to `out` (slots 0..3) and returns its BD pairs. Throws LOWER_ERROR.
 */
export function checkPlanBounds(
  ctx: LowerCtx,
  I: Instr,
  plan: HostPlan,
  src: AccessPattern,
  dst: AccessPattern,
  out: Float64Array,
): number {
  const srcAddr = out[ROW_SRC_ADDR];
  const dstAddr = out[ROW_DST_ADDR];
  const sReg = src.tensor.region;
  const dReg = dst.tensor.region;
  // The plan's hull at once: every walk's program fits a ring and lies in its regions exactly
  // when its largest count does and its hull does (each sum below exact: integers under 2^53).
  const h = plan.hull;
  if (
    h !== null &&
    plan.maxCount <= ctx.ringSize &&
    Number.isInteger(srcAddr) &&
    Number.isInteger(dstAddr) &&
    Math.abs(srcAddr) <= START_EXACT &&
    Math.abs(dstAddr) <= START_EXACT
  ) {
    const sl = srcAddr + h[0];
    const sh = srcAddr + h[1];
    const dl = dstAddr + h[2];
    const dh = dstAddr + h[3];
    if (inRegion(sl, sh, sReg) && inRegion(dl, dh, dReg)) {
      out[0] = sl;
      out[1] = sh;
      out[2] = dl;
      out[3] = dh;
      return plan.total;
    }
  }
  // walk by walk: the first walk that does not fit throws its error
  let total = 0;
  let srcLo = Infinity;
  let srcHi = -Infinity;
  let dstLo = Infinity;
  let dstHi = -Infinity;
  const counts = plan.counts;
  const walks = plan.walks;
  for (let k = 0; k < walks.length; k++) {
    const n = counts[k];
    checkRing(ctx, I, n);
    total += n;
    // the plan's ranges, moved to the walk's addresses
    const pw = walks[k];
    const ws = srcAddr + pw.srcOff;
    const wd = dstAddr + pw.dstOff;
    const sl = ws + pw.srcLo;
    const sh = ws + pw.srcHi;
    const dl = wd + pw.dstLo;
    const dh = wd + pw.dstHi;
    if (!inRegion(sl, sh, sReg) || !inRegion(dl, dh, dReg))
      checkRegions(I, sl, sh, dl, dh, sReg, dReg);
    if (sl < srcLo) srcLo = sl;
    if (sh > srcHi) srcHi = sh;
    if (dl < dstLo) dstLo = dl;
    if (dh > dstHi) dstHi = dh;
  }
  out[0] = srcLo;
  out[1] = srcHi;
  out[2] = dstLo;
  out[3] = dstHi;
  return total;
}

/** The largest start address checkPlanBounds moves a plan's hull to (2^51: see HostPlan.hull). */
const START_EXACT = 2 ** 51;

/** Bound layer 3: a descriptor program of `n` BD pairs fits a ring. */
function checkRing(ctx: LowerCtx, I: Instr, n: number): void {
  if (n > ctx.ringSize) {
    throw lowerError(
      dmaLabel(I),
      `bound layer 3: a descriptor program of ${n} descriptors does not fit a ring of ${ctx.ringSize}`,
      `<= ${ctx.ringSize} descriptors per program`,
      n,
    );
  }
}

/**
 * A byte range [lo, hi) lies inside region `r` (small enough that the optimizing compiler inlines it
 * wherever it is called, so no address is boxed to pass it).
 */
function inRegion(lo: number, hi: number, r: Region): boolean {
  return lo >= r.base && hi <= r.base + r.size;
}

/**
 * Bound layer 1: a walk's source range [sl, sh) lies in `sReg` and its destination range in `dReg`
 * (checkPlanBounds tests inRegion itself and calls this for the error only: the four addresses,
 * passed as numbers to a call that is not inlined, would each be boxed for every DMA).
 */
function checkRegions(
  I: Instr,
  sl: number,
  sh: number,
  dl: number,
  dh: number,
  sReg: Region,
  dReg: Region,
): void {
  if (!inRegion(sl, sh, sReg) || !inRegion(dl, dh, dReg))
    throw regionError(I, [sl, sh, dl, dh], sReg, dReg);
}

/** The bound layer 1 error of walk ranges [sl, sh, dl, dh]. */
function regionError(I: Instr, ranges: number[], sReg: Region, dReg: Region): NxdmaError {
  const [sl, sh, dl, dh] = ranges;
  const sOk = inRegion(sl, sh, sReg) ? 1 : 0;
  const dOk = inRegion(dl, dh, dReg) ? 1 : 0;
  return lowerError(
    dmaLabel(I),
    `bound layer 1: bounds:(${sOk} ${hex(sh)}<=${hex(sReg.base + sReg.size)}, ${dOk} ${hex(dh)}<=${hex(dReg.base + dReg.size)}): ` +
      `source ${hex(sl)}..${hex(sh)} in region "${sReg.name}" (${hex(sReg.base)}..${hex(sReg.base + sReg.size)}), ` +
      `destination ${hex(dl)}..${hex(dh)} in region "${dReg.name}" (${hex(dReg.base)}..${hex(dReg.base + dReg.size)})`,
    'every source and destination byte inside its declared region',
    { src: [hex(sl), hex(sh)], dst: [hex(dl), hex(dh)] },
  );
}
