/**
 * Copy submission rate: descriptors per second the UDMA driver puts into a queue's rings
 * (UdmaEngine.copy / copyBatch: argument and memory checks, ring-room accounting, encoding through
 * csr/formats/bd.ts, completion bookkeeping, doorbells) against a raw fill loop that writes the same
 * descriptor bytes straight into the same ring memory and rings the same doorbells, in the same run.
 * The mock engine does not run during the measurement (autoRun 'none'), so only submission is
 * timed; between rounds the queue is reset outside the timed region. Both ways must write the same
 * ring bytes.
 *
 * Standalone: npx tsx bench/copy.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { BD_SIZE, LEN_CTRL, putRx, putTx } from '../csr/formats/bd.ts';
import { queueRegs } from '../driver/udma/queue-regs.ts';
import { UdmaEngine, type CopyRequest } from '../driver/udma/index.ts';
import { MockDevice } from '../mocks/index.ts';
import { measureAll, timedResult } from './measure.ts';
import { rawPair } from './raw-bd.ts';
import type { BenchResult } from './types.ts';

/** Descriptors per ring (one round fills it). */
const RING = 4096;
const TX_BASE = 0x0010_0000;
const RX_BASE = TX_BASE + RING * BD_SIZE;
/** Copies of exactly 64 KiB: one TX + one RX descriptor each. */
const CHUNK = 65536;
const SRC = 0x0100_0000;
const DST = 0x0200_0000;
/** Copies per batch in the batched variant. */
const BATCH = 64;

interface Rig {
  dev: MockDevice;
  eng: UdmaEngine;
  /** The queue's TX and RX rings as words. */
  tx: Uint32Array;
  rx: Uint32Array;
  /** Rings queue 0's TX and RX doorbells (tdrtp_inc / rdrtp_inc) with `n` new descriptors. */
  doorbells(n: number): void;
}

function makeRig(checkBuffers: boolean): Rig {
  // 'none': the engine never runs, so the rings only fill. Big host memory for the buffers.
  const dev = new MockDevice({
    engines: [0],
    autoRun: 'none',
    serviceTrace: false,
    memory: [{ name: 'host', base: 0, size: 0x0300_0000 + RING * CHUNK }],
  });
  const eng = new UdmaEngine(dev, 0, { checkBuffers });
  eng.bringUp();
  eng.initQueue(0, { tx: { base: TX_BASE, size: RING }, rx: { base: RX_BASE, size: RING } });
  const bytes = dev.memory.region('host').bytes;
  const unit = dev.udma(0);
  const Q = queueRegs(0);
  const txDb = Q.m2s.doorbell.reg.offset;
  const rxDb = Q.s2m.doorbell.reg.offset;
  return {
    dev,
    eng,
    tx: new Uint32Array(bytes.buffer, bytes.byteOffset + TX_BASE, RING * 4),
    rx: new Uint32Array(bytes.buffer, bytes.byteOffset + RX_BASE, RING * 4),
    doorbells(n: number): void {
      unit.s2m.write32(rxDb, n);
      unit.m2s.write32(txDb, n);
    },
  };
}

/** One round through the driver: RING single-descriptor copies, one copy() each. */
function driverRound(r: Rig): void {
  const eng = r.eng;
  for (let i = 0; i < RING; i++) eng.copy(SRC + i * CHUNK, DST + i * CHUNK, CHUNK, { queue: 0 });
}

function driverBatchRound(r: Rig, batches: CopyRequest[][]): void {
  const q = r.eng.queue(0);
  for (let b = 0; b < batches.length; b++) q.copyBatch(batches[b]);
}

/** The raw loop: the same descriptor words into the same rings, the same doorbells. */
function rawRound(r: Rig, perDoorbell: number): void {
  const { tx, rx } = r;
  const w0 = (CHUNK & 0xffff) | (1 << 24);
  for (let i = 0; i < RING; i++) {
    rawPair(
      tx,
      rx,
      i * 4,
      w0 | LEN_CTRL.FIRST | LEN_CTRL.LAST,
      w0,
      SRC + i * CHUNK,
      DST + i * CHUNK,
    );
    if ((i + 1) % perDoorbell === 0) r.doorbells(perDoorbell);
  }
}

/** The validated encoders alone (the floor of any checked path): same bytes, no driver. */
function encodersRound(r: Rig, perDoorbell: number): void {
  const { tx, rx } = r;
  const flags = LEN_CTRL.FIRST | LEN_CTRL.LAST;
  for (let i = 0; i < RING; i++) {
    putTx(tx, i * BD_SIZE, CHUNK, 1, flags, SRC + i * CHUNK);
    putRx(rx, i * BD_SIZE, CHUNK, 1, 0, DST + i * CHUNK);
    if ((i + 1) % perDoorbell === 0) r.doorbells(perDoorbell);
  }
}

