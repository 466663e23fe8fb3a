/**
 * The shape of a copy's two access patterns: what fixes how a copy between them walks, apart
 * from where it starts. Two patterns with their partition dims, free dims and element size
 * equal walk the same element offsets from their first elements, so anything computed from the
 * walk relative to its start (the lowering's host plan, the interpreter's stretch list) holds
 * for every copy of the same pair shape. The free arrays are compared by identity: patterns
 * interned in one module (ApShapes) share one frozen free array per shape, so identity is
 * equality there, and a pattern that was not interned simply never matches another's entry.
 */
import type { AccessPattern } from './access-pattern.ts';

export class PairShape {
  readonly srcFree: readonly number[];
  readonly dstFree: readonly number[];
  readonly srcPartStep: number;
  readonly srcPartNum: number;
  readonly dstPartStep: number;
  readonly dstPartNum: number;
  readonly elemSize: number;

  constructor(src: AccessPattern, dst: AccessPattern, elemSize: number) {
    this.srcFree = src.free;
    this.dstFree = dst.free;
    this.srcPartStep = src.partStep;
    this.srcPartNum = src.partNum;
    this.dstPartStep = dst.partStep;
    this.dstPartNum = dst.partNum;
    this.elemSize = elemSize;
  }

  /** True when `src` -> `dst` with elements of `elemSize` bytes has exactly this shape. */
  fits(src: AccessPattern, dst: AccessPattern, elemSize: number): boolean {
    return (
      src.free === this.srcFree &&
      dst.free === this.dstFree &&
      src.partStep === this.srcPartStep &&
      src.partNum === this.srcPartNum &&
      dst.partStep === this.dstPartStep &&
      dst.partNum === this.dstPartNum &&
      elemSize === this.elemSize
    );
  }
}
