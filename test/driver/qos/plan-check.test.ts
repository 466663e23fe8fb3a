/**
 * The hand checker of the QoS plan format (driver/qos/plan-check.ts) against the zod schema it
 * stands in for: on generated plans (every key of the format, values at and just past every
 * limit, keys present but undefined, unknown keys), mutated example plans and random JSON,
 * parseQosPlan and the schema-only parse return the same plan (same keys in the same order, same
 * values, -0 and undefined included) or throw the same error; whatever the checker accepts is
 * exactly the schema's output, in fresh objects. The planner's words list each field once, in bit
 * order.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DMA_QOS_CLASS_NAMES } from '../../../csr/formats/qos-class.ts';
import { checkPlanFormat } from '../../../driver/qos/plan-check.ts';
import { planQos } from '../../../driver/qos/planner.ts';
import {
  QOS_LIMITS,
  QosPlanSchema,
  parseQosPlan,
  parseQosPlanWithSchema,
} from '../../../driver/qos/plan.ts';
import { fuzz, outcome } from '../../support/fuzz.ts';
import { documentArb } from '../../proof/support/mutate.ts';

const EXAMPLE = JSON.parse(
  readFileSync(new URL('../../../examples/qos-plan.json', import.meta.url), 'utf8'),
) as unknown;

/** A value's structure as text: keys in order, undefined values and -0 kept. */
function shape(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x === undefined ? '<undefined>' : Object.is(x, -0) ? '<-0>' : x,
  );
}

/** Every object and array inside `v`. */
function objects(v: unknown, out = new Set<unknown>()): Set<unknown> {
  if (v !== null && typeof v === 'object' && !out.has(v)) {
    out.add(v);
    for (const x of Object.values(v)) objects(x, out);
  }
  return out;
}

/** A number at, inside or just past 0..max, or a value of another type. */
const num = (max: number) =>
  fc.oneof(
    { weight: 40, arbitrary: fc.integer({ min: 0, max }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(max, max + 1, -1, -0, 0.5, NaN, '1', null) },
  );
const bool = fc.oneof({ weight: 40, arbitrary: fc.boolean() }, fc.constantFrom<unknown>(0, 'true'));
const mode = fc.oneof({ weight: 40, arbitrary: fc.constantFrom('rr', 'qos') }, fc.constant('RR'));
/** A record whose optional keys may also be present with the value undefined, or an extra key. */
const rec = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) =>
  fc
    .tuple(
      fc.record(fields, { requiredKeys: required }),
      fc.oneof(
        { weight: 40, arbitrary: fc.constant(null) },
        fc.constantFrom(...Object.keys(fields)),
      ),
      fc.oneof({ weight: 40, arbitrary: fc.constant(null) }, fc.constantFrom('extra', '__proto__')),
    )
    .map(([o, undef, extra]) => {
      const x: Record<string, unknown> = { ...o };
      if (undef !== null) x[undef] = undefined;
      if (extra !== null) Object.defineProperty(x, extra, { value: 1, enumerable: true });
      return x;
    });
const bucket = (maxBurst: number) =>
  rec(
    {
      enabled: bool,
      maxBurst: num(maxBurst),
      pause: bool,
      refill: num(QOS_LIMITS.refill),
      longCycle: num(QOS_LIMITS.longCycle),
      longRefill: num(QOS_LIMITS.longRefill),
    },
    ['enabled'],
  );
