import { describe, expect, it } from 'vitest';
import { decodeFields } from '../../../csr/runtime/fields.ts';
import { regFile } from '../../../csr/schema/files.ts';
import { toRegisterMap } from '../../../csr/schema/map.ts';
import { getInstance } from '../../../csr/schema/model.ts';
import { UdmaEngine } from '../../../driver/udma/index.ts';
import type { MockDevice } from '../../../mocks/index.ts';
import { expectCode, rig, writes } from './helpers.ts';

/** Decoded fields of the register at `path` as the mock holds it. */
function fields(dev: MockDevice, half: 'm2s' | 's2m', path: string): Record<string, number> {
  const file = regFile(half === 'm2s' ? 'udma_m2s' : 'udma_s2m');
  const inst = getInstance(file, path);
  const words = half === 'm2s' ? dev.udma(0).m2s.words : dev.udma(0).s2m.words;
  return decodeFields(toRegisterMap(inst.register), words[inst.offset >>> 2]);
}

describe('UdmaEngine.bringUp', () => {
  it('bring-up follows the UDMA-FACTS order, one write per register and no read', () => {
    const { dev, eng, trace } = rig({}, {}, false);
    const report = eng.bringUp();
    const w = writes(trace).map(([p]) => p);
    const queues = Array.from({ length: 16 }, (_, q) => [
      `m2s:M2S_Q[${q}].cfg`,
      `s2m:S2M_Q[${q}].cfg`,
    ]).flat();
    expect(w).toEqual([
      // 1. data path and AXI limits
      'm2s:M2S_rd.data_cfg',
      'm2s:AXI_M2S.ostand_cfg',
      'm2s:M2S.cfg_len',
      'm2s:M2S.stream_cfg',
      's2m:AXI_S2M.ostand_cfg_rd',
      's2m:AXI_S2M.ostand_cfg_wr',
      // 2. every queue enabled
      ...queues,
      // 3. prefetch (AXI_M2S.desc_rd_cfg_3 is inferred: skipped)
      'm2s:M2S_rd.desc_pref_cfg_2',
      'm2s:M2S_rd.desc_pref_cfg_3',
      's2m:S2M_rd.desc_pref_cfg_3',
      's2m:AXI_S2M.desc_rd_cfg_3',
      // 4. completion
      's2m:S2M_comp.cfg_1c',
      // 5. normal state
      'm2s:M2S.change_state',
      's2m:S2M.change_state',
    ]);
    expect(trace.filter((e) => e.op === 'read')).toEqual([]);
    expect(report.writes.map((x) => x.path)).toEqual(w.map((p) => p.slice(4)));
    expect(new Set(w).size).toBe(w.length);
    expect(dev.badAccesses()).toEqual([]);
  });

  it('bring-up register image: every value of the bring-up steps', () => {
    const { dev } = rig();
    expect(fields(dev, 'm2s', 'M2S_rd.data_cfg')).toMatchObject({
      data_fifo_depth: 1024,
      max_pkt_limit: 0x100,
    });
    expect(fields(dev, 'm2s', 'AXI_M2S.ostand_cfg')).toEqual({
      max_data_rd: 128,
      max_desc_rd: 128,
      max_comp_req: 128,
      max_comp_data_wr: 32,
    });
    expect(fields(dev, 'm2s', 'M2S.cfg_len')).toEqual({ max_pkt_size: 0xfffff, encode_64k: 1 });
    expect(fields(dev, 'm2s', 'M2S.stream_cfg')).toEqual({ disable: 0, rd_mode: 1, rd_th: 1 });
    expect(fields(dev, 's2m', 'AXI_S2M.ostand_cfg_rd')).toEqual({
      max_desc_rd_ostand: 128,
      max_stream_ack: 0x40,
    });
    expect(fields(dev, 's2m', 'AXI_S2M.ostand_cfg_wr')).toEqual({
      max_data_wr_ostand: 128,
      max_data_beats_wr: 0x40,
      max_comp_req: 128,
      max_comp_data_wr: 0x40,
    });
    for (let q = 0; q < 16; q++) {
      expect(fields(dev, 'm2s', `M2S_Q[${q}].cfg`)).toEqual({
        en_pref: 1,
        en_scheduling: 1,
        rst_default: 3,
        AXI_qos: 0,
      });
      expect(fields(dev, 's2m', `S2M_Q[${q}].cfg`)).toEqual({
        en_stream: 1,
        rst_default: 3,
        AXI_qos: 0,
      });
    }
    // The prefetch arbiter stays round robin: QoS programming must clear it (seed 004 §8.6).
    expect(fields(dev, 'm2s', 'M2S_rd.desc_pref_cfg_2')).toEqual({
      max_desc_per_pkt: 65,
      pref_force_rr: 1,
    });
    const pref3 = { pref_thr: 65, min_burst_above_thr: 8, min_burst_below_thr: 1 };
    expect(fields(dev, 'm2s', 'M2S_rd.desc_pref_cfg_3')).toEqual(pref3);
    expect(fields(dev, 's2m', 'S2M_rd.desc_pref_cfg_3')).toEqual(pref3);
    expect(fields(dev, 's2m', 'AXI_S2M.desc_rd_cfg_3')).toEqual({
      max_desc_burst: 8,
      always_break_on_max_boundary: 1,
    });
    expect(fields(dev, 's2m', 'S2M_comp.cfg_1c')).toEqual({
      desc_size: 4,
      q_promotion: 1,
      force_rr: 0,
    });
    expect(dev.udma(0).isRunning()).toBe(true);
  });

  it('inferred registers are skipped unless allowInferred, on the mock as on hardware', () => {
    const a = rig({}, {}, false);
    const r = a.eng.bringUp();
    expect(r.skipped.map((s) => s.path)).toEqual(['AXI_M2S.desc_rd_cfg_3']);
    expect(r.skipped[0].reason).toContain('max_desc_burst');
    expect(fields(a.dev, 'm2s', 'AXI_M2S.desc_rd_cfg_3')).toEqual({
      max_desc_burst: 0,
      always_break_on_max_boundary: 0,
    });
    const b = rig({}, { allowInferred: true }, false);
    expect(b.eng.bringUp().skipped).toEqual([]);
    expect(fields(b.dev, 'm2s', 'AXI_M2S.desc_rd_cfg_3')).toEqual({
      max_desc_burst: 8,
      always_break_on_max_boundary: 1,
    });
  });

  it('max descriptors per packet must be 8..128; a refused bring-up writes nothing', () => {
    const { eng, trace } = rig({}, {}, false);
    for (const bad of [7, 129, 64.5]) {
      const e = expectCode(() => eng.bringUp({ maxDescPerPkt: bad }), 'BAD_ARGUMENT');
      expect(e.message).toContain(String(bad));
    }
    expectCode(() => eng.bringUp({ dataFifoDepth: 0x1000 }), 'BAD_ARGUMENT');
    expect(trace).toEqual([]);
    eng.bringUp({ maxDescPerPkt: 8 });
    expect(eng.isBroughtUp).toBe(true);
  });

  it('an engine the device lacks is refused', () => {
    const { dev } = rig();
    expect(() => new UdmaEngine(dev, 5)).toThrow(/not part of this mock device/);
  });
});
