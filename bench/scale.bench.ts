/**
 * Scale: how the mock and the driver behave as the input grows, each figure against a baseline
 * measured in the same run.
 *
 * 1. The mock engine is linear in the number of descriptors: 10k, 100k and 1M copies of 64 bytes
 *    on one queue with a 65,536-descriptor ring (the 1M run wraps the ring 15 times), timing only
 *    the engine's run. Baseline: Buffer.copy of the same 64-byte chunks, same count. Linear means
 *    descriptors/s (and the ratio) flat across the three sizes.
 * 2. 16 engines x 16 queues, each with 65,536-descriptor TX and RX rings: set-up (bring-up + 256
 *    queue inits) per queue against one engine with one queue; then 1,048,576 copies spread over
 *    16 engines x 1 queue, 1 engine x 16 queues and 16 x 16 queues, end to end through driver/udma
 *    (submit, run, poll), each against the same number of copies on one queue of one engine. A
 *    ratio near 1 means no cost grows with that dimension; the mock's arbiter looks at every ready
 *    queue of an engine for each packet, so the queue dimension costs per packet.
 *
 * Standalone: npx tsx bench/scale.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import type { UdmaEngine } from '../driver/udma/engine.ts';
import type { CopyRequest } from '../driver/udma/queue.ts';
import { bringUpQueues } from '../flow/bring-up.ts';
import { MockDevice } from '../mocks/device.ts';
import type { BenchResult } from './types.ts';

const RING = 65536;
const RING_BYTES = RING * 16;
const LEN = 64;
const BATCH = 4096;
const SRC = 2 ** 34;
const DST = 2 ** 35;

function now(): number {
  return performance.now();
}

/** A device of `engines` engines x `queues` queues, rings of 65,536, set up through the driver. */
function setUp(
  engines: number,
  queues: number,
  dstBytes: number,
): { dev: MockDevice; engs: UdmaEngine[]; ms: number } {
  const dev = new MockDevice({
    engines,
    autoRun: 'none',
    serviceTrace: false,
    memory: [
      { name: 'rings', base: 0, size: engines * queues * 2 * RING_BYTES },
      { name: 'src', base: SRC, size: 1 << 20 },
      { name: 'dst', base: DST, size: dstBytes },
    ],
  });
  const src = new Uint8Array(1 << 20);
  for (let i = 0; i < src.length; i++) src[i] = (i * 131 + 7) & 0xff;
  dev.memory.write(SRC, src);
  const t0 = now();
  const specs = dev
    .engines()
    .flatMap((engine) =>
      Array.from({ length: queues }, (_, queue) => ({ engine, queue, size: RING })),
    );
  const engs = [...bringUpQueues(dev, specs, { base: 0 }).engines.values()];
  return { dev, engs, ms: now() - t0 };
}

/** Copy requests for one queue: `n` copies of 64 bytes into its own destination slice. */
function batchFor(slice: number, n: number): CopyRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    src: SRC + (i % 16384) * LEN,
    dst: DST + slice + i * LEN,
    bytes: LEN,
  }));
}

/**
 * 1. `n` copies on queue 0 of one engine, submitted a lap at a time; only the engine's runs are
 * timed. Returns seconds of engine run time.
 */
function mockRun(n: number): { seconds: number; check: boolean } {
  const { dev, engs } = setUp(1, 1, RING * LEN);
  const q = engs[0].queue(0);
  const unit = dev.udma(0);
  const reqs = batchFor(0, BATCH);
  let done = 0;
  let t = 0;
  while (done < n) {
    const lap = Math.min(RING, n - done);
    for (let k = 0; k < lap; k += BATCH) {
      const m = Math.min(BATCH, lap - k);
      for (let i = 0; i < m; i++) reqs[i].dst = DST + ((k + i) % RING) * LEN;
      q.copyBatch(m === BATCH ? reqs : reqs.slice(0, m));
    }
    const t0 = now();
    const served = unit.runUntilIdle();
    t += now() - t0;
    if (served !== lap) throw new Error(`scale bench: served ${served} of ${lap}`);
    q.poll();
    done += lap;
  }
  const st = q.stats();
  const got = new Uint8Array(LEN);
  dev.memory.read(DST + 5 * LEN, got);
  const want = new Uint8Array(LEN);
  dev.memory.read(SRC + 5 * LEN, want);
  return {
    seconds: t / 1000,
    check: st.completed === n && Buffer.from(got).equals(Buffer.from(want)),
  };
}

function bufferCopyRun(n: number): number {
  const src = Buffer.alloc(1 << 20, 7);
  const dst = Buffer.alloc(RING * LEN);
  const t0 = now();
  for (let i = 0; i < n; i++) {
    const s = (i % 16384) * LEN;
    const d = (i % RING) * LEN;
    src.copy(dst, d, s, s + LEN);
  }
  return (now() - t0) / 1000;
}

