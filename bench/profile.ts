/**
 * `npm run bench:profile`: CPU profiles of the hot paths. Each named bench file's `run` (`--quick`
 * inputs unless --full) runs under the V8 sampling profiler (node:inspector, the profile
 * `node --cpu-prof` writes, without the module loading), the profile lands in
 * out/profiles/<file>.cpuprofile (open it in Chrome DevTools), and the top frames by self time are
 * printed (function, file, share of the busy samples). out/profiles/top-frames.json holds the same
 * lists.
 *
 *   npx tsx bench/profile.ts                 every hot path (compile, flow, mock, scale, qos, accessor, copy)
 *   npx tsx bench/profile.ts mock copy       only these bench files
 *   npx tsx bench/profile.ts --top 15 --full
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRun } from './types.ts';
import { EXT, HERE, ROOT } from './root.ts';

const outDir = join(ROOT, 'out', 'profiles');

/** The bench files whose code paths issue 16's table names. */
const HOT = ['compile', 'flow', 'mock', 'scale', 'qos', 'accessor', 'copy'];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

export interface Frame {
  fn: string;
  where: string;
  /** Share of all samples spent in this function itself (not its callees), 0..1. */
  self: number;
}

/**
 * The functions with the most self samples, as shares of the busy samples (idle left out, and the
 * benches' wait before a timed run, bench/settle.ts: asleep in Atomics.wait, which the profiler
 * samples as that function's own time): the project's own functions and the engine's (garbage collector) and (program); Node's module
 * loading (node: internals) counts in the total but is not listed. Frames of one function in one
 * file are merged (tsx's transpiled line numbers are not the sources').
 */
export function topFrames(p: CpuProfile, top: number): Frame[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const counts = new Map<string, { fn: string; where: string; n: number }>();
  let busy = 0;
  for (const id of p.samples) {
    const cf = byId.get(id)!.callFrame;
    if (cf.functionName === '(idle)' || isSettleWait(cf)) continue;
    busy++;
    if (cf.url.startsWith('node:')) continue;
    const where = cf.url.startsWith('file://') ? relative(ROOT, fileURLToPath(cf.url)) : cf.url;
    const fn = cf.functionName || '(anonymous)';
    const key = `${fn}@${where}`;
    const c = counts.get(key) ?? { fn, where, n: 0 };
    c.n++;
    counts.set(key, c);
  }
  return [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, top)
    .map((c) => ({ fn: c.fn, where: c.where, self: c.n / (busy || 1) }));
}

/** A sample of the benches' wait for quiet background threads (bench/settle.ts `settle`). */
function isSettleWait(cf: { functionName: string; url: string }): boolean {
  return cf.functionName === 'settle' && cf.url.endsWith('/bench/settle.ts');
}

/** `run` of one bench file under the V8 profiler (in this process, after its module loaded). */
async function profileRun(file: string, quick: boolean): Promise<CpuProfile> {
  const mod = (await import(pathToFileURL(join(HERE, file)).href)) as { run: BenchRun };
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  try {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 }); // microseconds
    await post('Profiler.start');
    await mod.run({ quick });
    const { profile } = (await post('Profiler.stop')) as { profile: CpuProfile };
    return profile;
  } finally {
    session.disconnect();
  }
}

async function main(argv: string[]): Promise<number> {
  const at = argv.indexOf('--top');
  const top = at >= 0 ? Number(argv[at + 1]) : 10;
  const full = argv.includes('--full');
  const named = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--top');
  const files = (named.length ? named : HOT).map((n) => `${n}.bench${EXT}`);
  mkdirSync(outDir, { recursive: true });
  const report: Record<string, Frame[]> = {};
  let failed = 0;
  for (const file of files) {
    process.stderr.write(`profile: ${file}${full ? '' : ' (quick)'} ...\n`);
    let profile: CpuProfile;
    try {
      profile = await profileRun(file, !full);
    } catch (e) {
      process.stderr.write(`profile: ${file} failed: ${String(e)}\n`);
      failed++;
      continue;
    }
    const target = join(outDir, file.replace(/\.[jt]s$/, '.cpuprofile'));
    writeAtomically(target, JSON.stringify(profile));
    const frames = topFrames(profile, top);
    report[file] = frames;
    process.stdout.write(`\n${file} (${relative(ROOT, target)})\n`);
    for (const f of frames) {
      process.stdout.write(`  ${(f.self * 100).toFixed(1).padStart(5)} %  ${f.fn}  ${f.where}\n`);
    }
  }
  writeAtomically(join(outDir, 'top-frames.json'), JSON.stringify(report, null, 2) + '\n');
  return failed ? 1 : 0;
}

function writeAtomically(target: string, text: string): void {
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, target);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
