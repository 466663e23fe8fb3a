/**
 * Timing for the benches: a function run several times, each run measured as CPU time (user + sys,
 * `process.cpuUsage`) and wall time, reported as min / median / max of at least MIN_RUNS runs.
 * `measureAll` (and `measureAgainst`, its two-case form) warms every case the same way and
 * interleaves their runs, so the measured code and its baseline see the same machine. `timedResult`
 * turns two timings into a metric: the figure is the median CPU time (these machines are shared:
 * CPU time is the steadier figure), the spreads travel with it into out/bench/results.json.
 */
import type { BenchResult, Spread, Timing } from './types.ts';

/** The fewest runs a spread is taken over. */
export const MIN_RUNS = 5;

export interface MeasureOptions {
  /** Measured runs (at least MIN_RUNS). */
  runs?: number;
  /** Unmeasured runs before the first measured one. */
  warmup?: number;
}

/**
 * The timed sections of one run whose timed work alternates with untimed work (submit, then time
 * the engine's run, submit again ...): only what `time` wraps is counted. A promise `fn` returns
 * is timed until it settles.
 */
export class Sections {
  cpu = 0;
  wall = 0;
  time<T>(fn: () => T): T {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    const stop = () => {
      this.wall += performance.now() - w0;
      const d = process.cpuUsage(c0);
      this.cpu += (d.user + d.system) / 1000;
    };
    const r = fn();
    if (isPromise(r)) return r.finally(stop) as T;
    stop();
    return r;
  }
}

/**
 * A measured case: the timed function, optionally with untimed work before each of its runs; or
 * a run that times its own sections. With measureAllAsync a run may return a promise.
 */
export type Case =
  | ((i: number) => unknown)
  | { setup?: (i: number) => void; run: (i: number) => unknown }
  | { sections: (i: number, s: Sections) => unknown };

function isPromise(x: unknown): x is Promise<unknown> {
  return typeof (x as { then?: unknown } | null)?.then === 'function';
}

/** min / median / max of a non-empty list (the upper median for an even count). */
export function spread(xs: readonly number[]): Spread {
  if (xs.length === 0) throw new RangeError('spread of no samples');
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[s.length >> 1], max: s[s.length - 1] };
}

/** Where results go so that the engine cannot drop a computation nobody reads. */
export let sink: unknown;

/** One run of case `c` (after its untimed setup): its timed sections, or a promise of them. */
function once(c: Case, i: number): Sections | Promise<Sections> {
  const s = new Sections();
  let r: unknown;
  if ('sections' in c) r = c.sections(i, s);
  else {
    if (typeof c !== 'function') c.setup?.(i);
    const fn = typeof c === 'function' ? c : c.run;
    r = s.time(() => fn(i));
  }
  if (isPromise(r)) return r.then((v) => ((sink = v), s));
  sink = r;
  return s;
}

function counts(opts: MeasureOptions): { runs: number; warmup: number } {
  const runs = opts.runs ?? MIN_RUNS;
  const warmup = opts.warmup ?? 1;
  if (!Number.isInteger(runs) || runs < MIN_RUNS) {
    throw new RangeError(`measure: runs must be an integer >= ${MIN_RUNS}, got ${runs}`);
  }
  if (!Number.isInteger(warmup) || warmup < 0) {
    throw new RangeError(`measure: warmup must be a non-negative integer, got ${warmup}`);
  }
  return { runs, warmup };
}

/**
 * The order of runs: every case warmed `warmup` times, then `runs` rounds in which each case runs
 * once, in the order given. A case gets the run's index (0 .. warmup + runs - 1) so it can use
 * fresh input per run.
 */
function* schedule<K extends string>(
  keys: readonly K[],
  opts: MeasureOptions,
): Generator<{ key: K; i: number; measured: boolean }> {
  const { runs, warmup } = counts(opts);
  for (let i = 0; i < warmup + runs; i++) {
    for (const key of keys) yield { key, i, measured: i >= warmup };
  }
}

/** The spreads of each case's measured runs. */
class Samples<K extends string> {
  private readonly by = new Map<K, Sections[]>();
  constructor(private readonly keys: readonly K[]) {
    for (const k of keys) this.by.set(k, []);
  }
  add(k: K, s: Sections): void {
    this.by.get(k)!.push(s);
  }
  timings(): Record<K, Timing> {
    const t = {} as Record<K, Timing>;
    for (const k of this.keys) {
      const xs = this.by.get(k)!;
      t[k] = {
        runs: xs.length,
        cpuMs: spread(xs.map((x) => x.cpu)),
        wallMs: spread(xs.map((x) => x.wall)),
      };
    }
    return t;
  }
}