/**
 * 2. `total` copies spread evenly over every queue of every engine, end to end: submit, run the
 * device, poll. Returns seconds and whether every copy completed.
 */
function spread(engines: number, queues: number, total: number): { seconds: number; ok: boolean } {
  const perQueue = total / (engines * queues);
  const slice = Math.min(perQueue, RING) * LEN;
  const { dev, engs } = setUp(engines, queues, engines * queues * slice);
  const reqs = new Map<number, CopyRequest[]>();
  for (let e = 0; e < engines; e++)
    for (let q = 0; q < queues; q++)
      reqs.set(e * queues + q, batchFor((e * queues + q) * slice, BATCH));
  const t0 = now();
  let left = perQueue;
  while (left > 0) {
    const lap = Math.min(RING, left);
    for (let e = 0; e < engines; e++) {
      for (let q = 0; q < queues; q++) {
        const r = reqs.get(e * queues + q)!;
        for (let k = 0; k < lap; k += BATCH) {
          const m = Math.min(BATCH, lap - k);
          engs[e].copyBatch(q, m === BATCH ? r : r.slice(0, m));
        }
      }
    }
    dev.runUntilIdle();
    for (const eng of engs) eng.poll();
    left -= lap;
  }
  const seconds = (now() - t0) / 1000;
  let ok = dev.faults().length === 0;
  for (const eng of engs) for (const s of eng.stats()) ok &&= s.completed === perQueue;
  return { seconds, ok };
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  // 1. the mock, linear in descriptors
  const sizes = opts.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  mockRun(20_000); // warm-up
  bufferCopyRun(20_000);
  for (const n of sizes) {
    let best = Infinity;
    let base = Infinity;
    const reps = n >= 1_000_000 ? 2 : 4;
    for (let r = 0; r < reps; r++) {
      const m = mockRun(n);
      if (!m.check) throw new Error(`scale bench: the mock run of ${n} copies is wrong`);
      best = Math.min(best, m.seconds);
      base = Math.min(base, bufferCopyRun(n));
    }
    const label = n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
    out.push({
      metric: `scale.mock${label}.throughput`,
      name: `scale.mock.${label} (64-byte descriptors, one queue, 65,536-descriptor ring)`,
      value: Math.round(n / best),
      unit: 'descriptors/s',
      baseline: {
        name: 'Buffer.copy of the same chunks',
        value: Math.round(n / base),
        unit: 'copies/s',
      },
      ratio: base / best,
      notes: `expected linear: descriptors/s flat from 10k to 1M; engine run ${(best * 1000).toFixed(1)} ms for ${n} descriptors (${((best / n) * 1e9).toFixed(0)} ns each), best of ${reps}`,
    });
  }

  // 2. 16 x 16 queues with 65,536-descriptor rings
  const E = 16;
  const Q = 16;
  const one = setUp(1, 1, 1 << 16).ms;
  const all = setUp(E, Q, 1 << 16).ms;
  out.push({
    metric: 'scale.setup16x16.time',
    name: 'scale.setup: 16 engines x 16 queues, 65,536-descriptor rings (bring-up + initQueue)',
    value: Number((all / (E * Q)).toFixed(3)),
    unit: 'ms per queue',
    baseline: { name: 'one engine with one queue', value: Number(one.toFixed(3)), unit: 'ms' },
    ratio: all / (E * Q) / one,
    notes: `${all.toFixed(1)} ms for all 256 queues (512 MiB of rings declared, touched only where written)`,
  });
  const total = opts.quick ? 65_536 : 1_048_576;
  spread(1, 1, 65_536); // warm-up
  const single = spread(1, 1, total);
  if (!single.ok) throw new Error('scale bench: copies missing');
  const shapes: [number, number, string][] = [
    [E, 1, 'engines: no cost grows with the number of engines (ratio near 1)'],
    [1, Q, 'queues of one engine: every packet is arbitrated over the ready queues'],
    [E, Q, 'both'],
  ];
  for (const [e, q, what] of shapes) {
    const r = spread(e, q, total);
    if (!r.ok) throw new Error('scale bench: copies missing');
    out.push({
      metric:
        e === 1 && q === Q ? `mock.queues1x${Q}.throughput` : `scale.copies${e}x${q}.throughput`,
      name: `scale.copies.${e}x${q}: ${total.toLocaleString('en-US')} 64-byte copies over ${e} engine${e > 1 ? 's' : ''} x ${q} queue${q > 1 ? 's' : ''}, end to end through the driver`,
      value: Math.round(total / r.seconds),
      unit: 'copies/s',
      baseline: {
        name: 'the same copies on one queue of one engine',
        value: Math.round(total / single.seconds),
        unit: 'copies/s',
      },
      ratio: single.seconds / r.seconds,
      ...(e === 1 && q === Q ? { goal: '>= 0.9x' } : {}),
      notes: `${what}; submit + run + poll, ${(r.seconds * 1000).toFixed(0)} ms vs ${(single.seconds * 1000).toFixed(0)} ms`,
    });
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