/** Back to an empty queue (outside the timed region): rst_q and the driver's producer state. */
function reset(r: Rig): void {
  r.eng.reset(0);
}

function snapshot(r: Rig): Buffer {
  return Buffer.concat([Buffer.from(r.tx.slice().buffer), Buffer.from(r.rx.slice().buffer)]);
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const rounds = opts.quick ? 10 : 40;
  const checked = makeRig(true);
  const unchecked = makeRig(false);
  const raw = makeRig(false);
  const batches: CopyRequest[][] = Array.from({ length: RING / BATCH }, (_, b) =>
    Array.from({ length: BATCH }, (_, k) => {
      const i = b * BATCH + k;
      return { src: SRC + i * CHUNK, dst: DST + i * CHUNK, bytes: CHUNK };
    }),
  );

  // Warm up and check that the driver and the raw loop write the same ring bytes.
  driverRound(checked);
  rawRound(raw, 1);
  if (!snapshot(checked).equals(snapshot(raw)))
    throw new Error('copy bench: driver and raw loop wrote different rings');
  reset(checked);
  driverBatchRound(checked, batches);
  if (!snapshot(checked).equals(snapshot(raw)))
    throw new Error('copy bench: copyBatch and raw loop wrote different rings');
  for (const r of [checked, unchecked, raw]) reset(r);
  driverBatchRound(checked, batches);
  encodersRound(raw, BATCH);
  if (!snapshot(checked).equals(snapshot(raw)))
    throw new Error('copy bench: encoders and raw loop wrote different rings');
  for (const r of [checked, raw]) reset(r);

  // each run on an empty queue (the reset is not timed); warmed alike, interleaved rounds
  const t = measureAll(
    {
      raw1: { setup: () => reset(raw), run: () => rawRound(raw, 1) },
      copy: { setup: () => reset(checked), run: () => driverRound(checked) },
      unchecked: { setup: () => reset(unchecked), run: () => driverRound(unchecked) },
      rawB: { setup: () => reset(raw), run: () => rawRound(raw, BATCH) },
      batch: { setup: () => reset(checked), run: () => driverBatchRound(checked, batches) },
      enc: { setup: () => reset(raw), run: () => encodersRound(raw, BATCH) },
    },
    { runs: rounds, warmup: 2 },
  );
  const common = `${RING} copies of 64 KiB (one TX + one RX descriptor each) a run; ring bytes checked equal`;
  const raw1 = { name: 'raw fill of the same bytes + 2 doorbells per copy' };
  const rawB = { name: `raw fill of the same bytes + 2 doorbells per ${BATCH} copies` };
  const submission = (
    metric: string,
    key: 'copy' | 'unchecked' | 'batch' | 'enc',
    base: 'raw1' | 'rawB',
    name: string,
    notes: string,
    goal?: string,
  ) =>
    timedResult({
      metric,
      name,
      unit: 'descriptors/s',
      items: 2 * RING, // TX + RX per copy
      timing: { value: t[key], baseline: t[base] },
      baseline: base === 'raw1' ? raw1 : rawB,
      goal,
      notes: `${common}; ${notes}`,
    });
  return [
    submission(
      'udma.copy.throughput',
      'copy',
      'raw1',
      'copy submission: UdmaEngine.copy (checked buffers)',
      'every copy validates its arguments and checks both buffers are mapped',
      '>= 0.5x',
    ),
    submission(
      'udma.copyUnchecked.throughput',
      'unchecked',
      'raw1',
      'copy submission: UdmaEngine.copy (checkBuffers: false)',
      'no buffer checks',
    ),
    submission(
      `udma.copyBatch${BATCH}.throughput`,
      'batch',
      'rawB',
      `copy submission: copyBatch of ${BATCH}`,
      'checked buffers. The raw loop is a few stores per descriptor; compare the encoders-alone line for the floor of any validated path',
      '>= 0.1x',
    ),
    submission(
      'udma.encodersFloor.throughput',
      'enc',
      'rawB',
      'copy submission floor: putTx + putRx alone (validated encoders, no driver)',
      'context for the copyBatch line: what validation in csr/formats/bd.ts costs by itself',
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    process.stdout.write(
      `${r.name}: ${(r.value / 1e6).toFixed(2)} M${r.unit}` +
        (r.baseline
          ? ` (baseline ${r.baseline.name}: ${(r.baseline.value / 1e6).toFixed(2)} M; ratio ${r.ratio?.toFixed(3)})`
          : '') +
        (r.notes ? `\n    ${r.notes}` : '') +
        '\n',
    );
  }
}
