/**
 * MMIO cost of programming QoS: applyQos on a 16-engine x 16-queue plan (every queue a class,
 * every engine's arbiters armed, HP bits included) against a naive driver that does one
 * read-modify-write per planned field, in the same run, on the mock. MMIO reads are the expensive
 * part on hardware (a PCIe round trip each), so reads and writes are counted at the device (the
 * mock register files' counters), not timed. Both ways must leave the same register image.
 *
 * Standalone: npx tsx bench/qos.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { DMA_QOS_CLASS_NAMES } from '../csr/formats/qos-class.ts';
import {
  applyQos,
  parseQosPlan,
  planQos,
  type PlannedWrite,
  type QosPlan,
  type QosPlanInput,
} from '../driver/qos/index.ts';
import { RegisterShadow, UdmaEngine, deviceShadow } from '../driver/udma/index.ts';
import { MockDevice } from '../mocks/index.ts';
import { MIN_RUNS, measureAll, timedResult } from './measure.ts';
import type { BenchResult } from './types.ts';

/**
 * Assumed MMIO costs for the estimate of the device's own time (PCIe: a read waits for its
 * completion, a write is posted). Assumptions, not measurements.
 */
const MMIO_READ_US = 1;
const MMIO_WRITE_US = 0.12;

function mmioMs(io: { reads: number; writes: number }): number {
  return (io.reads * MMIO_READ_US + io.writes * MMIO_WRITE_US) / 1000;
}

/** Unmeasured runs of each side before the measured ones (see the host-time measurement). */
const HOST_WARMUP = 300;

const ENGINES = 16;
const QUEUES = 16;

/** Every queue of 16 engines gets a class (P0..P14, Default), every engine armed. */
function bigPlan(): QosPlanInput {
  const classes = DMA_QOS_CLASS_NAMES.slice(1); // Default, P0..P14: 16 classes
  return {
    version: 1,
    engines: Array.from({ length: ENGINES }, (_, e) => ({
      engine: e,
      arbiters: {
        prefetch: 'qos' as const,
        dwrr: { enabled: true, incFactor: 7, weightInc: 2, packetMode: false },
        completion: 'qos' as const,
        qPromotion: true,
      },
      queues: Array.from({ length: QUEUES }, (_, q) => ({
        queue: q,
        class: classes[(q + e) % 16],
      })),
    })),
  };
}

function counts(dev: MockDevice): { reads: number; writes: number } {
  let reads = 0;
  let writes = 0;
  for (const e of dev.engines()) {
    const u = dev.udma(e);
    reads += u.m2s.counters.reads + u.s2m.counters.reads;
    writes += u.m2s.counters.writes + u.s2m.counters.writes;
  }
  return { reads, writes };
}

/** The naive way: each planned field on its own, one read and one write. */
function naiveApply(dev: MockDevice, writes: readonly PlannedWrite[]): void {
  for (const w of writes) {
    const u = dev.udma(w.engine);
    const io = w.file === 'udma_m2s' ? u.m2s : u.s2m;
    for (const f of w.fields) {
      const m = ((2 ** f.width - 1) * 2 ** f.lsb) >>> 0;
      const cur = io.read32(w.offset);
      io.write32(w.offset, ((cur & ~m) | ((f.value * 2 ** f.lsb) & m)) >>> 0);
    }
  }
}

/** The device after `apply` of `plan` on it. */
function applied(apply: typeof applyQos, plan: QosPlanInput, dev: MockDevice): MockDevice {
  apply(dev, plan, { allowInferred: true });
  return dev;
}

/** Device accesses an apply did. */
function ioOf(r: { io: { reads: number; writes: number } }): number {
  return r.io.reads + r.io.writes;
}

