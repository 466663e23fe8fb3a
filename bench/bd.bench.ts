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
  encodeRx,
  encodeTx,
  BdRings,
  putRx,
  putTx,
  type RxFields,
  type TxFields,
} from '../csr/formats/bd.ts';
import { MIN_RUNS, measureAll, timedResult } from './measure.ts';
import { rawPair } from './raw-bd.ts';
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
    const ring = ((i / RING) | 0) + 1;
    const w0 = (lenOf(i) & 0xffff) | ((ring & 3) << 24) | FIRST_LAST;
    const off = i * 65536;
    rawPair(tx, rx, (i & (RING - 1)) * 4, w0, w0, SRC_BASE + off, DST_BASE + off);
  }
}

function same(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const n = opts.quick ? 200_000 : 2_000_000;
  const runs = opts.quick ? MIN_RUNS : 7;
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

  // warmed alike (above), interleaved rounds
  const t = measureAll(
    {
      raw: () => emitRaw(rawTx, rawRx, n),
      pair: () => emitPairs(pairs, n),
      put: () => emitPut(putTx32, putRx32, n),
      enc: () => emitEncoded(encTx32, encRx32, n),
      u8: () => emitEncoded(u8Tx, u8Rx, n),
    },
    { runs, warmup: 0 },
  );
  const common = `${n} TX+RX pairs into ${RING}-descriptor rings; bytes checked equal`;
  const emission = (metric: string, key: 'pair' | 'put' | 'enc' | 'u8', name: string) =>
    timedResult({
      metric,
      name: `BD emission: ${name}`,
      unit: 'descriptors/s',
      items: 2 * n,
      timing: { value: t[key], baseline: t.raw },
      baseline: { name: 'raw Uint32Array fill of the same bytes (no checks)' },
      notes: common,
    });
  return [
    {
      ...emission(
        'bd.putCopyPair.throughput',
        'pair',
        'BdRings.putCopyPair (validated TX+RX pair)',
      ),
      goal: '>= 0.5x',
    },
    emission('bd.putTxRx.throughput', 'put', 'putTx + putRx (validated) into Uint32Array rings'),
    emission(
      'bd.encode.throughput',
      'enc',
      'encodeTx + encodeRx (field objects) into Uint32Array rings',
    ),
    emission(
      'bd.encodeBytes.throughput',
      'u8',
      'encodeTx + encodeRx into Uint8Array rings (byte-wise stores, views not 4-byte aligned)',
    ),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
