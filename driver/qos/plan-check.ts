/**
 * The QoS plan format (driver/qos/plan.ts) checked by hand: for a plan that matches the format, the
 * very value the zod schema's parse returns (fresh objects, keys in the schema's order), without
 * running zod. Anything this checker does not accept outright (a value out of range, an unknown
 * key, a key present but undefined, a value that is not a plain object or array where one is
 * expected) returns undefined, and parseQosPlan runs the schema itself: the schema stays the one
 * judge of a bad plan and the one author of its messages and paths.
 *
 * Every rule here is a rule of QosPlanSchema, in the same order of keys:
 *   plan      { $schema?: string, version: 1, description?: string, engines: EngineEntry[1..] }
 *   engine    { engine: id | id[1..], arbiters?, rateLimit?, queues?: QueueEntry[], description? }
 *   arbiters  { prefetch?, s2mPrefetch?: 'rr' | 'qos', dwrr?: 'on' | 'off' | Dwrr, completion?,
 *               qPromotion?: boolean }
 *   queue     { queue, class?, qos?, s2mAxiQos?, rateLimit?: Bucket, description? } (not class and qos)
 * with every number an integer in 0..the width of the register field it lands in (QOS_LIMITS).
 */
import { DMA_QOS_CLASS_NAMES } from '../../csr/formats/qos-class.ts';
import type { QosPlanJson } from './plan.ts';

/** The field maxima the schema checks against (QOS_LIMITS; passed in to keep one source). */
export interface PlanLimits {
  readonly queues: number;
  readonly axiQos: number;
  readonly qQos: number;
  readonly weight: number;
  readonly s2mAxiQos: number;
  readonly incFactor: number;
  readonly weightInc: number;
  readonly shortCycleSize: number;
  readonly streamMaxBurst: number;
  readonly queueMaxBurst: number;
  readonly refill: number;
  readonly longRefill: number;
  readonly longCycle: number;
}

type Obj = Record<string, unknown>;

/** Not a plain object (or a key the checker does not know): leave the plan to the schema. */
const NO = undefined;

const CLASSES: ReadonlySet<unknown> = new Set<unknown>(DMA_QOS_CLASS_NAMES);

const PLAN_KEYS = new Set(['$schema', 'version', 'description', 'engines']);
const ENGINE_KEYS = new Set(['engine', 'arbiters', 'rateLimit', 'queues', 'description']);
const ARBITER_KEYS = new Set(['prefetch', 's2mPrefetch', 'dwrr', 'completion', 'qPromotion']);
const DWRR_KEYS = new Set(['enabled', 'incFactor', 'weightInc', 'packetMode']);
const ENGINE_RL_KEYS = new Set(['shortCycleSize', 'packetMode', 'stream']);
const BUCKET_KEYS = new Set(['enabled', 'maxBurst', 'pause', 'refill', 'longCycle', 'longRefill']);
const QUEUE_KEYS = new Set(['queue', 'class', 'qos', 's2mAxiQos', 'rateLimit', 'description']);
const QOS_KEYS = new Set(['axiQos', 'qQos', 'weight', 'highPriority']);

/** A plain object (what JSON.parse and object literals make) whose every key is in `keys`. */
function plain(x: unknown, keys: ReadonlySet<string>): x is Obj {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in x) if (!keys.has(k)) return false;
  return true;
}

/** A plain array (holes and extra properties aside, which the element checks refuse). */
function list(x: unknown): x is unknown[] {
  return Array.isArray(x) && Object.getPrototypeOf(x) === Array.prototype;
}

/** An integer in 0..max. */
function uint(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
}

/*
 * Each optional key is read by name where it is checked (`x.pause`, `'pause' in x`): a key
 * present with the value undefined is left to the schema, which keeps such a key. Keys are copied
 * into `out` in the schema's key order, so `out` gets them in that order.
 */

function isMode(v: unknown): boolean {
  return v === 'rr' || v === 'qos';
}