function image(dev: MockDevice): Buffer {
  return Buffer.concat(
    dev
      .engines()
      .flatMap((e) => [
        Buffer.from(dev.udma(e).m2s.words.buffer),
        Buffer.from(dev.udma(e).s2m.words.buffer),
      ]),
  );
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const plan = bigPlan();
  const program = planQos(plan, { allowInferred: true });
  const fields = program.writes.reduce((n, w) => n + w.fields.length, 0);
  const devOpts = { engines: ENGINES, serviceTrace: false } as const;

  // Naive: read-modify-write per field, on a fresh device.
  const naiveDev = new MockDevice(devOpts);
  const n0 = counts(naiveDev);
  naiveApply(naiveDev, program.writes);
  const n1 = counts(naiveDev);
  const naive = { reads: n1.reads - n0.reads, writes: n1.writes - n0.writes };

  // applyQos without a shadow, on a fresh device.
  const dev = new MockDevice(devOpts);
  const a0 = counts(dev);
  const r = applyQos(dev, plan, { allowInferred: true });
  const a1 = counts(dev);
  const ours = { reads: a1.reads - a0.reads, writes: a1.writes - a0.writes };
  if (!image(dev).equals(image(naiveDev)))
    throw new Error('qos bench: applyQos and the naive RMW left different images');
  if (ours.reads !== r.io.reads || ours.writes !== r.io.writes)
    throw new Error('qos bench: applyQos miscounted its accesses');

  // applyQos with the shadow the engine drivers filled at bring-up.
  const sdev = new MockDevice(devOpts);
  const shadow = new RegisterShadow();
  for (const e of sdev.engines()) new UdmaEngine(sdev, e, { shadow }).bringUp();
  const s0 = counts(sdev);
  applyQos(sdev, plan, { allowInferred: true, shadow });
  const s1 = counts(sdev);
  const shadowed = { reads: s1.reads - s0.reads, writes: s1.writes - s0.writes };
  // Re-applying the same plan with the shadow: nothing to do.
  const t0 = counts(sdev);
  applyQos(sdev, plan, { allowInferred: true, shadow });
  const t1 = counts(sdev);
  const again = { reads: t1.reads - t0.reads, writes: t1.writes - t0.writes };

  // Host-side cost of planning + applying (the mock's accesses are cheap; this is the driver's own
  // work), on devices with a one-page memory (applyQos and the naive loop touch registers only).
  // Each side has a device of its own, made once and put back before every run, untimed, in the
  // state a fresh device starts in: every register the plan writes set to its reset word through
  // the device's own write path (its hooks see it), and the device's register shadow forgotten.
  // So every run does the same reads and writes as on a fresh device (checked below), and the
  // figure is the driver's work, not the refilling of the caches after the construction of a
  // 16-engine device (about 4 MiB of register words), which made the same code's ratio move
  // between 1.07x and 1.67x from one invocation to the next. A device handle's first apply also
  // makes its 32 window shadows: qos.apply16x16.freshDevice.time measures that way, a fresh device
  // each run, for the record. Every side warmed alike and interleaved, long enough for the
  // optimizing compiler to finish with all of them: process.cpuUsage counts its background
  // threads, and applyQos's parse, plan and apply code needs ~100 calls before its CPU time
  // settles (see docs/performance.md), against a few for the one-function naive loop. A run is
  // under a millisecond, so 101 of each side make the medians steady at little cost.
  const reps = opts.quick ? MIN_RUNS : 101;
  const warmup = opts.quick ? 2 : HOST_WARMUP;
  const smallDev = { ...devOpts, memory: [{ name: 'host', kind: 'host', base: 0, size: 4096 }] };
  const resetState = (d: MockDevice): MockDevice => {
    for (const w of program.writes) {
      const u = d.udma(w.engine);
      (w.file === 'udma_m2s' ? u.m2s : u.s2m).write32(w.offset, w.reset);
    }
    deviceShadow(d).forget();
    return d;
  };
  // Put back, a device holds what a fresh one holds.
  const check = resetState(applied(applyQos, plan, new MockDevice(smallDev)));
  if (!image(check).equals(image(new MockDevice(smallDev))))
    throw new Error('qos bench: a device put back differs from a fresh one');
  // applyQos of the plan parseQosPlan returned once, outside the runs (a script applying one plan
  // many times parses it once; the parsed plan is frozen).
  const parsed = parseQosPlan(plan);
  const ra = new MockDevice(smallDev);
  const rp = new MockDevice(smallDev);
  const rn = new MockDevice(smallDev);
  let da: MockDevice | undefined;
  let dn: MockDevice | undefined;
  // applyQos of `p` on the put-back device `dev` against the naive loop on its own put-back device.
  const againstNaive = (dev: MockDevice, p: QosPlanInput | QosPlan) =>
    measureAll(
      {
        value: {
          setup: () => void resetState(dev),
          run: () => applyQos(dev, p, { allowInferred: true }),
        },
        baseline: { setup: () => void resetState(rn), run: () => naiveApply(rn, program.writes) },
      },
      { runs: reps, warmup },
    );
  const t = againstNaive(ra, plan);
  // The parsed plan in rounds of its own (after the plan document's: a parsed plan's frozen
  // objects are other shapes to the planner's property loads, which would otherwise see both).
  const pp = againstNaive(rp, parsed);
  // The fresh-device way on its own: its constructions would otherwise chill the caches of the
  // cases above too.
  const f = measureAll(
    {
      value: {
        setup: () => void (da = new MockDevice(smallDev)),
        run: () => applyQos(da!, plan, { allowInferred: true }),
      },
      baseline: {
        setup: () => void (dn = new MockDevice(smallDev)),
        run: () => naiveApply(dn!, program.writes),
      },
    },
    { runs: reps, warmup },
  );
  // The runs on a device put back did the accesses of a fresh device's.
  if (ioOf(applyQos(resetState(ra), plan, { allowInferred: true })) !== ours.reads + ours.writes)
    throw new Error(
      'qos bench: applyQos on a device put back did not do the accesses of a fresh one',
    );
  for (const d of [ra, rp, da!, dn!])
    if (!image(d).equals(image(rn)))
      throw new Error('qos bench: applyQos and the naive RMW left different images');
  const host = { value: t.value, baseline: t.baseline };

  const shape = `${ENGINES} engines x ${QUEUES} queues, ${program.writes.length} registers, ${fields} fields; images checked equal`;
  const accesses = (
    metric: string,
    name: string,
    value: { reads: number; writes?: number },
    notes: string,
  ): BenchResult => {
    const unit = value.writes === undefined ? 'MMIO reads' : 'MMIO accesses';
    const base = value.writes === undefined ? naive.reads : naive.reads + naive.writes;
    const v = value.reads + (value.writes ?? 0);
    return {
      metric,
      name,
      value: v,
      unit,
      baseline: { name: 'naive read-modify-write per field', value: base, unit },
      ratio: v / base,
      notes,
    };
  };
  return [
    {
      ...accesses(
        'qos.apply16x16.accesses',
        'applyQos MMIO accesses (no shadow)',
        ours,
        `${ours.reads} reads + ${ours.writes} writes vs ${naive.reads} + ${naive.writes}; ${shape}`,
      ),
      goal: '<= 0.5x the naive accesses',
    },
    accesses(
      'qos.apply16x16.reads',
      'applyQos MMIO reads (no shadow)',
      { reads: ours.reads },
      'reads only for registers the plan sets partly (queue cfg, cfg_1c, desc_pref_cfg_2)',
    ),
    accesses(
      'qos.apply16x16.shadowAccesses',
      'applyQos MMIO accesses after bring-up (shared shadow)',
      shadowed,
      `${shadowed.reads} reads + ${shadowed.writes} writes; re-applying the same plan: ${again.reads} reads + ${again.writes} writes`,
    ),
    timedResult({
      metric: 'qos.apply16x16.time',
      name: 'applyQos host time (plan + apply, mock)',
      unit: 'ms',
      items: 1,
      timing: host,
      baseline: { name: 'naive read-modify-write per field (pre-planned)' },
      goal: '<= 1.5x',
      notes: `each side on a device of its own, put back before every run (untimed) in a fresh device's state: the plan's registers at their reset words through the device's write path, its shadow forgotten; the same ${ours.reads} reads + ${ours.writes} writes as on a fresh device; ${warmup} warm-up runs of each side first; includes parsing and planning the plan, which the baseline does not`,
    }),
    timedResult({
      metric: 'qos.apply16x16.parsedPlan.time',
      name: 'applyQos host time of a plan parsed once (plan + apply, mock)',
      unit: 'ms',
      items: 1,
      timing: { value: pp.value, baseline: pp.baseline },
      baseline: { name: 'naive read-modify-write per field (pre-planned)' },
      notes: `the plan parseQosPlan returned, parsed once before the runs (planning and applying timed); measured after qos.apply16x16.time, in rounds of its own`,
    }),
    timedResult({
      metric: 'qos.apply16x16.freshDevice.time',
      name: 'applyQos host time on a fresh device each run (plan + apply, mock)',
      unit: 'ms',
      items: 1,
      timing: { value: f.value, baseline: f.baseline },
      baseline: {
        name: 'naive read-modify-write per field (pre-planned), a fresh device each run',
      },
      notes: `each run of either side on a device made in its untimed setup (the first apply of a device handle also makes its window shadows); measured after qos.apply16x16.time, in rounds of its own`,
    }),
    {
      metric: 'qos.apply16x16.vsMmio.time',
      name: "applyQos host time against the device's own MMIO time for the same accesses (estimate)",
      value: host.value.cpuMs.median,
      unit: 'ms',
      baseline: {
        name: `${ours.reads} reads x ${MMIO_READ_US} us + ${ours.writes} writes x ${MMIO_WRITE_US} us`,
        value: mmioMs(ours),
        unit: 'estimated MMIO ms',
      },
      ratio: host.value.cpuMs.median / mmioMs(ours),
      timing: { value: host.value },
      notes: `assumed PCIe costs: a read is a non-posted round trip (~${MMIO_READ_US} us), a write is posted (~${MMIO_WRITE_US} us); with the shared shadow the device time would be ${mmioMs(shadowed).toFixed(3)} ms. Not measured on hardware; a ratio below 1 means the host work hides behind the device's`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    process.stdout.write(
      `${r.name}: ${r.value.toFixed(r.unit === 'ms' ? 2 : 0)} ${r.unit}` +
        (r.baseline
          ? ` (baseline ${r.baseline.name}: ${r.baseline.value.toFixed(r.unit === 'ms' ? 2 : 0)}; ratio ${r.ratio?.toFixed(3)})`
          : '') +
        (r.notes ? `\n    ${r.notes}` : '') +
        '\n',
    );
  }
}
