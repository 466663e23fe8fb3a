/** min / median / max of repeated runs, in milliseconds. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** CPU time (user + sys) and wall time of repeated runs of one measured function. */
export interface Timing {
  runs: number;
  cpuMs: Spread;
  wallMs: Spread;
}

/** One measured figure, reported as a ratio against a baseline measured in the same process run. */
export interface BenchResult {
  /** The stable metric name in out/bench/results.json, e.g. `mock.desc64.throughput`. */
  metric: string;
  /** What was measured, in words. */
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number; unit: string };
  /** value / baseline.value; the harness recomputes it and refuses a figure that disagrees. */
  ratio?: number;
  /** `<= 2x` / `>= 0.5x` (a ratio goal) or `>= 500000 <unit>` (a goal on the value itself). */
  goal?: string;
  notes?: string;
  /** CPU and wall time spreads of the measured code and of its baseline, where the bench has them. */
  timing?: { value: Timing; baseline?: Timing };
}

export type BenchRun = (opts: { quick?: boolean }) => Promise<BenchResult[]>;
