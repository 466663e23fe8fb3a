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

/** A measured case: the timed function, and optionally untimed work before each of its runs. */
export type Case =
  ((i: number) => unknown) | { setup?: (i: number) => void; run: (i: number) => unknown };

/** min / median / max of a non-empty list (the upper median for an even count). */
export function spread(xs: readonly number[]): Spread {
  if (xs.length === 0) throw new RangeError('spread of no samples');
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[s.length >> 1], max: s[s.length - 1] };
}

/** Where results go so that the engine cannot drop a computation nobody reads. */
export let sink: unknown;

/** One run of `fn(i)` (after its untimed setup): CPU and wall milliseconds. */
function once(c: Case, i: number): { cpu: number; wall: number } {
  const fn = typeof c === 'function' ? c : c.run;
  if (typeof c !== 'function') c.setup?.(i);
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  sink = fn(i);
  const wall = performance.now() - w0;
  const d = process.cpuUsage(c0);
  return { cpu: (d.user + d.system) / 1000, wall };
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

function timing(samples: { cpu: number; wall: number }[]): Timing {
  return {
    runs: samples.length,
    cpuMs: spread(samples.map((s) => s.cpu)),
    wallMs: spread(samples.map((s) => s.wall)),
  };
}

/**
 * Every case warmed `warmup` times, then `runs` rounds in which each case runs once, in the order
 * given. A case gets the run's index (0 .. warmup + runs - 1) so it can use fresh input per run.
 */
export function measureAll<K extends string>(
  cases: Record<K, Case>,
  opts: MeasureOptions = {},
): Record<K, Timing> {
  const { runs, warmup } = counts(opts);
  const keys = Object.keys(cases) as K[];
  for (let i = 0; i < warmup; i++) for (const k of keys) once(cases[k], i);
  const samples = Object.fromEntries(keys.map((k) => [k, [] as { cpu: number; wall: number }[]]));
  for (let i = 0; i < runs; i++) {
    for (const k of keys) samples[k].push(once(cases[k], warmup + i));
  }
  return Object.fromEntries(keys.map((k) => [k, timing(samples[k])])) as Record<K, Timing>;
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
