/**
 * The pure part of the bench harness: goal parsing, the `met` verdict and the machine-readable
 * report written to out/bench/results.json. No timing happens here.
 *
 *   { "metrics": { "<name>": { "value", "unit", "baseline", "ratio", "goal", "met", ... } },
 *     "machine": { ... }, ... }
 *
 * `ratio` is value / baseline, both measured in the same run. A goal is either a ratio goal
 * (`<= 2x`, `>= 0.5x`, compared with the ratio) or a goal on the value itself (`>= 500000
 * DMA instructions/s`, compared with the value); a metric without a goal has no `met`.
 */
import { NxdmaError } from '../common/errors.ts';
import { MIN_RUNS } from './measure.ts';
import type { BenchResult, Timing } from './types.ts';

export type GoalOp = '<=' | '>=' | '<' | '>';

export interface Goal {
  op: GoalOp;
  target: number;
  /** `ratio`: compared with value / baseline; `value`: compared with the value itself. */
  on: 'ratio' | 'value';
  /** Words after the number (`the raw time`, `DMA instructions/s`), kept for the reader. */
  rest: string;
}

const METRIC_NAME = /^[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9]+)+$/;
const GOAL = /^\s*(<=|>=|<|>)\s*(\d[\d,_]*(?:\.\d+)?|\.\d+)\s*(x(?![a-zA-Z]))?\s*(.*?)\s*$/;

/** Parses a goal string; an unreadable goal is an error (a goal nobody can check is no goal). */
export function parseGoal(goal: string, where = 'goal'): Goal {
  const m = GOAL.exec(goal);
  if (!m) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: cannot read the goal ${JSON.stringify(goal)}`, {
      where,
      expected:
        'an operator (<=, >=, <, >), a number and an optional x: "<= 2x", ">= 0.5x", ">= 500000 DMA/s"',
      actual: goal,
    });
  }
  const target = Number(m[2].replace(/[,_]/g, ''));
  return { op: m[1] as GoalOp, target, on: m[3] ? 'ratio' : 'value', rest: m[4] };
}

/** Whether `actual` satisfies `op target`. */
export function compare(op: GoalOp, actual: number, target: number): boolean {
  if (!Number.isFinite(actual)) return false;
  switch (op) {
    case '<=':
      return actual <= target;
    case '>=':
      return actual >= target;
    case '<':
      return actual < target;
    case '>':
      return actual > target;
  }
}

/** The verdict of a goal on one figure; a ratio goal on a figure without a baseline is an error. */
export function isMet(
  goal: string,
  value: number,
  ratio: number | undefined,
  where = 'goal',
): boolean {
  const g = parseGoal(goal, where);
  if (g.on === 'ratio') {
    if (ratio === undefined) {
      throw new NxdmaError('BAD_ARGUMENT', `${where}: a ratio goal needs a baseline`, {
        where,
        expected: 'a baseline measured in the same run',
        actual: goal,
      });
    }
    return compare(g.op, ratio, g.target);
  }
  return compare(g.op, value, g.target);
}

export interface Metric {
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  goal?: string;
  met?: boolean;
  description: string;
  baselineName?: string;
  baselineUnit?: string;
  notes?: string;
  file: string;
  timing?: { value: Timing; baseline?: Timing };
}

export interface FileResult {
  file: string;
  seconds: number;
  results: BenchResult[];
  error?: string;
}

export interface Machine {
  node: string;
  platform: string;
  arch: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  loadavg: number[];
}

export interface Report {
  date: string;
  command: string;
  commit: string | null;
  quick: boolean;
  machine: Machine;
  metrics: Record<string, Metric>;
  files: { file: string; seconds: number; metrics: string[]; error?: string }[];
}

/** A time or a rate (`ns/op`, `ms`, `ms per queue`, `descriptors/s`), as opposed to a count. */
export function isTimedUnit(unit: string): boolean {
  return /^(ns|us|ms|s)\b/.test(unit) || unit.endsWith('/s');
}

/**
 * A timed figure carries the CPU and wall spreads of at least MIN_RUNS runs of the measured code,
 * and of its baseline when the baseline is timed too; throws otherwise.
 */
function checkTiming(r: BenchResult, where: string): void {
  const fail = (what: string): never => {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: ${what}`, {
      where,
      expected: `CPU and wall min/median/max of at least ${MIN_RUNS} runs (bench/measure.ts)`,
      actual: r.timing,
    });
  };
  if (!isTimedUnit(r.unit)) return;
  if (!r.timing) fail(`a ${r.unit} figure without its timing`);
  const t = r.timing!;
  if (!(t.value.runs >= MIN_RUNS)) fail(`timed over ${t.value.runs} runs`);
  if (r.baseline && isTimedUnit(r.baseline.unit)) {
    if (!t.baseline) fail('a timed baseline without its timing');
    if (!(t.baseline!.runs >= MIN_RUNS)) fail(`baseline timed over ${t.baseline!.runs} runs`);
  }
}

