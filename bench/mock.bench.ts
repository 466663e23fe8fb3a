/**
 * Mock device copy throughput: the UDMA engine model moving bytes host -> DRAM through real
 * TX/RX rings (descriptor fetch, ring-id checks, arbitration, head updates, counters) against
 * `Buffer.copy` of the same bytes between the same buffers, chunk for chunk, in the same run.
 *
 * - 64 KiB descriptors: bytes/s, goal >= 0.5x Buffer.copy.
 * - 64-byte descriptors: descriptors/s, goal >= 0.5x Buffer.copy of the same 64-byte chunks; and
 *   the same figure against a minimal engine with the same checks (the checks' own cost).
 *
 * Only the engine's run is timed; writing the descriptors and ringing the doorbells is not.
 *
 * Standalone: npx tsx bench/mock.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { BD_SIZE, LEN_CTRL, META_CTRL_PLAIN_COPY } from '../csr/formats/bd.ts';
import { encodeFields } from '../csr/runtime/fields.ts';
import { registerMapOf } from '../csr/schema/map.ts';
import { getInstance } from '../csr/schema/model.ts';
import { MockDevice } from '../mocks/device.ts';
import type { MockRegisterFile } from '../mocks/register-file.ts';
import type { MockUdmaUnit } from '../mocks/udma/unit.ts';
import { MIN_RUNS, measureAll, timedResult } from './measure.ts';
import type { BenchResult, Timing } from './types.ts';

const HOST = 0;
const DRAM = 2 ** 32;

/** Sets fields of a register by path (read, change, write). */
function set(file: MockRegisterFile, path: string, fields: Record<string, number>): void {
  const inst = getInstance(file.model, path);
  const base = inst.register.readable ? file.read32(inst.offset) : 0;
  file.write32(inst.offset, encodeFields(registerMapOf(inst.register), fields, base, path));
}

function write(file: MockRegisterFile, path: string, value: number): void {
  file.write32(getInstance(file.model, path).offset, value >>> 0);
}

/** One engine, queue 0, rings of `ring` descriptors, host and DRAM buffers of `bytes`. */
function setup(
  ring: number,
  bytes: number,
): { dev: MockDevice; u: MockUdmaUnit; txRing: number; rxRing: number } {
  const rings = 2 * ring * BD_SIZE;
  const dev = new MockDevice({
    engines: [0],
    autoRun: 'none',
    serviceTrace: false,
    memory: [
      { name: 'host', base: HOST, size: rings + bytes },
      { name: 'dram', base: DRAM, size: bytes },
    ],
  });
  const u = dev.udma(0);
  const txRing = HOST;
  const rxRing = HOST + ring * BD_SIZE;
  set(u.m2s, 'M2S.cfg_len', { max_pkt_size: 0xfffff, encode_64k: 1 });
  write(u.m2s, 'M2S_Q[0].tdrbp_low', txRing);
  write(u.m2s, 'M2S_Q[0].tdrl', ring);
  write(u.s2m, 'S2M_Q[0].rdrbp_low', rxRing);
  write(u.s2m, 'S2M_Q[0].rdrl', ring);
  set(u.m2s, 'M2S_Q[0].cfg', { en_pref: 1, en_scheduling: 1 });
  set(u.s2m, 'S2M_Q[0].cfg', { en_stream: 1 });
  set(u.m2s, 'M2S.change_state', { normal: 1 });
  set(u.s2m, 'S2M.change_state', { normal: 1 });
  return { dev, u, txRing, rxRing };
}

