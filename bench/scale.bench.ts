/**
 * Scale: how the mock and the driver behave as the input grows, each figure against a baseline
 * measured in the same run.
 *
 * 1. The mock engine is linear in the number of descriptors: 10k, 100k and 1M copies of 64 bytes
 *    on one queue with a 65,536-descriptor ring (the 1M run wraps the ring 15 times), timing only
 *    the engine's run. Baseline: Buffer.copy of the same 64-byte chunks, same count. Linear means
 *    descriptors/s (and the ratio) flat across the three sizes.
 * 2. 16 engines x 16 queues, each with 65,536-descriptor TX and RX rings: set-up (bring-up + 256
 *    queue inits) per queue against one engine with one queue; then 262,144 copies a run spread
 *    over 16 engines x 1 queue, 1 engine x 16 queues and 16 x 16 queues, end to end through
 *    driver/udma (submit, run, poll), each against the same copies (every copy's source and
 *    destination) on one queue of one engine. A
 *    ratio near 1 means no cost grows with that dimension; the mock's arbiter looks at every ready
 *    queue of an engine for each packet, so the queue dimension costs per packet. The memory the
 *    engines write (rings, destinations) is resident and zeroed before each run (residentMemory).
 *
 * Standalone: npx tsx bench/scale.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import type { UdmaEngine } from '../driver/udma/engine.ts';
import type { CopyRequest } from '../driver/udma/queue.ts';
import { bringUpQueues } from '../flow/bring-up.ts';
import { MockDevice } from '../mocks/device.ts';
import {
  MIN_RUNS,
  Sections,
  type Case,
  measureAgainst,
  measureAll,
  sizeLabel,
  timedResult,
} from './measure.ts';
import { settle } from './settle.ts';
import type { BenchResult } from './types.ts';

const RING = 65536;
const RING_BYTES = RING * 16;
const LEN = 64;
const BATCH = 4096;
const SRC = 2 ** 34;
const DST = 2 ** 35;

/** Memory regions' backings by name and size, kept across runs (see residentMemory). */
const backings = new Map<string, Uint8Array>();

/**
 * The backing of a region the engines write (the rings, the copies' destinations): resident and
 * zeroed before the run, as a driver's ring and buffer memory is (allocated and pinned at set-up).
 * One buffer per region and size, kept across runs and zeroed for each (untimed): a fresh one
 * would put the operating system's first touch of every page written into the timed run, and
 * only for buffers the C library maps afresh (at or above its mmap threshold), as the 16-queue
 * shapes' rings are but not their one-queue baselines'.
 */
function residentMemory(name: string, size: number): Uint8Array {
  const key = `${name}:${size}`;
  let b = backings.get(key);
  if (b === undefined) {
    b = new Uint8Array(size);
    backings.set(key, b);
  }
  return b.fill(0);
}

