import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../common/errors.ts';
import { regFile } from '../../csr/schema/files.ts';
import type { RegisterInstance } from '../../csr/schema/model.ts';
import { MockDevice } from '../../mocks/device.ts';
import { MockRegisterFile, type RegisterAccessEvent } from '../../mocks/register-file.ts';
import { INITIAL_RING_ID } from '../../csr/formats/ring.ts';
import { QueuePair, bringUp, modify, off, rd, rdf, strobe, wr } from './helpers.ts';

/** What a read of a freshly reset register returns according to the schema alone. */
function schemaReadValue(inst: RegisterInstance): number {
  const reg = inst.register;
  if (reg.fields.length === 0) return reg.readable ? reg.reset : 0;
  let v = 0;
  for (const f of reg.fields) if (f.readable) v |= (f.reset << f.lsb) & f.mask;
  return v >>> 0;
}

/** Ring pointer registers: their ring_id reads the initial ring id 1 (the schema says "unknown"). */
const RING_POINTERS = /^(M2S|S2M)_Q\[\d+\]\.(tdrhp|tdrtp|tcrhp|rdrhp|rdrtp|rcrhp)$/;

describe('register files built from the schema', () => {
  it('reset image equals the schema resets (every register of udma_m2s and udma_s2m)', () => {
    const dev = new MockDevice({ engines: [0] });
    const u = dev.udma(0);
    for (const file of [u.m2s, u.s2m]) {
      expect(file.size).toBe(file.model.size);
      let checked = 0;
      for (const inst of file.model.instances) {
        const got = file.read32(inst.offset);
        let want = schemaReadValue(inst);
        if (RING_POINTERS.test(inst.path)) {
          const rid = inst.register.fields.find((f) => f.name === 'ring_id')!;
          // The schema does not state it; the mock shows the initial ring id (UDMA-FACTS "Rings").
          expect(rid.resetKnown).toBe(false);
          want = (want | ((INITIAL_RING_ID << rid.lsb) & rid.mask)) >>> 0;
        }
        expect({ path: inst.path, value: got }).toEqual({ path: inst.path, value: want });
        checked++;
      }
      expect(checked).toBe(file.model.instances.length);
    }
    // Spot checks against REGISTERS.md.
    expect(rd(u.m2s, 'M2S_rd.desc_pref_cfg_2')).toBe(0x00010040);
    expect(rd(u.m2s, 'M2S_Q[15].cfg')).toBe(0x03000000);
    expect(rd(u.m2s, 'M2S_dwrr.cfg_sched')).toBe(0x00070200);
    expect(rd(u.m2s, 'M2S_Q[3].rate_limit_mask')).toBe(0b111);
    expect(rd(u.s2m, 'S2M_Q[0].cfg')).toBe(0x03000000);
  });

  it('RO: writes are ignored and counted', () => {
    const u = new MockDevice().udma(0);
    const before = rd(u.m2s, 'M2S_Q[2].tdrhp');
    const ro = u.m2s.counters.roWrites;
    wr(u.m2s, 'M2S_Q[2].tdrhp', 0x12345);
    wr(u.m2s, 'M2S.state', 0x1111);
    expect(rd(u.m2s, 'M2S_Q[2].tdrhp')).toBe(before);
    expect(rd(u.m2s, 'M2S.state')).toBe(0);
    expect(u.m2s.counters.roWrites).toBe(ro + 2);
    expect(u.m2s.badAccessLog.at(-1)).toMatchObject({ reason: 'read-only', path: 'M2S.state' });
  });

  it('WO: reads return 0 (change_state, q_sw_ctrl) and the write still acts', () => {
    const u = new MockDevice().udma(0);
    strobe(u.m2s, 'M2S.change_state', { normal: 1 });
    expect(rd(u.m2s, 'M2S.change_state')).toBe(0);
    strobe(u.m2s, 'M2S_Q[0].q_sw_ctrl', { rst_q: 1 });
    expect(rd(u.m2s, 'M2S_Q[0].q_sw_ctrl')).toBe(0);
    expect(rdf(u.m2s, 'M2S.state.desc_pref')).toBe(1);
  });

  it('INC: tdrtp_inc adds to tdrtp.offset and is never readable back', () => {
    const u = new MockDevice({ autoRun: 'none' }).udma(0);
    wr(u.m2s, 'M2S_Q[1].tdrl', 32);
    strobe(u.m2s, 'M2S_Q[1].tdrtp_inc', { val: 5 });
    strobe(u.m2s, 'M2S_Q[1].tdrtp_inc', { val: 7 });
    expect(rdf(u.m2s, 'M2S_Q[1].tdrtp.offset')).toBe(12);
    expect(rd(u.m2s, 'M2S_Q[1].tdrtp_inc')).toBe(0);
    strobe(u.s2m, 'S2M_Q[1].rdrtp_inc', { val: 3 });
    expect(rdf(u.s2m, 'S2M_Q[1].rdrtp.offset')).toBe(3);
    expect(rd(u.s2m, 'S2M_Q[1].rdrtp_inc')).toBe(0);
  });

  it('INC carries the ring id across wraps: 1, 2, 3, 0, 1 (mod 4)', () => {
    const u = new MockDevice({ autoRun: 'none' }).udma(0);
    wr(u.m2s, 'M2S_Q[0].tdrl', 32);
    const seen: [number, number][] = [];
    for (let i = 0; i < 9; i++) {
      strobe(u.m2s, 'M2S_Q[0].tdrtp_inc', { val: 16 });
      seen.push([rdf(u.m2s, 'M2S_Q[0].tdrtp.offset'), rdf(u.m2s, 'M2S_Q[0].tdrtp.ring_id')]);
    }
    expect(seen).toEqual([
      [16, 1],
      [0, 2],
      [16, 2],
      [0, 3],
      [16, 3],
      [0, 0],
      [16, 0],
      [0, 1],
      [16, 1],
    ]);
    // A doorbell that crosses a wrap in one write: 16 + 40 = 56 = one lap + 24.
    strobe(u.m2s, 'M2S_Q[0].tdrtp_inc', { val: 40 });
    expect([rdf(u.m2s, 'M2S_Q[0].tdrtp.offset'), rdf(u.m2s, 'M2S_Q[0].tdrtp.ring_id')]).toEqual([
      24, 2,
    ]);
  });

  it('change_state drives state: normal, dis, abort (abort wins)', () => {
    const u = new MockDevice().udma(0);
    const fields = ['comp_ctrl', 'stream_if', 'data_rd_ctrl', 'desc_pref'];
    const state = () => fields.map((f) => rdf(u.s2m, `S2M.state.${f}`));
    expect(state()).toEqual([0, 0, 0, 0]);
    strobe(u.s2m, 'S2M.change_state', { normal: 1 });
    expect(state()).toEqual([1, 1, 1, 1]);
    strobe(u.s2m, 'S2M.change_state', { dis: 1 });
    expect(state()).toEqual([0, 0, 0, 0]);
    strobe(u.s2m, 'S2M.change_state', { normal: 1, abort: 1 });
    expect(state()).toEqual([2, 2, 2, 2]);
    expect(rd(u.m2s, 'M2S.state')).toBe(0); // the other half is separate
  });

  it('q_sw_ctrl.rst_q resets that queue pointers (head, tail, ring id) and nothing else', () => {
    const dev = new MockDevice({ engines: [0] });
    const u = dev.udma(0);
    bringUp(u);
    const qp = new QueuePair(dev, u, 4, 32, 0x10000);
    const other = new QueuePair(dev, u, 5, 32, 0x20000);
    for (let i = 0; i < 40; i++) {
      qp.copy(0x100000, 0x200000, 64);
      dev.runUntilIdle();
    }
    other.copy(0x100000, 0x300000, 64);
    expect([rdf(u.m2s, 'M2S_Q[4].tdrhp.offset'), rdf(u.m2s, 'M2S_Q[4].tdrhp.ring_id')]).toEqual([
      8, 2,
    ]);
    strobe(u.m2s, 'M2S_Q[4].q_sw_ctrl', { rst_q: 1 });
    strobe(u.s2m, 'S2M_Q[4].q_sw_ctrl', { rst_q: 1 });
    for (const p of ['M2S_Q[4].tdrhp', 'M2S_Q[4].tdrtp']) {
      expect([rdf(u.m2s, `${p}.offset`), rdf(u.m2s, `${p}.ring_id`)]).toEqual([0, 1]);
    }
    for (const p of ['S2M_Q[4].rdrhp', 'S2M_Q[4].rdrtp']) {
      expect([rdf(u.s2m, `${p}.offset`), rdf(u.s2m, `${p}.ring_id`)]).toEqual([0, 1]);
    }
    // Configuration and the other queue are untouched.
    expect(rd(u.m2s, 'M2S_Q[4].tdrl')).toBe(32);
    expect(rdf(u.m2s, 'M2S_Q[4].cfg.en_pref')).toBe(1);
    expect(rdf(u.m2s, 'M2S_Q[5].tdrhp.offset')).toBe(1);
    // The queue restarts at slot 0 with ring id 1.
    qp.txTail = qp.rxTail = 0;
    qp.txRid = qp.rxRid = 1;
    dev.memory.fill(0x200000, 64, 0);
    dev.memory.fill(0x100000, 64, 0x5a);
    qp.copy(0x100000, 0x200000, 64);
    expect(rdf(u.m2s, 'M2S_Q[4].tdrhp.offset')).toBe(1);
    expect(dev.memory.view(0x200000, 64)!.every((b) => b === 0x5a)).toBe(true);
  });

  it('an access to an unoccupied, misaligned or out-of-window offset is logged and counted, never a crash', () => {
    const model = regFile('udma_m2s');
    const f = new MockRegisterFile(model);
    // Find a word no register occupies.
    const used = new Set(model.instances.map((i) => i.offset));
    let hole = 0;
    while (used.has(hole)) hole += 4;
    expect(f.read32(hole)).toBe(0);
    f.write32(hole, 0xdead);
    expect(f.read32(hole)).toBe(0);
    expect(f.read32(0x1002)).toBe(0);
    f.write32(0x1022, 1);
    expect(f.read32(model.size)).toBe(0);
    f.write32(-4, 1);
    f.write32(off(f, 'M2S_Q[0].tdrl'), 2 ** 33);
    f.write32(off(f, 'M2S_Q[0].tdrl'), 1.5);
    expect(f.counters.badAccesses).toBe(9);
    expect(f.badAccessLog.map((b) => b.reason)).toEqual([
      'unoccupied',
      'unoccupied',
      'unoccupied',
      'misaligned',
      'misaligned',
      'out-of-window',
      'out-of-window',
      'bad-value',
      'bad-value',
    ]);
    expect(rd(f, 'M2S_Q[0].tdrl')).toBe(0);
  });

  it('strict register files throw typed errors instead', () => {
    const f = new MockRegisterFile(regFile('udma_s2m'), { strict: true });
    const codes = (fn: () => void): string => {
      try {
        fn();
      } catch (e) {
        return (e as NxdmaError).code;
      }
      return 'none';
    };
    expect(codes(() => f.read32(0x1002))).toBe('MISALIGNED');
    expect(codes(() => f.read32(f.size))).toBe('OUT_OF_WINDOW');
    expect(codes(() => f.write32(0, 1))).toBe('REGISTER_UNKNOWN');
    expect(codes(() => f.write32(off(f, 'S2M_Q[0].rdrhp'), 1))).toBe('REGISTER_READ_ONLY');
    expect(codes(() => f.write32(off(f, 'S2M_Q[0].rdrl'), -1.5))).toBe('BAD_ARGUMENT');
  });

  it('every access can be traced, in order, with its register path', () => {
    const events: RegisterAccessEvent[] = [];
    const dev = new MockDevice({ registerTrace: (e) => events.push(e), autoRun: 'none' });
    const u = dev.udma(0);
    wr(u.m2s, 'M2S_Q[3].dwrr_cfg_2', 5);
    rd(u.m2s, 'M2S_Q[3].dwrr_cfg_2');
    u.s2m.read32(0x1002);
    expect(events).toEqual([
      { file: 'udma0.m2s', op: 'write', offset: 0x4084, value: 5, path: 'M2S_Q[3].dwrr_cfg_2' },
      { file: 'udma0.m2s', op: 'read', offset: 0x4084, value: 5, path: 'M2S_Q[3].dwrr_cfg_2' },
      {
        file: 'udma0.s2m',
        op: 'read',
        offset: 0x1002,
        value: 0,
        path: null,
        dropped: 'misaligned',
      },
    ]);
  });

  it('reserved bits of a register with fields read 0; RW fields keep what was written', () => {
    const u = new MockDevice().udma(0);
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_2', 0xffffffff);
    expect(rd(u.m2s, 'M2S_Q[0].dwrr_cfg_2')).toBe(0xff);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    expect(rd(u.m2s, 'M2S_rd.desc_pref_cfg_2')).toBe(0x40);
  });
});
