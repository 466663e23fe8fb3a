/**
 * applyQos applies exactly planQos's writes: for many random plans, the registers it writes (and
 * leaves unchanged), the words before and after, the fields of each, what it leaves out and its
 * warnings are those of the writes planQos plans, composed as the module comment of
 * driver/qos/apply.ts says; and planQos's writes keep their invariants (fields in bit order, the
 * bits of a write the OR of its fields' bits).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DMA_QOS_CLASS_NAMES } from '../../../csr/formats/qos-class.ts';
import { placeField } from '../../../csr/runtime/fields.ts';
import { NxdmaError } from '../../../common/errors.ts';
import { applyQos, planQos, type PlannedWrite, type QosPlanInput } from '../../../driver/index.ts';
import { QOS_LIMITS as L } from '../../../driver/qos/plan.ts';
import { MockDevice } from '../../../mocks/index.ts';

const ENGINES = 3;
/** A mock of ENGINES engines with one page of memory (QoS touches registers only). */
const DEVICE = {
  engines: ENGINES,
  serviceTrace: false,
  memory: [{ name: 'host', kind: 'host' as const, base: 0, size: 4096 }],
};

const bucket = (maxBurst: number) =>
  fc.record(
    {
      enabled: fc.boolean(),
      maxBurst: fc.integer({ min: 0, max: maxBurst }),
      pause: fc.boolean(),
      refill: fc.integer({ min: 0, max: L.refill }),
      longCycle: fc.integer({ min: 0, max: L.longCycle }),
      longRefill: fc.integer({ min: 0, max: L.longRefill }),
    },
    { requiredKeys: ['enabled'] },
  );

const queueEntry = (queue: number) =>
  fc
    .record(
      {
        pick: fc.constantFrom('class', 'qos', 'none'),
        class: fc.constantFrom(...DMA_QOS_CLASS_NAMES),
        qos: fc.record(
          {
            axiQos: fc.integer({ min: 0, max: L.axiQos }),
            qQos: fc.integer({ min: 0, max: L.qQos }),
            weight: fc.integer({ min: 0, max: L.weight }),
            highPriority: fc.boolean(),
          },
          { requiredKeys: ['axiQos'] },
        ),
        s2mAxiQos: fc.option(fc.integer({ min: 0, max: L.s2mAxiQos }), { nil: undefined }),
        rateLimit: fc.option(bucket(L.queueMaxBurst), { nil: undefined }),
      },
      { requiredKeys: ['pick', 'class', 'qos'] },
    )
    .map(({ pick, class: cls, qos, s2mAxiQos, rateLimit }) => ({
      queue,
      ...(pick === 'class' ? { class: cls } : pick === 'qos' ? { qos } : {}),
      ...(s2mAxiQos !== undefined ? { s2mAxiQos } : {}),
      ...(rateLimit !== undefined ? { rateLimit } : {}),
    }));

const engineEntry = (engine: number) =>
  fc.record({
    engine: fc.constant(engine),
    rateLimit: fc.record(
      {
        shortCycleSize: fc.integer({ min: 0, max: L.shortCycleSize }),
        packetMode: fc.boolean(),
        stream: bucket(L.streamMaxBurst),
      },
      { requiredKeys: [] },
    ),
    arbiters: fc.record(
      {
        prefetch: fc.constantFrom('rr', 'qos'),
        s2mPrefetch: fc.constantFrom('rr', 'qos'),
        dwrr: fc.oneof(
          fc.constantFrom('on', 'off'),
          fc.record(
            {
              enabled: fc.boolean(),
              incFactor: fc.integer({ min: 0, max: L.incFactor }),
              weightInc: fc.integer({ min: 0, max: L.weightInc }),
              packetMode: fc.boolean(),
            },
            { requiredKeys: ['enabled'] },
          ),
        ),
        completion: fc.constantFrom('rr', 'qos'),
        qPromotion: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    queues: fc
      .uniqueArray(fc.integer({ min: 0, max: L.queues - 1 }), { maxLength: 6 })
      .chain((qs) => fc.tuple(...qs.map(queueEntry))),
  });

const plans: fc.Arbitrary<QosPlanInput> = fc
  .uniqueArray(fc.integer({ min: 0, max: ENGINES - 1 }), { minLength: 1, maxLength: ENGINES })
  .chain((es) => fc.tuple(...es.map(engineEntry)))
  .map((engines) => ({ version: 1, engines }) as QosPlanInput);

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
    const rec = {
      engine: w.engine,
      file: w.file,
      path: w.path,
      offset: w.offset,
      old,
      new: next,
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
        plans,
        fc.constantFrom(true, true, true, false),
        fc.constantFrom(false, false, false, true),
        (plan, allowInferred, strict) => {
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
      fc.property(plans, (plan) => {
        for (const w of planQos(plan, { allowInferred: true }).writes) {
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
