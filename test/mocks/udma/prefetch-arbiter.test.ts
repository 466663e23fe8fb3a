/**
 * mocks/udma/prefetch.ts PrefetchArbiter: `pickAlone(q)` (the streaming path's grant to the one
 * queue asking) against `pick` over the mask of that queue alone, on random configurations
 * (round robin or AXI QoS levels, high-priority queues) and random earlier picks: the same queue,
 * and the same picks after it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HalfConfig } from '../../../mocks/udma/config.ts';
import { PrefetchArbiter } from '../../../mocks/udma/prefetch.ts';

const N = 16;

describe('PrefetchArbiter.pickAlone', () => {
  it('chooses and leaves the pointer as pick over the one-queue mask does', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.nat({ max: 0xffff }),
        fc.array(fc.nat({ max: 15 }), { minLength: N, maxLength: N }),
        fc.array(fc.integer({ min: 1, max: 0xffff }), { maxLength: 8 }),
        fc.nat({ max: N - 1 }),
        fc.array(fc.integer({ min: 1, max: 0xffff }), { minLength: 1, maxLength: 8 }),
        (forceRR, high, levels, before, q, after) => {
          const cfg = new HalfConfig(N);
          cfg.prefForceRR = forceRR;
          cfg.highPriority = high;
          levels.forEach((l, i) => (cfg.axiQos[i] = l));
          const a = new PrefetchArbiter();
          const b = new PrefetchArbiter();
          for (const m of before) expect(a.pick(cfg, m)).toBe(b.pick(cfg, m));
          expect(a.pickAlone(q)).toBe(b.pick(cfg, 1 << q));
          for (const m of after) expect(a.pick(cfg, m)).toBe(b.pick(cfg, m));
        },
      ),
      { numRuns: 500 },
    );
  });
});
