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
