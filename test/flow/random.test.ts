import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flowMock, runFlow } from '../../flow/index.ts';
import { randomProgram } from './random-program.ts';

describe('random programs compiled and run on the mock', () => {
  it('zero mismatches on every backend (fixed seed, bounded)', async () => {
    const backends = { none: 0, pool: 0, software: 0, rtl: 0 };
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          dmas: fc.integer({ min: 1, max: 14 }),
          dge: fc.boolean(),
          arch: fc.constantFrom(30 as const, 40 as const),
          pool: fc.boolean(),
          qos: fc.boolean(),
          ringSize: fc.constantFrom(32, 256, 65536),
        }),
        async (k) => {
          const program = randomProgram(k);
          const r = await runFlow(program, {
            makeDevice: flowMock,
            qos: k.qos,
            ringSize: k.ringSize,
            seed: k.seed,
            lower: { availability: { pool: k.pool } },
          });
          for (const [b, n] of Object.entries(r.lowering.byBackend))
            backends[b as keyof typeof backends] += n;
          runs++;
          expect(r.mismatches).toBe(0);
          expect(r.verifiedBytes).toBeLessThanOrEqual(r.bytesMoved);
        },
      ),
      { seed: 0x5eed, numRuns: 60 },
    );
    expect(runs).toBe(60);
    // the generator reaches every backend
    for (const n of Object.values(backends)) expect(n).toBeGreaterThan(0);
  });
});
