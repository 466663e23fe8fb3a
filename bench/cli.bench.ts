/**
 * CLI start-up: the CPU time (user + sys) of `nxdma --help`, `nxdma --version` and
 * `nxdma regs decode M2S_dwrr.cfg_sched 0x00070201`, each as a ratio against `node -e 0` measured
 * in the same run, interleaved (baseline, then each command, repeated), median of the runs.
 * Wall time is reported beside it. The commands run the built package (bin/nxdma.mjs -> dist/).
 *
 * A child's CPU time is read from the shell's `time` (the kernel's rusage of the waited-for
 * child, millisecond resolution).
 *
 * Standalone: npx tsx bench/cli.bench.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spread } from './measure.ts';
import type { BenchResult } from './types.ts';
import { ROOT } from './root.ts';

const BIN = join(ROOT, 'bin/nxdma.mjs');

interface Sample {
  cpuMs: number;
  wallMs: number;
}

/** One run of `node args...`: CPU (user + sys of the child) and wall milliseconds. */
function sample(args: string[]): Sample {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const r = spawnSync(
    'bash',
    ['-c', `TIMEFORMAT='%3U %3S'; { time ${quoted} >/dev/null 2>&1; } 2>&1`],
    { encoding: 'utf8', cwd: ROOT },
  );
  const wallMs = performance.now() - t0;
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`cli bench: ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return { cpuMs: Math.round((Number(m[1]) + Number(m[2])) * 1000), wallMs };
}

const COMMANDS: { name: string; args: string[] }[] = [
  { name: 'cli.help.cpu', args: [BIN, '--help'] },
  { name: 'cli.version.cpu', args: [BIN, '--version'] },
  { name: 'cli.decode.cpu', args: [BIN, 'regs', 'decode', 'M2S_dwrr.cfg_sched', '0x00070201'] },
];

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    throw new Error('cli bench: dist/ is missing: run `npm run build` first');
  }
  const reps = opts.quick ? 5 : 9;
  const base: Sample[] = [];
  const per = COMMANDS.map(() => [] as Sample[]);
  // warm the file cache once
  sample(['-e', '0']);
  COMMANDS.forEach((c) => sample(c.args));
  for (let r = 0; r < reps; r++) {
    base.push(sample(['-e', '0']));
    COMMANDS.forEach((c, i) => per[i].push(sample(c.args)));
  }
  const b = spread(base.map((s) => s.cpuMs));
  const bw = spread(base.map((s) => s.wallMs));
  return COMMANDS.map((c, i) => {
    const cpu = spread(per[i].map((s) => s.cpuMs));
    const wall = spread(per[i].map((s) => s.wallMs));
    return {
      metric: c.name,
      name: `nxdma ${c.args.slice(1).join(' ')}: CPU time (user + sys) of the child`,
      value: cpu.median,
      unit: 'ms CPU',
      baseline: { name: 'node -e 0', value: b.median, unit: 'ms CPU' },
      ratio: cpu.median / b.median,
      goal: '<= 2x',
      timing: {
        value: { runs: reps, cpuMs: cpu, wallMs: wall },
        baseline: { runs: reps, cpuMs: b, wallMs: bw },
      },
      notes:
        `median of ${reps}; CPU min/median/max ${cpu.min}/${cpu.median}/${cpu.max} ms ` +
        `(node -e 0: ${b.min}/${b.median}/${b.max}); wall median ${wall.median.toFixed(1)} ms ` +
        `(node -e 0: ${bw.median.toFixed(1)} ms, ${(wall.median / bw.median).toFixed(2)}x)`,
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run({ quick: process.argv.includes('--quick') });
  for (const r of results) {
    console.log(
      `${r.metric}: ${r.value} ${r.unit} / ${r.baseline?.value} = ${r.ratio?.toFixed(2)}x`,
    );
    console.log(`  ${r.notes}`);
  }
}
