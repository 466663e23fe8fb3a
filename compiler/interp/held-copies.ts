/**
 * Copies the interpreter holds back to move several DMAs' bytes in one byte copy: a program that
 * writes a tensor tile after tile issues one small copy per tile, and the next tile's copy
 * continues the last one on both sides. A held copy moves `len` bytes from arena offset `src` to
 * `dst` (the two ranges disjoint, so moving it at once leaves what moving it element by element
 * leaves).
 *
 * The held copies are pairwise independent: none writes a byte another one reads or writes. So
 * moving them later, in any order, leaves the bytes moving each when its DMA ran leaves, as long
 * as nothing in between reads or writes their bytes. A new copy that continues a held one on both
 * sides joins it when the joined copy stays disjoint and independent of the others. A new copy
 * that repeats part of a held one (its bytes at the same distance from their destination) moves
 * nothing more: held copies change neither side, so it would write what that one writes, and its
 * destination is marked when that one is moved. One independent of all of them is held beside
 * them; any other first moves every held copy. Whoever reads or writes the image otherwise
 * (another kind of DMA, the end of the run, a reader of the image) moves them first (`flush`).
 */
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Tensor } from '../ir/module.ts';
import type { WrittenMarks } from './marks.ts';

/** Copies held at most at once. */
const SLOTS = 4;

/** Whether [a, a + n) and [b, b + m) share a byte. */
function overlaps(a: number, n: number, b: number, m: number): boolean {
  return a < b + m && b < a + n;
}

export class HeldCopies {
  private n = 0;
  private readonly src = new Float64Array(SLOTS);
  private readonly dst = new Float64Array(SLOTS);
  private readonly len = new Float64Array(SLOTS);
  /** The written mask of each held copy's destination region, and where the copy starts in it. */
  private readonly mask: (Uint8Array | null)[] = new Array<Uint8Array | null>(SLOTS).fill(null);
  private readonly maskAt = new Float64Array(SLOTS);

  /** `arena`: the byte array the offsets are in; `marks`: where moved bytes are marked written. */
  constructor(
    private readonly arena: Uint8Array,
    private readonly marks: WrittenMarks,
  ) {}

  /** Copies held now. */
  get size(): number {
    return this.n;
  }

  /**
   * Holds a copy of `len` bytes from `src` to `dst` (disjoint ranges) whose destination starts at
   * byte `maskAt` of the region whose written mask is `mask`.
   */
  add(src: number, dst: number, len: number, mask: Uint8Array, maskAt: number): void {
    const n = this.n;
    const S = this.src;
    const D = this.dst;
    const L = this.len;
    let join = -1;
    let free = true; // independent of every held copy
    for (let i = 0; i < n; i++) {
      const l = L[i];
      const at = src - S[i];
      if (at >= 0 && at + len <= l && D[i] + at === dst && this.mask[i] === mask) {
        // a repeat of part of a held copy: moving that part again leaves the bytes it leaves
        return;
      }
      if (join < 0 && S[i] + l === src && D[i] + l === dst && this.mask[i] === mask) {
        // the joined copy: [S[i], src + len) to [D[i], dst + len), its two ranges disjoint
        if (!overlaps(S[i], l + len, D[i], l + len)) {
          join = i;
          continue;
        }
      }
      if (overlaps(dst, len, S[i], l) || overlaps(dst, len, D[i], l) || overlaps(src, len, D[i], l))
        free = false;
    }
    if (free && join >= 0) {
      L[join] += len;
      return;
    }
    if (!free || n === SLOTS) this.flush();
    const k = this.n++;
    S[k] = src;
    D[k] = dst;
    L[k] = len;
    this.mask[k] = mask;
    this.maskAt[k] = maskAt;
  }

  /** Moves every held copy (and marks its bytes written). */
  flush(): void {
    const a = this.arena;
    for (let i = 0; i < this.n; i++) {
      const s = this.src[i];
      const l = this.len[i];
      a.copyWithin(this.dst[i], s, s + l);
      const at = this.maskAt[i];
      this.marks.mark(this.mask[i]!, at, at + l);
      this.mask[i] = null;
    }
    this.n = 0;
  }
}

/** HoldPairs has 2^PAIR_BITS slots. */
const PAIR_BITS = 5;
const PAIRS = 1 << PAIR_BITS;

/**
 * What holding a copy needs of its two patterns that does not depend on where they start, kept per
 * pair of patterns that holds a copy: the two tensors and the pattern dims (compared in full, so a
 * hit is exact: the copy plan, the regions and the element count are functions of them), and
 * where element 0 of each walk's one stretch lies in the arena (`at`), the arena offsets between
 * which the stretch lies inside its region (`lo`, `hi`: its start at most `hi`), the region's
 * index and where that region starts in the arena. A DMA of a pair held here holds its copy from
 * its two first elements alone.
 */
export class HoldPairs {
  private readonly srcT: (Tensor | null)[] = new Array<Tensor | null>(PAIRS).fill(null);
  private readonly dstT: (Tensor | null)[] = new Array<Tensor | null>(PAIRS).fill(null);
  private readonly srcFree: (readonly number[] | null)[] = new Array(PAIRS).fill(null);
  private readonly dstFree: (readonly number[] | null)[] = new Array(PAIRS).fill(null);
  /** Per slot: src partStep, partNum, dst partStep, partNum. */
  private readonly dims = new Float64Array(PAIRS * 4);
  /** Per slot: src at, lo, hi, dst at, lo, hi, the destination region's arena offset, bytes. */
  readonly geo = new Float64Array(PAIRS * 8);
  /** Per slot: the destination region's index. */
  readonly dstRegion = new Int32Array(PAIRS);

  /** The slot of a pair of patterns (by their shape ids). */
  slot(src: AccessPattern, dst: AccessPattern): number {
    return Math.imul(src.shapeId * 31 + dst.shapeId, 0x9e3779b1) >>> (32 - PAIR_BITS);
  }

  /** True when slot `k` holds the pair of `src` and `dst`. */
  holds(k: number, src: AccessPattern, dst: AccessPattern): boolean {
    const d = this.dims;
    const b = k * 4;
    return (
      this.srcT[k] === src.tensor &&
      this.dstT[k] === dst.tensor &&
      this.srcFree[k] === src.free &&
      this.dstFree[k] === dst.free &&
      d[b] === src.partStep &&
      d[b + 1] === src.partNum &&
      d[b + 2] === dst.partStep &&
      d[b + 3] === dst.partNum
    );
  }

  /** Keeps the pair of `src` and `dst` in slot `k` (its geometry written to `geo` after). */
  keep(k: number, src: AccessPattern, dst: AccessPattern, dstRegion: number): void {
    this.srcT[k] = src.tensor;
    this.dstT[k] = dst.tensor;
    this.srcFree[k] = src.free;
    this.dstFree[k] = dst.free;
    const d = this.dims;
    d[k * 4] = src.partStep;
    d[k * 4 + 1] = src.partNum;
    d[k * 4 + 2] = dst.partStep;
    d[k * 4 + 3] = dst.partNum;
    this.dstRegion[k] = dstRegion;
  }
}