const queueFields = rec(
  {
    queue: num(QOS_LIMITS.queues - 1),
    class: fc.oneof(
      { weight: 40, arbitrary: fc.constantFrom(...DMA_QOS_CLASS_NAMES) },
      fc.constant('P15'),
    ),
    qos: rec({
      axiQos: num(QOS_LIMITS.axiQos),
      qQos: num(QOS_LIMITS.qQos),
      weight: num(QOS_LIMITS.weight),
      highPriority: bool,
    }),
    s2mAxiQos: num(QOS_LIMITS.s2mAxiQos),
    rateLimit: bucket(QOS_LIMITS.queueMaxBurst),
    description: fc.oneof({ weight: 9, arbitrary: fc.string({ maxLength: 6 }) }, fc.constant(3)),
  },
  ['queue'],
);
/** Mostly class or qos, as the format asks; sometimes both. */
const queueArb = fc.tuple(queueFields, fc.nat(9)).map(([q, n]) => {
  if (n > 0 && 'class' in q) delete q.qos;
  return q;
});
const idArb = fc.oneof(
  { weight: 40, arbitrary: fc.integer({ min: 0, max: 20 }) },
  fc.constantFrom<unknown>(-1, 2 ** 53, 1.5, '0'),
);
const engineArb = rec(
  {
    engine: fc.oneof(
      { weight: 4, arbitrary: idArb },
      fc.array(idArb, { minLength: 0, maxLength: 3 }),
    ),
    arbiters: rec({
      prefetch: mode,
      s2mPrefetch: mode,
      dwrr: fc.oneof(
        fc.constantFrom('on', 'off', 'on', 'off', 'yes'),
        rec(
          {
            enabled: bool,
            incFactor: num(QOS_LIMITS.incFactor),
            weightInc: num(QOS_LIMITS.weightInc),
            packetMode: bool,
          },
          ['enabled'],
        ),
      ),
      completion: mode,
      qPromotion: bool,
    }),
    rateLimit: rec({
      shortCycleSize: num(QOS_LIMITS.shortCycleSize),
      packetMode: bool,
      stream: bucket(QOS_LIMITS.streamMaxBurst),
    }),
    queues: fc.array(queueArb, { maxLength: 5 }),
    description: fc.string({ maxLength: 4 }),
  },
  ['engine'],
);
const planArb = rec(
  {
    $schema: fc.oneof({ weight: 9, arbitrary: fc.constant('s.json') }, fc.constant(1)),
    version: fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, fc.constantFrom(2, '1')),
    description: fc.string({ maxLength: 4 }),
    engines: fc.array(engineArb, { minLength: 0, maxLength: 3 }),
  },
  ['version', 'engines'],
);
const docArb = fc.oneof(
  { weight: 6, arbitrary: planArb },
  { weight: 3, arbitrary: documentArb([EXAMPLE], 3) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

describe('QoS plan hand checker', () => {
  it('parseQosPlan and the schema-only parse agree on every plan (same plan, or the same error)', () => {
    let fast = 0;
    let valid = 0;
    let schemaOnly = 0;
    fc.assert(
      fc.property(docArb, (doc) => {
        const a = outcome(() => parseQosPlan(doc, 'p.json'));
        const b = outcome(() => parseQosPlanWithSchema(doc, 'p.json'));
        expect(a.ok).toBe(b.ok);
        if (a.ok && b.ok) {
          valid++;
          expect(shape(a.value)).toBe(shape(b.value));
          expect(a.value).toStrictEqual(b.value);
        } else if (!a.ok && !b.ok) {
          expect(a.error.code).toBe(b.error.code);
          expect(a.error.message).toBe(b.error.message);
          expect(a.error.details).toStrictEqual(b.error.details);
        }
        const checked = checkPlanFormat(doc, QOS_LIMITS);
        if (a.ok && checked === undefined) schemaOnly++;
        if (checked !== undefined) {
          fast++;
          const z = QosPlanSchema.safeParse(doc);
          expect(z.success).toBe(true);
          expect(shape(checked)).toBe(shape(z.data));
          // fresh objects: nothing of the input is part of the output
          const inside = objects(doc);
          for (const o of objects(checked)) expect(inside.has(o)).toBe(false);
        }
      }),
      fuzz(0x9051a0c1, 1500),
    );
    // the properties above are exercised on both sides: plans the checker takes, and valid plans
    // only the schema takes
    expect(fast).toBeGreaterThan(150);
    expect(valid).toBeGreaterThan(150);
    expect(schemaOnly).toBeGreaterThan(0);
  });

  it('the example plan and the format-wide plans are taken by the checker', () => {
    const z = QosPlanSchema.parse(EXAMPLE);
    expect(shape(checkPlanFormat(EXAMPLE, QOS_LIMITS))).toBe(shape(z));
  });

  it('leaves to the schema what it does not accept outright', () => {
    const base = { version: 1, engines: [{ engine: 0, queues: [{ queue: 0, class: 'P0' }] }] };
    expect(checkPlanFormat(base, QOS_LIMITS)).toBeDefined();
    const undef = { version: 1, engines: [{ engine: 0, description: undefined }] };
    expect(checkPlanFormat(undef, QOS_LIMITS)).toBeUndefined();
    expect(shape(parseQosPlan(undef))).toBe(shape(parseQosPlanWithSchema(undef)));
    class Entry {
      engine = 0;
    }
    const inst = { version: 1, engines: [new Entry()] };
    expect(checkPlanFormat(inst, QOS_LIMITS)).toBeUndefined();
    expect(parseQosPlan(inst)).toStrictEqual(parseQosPlanWithSchema(inst));
    const both = {
      version: 1,
      engines: [{ engine: 0, queues: [{ queue: 0, class: 'P0', qos: { weight: 1 } }] }],
    };
    expect(checkPlanFormat(both, QOS_LIMITS)).toBeUndefined();
    expect(() => parseQosPlan(both)).toThrow(/give either class or qos/);
  });
});

/** A plan giving every key of the format, each within its limits. */
const FULL = {
  $schema: 's.json',
  version: 1,
  description: 'd',
  engines: [
    {
      engine: [0, 1],
      arbiters: {
        prefetch: 'qos',
        s2mPrefetch: 'rr',
        dwrr: { enabled: true, incFactor: 1, weightInc: 1, packetMode: false },
        completion: 'qos',
        qPromotion: true,
      },
      rateLimit: {
        shortCycleSize: 1,
        packetMode: false,
        stream: {
          enabled: true,
          maxBurst: 1,
          pause: false,
          refill: 1,
          longCycle: 1,
          longRefill: 1,
        },
      },
      queues: [
        { queue: 0, class: 'P0', s2mAxiQos: 1, description: 'q' },
        {
          queue: 1,
          qos: { axiQos: 1, qQos: 1, weight: 1, highPriority: true },
          rateLimit: {
            enabled: true,
            maxBurst: 1,
            pause: true,
            refill: 1,
            longCycle: 1,
            longRefill: 1,
          },
        },
      ],
      description: 'e',
    },
    { engine: 2, arbiters: { dwrr: 'off' } },
  ],
};

/** Every object and array of `v` with its path, and every key of each object. */
function* places(v: unknown, path: (string | number)[] = []): Generator<(string | number)[]> {
  yield path;
  if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v))
      yield* places(x, [...path, Array.isArray(v) ? Number(k) : k]);
}

