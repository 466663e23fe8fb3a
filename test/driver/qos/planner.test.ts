import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DMAQoSClass,
  DMA_QOS_CLASS_NAMES,
  defaultQueueQos,
  toPriorityClass,
} from '../../../csr/formats/qos-class.ts';
import { planQos, parseQosPlan, QOS_LIMITS, type QosPlanInput } from '../../../driver/qos/index.ts';
import { planSchemaText, PLAN_SCHEMA_PATH } from '../../../driver/qos/gen-plan-schema.ts';
import { PlannedWords } from '../../../driver/qos/plan-words.ts';
import { planWords } from '../../../driver/qos/planner.ts';
import { expectCode } from '../udma/helpers.ts';

const EXAMPLE = new URL('../../../examples/qos-plan.json', import.meta.url);
const DOC = new URL('../../../docs/qos.md', import.meta.url);

/** A plan whose writes are computed by hand below. */
const KNOWN: QosPlanInput = {
  version: 1,
  engines: [
    {
      engine: 0,
      arbiters: {
        prefetch: 'qos',
        dwrr: { enabled: true, incFactor: 5, weightInc: 1, packetMode: true },
        completion: 'qos',
        qPromotion: false,
      },
      queues: [
        { queue: 3, qos: { axiQos: 3, qQos: 9, weight: 200 } },
        { queue: 0, class: 'P0' },
        { queue: 2, class: 'P5' },
      ],
    },
  ],
};

type W = [string, number, number, number, boolean];

