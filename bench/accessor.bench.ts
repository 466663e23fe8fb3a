/**
 * Register accessor cost: a field modify through a generated accessor
 * (`m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos })`) against a raw Uint32Array read-modify-write of the
 * same word over plain memory, measured in the same run. Goal: at most 2x the raw time.
 *
 * Also measured: the accessor over an opaque RegisterIO (every access a read32/write32 call)
 * against the same read-modify-write written by hand with read32/write32 on that IO; the full path
 * navigated each time (`m2s.M2S_Q[i & 15].dwrr_cfg_2.modify(...)`, 16 registers); read() of a
 * two-field register (a fresh plain object, both fields used) against a raw load and the same two
 * extractions (goal: at most 2x); and readField of one field against a raw load and one extraction
 * (goal: at most 2x). Every case is warmed alike and measured in interleaved rounds (measure.ts).
 *
 * Standalone: npx tsx bench/accessor.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import type { RegisterIO } from '../csr/io.ts';
import { ArrayRegisterIO, bindUdmaM2S, regFile, type UdmaM2SRegs } from '../csr/index.ts';
import { MIN_RUNS, measureAll, timedResult } from './measure.ts';
import type { BenchResult } from './types.ts';

const Q3_DWRR_CFG_2 = 0x4084; // checked against the accessor below, not used by it
const PREF_CFG_2 = 0x304;

/** A RegisterIO that hides its backing array: the accessor must call read32/write32. */
class OpaqueIO implements RegisterIO {
  readonly size: number;
  constructor(private readonly inner: ArrayRegisterIO) {
    this.size = inner.size;
  }
  read32(offset: number): number {
    return this.inner.read32(offset);
  }
  write32(offset: number, value: number): void {
    this.inner.write32(offset, value);
  }
}

function rawModify(words: Uint32Array, n: number): void {
  const idx = Q3_DWRR_CFG_2 >>> 2;
  for (let i = 0; i < n; i++) words[idx] = (words[idx] & ~0xff) | (i & 0xff);
}

function ioModify(io: RegisterIO, n: number): void {
  for (let i = 0; i < n; i++) {
    io.write32(Q3_DWRR_CFG_2, ((io.read32(Q3_DWRR_CFG_2) & ~0xff) | (i & 0xff)) >>> 0);
  }
}

function accessorModify(m2s: UdmaM2SRegs, n: number): void {
  const r = m2s.M2S_Q[3].dwrr_cfg_2;
  for (let i = 0; i < n; i++) r.modify({ q_qos: i & 0xff });
}

function accessorModifyOpaque(m2s: UdmaM2SRegs, n: number): void {
  const r = m2s.M2S_Q[3].dwrr_cfg_2;
  for (let i = 0; i < n; i++) r.modify({ q_qos: i & 0xff });
}

function rawModify16(words: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const idx = (0x1084 + (i & 15) * 0x1000) >>> 2;
    words[idx] = (words[idx] & ~0xff) | (i & 0xff);
  }
}

function pathModify16(m2s: UdmaM2SRegs, n: number): void {
  for (let i = 0; i < n; i++) m2s.M2S_Q[i & 15].dwrr_cfg_2.modify({ q_qos: i & 0xff });
}

function rawRead(words: Uint32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const w = words[PREF_CFG_2 >>> 2];
    s += ((w >>> 16) & 1) + (w & 0xfff);
  }
  return s;
}

function accessorRead(m2s: UdmaM2SRegs, n: number): number {
  const r = m2s.M2S_rd.desc_pref_cfg_2;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = r.read();
    s += v.pref_force_rr + v.max_desc_per_pkt;
  }
  return s;
}

function rawReadOne(words: Uint32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += words[PREF_CFG_2 >>> 2] & 0xfff;
  return s;
}

