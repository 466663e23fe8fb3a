/**
 * BD emission rate: encode N TX+RX descriptor pairs into a pair of rings with the shared encoders
 * (csr/formats/bd.ts: every field validated, then four 32-bit stores each), against a raw fill loop
 * that writes the same bytes straight into a Uint32Array without any check, in the same run.
 * Goal: at least 0.5x for BdRings.putCopyPair, the form emission loops use (ring views checked
 * once, each pair's fields and slots checked per call); the positional putTx / putRx and the
 * object-taking encodeTx / encodeRx (which check the view on every call) are measured too.
 *
 * Standalone: npx tsx bench/bd.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import {
  BD_SIZE,
  LEN_CTRL,
  META_CTRL_PLAIN_COPY,
  encodeRx,
  encodeTx,
  BdRings,
  putRx,
  putTx,
  type RxFields,
  type TxFields,
} from '../csr/formats/bd.ts';
import type { BenchResult } from './types.ts';

/** Descriptors per ring (a power of two so the slot is i & (RING - 1)). */
const RING = 4096;
const SRC_BASE = 0x1_0000_0000;
const DST_BASE = 0x2_0000_0000;

type Target = Uint32Array | Uint8Array;

/** The length of pair i: 4 KiB .. 64 KiB, so the 64 KiB (length field 0) case is exercised. */
function lenOf(i: number): number {
  return ((i & 15) + 1) * 4096;
}

function emitEncoded(tx: Target, rx: Target, n: number): void {
  const t: TxFields = { len: 0, ring_id: 1, first: true, last: true, buf_ptr: 0 };
  const r: RxFields = { len: 0, ring_id: 1, first: true, last: true, buf1_ptr: 0 };
  for (let i = 0; i < n; i++) {
    const slot = i & (RING - 1);
    const ring = ((i / RING) | 0) + 1;
    const len = lenOf(i);
    const off = i * 65536;
    t.len = len;
    t.ring_id = ring & 3;
    t.buf_ptr = SRC_BASE + off;
    r.len = len;
    r.ring_id = ring & 3;
    r.buf1_ptr = DST_BASE + off;
    encodeTx(tx, slot * BD_SIZE, t);
    encodeRx(rx, slot * BD_SIZE, r);
  }
}

const FIRST_LAST = LEN_CTRL.FIRST | LEN_CTRL.LAST;

function emitPut(tx: Target, rx: Target, n: number): void {
  for (let i = 0; i < n; i++) {
    const o = (i & (RING - 1)) * BD_SIZE;
    const ring = (((i / RING) | 0) + 1) & 3;
    const len = lenOf(i);
    const off = i * 65536;
    putTx(tx, o, len, ring, FIRST_LAST, SRC_BASE + off);
    putRx(rx, o, len, ring, FIRST_LAST, DST_BASE + off);
  }
}

function emitPairs(rings: BdRings, n: number): void {
  for (let i = 0; i < n; i++) {
    const slot = i & (RING - 1);
    const ring = (((i / RING) | 0) + 1) & 3;
    const off = i * 65536;
    rings.putCopyPair(slot, ring, slot, ring, lenOf(i), FIRST_LAST, SRC_BASE + off, DST_BASE + off);
  }
}

function emitRaw(tx: Uint32Array, rx: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const j = (i & (RING - 1)) * 4;
    const ring = ((i / RING) | 0) + 1;
    const w0 = (lenOf(i) & 0xffff) | ((ring & 3) << 24) | FIRST_LAST;
    const off = i * 65536;
    const s = SRC_BASE + off;
    const d = DST_BASE + off;
    tx[j] = w0;
    tx[j + 1] = META_CTRL_PLAIN_COPY;
    tx[j + 2] = s >>> 0;
    tx[j + 3] = (s / 4294967296) >>> 0;
    rx[j] = w0;
    rx[j + 1] = 0;
    rx[j + 2] = d >>> 0;
    rx[j + 3] = (d / 4294967296) >>> 0;
  }
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

function same(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const n = opts.quick ? 200_000 : 2_000_000;
  const reps = opts.quick ? 3 : 7;
  const rings = () => [new Uint32Array(RING * 4), new Uint32Array(RING * 4)] as const;
  const [rawTx, rawRx] = rings();
  const [putTx32, putRx32] = rings();
  const [pairTx32, pairRx32] = rings();
  const pairs = new BdRings(pairTx32, pairRx32);
  const [encTx32, encRx32] = rings();
  const u8Tx = new Uint8Array(RING * BD_SIZE);
  const u8Rx = new Uint8Array(RING * BD_SIZE);

  // warm up every path, then check they all wrote the same bytes
  for (const m of [50_000, n]) {
    emitRaw(rawTx, rawRx, m);
    emitPairs(pairs, m);
    emitPut(putTx32, putRx32, m);
    emitEncoded(encTx32, encRx32, m);
    emitEncoded(u8Tx, u8Rx, m);
  }
  for (const [a, b] of [
    [pairTx32, pairRx32],
    [putTx32, putRx32],
    [encTx32, encRx32],
    [u8Tx, u8Rx],
  ] as const) {
    if (!same(rawTx, a) || !same(rawRx, b)) {
      throw new Error('bd bench: an encoder and the raw fill wrote different bytes');
    }
  }

  // interleaved repetitions; the best of each
  const best = { raw: Infinity, pair: Infinity, put: Infinity, enc: Infinity, u8: Infinity };
  for (let k = 0; k < reps; k++) {
    best.raw = Math.min(
      best.raw,
      time(() => emitRaw(rawTx, rawRx, n)),
    );
    best.pair = Math.min(
      best.pair,
      time(() => emitPairs(pairs, n)),
    );
    best.put = Math.min(
      best.put,
      time(() => emitPut(putTx32, putRx32, n)),
    );
    best.enc = Math.min(
      best.enc,
      time(() => emitEncoded(encTx32, encRx32, n)),
    );
    best.u8 = Math.min(
      best.u8,
      time(() => emitEncoded(u8Tx, u8Rx, n)),
    );
  }
  const descs = 2 * n;
  const baseline = {
    name: 'raw Uint32Array fill of the same bytes (no checks)',
    value: descs / best.raw,
    unit: 'descriptors/s',
  };
  const common = `${n} TX+RX pairs into ${RING}-descriptor rings, best of ${reps}; bytes checked equal`;
  return [
    {
      metric: 'bd.putCopyPair.throughput',
      name: 'BD emission: BdRings.putCopyPair (validated TX+RX pair)',
      value: descs / best.pair,
      unit: 'descriptors/s',
      baseline,
      ratio: best.raw / best.pair,
      goal: '>= 0.5x',
      notes: common,
    },
    {
      metric: 'bd.putTxRx.throughput',
      name: 'BD emission: putTx + putRx (validated) into Uint32Array rings',
      value: descs / best.put,
      unit: 'descriptors/s',
      baseline,
      ratio: best.raw / best.put,
      notes: common,
    },
    {
      metric: 'bd.encode.throughput',
      name: 'BD emission: encodeTx + encodeRx (field objects) into Uint32Array rings',
      value: descs / best.enc,
      unit: 'descriptors/s',
      baseline,
      ratio: best.raw / best.enc,
      notes: `${common}; the convenience form (reads a fields object per descriptor)`,
    },
    {
      metric: 'bd.encodeBytes.throughput',
      name: 'BD emission: encodeTx + encodeRx into Uint8Array rings',
      value: descs / best.u8,
      unit: 'descriptors/s',
      baseline,
      ratio: best.raw / best.u8,
      notes: 'byte-wise stores (views not 4-byte aligned); informational',
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
