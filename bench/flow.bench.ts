/**
 * The compile-to-ring flow, measured against baselines in the same run:
 *
 * 1. BD emission: the lowering's expansion (walk -> pieces -> DescriptorStream) written by the
 *    driver's BD writer (BdWriter.stream -> TX and RX descriptors in two rings, every field
 *    validated) against a raw fill loop that writes the same words into
 *    the same rings with no check. Two shapes: 1 MiB contiguous DMAs (64 KiB chunks) and strided
 *    2-D tiles (256-byte rows). Goal: at least 0.5x.
 * 2. End to end: compile + lower + run on the mock + verify a 100,000-DMA program (10,000 with
 *    --quick), against copying the same pieces with TypedArray.set into plain buffers plus a raw
 *    fill of a descriptor pair for each piece (the least any engine must do to describe and move
 *    those bytes). The mock device is made once and brought up by every run (sharedDevice). The
 *    notes split the CPU time per stage.
 *
 * Standalone: npx tsx bench/flow.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { ProgramBuilder } from '../compiler/ir/builder.ts';
import { interpret } from '../compiler/interp/interpret.ts';
import { initialImage } from '../compiler/interp/memory.ts';
import { compile } from '../compiler/passes/pipeline.ts';
import { DescriptorStream } from '../compiler/lower/bds.ts';
import { countPieces, expandWalk, type AffineWalk } from '../compiler/lower/expand.ts';
import { BD_MAX_LEN, BD_SIZE, LEN_CTRL } from '../csr/formats/bd.ts';
import type { Device, MemoryIO } from '../csr/io.ts';
import { BdWriter } from '../driver/udma/bd-writer.ts';
import { RingProducer } from '../driver/udma/ring.ts';
import { defaultRingBase, flowMock, prepareCompiled, runPrepared } from '../flow/index.ts';
import {
  MIN_RUNS,
  measure,
  measureAgainst,
  measureAllAsync,
  Sections,
  sizeLabel,
  spread,
  timedResult,
  type Case as Measured,
} from './measure.ts';
import { rawPair } from './raw-bd.ts';
import { collectYoung, settle } from './settle.ts';
import type { BenchResult } from './types.ts';

const RING = 4096;

/** A TX and an RX ring of RING descriptors in one flat memory, and their word views. */
interface Rings {
  tx: RingProducer;
  rx: RingProducer;
  txWords: Uint32Array;
  rxWords: Uint32Array;
}

function rings(): Rings {
  const bytes = new Uint8Array(2 * RING * BD_SIZE);
  const mem: MemoryIO = {
    read: (addr, dst) => dst.set(bytes.subarray(addr, addr + dst.length)),
    write: (addr, src) => bytes.set(src, addr),
    isMapped: (addr, n) => addr >= 0 && addr + n <= bytes.length,
    view: (addr, n) => bytes.subarray(addr, addr + n),
  };
  const tx = new RingProducer('tx', { base: 0, size: RING }, mem);
  const rx = new RingProducer('rx', { base: RING * BD_SIZE, size: RING }, mem);
  return {
    tx,
    rx,
    txWords: new Uint32Array(bytes.buffer, 0, RING * 4),
    rxWords: new Uint32Array(bytes.buffer, RING * BD_SIZE, RING * 4),
  };
}

/** Walks of one emission case and the piece list they expand into. */
interface Case {
  /** The metric name's part: `flow.bd.<key>.throughput`. */
  key: string;
  name: string;
  walks: AffineWalk[];
}

export function contiguousCase(n: number): Case {
  const walks: AffineWalk[] = [];
  for (let i = 0; i < n; i++) {
    walks.push({
      type: 'affine',
      elemSize: 4,
      srcAddr: 0x1_0000_0000 + i * (1 << 20),
      dstAddr: 0x2_0000_0000 + i * (1 << 20),
      srcNum: [262144],
      srcStep: [1],
      dstNum: [262144],
      dstStep: [1],
    });
  }
  return { key: 'contiguous', name: '1 MiB contiguous DMAs (64 KiB chunks)', walks };
}

export function stridedCase(n: number): Case {
  const walks: AffineWalk[] = [];
  for (let i = 0; i < n; i++) {
    walks.push({
      type: 'affine',
      elemSize: 4,
      srcAddr: 0x1_0000_0000 + i * 0x10000,
      dstAddr: 0x400_0000 + i * 0x8000,
      srcNum: [64, 128],
      srcStep: [1, 128],
      dstNum: [64, 128],
      dstStep: [1, 64],
    });
  }
  return { key: 'strided', name: 'strided tiles (128 rows of 256 B)', walks };
}

