/**
 * The QoS plan format (docs/qos.md): what a user writes in JSON to program the arbitration of one
 * or more UDMA engines. One zod schema is the format; its types are inferred from it and its JSON
 * Schema is exported to driver/qos/plan.schema.json (`npx tsx driver/qos/gen-plan-schema.ts`).
 * Every numeric range is the width of the register field it lands in, read from the register model.
 *
 *   {
 *     "version": 1,
 *     "engines": [{
 *       "engine": 0,
 *       "arbiters": { "prefetch": "qos", "dwrr": "on" },
 *       "queues": [{ "queue": 0, "class": "P0" }, { "queue": 1, "class": "P3" }]
 *     }]
 *   }
 */
import { z } from 'zod';
import { zodIssues } from '../../common/zod-issues.ts';
import { NxdmaError } from '../../common/errors.ts';
import { DMA_QOS_CLASS_NAMES, type DMAQoSClassName } from '../../csr/formats/qos-class.ts';
import { field, queueCount } from '../udma/regs.ts';
import { checkPlanFormat } from './plan-check.ts';

/** Field maxima, from the register model (never written by hand). */
export const QOS_LIMITS = {
  queues: queueCount('udma_m2s'),
  axiQos: field('udma_m2s', 'M2S_Q[0].cfg.AXI_qos').max,
  qQos: field('udma_m2s', 'M2S_Q[0].dwrr_cfg_2.q_qos').max,
  weight: field('udma_m2s', 'M2S_Q[0].dwrr_cfg_3.weight').max,
  s2mAxiQos: field('udma_s2m', 'S2M_Q[0].cfg.AXI_qos').max,
  incFactor: field('udma_m2s', 'M2S_dwrr.cfg_sched.inc_factor').max,
  weightInc: field('udma_m2s', 'M2S_dwrr.cfg_sched.weight_inc').max,
  shortCycleSize: field('udma_m2s', 'M2S_rate_limiter.gen_cfg.short_cycle_size').max,
  streamMaxBurst: field('udma_m2s', 'M2S_stream_rate_limiter.cfg_1s.max_burst_size').max,
  queueMaxBurst: field('udma_m2s', 'M2S_Q[0].rate_limit_cfg_1.max_burst_size').max,
  refill: field('udma_m2s', 'M2S_Q[0].rate_limit_cfg_token_size_2.short_cycle').max,
  longRefill: field('udma_m2s', 'M2S_Q[0].rate_limit_cfg_token_size_1.long_cycle').max,
  longCycle: field('udma_m2s', 'M2S_Q[0].rate_limit_cfg_cycle.long_cycle_size').max,
} as const;

/**
 * One token bucket of the plan (a queue's or the stream's): armed or not, its size, pause, and its
 * refill per short and long cycle (the refill words are inferred registers). `cfg1` and `block`
 * name its registers in the descriptions (rate_limit_cfg_1 / rate_limit_cfg_*, cfg_1s / cfg_*).
 */
const bucketSchema = (maxBurst: number, cfg1: string, block: string, enabled: string) =>
  z
    .object({
      enabled: z.boolean().describe(enabled),
      maxBurst: uint(
        maxBurst,
        `${cfg1}.max_burst_size: the bucket size, the most tokens (bytes, or packets in packet mode) it holds`,
      ).optional(),
      pause: z.boolean().describe(`${cfg1}.pause: the bucket stops refilling`).optional(),
      refill: uint(
        QOS_LIMITS.refill,
        `${block}token_size_2.short_cycle: tokens added every short cycle, the refill rate (inferred: needs allowInferred)`,
      ).optional(),
      longCycle: uint(
        QOS_LIMITS.longCycle,
        `${block}cycle.long_cycle_size: short cycles per long cycle (inferred: needs allowInferred)`,
      ).optional(),
      longRefill: uint(
        QOS_LIMITS.longRefill,
        `${block}token_size_1.long_cycle: tokens added every long cycle (inferred: needs allowInferred)`,
      ).optional(),
    })
    .strict();

