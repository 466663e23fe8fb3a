/**
 * Fuzzing the QoS plan parser and applyQos (driver/qos; docs/qos.md) with generated plans, mutated
 * example plans, arbitrary JSON and hostile values, applied to a mock device with strict register
 * windows (a bad register access would throw).
 *
 * Properties: only NxdmaError escapes; the plan object is left as it was; a refused plan makes no
 * register access at all (no read, no write: the register images and the shared shadow are what
 * they were); an applied plan writes only the registers its result lists, each holding the word
 * the result says; a dry run writes nothing.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../common/errors.ts';
import { DMA_QOS_CLASS_NAMES } from '../../../csr/formats/qos-class.ts';
import { applyQos, parseQosPlan, QOS_LIMITS } from '../../../driver/qos/index.ts';
import { RegisterShadow } from '../../../driver/udma/shadow.ts';
import { udmaModel } from '../../../driver/udma/regs.ts';
import { MockDevice, type RegisterAccessEvent } from '../../../mocks/index.ts';
import { expectUnchanged, fuzz, outcome, snapshot } from '../../support/fuzz.ts';
import { documentArb } from '../support/mutate.ts';
import { ENGINES, generatedPlan } from '../../support/qos-plans.ts';

const EXAMPLE = JSON.parse(
  readFileSync(new URL('../../../examples/qos-plan.json', import.meta.url), 'utf8'),
) as unknown;

const planArb = fc.oneof(
  { weight: 3, arbitrary: generatedPlan },
  { weight: 2, arbitrary: documentArb([EXAMPLE], 3) },
);
const optsArb = fc.record({
  allowInferred: fc.boolean(),
  dryRun: fc.boolean(),
  verify: fc.boolean(),
  strict: fc.boolean(),
  reportOld: fc.boolean(),
  shadow: fc.boolean(),
});

/** The codes a refused plan may carry. */
const REFUSED: ErrorCode[] = [
  'PLAN_INVALID',
  'REGISTER_INFERRED',
  'BAD_ARGUMENT',
  'DEVICE_PROFILE',
];

function images(dev: MockDevice): Buffer[] {
  return dev
    .engines()
    .flatMap((e) => [dev.udma(e).m2s.words, dev.udma(e).s2m.words])
    .map((w) => Buffer.from(w.slice().buffer));
}

/** Every word the shadow knows, for every engine and file. */
function shadowImage(s: RegisterShadow): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  for (const e of ENGINES) {
    for (const f of ['udma_m2s', 'udma_s2m'] as const) {
      for (const i of udmaModel(f).instances) out.push(s.get(e, f, i.offset));
    }
  }
  return out;
}

describe('QoS plan parser (fuzz)', () => {
  it('generated, mutated and random plans: a normalized plan or PLAN_INVALID naming a path; the input untouched', () => {
    let ok = 0;
    let bad = 0;
    fc.assert(
      fc.property(fc.oneof(planArb, fc.jsonValue({ maxDepth: 3 })), (doc) => {
        const before = snapshot(doc);
        const r = outcome(() => parseQosPlan(doc, 'fuzz-plan.json'));
        expectUnchanged(doc, before);
        if (!r.ok) {
          bad++;
          expect(r.error.code).toBe('PLAN_INVALID');
          expect(String(r.error.details.where)).toMatch(/^fuzz-plan\.json:/);
          expect(() => JSON.stringify(r.error.toJSON())).not.toThrow();
          return;
        }
        ok++;
        const p = r.value;
        // engines ascending, each once; queues ascending, each once per engine, inside the unit
        const ids = p.engines.map((e) => e.engine);
        expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
        for (const e of p.engines) {
          const qs = e.queues.map((q) => q.queue);
          expect(qs).toEqual([...new Set(qs)].sort((a, b) => a - b));
          for (const q of qs) expect(q >= 0 && q < QOS_LIMITS.queues).toBe(true);
        }
        // parsing a parsed plan is the identity
        expect(parseQosPlan(p)).toBe(p);
      }),
      fuzz(0x9051a001, 400),
    );
    expect(ok).toBeGreaterThan(0);
    expect(bad).toBeGreaterThan(0);
  });
});

describe('applyQos on a strict mock (fuzz)', () => {
  it('a refused plan touches no register; an applied one writes exactly what it reports', () => {
    let applied = 0;
    let refused = 0;
    fc.assert(
      fc.property(planArb, optsArb, (doc, o) => {
        const trace: RegisterAccessEvent[] = [];
        const dev = new MockDevice({
          engines: ENGINES,
          strict: true,
          autoRun: 'none',
          registerTrace: (ev) => trace.push(ev),
        });
        const shadow = new RegisterShadow();
        if (o.shadow) {
          // the shadow knows some words already (as after bring-up)
          for (const e of ENGINES) {
            const u = dev.udma(e);
            shadow.bind(e, 'udma_m2s', u.m2s);
            shadow.bind(e, 'udma_s2m', u.s2m);
          }
        }
        const imgBefore = images(dev);
        const shadowBefore = shadowImage(shadow);
        const docBefore = snapshot(doc);
        trace.length = 0;
        const r = outcome(() =>
          applyQos(dev, doc as never, {
            allowInferred: o.allowInferred,
            dryRun: o.dryRun,
            verify: o.verify,
            strict: o.strict,
            reportOld: o.reportOld,
            ...(o.shadow ? { shadow } : {}),
          }),
        );
        expectUnchanged(doc, docBefore, 'the plan');
        const now = images(dev);
        if (!r.ok && r.error.code !== 'VERIFY_FAILED') {
          refused++;
          expect(REFUSED, r.error.message).toContain(r.error.code);
          expect(trace, 'a refused plan accessed a register').toEqual([]);
          expect(now.every((b, i) => b.equals(imgBefore[i]))).toBe(true);
          expect(shadowImage(shadow)).toEqual(shadowBefore);
          return;
        }
        // Applied (or verify found a difference after writing): only listed registers written.
        const result = r.ok ? r.value : (r.error.details.result as ReturnType<typeof applyQos>);
        const listed = new Set(
          result.writes.map(
            (w) => `udma${w.engine}.${w.file === 'udma_m2s' ? 'm2s' : 's2m'}@${w.offset}`,
          ),
        );
        const written = trace.filter((t) => t.op === 'write');
        if (o.dryRun) expect(written).toEqual([]);
        for (const t of written) {
          expect(t.dropped).toBeUndefined();
          expect(listed.has(`${t.file}@${t.offset}`), `${t.file} ${t.path} not in the result`).toBe(
            true,
          );
        }
        expect(written.length).toBe(o.dryRun ? 0 : result.writes.length);
        for (const b of dev.engines().flatMap((e) => [dev.udma(e).m2s, dev.udma(e).s2m]))
          expect(b.counters.badAccesses).toBe(0);
        if (!o.dryRun) {
          for (const w of result.writes) {
            const file = w.file === 'udma_m2s' ? dev.udma(w.engine).m2s : dev.udma(w.engine).s2m;
            const inst = file.instanceAt(w.offset)!;
            const readable = inst.register.fields
              .filter((f) => f.readable)
              .reduce((m, f) => (m | f.mask) >>> 0, 0);
            expect((file.peek(w.offset) & readable) >>> 0, w.path).toBe((w.new & readable) >>> 0);
          }
        } else {
          expect(now.every((b, i) => b.equals(imgBefore[i]))).toBe(true);
        }
        applied++;
      }),
      fuzz(0x9051a002, 150, 2000),
    );
    expect(applied).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
