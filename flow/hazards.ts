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
 * A queue's two lists: list 2q holds what queue q's DMAs of the epoch read, list 2q + 1 what they
 * write.
 */
const READS = 0;
const WRITES = 1;

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

/**
 * Reads and writes of the current epoch, per queue: each list up to MAX_INTERVALS intervals
 * [lo, hi), a range added merged into the first interval it touches, and the span from the lowest
 * lo to the highest hi (no interval overlaps a range the span does not, so the span answers most
 * queries alone). Every list lives in the same few typed arrays, indexed by list (a query or an
 * addition reads no object but these).
 */
export class EpochHazards {
  /** List l's intervals: lo and hi at l * MAX_INTERVALS + i, for i below count[l]. */
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  private readonly count: Int32Array;
  /** List l's span [lowest lo, highest hi) at 2l, 2l + 1 (empty: Infinity, -Infinity). */
  private readonly spans: Float64Array;
  private readonly used: Uint8Array;
  /** The queues used in the epoch, in the order of their first DMA (nUsed of them). */
  private readonly usedList: Int32Array;
  private nUsed = 0;
  /** One row of ranges, for the calls that pass them as numbers. */
  private readonly one: RowRanges = {
    srcLo: new Float64Array(1),
    srcHi: new Float64Array(1),
    dstLo: new Float64Array(1),
    dstHi: new Float64Array(1),
  };

  constructor(queues: number) {
    this.lo = new Float64Array(2 * queues * MAX_INTERVALS);
    this.hi = new Float64Array(2 * queues * MAX_INTERVALS);
    this.count = new Int32Array(2 * queues);
    this.spans = new Float64Array(4 * queues);
    for (let l = 0; l < 2 * queues; l++) this.emptySpan(l);
    this.used = new Uint8Array(queues);
    this.usedList = new Int32Array(queues);
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
    const S = this.spans;
    const usedList = this.usedList;
    for (let u = 0; u < this.nUsed; u++) {
      const q = usedList[u];
      if (q === queue) continue;
      // the spans first: a range clear of a span overlaps none of its intervals
      const r = 2 * q + READS;
      const w = 2 * q + WRITES;
      const rLo = S[2 * r];
      const rHi = S[2 * r + 1];
      const wLo = S[2 * w];
      const wHi = S[2 * w + 1];
      if (!(sLo < wHi && wLo < sHi) && !(dLo < wHi && wLo < dHi) && !(dLo < rHi && rLo < dHi))
        continue;
      if (this.overlaps(w, sLo, sHi)) return true; // read after write
      if (this.overlaps(w, dLo, dHi)) return true; // write after write
      if (this.overlaps(r, dLo, dHi)) return true; // write after read
    }
    return false;
  }

  add(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): void {
    this.addAt(queue, this.row(sLo, sHi, dLo, dHi), 0);
  }

  /** add() for the DMA of row `d` of `t`. */
  addAt(queue: number, t: RowRanges, d: number): void {
    this.addRange(2 * queue + READS, t.srcLo, t.srcHi, d);
    this.addRange(2 * queue + WRITES, t.dstLo, t.dstHi, d);
    if (this.used[queue] === 0) {
      this.used[queue] = 1;
      this.usedList[this.nUsed++] = queue;
    }
  }

  clear(): void {
    for (let u = 0; u < this.nUsed; u++) {
      const q = this.usedList[u];
      this.count[2 * q + READS] = 0;
      this.count[2 * q + WRITES] = 0;
      this.emptySpan(2 * q + READS);
      this.emptySpan(2 * q + WRITES);
      this.used[q] = 0;
    }
    this.nUsed = 0;
  }

  /**
   * Adds [los[d], his[d]) to list l: merged into the first interval it touches, else a new one. (The
   * range is read here, as conflictsAt reads it: no address is boxed to be passed.)
   */
  private addRange(l: number, los: Float64Array, his: Float64Array, d: number): void {
    const lo = los[d];
    const hi = his[d];
    if (hi <= lo) return;
    const S = this.spans;
    if (lo < S[2 * l]) S[2 * l] = lo;
    if (hi > S[2 * l + 1]) S[2 * l + 1] = hi;
    const L = this.lo;
    const H = this.hi;
    const first = l * MAX_INTERVALS;
    const n = this.count[l];
    for (let i = first; i < first + n; i++) {
      if (lo <= H[i] && L[i] <= hi) {
        if (lo < L[i]) L[i] = lo;
        if (hi > H[i]) H[i] = hi;
        return;
      }
    }
    if (n < MAX_INTERVALS) {
      L[first + n] = lo;
      H[first + n] = hi;
      this.count[l] = n + 1;
      return;
    }
    // one span for everything
    L[first] = S[2 * l];
    H[first] = S[2 * l + 1];
    this.count[l] = 1;
  }

  /** True when [lo, hi) overlaps an interval of list l. */
  private overlaps(l: number, lo: number, hi: number): boolean {
    const S = this.spans;
    if (!(lo < S[2 * l + 1] && S[2 * l] < hi)) return false;
    const L = this.lo;
    const H = this.hi;
    const first = l * MAX_INTERVALS;
    for (let i = first, end = first + this.count[l]; i < end; i++) {
      if (lo < H[i] && L[i] < hi) return true;
    }
    return false;
  }

  private emptySpan(l: number): void {
    this.spans[2 * l] = Infinity;
    this.spans[2 * l + 1] = -Infinity;
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
