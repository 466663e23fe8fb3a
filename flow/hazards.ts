/**
 * Ordering between queues. A queue's descriptors run in ring order, so DMAs of one queue keep their
 * program order by themselves; DMAs of different queues run in whatever order the arbiters choose.
 * The program order must still hold where two DMAs on different queues touch the same bytes (one
 * writes what the other reads or writes). The flow runs the program in epochs: a DMA that would
 * race with a DMA of another queue in the current epoch starts a new epoch, and between epochs the
 * device is run until every queue is idle (on hardware the compiler's semaphores do this; the flow
 * waits on the host instead).
 *
 * Each queue keeps the byte ranges its DMAs of the epoch read and write, as a short list of
 * intervals (merged into one span past `MAX_INTERVALS`): a coarser list can only cause an extra
 * epoch, never a missed race.
 */

const MAX_INTERVALS = 32;

/**
 * A queue's byte ranges of one kind: up to MAX_INTERVALS intervals [lo, hi), each range added
 * merged into the first interval it touches, and the span from the lowest lo to the highest hi
 * (no interval overlaps a range the span does not, so the span answers most queries alone).
 */
class Ranges {
  private readonly lo = new Float64Array(MAX_INTERVALS);
  private readonly hi = new Float64Array(MAX_INTERVALS);
  private n = 0;

  /**
   * The span [lowest lo, highest hi) is `span[at]`, `span[at + 1]`: a typed array shared by the
   * queues' ranges (EpochHazards.spans), so a conflict query reads every span from one array (and
   * a double stored into an object field may take a new heap number per store, one into a
   * Float64Array never does).
   */
  constructor(
    private readonly span: Float64Array,
    private readonly at: number,
  ) {
    span[at] = Infinity;
    span[at + 1] = -Infinity;
  }

  add(lo: number, hi: number): void {
    if (hi <= lo) return;
    const L = this.lo;
    const H = this.hi;
    const span = this.span;
    const a = this.at;
    const n = this.n;
    if (lo < span[a]) span[a] = lo;
    if (hi > span[a + 1]) span[a + 1] = hi;
    for (let i = 0; i < n; i++) {
      if (lo <= H[i] && L[i] <= hi) {
        if (lo < L[i]) L[i] = lo;
        if (hi > H[i]) H[i] = hi;
        return;
      }
    }
    if (n < MAX_INTERVALS) {
      L[n] = lo;
      H[n] = hi;
      this.n = n + 1;
      return;
    }
    // one span for everything
    L[0] = span[a];
    H[0] = span[a + 1];
    this.n = 1;
  }

  overlaps(lo: number, hi: number): boolean {
    if (!(lo < this.span[this.at + 1] && this.span[this.at] < hi)) return false;
    const L = this.lo;
    const H = this.hi;
    for (let i = 0, n = this.n; i < n; i++) if (lo < H[i] && L[i] < hi) return true;
    return false;
  }

  clear(): void {
    this.n = 0;
    this.span[this.at] = Infinity;
    this.span[this.at + 1] = -Infinity;
  }
}

/**
 * The byte ranges of DMAs by row, [srcLo, srcHi) read and [dstLo, dstHi) written: the lowering's
 * table columns (compiler/lower/table.ts DmaTable).
 */
export interface RowRanges {
  readonly srcLo: Float64Array;
  readonly srcHi: Float64Array;
  readonly dstLo: Float64Array;
  readonly dstHi: Float64Array;
}

/** Reads and writes of the current epoch, per queue. */
export class EpochHazards {
  private readonly reads: Ranges[];
  private readonly writes: Ranges[];
  private readonly used: Uint8Array;
  /** Per queue q: the span of its reads at 4q, 4q + 1, of its writes at 4q + 2, 4q + 3. */
  private readonly spans: Float64Array;
  /** One row of ranges, for the calls that pass them as numbers. */
  private readonly one: RowRanges = {
    srcLo: new Float64Array(1),
    srcHi: new Float64Array(1),
    dstLo: new Float64Array(1),
    dstHi: new Float64Array(1),
  };

  constructor(queues: number) {
    this.spans = new Float64Array(4 * queues);
    this.reads = Array.from({ length: queues }, (_, q) => new Ranges(this.spans, 4 * q));
    this.writes = Array.from({ length: queues }, (_, q) => new Ranges(this.spans, 4 * q + 2));
    this.used = new Uint8Array(queues);
  }

  /** True when a DMA of `queue` reading [sLo, sHi) and writing [dLo, dHi) races with another queue. */
  conflicts(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): boolean {
    return this.conflictsAt(queue, this.row(sLo, sHi, dLo, dHi), 0);
  }

  /**
   * conflicts() for the DMA of row `d` of `t`: the ranges are read where they are held (numbers
   * passed between functions that are not inlined into each other are boxed, one heap number each).
   */
  conflictsAt(queue: number, t: RowRanges, d: number): boolean {
    const sLo = t.srcLo[d];
    const sHi = t.srcHi[d];
    const dLo = t.dstLo[d];
    const dHi = t.dstHi[d];
    const used = this.used;
    const S = this.spans;
    for (let q = 0; q < used.length; q++) {
      if (q === queue || used[q] === 0) continue;
      // the spans first: a range clear of a span overlaps none of its intervals
      const rLo = S[4 * q];
      const rHi = S[4 * q + 1];
      const wLo = S[4 * q + 2];
      const wHi = S[4 * q + 3];
      if (!(sLo < wHi && wLo < sHi) && !(dLo < wHi && wLo < dHi) && !(dLo < rHi && rLo < dHi))
        continue;
      const w = this.writes[q];
      const r = this.reads[q];
      if (w.overlaps(sLo, sHi)) return true; // read after write
      if (w.overlaps(dLo, dHi)) return true; // write after write
      if (r.overlaps(dLo, dHi)) return true; // write after read
    }
    return false;
  }

  add(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): void {
    this.addAt(queue, this.row(sLo, sHi, dLo, dHi), 0);
  }

  /** add() for the DMA of row `d` of `t`. */
  addAt(queue: number, t: RowRanges, d: number): void {
    this.reads[queue].add(t.srcLo[d], t.srcHi[d]);
    this.writes[queue].add(t.dstLo[d], t.dstHi[d]);
    this.used[queue] = 1;
  }

  clear(): void {
    for (let q = 0; q < this.used.length; q++) {
      if (this.used[q] === 0) continue;
      this.reads[q].clear();
      this.writes[q].clear();
      this.used[q] = 0;
    }
  }

  /** The four ranges as row 0 of `one`. */
  private row(sLo: number, sHi: number, dLo: number, dHi: number): RowRanges {
    const o = this.one;
    o.srcLo[0] = sLo;
    o.srcHi[0] = sHi;
    o.dstLo[0] = dLo;
    o.dstHi[0] = dHi;
    return o;
  }
}