function accessorReadField(m2s: UdmaM2SRegs, n: number): number {
  const r = m2s.M2S_rd.desc_pref_cfg_2;
  let s = 0;
  for (let i = 0; i < n; i++) s += r.readField('max_desc_per_pkt');
  return s;
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const n = opts.quick ? 1_000_000 : 10_000_000;
  const runs = opts.quick ? MIN_RUNS : 7;
  const model = regFile('udma_m2s');
  const rawMem = ArrayRegisterIO.withResetValues(model);
  const accMem = ArrayRegisterIO.withResetValues(model);
  const opaqueMem = ArrayRegisterIO.withResetValues(model);
  const opaque = new OpaqueIO(opaqueMem);
  const m2s = bindUdmaM2S(accMem);
  const m2sOpaque = bindUdmaM2S(opaque);
  if (
    m2s.M2S_Q[3].dwrr_cfg_2.offset !== Q3_DWRR_CFG_2 ||
    m2s.M2S_rd.desc_pref_cfg_2.offset !== PREF_CFG_2
  ) {
    throw new Error('accessor bench: the baseline offsets disagree with the schema');
  }
  rawMem.words[Q3_DWRR_CFG_2 >>> 2] = accMem.words[Q3_DWRR_CFG_2 >>> 2] = 0xabcdef00;
  opaqueMem.words[Q3_DWRR_CFG_2 >>> 2] = 0xabcdef00;
  rawMem.words[PREF_CFG_2 >>> 2] = accMem.words[PREF_CFG_2 >>> 2] = 0x10041;

  const cases = {
    raw: () => rawModify(rawMem.words, n),
    acc: () => accessorModify(m2s, n),
    io: () => ioModify(opaque, n),
    accOpaque: () => accessorModifyOpaque(m2sOpaque, n),
    raw16: () => rawModify16(rawMem.words, n),
    path16: () => pathModify16(m2s, n),
    rawRead: () => rawRead(rawMem.words, n),
    read: () => accessorRead(m2s, n),
    rawRead1: () => rawReadOne(rawMem.words, n),
    readField: () => accessorReadField(m2s, n),
  };
  // the same answers first (this also runs every case once before the warm-up)
  if (cases.read() !== cases.rawRead() || cases.readField() !== cases.rawRead1()) {
    throw new Error('accessor bench: read() / readField and the raw loads disagree');
  }
  for (const k of ['raw', 'acc', 'io', 'accOpaque', 'raw16', 'path16'] as const) cases[k]();
  for (let q = 0; q < 16; q++) {
    const off = 0x1084 + q * 0x1000;
    if (rawMem.read32(off) !== accMem.read32(off)) {
      throw new Error(`accessor bench: accessor and raw loop disagree at M2S_Q[${q}].dwrr_cfg_2`);
    }
  }
  if (opaqueMem.read32(Q3_DWRR_CFG_2) !== (0xabcdef00 | ((n - 1) & 0xff)) >>> 0) {
    throw new Error('accessor bench: opaque-IO accessor and raw loop disagree');
  }

  // warmed alike, interleaved rounds
  const t = measureAll(cases, { runs, warmup: 1 });
  const common = `${n} operations a run, words and values checked equal`;
  const pair = (a: keyof typeof cases, b: keyof typeof cases) => ({ value: t[a], baseline: t[b] });
  return [
    timedResult({
      metric: 'csr.modify.time',
      name: 'modify through a generated accessor (M2S_Q[3].dwrr_cfg_2.modify({ q_qos })) over ArrayRegisterIO',
      unit: 'ns/op',
      items: n,
      timing: pair('acc', 'raw'),
      baseline: { name: 'raw Uint32Array read-modify-write of the same word' },
      goal: '<= 2x the raw time',
      notes: common,
    }),
    timedResult({
      metric: 'csr.modifyOpaque.time',
      name: 'modify through a generated accessor over an opaque RegisterIO (read32/write32 calls)',
      unit: 'ns/op',
      items: n,
      timing: pair('accOpaque', 'io'),
      baseline: { name: 'the same read-modify-write by hand with read32/write32' },
      notes: `${common}; the accessor's cost over the RegisterIO calls themselves`,
    }),
    timedResult({
      metric: 'csr.modifyPath16.time',
      name: 'modify with the path navigated each time (M2S_Q[i & 15].dwrr_cfg_2.modify), 16 registers',
      unit: 'ns/op',
      items: n,
      timing: pair('path16', 'raw16'),
      baseline: { name: 'raw read-modify-write of the same 16 words' },
      notes: `${common}; hold the register accessor in hot loops`,
    }),
    timedResult({
      metric: 'csr.read.time',
      name: 'read() of M2S_rd.desc_pref_cfg_2 (a plain object of 2 fields, both used)',
      unit: 'ns/op',
      items: n,
      timing: pair('read', 'rawRead'),
      baseline: { name: 'raw load and the same two field extractions' },
      goal: '<= 2x',
      notes: common,
    }),
    timedResult({
      metric: 'csr.readField.time',
      name: "readField('max_desc_per_pkt') of M2S_rd.desc_pref_cfg_2",
      unit: 'ns/op',
      items: n,
      timing: pair('readField', 'rawRead1'),
      baseline: { name: 'raw load and the same field extraction' },
      goal: '<= 2x',
      notes: common,
    }),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
