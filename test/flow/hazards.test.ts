import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpochHazards } from '../../flow/hazards.ts';

/**
 * The epoch hazards as their comment defines them: per queue and kind a list of intervals, a
 * range merged into the first interval it touches, a new interval while there are fewer than 32,
 * else the whole list one span; a race is an overlap with another queue's writes (reads and
 * writes) or reads (writes).
 */
class Reference {
  private readonly lists: { lo: number[]; hi: number[] }[][];
  private readonly used: boolean[];
  constructor(queues: number) {
    this.lists = Array.from({ length: queues }, () => [
      { lo: [], hi: [] },
      { lo: [], hi: [] },
    ]);
    this.used = new Array<boolean>(queues).fill(false);
  }
  private static add(r: { lo: number[]; hi: number[] }, lo: number, hi: number): void {
    if (hi <= lo) return;
    for (let i = 0; i < r.lo.length; i++) {
      if (lo <= r.hi[i] && r.lo[i] <= hi) {
        r.lo[i] = Math.min(r.lo[i], lo);
        r.hi[i] = Math.max(r.hi[i], hi);
        return;
      }
    }
    if (r.lo.length < 32) {
      r.lo.push(lo);
      r.hi.push(hi);
      return;
    }
    r.lo = [Math.min(lo, ...r.lo)];
    r.hi = [Math.max(hi, ...r.hi)];
  }
  private static overlaps(r: { lo: number[]; hi: number[] }, lo: number, hi: number): boolean {
    return r.lo.some((l, i) => lo < r.hi[i] && l < hi);
  }
  conflicts(q: number, sLo: number, sHi: number, dLo: number, dHi: number): boolean {
    return this.lists.some(
      ([reads, writes], o) =>
        o !== q &&
        this.used[o] &&
        (Reference.overlaps(writes, sLo, sHi) ||
          Reference.overlaps(writes, dLo, dHi) ||
          Reference.overlaps(reads, dLo, dHi)),
    );
  }
  add(q: number, sLo: number, sHi: number, dLo: number, dHi: number): void {
    Reference.add(this.lists[q][0], sLo, sHi);
    Reference.add(this.lists[q][1], dLo, dHi);
    this.used[q] = true;
  }
  clear(): void {
    for (const [r, w] of this.lists) {
      r.lo = [];
      r.hi = [];
      w.lo = [];
      w.hi = [];
    }
    this.used.fill(false);
  }
}

describe('epoch hazards', () => {
  // ranges on a small address line (so they touch, overlap and nest), empty ones included
  const range = fc
    .tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: -4, max: 40 }))
    .map(([lo, n]) => [lo, lo + n] as const);
  const op = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.tuple(
        fc.constant('dma' as const),
        fc.integer({ min: 0, max: 3 }),
        range,
        range,
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constant('clear' as const), fc.constant(0), range, range) },
  );

  it('answers every query as the interval lists of its definition', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 300 }), (ops) => {
        const h = new EpochHazards(4);
        const ref = new Reference(4);
        for (const [kind, q, [sLo, sHi], [dLo, dHi]] of ops) {
          if (kind === 'clear') {
            h.clear();
            ref.clear();
            continue;
          }
          expect(h.conflicts(q, sLo, sHi, dLo, dHi)).toBe(ref.conflicts(q, sLo, sHi, dLo, dHi));
          h.add(q, sLo, sHi, dLo, dHi);
          ref.add(q, sLo, sHi, dLo, dHi);
        }
      }),
      { seed: 20261214, numRuns: 400 },
    );
  });
});
