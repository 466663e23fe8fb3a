/**
 * The QoS plan format (driver/qos/plan.ts) checked by hand: for a plan that matches the format, the
 * very value the zod schema's parse returns (fresh objects, keys in the schema's order), without
 * running zod. Anything this checker does not accept outright (a value out of range, an unknown
 * key, a key present but undefined, a value that is not a plain object or array where one is
 * expected) returns undefined, and parseQosPlan runs the schema itself: the schema stays the one
 * judge of a bad plan and the one author of its messages and paths.
 *
 * The format is one table (`formatOf`): per kind of entry, its keys in the schema's order, each
 * with the kind of value it takes and its limit; one loop (`entry`) checks any entry against its
 * row. Every rule of the table is a rule of QosPlanSchema:
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

/** Not accepted outright: leave the plan to the schema. */
const NO = undefined;

/**
 * What a key takes: `uint` an integer in 0..max; `bool`; `string`; `one` the number 1 (the format
 * version); `mode` an arbiter mode, 'rr' | 'qos'; `class` a DMAQoSClass name; `entry` an entry of
 * kind `of`; `list` a list of at least `max` entries of kind `of`; `switch` 'on' | 'off' or an
 * entry of kind `of`; `ids` an integer in 0..max or a non-empty list of them.
 */
type Kind =
  'uint' | 'bool' | 'string' | 'one' | 'mode' | 'class' | 'entry' | 'list' | 'switch' | 'ids';

/** One key of an entry: what it takes and its limit (for a list: the fewest entries). */
interface Key {
  readonly name: string;
  readonly kind: Kind;
  readonly required: boolean;
  readonly max: number;
  readonly of: Entry | null;
}

/** One kind of entry: its keys in the schema's order, and the schema's refinements of it. */
interface Entry {
  readonly keys: readonly Key[];
  /** How many of its keys are required. */
  readonly required: number;
  /** At least one key given (a queue's explicit qos). */
  readonly nonEmpty: boolean;
  /** Two keys that may not both be given (a queue's class and qos), or null. */
  readonly exclusive: readonly [string, string] | null;
}

const CLASSES: ReadonlySet<unknown> = new Set<unknown>(DMA_QOS_CLASS_NAMES);

/** A key (`?` ending its name: optional). */
function key(name: string, kind: Kind, max = 0, of: Entry | null = null): Key {
  const optional = name.endsWith('?');
  return { name: optional ? name.slice(0, -1) : name, kind, required: !optional, max, of };
}

function entryOf(
  keys: Key[],
  refine: { nonEmpty?: boolean; exclusive?: [string, string] } = {},
): Entry {
  return {
    keys,
    required: keys.filter((k) => k.required).length,
    nonEmpty: refine.nonEmpty === true,
    exclusive: refine.exclusive ?? null,
  };
}

/** The format's table for limits `L` (the plan's root entry). */
function formatOf(L: PlanLimits): Entry {
  const bucket = (maxBurst: number) =>
    entryOf([
      key('enabled', 'bool'),
      key('maxBurst?', 'uint', maxBurst),
      key('pause?', 'bool'),
      key('refill?', 'uint', L.refill),
      key('longCycle?', 'uint', L.longCycle),
      key('longRefill?', 'uint', L.longRefill),
    ]);
  const qos = entryOf(
    [
      key('axiQos?', 'uint', L.axiQos),
      key('qQos?', 'uint', L.qQos),
      key('weight?', 'uint', L.weight),
      key('highPriority?', 'bool'),
    ],
    { nonEmpty: true },
  );
  const queue = entryOf(
    [
      key('queue', 'uint', L.queues - 1),
      key('class?', 'class'),
      key('qos?', 'entry', 0, qos),
      key('s2mAxiQos?', 'uint', L.s2mAxiQos),
      key('rateLimit?', 'entry', 0, bucket(L.queueMaxBurst)),
      key('description?', 'string'),
    ],
    { exclusive: ['class', 'qos'] },
  );
  const dwrr = entryOf([
    key('enabled', 'bool'),
    key('incFactor?', 'uint', L.incFactor),
    key('weightInc?', 'uint', L.weightInc),
    key('packetMode?', 'bool'),
  ]);
  const arbiters = entryOf([
    key('prefetch?', 'mode'),
    key('s2mPrefetch?', 'mode'),
    key('dwrr?', 'switch', 0, dwrr),
    key('completion?', 'mode'),
    key('qPromotion?', 'bool'),
  ]);
  const engineRateLimit = entryOf([
    key('shortCycleSize?', 'uint', L.shortCycleSize),
    key('packetMode?', 'bool'),
    key('stream?', 'entry', 0, bucket(L.streamMaxBurst)),
  ]);
  const engine = entryOf([
    key('engine', 'ids', Number.MAX_SAFE_INTEGER),
    key('arbiters?', 'entry', 0, arbiters),
    key('rateLimit?', 'entry', 0, engineRateLimit),
    key('queues?', 'list', 0, queue),
    key('description?', 'string'),
  ]);
  return entryOf([
    key('$schema?', 'string'),
    key('version', 'one'),
    key('description?', 'string'),
    key('engines', 'list', 1, engine),
  ]);
}

