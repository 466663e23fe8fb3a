/**
 * What prepareFlow derives from the lowering: each queue's executed BD pairs, bytes and DMAs
 * (executedByQueue, summed by the lowering as it fills its table) against the definition, every
 * row of the table once per iteration of its block.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoweredProgram } from '../../compiler/lower/types.ts';
import { executedByQueue, prepareFlow } from '../../flow/prepare.ts';
import { randomKnobs, randomProgram } from './random-program.ts';

/** The definition: every row of every block, once per iteration. */
function byDefinition(low: LoweredProgram) {
  const n = low.queues.length;
  const out = {
    descriptors: new Float64Array(n),
    bytes: new Float64Array(n),
    dmas: new Float64Array(n),
  };
  const t = low.table;
  for (const b of low.blocks) {
    for (let d = b.first; d < b.first + b.count; d++) {
      out.descriptors[t.queue[d]] += t.descriptors[d] * b.iterations;
      out.bytes[t.queue[d]] += t.bytes[d] * b.iterations;
      out.dmas[t.queue[d]] += b.iterations;
    }
  }
  return out;
}

describe('executedByQueue', () => {
  it('equals every row summed per iteration of its block, on random programs with loops', () => {
    let loops = 0;
    fc.assert(
      fc.property(randomKnobs(), (k) => {
        const p = prepareFlow(randomProgram(k));
        if (p.lowered.blocks.some((b) => b.iterations > 1)) loops++;
        const got = executedByQueue(p.lowered);
        expect(got).toEqual(byDefinition(p.lowered));
        // the caller's own copy: changing it changes no later answer
        got.descriptors.fill(-1);
        expect(executedByQueue(p.lowered)).toEqual(byDefinition(p.lowered));
      }),
      { seed: 0x5eed, numRuns: 200 },
    );
    expect(loops).toBeGreaterThan(0);
  });
});

/** The definition of lower()'s sums: per queue one pass over its rows, in all per iteration. */
function sumsByDefinition(low: LoweredProgram) {
  const t = low.table;
  const queues = low.queues.map(() => ({ count: 0, descriptors: 0, bytes: 0, maxWalk: 0 }));
  const totals = { executed: 0, dgeDescriptors: 0, descriptors: 0, bytes: 0 };
  const byBackend: Record<string, number> = { none: 0, pool: 0, software: 0, rtl: 0 };
  for (const b of low.blocks) {
    for (let d = b.first; d < b.first + b.count; d++) {
      const q = queues[t.queue[d]];
      q.count++;
      q.descriptors += t.descriptors[d];
      q.bytes += t.bytes[d];
      if (t.reduce[d] === 0) q.maxWalk = Math.max(q.maxWalk, t.maxWalk[d]);
      byBackend[t.backendOf(d)]++;
      totals.executed += b.iterations;
      totals.dgeDescriptors += t.dgeDescriptors[d];
      totals.descriptors += t.descriptors[d] * b.iterations;
      totals.bytes += t.bytes[d] * b.iterations;
    }
  }
  return { queues, totals: { ...totals, byBackend } };
}

describe("lower()'s row sums", () => {
  it('equal the table summed by definition, on random programs with loops and DGE rows', () => {
    let dge = 0;
    fc.assert(
      fc.property(randomKnobs(), (k) => {
        const low = prepareFlow(randomProgram(k)).lowered;
        const want = sumsByDefinition(low);
        dge += want.totals.dgeDescriptors;
        expect(
          low.queues.map((q) => ({
            count: q.count,
            descriptors: q.descriptors,
            bytes: q.bytes,
            maxWalk: q.maxWalk,
          })),
        ).toEqual(want.queues);
        const { dmas: _dmas, ...totals } = low.totals;
        expect(totals).toEqual(want.totals);
      }),
      { seed: 0x5eed, numRuns: 200 },
    );
    expect(dge).toBeGreaterThan(0);
  });
});