const uint = (max: number, what: string) =>
  z.number().int().min(0).max(max).describe(`${what} (0..${max})`);

const ArbiterMode = z.enum(['rr', 'qos']);

/** Explicit per-queue values (each optional; at least one). */
export const QueueQosSchema = z
  .object({
    axiQos: uint(QOS_LIMITS.axiQos, 'M2S_Q[q].cfg.AXI_qos').optional(),
    qQos: uint(
      QOS_LIMITS.qQos,
      'M2S_Q[q].dwrr_cfg_2.q_qos: DWRR level, higher is served first',
    ).optional(),
    weight: uint(
      QOS_LIMITS.weight,
      'M2S_Q[q].dwrr_cfg_3.weight: DWRR weight within a level',
    ).optional(),
    highPriority: z
      .boolean()
      .describe(
        'AXI_M2S_MLA.high_priority.enable bit of the queue (block base inferred: needs allowInferred)',
      )
      .optional(),
  })
  .strict()
  .refine((o) => Object.values(o).some((v) => v !== undefined), {
    message: 'qos must set at least one of axiQos, qQos, weight, highPriority',
  });

export const RateLimitSchema = bucketSchema(
  QOS_LIMITS.queueMaxBurst,
  'rate_limit_cfg_1',
  'rate_limit_cfg_',
  'rate_limit_cfg_1.en: the token bucket limits the traffic',
);

export const QueueEntrySchema = z
  .object({
    queue: uint(QOS_LIMITS.queues - 1, 'queue index'),
    class: z
      .enum(DMA_QOS_CLASS_NAMES as [DMAQoSClassName, ...DMAQoSClassName[]], {
        error: (iss) =>
          `class one of P0..P14, Default, Unassigned, got ${JSON.stringify(iss.input)}`,
      })
      .describe(
        'DMAQoSClass: AXI_qos, q_qos, weight and the HP bit from the default mapping (docs/qos.md)',
      )
      .optional(),
    qos: QueueQosSchema.describe('explicit per-queue values instead of a class').optional(),
    s2mAxiQos: uint(
      QOS_LIMITS.s2mAxiQos,
      'S2M_Q[q].cfg.AXI_qos (inferred: needs allowInferred)',
    ).optional(),
    rateLimit: RateLimitSchema.describe(
      'M2S_Q[q].rate_limit_cfg_1 and rate_limit_mask.internal_rate_limiter (inferred name: needs allowInferred)',
    ).optional(),
    description: z.string().optional(),
  })
  .strict()
  .refine((q) => !(q.class !== undefined && q.qos !== undefined), {
    message: 'give either class or qos, not both',
  });

export const DwrrSchema = z.union([
  z.enum(['on', 'off']),
  z
    .object({
      enabled: z.boolean().describe('cfg_sched.en_dwrr'),
      incFactor: uint(
        QOS_LIMITS.incFactor,
        'cfg_sched.inc_factor: quantum = weight x 2^inc_factor',
      ).optional(),
      weightInc: uint(QOS_LIMITS.weightInc, 'cfg_sched.weight_inc').optional(),
      packetMode: z
        .boolean()
        .describe('cfg_sched.pkt_mode_en: count packets instead of bytes')
        .optional(),
    })
    .strict(),
]);

export const ArbitersSchema = z
  .object({
    prefetch: ArbiterMode.describe(
      'M2S_rd.desc_pref_cfg_2.pref_force_rr: rr = 1, qos = 0',
    ).optional(),
    s2mPrefetch: ArbiterMode.describe(
      'S2M_rd.desc_pref_cfg_2.pref_force_rr (inferred: needs allowInferred)',
    ).optional(),
    dwrr: DwrrSchema.describe('M2S_dwrr.cfg_sched').optional(),
    completion: ArbiterMode.describe(
      'M2S_comp.cfg_1c.force_rr and S2M_comp.cfg_1c.force_rr',
    ).optional(),
    qPromotion: z
      .boolean()
      .describe('M2S_comp.cfg_1c.q_promotion and S2M_comp.cfg_1c.q_promotion')
      .optional(),
  })
  .strict();

