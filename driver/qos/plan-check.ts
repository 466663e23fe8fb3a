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

/*
 * The optional keys: each copies key `k` of `x` into `out` when present and valid, and returns
 * false when it is present but not valid (the plan then goes to the schema). Called in the
 * schema's key order, so `out` gets the keys in that order.
 */

/** An optional integer in 0..max. */
function optUint(x: Obj, k: string, max: number, out: Obj): boolean {
  const v = opt(x, k);
  if (v === undefined) return true;
  if (!uint(v, max)) return false;
  out[k] = v;
  return true;
}

/** An optional key whose value passes `test` (a boolean, a string, an arbiter mode). */
function optWhen(x: Obj, k: string, test: (v: unknown) => boolean, out: Obj): boolean {
  const v = opt(x, k);
  if (v === undefined) return true;
  if (!test(v)) return false;
  out[k] = v;
  return true;
}

function isBool(v: unknown): boolean {
  return typeof v === 'boolean';
}

function isString(v: unknown): boolean {
  return typeof v === 'string';
}

/** An arbiter mode ('rr' | 'qos'). */
function isMode(v: unknown): boolean {
  return v === 'rr' || v === 'qos';
}

/** An optional object key checked by `check` (undefined: not valid). */
function optObj<A>(
  x: Obj,
  k: string,
  check: (v: unknown, a: A) => unknown,
  a: A,
  out: Obj,
): boolean {
  const v = opt(x, k);
  if (v === undefined) return true;
  const c = check(v, a);
  if (c === NO) return false;
  out[k] = c;
  return true;
}

/** A token bucket ({ enabled, maxBurst?, pause?, refill?, longCycle?, longRefill? }). */
function bucket(x: unknown, maxBurst: number, L: PlanLimits): Obj | undefined {
  if (!plain(x, BUCKET_KEYS) || typeof x.enabled !== 'boolean') return NO;
  const out: Obj = { enabled: x.enabled };
  return optUint(x, 'maxBurst', maxBurst, out) &&
    optWhen(x, 'pause', isBool, out) &&
    optUint(x, 'refill', L.refill, out) &&
    optUint(x, 'longCycle', L.longCycle, out) &&
    optUint(x, 'longRefill', L.longRefill, out)
    ? out
    : NO;
}

function queueBucket(x: unknown, L: PlanLimits): Obj | undefined {
  return bucket(x, L.queueMaxBurst, L);
}

function streamBucket(x: unknown, L: PlanLimits): Obj | undefined {
  return bucket(x, L.streamMaxBurst, L);
}

/** Explicit per-queue values (at least one). */
function queueQos(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QOS_KEYS)) return NO;
  const out: Obj = {};
  return optUint(x, 'axiQos', L.axiQos, out) &&
    optUint(x, 'qQos', L.qQos, out) &&
    optUint(x, 'weight', L.weight, out) &&
    optWhen(x, 'highPriority', isBool, out) &&
    (out.axiQos !== undefined ||
      out.qQos !== undefined ||
      out.weight !== undefined ||
      out.highPriority !== undefined)
    ? out
    : NO;
}

function queue(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, QUEUE_KEYS) || !uint(x.queue, L.queues - 1)) return NO;
  const out: Obj = { queue: x.queue };
  const cls = opt(x, 'class');
  if (cls !== undefined) {
    // not both class and qos (the schema's refinement)
    if (!CLASSES.has(cls) || x.qos !== undefined) return NO;
    out.class = cls;
  }
  return optObj(x, 'qos', queueQos, L, out) &&
    optUint(x, 's2mAxiQos', L.s2mAxiQos, out) &&
    optObj(x, 'rateLimit', queueBucket, L, out) &&
    optWhen(x, 'description', isString, out)
    ? out
    : NO;
}

function dwrr(x: unknown, L: PlanLimits): unknown {
  if (x === 'on' || x === 'off') return x;
  if (!plain(x, DWRR_KEYS) || typeof x.enabled !== 'boolean') return NO;
  const out: Obj = { enabled: x.enabled };
  return optUint(x, 'incFactor', L.incFactor, out) &&
    optUint(x, 'weightInc', L.weightInc, out) &&
    optWhen(x, 'packetMode', isBool, out)
    ? out
    : NO;
}

function arbiters(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ARBITER_KEYS)) return NO;
  const out: Obj = {};
  return optWhen(x, 'prefetch', isMode, out) &&
    optWhen(x, 's2mPrefetch', isMode, out) &&
    optObj(x, 'dwrr', dwrr, L, out) &&
    optWhen(x, 'completion', isMode, out) &&
    optWhen(x, 'qPromotion', isBool, out)
    ? out
    : NO;
}

function engineRateLimit(x: unknown, L: PlanLimits): Obj | undefined {
  if (!plain(x, ENGINE_RL_KEYS)) return NO;
  const out: Obj = {};
  return optUint(x, 'shortCycleSize', L.shortCycleSize, out) &&
    optWhen(x, 'packetMode', isBool, out) &&
    optObj(x, 'stream', streamBucket, L, out)
    ? out
    : NO;
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

/** A list of entries each checked by `check` (undefined: not valid). */
function entries(
  x: unknown,
  check: (v: unknown, L: PlanLimits) => Obj | undefined,
  L: PlanLimits,
): Obj[] | undefined {
  if (!list(x)) return NO;
  const out: Obj[] = [];
  for (let i = 0; i < x.length; i++) {
    const v = check(x[i], L);
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
  return optObj(x, 'arbiters', arbiters, L, out) &&
    optObj(x, 'rateLimit', engineRateLimit, L, out) &&
    optObj(x, 'queues', queueList, L, out) &&
    optWhen(x, 'description', isString, out)
    ? out
    : NO;
}

function queueList(x: unknown, L: PlanLimits): Obj[] | undefined {
  return entries(x, queue, L);
}

/**
 * The schema's parse of `input` when `input` is a plan this checker accepts outright (see the
 * module comment), else undefined (run the schema).
 */
export function checkPlanFormat(input: unknown, L: PlanLimits): QosPlanJson | undefined {
  if (!plain(input, PLAN_KEYS)) return NO;
  const out: Obj = {};
  if (!optWhen(input, '$schema', isString, out) || input.version !== 1) return NO;
  out.version = 1;
  if (!optWhen(input, 'description', isString, out)) return NO;
  const engines = entries(input.engines, engine, L);
  if (engines === NO || engines.length === 0) return NO;
  out.engines = engines;
  return out as unknown as QosPlanJson;
}
