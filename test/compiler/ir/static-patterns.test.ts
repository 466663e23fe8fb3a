/**
 * Static access patterns shared by value (StaticPatterns, to-module.ts): every DMA's pattern holds
 * exactly what its program wrote, and two DMAs share one pattern object exactly when both patterns
 * are static (no run-time offset, no indirect index) and name the same tensor, offset (-0 apart),
 * partition and free dims.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { type APArgs, ProgramBuilder } from '../../../compiler/ir/builder.ts';
import { parseProgram } from '../../../compiler/ir/to-module.ts';

/** A few patterns per tensor, so that random programs revisit them. */
const patterns: fc.Arbitrary<APArgs> = fc.oneof(
  fc.record({
    tensor: fc.constantFrom('a', 'b', 'c'),
    offset: fc.constantFrom(0, -0, 16, 32, 48, undefined),
    partition: fc.constantFrom<[number, number]>([16, 4], [16, 2], [32, 2]),
    free: fc.constantFrom<[number, number][] | undefined>(
      [[1, 16]],
      [
        [1, 8],
        [8, 2],
      ],
      undefined,
    ),
  }),
  fc.record({
    tensor: fc.constantFrom('a', 'b'),
    offset: fc.constantFrom(0, 16),
    partition: fc.constant<[number, number]>([16, 4]),
    free: fc.constant<[number, number][]>([[1, 16]]),
    dynamic: fc.constantFrom(
      { scalar: { register: 'r1', value: 0 } },
      { vector: { indexTensor: 'idx' } },
    ),
  }),
  fc.record({
    tensor: fc.constant('a'),
    offset: fc.constant(0),
    partition: fc.constant<[number, number]>([16, 4]),
    free: fc.constant<[number, number][]>([[1, 16]]),
    indirect: fc.constant({ indexTensor: 'idx' }),
  }),
);

function builder(): ProgramBuilder {
  const b = new ProgramBuilder({ name: 'statics', arch: 30 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x10_0000 });
  for (const [i, name] of ['a', 'b', 'c'].entries())
    b.tensor({ name, region: 'sb', offset: i * 0x1000, dtype: 'fp32', shape: [16, 64] });
  b.tensor({
    name: 'idx',
    region: 'sb',
    offset: 0x8000,
    dtype: 'uint32',
    shape: [4],
    init: [3, 1, 0, 2],
  });
  return b;
}

const flat = (free: readonly (readonly [number, number])[] | undefined) =>
  (free ?? []).flatMap(([s, n]) => [s, n]);

/** What a pattern must hold: the program's description of it. */
function expectHolds(p: AccessPattern, a: APArgs): void {
  expect(p.tensor.name).toBe(a.tensor);
  expect(Object.is(p.offset, a.offset ?? 0)).toBe(true);
  expect([p.partStep, p.partNum]).toEqual(a.partition);
  expect([...p.free]).toEqual(flat(a.free));
  expect(p.scalarOffset).toEqual(a.dynamic?.scalar ?? null);
  expect(p.vectorOffset?.indexTensor.name ?? null).toBe(a.dynamic?.vector?.indexTensor ?? null);
  expect(p.indirect?.name ?? null).toBe(a.indirect?.indexTensor ?? null);
}

/** Two patterns as written are the same static pattern. */
function sameStatic(x: APArgs, y: APArgs): boolean {
  if (x.dynamic || y.dynamic || x.indirect || y.indirect) return false;
  return (
    x.tensor === y.tensor &&
    Object.is(x.offset ?? 0, y.offset ?? 0) &&
    JSON.stringify(x.partition) === JSON.stringify(y.partition) &&
    JSON.stringify(flat(x.free)) === JSON.stringify(flat(y.free))
  );
}

describe('static access patterns', () => {
  it('hold what the program wrote, shared exactly between equal static patterns (built and parsed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(patterns, patterns), { minLength: 1, maxLength: 24 }),
        (pairs) => {
          const b = builder();
          const bb = b.function('main').block('entry');
          const written: APArgs[] = [];
          for (const [src, dst] of pairs) {
            // the element counts must agree: the destination takes the source's dims
            const d = { ...dst, partition: src.partition, free: src.free };
            bb.copy({ src, dst: d });
            written.push(src, d);
          }
          // JSON writes -0 as 0: the parsed program holds 0 where the built one holds -0
          const parsed = written.map((a) => (Object.is(a.offset, -0) ? { ...a, offset: 0 } : a));
          const modules = [
            { m: b.build(), want: written },
            { m: parseProgram(JSON.parse(JSON.stringify(b.program()))), want: parsed },
          ];
          for (const { m, want } of modules) {
            const got: AccessPattern[] = [];
            for (const I of m.instrs) got.push(I.src!, I.dst!);
            for (let i = 0; i < got.length; i++) expectHolds(got[i], want[i]);
            for (let i = 0; i < got.length; i++) {
              for (let j = i + 1; j < got.length; j++)
                expect(got[i] === got[j]).toBe(sameStatic(want[i], want[j]));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a large program keeps every pattern exact past the table growing', () => {
    const b = builder();
    const bb = b.function('main').block('entry');
    const n = 5000;
    for (let i = 0; i < n; i++) {
      const off = (i * 7) % 960;
      bb.copy({
        src: { tensor: 'a', offset: off, partition: [1, 1], free: [[1, 64]] },
        dst: { tensor: 'b', offset: (i * 13) % 960, partition: [1, 1], free: [[1, 64]] },
      });
    }
    const m = b.build();
    const bySrc = new Map<number, AccessPattern>();
    for (let i = 0; i < n; i++) {
      const I = m.instrs[i];
      expect(I.src!.offset).toBe((i * 7) % 960);
      expect(I.dst!.offset).toBe((i * 13) % 960);
      const seen = bySrc.get(I.src!.offset);
      if (seen) expect(I.src).toBe(seen);
      else bySrc.set(I.src!.offset, I.src!);
    }
    expect(bySrc.size).toBe(960);
  });
});
