/**
 * applyQos applies exactly planQos's writes: for many random plans, the registers it writes (and
 * leaves unchanged), the words before and after, the fields of each, what it leaves out and its
 * warnings are those of the writes planQos plans, composed as the module comment of
 * driver/qos/apply.ts says; and planQos's writes keep their invariants (fields in bit order, the
 * bits of a write the OR of its fields' bits).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeField } from '../../../csr/runtime/fields.ts';
import { NxdmaError } from '../../../common/errors.ts';
import { applyQos, planQos, type PlannedWrite, type QosPlanInput } from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { ENGINES, inRangePlan } from '../../support/qos-plans.ts';

/** A mock of the plans' engines with one page of memory (QoS touches registers only). */
const DEVICE = {
  engines: Math.max(...ENGINES) + 1,
  serviceTrace: false,
  memory: [{ name: 'host', kind: 'host' as const, base: 0, size: 4096 }],
};

function fieldValue(word: number, f: { lsb: number; width: number }): number {
  return Math.floor(word / 2 ** f.lsb) % 2 ** f.width;
}

/** What applyQos must report for planned writes `ws` on a fresh mock (no shadow knowledge). */
function expected(dev: MockDevice, ws: readonly PlannedWrite[]) {
  const writes: unknown[] = [];
  const unchanged: unknown[] = [];
  for (const w of ws) {
    const u = dev.udma(w.engine);
    const io = w.file === 'udma_m2s' ? u.m2s : u.s2m;
    const old = w.complete ? null : (io.peek(w.offset) & w.readMask) >>> 0;
    const next = (((old ?? w.reset) & ~w.mask) | w.value) >>> 0;
    // the register as planned (engine, file, path, offset), its words and its fields
    const { engine, file, path, offset } = w;
    const rec = {
      ...{ engine, file, path, offset },
      ...{ old, new: next },
      fields: w.fields.map((f) => ({
        name: f.name,
        old: old === null ? null : fieldValue(old, f),
        new: f.value,
        origin: f.origin,
      })),
    };
    (old === next ? unchanged : writes).push(rec);
  }
  return { writes, unchanged };
}

function outcome(fn: () => unknown): { ok: true; value: unknown } | { ok: false; code: string } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof NxdmaError) return { ok: false, code: `${e.code}: ${e.message}` };
    throw e;
  }
}

describe('applyQos applies planQos writes', () => {
  it('the same registers, words, fields, left-out writes and warnings, for random plans', () => {
    fc.assert(
      fc.property(
        inRangePlan,
        fc.constantFrom(true, true, true, false),
        fc.constantFrom(false, false, false, true),
        (generated, allowInferred, strict) => {
          const plan = generated as QosPlanInput;
          const opts = { allowInferred, strict };
          const planned = outcome(() => planQos(plan, opts));
          const dev = new MockDevice(DEVICE);
          if (!planned.ok) {
            // refused the same way, before any access
            const applied = outcome(() => applyQos(dev, plan, opts));
            expect(applied).toEqual(planned);
            return;
          }
          const program = planned.value as ReturnType<typeof planQos>;
          const missing = program.writes.find((w) => !dev.engines().includes(w.engine));
          if (missing !== undefined) {
            // an engine the device lacks: the device's own error, before any access
            const applied = outcome(() => applyQos(dev, plan, opts));
            expect(applied).toEqual(outcome(() => dev.udma(missing.engine)));
            return;
          }
          const want = expected(dev, program.writes);
          const r = applyQos(dev, plan, opts);
          expect(r.writes).toEqual(want.writes);
          expect(r.unchanged).toEqual(want.unchanged);
          expect(r.skipped).toEqual(program.skipped);
          expect(r.warnings).toEqual(program.warnings);
          expect(r.io.reads).toBe(program.writes.filter((w) => !w.complete).length);
          expect(r.io.writes).toBe(want.writes.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("planQos writes: fields in bit order, each write's bits the OR of its fields' bits", () => {
    fc.assert(
      fc.property(inRangePlan, (generated) => {
        const planned = outcome(() => planQos(generated as QosPlanInput, { allowInferred: true }));
        if (!planned.ok) return;
        for (const w of (planned.value as ReturnType<typeof planQos>).writes) {
          let mask = 0;
          let value = 0;
          for (let i = 0; i < w.fields.length; i++) {
            const f = w.fields[i];
            if (i > 0) expect(w.fields[i - 1].lsb).toBeLessThan(f.lsb);
            const m = placeField(2 ** f.width - 1, f);
            mask = (mask | m) >>> 0;
            value = ((value & ~m) | placeField(f.value, f)) >>> 0;
          }
          expect(w.mask).toBe(mask);
          expect(w.value).toBe(value);
        }
      }),
      { numRuns: 300 },
    );
  });
});