/** Every case warmed alike, then measured in interleaved rounds (see schedule). */
export function measureAll<K extends string>(
  cases: Record<K, Case>,
  opts: MeasureOptions = {},
): Record<K, Timing> {
  const keys = Object.keys(cases) as K[];
  const samples = new Samples(keys);
  for (const { key, i, measured } of schedule(keys, opts)) {
    const s = once(cases[key], i);
    if (isPromise(s)) throw new TypeError(`measureAll: case ${key} is async: use measureAllAsync`);
    if (measured) samples.add(key, s);
  }
  return samples.timings();
}

/** measureAll for cases whose runs return promises (each run awaited before the next). */
export async function measureAllAsync<K extends string>(
  cases: Record<K, Case>,
  opts: MeasureOptions = {},
): Promise<Record<K, Timing>> {
  const keys = Object.keys(cases) as K[];
  const samples = new Samples(keys);
  for (const { key, i, measured } of schedule(keys, opts)) {
    const s = await once(cases[key], i);
    if (measured) samples.add(key, s);
  }
  return samples.timings();
}

/** One case: `warmup` unmeasured runs, then `runs` measured ones. */
export function measure(fn: Case, opts: MeasureOptions = {}): Timing {
  return measureAll({ fn }, opts).fn;
}

/** `fn` and `baseline`, warmed alike, then measured in interleaved runs. */
export function measureAgainst(
  fn: Case,
  baseline: Case,
  opts: MeasureOptions = {},
): { value: Timing; baseline: Timing } {
  const t = measureAll({ value: fn, baseline }, opts);
  return { value: t.value, baseline: t.baseline };
}

/**
 * A figure from milliseconds for `items` items in the unit's terms: a rate (`.../s`) is items per
 * second, a time per item in ns, us or ms (`ns/op`, `ms`, `ms per queue`) is the time divided by
 * the items.
 */
export function inUnit(ms: number, items: number, unit: string): number {
  if (unit.endsWith('/s')) return items / (ms / 1000);
  const m = /^(ns|us|ms|s)\b/.exec(unit);
  if (!m) throw new RangeError(`inUnit: ${JSON.stringify(unit)} is neither a rate nor a time`);
  const scale = { ns: 1e6, us: 1e3, ms: 1, s: 1e-3 }[m[1] as 'ns' | 'us' | 'ms' | 's'];
  return (ms * scale) / items;
}

const f3 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));
const s3 = (s: Spread) => `${f3(s.min)}/${f3(s.median)}/${f3(s.max)}`;

/** "10k", "100k", "1M": a program or run size in a metric name. */
export function sizeLabel(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
}

/** "CPU min/median/max ... ms (baseline ...); wall ..." for the notes. */
export function describeTiming(t: { value: Timing; baseline?: Timing }): string {
  const b = t.baseline;
  return (
    `CPU min/median/max ${s3(t.value.cpuMs)} ms${b ? ` (baseline ${s3(b.cpuMs)})` : ''}, ` +
    `wall ${s3(t.value.wallMs)} ms${b ? ` (baseline ${s3(b.wallMs)})` : ''}, ${t.value.runs} runs`
  );
}

/**
 * A metric from a measured pair: value and baseline from the median CPU time of each run, in the
 * unit's terms (see inUnit), with both spreads attached and described in the notes.
 */
export function timedResult(r: {
  metric: string;
  name: string;
  unit: string;
  /** Items one run of the measured code handles (copies, reads, DMAs). */
  items: number;
  timing: { value: Timing; baseline: Timing };
  baseline: { name: string; unit?: string; /** default: the same items */ items?: number };
  goal?: string;
  notes?: string;
}): BenchResult {
  const value = inUnit(r.timing.value.cpuMs.median, r.items, r.unit);
  const bUnit = r.baseline.unit ?? r.unit;
  const base = inUnit(r.timing.baseline.cpuMs.median, r.baseline.items ?? r.items, bUnit);
  const rate = r.unit.endsWith('/s');
  return {
    metric: r.metric,
    name: r.name,
    value,
    unit: r.unit,
    baseline: { name: r.baseline.name, value: base, unit: bUnit },
    ratio: value / base,
    ...(r.goal !== undefined ? { goal: r.goal } : {}),
    timing: r.timing,
    notes:
      `${r.notes ? r.notes + '; ' : ''}median CPU time per run, ${rate ? 'ratio is rate / baseline rate' : 'ratio is time / baseline time'}; ` +
      describeTiming(r.timing),
  };
}