/** The table of the last limits asked for (QOS_LIMITS: one table for the process). */
let format: { limits: PlanLimits; root: Entry } | undefined;

/** A plain object (what JSON.parse and object literals make). */
function isPlain(x: unknown): x is Obj {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A plain array (holes and extra properties aside, which the element checks refuse). */
function isList(x: unknown): x is unknown[] {
  return Array.isArray(x) && Object.getPrototypeOf(x) === Array.prototype;
}

/** An integer in 0..max. */
function isUint(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
}

/** The schema's parse of value `v` of key `k`, or NO. */
function value(v: unknown, k: Key): unknown {
  switch (k.kind) {
    case 'uint':
      return isUint(v, k.max) ? v : NO;
    case 'bool':
      return typeof v === 'boolean' ? v : NO;
    case 'string':
      return typeof v === 'string' ? v : NO;
    case 'one':
      return v === 1 ? v : NO;
    case 'mode':
      return v === 'rr' || v === 'qos' ? v : NO;
    case 'class':
      return CLASSES.has(v) ? v : NO;
    case 'entry':
      return entry(v, k.of!);
    case 'list':
      return list(v, k.of!, k.max);
    case 'switch':
      return v === 'on' || v === 'off' ? v : entry(v, k.of!);
    case 'ids':
      return isUint(v, k.max) ? v : ids(v, k.max);
  }
}

/**
 * The schema's parse of entry `x` of kind `E`, or NO. The entry's keys are read in its own order
 * (each found in the table from where the last one was); an entry whose keys come in the schema's
 * order, as most do, is built as it is read, any other is put in the schema's order at the end.
 */
function entry(x: unknown, E: Entry): Obj | undefined {
  if (!isPlain(x)) return NO;
  const keys = E.keys;
  const n = keys.length;
  let out: Obj = {};
  let next = 0;
  let ordered = true;
  let required = 0;
  let given = 0;
  for (const name in x) {
    let i = next;
    while (i < n && keys[i].name !== name) i++;
    if (i === n) {
      i = 0;
      while (i < next && keys[i].name !== name) i++;
      if (i === next) return NO; // not a key of the format
      ordered = false;
    }
    next = i + 1;
    const k = keys[i];
    const v = x[name];
    if (v === undefined) return NO; // present but undefined: the schema's call
    const parsed = value(v, k);
    if (parsed === NO) return NO;
    out[name] = parsed;
    given++;
    if (k.required) required++;
  }
  if (required !== E.required || (E.nonEmpty && given === 0)) return NO;
  if (E.exclusive !== null && E.exclusive[0] in out && E.exclusive[1] in out) return NO;
  if (!ordered) {
    const sorted: Obj = {};
    for (let i = 0; i < n; i++) {
      const name = keys[i].name;
      if (name in out) sorted[name] = out[name];
    }
    out = sorted;
  }
  return out;
}

/** A list of at least `min` entries of kind `E`, or NO. */
function list(x: unknown, E: Entry, min: number): Obj[] | undefined {
  if (!isList(x) || x.length < min) return NO;
  const out: Obj[] = [];
  for (let i = 0; i < x.length; i++) {
    const v = entry(x[i], E);
    if (v === NO) return NO;
    out.push(v);
  }
  return out;
}

/** A non-empty list of integers in 0..max, or NO. */
function ids(x: unknown, max: number): number[] | undefined {
  if (!isList(x) || x.length === 0) return NO;
  const out: number[] = [];
  for (let i = 0; i < x.length; i++) {
    const id = x[i];
    if (!isUint(id, max)) return NO;
    out.push(id);
  }
  return out;
}

/**
 * The schema's parse of `input` when `input` is a plan this checker accepts outright (see the
 * module comment), else undefined (run the schema).
 */
export function checkPlanFormat(input: unknown, L: PlanLimits): QosPlanJson | undefined {
  if (format === undefined || format.limits !== L) format = { limits: L, root: formatOf(L) };
  return entry(input, format.root) as unknown as QosPlanJson | undefined;
}
