/**
 * Compiler benchmarks, each against a baseline measured in the same run:
 *
 * - `compile.{10k,100k,1M}.throughput`: a generated program of N DMA instructions (tiled loads and
 *   saves behind producer engines, collectives with CC-engine loads, transposes, several QoS
 *   classes, some loop bodies) through every pass of the pipeline, in DMA instructions per second
 *   of CPU time; the baseline is the yardstick of bench/compile-yardstick.ts, two fused loops over
 *   typed arrays computing the same bindings (checked against the compiled module every run).
 *   Goal at 1M: at least 0.25 of the yardstick.
 * - `compile.{10k,100k,1M}.memory` and `compile.memory.linearity`: peak heap per DMA during the
 *   compile; linear means the same bytes per DMA at 1M as at 10k.
 * - `compile.1M.gcPause`: the longest garbage-collection pause (perf_hooks `gc` entries) inside
 *   the timed 1M compiles. Goal: none over 10 ms.
 * - `compile.json100k.time`: `JSON.parse` of a 100k-DMA program file plus its validation and IR
 *   build (parseProgram: the parse phase of `nxdma compile`), against `JSON.parse` of the same
 *   text alone. Goal: at most twice the time.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ProgramBuilder, tileAP } from '../compiler/ir/builder.ts';
import type { Module } from '../compiler/ir/module.ts';
import { parseProgram } from '../compiler/ir/to-module.ts';
import { compile } from '../compiler/passes/pipeline.ts';
import {
  checkYardstick,
  runYardstick,
  yardstickInput,
  type YardstickInput,
} from './compile-yardstick.ts';
import { settle } from './settle.ts';
import { MIN_RUNS, Sections, measureAgainst, sizeLabel, spread, timedResult } from './measure.ts';
import type { BenchResult } from './types.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const QOS = ['P0', 'P1', 'P3', 'Default'] as const;

/**
 * A program with `nDmas` DMA instructions. Each group of 8 DMAs: load a tile from the input into
 * an SB tile, an Activation on it, save it to an internal DRAM tensor (producer engine) and to the
 * output; a transpose copy; a load into a collective's argument; the collective; a load of its
 * result; a spill and a reload. Blocks hold 8,000 DMAs; every fifth block is a loop body.
 */
export function generateProgram(nDmas: number): ProgramBuilder {
  const b = new ProgramBuilder({
    name: `bench-${nDmas}`,
    arch: 30,
    options: {
      dgeLevels: ['scalar_dynamic_offset', 'vector_dynamic_offsets', 'transpose', 'spill_reload'],
    },
  });
  const TILES = 8;
  b.region({ name: 'hbm', type: 'dram', base: 0x1_0000_0000, size: 0x1000_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x100_0000 });
  b.tensor({
    name: 'x',
    region: 'hbm',
    offset: 0,
    dtype: 'bf16',
    shape: [TILES * 128, 512],
    kind: 'Input',
  });
  b.tensor({
    name: 'y',
    region: 'hbm',
    offset: 0x100_0000,
    dtype: 'bf16',
    shape: [TILES * 128, 512],
    kind: 'Output',
  });
  b.tensor({
    name: 'tmp',
    region: 'hbm',
    offset: 0x200_0000,
    dtype: 'bf16',
    shape: [TILES * 128, 512],
  });
  b.tensor({
    name: 'spill',
    region: 'hbm',
    offset: 0x300_0000,
    dtype: 'bf16',
    shape: [TILES * 128, 512],
    kind: 'Spill',
  });
  for (let k = 0; k < TILES; k++) {
    b.tensor({
      name: `t${k}`,
      region: 'sb',
      offset: k * 0x2_0000,
      dtype: 'bf16',
      shape: [128, 512],
    });
  }
  b.tensor({ name: 'ccin', region: 'sb', offset: 0x20_0000, dtype: 'bf16', shape: [128, 512] });
  b.tensor({ name: 'ccout', region: 'sb', offset: 0x24_0000, dtype: 'bf16', shape: [128, 512] });
  b.tensor({ name: 'xt', region: 'sb', offset: 0x28_0000, dtype: 'bf16', shape: [128, 128] });
  const main = b.function('main');
  const perBlock = 8000;
  let made = 0;
  let blockNo = 0;
  let g = 0;
  while (made < nDmas) {
    const bb = main.block(`b${blockNo}`, blockNo % 5 === 4 ? { loop: { iterations: 2 } } : {});
    blockNo++;
    const end = Math.min(nDmas, made + perBlock);
    while (made < end) {
      const k = g % TILES;
      const t = `t${k}`;
      const tile = tileAP(t, 512, 0, 0, 128, 512);
      const qos = QOS[g % QOS.length];
      const emit = (fn: () => void) => {
        if (made < end) {
          fn();
          made++;
        }
      };
      emit(() => bb.load({ src: tileAP('x', 512, k * 128, 0, 128, 512), dst: tile, qos }));
      bb.compute('Activation', { reads: [t], writes: [t] });
      emit(() => bb.save({ src: tile, dst: tileAP('tmp', 512, k * 128, 0, 128, 512), qos }));
      emit(() => bb.save({ src: tile, dst: tileAP('y', 512, k * 128, 0, 128, 512), qos }));
      emit(() =>
        bb.copy({
          src: { tensor: t, partition: [1, 128], free: [[512, 128]] },
          dst: { tensor: 'xt', partition: [128, 128], free: [[1, 128]] },
          transpose: 'xbar',
        }),
      );
      emit(() =>
        bb.load({
          src: tileAP('x', 512, k * 128, 0, 128, 512),
          dst: tileAP('ccin', 512, 0, 0, 128, 512),
        }),
      );
      bb.collective({ collective: 'all_reduce', args: ['ccin'], results: ['ccout'] });
      emit(() => bb.copy({ src: tileAP('ccout', 512, 0, 0, 128, 512), dst: tile }));
      emit(() => bb.save({ src: tile, dst: tileAP('spill', 512, k * 128, 0, 128, 512) }));
      emit(() => bb.load({ src: tileAP('spill', 512, k * 128, 0, 128, 512), dst: tile }));
      g++;
    }
  }
  return b;
}

