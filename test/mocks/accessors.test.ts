import { describe, expect, it } from 'vitest';
import { bindDgeHost, bindUdmaM2S, bindUdmaS2M, TracingIO } from '../../csr/index.ts';
import { BD_SIZE, encodeRx, encodeTx } from '../../csr/formats/bd.ts';
import { MockDevice } from '../../mocks/device.ts';
import { pattern } from './helpers.ts';

describe('the typed accessors run unchanged on the mock', () => {
  it('a copy driven only through bindUdmaM2S / bindUdmaS2M', () => {
    const dev = new MockDevice({ engines: [7] });
    const u = dev.udma(7);
    const m2s = bindUdmaM2S(u.m2s);
    const s2m = bindUdmaS2M(u.s2m);
    m2s.M2S.cfg_len.modify({ max_pkt_size: 0xfffff, encode_64k: 1 });
    m2s.M2S_rd.desc_pref_cfg_2.modify({ max_desc_per_pkt: 65 });
    const q = 9;
    const tx = 0x40000;
    const rx = 0x48000;
    m2s.M2S_Q[q].tdrbp_low.write({ addr: tx >>> 6 });
    m2s.M2S_Q[q].tdrl.write({ len: 32 });
    s2m.S2M_Q[q].rdrbp_low.write({ addr: rx >>> 6 });
    s2m.S2M_Q[q].rdrl.write({ len: 32 });
    m2s.M2S_Q[q].cfg.modify({ en_pref: 1, en_scheduling: 1 });
    s2m.S2M_Q[q].cfg.modify({ en_stream: 1 });
    m2s.M2S.change_state.write({ normal: 1 });
    s2m.S2M.change_state.write({ normal: 1 });
    const data = pattern(3000, 9);
    dev.memory.write(0x100000, data);
    encodeRx(dev.memory.view(rx, BD_SIZE)!, 0, { len: 3000, ring_id: 1, buf1_ptr: 2 ** 32 });
    s2m.S2M_Q[q].rdrtp_inc.write({ val: 1 });
    encodeTx(dev.memory.view(tx, BD_SIZE)!, 0, {
      len: 3000,
      ring_id: 1,
      first: true,
      last: true,
      buf_ptr: 0x100000,
    });
    m2s.M2S_Q[q].tdrtp_inc.write({ val: 1 });
    expect(m2s.M2S_Q[q].tdrhp.read()).toMatchObject({ offset: 1, ring_id: 1 });
    expect(s2m.S2M_Q[q].rdrhp.read()).toMatchObject({ offset: 1, ring_id: 1 });
    const out = new Uint8Array(3000);
    dev.memory.read(2 ** 32, out);
    expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
    expect(m2s.M2S.state.read()).toMatchObject({ desc_pref: 1, comp_ctrl: 1 });
  });

  it('a TracingIO over the mock records the writes (dry runs and traces compose)', () => {
    const dev = new MockDevice();
    const t = new TracingIO(dev.udma(0).m2s);
    bindUdmaM2S(t).M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 });
    expect(dev.udma(0).m2s.read32(0x4084)).toBe(5);
    expect(t.entries().filter((e) => e.op === 'write').length).toBe(1);
  });

  it('the dge_host accessors read and write the core DRAM window', () => {
    const dev = new MockDevice({ dgeCores: 1 });
    const core = dev.dgeCore(0);
    const h = bindDgeHost(core.dram);
    h.mailbox[2].write({ reserved: 0, priority: 3, bitmask: 0x00ff });
    expect(dev.memory.readU32(core.dramBase + 0x28 + 8)).toBe(0x00ff0300);
    h.priority_class_map[0].write({ bytes_per_packet: 8192 });
    expect(dev.memory.readU32(core.dramBase + 0x18)).toBe(8192);
  });
});