/**
 * The lowering's emission: the walks' pieces into a descriptor stream, written by the driver's BD
 * writer at the rings' tails whenever the next walk would not fit the room left (the engine taken
 * to consume as fast: each write finds the rings empty). Returns descriptor pairs.
 */
function emit(c: Case, r: Rings, stream: DescriptorStream, counts: number[]): number {
  const w = new BdWriter(r.tx, r.rx);
  let n = 0;
  const flush = (): void => {
    w.stream(stream);
    r.tx.consumedAtLeast(r.tx.produced);
    r.rx.consumedAtLeast(r.rx.produced);
    n += stream.length;
    stream.clear();
  };
  stream.clear();
  for (let k = 0; k < c.walks.length; k++) {
    if (stream.length + counts[k] > RING) flush();
    stream.begin(counts[k]);
    expandWalk(c.walks[k], stream);
    stream.end();
  }
  flush();
  return n;
}

/**
 * The raw fill: the same words, computed with the same arithmetic and stored without any check.
 * Works for the two cases' shapes (1-D contiguous, 2-D with contiguous rows).
 */
function rawFill(c: Case, tx: Uint32Array, rx: Uint32Array, counts: number[]): number {
  let slot = 0;
  let rid = 1;
  let n = 0;
  for (let k = 0; k < c.walks.length; k++) {
    const wk = c.walks[k];
    const total = counts[k];
    const rowBytes = wk.srcNum[0] * wk.elemSize;
    const rows = wk.srcNum.length > 1 ? wk.srcNum[1] : 1;
    const sPitch = (wk.srcStep[1] ?? 0) * wk.elemSize;
    const dPitch = (wk.dstStep[1] ?? 0) * wk.elemSize;
    let p = 0;
    for (let r = 0; r < rows; r++) {
      for (let off = 0; off < rowBytes; off += BD_MAX_LEN) {
        const len = rowBytes - off < BD_MAX_LEN ? rowBytes - off : BD_MAX_LEN;
        const pos = p & 63;
        const flags =
          (pos === 0 ? LEN_CTRL.FIRST : 0) | (pos === 63 || p === total - 1 ? LEN_CTRL.LAST : 0);
        const s = wk.srcAddr + r * sPitch + off;
        const d = wk.dstAddr + r * dPitch + off;
        const w0 = (len & 0xffff) | (rid << 24) | flags;
        rawPair(tx, rx, slot << 2, w0, w0, s, d);
        if (++slot === RING) {
          slot = 0;
          rid = (rid + 1) & 3;
        }
        p++;
        n++;
      }
    }
  }
  return n;
}

/** Passes of an emission case a run: long enough for a steady CPU time. */
const PASSES = 16;

export function emissionBench(c: Case, runs: number): BenchResult {
  const counts = c.walks.map((w) => countPieces(w)); // not map(countPieces): its 2nd parameter is a packet cap
  const stream = new DescriptorStream(64);
  const a = rings();
  const b = { tx: new Uint32Array(RING * 4), rx: new Uint32Array(RING * 4) };
  // same bytes: one pass each, then compare
  emit(c, a, stream, counts);
  rawFill(c, b.tx, b.rx, counts);
  for (const [x, y] of [
    [a.txWords, b.tx],
    [a.rxWords, b.rx],
  ]) {
    for (let i = 0; i < x.length; i++) {
      if (x[i] !== y[i]) throw new Error(`${c.name}: emission and raw fill differ at word ${i}`);
    }
  }
  const r = { tx: new Uint32Array(RING * 4), rx: new Uint32Array(RING * 4) };
  let pairs = 0;
  const emitRun = () => {
    // fresh rings each run; the passes go on round them (the same work as restarting at slot 0)
    const e = rings();
    for (let k = 0; k < PASSES; k++) pairs = emit(c, e, stream, counts);
  };
  const rawRun = () => {
    for (let k = 0; k < PASSES; k++) rawFill(c, r.tx, r.rx, counts);
  };
  const t = measureAgainst(emitRun, rawRun, { runs, warmup: 2 });
  return timedResult({
    metric: `flow.bd.${c.key}.throughput`,
    name: `flow: BD emission, ${c.name}`,
    unit: 'descriptor pairs/s',
    items: PASSES * pairs,
    timing: t,
    baseline: { name: 'raw Uint32Array fill of the same words' },
    goal: '>= 0.5x',
    notes: `${pairs} pairs a pass, ${PASSES} passes a run; words compared equal`,
  });
}

