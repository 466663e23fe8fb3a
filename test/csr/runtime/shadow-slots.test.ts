/**
 * ShadowIO keeps the known words of a register-file policy in a table of the file's plain
 * registers, and those of a predicate policy (and of offsets that are not a word's byte offset) in
 * a map. On random sequences of reads, writes, peeks, assumptions and forgets, a shadow over the
 * model answers exactly as a shadow over the same plain-register rule given as a predicate: every
 * value, every `knows` / `peek`, the stats and the device accesses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrayRegisterIO, ShadowIO, TracingIO, regFile } from '../../../csr/index.ts';
import { fuzz } from '../../support/fuzz.ts';

/** One call on a shadow: a method and its arguments. */
type Op =
  | { op: 'read32' | 'peek' | 'knows' | 'forget'; args: [number] }
  | { op: 'write32' | 'assume'; args: [number, number] }
  | { op: 'forget'; args: [] };

describe('ShadowIO word table', () => {
  for (const name of ['udma_m2s', 'udma_s2m'] as const) {
    it(`${name}: the model policy answers as the same rule given as a predicate`, () => {
      const model = regFile(name);
      const plain = new Set<number>();
      const others: number[] = [];
      for (const i of model.instances) {
        const r = i.register;
        if (r.access === 'RW' && r.fields.every((f) => f.access === 'RW')) plain.add(i.offset);
        else others.push(i.offset);
      }
      const plainList = [...plain];
      // The same rule as the model policy: an aligned offset whose word holds a plain register.
      const rule = (o: number) => (o & 3) === 0 && plain.has((o >>> 2) * 4);
      const at = fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...plainList) },
        { weight: 2, arbitrary: fc.constantFrom(...others) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom(...plainList), fc.constantFrom(1, 2, 0.5, 2 ** 32, -(2 ** 32)))
            .map(([o, d]) => o + d),
        },
        { weight: 1, arbitrary: fc.constantFrom(-4, model.size, model.size + 4, 2 ** 33) },
      );
      const value = fc.oneof(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(0, 0xffffffff, -1, 2 ** 32 + 5, 1.5),
      );
      const one = fc.constantFrom('read32', 'read32', 'peek', 'knows', 'forget') as fc.Arbitrary<
        'read32' | 'peek' | 'knows' | 'forget'
      >;
      const two = fc.constantFrom('write32', 'assume') as fc.Arbitrary<'write32' | 'assume'>;
      const op: fc.Arbitrary<Op> = fc.oneof(
        { weight: 6, arbitrary: fc.record({ op: one, args: fc.tuple(at) }) },
        { weight: 4, arbitrary: fc.record({ op: two, args: fc.tuple(at, value) }) },
        { weight: 1, arbitrary: fc.constant({ op: 'forget' as const, args: [] as [] }) },
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
          const mk = () => {
            const inner = ArrayRegisterIO.withResetValues(model);
            const ok = (o: number) =>
              Number.isInteger(o) && (o & 3) === 0 && o >= 0 && o < inner.size;
            // The device as the shadow sees it: every access logged, bad ones answered, not thrown.
            const dev = new TracingIO({
              size: inner.size,
              read32: (o) => (ok(o) ? inner.read32(o) : 0xdead),
              write32: (o, v) => {
                if (ok(o) && v >>> 0 === v) inner.write32(o, v);
              },
            });
            return dev;
          };
          const da = mk();
          const db = mk();
          const a = new ShadowIO(da, model);
          const b = new ShadowIO(db, rule);
          for (const o of ops) {
            const call = (sh: ShadowIO) =>
              (sh[o.op] as (...a: number[]) => unknown).apply(sh, o.args);
            expect(call(a)).toStrictEqual(call(b));
          }
          for (const o of [...plainList, ...others]) expect(a.peek(o)).toBe(b.peek(o));
          expect(a.stats).toStrictEqual(b.stats);
          expect(da.log).toStrictEqual(db.log);
        }),
        fuzz(name === 'udma_m2s' ? 0x5ad0a1 : 0x5ad0a2, 200),
      );
    });
  }

  it('shadows exactly the plain registers of its model', () => {
    const model = regFile('udma_m2s');
    const dev = ArrayRegisterIO.withResetValues(model);
    const a = new ShadowIO(dev, model);
    for (const i of model.instances) {
      a.read32(i.offset);
      const r = i.register;
      const plain = r.access === 'RW' && r.fields.every((f) => f.access === 'RW');
      expect(a.knows(i.offset)).toBe(plain);
    }
  });
});