/** Relative difference a bench's own ratio may have from value / baseline (rounded figures). */
const RATIO_TOLERANCE = 0.01;

/** One result as a metric entry; throws on a bad name, a bad goal or an inconsistent ratio. */
export function toMetric(r: BenchResult, file: string): Metric {
  const where = `${file}: ${r.metric || r.name}`;
  if (!METRIC_NAME.test(r.metric ?? '')) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: bad metric name ${JSON.stringify(r.metric)}`, {
      where,
      expected: 'dotted words like mock.desc64.throughput',
      actual: r.metric,
    });
  }
  if (!Number.isFinite(r.value)) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: the value is not a finite number`, {
      where,
      expected: 'a finite number',
      actual: r.value,
    });
  }
  checkTiming(r, where);
  let ratio: number | undefined;
  if (r.baseline) {
    if (!(Number.isFinite(r.baseline.value) && r.baseline.value > 0)) {
      throw new NxdmaError('BAD_ARGUMENT', `${where}: the baseline is not a positive number`, {
        where,
        expected: 'a positive finite baseline',
        actual: r.baseline.value,
      });
    }
    ratio = r.value / r.baseline.value;
    if (r.ratio !== undefined && !(Math.abs(r.ratio - ratio) <= RATIO_TOLERANCE * ratio)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}: the reported ratio ${r.ratio} is not value / baseline (${ratio})`,
        { where, expected: 'ratio = value / baseline', actual: r.ratio },
      );
    }
  }
  const m: Metric = {
    value: r.value,
    unit: r.unit,
    ...(r.baseline ? { baseline: r.baseline.value, ratio } : {}),
    ...(r.goal !== undefined ? { goal: r.goal, met: isMet(r.goal, r.value, ratio, where) } : {}),
    description: r.name,
    ...(r.baseline ? { baselineName: r.baseline.name, baselineUnit: r.baseline.unit } : {}),
    ...(r.notes !== undefined ? { notes: r.notes } : {}),
    file,
    ...(r.timing ? { timing: r.timing } : {}),
  };
  return m;
}

/** The whole report; a metric name used twice is an error. */
export function buildReport(
  all: FileResult[],
  meta: { date: string; command: string; commit: string | null; quick: boolean; machine: Machine },
): Report {
  const metrics: Record<string, Metric> = {};
  const files: Report['files'] = [];
  for (const f of all) {
    const names: string[] = [];
    for (const r of f.results) {
      const m = toMetric(r, f.file);
      if (Object.hasOwn(metrics, r.metric)) {
        throw new NxdmaError('BAD_ARGUMENT', `${f.file}: metric ${r.metric} is reported twice`, {
          where: `${f.file}: ${r.metric}`,
          expected: 'one entry per metric name',
          actual: [metrics[r.metric].file, f.file],
        });
      }
      metrics[r.metric] = m;
      names.push(r.metric);
    }
    files.push({
      file: f.file,
      seconds: f.seconds,
      metrics: names,
      ...(f.error !== undefined ? { error: f.error } : {}),
    });
  }
  return { ...meta, metrics, files };
}