/** A token bucket ({ enabled, maxBurst?, pause?, refill?, longCycle?, longRefill? }). */
function bucket(x: unknown, maxBurst: number, L: PlanLimits): Obj | undefined {
  if (!plain(x, BUCKET_KEYS) || typeof x.enabled !== 'boolean') return NO;
  const out: Obj = { enabled: x.enabled };
  const mb = x.maxBurst;
  if (mb !== undefined) {
    if (!uint(mb, maxBurst)) return NO;
    out.maxBurst = mb;
  } else if ('maxBurst' in x) return NO;
  const pause = x.pause;
  if (pause !== undefined) {
    if (typeof pause !== 'boolean') return NO;
    out.pause = pause;
  } else if ('pause' in x) return NO;
  const refill = x.refill;
  if (refill !== undefined) {
    if (!uint(refill, L.refill)) return NO;
    out.refill = refill;
  } else if ('refill' in x) return NO;
  const longCycle = x.longCycle;
  if (longCycle !== undefined) {
    if (!uint(longCycle, L.longCycle)) return NO;
    out.longCycle = longCycle;
  } else if ('longCycle' in x) return NO;
  const longRefill = x.longRefill;
  if (longRefill !== undefined) {
    if (!uint(longRefill, L.longRefill)) return NO;
    out.longRefill = longRefill;
  } else if ('longRefill' in x) return NO;
  return out;
}

/** Explicit per-queue values (at least one). */
function queueQos(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QOS_KEYS)) return NO;
  const out: Obj = {};
  let some = false;
  const axiQos = x.axiQos;
  if (axiQos !== undefined) {
    if (!uint(axiQos, L.axiQos)) return NO;
    out.axiQos = axiQos;
    some = true;
  } else if ('axiQos' in x) return NO;
  const qQos = x.qQos;
  if (qQos !== undefined) {
    if (!uint(qQos, L.qQos)) return NO;
    out.qQos = qQos;
    some = true;
  } else if ('qQos' in x) return NO;
  const weight = x.weight;
  if (weight !== undefined) {
    if (!uint(weight, L.weight)) return NO;
    out.weight = weight;
    some = true;
  } else if ('weight' in x) return NO;
  const hp = x.highPriority;
  if (hp !== undefined) {
    if (typeof hp !== 'boolean') return NO;
    out.highPriority = hp;
    some = true;
  } else if ('highPriority' in x) return NO;
  return some ? out : NO;
}

function queue(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QUEUE_KEYS) || !uint(x.queue, L.queues - 1)) return NO;
  const out: Obj = { queue: x.queue };
  const cls = x.class;
  if (cls !== undefined) {
    // not both class and qos (the schema's refinement)
    if (!CLASSES.has(cls) || x.qos !== undefined) return NO;
    out.class = cls;
  } else if ('class' in x) return NO;
  const qos = x.qos;
  if (qos !== undefined) {
    const c = queueQos(qos, L);
    if (c === NO) return NO;
    out.qos = c;
  } else if ('qos' in x) return NO;
  const s2m = x.s2mAxiQos;
  if (s2m !== undefined) {
    if (!uint(s2m, L.s2mAxiQos)) return NO;
    out.s2mAxiQos = s2m;
  } else if ('s2mAxiQos' in x) return NO;
  const rl = x.rateLimit;
  if (rl !== undefined) {
    const c = bucket(rl, L.queueMaxBurst, L);
    if (c === NO) return NO;
    out.rateLimit = c;
  } else if ('rateLimit' in x) return NO;
  const d = x.description;
  if (d !== undefined) {
    if (typeof d !== 'string') return NO;
    out.description = d;
  } else if ('description' in x) return NO;
  return out;
}

function dwrr(x: unknown, L: PlanLimits): unknown {
  if (x === 'on' || x === 'off') return x;
  if (!plain(x, DWRR_KEYS) || typeof x.enabled !== 'boolean') return NO;
  const out: Obj = { enabled: x.enabled };
  const incFactor = x.incFactor;
  if (incFactor !== undefined) {
    if (!uint(incFactor, L.incFactor)) return NO;
    out.incFactor = incFactor;
  } else if ('incFactor' in x) return NO;
  const weightInc = x.weightInc;
  if (weightInc !== undefined) {
    if (!uint(weightInc, L.weightInc)) return NO;
    out.weightInc = weightInc;
  } else if ('weightInc' in x) return NO;
  const pm = x.packetMode;
  if (pm !== undefined) {
    if (typeof pm !== 'boolean') return NO;
    out.packetMode = pm;
  } else if ('packetMode' in x) return NO;
  return out;
}