/** A program of `n` DMAs: 64-element fp32 loads (host -> sb) and saves (sb -> host), two queues. */
export function bigProgram(n: number): ProgramBuilder {
  const b = new ProgramBuilder({ name: `dmas-${n}`, arch: 30 });
  const tile = 64; // elements
  const tiles = 4096;
  const bytes = tiles * tile * 4; // 1 MiB per tensor
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 2 * bytes });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 2 * bytes });
  b.tensor({ name: 'in', region: 'host', dtype: 'fp32', shape: [tiles, tile], kind: 'Input' });
  b.tensor({
    name: 'out',
    region: 'host',
    offset: bytes,
    dtype: 'fp32',
    shape: [tiles, tile],
    kind: 'Output',
  });
  b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [tiles, tile] });
  b.tensor({
    name: 'b',
    region: 'sb',
    offset: bytes,
    dtype: 'fp32',
    shape: [tiles, tile],
    init: new Array(64).fill(1),
  });
  const bb = b.function('main').block('entry');
  for (let i = 0; i < n; i++) {
    const t = (i >> 1) % tiles;
    if ((i & 1) === 0) {
      bb.load({
        qos: 'P0',
        src: { tensor: 'in', offset: t * tile, partition: [16, 4], free: [[1, 16]] },
        dst: { tensor: 'a', offset: t * tile, partition: [16, 4], free: [[1, 16]] },
      });
    } else {
      bb.save({
        qos: 'P3',
        src: { tensor: 'b', offset: t * tile, partition: [16, 4], free: [[1, 16]] },
        dst: { tensor: 'out', offset: t * tile, partition: [16, 4], free: [[1, 16]] },
      });
    }
  }
  return b;
}

/** The same pieces copied with TypedArray.set, plus a raw fill of a descriptor pair for each. */
function yardstick(p: ReturnType<typeof prepareCompiled>): () => number {
  const img = initialImage(p.module).regions.map((x) => x.bytes);
  const host = img[0];
  const sb = img[1];
  const hostBase = p.module.regions[0].base;
  const sbBase = p.module.regions[1].base;
  const pieces: number[] = [];
  // the walks from the lowering's table (the records' walks, without making a record per DMA)
  const t = p.lowered.table;
  const sink = { piece: (s: number, dd: number, l: number) => void pieces.push(s, dd, l) };
  for (let d = 0; d < t.size; d++) {
    for (let k = 0; k < t.walksOf(d); k++) expandWalk(t.walk(d, k), sink);
  }
  const tx = new Uint32Array(RING * 4);
  const rx = new Uint32Array(RING * 4);
  const flags = LEN_CTRL.FIRST | LEN_CTRL.LAST;
  return () => {
    let moved = 0;
    for (let i = 0, slot = 0; i < pieces.length; i += 3, slot = (slot + 1) & (RING - 1)) {
      const s = pieces[i];
      const d = pieces[i + 1];
      const l = pieces[i + 2];
      const sBuf = s >= hostBase ? host : sb;
      const dBuf = d >= hostBase ? host : sb;
      const so = s - (s >= hostBase ? hostBase : sbBase);
      const dOff = d - (d >= hostBase ? hostBase : sbBase);
      const w0 = (l & 0xffff) | (1 << 24) | flags;
      rawPair(tx, rx, slot << 2, w0, w0, s, d);
      dBuf.set(sBuf.subarray(so, so + l), dOff);
      moved += l;
    }
    return moved;
  };
}

/**
 * What the measured runs need of the first run's prepared flow: the baseline, and the reference
 * interpreter alone for the notes (measured now, so that the program need not stay alive).
 */
function fromFirstRun(p: ReturnType<typeof prepareCompiled>): {
  base: () => number;
  interp: ReturnType<typeof measure>;
} {
  const m = p.module;
  const interp = measure(() => interpret(m, initialImage(m)), { runs: MIN_RUNS, warmup: 2 });
  return { base: yardstick(p), interp };
}

/**
 * The device the runs share: made by the first run, for the program's memory layout, and used by
 * every later run of the same layout, as a pipeline's device exists before its flows (and as the
 * baseline's buffers are made once). Each run still brings it up: the flow writes every region's
 * initial bytes, sets up the rings and programs the QoS before its first descriptor, so nothing of
 * an earlier run's memory can pass the verification.
 */
function sharedDevice(): (p: ReturnType<typeof prepareCompiled>, ringBase: number) => Device {
  let device: Device | undefined;
  let layout = '';
  return (p, ringBase) => {
    const key = JSON.stringify([
      p.module.regions.map((r) => [r.base, r.size]),
      ringBase,
      p.ringBytes,
    ]);
    if (device === undefined || key !== layout) {
      device = flowMock(p, ringBase, { traceLimit: 0 });
      layout = key;
    }
    return device;
  };
}

