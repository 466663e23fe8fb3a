/**
 * Compiler throughput: a generated program of N DMA instructions (tiled loads and saves behind
 * producer engines, collectives with CC-engine loads, transposes, several QoS classes, some loop
 * bodies) through every pass of the pipeline. Reports DMA instructions per second and peak heap
 * for 10k, 100k and 1M DMAs (linearity), each against a baseline measured in the same run: a plain
 * loop visiting the same instruction objects once per pass and reading the fields the passes read.
 * Goal: at least 500,000 DMA instructions/s for 1,000,000 DMAs, memory linear in size.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ProgramBuilder, tileAP } from '../compiler/ir/builder.ts';
import type { Module } from '../compiler/ir/module.ts';
import { PIPELINE, compile } from '../compiler/passes/pipeline.ts';
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

/** The baseline: one plain loop per pass over the same instruction objects, reading their fields. */
function baselineLoop(m: Module, sweeps: number): number {
  let acc = 0;
  const instrs = m.instrs;
  for (let s = 0; s < sweeps; s++) {
    for (let i = 0; i < instrs.length; i++) {
      const I = instrs[i];
      acc += I.op + I.engine + I.dgeType + I.qos;
      if (I.src !== null && I.dst !== null) acc += I.src.tensor.kind + I.dst.tensor.memType;
    }
  }
  return acc;
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

interface Sample {
  buildMs: number;
  heap0: number;
  heapIR: number;
  peak: number;
}

/**
 * Builds the IR of an n-DMA program and compiles it; times the passes (in `timed`: CPU and wall)
 * and samples the heap after each pass (a heap-statistics call, microseconds, inside the timing).
 */
function sample(nDmas: number, timed: Sections): { m: Module; s: Sample } {
  fullGc();
  const heap0 = heapUsed();
  let program: ProgramBuilder | null = generateProgram(nDmas);
  const tBuild = performance.now();
  const m = program.build();
  const buildMs = performance.now() - tBuild;
  program = null; // the program object is input, not IR: let it go before measuring the IR
  fullGc();
  const heapIR = heapUsed();
  let peak = heapIR;
  timed.time(() =>
    compile(m, {
      onPass: () => {
        peak = Math.max(peak, heapUsed());
      },
    }),
  );
  return { m, s: { buildMs, heap0, heapIR, peak } };
}

async function measureSize(nDmas: number, runs: number): Promise<BenchResult[]> {
  const samples: Sample[] = [];
  let mod: Module | null = null;
  let sink = 0;
  // each compile on a freshly built module; the baseline walks the module the last compile made
  const t = measureAgainst(
    {
      sections: (_i, s) => {
        mod = null; // let the previous module go before building the next
        const out = sample(nDmas, s);
        mod = out.m;
        samples.push(out.s);
      },
    },
    () => (sink += baselineLoop(mod!, PIPELINE.length)),
    { runs, warmup: 0 },
  );
  const m = mod! as Module;
  const dmas = countDmas(m);
  const label = sizeLabel(nDmas);
  const buildMs = spread(samples.map((x) => x.buildMs)).median;
  // the heap with no module alive: the least of the runs' starting heaps (a run may start before
  // the previous module is collected)
  const heap0 = Math.min(...samples.map((x) => x.heap0));
  const peakBytes = Math.max(...samples.map((x) => x.peak)) - heap0;
  const irBytes = spread(samples.map((x) => x.heapIR)).median - heap0;
  return [
    timedResult({
      metric: `compile.${label}.throughput`,
      name: `compile.passes.${label}`,
      unit: 'DMA instructions/s',
      items: dmas,
      timing: t,
      baseline: { name: 'plain loop, one sweep per pass' },
      goal: nDmas >= 1_000_000 ? '>= 500000 DMA instructions/s' : undefined,
      notes: `${dmas} DMAs, ${m.instrs.length} instructions, ${m.queues.length} queues; IR build ${buildMs.toFixed(0)} ms (not counted; checksum ${sink % 10})`,
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
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const sizes = opts.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const out: BenchResult[] = [];
  // warm-up: let the JIT optimise the passes before measuring (a cold 10k run is mostly tier-up)
  for (let i = 0; i < 3; i++) sample(30_000, new Sections());
  for (const n of sizes) out.push(...(await measureSize(n, MIN_RUNS)));
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, ''))) {
  const quick = process.argv.includes('--quick');
  for (const r of await run({ quick })) console.log(JSON.stringify(r));
}