describe('planQos', () => {
  it('a known plan gives exactly the hand-computed register writes, in order', () => {
    const p = planQos(KNOWN, { allowInferred: true });
    const got: W[] = p.writes.map((w) => [w.path, w.offset, w.mask, w.value, w.complete]);
    // P0 -> priority_class 1 -> level 4: AXI_qos 4, q_qos 4, weight 17 - 2 = 15, HP.
    // P5 -> class 7 -> priority_class min(6, 4) = 4 -> level 1: AXI_qos 1, q_qos 1, weight 10.
    expect(got).toEqual<W[]>([
      ['M2S_Q[0].cfg', 0x1020, 0x70000000, 0x40000000, false],
      ['M2S_Q[0].dwrr_cfg_2', 0x1084, 0xff, 4, true],
      ['M2S_Q[0].dwrr_cfg_3', 0x1088, 0xff, 15, true],
      ['M2S_Q[2].cfg', 0x3020, 0x70000000, 0x10000000, false],
      ['M2S_Q[2].dwrr_cfg_2', 0x3084, 0xff, 1, true],
      ['M2S_Q[2].dwrr_cfg_3', 0x3088, 0xff, 10, true],
      ['M2S_Q[3].cfg', 0x4020, 0x70000000, 0x30000000, false],
      ['M2S_Q[3].dwrr_cfg_2', 0x4084, 0xff, 9, true],
      ['M2S_Q[3].dwrr_cfg_3', 0x4088, 0xff, 200, true],
      // HP candidates: queue 0 yes, queue 2 no (bits 0 and 2 of enable[15:0]).
      ['AXI_M2S_MLA.high_priority', 0x008, 0b101, 0b001, false],
      // completion qos (force_rr[25] = 0), q_promotion[24] = 0.
      ['M2S_comp.cfg_1c', 0x400, 0x03000000, 0, false],
      // S2M: force_rr[16], q_promotion[12].
      ['S2M_comp.cfg_1c', 0x380, 0x00011000, 0, false],
      // en_dwrr[0] 1, pkt_mode_en[4] 1, weight_inc[9:8] 1, inc_factor[19:16] 5: every field.
      ['M2S_dwrr.cfg_sched', 0x340, 0x000f0311, 0x00050111, true],
      // Armed last: pref_force_rr[16] = 0.
      ['M2S_rd.desc_pref_cfg_2', 0x304, 0x00010000, 0, false],
    ]);
    expect(
      p.writes.every((w) => w.file === (w.path.startsWith('S2M') ? 'udma_s2m' : 'udma_m2s')),
    ).toBe(true);
    expect(p.warnings).toEqual([]);
    expect(p.skipped).toEqual([]);
  });

  it('one write per register touched, whatever the number of fields', () => {
    const p = planQos(parseQosPlan(JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'))), {
      allowInferred: true,
    });
    const keys = p.writes.map((w) => `${w.engine}:${w.file}:${w.offset}`);
    expect(new Set(keys).size).toBe(keys.length);
    const sched = p.writes.find((w) => w.engine === 0 && w.path === 'M2S_dwrr.cfg_sched')!;
    expect(sched.fields.map((f) => f.name)).toEqual([
      'en_dwrr',
      'pkt_mode_en',
      'weight_inc',
      'inc_factor',
    ]);
    // Engines 1 and 2 share one entry.
    expect([...new Set(p.writes.map((w) => w.engine))]).toEqual([0, 1, 2]);
  });

  it('the arbiters are armed after every queue register (prefetch last)', () => {
    const p = planQos(KNOWN, { allowInferred: true });
    const last = p.writes.at(-1)!;
    expect(last.path).toBe('M2S_rd.desc_pref_cfg_2');
    const firstArbiter = p.writes.findIndex(
      (w) => !w.path.includes('_Q[') && w.path !== 'AXI_M2S_MLA.high_priority',
    );
    expect(p.writes.slice(firstArbiter).every((w) => !w.path.includes('_Q['))).toBe(true);
  });

  it('is pure: the same plan gives the same writes and nothing is mutated', () => {
    const copy = JSON.parse(JSON.stringify(KNOWN));
    const a = planQos(KNOWN, { allowInferred: true });
    const b = planQos(KNOWN, { allowInferred: true });
    expect(a.writes).toEqual(b.writes);
    expect(KNOWN).toEqual(copy);
  });

  it('a plan that fails midway leaves nothing behind for the next one (the engine word tables)', () => {
    const other: QosPlanInput = {
      version: 1,
      engines: [{ engine: 0, queues: [{ queue: 5, class: 'P1' }] }, { engine: 1 }],
    };
    const before = planQos(other, { allowInferred: true });
    // A parsed plan changed to a value its field cannot hold, given to the planner itself (planQos
    // would parse the copy again and refuse it first): planning stops inside the first engine
    // after some of its words were set.
    const bad = structuredClone(parseQosPlan(KNOWN));
    (bad.engines[0].queues[2] as { qos?: object }).qos = { weight: QOS_LIMITS.weight + 1 };
    expectCode(() => planWords(bad, undefined, new PlannedWords()), 'PLAN_INVALID');
    const after = planQos(other, { allowInferred: true });
    expect(after).toStrictEqual(before);
    expect(after.writes.every((w) => w.engine === 0 && !w.path.startsWith('M2S_Q[0]'))).toBe(true);
  });

  it('the default class mapping: wire class saturated 0..4, a higher class is served first', () => {
    const p = planQos(
      {
        version: 1,
        engines: [
          {
            engine: 0,
            arbiters: { prefetch: 'qos', dwrr: 'on' },
            queues: DMA_QOS_CLASS_NAMES.slice(0, 16).map((c, q) => ({ queue: q, class: c })),
          },
        ],
      },
      { allowInferred: true },
    );
    const level = (q: number) => p.writes.find((w) => w.path === `M2S_Q[${q}].dwrr_cfg_2`)!.value;
    // Unassigned, Default: best effort; P0 highest; P3..P13 share the saturated level.
    expect(Array.from({ length: 16 }, (_, q) => level(q))).toEqual([
      0, 0, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ]);
    const hp = p.writes.find((w) => w.path === 'AXI_M2S_MLA.high_priority')!;
    expect(hp.value).toBe(1 << 2); // only P0 (queue 2)
    expect(hp.complete).toBe(true);
  });
});