function arbiters(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ARBITER_KEYS)) return NO;
  const out: Obj = {};
  const prefetch = x.prefetch;
  if (prefetch !== undefined) {
    if (!isMode(prefetch)) return NO;
    out.prefetch = prefetch;
  } else if ('prefetch' in x) return NO;
  const s2mPrefetch = x.s2mPrefetch;
  if (s2mPrefetch !== undefined) {
    if (!isMode(s2mPrefetch)) return NO;
    out.s2mPrefetch = s2mPrefetch;
  } else if ('s2mPrefetch' in x) return NO;
  const d = x.dwrr;
  if (d !== undefined) {
    const c = dwrr(d, L);
    if (c === NO) return NO;
    out.dwrr = c;
  } else if ('dwrr' in x) return NO;
  const completion = x.completion;
  if (completion !== undefined) {
    if (!isMode(completion)) return NO;
    out.completion = completion;
  } else if ('completion' in x) return NO;
  const qp = x.qPromotion;
  if (qp !== undefined) {
    if (typeof qp !== 'boolean') return NO;
    out.qPromotion = qp;
  } else if ('qPromotion' in x) return NO;
  return out;
}

function engineRateLimit(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ENGINE_RL_KEYS)) return NO;
  const out: Obj = {};
  const scs = x.shortCycleSize;
  if (scs !== undefined) {
    if (!uint(scs, L.shortCycleSize)) return NO;
    out.shortCycleSize = scs;
  } else if ('shortCycleSize' in x) return NO;
  const pm = x.packetMode;
  if (pm !== undefined) {
    if (typeof pm !== 'boolean') return NO;
    out.packetMode = pm;
  } else if ('packetMode' in x) return NO;
  const stream = x.stream;
  if (stream !== undefined) {
    const c = bucket(stream, L.streamMaxBurst, L);
    if (c === NO) return NO;
    out.stream = c;
  } else if ('stream' in x) return NO;
  return out;
}

/** An engine id (a safe integer >= 0) or a non-empty list of them. */
function engineIds(x: unknown): unknown {
  if (uint(x, Number.MAX_SAFE_INTEGER)) return x;
  if (!list(x) || x.length === 0) return NO;
  const out: number[] = [];
  for (let i = 0; i < x.length; i++) {
    const id = x[i];
    if (!uint(id, Number.MAX_SAFE_INTEGER)) return NO;
    out.push(id);
  }
  return out;
}

function queueList(x: unknown, L: PlanLimits): Obj[] | undefined {
  if (!list(x)) return NO;
  const out: Obj[] = [];
  for (let i = 0; i < x.length; i++) {
    const v = queue(x[i], L);
    if (v === NO) return NO;
    out.push(v);
  }
  return out;
}

function engine(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ENGINE_KEYS)) return NO;
  const ids = engineIds(x.engine);
  if (ids === NO) return NO;
  const out: Obj = { engine: ids };
  const a = x.arbiters;
  if (a !== undefined) {
    const c = arbiters(a, L);
    if (c === NO) return NO;
    out.arbiters = c;
  } else if ('arbiters' in x) return NO;
  const rl = x.rateLimit;
  if (rl !== undefined) {
    const c = engineRateLimit(rl, L);
    if (c === NO) return NO;
    out.rateLimit = c;
  } else if ('rateLimit' in x) return NO;
  const qs = x.queues;
  if (qs !== undefined) {
    const c = queueList(qs, L);
    if (c === NO) return NO;
    out.queues = c;
  } else if ('queues' in x) return NO;
  const d = x.description;
  if (d !== undefined) {
    if (typeof d !== 'string') return NO;
    out.description = d;
  } else if ('description' in x) return NO;
  return out;
}

/**
 * The schema's parse of `input` when `input` is a plan this checker accepts outright (see the
 * module comment), else undefined (run the schema).
 */
export function checkPlanFormat(input: unknown, L: PlanLimits): QosPlanJson | undefined {
  if (!plain(input, PLAN_KEYS)) return NO;
  const out: Obj = {};
  const schema = input.$schema;
  if (schema !== undefined) {
    if (typeof schema !== 'string') return NO;
    out.$schema = schema;
  } else if ('$schema' in input) return NO;
  if (input.version !== 1) return NO;
  out.version = 1;
  const d = input.description;
  if (d !== undefined) {
    if (typeof d !== 'string') return NO;
    out.description = d;
  } else if ('description' in input) return NO;
  const es = input.engines;
  if (!list(es) || es.length === 0) return NO;
  const engines: Obj[] = [];
  for (let i = 0; i < es.length; i++) {
    const v = engine(es[i], L);
    if (v === NO) return NO;
    engines.push(v);
  }
  out.engines = engines;
  return out as unknown as QosPlanJson;
}