export const EngineRateLimitSchema = z
  .object({
    shortCycleSize: uint(
      QOS_LIMITS.shortCycleSize,
      'M2S_rate_limiter.gen_cfg.short_cycle_size',
    ).optional(),
    packetMode: z.boolean().describe('M2S_rate_limiter.gen_cfg.pkt_mode_en').optional(),
    stream: bucketSchema(
      QOS_LIMITS.streamMaxBurst,
      'cfg_1s',
      'cfg_',
      'cfg_1s.en, and mask.internal_rate_limiter cleared',
    )
      .describe('M2S_stream_rate_limiter')
      .optional(),
  })
  .strict();

const engineId = z.number().int().min(0).describe('engine id of the device profile');

export const EngineEntrySchema = z
  .object({
    engine: z
      .union([engineId, z.array(engineId).min(1)])
      .describe('one engine or a list sharing this entry'),
    arbiters: ArbitersSchema.optional(),
    rateLimit: EngineRateLimitSchema.optional(),
    queues: z.array(QueueEntrySchema).optional(),
    description: z.string().optional(),
  })
  .strict();

export const QosPlanSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1),
    description: z.string().optional(),
    engines: z.array(EngineEntrySchema).min(1),
  })
  .strict()
  .describe('nxdma QoS plan: per-engine arbiter modes, rate limits and per-queue QoS');

export type QosPlanInput = z.input<typeof QosPlanSchema>;
export type QosPlanJson = z.output<typeof QosPlanSchema>;
export type QueueQosInput = z.output<typeof QueueQosSchema>;
type QueueEntryJson = z.output<typeof QueueEntrySchema>;
export type RateLimitInput = z.output<typeof RateLimitSchema>;
export type ArbitersInput = z.output<typeof ArbitersSchema>;
export type EngineRateLimitInput = z.output<typeof EngineRateLimitSchema>;

// ---------------------------------------------------------------------------------------------
// The normalized plan: one entry per engine, queues sorted, DWRR shorthand expanded.

// A parsed plan is frozen (parseQosPlan): its types are read-only to the last property.

export interface PlanDwrr {
  readonly enabled: boolean;
  readonly incFactor?: number;
  readonly weightInc?: number;
  readonly packetMode?: boolean;
}

export interface PlanArbiters {
  readonly prefetch?: 'rr' | 'qos';
  readonly s2mPrefetch?: 'rr' | 'qos';
  readonly dwrr?: PlanDwrr;
  readonly completion?: 'rr' | 'qos';
  readonly qPromotion?: boolean;
}

export interface PlanQueue {
  readonly queue: number;
  readonly class?: DMAQoSClassName;
  readonly qos?: Readonly<QueueQosInput>;
  readonly s2mAxiQos?: number;
  readonly rateLimit?: Readonly<RateLimitInput>;
  /** JSON path of the entry ("engines[0].queues[2]"). */
  readonly where: string;
}

export interface PlanEngine {
  readonly engine: number;
  readonly arbiters: PlanArbiters;
  readonly rateLimit?: Readonly<
    Omit<EngineRateLimitInput, 'stream'> & { stream?: Readonly<RateLimitInput> }
  >;
  readonly queues: readonly PlanQueue[];
  /** JSON path of the entry ("engines[0]"). */
  readonly where: string;
}

/** A validated plan: engines ascending, each once. */
export interface QosPlan {
  readonly version: 1;
  readonly description?: string;
  readonly engines: readonly PlanEngine[];
}

/** A plan entry being built (normalizePlan): its properties writable. */
type Building<T> = { -readonly [K in keyof T]: T[K] };

/** A plan's path: the JSON path without its `$.` (`engines[0].queues[2]`), `(plan)` for the root. */
function planPath(path: string): string {
  return path.replace(/^\$\.?/, '') || '(plan)';
}