/** Writes one lap of single-descriptor packets (raw words: the layout constants of bd.ts). */
function fillLap(
  dev: MockDevice,
  txRing: number,
  rxRing: number,
  ring: number,
  len: number,
  rid: number,
  src: number,
  dst: number,
): void {
  const tx = new DataView(dev.memory.region('host').bytes.buffer, txRing - HOST, ring * BD_SIZE);
  const rx = new DataView(dev.memory.region('host').bytes.buffer, rxRing - HOST, ring * BD_SIZE);
  const w0 =
    ((len & LEN_CTRL.LEN_MASK) |
      (rid << LEN_CTRL.RING_ID_SHIFT) |
      LEN_CTRL.FIRST |
      LEN_CTRL.LAST) >>>
    0;
  for (let i = 0; i < ring; i++) {
    const o = i * BD_SIZE;
    const s = src + i * len;
    const d = dst + i * len;
    tx.setUint32(o, w0, true);
    tx.setUint32(o + 4, META_CTRL_PLAIN_COPY, true);
    tx.setUint32(o + 8, s >>> 0, true);
    tx.setUint32(o + 12, Math.floor(s / 2 ** 32), true);
    rx.setUint32(o, w0, true);
    rx.setUint32(o + 4, 0, true);
    rx.setUint32(o + 8, d >>> 0, true);
    rx.setUint32(o + 12, Math.floor(d / 2 ** 32), true);
  }
}

/**
 * The least an engine with the mock's checks must do for one lap of single-descriptor packets:
 * read each TX / RX descriptor pair from the rings, check the ring id, the first/last flags, the
 * lengths and that both buffers lie in their regions, copy the bytes, advance. Returns the bytes
 * moved; throws on a descriptor the checks refuse.
 */
function minimalEngine(
  words: Uint32Array,
  txWord: number,
  rxWord: number,
  ring: number,
  rid: number,
  host: Buffer,
  dram: Buffer,
): number {
  const FL = LEN_CTRL.FIRST | LEN_CTRL.LAST;
  let moved = 0;
  for (let i = 0; i < ring; i++) {
    const t = txWord + i * 4;
    const r = rxWord + i * 4;
    const t0 = words[t];
    const r0 = words[r];
    if (
      ((t0 >>> LEN_CTRL.RING_ID_SHIFT) & 3) !== rid ||
      ((r0 >>> LEN_CTRL.RING_ID_SHIFT) & 3) !== rid
    )
      throw new Error(`minimal engine: descriptor ${i}: ring id`);
    if ((t0 & FL) !== FL || (t0 & LEN_CTRL.LEN_MASK) !== (r0 & LEN_CTRL.LEN_MASK))
      throw new Error(`minimal engine: descriptor ${i}: flags or length`);
    const n = t0 & LEN_CTRL.LEN_MASK || 65536;
    const src = words[t + 2] + words[t + 3] * 2 ** 32 - HOST;
    const dst = words[r + 2] + words[r + 3] * 2 ** 32 - DRAM;
    if (src < 0 || src + n > host.length || dst < 0 || dst + n > dram.length)
      throw new Error(`minimal engine: descriptor ${i}: buffer outside its region`);
    host.copy(dram, dst, src, src + n);
    moved += n;
  }
  return moved;
}

/**
 * Runs of one lap of `ring` descriptors of `len` bytes through the mock (the descriptors written
 * and the doorbells rung before each run, not timed), of the same chunks with Buffer.copy, and of
 * the same lap through the minimal checked engine, warmed alike and interleaved.
 */
