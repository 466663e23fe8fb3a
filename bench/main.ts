/**
 * `npm run bench`: every benchmark in one process run, one table of ratios against baselines
 * measured in the same run, also written to bench/results.json.
 *
 *   npm run bench                 full run
 *   npm run bench -- --quick      smaller inputs (a smoke run)
 *   npm run bench -- --only mock  only the bench files whose name contains "mock"
 *   npm run bench -- --json       print the results as JSON instead of the table
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult, BenchRun } from './types.ts';

const here = dirname(fileURLToPath(import.meta.url));

interface FileResult {
  file: string;
  seconds: number;
  results: BenchResult[];
  error?: string;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-2)) return v.toExponential(3);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 1 : 3 });
}

function renderTable(all: FileResult[]): string {
  const rows: string[][] = [['benchmark', 'value', 'baseline', 'ratio', 'goal']];
  for (const f of all) {
    if (f.error) rows.push([`${f.file}: FAILED`, f.error, '', '', '']);
    for (const r of f.results) {
      rows.push([
        r.name,
        `${fmt(r.value)} ${r.unit}`,
        r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.value)} ${r.baseline.unit}` : '',
        r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
        r.goal ?? '',
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  return [
    line(rows[0]),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.slice(1).map(line),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const json = argv.includes('--json');
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => !only || f.includes(only))
    .sort();
  const all: FileResult[] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''} ...\n`);
    const t0 = performance.now();
    try {
      const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
      const results = await mod.run({ quick });
      all.push({ file, seconds: (performance.now() - t0) / 1000, results });
    } catch (e) {
      all.push({ file, seconds: (performance.now() - t0) / 1000, results: [], error: String(e) });
    }
  }
  const report = {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`,
    machine: {
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
    },
    quick,
    files: all,
  };
  if (!only) writeFileSync(join(here, 'results.json'), JSON.stringify(report, null, 2) + '\n');
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    process.stdout.write(
      `nxdma benchmarks: ${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}\n\n`,
    );
    process.stdout.write(renderTable(all) + '\n');
    if (!only) process.stdout.write('\nwritten to bench/results.json\n');
  }
  return all.some((f) => f.error) ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
