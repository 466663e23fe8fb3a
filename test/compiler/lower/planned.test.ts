import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Module } from '../../../compiler/ir/module.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { dataPathRules, hostTablesOf } from '../../../flow/host-tables.ts';
import { fixture, movePattern, shownOrError } from './helpers.ts';

/** Copies between the fixture's tensors of one dtype, and each tensor's elements. */
const PAIRS = [
  ['x', 't'],
  ['t', 'y'],
  ['x', 'h'],
  ['h', 'u'],
  ['t', 'u'],
  ['a', 'p'],
  ['q', 'b'],
] as const;
const ELEMS: Record<string, number> = {
  x: 16384,
  y: 16384,
  h: 16384,
  t: 8192,
  u: 8192,
  a: 16384,
  b: 16384,
  p: 16384,
  q: 16384,
};

// few values per field: templates that differ in one field only are common
const template = fc.record({
  pair: fc.integer({ min: 0, max: 2 }),
  pn: fc.integer({ min: 1, max: 3 }),
  fn: fc.constantFrom(8, 16, 40),
  sStep: fc.constantFrom(1, 2),
  dStep: fc.constantFrom(1, 2),
  sGap: fc.constantFrom(0, 8),
  dGap: fc.constantFrom(0, 8),
  qos: fc.constantFrom('P0' as const, 'P3' as const, 'P7' as const),
});

const program = fc.record({
  templates: fc.array(template, { minLength: 1, maxLength: 6 }),
  dmas: fc.array(fc.record({ t: fc.nat(), at: fc.double({ min: 0, max: 1, noNaN: true }) }), {
    minLength: 1,
    maxLength: 60,
  }),
  dge: fc.boolean(),
});

type Program = typeof program extends fc.Arbitrary<infer P> ? P : never;

/**
 * A program of DMAs drawn from a few templates (tensor pair, dims, QoS class) at random offsets:
 * many DMAs of one signature, the case the memo serves.
 */
function build(p: Program): Module {
  const b = fixture(30, p.dge ? { dgeLevels: ['spill_reload', 'transpose'] } : {});
  const bb = b.function('main').block('entry');
  for (const d of p.dmas) {
    const t = p.templates[d.t % p.templates.length];
    const [s, x] = PAIRS[t.pair];
    const sRow = t.fn * t.sStep + t.sGap;
    const dRow = t.fn * t.dStep + t.dGap;
    const sSpan = (t.pn - 1) * sRow + (t.fn - 1) * t.sStep + 1;
    const dSpan = (t.pn - 1) * dRow + (t.fn - 1) * t.dStep + 1;
    const room = Math.min(ELEMS[s] - sSpan, ELEMS[x] - dSpan);
    const off = Math.floor(d.at * room);
    bb.copy({
      qos: t.qos,
      src: { tensor: s, offset: off, partition: [sRow, t.pn], free: [[t.sStep, t.fn]] },
      dst: { tensor: x, offset: off, partition: [dRow, t.pn], free: [[t.dStep, t.fn]] },
    });
  }
  return compile(b.build()).module;
}

describe('lowering: the planned-DMA memo', () => {
  it('lowers programs of repeated signatures as every DMA through every check does', () => {
    let memoRows = 0;
    let failures = 0;
    fc.assert(
      fc.property(
        program,
        // DMAs moved after compiling (same shape id), some out of their region
        fc.array(
          fc.record({
            pick: fc.nat(),
            side: fc.constantFrom('src' as const, 'dst' as const),
            shift: fc.integer({ min: -12000, max: 12000 }),
          }),
          { maxLength: 2 },
        ),
        fc.constantFrom(undefined, undefined, undefined, 1, 8),
        fc.boolean(),
        fc.boolean(),
        (p, moves, ringSize, packets, keepRecords) => {
          const m = build(p);
          const dmas = m.instrs.filter((I) => I.src !== null && I.dst !== null);
          for (const mv of moves) movePattern(dmas[mv.pick % dmas.length], mv.side, mv.shift);
          const rules = packets ? dataPathRules(m, hostTablesOf(m, null)) : {};
          const opts = { ...rules, ringSize, keepRecords };
          const a = shownOrError(m, { ...opts, planMemo: true });
          expect(a).toEqual(shownOrError(m, { ...opts, planMemo: false }));
          if ('error' in a) failures++;
          else for (const r of a.rows) if (r.backend === 'none' && r.packetBytes === 0) memoRows++;
        },
      ),
      { seed: 20261202, numRuns: 300 },
    );
    expect(memoRows).toBeGreaterThan(500);
    expect(failures).toBeGreaterThan(20);
  });
});
