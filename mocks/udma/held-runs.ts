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
    const l = this.len[q];
    if (l > 0) {
      // (its source and destination in two regions: a packet continuing it overlaps neither)
      if (
        this.src[q] === src &&
        this.dst[q] === dst &&
        this.so[q] + l === so &&
        this.d[q] + l === d
      ) {
        this.len[q] = l + n;
        return;
      }
      this.move(q);
    }
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
