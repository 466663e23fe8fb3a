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

/**
 * The value of an optional key: `undefined` when absent; `NO_VALUE` when present but undefined
 * (the schema keeps such a key: this checker leaves it to the schema).
 */
const NO_VALUE = Symbol('present but undefined');
function opt(o: Obj, k: string): unknown {
  const v = o[k];
  return v === undefined && k in o ? NO_VALUE : v;
}

function mode(v: unknown): boolean {
  return v === 'rr' || v === 'qos';
}

/** A token bucket ({ enabled, maxBurst?, pause?, refill?, longCycle?, longRefill? }). */
function bucket(x: unknown, maxBurst: number, L: PlanLimits): Obj | undefined {
  if (!plain(x, BUCKET_KEYS)) return NO;
  const enabled = x.enabled;
  const burst = opt(x, 'maxBurst');
  const pause = opt(x, 'pause');
  const refill = opt(x, 'refill');
  const longCycle = opt(x, 'longCycle');
  const longRefill = opt(x, 'longRefill');
  if (typeof enabled !== 'boolean') return NO;
  const out: Obj = { enabled };
  if (burst !== undefined) {
    if (!uint(burst, maxBurst)) return NO;
    out.maxBurst = burst;
  }
  if (pause !== undefined) {
    if (typeof pause !== 'boolean') return NO;
    out.pause = pause;
  }
  if (refill !== undefined) {
    if (!uint(refill, L.refill)) return NO;
    out.refill = refill;
  }
  if (longCycle !== undefined) {
    if (!uint(longCycle, L.longCycle)) return NO;
    out.longCycle = longCycle;
  }
  if (longRefill !== undefined) {
    if (!uint(longRefill, L.longRefill)) return NO;
    out.longRefill = longRefill;
  }
  return out;
}

/** Explicit per-queue values (at least one). */
function queueQos(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QOS_KEYS)) return NO;
  const axiQos = opt(x, 'axiQos');
  const qQos = opt(x, 'qQos');
  const weight = opt(x, 'weight');
  const hp = opt(x, 'highPriority');
  const out: Obj = {};
  if (axiQos !== undefined) {
    if (!uint(axiQos, L.axiQos)) return NO;
    out.axiQos = axiQos;
  }
  if (qQos !== undefined) {
    if (!uint(qQos, L.qQos)) return NO;
    out.qQos = qQos;
  }
  if (weight !== undefined) {
    if (!uint(weight, L.weight)) return NO;
    out.weight = weight;
  }
  if (hp !== undefined) {
    if (typeof hp !== 'boolean') return NO;
    out.highPriority = hp;
  }
  return axiQos === undefined && qQos === undefined && weight === undefined && hp === undefined
    ? NO
    : out;
}

function queue(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QUEUE_KEYS)) return NO;
  const q = x.queue;
  const cls = opt(x, 'class');
  const qos = opt(x, 'qos');
  const s2m = opt(x, 's2mAxiQos');
  const rl = opt(x, 'rateLimit');
  const description = opt(x, 'description');
  if (!uint(q, L.queues - 1)) return NO;
  const out: Obj = { queue: q };
  if (cls !== undefined) {
    if (!CLASSES.has(cls) || qos !== undefined) return NO;
    out.class = cls;
  }
  if (qos !== undefined) {
    const v = queueQos(qos, L);
    if (v === NO) return NO;
    out.qos = v;
  }
  if (s2m !== undefined) {
    if (!uint(s2m, L.s2mAxiQos)) return NO;
    out.s2mAxiQos = s2m;
  }
  if (rl !== undefined) {
    const v = bucket(rl, L.queueMaxBurst, L);
    if (v === NO) return NO;
    out.rateLimit = v;
  }
  if (description !== undefined) {
    if (typeof description !== 'string') return NO;
    out.description = description;
  }
  return out;
}

