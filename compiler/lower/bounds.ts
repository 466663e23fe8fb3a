/**
 * The bound layers of lowerDma (seed 004 §6), after its descriptor programs are built: each walk's
 * BD count (with the DMA's packet byte size), bound layer 3 (a descriptor program fits a ring; a
 * DGE DMA's descriptors fit the carveout, MEMCOPY_CARVEOUT_CFG) and bound layer 1 (every byte a
 * walk can touch, for the index tensor's values, lies inside its tensor's declared region). Bound
 * layer 2 (equal byte counts on both sides) is checked before anything is built (lower.ts). The
 * byte ranges found here are the DMA's hazard ranges in the flow.
 */
import { hex } from '../../common/errors.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Tensor } from '../ir/module.ts';
import { lowerError, type DmaBuild } from './context.ts';
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
  const walks = b.walks;
  const plan = packetBytes === 0 ? b.plan : null;
  // a host plan's counts serve every DMA of its shape (shared, read-only)
  const pieces: number[] = plan !== null ? (plan.counts as number[]) : new Array(walks.length);
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
  const nWalks = plan !== null ? plan.walks.length : walks.length;
  for (let k = 0; k < nWalks; k++) {
    const n = plan !== null ? plan.counts[k] : countPieces(walks[k], packetBytes);
    if (n > ctx.ringSize) {
      throw lowerError(
        b.label,
        `bound layer 3: a descriptor program of ${n} descriptors does not fit a ring of ${ctx.ringSize}`,
        `<= ${ctx.ringSize} descriptors per program`,
        n,
      );
    }
    if (plan === null) pieces[k] = n;
    total += n;
    let sl: number, sh: number, dl: number, dh: number;
    if (plan !== null) {
      // the plan's ranges, moved to the walk's addresses
      const pw = plan.walks[k];
      const ws = b.planSrc + pw.srcOff;
      const wd = b.planDst + pw.dstOff;
      sl = ws + pw.srcLo;
      sh = ws + pw.srcHi;
      dl = wd + pw.dstLo;
      dh = wd + pw.dstHi;
    } else {
      [sl, sh, dl, dh] = walkRanges(walks[k], iMin, iMax);
    }
    if (
      sl < sReg.base ||
      sh > sReg.base + sReg.size ||
      dl < dReg.base ||
      dh > dReg.base + dReg.size
    ) {
      const sOk = sl >= sReg.base && sh <= sReg.base + sReg.size ? 1 : 0;
      const dOk = dl >= dReg.base && dh <= dReg.base + dReg.size ? 1 : 0;
      throw lowerError(
        b.label,
        `bound layer 1: bounds:(${sOk} ${hex(sh)}<=${hex(sReg.base + sReg.size)}, ${dOk} ${hex(dh)}<=${hex(dReg.base + dReg.size)}): ` +
          `source ${hex(sl)}..${hex(sh)} in region "${sReg.name}" (${hex(sReg.base)}..${hex(sReg.base + sReg.size)}), ` +
          `destination ${hex(dl)}..${hex(dh)} in region "${dReg.name}" (${hex(dReg.base)}..${hex(dReg.base + dReg.size)})`,
        'every source and destination byte inside its declared region',
        { src: [hex(sl), hex(sh)], dst: [hex(dl), hex(dh)] },
      );
    }
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