describe('the arming rule (seed 004 §8.6)', () => {
  const classes = [
    { queue: 0, class: 'P0' as const },
    { queue: 1, class: 'P3' as const },
  ];
  it('classes with the arbiters left in round robin warn, naming what is missing', () => {
    const p = planQos({ version: 1, engines: [{ engine: 4, queues: classes }] });
    const w = p.warnings.find((x) => x.code === 'ARBITERS_ROUND_ROBIN')!;
    expect(w.engine).toBe(4);
    expect(w.message).toContain('pref_force_rr');
    expect(w.message).toContain('en_dwrr');
    const half = planQos({
      version: 1,
      engines: [{ engine: 4, arbiters: { prefetch: 'qos', dwrr: 'off' }, queues: classes }],
    });
    const m = half.warnings.find((x) => x.code === 'ARBITERS_ROUND_ROBIN')!.message;
    expect(m).toContain('turns DWRR off');
    expect(m).not.toContain('pref_force_rr');
  });

  it('armed plans do not warn; a forced round-robin completion arbiter does', () => {
    const ok = planQos(
      {
        version: 1,
        engines: [{ engine: 0, arbiters: { prefetch: 'qos', dwrr: 'on' }, queues: classes }],
      },
      { allowInferred: true },
    );
    expect(ok.warnings).toEqual([]);
    const rr = planQos(
      {
        version: 1,
        engines: [
          {
            engine: 0,
            arbiters: { prefetch: 'qos', dwrr: 'on', completion: 'rr' },
            queues: classes,
          },
        ],
      },
      { allowInferred: true },
    );
    expect(rr.warnings.map((w) => w.code)).toEqual(['COMPLETION_ROUND_ROBIN']);
  });

  it('a plan without per-queue QoS does not warn', () => {
    expect(
      planQos({ version: 1, engines: [{ engine: 0, arbiters: { prefetch: 'rr' } }] }).warnings,
    ).toEqual([]);
  });

  it('strict turns the warning into an error', () => {
    const e = expectCode(
      () =>
        planQos(
          { version: 1, engines: [{ engine: 0, queues: classes }] },
          { strict: true, allowInferred: true },
        ),
      'PLAN_INVALID',
    );
    expect(e.message).toContain('strict');
    expect(e.message).toContain('§8.6');
  });
});

describe('inferred registers are gated (spec/REGISTERS.md)', () => {
  it('an explicit highPriority is refused without allowInferred, naming the plan path', () => {
    const e = expectCode(
      () =>
        planQos({
          version: 1,
          engines: [{ engine: 0, queues: [{ queue: 5, qos: { weight: 3, highPriority: true } }] }],
        }),
      'REGISTER_INFERRED',
    );
    expect(e.message).toContain('AXI_M2S_MLA.high_priority');
    expect(e.message).toContain('engines[0].queues[0].qos.highPriority');
    expect(e.message).toContain('address');
  });

  it('a class-derived HP bit is left out with a warning; strict refuses it', () => {
    const plan: QosPlanInput = {
      version: 1,
      engines: [
        {
          engine: 0,
          arbiters: { prefetch: 'qos', dwrr: 'on' },
          queues: [{ queue: 0, class: 'P0' }],
        },
      ],
    };
    const p = planQos(plan);
    expect(p.writes.map((w) => w.path)).not.toContain('AXI_M2S_MLA.high_priority');
    expect(p.skipped.map((w) => w.path)).toEqual(['AXI_M2S_MLA.high_priority']);
    expect(p.warnings.map((w) => w.code)).toEqual(['INFERRED_SKIPPED']);
    expect(p.warnings[0].message).toContain('queue 0');
    expectCode(() => planQos(plan, { strict: true }), 'REGISTER_INFERRED');
    expect(planQos(plan, { allowInferred: true }).writes.map((w) => w.path)).toContain(
      'AXI_M2S_MLA.high_priority',
    );
    // Classes that are no HP candidate are left out silently.
    const p3 = planQos({
      version: 1,
      engines: [
        {
          engine: 0,
          arbiters: { prefetch: 'qos', dwrr: 'on' },
          queues: [{ queue: 0, class: 'P3' }],
        },
      ],
    });
    expect(p3.skipped).toHaveLength(1);
    expect(p3.warnings).toEqual([]);
  });

  it('S2M AXI_qos, the S2M prefetch arbiter and per-queue rate limits need allowInferred', () => {
    const one = (q: object, arbiters: object = {}) => ({
      version: 1 as const,
      engines: [{ engine: 0, arbiters, queues: [{ queue: 1, ...q }] }],
    });
    expectCode(() => planQos(one({ s2mAxiQos: 2 })), 'REGISTER_INFERRED');
    expectCode(
      () => planQos(one({ rateLimit: { enabled: true, maxBurst: 4096 } })),
      'REGISTER_INFERRED',
    );
    expectCode(
      () => planQos({ version: 1, engines: [{ engine: 0, arbiters: { s2mPrefetch: 'qos' } }] }),
      'REGISTER_INFERRED',
    );
    const rl = planQos(one({ rateLimit: { enabled: true, maxBurst: 4096 } }), {
      allowInferred: true,
    });
    expect(rl.writes.map((w) => [w.path, w.mask, w.value])).toEqual([
      ['M2S_Q[1].rate_limit_cfg_1', 0x01ffffff, 0x01001000],
      ['M2S_Q[1].rate_limit_mask', 0b10, 0],
    ]);
  });

  it('the stream rate limiter is stated by the seed: no opt-in needed', () => {
    const p = planQos({
      version: 1,
      engines: [
        {
          engine: 0,
          rateLimit: {
            shortCycleSize: 100,
            packetMode: true,
            stream: { enabled: true, maxBurst: 512, pause: false },
          },
        },
      ],
    });
    expect(p.writes.map((w) => [w.path, w.mask, w.value, w.complete])).toEqual([
      ['M2S_rate_limiter.gen_cfg', 0x0100ffff, 0x01000064, true],
      ['M2S_stream_rate_limiter.cfg_1s', 0x03ffffff, 0x01000200, true],
      ['M2S_stream_rate_limiter.mask', 0b10, 0, false],
    ]);
  });
});

