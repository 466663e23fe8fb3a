/** One measured figure, reported as a ratio against a baseline measured in the same process run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number; unit: string };
  ratio?: number;
  goal?: string;
  notes?: string;
}

export type BenchRun = (opts: { quick?: boolean }) => Promise<BenchResult[]>;
