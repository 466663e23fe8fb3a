import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import {
  ArrayRegisterIO,
  PLAIN_WORDS,
  ShadowIO,
  TracingIO,
  bindUdmaM2S,
  bindUdmaS2M,
  formatTrace,
  plainWords,
  regFile,
  resetImage,
  udma_m2s,
  type TraceEntry,
} from '../../../csr/index.ts';

const m2sModel = regFile('udma_m2s');

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as NxdmaError).code;
  }
  return undefined;
}

describe('ArrayRegisterIO', () => {
  it('enforces aligned 32-bit accesses inside its window', () => {
    const io = new ArrayRegisterIO(0x100);
    expect(code(() => io.read32(2))).toBe('MISALIGNED');
    expect(code(() => io.write32(0x101, 0))).toBe('MISALIGNED');
    expect(code(() => io.read32(0x100))).toBe('OUT_OF_WINDOW');
    expect(code(() => io.read32(-4))).toBe('OUT_OF_WINDOW');
    expect(code(() => io.write32(0, 2 ** 32))).toBe('OUT_OF_RANGE');
    expect(code(() => io.write32(0, 1.5))).toBe('OUT_OF_RANGE');
    io.write32(0xfc, -1);
    expect(io.read32(0xfc)).toBe(0xffffffff);
  });

  it('withResetValues holds every register reset word', () => {
    const io = ArrayRegisterIO.withResetValues(m2sModel);
    expect(io.read32(0x1020)).toBe(0x03000000);
    expect(io.read32(0x304)).toBe(0x10040);
    expect(io.read32(0x400)).toBe(0x01010040);
    expect(resetImage(m2sModel).length).toBe(0x20000 / 4);
  });

  it('exposes its words to accessors only while read32/write32 are its own', () => {
    const io = new ArrayRegisterIO(0x20000);
    expect(plainWords(io)).toBe(io.words);
    class Counting extends ArrayRegisterIO {
      reads = 0;
      override read32(offset: number): number {
        this.reads++;
        return super.read32(offset);
      }
    }
    const c = new Counting(0x20000);
    expect(c[PLAIN_WORDS]).toBeUndefined();
    bindUdmaM2S(c).M2S_Q[0].dwrr_cfg_3.modify({ weight: 4 });
    expect(c.reads).toBe(1);
    expect(c.read32(0x1088)).toBe(4);
  });
});

describe('TracingIO', () => {
  it('records every access in order, across files sharing a log, and names registers', () => {
    const log: TraceEntry[] = [];
    const m = TracingIO.dryRun(m2sModel, log);
    const s = TracingIO.dryRun(regFile('udma_s2m'), log);
    bindUdmaS2M(s).S2M_Q[1].rdrtp_inc.write({ val: 4 });
    bindUdmaM2S(m).M2S_Q[1].tdrtp_inc.write({ val: 4 });
    bindUdmaM2S(m).M2S_rd.desc_pref_cfg_2.modify({ pref_force_rr: 0 });
    expect(log.map((e) => [e.seq, e.file, e.op, e.offset, e.value])).toEqual([
      [0, 'udma_s2m', 'write', 0x2038, 4],
      [1, 'udma_m2s', 'write', 0x2038, 4],
      [2, 'udma_m2s', 'read', 0x304, 0x10040],
      [3, 'udma_m2s', 'write', 0x304, 0x40],
    ]);
    expect(m.writes().length).toBe(2);
    expect(formatTrace(log, [m2sModel, regFile('udma_s2m')])).toEqual([
      'write udma_s2m S2M_Q[1].rdrtp_inc @0x2038 = 0x00000004',
      'write udma_m2s M2S_Q[1].tdrtp_inc @0x2038 = 0x00000004',
      'read  udma_m2s M2S_rd.desc_pref_cfg_2 @0x304 -> 0x00010040',
      'write udma_m2s M2S_rd.desc_pref_cfg_2 @0x304 = 0x00000040',
    ]);
  });

  it('does not record a rejected access', () => {
    const t = new TracingIO(new ArrayRegisterIO(0x10));
    expect(code(() => t.write32(3, 0))).toBe('MISALIGNED');
    expect(t.log).toEqual([]);
  });
});

describe('ShadowIO', () => {
  it('a modify of a register whose value it knows needs no device read', () => {
    const dev = new TracingIO(ArrayRegisterIO.withResetValues(m2sModel));
    const sh = new ShadowIO(dev, m2sModel);
    const m2s = bindUdmaM2S(sh);
    m2s.M2S_Q[2].dwrr_cfg_2.write({ q_qos: 1 });
    m2s.M2S_Q[2].dwrr_cfg_2.modify({ q_qos: 2 });
    m2s.M2S_Q[2].dwrr_cfg_2.modify({ q_qos: 3 });
    expect(dev.log.map((e) => e.op)).toEqual(['write', 'write', 'write']);
    expect(sh.stats).toEqual({ reads: 2, hits: 2, writes: 3 });
    expect(dev.inner.read32(0x3084)).toBe(3);
  });

  it('learns a plain register from its first read', () => {
    const dev = new TracingIO(ArrayRegisterIO.withResetValues(m2sModel));
    const m2s = bindUdmaM2S(new ShadowIO(dev, udma_m2s));
    m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 1 });
    m2s.M2S_dwrr.cfg_sched.modify({ pkt_mode_en: 1 });
    expect(dev.log.map((e) => e.op)).toEqual(['read', 'write', 'write']);
    expect(m2s.M2S_dwrr.cfg_sched.read()).toEqual({
      en_dwrr: 1,
      pkt_mode_en: 1,
      weight_inc: 2,
      inc_factor: 7,
    });
  });

  it('never shadows RO, WO or INC registers', () => {
    const dev = new TracingIO(new ArrayRegisterIO(0x20000));
    const sh = new ShadowIO(dev, m2sModel);
    const m2s = bindUdmaM2S(sh);
    m2s.M2S_Q[0].tdrtp_inc.write({ val: 1 });
    m2s.M2S_Q[0].tdrtp.read();
    m2s.M2S_Q[0].tdrtp.read();
    m2s.M2S.change_state.write({ normal: 1 });
    expect(sh.knows(0x1038) || sh.knows(0x103c) || sh.knows(0x204)).toBe(false);
    expect(dev.log.filter((e) => e.op === 'read').length).toBe(2);
  });

  it('forget, assume and a predicate policy', () => {
    const dev = new TracingIO(new ArrayRegisterIO(0x100));
    const sh = new ShadowIO(dev, (o) => o < 0x80);
    sh.write32(0x10, 7);
    expect(sh.peek(0x10)).toBe(7);
    sh.forget(0x10);
    expect(sh.read32(0x10)).toBe(7);
    expect(dev.log.at(-1)!.op).toBe('read');
    sh.assume(0x20, 9);
    expect(sh.read32(0x20)).toBe(9); // taken on trust, no device read
    sh.assume(0x90, 9);
    expect(sh.knows(0x90)).toBe(false);
    sh.forget();
    expect(sh.knows(0x10)).toBe(false);
  });
});
