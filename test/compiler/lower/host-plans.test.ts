import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import type { Tensor } from '../../../compiler/ir/module.ts';
import { HostPlans, type HostPlan } from '../../../compiler/lower/context.ts';

/** A plan that only names its key (HostPlans stores plans, it does not read them). */
function plan(key: string): HostPlan {
  return { elemSize: 0, walks: [], counts: [], total: 0, maxCount: 0, hull: null, key } as HostPlan;
}

/** The dims a host plan depends on (what HostPlans compares), as a string. */
function dimsKey(src: AccessPattern, dst: AccessPattern, es: number): string {
  return JSON.stringify([
    es,
    src.partStep,
    src.partNum,
    src.free,
    dst.partStep,
    dst.partNum,
    dst.free,
  ]);
}

const tensor = { address: 0 } as Tensor;

describe('HostPlans: the shape-id cache in front of the dims hash', () => {
  it('finds the plan of the same dims, whatever shape ids and free arrays the patterns carry', () => {
    // free arrays: a few contents, each in two objects of equal content
    const contents = [
      [1, 16],
      [1, 16, 16, 4],
      [2, 8],
    ];
    const frees = contents.flatMap((c) => [Object.freeze([...c]), Object.freeze([...c])]);
    // every pair of one run shares the shape ids 0 and 1 (or -1: not interned), so the cache's
    // slot is shared and each of its checks decides
    const side = (shapeId: number) =>
      fc.record({
        free: fc.integer({ min: 0, max: frees.length - 1 }),
        step: fc.constantFrom(1, 16),
        num: fc.constantFrom(4, 16),
        shapeId: fc.constantFrom(shapeId, shapeId, shapeId, -1),
      });
    const ap = (s: { free: number; step: number; num: number; shapeId: number }) =>
      new AccessPattern(tensor, 0, s.step, s.num, frees[s.free], null, null, null, s.shapeId);
    fc.assert(
      fc.property(
        // a few DMAs' pattern pairs, then a sequence of them (a program has few shapes)
        fc.array(fc.tuple(side(0), side(1), fc.constantFrom(2, 4)), { minLength: 2, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
        (pool, picks) => {
          const plans = new HostPlans();
          const reference = new Map<string, HostPlan>();
          for (const pick of picks) {
            const [s, d, es] = pool[pick % pool.length];
            const src = ap(s);
            const dst = ap(d);
            const key = dimsKey(src, dst, es);
            const got = plans.get(src, dst, es);
            expect(got).toBe(reference.get(key));
            if (got === undefined) {
              const p = plan(key);
              plans.set(src, dst, es, p);
              reference.set(key, p);
            }
          }
        },
      ),
      { seed: 20261208, numRuns: 3000 },
    );
  });
});

describe('HostPlans: a cache hit is the same dims', () => {
  const A = Object.freeze([1, 16]);
  const A2 = Object.freeze([1, 16]); // A's content in another array
  const B = Object.freeze([2, 8]);
  const pattern = (free: readonly number[], step: number, num: number, shapeId: number) =>
    new AccessPattern(tensor, 0, step, num, free, null, null, null, shapeId);
  const variants: [string, AccessPattern, AccessPattern, number][] = [
    ['source free dims', pattern(B, 1, 4, 0), pattern(A, 1, 4, 1), 4],
    ['destination free dims', pattern(A, 1, 4, 0), pattern(B, 1, 4, 1), 4],
    ['source partition step', pattern(A, 16, 4, 0), pattern(A, 1, 4, 1), 4],
    ['source partition count', pattern(A, 1, 16, 0), pattern(A, 1, 4, 1), 4],
    ['destination partition step', pattern(A, 1, 4, 0), pattern(A, 16, 4, 1), 4],
    ['destination partition count', pattern(A, 1, 4, 0), pattern(A, 1, 16, 1), 4],
    ['element size', pattern(A, 1, 4, 0), pattern(A, 1, 4, 1), 2],
  ];
  for (const [what, src, dst, es] of variants) {
    it(`patterns of the cached shape ids with another ${what} find no plan`, () => {
      const plans = new HostPlans();
      const x = plan('x');
      plans.set(pattern(A, 1, 4, 0), pattern(A, 1, 4, 1), 4, x);
      // found twice: the second finds it in the cache
      expect(plans.get(pattern(A, 1, 4, 0), pattern(A, 1, 4, 1), 4)).toBe(x);
      expect(plans.get(pattern(A, 1, 4, 0), pattern(A, 1, 4, 1), 4)).toBe(x);
      expect(plans.get(src, dst, es)).toBeUndefined();
      // equal dims in other arrays find it too
      expect(plans.get(pattern(A2, 1, 4, 0), pattern(A2, 1, 4, 1), 4)).toBe(x);
    });
  }
});