describe('rate limiters: bucket size and refill rate', () => {
  const plan = (stream: object, queue?: object): QosPlanInput =>
    ({
      version: 1,
      engines: [
        {
          engine: 0,
          rateLimit: { shortCycleSize: 250, stream },
          queues: queue ? [{ queue: 2, rateLimit: queue }] : [],
        },
      ],
    }) as QosPlanInput;

  it("refill, longCycle and longRefill land in the bucket's own refill registers (inferred: need allowInferred)", () => {
    const p = plan(
      { enabled: true, maxBurst: 65536, refill: 4096, longCycle: 8, longRefill: 1000 },
      { enabled: true, maxBurst: 2048, refill: 512 },
    );
    expectCode(() => planQos(p), 'REGISTER_INFERRED');
    const r = planQos(p, { allowInferred: true });
    expect(r.writes.map((w) => [w.path, w.mask, w.value])).toEqual([
      ['M2S_Q[2].rate_limit_cfg_1', 0x01ffffff, 0x01000800],
      ['M2S_Q[2].rate_limit_cfg_token_size_2', 0x7ffff, 512],
      ['M2S_Q[2].rate_limit_mask', 0b10, 0],
      ['M2S_rate_limiter.gen_cfg', 0xffff, 250],
      ['M2S_stream_rate_limiter.cfg_1s', 0x01ffffff, 0x01010000],
      ['M2S_stream_rate_limiter.cfg_cycle', 0xffff, 8],
      ['M2S_stream_rate_limiter.cfg_token_size_1', 0x7ffff, 1000],
      ['M2S_stream_rate_limiter.cfg_token_size_2', 0x7ffff, 4096],
      ['M2S_stream_rate_limiter.mask', 0b10, 0],
    ]);
    // the mask (arming) comes after the refill words of its bucket
    expect(r.warnings).toEqual([]);
  });

  it('RATE_LIMIT_NO_REFILL: a limiter enabled without refill or longRefill is warned about (an error under strict)', () => {
    const p = plan({ enabled: true, maxBurst: 65536 }, { enabled: true, maxBurst: 4096 });
    const r = planQos(p, { allowInferred: true });
    expect(r.warnings.map((w) => [w.code, w.engine])).toEqual([
      ['RATE_LIMIT_NO_REFILL', 0],
      ['RATE_LIMIT_NO_REFILL', 0],
    ]);
    expect(r.warnings[0].message).toContain('stream rate limiter');
    expect(r.warnings[1].message).toContain('M2S_Q[2].rate_limit_cfg_token_size_1');
    const e = expectCode(() => planQos(p, { allowInferred: true, strict: true }), 'PLAN_INVALID');
    expect(e.message).toContain('no refill');
    // a disabled limiter, or one with a long-cycle refill only, needs none
    const ok = planQos(plan({ enabled: false }, { enabled: true, longRefill: 10, longCycle: 4 }), {
      allowInferred: true,
    });
    expect(ok.warnings).toEqual([]);
  });

  it('refill values are bounded by their fields (19-bit token sizes, 16-bit long cycle)', () => {
    expectCode(() => parseQosPlan(plan({ enabled: true, refill: 0x80000 })), 'PLAN_INVALID');
    expectCode(() => parseQosPlan(plan({ enabled: true, longCycle: 0x10000 })), 'PLAN_INVALID');
    expect(QOS_LIMITS.refill).toBe(0x7ffff);
    expect(QOS_LIMITS.longCycle).toBe(0xffff);
  });
});

