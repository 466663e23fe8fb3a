/**
 * Copies the streaming path (stream.ts) holds back to move several packets' bytes in one byte
 * copy: a queue that moves a tensor tile after tile serves one packet per tile, and its next
 * packet continues the last one on both sides. Each queue holds at most one run: `len[q]` bytes
 * from offset `so[q]` of region `src[q]` to offset `d[q]` of region `dst[q]`, two different
 * regions.
 *
 * It is used only while no two regions of the memory share a backing store (`usable`), so bytes
 * of different regions never alias and a range is compared with another only within one region.
 * Why the bytes are the same as moving each packet when it is served:
 * - a held run's source and destination are in two different regions, so it never overlaps
 *   itself and moving it at once leaves what moving its packets one after the other leaves;
 * - the held runs are pairwise independent (none writes a byte another one reads or writes), so
 *   moving them later, in any order, leaves what moving each when it was served leaves, as long as
 *   nothing in between reads or writes their bytes;
 * - a packet that reads a byte a held run writes, or writes a byte one reads or writes, first
 *   moves that run; a packet within one region, or into a region holding a ring whose descriptors
 *   the path reads, is moved at once (after those runs), never held;
 * - the path moves every held run before it returns (`flush`), so whoever looks at memory next
 *   (the general step, a host read) sees every packet's bytes.
 *
 * Each run also keeps how far it may grow without reaching another run (`dLimit`, `sLimit`), so a
 * packet that continues its queue's run within them is added without looking at the other runs.
 * Runs only grow upwards and a run's start never moves while it is held, and held runs do not
 * overlap where one writes (independence), so every other run's byte that a run could reach lies
 * at or above its end. Its limits are the least start, at or above its end, of the other runs'
 * ranges it must not reach: in its destination region every other run's destination and source,
 * in its source region every other run's destination. They are computed when the run starts (or
 * grows past them) and lowered when another run starts above it; a run moved early leaves the
 * others' limits lower than they need be, which only sends a packet the long way.
 */
import type { MemoryRegion } from '../memory.ts';
import { copyBytes } from './memory-access.ts';

export class HeldRuns {
  private readonly src: (MemoryRegion | undefined)[];
  private readonly dst: (MemoryRegion | undefined)[];
  private readonly so: Float64Array;
  private readonly d: Float64Array;
  /** Per queue: its run's bytes (0: none held). */
  private readonly len: Float64Array;
  /** Per queue: the offsets its run's destination and source may grow up to (see above). */
  private readonly dLimit: Float64Array;
  private readonly sLimit: Float64Array;
  /** Queues holding a run (bit q). */
  private held = 0;
  /** The regions holding the rings the path reads (at most two; `usable` is false past that). */
  private ring0: MemoryRegion | undefined;
  private ring1: MemoryRegion | undefined;

  constructor(queues: number) {
    this.src = new Array<MemoryRegion | undefined>(queues).fill(undefined);
    this.dst = new Array<MemoryRegion | undefined>(queues).fill(undefined);
    this.so = new Float64Array(queues);
    this.d = new Float64Array(queues);
    this.len = new Float64Array(queues);
    this.dLimit = new Float64Array(queues);
    this.sLimit = new Float64Array(queues);
  }

  /**
   * Whether runs may be held over a path that reads rings in `rings` (undefined entries skipped),
   * in memory of `regions`: no two regions share a backing store, and the rings lie in at most two
   * regions (noted for `copy`).
   */
  usable(regions: readonly MemoryRegion[], rings: readonly (MemoryRegion | undefined)[]): boolean {
    for (let i = 0; i < regions.length; i++)
      for (let j = i + 1; j < regions.length; j++)
        if (regions[i].store === regions[j].store) return false;
    let r0: MemoryRegion | undefined;
    let r1: MemoryRegion | undefined;
    for (const r of rings) {
      if (r === undefined || r === r0 || r === r1) continue;
      if (r0 === undefined) r0 = r;
      else if (r1 === undefined) r1 = r;
      else return false;
    }
    this.ring0 = r0;
    this.ring1 = r1;
    return true;
  }

