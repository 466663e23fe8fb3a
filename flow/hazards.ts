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

class Ranges {
  lo: number[] = [];
  hi: number[] = [];

  add(lo: number, hi: number): void {
    if (hi <= lo) return;
    const L = this.lo;
    const H = this.hi;
    for (let i = 0; i < L.length; i++) {
      if (lo <= H[i] && L[i] <= hi) {
        if (lo < L[i]) L[i] = lo;
        if (hi > H[i]) H[i] = hi;
        return;
      }
    }
    if (L.length < MAX_INTERVALS) {
      L.push(lo);
      H.push(hi);
      return;
    }
    let a = lo;
    let b = hi;
    for (let i = 0; i < L.length; i++) {
      if (L[i] < a) a = L[i];
      if (H[i] > b) b = H[i];
    }
    this.lo = [a];
    this.hi = [b];
  }

  overlaps(lo: number, hi: number): boolean {
    const L = this.lo;
    const H = this.hi;
    for (let i = 0; i < L.length; i++) if (lo < H[i] && L[i] < hi) return true;
    return false;
  }

  clear(): void {
    this.lo.length = 0;
    this.hi.length = 0;
  }
}

/** Reads and writes of the current epoch, per queue. */
export class EpochHazards {
  private readonly reads: Ranges[];
  private readonly writes: Ranges[];
  private readonly used: boolean[];

  constructor(queues: number) {
    this.reads = Array.from({ length: queues }, () => new Ranges());
    this.writes = Array.from({ length: queues }, () => new Ranges());
    this.used = new Array<boolean>(queues).fill(false);
  }

  /** True when a DMA of `queue` reading [sLo, sHi) and writing [dLo, dHi) races with another queue. */
  conflicts(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): boolean {
    for (let q = 0; q < this.used.length; q++) {
      if (q === queue || !this.used[q]) continue;
      if (this.writes[q].overlaps(sLo, sHi)) return true; // read after write
      if (this.writes[q].overlaps(dLo, dHi)) return true; // write after write
      if (this.reads[q].overlaps(dLo, dHi)) return true; // write after read
    }
    return false;
  }

  add(queue: number, sLo: number, sHi: number, dLo: number, dHi: number): void {
    this.reads[queue].add(sLo, sHi);
    this.writes[queue].add(dLo, dHi);
    this.used[queue] = true;
  }

  clear(): void {
    for (let q = 0; q < this.used.length; q++) {
      if (!this.used[q]) continue;
      this.reads[q].clear();
      this.writes[q].clear();
      this.used[q] = false;
    }
  }
}
