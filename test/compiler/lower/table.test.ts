import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, BACKEND_NONE } from '../../../compiler/lower/backend.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import { compileProgram } from '../../../compiler/passes/pipeline.ts';
import { dataPathRules, hostTablesOf } from '../../../flow/host-tables.ts';
import { flowMock, runFlow } from '../../../flow/index.ts';
import { randomProgram } from '../../flow/random-program.ts';
import { movePattern, shown, shownOrError } from './helpers.ts';

const knobs = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  dmas: fc.integer({ min: 1, max: 14 }),
  dge: fc.boolean(),
  arch: fc.constantFrom(30 as const, 40 as const),
});

describe('lowering table: compact rows', () => {
  it('a compact table shows the records, walks and columns of one that keeps every record', () => {
    let compactRows = 0;
    fc.assert(
      fc.property(knobs, fc.boolean(), (k, packets) => {
        let m;
        try {
          m = compileProgram(randomProgram(k)).module;
        } catch {
          fc.pre(false); // the generator's rare out-of-bounds program
          return;
        }
        // with the flow's packet sizes (host table +0x18) some host DMAs are counted per packet
        const rules = packets ? dataPathRules(m, hostTablesOf(m, null)) : {};
        const low = (compact: boolean) => {
          try {
            return lower(m, { ...rules, compact });
          } catch (e) {
            return String(e);
          }
        };
        const a = low(true);
        const b = low(false);
        if (typeof a === 'string' || typeof b === 'string') {
          expect(a).toEqual(b); // the same LOWER_ERROR
          return;
        }
        // walks handed out of a compact row, before any record is made
        expect(shown(a)).toEqual(shown(b));
        for (let i = 0; i < a.table.size; i++) {
          expect(a.table.record(i)).toBe(a.dmas[i]);
          // host-built and counted without a packet size: a compact row
          if (a.table.backendOf(i) === 'none' && a.table.packetBytes[i] === 0) compactRows++;
        }
        expect(a.blocks.flatMap((x) => x.dmas)).toEqual(a.dmas);
        for (const q of a.queues) for (const d of q.dmas) expect(a.dmas).toContain(d);
      }),
      { seed: 20261205, numRuns: 150 },
    );
    expect(compactRows).toBeGreaterThan(0);
  });

  it('the flow reports the same run from a compact table and one that keeps every record', async () => {
    await fc.assert(
      fc.asyncProperty(knobs, async (k) => {
        const program = randomProgram(k);
        const run = (compact: boolean) =>
          runFlow(program, { makeDevice: flowMock, trace: true, lower: { compact } });
        const [a, b] = await Promise.all([run(true), run(false)]);
        expect(a.mismatches).toBe(0);
        expect({ ...a, elapsedMs: 0 }).toEqual({ ...b, elapsedMs: 0 });
      }),
      { seed: 20261206, numRuns: 30 },
    );
  });

  it('a compact table fails as one that keeps every record: bound layers 1 and 3 on moved patterns', () => {
    let failures = 0;
    let passes = 0;
    fc.assert(
      fc.property(
        knobs,
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('src' as const, 'dst' as const),
        fc.oneof(fc.constant(0), fc.integer({ min: -(1 << 22), max: 1 << 22 })),
        fc.integer({ min: 1, max: 16 }),
        (k, pick, side, shift, ring) => {
          let m;
          try {
            m = compileProgram(randomProgram(k)).module;
          } catch {
            fc.pre(false);
            return;
          }
          // move one DMA's pattern by `shift` elements (same shape id: the plan cache's key)
          const dmas = m.instrs.filter((I) => I.src !== null && I.dst !== null);
          fc.pre(dmas.length > 0);
          movePattern(dmas[pick % dmas.length], side, shift);
          // a ring of 1 or 2 descriptors: bound layer 3 for most walks
          const ringSize = ring <= 2 ? ring : undefined;
          const low = (compact: boolean) => shownOrError(m, { compact, ringSize });
          const a = low(true);
          if ('error' in a) failures++;
          else passes++;
          expect(a).toEqual(low(false));
        },
      ),
      { seed: 20261207, numRuns: 300 },
    );
    expect(failures).toBeGreaterThan(30);
    expect(passes).toBeGreaterThan(30);
  });

  it("the backend column's code for 'none' is its index in BACKENDS", () => {
    expect(BACKENDS[BACKEND_NONE]).toBe('none');
  });
});
