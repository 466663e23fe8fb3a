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
  private spanLo = Infinity;
  private spanHi = -Infinity;

  add(lo: number, hi: number): void {
    if (hi <= lo) return;
    const L = this.lo;
    const H = this.hi;
    const n = this.n;
    if (lo < this.spanLo) this.spanLo = lo;
    if (hi > this.spanHi) this.spanHi = hi;
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
    L[0] = this.spanLo;
    H[0] = this.spanHi;
    this.n = 1;
  }

  /** True when [lo, hi) may overlap an interval: it overlaps the span. */
  near(lo: number, hi: number): boolean {
    return lo < this.spanHi && this.spanLo < hi;
  }

  overlaps(lo: number, hi: number): boolean {
    if (!(lo < this.spanHi && this.spanLo < hi)) return false;
    const L = this.lo;
    const H = this.hi;
    for (let i = 0, n = this.n; i < n; i++) if (lo < H[i] && L[i] < hi) return true;
    return false;
  }

  clear(): void {
    this.n = 0;
    this.spanLo = Infinity;
    this.spanHi = -Infinity;
  }
}

/** Reads and writes of the current epoch, per queue. */
export class EpochHazards {
  private readonly reads: Ranges[];
  private readonly writes: Ranges[];
  private readonly used: Uint8Array;

  constructor(queues: number) {
    this.reads = Array.from({ length: queues }, () => new Ranges());
    this.writes = Array.from({ length: queues }, () => new Ranges());
    this.used = new Uint8Array(queues);
  }

  /** True when a DMA of `queue` reading [sLo, sHi) and writing [dLo, dHi) races with another queue. */
  conflicts(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): boolean {
    const used = this.used;
    for (let q = 0; q < used.length; q++) {
      if (q === queue || used[q] === 0) continue;
      const w = this.writes[q];
      const r = this.reads[q];
      // the spans first: a range clear of a span overlaps none of its intervals
      if (!w.near(sLo, sHi) && !w.near(dLo, dHi) && !r.near(dLo, dHi)) continue;
      if (w.overlaps(sLo, sHi)) return true; // read after write
      if (w.overlaps(dLo, dHi)) return true; // write after write
      if (r.overlaps(dLo, dHi)) return true; // write after read
    }
    return false;
  }

  add(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): void {
    this.reads[queue].add(sLo, sHi);
    this.writes[queue].add(dLo, dHi);
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
}
