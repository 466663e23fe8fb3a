/**
 * The written masks of an interpreter run, marked a byte range at a time: a range that touches
 * the last one marked in its mask joins it, and the joined range is filled with 1s when the next
 * range of that mask does not touch it, or at `flush()`. Masks only ever gain 1s, so the masks
 * after the flush are those filling every range at once would leave; consecutive DMAs that write
 * neighbouring bytes (a tensor written tile after tile) cost one fill.
 */
export class WrittenMarks {
  private readonly masks: Uint8Array[] = [];
  private readonly lo: number[] = [];
  private readonly hi: number[] = [];

  /** Marks bytes [lo, hi) of `mask` written (lo < hi). */
  mark(mask: Uint8Array, lo: number, hi: number): void {
    const masks = this.masks;
    let i = 0;
    while (i < masks.length && masks[i] !== mask) i++;
    if (i === masks.length) {
      masks.push(mask);
      this.lo.push(lo);
      this.hi.push(hi);
      return;
    }
    const L = this.lo[i];
    const H = this.hi[i];
    if (lo <= H && L <= hi) {
      if (lo < L) this.lo[i] = lo;
      if (hi > H) this.hi[i] = hi;
      return;
    }
    mask.fill(1, L, H);
    this.lo[i] = lo;
    this.hi[i] = hi;
  }

  /** Fills every range not filled yet. */
  flush(): void {
    const masks = this.masks;
    for (let i = 0; i < masks.length; i++) masks[i].fill(1, this.lo[i], this.hi[i]);
    masks.length = 0;
    this.lo.length = 0;
    this.hi.length = 0;
  }
}
