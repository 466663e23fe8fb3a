/**
 * The compile-to-ring flow, measured against baselines in the same run:
 *
 * 1. BD emission: the lowering's expansion (walk -> pieces -> BdWriter -> TX and RX descriptors
 *    in two rings, every field validated) against a raw fill loop that writes the same words into
 *    the same rings with no check. Two shapes: 1 MiB contiguous DMAs (64 KiB chunks) and strided
 *    2-D tiles (256-byte rows). Goal: at least 0.5x.
 * 2. End to end: compile + lower + run on the mock + verify a 100,000-DMA program (10,000 with
 *    --quick), against copying the same pieces with TypedArray.set into plain buffers (the least
 *    any engine must do to move those bytes). The notes split the time per stage.
 *
 * Standalone: npx tsx bench/flow.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { ProgramBuilder } from '../compiler/ir/builder.ts';
import { interpret } from '../compiler/interp/interpret.ts';
import { initialImage } from '../compiler/interp/memory.ts';
import { compile } from '../compiler/passes/pipeline.ts';
import { BdWriter, type RingCursor } from '../compiler/lower/bds.ts';
import { countPieces, expandWalk, type AffineWalk } from '../compiler/lower/expand.ts';
import { BD_MAX_LEN, LEN_CTRL, META_CTRL_PLAIN_COPY } from '../csr/formats/bd.ts';
import { defaultRingBase, flowMock, prepareCompiled, runPrepared } from '../flow/index.ts';
import type { BenchResult } from './types.ts';

const RING = 4096;

function cursor(): RingCursor {
  return { words: new Uint32Array(RING * 4), size: RING, tail: 0, ringId: 1 };
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

/** The lowering's emitter: pieces of each walk into the two rings. Returns descriptor pairs. */
function emit(c: Case, tx: RingCursor, rx: RingCursor, counts: number[]): number {
  const w = new BdWriter(tx, rx, 64);
  for (let k = 0; k < c.walks.length; k++) {
    w.begin(counts[k]);
    expandWalk(c.walks[k], w);
    w.end();
  }
  return w.written;
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
        const i = slot << 2;
        const w0 = (len & 0xffff) | (rid << 24) | flags;
        tx[i] = w0;
        tx[i + 1] = META_CTRL_PLAIN_COPY;
        tx[i + 2] = s >>> 0;
        tx[i + 3] = (s / 4294967296) >>> 0;
        rx[i] = w0;
        rx[i + 1] = 0;
        rx[i + 2] = d >>> 0;
        rx[i + 3] = (d / 4294967296) >>> 0;
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

/**
 * Best rate (descriptor pairs / s) of `f` over `reps` timed rounds, each repeating it for at least
 * `minMs` (after a warm-up round).
 */
function rate(f: () => number, reps: number, minMs = 40): number {
  const round = (): number => {
    const t0 = performance.now();
    let n = 0;
    let dt = 0;
    do {
      n += f();
      dt = performance.now() - t0;
    } while (dt < minMs);
    return n / (dt / 1000);
  };
  round();
  let best = 0;
  for (let i = 0; i < reps; i++) best = Math.max(best, round());
  return best;
}

export function emissionBench(c: Case, reps: number): BenchResult {
  const counts = c.walks.map((w) => countPieces(w)); // not map(countPieces): its 2nd parameter is a packet cap
  const a = { tx: cursor(), rx: cursor() };
  const b = { tx: cursor(), rx: cursor() };
  // same bytes: one pass each, then compare
  emit(c, a.tx, a.rx, counts);
  rawFill(c, b.tx.words!, b.rx.words!, counts);
  for (const [x, y] of [
    [a.tx.words!, b.tx.words!],
    [a.rx.words!, b.rx.words!],
  ]) {
    for (let i = 0; i < x.length; i++) {
      if (x[i] !== y[i]) throw new Error(`${c.name}: emission and raw fill differ at word ${i}`);
    }
  }
  const fresh = () => ({ tx: cursor(), rx: cursor() });
  const e = fresh();
  const r = fresh();
  const emitOnce = () => {
    e.tx.tail = e.rx.tail = 0;
    e.tx.ringId = e.rx.ringId = 1;
    return emit(c, e.tx, e.rx, counts);
  };
  const rawOnce = () => rawFill(c, r.tx.words!, r.rx.words!, counts);
  let got = 0;
  let raw = 0;
  for (let i = 0; i < reps; i++) {
    got = Math.max(got, rate(emitOnce, 1));
    raw = Math.max(raw, rate(rawOnce, 1));
  }
  return {
    metric: `flow.bd.${c.key}.throughput`,
    name: `flow: BD emission, ${c.name}`,
    value: Math.round(got),
    unit: 'descriptor pairs/s',
    baseline: {
      name: 'raw Uint32Array fill of the same words',
      value: Math.round(raw),
      unit: 'descriptor pairs/s',
    },
    ratio: got / raw,
    goal: '>= 0.5x',
    notes: `${counts.reduce((x, y) => x + y, 0)} pairs per pass; words compared equal`,
  };
}

/** A program of `n` DMAs: 64-element fp32 loads (host -> sb) and saves (sb -> host), two queues. */
function bigProgram(n: number): ProgramBuilder {
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

async function endToEnd(n: number): Promise<BenchResult[]> {
  const t0 = performance.now();
  const b = bigProgram(n);
  const m = b.build();
  const t1 = performance.now();
  const r = compile(m);
  const t2 = performance.now();
  const p = prepareCompiled(r);
  const t3 = performance.now();
  const ringBase = defaultRingBase(p.module);
  const report = await runPrepared(p, flowMock(p, ringBase, { traceLimit: 0 }), { ringBase });
  const t4 = performance.now();
  if (report.mismatches !== 0) throw new Error(`end-to-end run: ${report.mismatches} mismatches`);
  // baseline: the same pieces copied with TypedArray.set between two plain buffers
  const img = initialImage(p.module).regions.map((x) => x.bytes);
  const host = img[0];
  const sb = img[1];
  const hostBase = p.module.regions[0].base;
  const sbBase = p.module.regions[1].base;
  const pieces: number[] = [];
  for (const d of p.lowered.dmas) {
    for (const w of d.walks) {
      expandWalk(w, { piece: (s, dd, l) => void pieces.push(s, dd, l) });
    }
  }
  const b0 = performance.now();
  let moved = 0;
  for (let rep = 0; rep < 3; rep++) {
    for (let i = 0; i < pieces.length; i += 3) {
      const s = pieces[i];
      const d = pieces[i + 1];
      const l = pieces[i + 2];
      const sBuf = s >= hostBase ? host : sb;
      const dBuf = d >= hostBase ? host : sb;
      const so = s - (s >= hostBase ? hostBase : sbBase);
      const dOff = d - (d >= hostBase ? hostBase : sbBase);
      dBuf.set(sBuf.subarray(so, so + l), dOff);
      moved += l;
    }
  }
  const b1 = performance.now();
  const baseSec = (b1 - b0) / 3 / 1000;
  const e2eSec = (t4 - t1) / 1000;
  // the reference interpreter alone, for the notes
  const i0 = performance.now();
  interpret(p.module, initialImage(p.module));
  const i1 = performance.now();
  return [
    {
      metric: `flow.${n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`}.throughput`,
      name: `flow: compile + lower + run + verify, ${n.toLocaleString('en-US')} DMAs`,
      value: Math.round(n / e2eSec),
      unit: 'DMAs/s',
      baseline: {
        name: 'TypedArray.set of the same pieces',
        value: Math.round(n / baseSec),
        unit: 'DMAs/s',
      },
      ratio: baseSec / e2eSec,
      goal: '>= 0.1x',
      notes:
        'baseline: TypedArray.set of the pieces only (no descriptor fill); ' +
        `total ${e2eSec.toFixed(2)} s: build ${((t1 - t0) / 1000).toFixed(2)} s (not counted), compile ${((t2 - t1) / 1000).toFixed(2)} s, ` +
        `lower ${((t3 - t2) / 1000).toFixed(2)} s, run + verify ${((t4 - t3) / 1000).toFixed(2)} s ` +
        `(reference interpreter ${((i1 - i0) / 1000).toFixed(2)} s of it); ${report.lowering.descriptors} descriptor pairs, ` +
        `${report.epochs} epoch(s), ${report.drains} drains, ${(moved / 3 / 1048576).toFixed(1)} MiB moved`,
    },
  ];
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const quick = opts.quick === true;
  const out: BenchResult[] = [];
  out.push(emissionBench(contiguousCase(quick ? 256 : 2048), quick ? 3 : 7));
  out.push(emissionBench(stridedCase(quick ? 64 : 512), quick ? 3 : 7));
  out.push(...(await endToEnd(quick ? 10_000 : 100_000)));
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
