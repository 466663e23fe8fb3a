/**
 * Timing for the benches: a function run several times, each run measured as CPU time (user + sys,
 * `process.cpuUsage`) and wall time, reported as min / median / max. `measureAgainst` warms the
 * measured code and its baseline the same way and interleaves their runs, so both see the same
 * machine (these machines are shared: the CPU time is the steadier figure).
 */
import type { Spread, Timing } from './types.ts';

/** The fewest runs a spread is taken over. */
export const MIN_RUNS = 5;

export interface MeasureOptions {
  /** Measured runs (at least MIN_RUNS). */
  runs?: number;
  /** Unmeasured runs before the first measured one. */
  warmup?: number;
}

/** min / median / max of a non-empty list (the upper median for an even count). */
export function spread(xs: readonly number[]): Spread {
  if (xs.length === 0) throw new RangeError('spread of no samples');
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[s.length >> 1], max: s[s.length - 1] };
}

/** One run of `fn(i)`: CPU and wall milliseconds. */
function once(fn: (i: number) => unknown, i: number): { cpu: number; wall: number } {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  fn(i);
  const wall = performance.now() - w0;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall };
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
 * Runs `fn` `warmup` times unmeasured, then `runs` times measured. `fn` gets the run's index
 * (0 .. warmup + runs - 1) so it can use fresh input per run.
 */
export function measure(fn: (i: number) => unknown, opts: MeasureOptions = {}): Timing {
  const { runs, warmup } = counts(opts);
  for (let i = 0; i < warmup; i++) fn(i);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(once(fn, warmup + i));
  return timing(samples);
}

/** `fn` and `baseline`, warmed alike, then measured in interleaved runs. */
export function measureAgainst(
  fn: (i: number) => unknown,
  baseline: (i: number) => unknown,
  opts: MeasureOptions = {},
): { value: Timing; baseline: Timing } {
  const { runs, warmup } = counts(opts);
  for (let i = 0; i < warmup; i++) {
    fn(i);
    baseline(i);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    a.push(once(fn, warmup + i));
    b.push(once(baseline, warmup + i));
  }
  return { value: timing(a), baseline: timing(b) };
}