function measureLaps(
  ring: number,
  len: number,
  runs: number,
  warmup: number,
): Record<'mock' | 'copy' | 'minimal', Timing> {
  const bytes = ring * len;
  const { dev, u, txRing, rxRing } = setup(ring, bytes);
  const src = HOST + 2 * ring * BD_SIZE;
  const host = dev.memory.region('host').bytes;
  const dram = dev.memory.region('dram').bytes;
  for (let i = 0; i < bytes; i++) host[src - HOST + i] = (i * 131 + 7) & 0xff;
  const srcBuf = Buffer.from(host.buffer, host.byteOffset + (src - HOST), bytes);
  const dstBuf = Buffer.from(dram.buffer, dram.byteOffset, bytes);
  const hostBuf = Buffer.from(host.buffer, host.byteOffset, host.length);
  const words = new Uint32Array(host.buffer, host.byteOffset, host.length >>> 2);
  let rid = 1;
  let minimalRid = 1;
  const doorbellTx = getInstance(u.m2s.model, 'M2S_Q[0].tdrtp_inc').offset;
  const doorbellRx = getInstance(u.s2m.model, 'S2M_Q[0].rdrtp_inc').offset;
  const lap = {
    setup: () => {
      fillLap(dev, txRing, rxRing, ring, len, rid, src, DRAM);
      rid = (rid + 1) & 3;
      u.s2m.write32(doorbellRx, ring);
      u.m2s.write32(doorbellTx, ring);
    },
    run: () => {
      const served = u.runUntilIdle();
      if (served !== ring) throw new Error(`mock bench: served ${served} of ${ring} packets`);
    },
  };
  const copy = () => {
    for (let i = 0; i < ring; i++) srcBuf.copy(dstBuf, i * len, i * len, (i + 1) * len);
  };
  const minimal = {
    setup: () => {
      minimalRid = (minimalRid + 1) & 3; // its own laps in the same rings (the mock refills its own)
      fillLap(dev, txRing, rxRing, ring, len, minimalRid, src, DRAM);
    },
    run: () =>
      minimalEngine(
        words,
        (txRing - HOST) >>> 2,
        (rxRing - HOST) >>> 2,
        ring,
        minimalRid,
        hostBuf,
        dstBuf,
      ),
  };
  // Warm-up, then verify the mock and the minimal engine moved the right bytes.
  lap.setup();
  lap.run();
  copy();
  for (const c of [lap, minimal]) {
    dram.fill(0);
    c.setup();
    c.run();
    if (!srcBuf.equals(dstBuf)) throw new Error('mock bench: destination differs from source');
  }
  return measureAll({ mock: lap, copy, minimal }, { runs, warmup });
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const runs = opts.quick ? MIN_RUNS : 15;
  // 64 KiB descriptors: 256 per lap = 16 MiB. A lap is 256 packets, so one warm-up lap leaves the
  // mock's packet loop still being optimized in the measured laps (and process.cpuUsage counts the
  // compiler's threads): every case is warmed 20 laps.
  const big = measureLaps(256, 65536, runs, 20);
  // 64-byte descriptors: 65,536 per lap (a full ring of the size the scale bench uses).
  const small = measureLaps(65536, 64, runs, 1);
  return [
    timedResult({
      metric: 'mock.desc64k.throughput',
      name: 'mock copy, 64 KiB descriptors (host -> DRAM through rings)',
      unit: 'bytes/s',
      items: 256 * 65536,
      timing: { value: big.mock, baseline: big.copy },
      baseline: { name: 'Buffer.copy of the same 64 KiB chunks' },
      goal: '>= 0.5x',
      notes: '256 descriptors a run (one lap); destination checked equal to source',
    }),
    timedResult({
      metric: 'mock.desc64.throughput',
      name: 'mock copy, 64-byte descriptors',
      unit: 'descriptors/s',
      items: 65536,
      timing: { value: small.mock, baseline: small.copy },
      baseline: { name: 'Buffer.copy of the same 64-byte chunks', unit: 'copies/s' },
      goal: '>= 0.5x',
      notes: '65,536-descriptor rings, one packet per descriptor, a lap a run; destination checked',
    }),
    timedResult({
      metric: 'mock.desc64.minimalEngine.throughput',
      name: 'mock copy, 64-byte descriptors, against a minimal checked engine',
      unit: 'descriptors/s',
      items: 65536,
      timing: { value: small.mock, baseline: small.minimal },
      baseline: {
        name: 'a loop with the same checks (ring id, flags, lengths, buffers in their regions) and copies',
      },
      notes:
        'the yardstick of what the checks cost by themselves; the mock adds arbitration, completion and its registers',
    }),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