/** The QoS plan format, as zod issues name it. */
const PLAN_FORMAT = { name: 'the QoS plan format', schema: 'driver/qos/plan.schema.json' };

/**
 * The plans parseQosPlan returned: validated, then frozen to their last object (so still valid).
 * Only these pass as parsed; any other object is parsed as a plan document, however parsed it looks.
 */
const validatedPlans = new WeakSet<object>();

/** True for a plan parseQosPlan returned (planQos and applyQos take it without parsing again). */
export function isQosPlan(v: unknown): v is QosPlan {
  return typeof v === 'object' && v !== null && validatedPlans.has(v);
}

/** Freezes every object and array of a normalized plan, and marks it validated. */
function sealPlan(plan: QosPlan): QosPlan {
  deepFreeze(plan);
  validatedPlans.add(plan);
  return plan;
}

function deepFreeze(x: object): void {
  for (const v of Object.values(x)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  Object.freeze(x);
}

/**
 * Validates a plan (parsed JSON) and normalizes it. Throws NxdmaError PLAN_INVALID naming the JSON
 * path of every problem (`source` prefixes the path: a file name). The plan returned is frozen,
 * and passes isQosPlan.
 */
export function parseQosPlan(input: unknown, source = 'plan'): QosPlan {
  if (isQosPlan(input)) return input;
  return sealPlan(readQosPlan(input, source));
}

/**
 * parseQosPlan for a caller the plan never leaves (applyQos, diffQos, describeQosPlan): the same
 * validation and normalized plan, neither frozen nor marked (nothing outside the caller can reach
 * it).
 */
export function readQosPlan(input: unknown, source = 'plan'): QosPlan {
  if (isQosPlan(input)) return input;
  const checked = checkPlanFormat(input, QOS_LIMITS);
  if (checked !== undefined) return normalizePlan(checked, source, true);
  return normalizePlan(schemaParse(input, source), source, false);
}

/**
 * parseQosPlan with the schema alone (no hand checker): the reference the checker is tested
 * against (test/driver/qos/plan-check.test.ts).
 */
export function parseQosPlanWithSchema(input: unknown, source = 'plan'): QosPlan {
  if (isQosPlan(input)) return input;
  return sealPlan(normalizePlan(schemaParse(input, source), source, false));
}

/** The schema's parse of a plan; PLAN_INVALID naming every problem's JSON path. */
function schemaParse(input: unknown, source: string): QosPlanJson {
  const r = QosPlanSchema.safeParse(input);
  if (!r.success) {
    const issues = zodIssues(r.error, input, PLAN_FORMAT).map((i) => ({
      path: planPath(i.path),
      message: i.message,
    }));
    const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    throw new NxdmaError(
      'PLAN_INVALID',
      `${source}: invalid QoS plan: ${shown.join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}`,
      {
        where: `${source}:${issues[0]?.path ?? ''}`,
        expected: 'a plan matching driver/qos/plan.schema.json',
        actual: issues,
        issues,
      },
    );
  }
  return r.data;
}

/**
 * A queue entry of the plan with the JSON path of the entry: `{ ...q, where }`, its keys copied by
 * name in the schema's order (the order of every parsed entry: the schema's and the checker's
 * output objects list their keys in that order, and have no other).
 */
function planQueue(q: QueueEntryJson, where: string): PlanQueue {
  const pq = { queue: q.queue } as Building<PlanQueue>;
  if ('class' in q) pq.class = q.class;
  if ('qos' in q) pq.qos = q.qos;
  if ('s2mAxiQos' in q) pq.s2mAxiQos = q.s2mAxiQos;
  if ('rateLimit' in q) pq.rateLimit = q.rateLimit;
  if ('description' in q) (pq as { description?: string }).description = q.description;
  pq.where = where;
  return pq;
}

/**
 * The plan's queue entry `q` as its first engine's PlanQueue: `q` itself with its path added, `q`
 * being the checker's fresh entry (its keys in the schema's order, nothing else), which only this
 * engine's plan holds.
 */
function ownPlanQueue(q: QueueEntryJson, where: string): PlanQueue {
  const pq = q as Building<PlanQueue>;
  pq.where = where;
  return pq;
}

/**
 * One entry per engine, queues sorted, DWRR shorthand expanded; duplicates are PLAN_INVALID.
 * `fresh`: the plan is the checker's (checkPlanFormat), made for this parse: its queue entries
 * become the first engine's PlanQueues (see ownPlanQueue); the schema's are copied (planQueue).
 */
function normalizePlan(plan: QosPlanJson, source: string, fresh: boolean): QosPlan {
  const byEngine = new Map<number, PlanEngine>();
  const entries = plan.engines;
  /** Per queue number: the index of its entry in the engine entry being read (-1: none yet). */
  const seenQ = new Int32Array(QOS_LIMITS.queues);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const where = `engines[${i}]`;
    const ids = Array.isArray(e.engine) ? e.engine : [e.engine];
    const qs = e.queues ?? [];
    seenQ.fill(-1);
    for (let j = 0; j < qs.length; j++) {
      const q = qs[j];
      const prev = seenQ[q.queue];
      if (prev >= 0) {
        throw new NxdmaError(
          'PLAN_INVALID',
          `${source}: ${where}.queues[${j}]: queue ${q.queue} is already planned at ${where}.queues[${prev}]`,
          {
            where: `${source}:${where}.queues[${j}].queue`,
            expected: 'each queue once per engine',
            actual: q.queue,
          },
        );
      }
      seenQ[q.queue] = j;
    }
    const dwrr: PlanDwrr | undefined =
      e.arbiters?.dwrr === undefined
        ? undefined
        : typeof e.arbiters.dwrr === 'string'
          ? { enabled: e.arbiters.dwrr === 'on' }
          : { ...e.arbiters.dwrr };
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      const own = fresh && k === 0;
      const prev = byEngine.get(id);
      if (prev !== undefined) {
        throw new NxdmaError(
          'PLAN_INVALID',
          `${source}: ${where}: engine ${id} is already planned at ${prev.where}`,
          { where: `${source}:${where}.engine`, expected: 'each engine in one entry', actual: id },
        );
      }
      // The entry's arbiter modes with the DWRR shorthand expanded (dropped when not given), keys
      // in the schema's order.
      const arbiters: Building<PlanArbiters> = {};
      const given = e.arbiters;
      if (given !== undefined) {
        if ('prefetch' in given) arbiters.prefetch = given.prefetch;
        if ('s2mPrefetch' in given) arbiters.s2mPrefetch = given.s2mPrefetch;
        if ('dwrr' in given && dwrr !== undefined) arbiters.dwrr = dwrr;
        if ('completion' in given) arbiters.completion = given.completion;
        if ('qPromotion' in given) arbiters.qPromotion = given.qPromotion;
      }
      // Queues in queue order (each once: seenQ), each with the path of its entry.
      const queues: PlanQueue[] = [];
      for (let n = 0; n < seenQ.length; n++) {
        const j = seenQ[n];
        if (j < 0) continue;
        const at = `${where}.queues[${j}]`;
        queues.push(own ? ownPlanQueue(qs[j], at) : planQueue(qs[j], at));
      }
      byEngine.set(
        id,
        e.rateLimit
          ? { engine: id, arbiters, rateLimit: e.rateLimit, queues, where }
          : { engine: id, arbiters, queues, where },
      );
    }
  }
  return {
    version: 1,
    ...(plan.description !== undefined ? { description: plan.description } : {}),
    engines: [...byEngine.values()].sort((a, b) => a.engine - b.engine),
  };
}

/** The JSON Schema of the plan format (what driver/qos/plan.schema.json holds). */
export function qosPlanJsonSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(QosPlanSchema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    $schema: s.$schema,
    $id: 'https://nxdma.dev/schemas/qos-plan.schema.json',
    title: 'nxdma QoS plan',
    ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$schema')),
  };
}
