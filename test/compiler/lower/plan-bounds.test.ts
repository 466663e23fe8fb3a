import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import type { Instr } from '../../../compiler/ir/module.ts';
import { planHull } from '../../../compiler/lower/affine.ts';
import { checkPlanBounds } from '../../../compiler/lower/bounds.ts';
import {
  ROW_DST_ADDR,
  ROW_SLOTS,
  ROW_SRC_ADDR,
  type HostPlan,
  type HostWalk,
  type LowerCtx,
} from '../../../compiler/lower/context.ts';

/** What checkPlanBounds returns and writes, or the error it throws. */
function outcome(plan: HostPlan, ringSize: number, starts: [number, number], regions: Regions) {
  const out = new Float64Array(ROW_SLOTS);
  out[ROW_SRC_ADDR] = starts[0];
  out[ROW_DST_ADDR] = starts[1];
  const ctx = { ringSize } as LowerCtx;
  const I = { id: 7, name: 'd' } as Instr;
  const side = (r: Regions[0]) => ({ tensor: { region: r } }) as unknown as AccessPattern;
  try {
    const n = checkPlanBounds(ctx, I, plan, side(regions[0]), side(regions[1]), out);
    return { n, ranges: Array.from(out.subarray(0, 4)) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code}: ${(e as Error).message}` };
  }
}

type Regions = [
  { name: string; base: number; size: number },
  { name: string; base: number; size: number },
];

// mostly offsets a hull is kept for; now and then one it is not (too large, or no integer)
const offset = fc.oneof(
  { arbitrary: fc.integer({ min: -4096, max: 1 << 20 }), weight: 12 },
  {
    arbitrary: fc.constantFrom(2 ** 50, 2 ** 50 + 1, 2 ** 52, 2 ** 53 - 1, 0.5, -(2 ** 51)),
    weight: 2,
  },
);
const walk = fc
  .record({
    srcOff: offset,
    dstOff: offset,
    srcLo: fc.integer({ min: -256, max: 4096 }),
    srcLen: fc.integer({ min: 0, max: 1 << 16 }),
    dstLo: fc.integer({ min: -256, max: 4096 }),
    dstLen: fc.integer({ min: 0, max: 1 << 16 }),
    count: fc.integer({ min: 1, max: 80 }),
  })
  .map(
    (w) =>
      ({
        srcOff: w.srcOff,
        dstOff: w.dstOff,
        srcNum: [1],
        srcStep: [1],
        dstNum: [1],
        dstStep: [1],
        srcLo: w.srcLo,
        srcHi: w.srcLo + w.srcLen,
        dstLo: w.dstLo,
        dstHi: w.dstLo + w.dstLen,
        count: w.count,
      }) as HostWalk & { count: number },
  );
// start addresses: small, or at the edge of the hull's exact range (2^51), or beyond it
const start = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 1 << 22 }), weight: 6 },
  {
    arbitrary: fc.constantFrom(2 ** 32, 2 ** 51, 2 ** 51 + 2, 2 ** 53, 2 ** 53 - 2, 1.5),
    weight: 2,
  },
);
/** A region edge's distance from the walks' range: mostly inside it (or on it), now and then out. */
const edge = fc.constantFrom(-2, -1, 0, 0, 0, 0, 1);
const region = (name: string) =>
  fc
    .record({
      base: fc.integer({ min: 0, max: 1 << 21 }),
      size: fc.integer({ min: 0, max: 1 << 22 }),
    })
    .map((r) => ({ name, ...r }));

describe('checkPlanBounds: a plan checked by its hull, as walk by walk', () => {
  it('the same BD pairs, byte ranges and errors (bound layers 3 and 1) with the hull and without, on random plans', () => {
    fc.assert(
      fc.property(
        fc.array(walk, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: -1, max: 1 }),
        start,
        start,
        fc.boolean(),
        fc.tuple(edge, edge, edge, edge),
        region('src'),
        region('dst'),
        (walks, ringDelta, s, d, around, deltas, sRand, dRand) => {
          const counts = walks.map((w) => w.count);
          const plan: HostPlan = {
            elemSize: 4,
            walks,
            counts,
            total: counts.reduce((a, b) => a + b, 0),
            maxCount: Math.max(...counts),
            hull: planHull(walks),
          };
          // regions at random, or around the walks' ranges (edges within 2 bytes of them, where
          // a DMA just fits or just does not)
          const span = (at: number, lo: 'srcLo' | 'dstLo', off: 'srcOff' | 'dstOff') => {
            const hi = lo === 'srcLo' ? 'srcHi' : 'dstHi';
            const los = walks.map((w) => at + w[off] + w[lo]);
            const his = walks.map((w) => at + w[off] + w[hi]);
            return [Math.min(...los), Math.max(...his)];
          };
          // (a > 0 or b > 0: the region leaves out a byte of the walks' range)
          const near = (name: string, [lo, hi]: number[], a: number, b: number) => ({
            name,
            base: lo + a,
            size: Math.max(0, hi - b - (lo + a)),
          });
          const regions: Regions = around
            ? [
                near('src', span(s, 'srcLo', 'srcOff'), deltas[0], deltas[1]),
                near('dst', span(d, 'dstLo', 'dstOff'), deltas[2], deltas[3]),
              ]
            : [sRand, dRand];
          const ringSize = Math.max(1, plan.maxCount + ringDelta);
          const byHull = outcome(plan, ringSize, [s, d], regions);
          const byWalk = outcome({ ...plan, hull: null }, ringSize, [s, d], regions);
          expect(byHull).toEqual(byWalk);
        },
      ),
      { numRuns: 4000 },
    );
  });

  it('a hull is kept only for integer offsets and ranges of at most 2^50', () => {
    const w = (srcOff: number) =>
      ({
        srcOff,
        dstOff: 0,
        srcNum: [1],
        srcStep: [1],
        dstNum: [1],
        dstStep: [1],
        srcLo: 0,
        srcHi: 8,
        dstLo: 0,
        dstHi: 8,
      }) as HostWalk;
    expect(Array.from(planHull([w(16), w(0)])!)).toEqual([0, 24, 0, 8]);
    expect(planHull([w(2 ** 50 + 1)])).toBeNull();
    expect(planHull([w(0.5)])).toBeNull();
  });
});