/**
 * Unmeasured flows after the first run, each case alike: the flow's CPU time settles only from its
 * 8th run in a process on (the optimizing compiler's tiers and the heap's growth; in six processes
 * the fastest of the six at each run index, ms: 632, 362, 74, 61, 59, 64, 65, 57, then 50-59, and
 * the medians 765, 463, 186, 93, 90, 71, 70, 59, then 54-98 with the machine's noise), so the
 * measured runs begin there.
 */
const FLOW_WARMUP = 6;

async function endToEnd(n: number, runs: number): Promise<BenchResult[]> {
  const deviceFor = sharedDevice();
  const stages = { compile: [] as number[], lower: [] as number[], run: [] as number[] };
  // The first run's prepared flow (for the baseline's pieces and the notes), dropped before the
  // measured runs: a program kept alive would make every collection in them cost more.
  let first: ReturnType<typeof prepareCompiled> | null = null;
  let keepFirst = true;
  let shape = { descriptors: 0, epochs: 0, drains: 0 };
  const flow: Measured = {
    sections: async (_i, sec) => {
      const m = bigProgram(n).build(); // not counted
      collectYoung(); // nor the copying of the build's newest objects out of the young generation
      settle(); // nor the build's (and the last run's) background collection
      const cpu0 = sec.cpu;
      const r = sec.time(() => compile(m));
      const cpu1 = sec.cpu;
      const p = sec.time(() => prepareCompiled(r));
      const cpu2 = sec.cpu;
      const ringBase = defaultRingBase(p.module);
      const report = await sec.time(() => runPrepared(p, deviceFor(p, ringBase), { ringBase }));
      if (report.mismatches !== 0)
        throw new Error(`end-to-end run: ${report.mismatches} mismatches`);
      stages.compile.push(cpu1 - cpu0);
      stages.lower.push(cpu2 - cpu1);
      stages.run.push(sec.cpu - cpu2);
      if (keepFirst) first = p;
      keepFirst = false;
      shape = {
        descriptors: report.lowering.descriptors,
        epochs: report.epochs,
        drains: report.drains,
      };
    },
  };
  // one run first for the baseline's pieces (and as the flow's first warm-up)
  await (flow as { sections: (i: number, s: Sections) => Promise<void> }).sections(
    0,
    new Sections(),
  );
  const { base, interp } = fromFirstRun(first!);
  first = null;
  // the baseline after the same wait (it would otherwise pay for the flow's background threads)
  const t = await measureAllAsync(
    {
      flow,
      base: {
        setup: () => {
          collectYoung();
          settle();
        },
        run: base,
      },
    },
    { runs, warmup: FLOW_WARMUP },
  );
  const med = (xs: number[]) => spread(xs).median.toFixed(0);
  const moved = base();
  return [
    timedResult({
      metric: `flow.${sizeLabel(n)}.throughput`,
      name: `flow: compile + lower + run + verify, ${n.toLocaleString('en-US')} DMAs`,
      unit: 'DMAs/s',
      items: n,
      timing: { value: t.flow, baseline: t.base },
      baseline: {
        name: 'TypedArray.set of the same pieces plus a raw fill of a descriptor pair each',
      },
      goal: '>= 0.1x',
      notes:
        `build not counted; CPU medians: compile ${med(stages.compile)} ms, lower ${med(stages.lower)} ms, ` +
        `run + verify ${med(stages.run)} ms (the reference interpreter alone ${interp.cpuMs.median.toFixed(0)} ms); ` +
        `${shape.descriptors} descriptor pairs, ${shape.epochs} epoch(s), ${shape.drains} drains, ${(moved / 1048576).toFixed(1)} MiB moved`,
    }),
  ];
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const quick = opts.quick === true;
  const out: BenchResult[] = [];
  out.push(emissionBench(contiguousCase(quick ? 256 : 2048), quick ? MIN_RUNS : 7));
  out.push(emissionBench(stridedCase(quick ? 64 : 512), quick ? MIN_RUNS : 7));
  // 15 measured rounds of the 100k case, as the scale bench's shapes: this machine runs a whole
  // baseline run at one of two speeds (5.2-5.7 or 9-11 ms), and the median of 9 rounds moved
  // with how many of each it caught
  out.push(...(await endToEnd(quick ? 10_000 : 100_000, quick ? MIN_RUNS : 15)));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run({ quick: process.argv.includes('--quick') });
  for (const r of results) {
    console.log(
      `${r.name}: ${r.value.toLocaleString('en-US')} ${r.unit}` +
        (r.baseline
          ? ` | ${r.baseline.name}: ${r.baseline.value.toLocaleString('en-US')} | ratio ${r.ratio!.toFixed(2)}x`
          : '') +
        (r.goal ? ` (goal ${r.goal})` : '') +
        (r.notes ? `\n    ${r.notes}` : ''),
    );
  }
}