/** A device of `engines` engines x `queues` queues, rings of 65,536, set up through the driver. */
function setUp(
  engines: number,
  queues: number,
  dstBytes: number,
  timed: Sections = new Sections(),
): { dev: MockDevice; engs: UdmaEngine[] } {
  const ringsSize = engines * queues * 2 * RING_BYTES;
  const dev = new MockDevice({
    engines,
    autoRun: 'none',
    serviceTrace: false,
    memory: [
      { name: 'rings', base: 0, size: ringsSize, backing: residentMemory('rings', ringsSize) },
      { name: 'src', base: SRC, size: 1 << 20 },
      { name: 'dst', base: DST, size: dstBytes, backing: residentMemory('dst', dstBytes) },
    ],
  });
  const src = new Uint8Array(1 << 20);
  for (let i = 0; i < src.length; i++) src[i] = (i * 131 + 7) & 0xff;
  dev.memory.write(SRC, src);
  const specs = dev
    .engines()
    .flatMap((engine) =>
      Array.from({ length: queues }, (_, queue) => ({ engine, queue, size: RING })),
    );
  const engs = timed.time(() => [...bringUpQueues(dev, specs, { base: 0 }).engines.values()]);
  return { dev, engs };
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
 * timed (in `timed`). Throws when a copy is missing or wrong.
 */
function mockRun(n: number, timed: Sections): void {
  const { dev, engs } = setUp(1, 1, RING * LEN);
  const q = engs[0].queue(0);
  const unit = dev.udma(0);
  const reqs = batchFor(0, BATCH);
  let done = 0;
  while (done < n) {
    const lap = Math.min(RING, n - done);
    for (let k = 0; k < lap; k += BATCH) {
      const m = Math.min(BATCH, lap - k);
      for (let i = 0; i < m; i++) reqs[i].dst = DST + ((k + i) % RING) * LEN;
      q.copyBatch(m === BATCH ? reqs : reqs.slice(0, m));
    }
    const served = timed.time(() => unit.runUntilIdle());
    if (served !== lap) throw new Error(`scale bench: served ${served} of ${lap}`);
    q.poll();
    done += lap;
  }
  const st = q.stats();
  const got = new Uint8Array(LEN);
  dev.memory.read(DST + 5 * LEN, got);
  const want = new Uint8Array(LEN);
  dev.memory.read(SRC + 5 * LEN, want);
  if (st.completed !== n || !Buffer.from(got).equals(Buffer.from(want))) {
    throw new Error(`scale bench: the mock run of ${n} copies is wrong`);
  }
}

/** The baseline of 1.: Buffer.copy of the same `n` 64-byte chunks (buffers made before the run). */
function bufferCopyCase(n: number): { setup: () => void; run: () => void } {
  let src = Buffer.alloc(0);
  let dst = Buffer.alloc(0);
  return {
    setup: () => {
      src = Buffer.alloc(1 << 20, 7);
      dst = Buffer.alloc(RING * LEN);
    },
    run: () => {
      for (let i = 0; i < n; i++) {
        const s = (i % 16384) * LEN;
        const d = (i % RING) * LEN;
        src.copy(dst, d, s, s + LEN);
      }
    },
  };
}

/**
 * 2. `total` copies spread evenly over every queue of every engine, end to end: submit, run the
 * device, poll (the device's set-up is not timed). Throws when a copy is missing.
 *
 * With `oneQueue` the same copies (the same source and destination of every copy, in the same
 * order) go to queue 0 of a one-engine device instead: the baseline of the shape. Its ring takes a
 * lap of RING copies, so the device runs whenever the next batch would not fit.
 */
function spreadRun(
  engines: number,
  queues: number,
  total: number,
  timed: Sections,
  oneQueue = false,
): void {
  const perQueue = total / (engines * queues);
  const slice = Math.min(perQueue, RING) * LEN;
  const { dev, engs } = oneQueue
    ? setUp(1, 1, engines * queues * slice)
    : setUp(engines, queues, engines * queues * slice);
  const reqs = new Map<number, CopyRequest[]>();
  for (let e = 0; e < engines; e++)
    for (let q = 0; q < queues; q++)
      reqs.set(e * queues + q, batchFor((e * queues + q) * slice, BATCH));
  let inRing = 0;
  settle(); // the set-up's (and the last run's) background collection is not this run's
  const drain = (): void => {
    dev.runUntilIdle();
    for (const eng of engs) eng.poll();
    inRing = 0;
  };
  timed.time(() => {
    let left = perQueue;
    while (left > 0) {
      const lap = Math.min(RING, left);
      for (let e = 0; e < engines; e++) {
        for (let q = 0; q < queues; q++) {
          const r = reqs.get(e * queues + q)!;
          for (let k = 0; k < lap; k += BATCH) {
            const m = Math.min(BATCH, lap - k);
            if (oneQueue) {
              if (inRing + m > RING) drain();
              inRing += m;
              engs[0].copyBatch(0, m === BATCH ? r : r.slice(0, m));
            } else {
              engs[e].copyBatch(q, m === BATCH ? r : r.slice(0, m));
            }
          }
        }
      }
      if (!oneQueue) drain();
      left -= lap;
    }
    if (oneQueue && inRing > 0) drain();
  });
  let ok = dev.faults().length === 0;
  const want = oneQueue ? total : perQueue;
  for (const eng of engs) for (const s of eng.stats()) ok &&= s.completed === want;
  if (!ok) throw new Error(`scale bench: copies missing over ${engines} x ${queues} queues`);
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const runs = MIN_RUNS;
  // 1. the mock, linear in descriptors
  const sizes = opts.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  // warm-up at a middle size, so that the first (smallest) size is not measuring tier-up
  const warm = bufferCopyCase(100_000);
  for (let i = 0; i < 2; i++) {
    mockRun(100_000, new Sections());
    warm.setup();
    warm.run();
  }
  for (const n of sizes) {
    const t = measureAgainst({ sections: (_i, s) => mockRun(n, s) }, bufferCopyCase(n), {
      runs,
      warmup: n >= 1_000_000 ? 0 : 1,
    });
    const label = sizeLabel(n);
    out.push(
      timedResult({
        metric: `scale.mock${label}.throughput`,
        name: `scale.mock.${label} (64-byte descriptors, one queue, 65,536-descriptor ring)`,
        unit: 'descriptors/s',
        items: n,
        timing: t,
        baseline: { name: 'Buffer.copy of the same chunks', unit: 'copies/s' },
        notes: `expected linear: descriptors/s flat from 10k to 1M; only the engine's runs timed (${((t.value.cpuMs.median / n) * 1e6).toFixed(0)} ns a descriptor)`,
      }),
    );
  }

  // 2. 16 x 16 queues with 65,536-descriptor rings
  const E = 16;
  const Q = 16;
  const setupT = measureAgainst(
    { sections: (_i, s) => setUp(E, Q, 1 << 16, s) },
    { sections: (_i, s) => setUp(1, 1, 1 << 16, s) },
    { runs, warmup: 1 },
  );
  out.push(
    timedResult({
      metric: 'scale.setup16x16.time',
      name: 'scale.setup: 16 engines x 16 queues, 65,536-descriptor rings (bring-up + initQueue)',
      unit: 'ms per queue',
      items: E * Q,
      timing: setupT,
      baseline: { name: 'one engine with one queue', unit: 'ms', items: 1 },
      notes: `${setupT.value.cpuMs.median.toFixed(1)} ms CPU for all 256 queues (512 MiB of rings, zeroed before the timed bring-up)`,
    }),
  );
  const total = opts.quick ? 65_536 : 262_144;
  const shapes: [number, number, string][] = [
    [E, 1, 'engines: no cost grows with the number of engines (ratio near 1)'],
    [1, Q, 'queues of one engine: every packet is arbitrated over the ready queues'],
    [E, Q, 'both'],
  ];
  const cases: Record<string, Case> = {};
  for (const [e, q] of shapes) {
    cases[`${e}x${q}`] = { sections: (_i, s) => spreadRun(e, q, total, s) };
    cases[`one${e}x${q}`] = { sections: (_i, s) => spreadRun(e, q, total, s, true) };
  }
  // 15 runs of each: a run is ~50 ms, and this machine's speed moves by up to half from one
  // round to the next (every case alike); medians of 5 moved by a fifth between invocations
  const t = measureAll(cases, { runs: opts.quick ? runs : 15, warmup: 1 });
  for (const [e, q, what] of shapes) {
    const oneEngine16 = e === 1 && q === Q;
    out.push(
      timedResult({
        metric: oneEngine16 ? `mock.queues1x${Q}.throughput` : `scale.copies${e}x${q}.throughput`,
        name: `scale.copies.${e}x${q}: ${total.toLocaleString('en-US')} 64-byte copies over ${e} engine${e > 1 ? 's' : ''} x ${q} queue${q > 1 ? 's' : ''}, end to end through the driver`,
        unit: 'copies/s',
        items: total,
        timing: { value: t[`${e}x${q}`], baseline: t[`one${e}x${q}`] },
        baseline: {
          name: 'the same copies (same source and destination each) on one queue of one engine',
        },
        goal: oneEngine16 ? '>= 0.9x' : undefined,
        notes: `${what}; submit + run + poll`,
      }),
    );
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