  /** Moves `n` bytes of queue q's packet from offset so of `src` to offset d of `dst`. */
  copy(q: number, src: MemoryRegion, so: number, dst: MemoryRegion, d: number, n: number): void {
    const l = this.len[q];
    const continues =
      l > 0 &&
      this.src[q] === src &&
      this.dst[q] === dst &&
      this.so[q] + l === so &&
      this.d[q] + l === d;
    // (within its limits no other run's byte is in reach: nothing to move first)
    if (continues && d + n <= this.dLimit[q] && so + n <= this.sLimit[q]) this.len[q] = l + n;
    else this.place(q, src, so, dst, d, n, continues);
  }

  /** `copy` of a packet that does not continue its queue's run within the run's limits. */
  private place(
    q: number,
    src: MemoryRegion,
    so: number,
    dst: MemoryRegion,
    d: number,
    n: number,
    continues: boolean,
  ): void {
    const l = this.len[q];
    const bit = 1 << q;
    // every other queue's run the packet depends on, or that depends on it, moves first
    for (let b = this.held & ~bit; b !== 0; b &= b - 1) {
      const i = 31 - Math.clz32(b & -b);
      const hd = this.dst[i];
      const hl = this.len[i];
      if (
        (src === hd && so < this.d[i] + hl && this.d[i] < so + n) ||
        (dst === hd && d < this.d[i] + hl && this.d[i] < d + n) ||
        (dst === this.src[i] && d < this.so[i] + hl && this.so[i] < d + n)
      )
        this.move(i);
    }
    if (continues) {
      // (its source and destination in two regions: a packet continuing it overlaps neither)
      this.len[q] = l + n;
      this.limit(q);
      return;
    }
    if (l > 0) this.move(q);
    if (src === dst || dst === this.ring0 || dst === this.ring1) {
      copyBytes(src, so, dst, d, n);
      return;
    }
    this.src[q] = src;
    this.dst[q] = dst;
    this.so[q] = so;
    this.d[q] = d;
    this.len[q] = n;
    this.held |= bit;
    this.limit(q);
    // the runs below the new one may not grow into it
    for (let b = this.held & ~bit; b !== 0; b &= b - 1) {
      const i = 31 - Math.clz32(b & -b);
      const end = this.d[i] + this.len[i];
      if (this.dst[i] === dst && d >= end && d < this.dLimit[i]) this.dLimit[i] = d;
      if (this.dst[i] === src && so >= end && so < this.dLimit[i]) this.dLimit[i] = so;
      if (this.src[i] === dst) {
        const sEnd = this.so[i] + this.len[i];
        if (d >= sEnd && d < this.sLimit[i]) this.sLimit[i] = d;
      }
    }
  }

  /** Sets the limits of q's run from the other runs held (see the module comment). */
  private limit(q: number): void {
    const src = this.src[q];
    const dst = this.dst[q];
    const end = this.d[q] + this.len[q];
    const sEnd = this.so[q] + this.len[q];
    let dl = Infinity;
    let sl = Infinity;
    for (let b = this.held & ~(1 << q); b !== 0; b &= b - 1) {
      const i = 31 - Math.clz32(b & -b);
      const od = this.d[i];
      if (this.dst[i] === dst && od >= end && od < dl) dl = od;
      if (this.src[i] === dst && this.so[i] >= end && this.so[i] < dl) dl = this.so[i];
      if (this.dst[i] === src && od >= sEnd && od < sl) sl = od;
    }
    this.dLimit[q] = dl;
    this.sLimit[q] = sl;
  }

  /** Moves every held run. */
  flush(): void {
    for (let b = this.held; b !== 0; b &= b - 1) this.move(31 - Math.clz32(b & -b));
  }

  private move(i: number): void {
    copyBytes(this.src[i]!, this.so[i], this.dst[i]!, this.d[i], this.len[i]);
    this.len[i] = 0;
    this.held &= ~(1 << i);
    this.src[i] = undefined;
    this.dst[i] = undefined;
  }
}
