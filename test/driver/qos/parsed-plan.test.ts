/**
 * A parsed plan is one parseQosPlan returned: frozen, and known as parsed. Any other object, however
 * parsed it looks, is parsed as a plan document, so a bad value in it is refused (PLAN_INVALID)
 * before a register is touched.
 */
import { describe, expect, it } from 'vitest';
import {
  applyQos,
  describeQosPlan,
  diffQos,
  isQosPlan,
  parseQosPlan,
  planQos,
} from '../../../driver/qos/index.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { expectCode } from '../udma/helpers.ts';
import { PLAN } from './plans.ts';

function accesses(dev: MockDevice): number {
  const u = dev.udma(0);
  return (
    u.m2s.counters.reads + u.s2m.counters.reads + u.m2s.counters.writes + u.s2m.counters.writes
  );
}

/** Objects shaped like a normalized plan (`where` on every entry), each with one bad value. */
const LOOKALIKES: [string, unknown][] = [
  ['a queue out of range', { queue: 99, class: 'P0', where: 'q' }],
  ['an unknown class', { queue: 1, class: 'Bogus', where: 'q' }],
  ['a value too wide for its field', { queue: 1, qos: { axiQos: 1e9 }, where: 'q' }],
].map(([what, q]) => [
  what as string,
  { version: 1, engines: [{ engine: 0, where: 'engines[0]', arbiters: {}, queues: [q] }] },
]);
LOOKALIKES.push(
  [
    'an unknown arbiter mode',
    { version: 1, engines: [{ engine: 0, where: 'engines[0]', arbiters: { prefetch: 'zzz' } }] },
  ],
  ['an engine entry without queues', { version: 1, engines: [{ engine: 0, where: 'engines[0]' }] }],
  ['no engine at all', { version: 1, engines: [] }],
);

describe('parsed QoS plans', () => {
  it.each(LOOKALIKES)(
    'an object that only looks parsed is parsed as a document: %s is PLAN_INVALID, nothing touched',
    (_what, plan) => {
      const dev = new MockDevice({ engines: [0] });
      const before = accesses(dev);
      expect(isQosPlan(plan)).toBe(false);
      const opts = { allowInferred: true };
      expectCode(() => applyQos(dev, plan as never, opts), 'PLAN_INVALID');
      expectCode(() => applyQos(dev, plan as never, { ...opts, dryRun: true }), 'PLAN_INVALID');
      expectCode(() => diffQos(dev, plan as never, opts), 'PLAN_INVALID');
      expectCode(() => planQos(plan as never, opts), 'PLAN_INVALID');
      expectCode(() => describeQosPlan(plan as never), 'PLAN_INVALID');
      expect(accesses(dev)).toBe(before);
    },
  );

  it("parseQosPlan's plan is frozen to its last object and passes as parsed; a copy of it does not", () => {
    const p = parseQosPlan(PLAN);
    expect(isQosPlan(p)).toBe(true);
    expect(parseQosPlan(p)).toBe(p);
    const objects: object[] = [];
    const walk = (x: unknown): void => {
      if (typeof x !== 'object' || x === null) return;
      objects.push(x);
      for (const v of Object.values(x)) walk(v);
    };
    walk(p);
    expect(objects.length).toBeGreaterThan(5);
    for (const o of objects) expect(Object.isFrozen(o)).toBe(true);
    expect(() => {
      // @ts-expect-error: the types of a parsed plan are read-only, as the plan is
      p.engines[0].queues[0].queue = 99;
    }).toThrow(TypeError);
    expect(p.engines[0].queues[0].queue).toBe(0);
    // the input is left as it was (not frozen)
    expect(Object.isFrozen(PLAN.engines[0])).toBe(false);
    // planQos hands back the parsed plan
    expect(isQosPlan(planQos(PLAN, { allowInferred: true }).plan)).toBe(true);
    // a copy is a document again: its `where` keys are not of the format
    const copy = structuredClone(p);
    expect(isQosPlan(copy)).toBe(false);
    expectCode(() => parseQosPlan(copy), 'PLAN_INVALID');
  });

  it('a parsed plan and its document apply the same words', () => {
    const a = new MockDevice({ engines: [0] });
    const b = new MockDevice({ engines: [0] });
    const ra = applyQos(a, PLAN, { allowInferred: true });
    const rb = applyQos(b, parseQosPlan(PLAN), { allowInferred: true });
    expect(rb.writes).toStrictEqual(ra.writes);
    expect(Buffer.from(b.udma(0).m2s.words.buffer)).toStrictEqual(
      Buffer.from(a.udma(0).m2s.words.buffer),
    );
  });
});
