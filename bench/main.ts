/**
 * `npm run bench`: every benchmark file, each in a Node process of its own, one table of ratios
 * against baselines measured in the same run (and the same process), also written as
 * machine-readable metrics to out/bench/results.json (see bench/results.ts for its shape). The reviewed record of a full run is docs/performance.md.
 *
 *   npm run bench                 full run
 *   npm run bench -- --quick      smaller inputs (a smoke run)
 *   npm run bench -- --only mock  only the bench files whose name contains "mock" (not written
 *                                 to out/bench/results.json, which holds full runs)
 *   npm run bench -- --json       print the results as JSON instead of the table
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildReport, toMetric, type FileResult, type Machine, type Report } from './results.ts';
import type { BenchResult, BenchRun } from './types.ts';
import { EXT, HERE, ROOT } from './root.ts';

const outDir = join(ROOT, 'out', 'bench');

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-2)) return v.toExponential(3);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 1 : 3 });
}

function renderTable(report: Report, all: FileResult[]): string {
  const rows: string[][] = [['metric', 'value', 'baseline', 'ratio', 'goal']];
  for (const f of all) {
    if (f.error) rows.push([`${f.file}: FAILED`, f.error, '', '', '']);
    for (const r of f.results) {
      const m = report.metrics[r.metric];
      rows.push([
        r.metric,
        `${fmt(m.value)} ${m.unit}`,
        r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.value)} ${r.baseline.unit}` : '',
        m.ratio === undefined ? '' : `${m.ratio.toFixed(2)}x`,
        m.goal === undefined ? '' : `${m.goal} (${m.met ? 'met' : 'not met'})`,
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

/**
 * Each bench file runs in a fresh Node process of its own (this file, `--child`): what one
 * file's code taught the JIT (the type feedback of the mock's or the compiler's functions, the
 * optimized code and its deoptimizations) must not decide another file's figures. A measured case
 * and its baseline still run in the same process, interleaved.
 */
function runInChild(file: string, quick: boolean): FileResult {
  const t0 = performance.now();
  const out = join(outDir, `.child.${process.pid}.${file}.json`);
  mkdirSync(outDir, { recursive: true });
  const args = [...process.execArgv, fileURLToPath(import.meta.url), '--child', file, out];
  if (quick) args.push('--quick');
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'pipe'] });
  const seconds = (performance.now() - t0) / 1000;
  const stderr = r.stderr?.toString() ?? '';
  if (stderr) process.stderr.write(stderr);
  try {
    if (r.status !== 0) {
      const why = r.error ? String(r.error) : `exit ${r.status ?? r.signal}`;
      return { file, seconds, results: [], error: `${why}: ${stderr.trim().split('\n').pop()}` };
    }
    const got = JSON.parse(readFileSync(out, 'utf8')) as {
      results?: BenchResult[];
      error?: string;
    };
    return { file, seconds, results: got.results ?? [], error: got.error };
  } finally {
    rmSync(out, { force: true });
  }
}

/** `--child <file> <out>`: runs one bench file and writes its results (or its error) to `out`. */
async function child(file: string, out: string, quick: boolean): Promise<number> {
  let body: { results?: BenchResult[]; error?: string };
  try {
    const mod = (await import(pathToFileURL(join(HERE, file)).href)) as { run: BenchRun };
    const results = await mod.run({ quick });
    for (const r of results) toMetric(r, file); // a bad name, goal or ratio fails this file
    body = { results };
  } catch (e) {
    body = { error: String(e) };
  }
  writeFileSync(out, JSON.stringify(body));
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const json = argv.includes('--json');
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
  const files = readdirSync(HERE)
    .filter((f) => f.endsWith(`.bench${EXT}`))
    .filter((f) => !only || f.includes(only))
    .sort();
  const all: FileResult[] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''} ...\n`);
    all.push(runInChild(file, quick));
  }
  const machine: Machine = {
    node: process.version,
    platform: platform(),
    arch: arch(),
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadavg: loadavg().map((x) => Number(x.toFixed(2))),
  };
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const report = buildReport(all, {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`,
    commit: git.status === 0 ? git.stdout.trim() : null,
    quick,
    machine,
  });
  const target = join(outDir, 'results.json');
  if (!only) {
    // atomically: a reader never sees half a file
    mkdirSync(outDir, { recursive: true });
    const tmp = join(outDir, `.results.json.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(report, null, 2) + '\n');
    renameSync(tmp, target);
  }
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    process.stdout.write(
      `nxdma benchmarks: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}\n\n`,
    );
    process.stdout.write(renderTable(report, all) + '\n');
    if (!only) process.stdout.write('\nwritten to out/bench/results.json\n');
  }
  return all.some((f) => f.error) ? 1 : 0;
}

const argv = process.argv.slice(2);
process.exitCode =
  argv[0] === '--child'
    ? await child(argv[1], argv[2], argv.includes('--quick'))
    : await main(argv);