function dwrr(x: unknown, L: PlanLimits): unknown {
  if (x === 'on' || x === 'off') return x;
  if (!plain(x, DWRR_KEYS)) return NO;
  const enabled = x.enabled;
  const incFactor = opt(x, 'incFactor');
  const weightInc = opt(x, 'weightInc');
  const packetMode = opt(x, 'packetMode');
  if (typeof enabled !== 'boolean') return NO;
  const out: Obj = { enabled };
  if (incFactor !== undefined) {
    if (!uint(incFactor, L.incFactor)) return NO;
    out.incFactor = incFactor;
  }
  if (weightInc !== undefined) {
    if (!uint(weightInc, L.weightInc)) return NO;
    out.weightInc = weightInc;
  }
  if (packetMode !== undefined) {
    if (typeof packetMode !== 'boolean') return NO;
    out.packetMode = packetMode;
  }
  return out;
}

function arbiters(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ARBITER_KEYS)) return NO;
  const prefetch = opt(x, 'prefetch');
  const s2mPrefetch = opt(x, 's2mPrefetch');
  const dw = opt(x, 'dwrr');
  const completion = opt(x, 'completion');
  const qPromotion = opt(x, 'qPromotion');
  const out: Obj = {};
  if (prefetch !== undefined) {
    if (!mode(prefetch)) return NO;
    out.prefetch = prefetch;
  }
  if (s2mPrefetch !== undefined) {
    if (!mode(s2mPrefetch)) return NO;
    out.s2mPrefetch = s2mPrefetch;
  }
  if (dw !== undefined) {
    const v = dwrr(dw, L);
    if (v === NO) return NO;
    out.dwrr = v;
  }
  if (completion !== undefined) {
    if (!mode(completion)) return NO;
    out.completion = completion;
  }
  if (qPromotion !== undefined) {
    if (typeof qPromotion !== 'boolean') return NO;
    out.qPromotion = qPromotion;
  }
  return out;
}

function engineRateLimit(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ENGINE_RL_KEYS)) return NO;
  const shortCycleSize = opt(x, 'shortCycleSize');
  const packetMode = opt(x, 'packetMode');
  const stream = opt(x, 'stream');
  const out: Obj = {};
  if (shortCycleSize !== undefined) {
    if (!uint(shortCycleSize, L.shortCycleSize)) return NO;
    out.shortCycleSize = shortCycleSize;
  }
  if (packetMode !== undefined) {
    if (typeof packetMode !== 'boolean') return NO;
    out.packetMode = packetMode;
  }
  if (stream !== undefined) {
    const v = bucket(stream, L.streamMaxBurst, L);
    if (v === NO) return NO;
    out.stream = v;
  }
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

function engine(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ENGINE_KEYS)) return NO;
  const ids = engineIds(x.engine);
  const arb = opt(x, 'arbiters');
  const rl = opt(x, 'rateLimit');
  const qs = opt(x, 'queues');
  const description = opt(x, 'description');
  if (ids === NO) return NO;
  const out: Obj = { engine: ids };
  if (arb !== undefined) {
    const v = arbiters(arb, L);
    if (v === NO) return NO;
    out.arbiters = v;
  }
  if (rl !== undefined) {
    const v = engineRateLimit(rl, L);
    if (v === NO) return NO;
    out.rateLimit = v;
  }
  if (qs !== undefined) {
    if (!list(qs)) return NO;
    const queues: Obj[] = [];
    for (let i = 0; i < qs.length; i++) {
      const v = queue(qs[i], L);
      if (v === NO) return NO;
      queues.push(v);
    }
    out.queues = queues;
  }
  if (description !== undefined) {
    if (typeof description !== 'string') return NO;
    out.description = description;
  }
  return out;
}

/**
 * The schema's parse of `input` when `input` is a plan this checker accepts outright (see the
 * module comment), else undefined (run the schema).
 */
export function checkPlanFormat(input: unknown, L: PlanLimits): QosPlanJson | undefined {
  if (!plain(input, PLAN_KEYS)) return NO;
  const $schema = opt(input, '$schema');
  const version = input.version;
  const description = opt(input, 'description');
  const es = input.engines;
  const out: Obj = {};
  if ($schema !== undefined) {
    if (typeof $schema !== 'string') return NO;
    out.$schema = $schema;
  }
  if (version !== 1) return NO;
  out.version = version;
  if (description !== undefined) {
    if (typeof description !== 'string') return NO;
    out.description = description;
  }
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