describe('the plan format', () => {
  it('errors name the JSON path', () => {
    const bad = (plan: unknown, path: string) => {
      const e = expectCode(() => parseQosPlan(plan, 'p.json'), 'PLAN_INVALID');
      expect(e.message).toContain(path);
      return e;
    };
    bad({ version: 2, engines: [] }, 'version');
    bad(
      { version: 1, engines: [{ engine: 0, queues: [{ queue: 16, class: 'P0' }] }] },
      'engines[0].queues[0].queue',
    );
    bad(
      { version: 1, engines: [{ engine: 0, queues: [{ queue: 1, class: 'P15' }] }] },
      'engines[0].queues[0].class',
    );
    bad(
      { version: 1, engines: [{ engine: 0, queues: [{ queue: 1, qos: { axiQos: 8 } }] }] },
      'engines[0].queues[0].qos.axiQos',
    );
    bad(
      { version: 1, engines: [{ engine: 0, queues: [{ queue: 1, qos: { weight: 256 } }] }] },
      'qos.weight',
    );
    bad({ version: 1, engines: [{ engine: 0, queues: [{ queue: 1, qos: {} }] }] }, 'at least one');
    bad(
      {
        version: 1,
        engines: [{ engine: 0, queues: [{ queue: 1, class: 'P1', qos: { weight: 1 } }] }],
      },
      'either class or qos',
    );
    bad(
      {
        version: 1,
        engines: [{ engine: 0, arbiters: { dwrr: { enabled: true, incFactor: 16 } } }],
      },
      'incFactor',
    );
    bad({ version: 1, engines: [{ engine: 0, typo: 1 }] }, 'engines[0]');
    bad(
      { version: 1, engines: [{ engine: 0 }, { engine: [3, 0] }] },
      'engine 0 is already planned',
    );
    bad(
      {
        version: 1,
        engines: [
          {
            engine: 0,
            queues: [
              { queue: 2, class: 'P1' },
              { queue: 2, class: 'P2' },
            ],
          },
        ],
      },
      'queues[1]',
    );
  });

  it('ranges come from the register fields', () => {
    const ok = parseQosPlan({
      version: 1,
      engines: [{ engine: 0, queues: [{ queue: 15, qos: { axiQos: 7, qQos: 255, weight: 255 } }] }],
    });
    expect(ok.engines[0].queues[0].qos).toEqual({ axiQos: 7, qQos: 255, weight: 255 });
  });

  it('the JSON Schema export is current (driver/qos/plan.schema.json)', async () => {
    expect(fs.readFileSync(PLAN_SCHEMA_PATH, 'utf8')).toBe(await planSchemaText());
    const schema = JSON.parse(fs.readFileSync(PLAN_SCHEMA_PATH, 'utf8'));
    expect(schema.required).toEqual(['version', 'engines']);
    const q = schema.properties.engines.items.properties.queues.items.properties;
    expect(q.class.enum).toEqual(DMA_QOS_CLASS_NAMES);
    expect(q.qos.properties.axiQos.maximum).toBe(7);
  });

  it('examples/qos-plan.json is a valid plan', () => {
    const p = parseQosPlan(JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')), 'examples/qos-plan.json');
    expect(p.engines.map((e) => e.engine)).toEqual([0, 1, 2]);
  });

  it('docs/qos.md documents the default mapping exactly as defaultQueueQos computes it', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    for (const name of DMA_QOS_CLASS_NAMES) {
      const cls = DMAQoSClass[name];
      const v = defaultQueueQos(cls);
      const row = doc.split('\n').find((l) => l.startsWith(`| ${name} `));
      expect(row, `row for ${name}`).toBeDefined();
      const cells = row!
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      expect(cells).toEqual([
        name,
        String(cls),
        String(toPriorityClass(cls)),
        String(v.axiQos),
        String(v.qQos),
        String(v.weight),
        v.highPriority ? 'yes' : 'no',
      ]);
    }
  });
});