function countDmas(m: Module): number {
  let n = 0;
  for (const I of m.instrs) if (I.src !== null) n++;
  return n;
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

function fullGc(): void {
  gc();
  gc();
}

/** GC pauses (perf_hooks `gc` entries: start and duration in ms) seen since the bench started. */
const pauses: { start: number; ms: number }[] = [];
let observer: PerformanceObserver | null = null;

function observeGc(): void {
  if (observer !== null) return;
  observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, ms: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
}

interface Sample {
  buildMs: number;
  heap0: number;
  heapIR: number;
  peak: number;
  /** The timed compile's wall-clock window (performance.now()). */
  window: [number, number];
}

/**
 * Builds the IR of an n-DMA program and its yardstick columns, then compiles it; times the passes
 * (in `timed`: CPU and wall) and samples the heap after each pass (a heap-statistics call,
 * microseconds, inside the timing). The set-up's collections are done (settle) before the timing,
 * except in a warm-up.
 */
function sample(
  nDmas: number,
  timed: Sections,
  warmUp = false,
): { m: Module; y: YardstickInput; s: Sample } {
  fullGc();
  const heap0 = heapUsed();
  let program: ProgramBuilder | null = generateProgram(nDmas);
  const tBuild = performance.now();
  const m = program.build();
  const buildMs = performance.now() - tBuild;
  program = null; // the program object is input, not IR: let it go before measuring the IR
  const y = yardstickInput(m);
  fullGc();
  if (!warmUp) settle();
  const heapIR = heapUsed();
  let peak = heapIR;
  const w0 = performance.now();
  timed.time(() =>
    compile(m, {
      onPass: () => {
        peak = Math.max(peak, heapUsed());
      },
    }),
  );
  return { m, y, s: { buildMs, heap0, heapIR, peak, window: [w0, performance.now()] } };
}

interface SizeResult {
  results: BenchResult[];
  bytesPerDma: number;
  /** The longest GC pause inside the timed compiles, ms. */
  longestPause: number;
}

async function measureSize(nDmas: number, runs: number): Promise<SizeResult> {
  const samples: Sample[] = [];
  let mod: Module | null = null;
  let cols: YardstickInput | null = null;
  let sink = 0;
  // the heap with no module alive, read once before the runs after the collector's concurrent
  // sweeping is done (a pause, then collect again): a run's own starting heap may still count the
  // previous run's module
  fullGc();
  await new Promise((r) => setTimeout(r, 200));
  fullGc();
  const before = heapUsed();
  // each compile on a freshly built module; the yardstick runs on that module's columns and its
  // bindings are compared with the compiled module
  const t = measureAgainst(
    {
      sections: (_i, s) => {
        mod = null; // let the previous module go before building the next
        cols = null;
        const out = sample(nDmas, s);
        mod = out.m;
        cols = out.y;
        samples.push(out.s);
      },
    },
    {
      sections: (_i, s) => {
        sink += s.time(() => runYardstick(cols!));
        checkYardstick(cols!, mod!);
      },
    },
    { runs, warmup: 0 },
  );
  await new Promise((r) => setTimeout(r, 20)); // the gc entries are delivered asynchronously
  const m = mod! as Module;
  const dmas = countDmas(m);
  const label = sizeLabel(nDmas);
  const buildMs = spread(samples.map((x) => x.buildMs)).median;
  const heap0 = Math.min(before, ...samples.map((x) => x.heap0));
  const peakBytes = Math.max(...samples.map((x) => x.peak)) - heap0;
  const irBytes = spread(samples.map((x) => x.heapIR)).median - heap0;
  let longestPause = 0;
  for (const p of pauses)
    for (const { window: w } of samples)
      if (p.start >= w[0] && p.start < w[1]) longestPause = Math.max(longestPause, p.ms);
  const results: BenchResult[] = [
    timedResult({
      metric: `compile.${label}.throughput`,
      name: `compile.passes.${label}`,
      unit: 'DMA instructions/s',
      items: dmas,
      timing: t,
      baseline: { name: 'fused typed-array loops computing the same bindings' },
      goal: nDmas >= 1_000_000 ? '>= 0.25x' : undefined,
      notes: `${dmas} DMAs, ${m.instrs.length} instructions, ${m.queues.length} queues; IR build ${buildMs.toFixed(0)} ms (not counted); longest GC pause in the compiles ${longestPause.toFixed(1)} ms (checksum ${sink % 10})`,
    }),
    {
      metric: `compile.${label}.memory`,
      name: `compile.memory.${label}`,
      value: Math.round(peakBytes / dmas),
      unit: 'bytes/DMA (peak heap over start)',
      baseline: { name: 'IR after build', value: Math.round(irBytes / dmas), unit: 'bytes/DMA' },
      ratio: Math.round(peakBytes / dmas) / Math.round(irBytes / dmas),
      notes: `peak ${mb(peakBytes)} (the largest of ${runs} runs), IR ${mb(irBytes)} (median), both over the least starting heap; expected linear in program size (bytes/DMA flat from 10k to 1M)`,
    },
  ];
  return { results, bytesPerDma: Math.round(peakBytes / dmas), longestPause };
}

/** JSON.parse + parseProgram of a 100k-DMA program file, against JSON.parse alone. */
function measureJson(nDmas: number): BenchResult {
  const text = JSON.stringify(generateProgram(nDmas).program());
  let sink = 0;
  const t = measureAgainst(
    () => (sink += parseProgram(JSON.parse(text) as unknown).instrs.length),
    () => (sink += (JSON.parse(text) as { functions: unknown[] }).functions.length),
    { runs: MIN_RUNS, warmup: 1 },
  );
  return timedResult({
    metric: `compile.json${sizeLabel(nDmas)}.time`,
    name: `JSON.parse + parseProgram (validate, build the IR) of a ${sizeLabel(nDmas)}-DMA program`,
    unit: 'ms',
    items: 1,
    timing: t,
    baseline: { name: 'JSON.parse of the same text' },
    goal: '<= 2x',
    notes: `${(text.length / 1048576).toFixed(1)} MiB of JSON (checksum ${sink % 10})`,
  });
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  observeGc();
  const sizes = opts.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const out: BenchResult[] = [];
  // warm-up: let the JIT optimise the passes and the yardstick before measuring (a cold 10k run
  // is mostly tier-up; a pass runs once per compile, so it takes several compiles)
  for (let i = 0; i < 8; i++) {
    const { m, y } = sample(30_000, new Sections(), true);
    runYardstick(y);
    checkYardstick(y, m);
  }
  const bySize = new Map<number, SizeResult>();
  for (const n of sizes) {
    const r = await measureSize(n, MIN_RUNS);
    bySize.set(n, r);
    out.push(...r.results);
  }
  const big = bySize.get(1_000_000);
  const small = bySize.get(10_000)!;
  if (big) {
    out.push({
      metric: 'compile.memory.linearity',
      name: 'peak heap per DMA of the 1M compile over that of the 10k compile',
      value: big.bytesPerDma,
      unit: 'bytes/DMA at 1M',
      baseline: { name: 'bytes/DMA at 10k', value: small.bytesPerDma, unit: 'bytes/DMA' },
      ratio: big.bytesPerDma / small.bytesPerDma,
      goal: '<= 1.25x',
      notes: 'memory linear in program size: the same bytes per DMA from 10k to 1M',
    });
    out.push({
      metric: 'compile.1M.gcPause',
      name: 'longest GC pause inside the timed 1M compiles (perf_hooks gc entries)',
      value: Number(big.longestPause.toFixed(2)),
      unit: 'longest GC pause, ms',
      goal: '<= 10 ms',
      notes: `${MIN_RUNS} compiles of a freshly built 1M-DMA module; 0 when no collection ran`,
    });
  }
  out.push(measureJson(100_000));
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, ''))) {
  const quick = process.argv.includes('--quick');
  for (const r of await run({ quick })) console.log(JSON.stringify(r));
}
