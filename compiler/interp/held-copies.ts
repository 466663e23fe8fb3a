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