/** A copy of `doc` with `edit` applied to the value at `path` (its parent and key). */
function edited(
  doc: unknown,
  path: (string | number)[],
  edit: (parent: Record<string | number, unknown>, k: string | number) => void,
): unknown {
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  edit(parent, path[path.length - 1]);
  return copy;
}

describe('QoS plan hand checker on bad plans', () => {
  it('refuses every bad value, missing key and extra key at every place of a full plan, and parseQosPlan reports what the schema does', () => {
    expect(shape(checkPlanFormat(FULL, QOS_LIMITS))).toBe(shape(QosPlanSchema.parse(FULL)));
    const bad: unknown[] = [
      undefined,
      null,
      -1,
      0.5,
      2 ** 32,
      2 ** 53,
      '1',
      'qos',
      true,
      {},
      [],
      [-1],
    ];
    let refused = 0;
    for (const path of places(FULL)) {
      const docs: unknown[] = [];
      if (path.length > 0) {
        const at = path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], FULL);
        // a number: also each side of every field width's limit (2^w - 1, 2^w)
        const values =
          typeof at === 'number'
            ? [...bad, ...Array.from({ length: 33 }, (_, w) => [2 ** w - 1, 2 ** w]).flat()]
            : bad;
        for (const b of values) docs.push(edited(FULL, path, (o, k) => void (o[k] = b)));
        docs.push(
          edited(
            FULL,
            path,
            (o, k) => void (Array.isArray(o) ? o.splice(Number(k), 1) : delete o[k]),
          ),
        );
      }
      docs.push(
        edited(FULL, [...path, 'extra'], (o, k) => {
          if (o !== null && typeof o === 'object' && !Array.isArray(o)) o[k] = 1;
        }),
      );
      for (const doc of docs) {
        const z = QosPlanSchema.safeParse(doc);
        const checked = checkPlanFormat(doc, QOS_LIMITS);
        if (!z.success) {
          refused++;
          expect(checked).toBeUndefined();
        } else expect(shape(checked ?? z.data)).toBe(shape(z.data));
        const a = outcome(() => parseQosPlan(doc, 'p.json'));
        const b = outcome(() => parseQosPlanWithSchema(doc, 'p.json'));
        expect(a.ok).toBe(b.ok);
        if (!a.ok && !b.ok) {
          expect(a.error.code).toBe(b.error.code);
          expect(a.error.message).toBe(b.error.message);
          expect(a.error.details).toStrictEqual(b.error.details);
        } else if (a.ok && b.ok) expect(shape(a.value)).toBe(shape(b.value));
      }
    }
    expect(refused).toBeGreaterThan(500);
  });

  it('puts keys given out of the schema order in that order', () => {
    const doc = {
      engines: [
        {
          queues: [{ class: 'P1', queue: 3 }],
          arbiters: { dwrr: 'on', prefetch: 'qos' },
          engine: 0,
        },
      ],
      version: 1,
    };
    const checked = checkPlanFormat(doc, QOS_LIMITS);
    expect(checked).toBeDefined();
    expect(shape(checked)).toBe(shape(QosPlanSchema.parse(doc)));
    expect(Object.keys(checked!)).toEqual(['version', 'engines']);
    expect(Object.keys(checked!.engines[0])).toEqual(['engine', 'arbiters', 'queues']);
  });
});

describe('planned words', () => {
  it('list their fields once each, in bit order, on every accepted plan', () => {
    let planned = 0;
    fc.assert(
      fc.property(docArb, (doc) => {
        const r = outcome(() => planQos(doc as never, { allowInferred: true }));
        if (!r.ok) return;
        for (const w of r.value.writes) {
          planned++;
          const names = w.fields.map((f) => f.name);
          expect(new Set(names).size).toBe(names.length);
          expect(w.fields).toEqual([...w.fields].sort((a, b) => a.lsb - b.lsb));
          const mask = w.fields.reduce(
            (m, f) => (m | (((2 ** f.width - 1) << f.lsb) >>> 0)) >>> 0,
            0,
          );
          expect(mask).toBe(w.mask);
        }
      }),
      fuzz(0x9051a0c2, 300),
    );
    expect(planned).toBeGreaterThan(100);
  });
});
