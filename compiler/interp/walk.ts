/**
 * The reference interpreter's walks of an access pattern, exactly as
 * compiler/ir/access-pattern.ts defines them: the byte address of every element it visits in walk
 * order (for p in 0..partNum-1 and each free index tuple, innermost fastest, the element offset +
 * scalar + p' * partStep + sum(i_k * step_k), p' being p or index[p] read from the index tensor),
 * and the same walk as its maximal runs of consecutive addresses.
 */
import type { AccessPattern } from '../ir/access-pattern.ts';
import { decodeElement, type ImageRegion, type MemoryImage } from './memory.ts';

/** The element a pattern's walk starts from: its offset plus the scalar dynamic offset. */
export function firstElement(ap: AccessPattern): number {
  return ap.offset + (ap.scalarOffset ? ap.scalarOffset.value : 0);
}

/** The image region of a pattern's index tensor (vector offset or TensorIndirect), or null. */
export function indexRegionOf(ap: AccessPattern, image: MemoryImage): ImageRegion | null {
  const idxT = ap.vectorOffset ? ap.vectorOffset.indexTensor : ap.indirect;
  return idxT ? image.region(idxT.address, ap.partNum * idxT.elemSize) : null;
}

/** Partition coordinate p as the walk uses it: p, or index[p] read from the index region. */
function partCoord(ap: AccessPattern, idxRegion: ImageRegion | null, p: number): number {
  if (idxRegion === null) return p;
  const idxT = ap.vectorOffset ? ap.vectorOffset.indexTensor : ap.indirect!;
  return decodeElement(
    idxT.dtype,
    idxRegion.bytes,
    idxT.address - idxRegion.base + p * idxT.elemSize,
  );
}

/**
 * The byte address of every element an access pattern visits, in walk order, into `out`.
 * Index values are read from `image` when the pattern has them.
 */
export function elementAddresses(ap: AccessPattern, image: MemoryImage, out: Float64Array): void {
  const t = ap.tensor;
  const es = t.elemSize;
  const base = firstElement(ap);
  const idxRegion = indexRegionOf(ap, image);
  const free = ap.free;
  const nFree = free.length >> 1;
  const counters = new Array<number>(nFree).fill(0);
  let n = 0;
  for (let p = 0; p < ap.partNum; p++) {
    const rowBase = base + partCoord(ap, idxRegion, p) * ap.partStep;
    counters.fill(0);
    for (;;) {
      let e = rowBase;
      for (let k = 0; k < nFree; k++) e += counters[k] * free[2 * k];
      out[n++] = t.address + e * es;
      // odometer: the last free dim is the innermost
      let k = nFree - 1;
      for (; k >= 0; k--) {
        if (++counters[k] < free[2 * k + 1]) break;
        counters[k] = 0;
      }
      if (k < 0) break;
    }
  }
}

/** The odometer of elementRuns' outer free dims (reused: elementRuns does not nest). */
let rowCounters = new Float64Array(4);

/**
 * The maximal runs of an access pattern's walk, in walk order: run r starts at byte address
 * `addr[r]` and holds `len[r]` elements at consecutive addresses (element k + 1 of a run lies
 * right after element k; the next run's first element does not). The same walk as
 * elementAddresses, one innermost row at a time. Returns the number of runs.
 */
export function elementRuns(
  ap: AccessPattern,
  image: MemoryImage,
  addr: Float64Array,
  len: Float64Array,
): number {
  const origin = ap.tensor.address + firstElement(ap) * ap.tensor.elemSize;
  return runsFrom(ap, origin, indexRegionOf(ap, image), addr, len);
}

/**
 * elementRuns with every address `origin` plus the element's byte offset from the walk's first
 * element (p' * partStep + sum(i_k * step_k), times the element size).
 */
export function runsFrom(
  ap: AccessPattern,
  origin: number,
  idxRegion: ImageRegion | null,
  addr: Float64Array,
  len: Float64Array,
): number {
  const free = ap.free;
  const nFree = free.length >> 1;
  const es = ap.tensor.elemSize;
  // the innermost dim is walked as one row; the outer ones (nOuter of them) by an odometer
  const rowStep = nFree > 0 ? free[2 * nFree - 2] : 0;
  const rowNum = nFree > 0 ? free[2 * nFree - 1] : 1;
  const nOuter = nFree > 0 ? nFree - 1 : 0;
  if (rowCounters.length < nOuter) rowCounters = new Float64Array(nOuter);
  const counters = rowCounters;
  let n = -1;
  let next = NaN; // the address that would continue run n
  for (let p = 0; p < ap.partNum; p++) {
    const rowBase = partCoord(ap, idxRegion, p) * ap.partStep;
    if (nOuter > 0) counters.fill(0, 0, nOuter);
    for (;;) {
      let e = rowBase;
      for (let k = 0; k < nOuter; k++) e += counters[k] * free[2 * k];
      let a = origin + e * es;
      if (rowStep === 1 && rowNum > 0) {
        // a row of step 1 is one run of rowNum elements (or continues the last one)
        if (a === next) len[n] += rowNum;
        else {
          addr[++n] = a;
          len[n] = rowNum;
        }
        next = a + rowNum * es;
      } else {
        // at least one element per row, as elementAddresses walks it
        const m = rowNum > 0 ? rowNum : 1;
        for (let j = 0; j < m; j++, a += rowStep * es) {
          if (a === next) len[n]++;
          else {
            addr[++n] = a;
            len[n] = 1;
          }
          next = a + es;
        }
      }
      let k = nOuter - 1;
      for (; k >= 0; k--) {
        if (++counters[k] < free[2 * k + 1]) break;
        counters[k] = 0;
      }
      if (k < 0) break;
    }
  }
  return n + 1;
}
