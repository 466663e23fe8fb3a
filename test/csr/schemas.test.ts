/**
 * Pins the shipped schemas to spec/REGISTERS.md and seed 004 §7-§8: offsets, bits and resets for
 * the first and the last instance of each repeated block, through the model, the generated map and
 * a bound accessor (the three must agree).
 */
import { describe, expect, it } from 'vitest';
import {
  ArrayRegisterIO,
  bindDgeHost,
  bindUdmaM2S,
  bindUdmaS2M,
  findBlock,
  findField,
  findInstance,
  getInstance,
  incrementTargetOf,
  instanceAt,
  instances,
  mapInstances,
  regFile,
  regFileMaps,
  toRegFileMap,
  REGFILE_NAMES,
  type FieldModel,
} from '../../csr/index.ts';
import { loadRegFile } from '../../csr/schema/loader.ts';
import { schemaDisplayPath, schemaPath } from '../../csr/schema/files.ts';

const m2s = regFile('udma_m2s');
const s2m = regFile('udma_s2m');
const dge = regFile('dge_host');

/** [absolute offset, lsb, width, reset, resetKnown] of "path.field". */
function pin(file: typeof m2s, path: string): [number, number, number, number, boolean] {
  const f = findField(file, path);
  if (!f) throw new Error(`no field ${path}`);
  return [f.instance.offset, f.field.lsb, f.field.width, f.field.reset, f.field.resetKnown];
}

const QS = [0, 15];

describe('udma_m2s (REGISTERS.md, seed 004 §7.3, §8)', () => {
  it('has a 0x20000-byte window and 16 M2S_Q queues every 0x1000 from 0x1000', () => {
    expect(m2s.size).toBe(0x20000);
    const q = findBlock(m2s, 'M2S_Q')!;
    expect([q.base, q.arraySize, q.stride, q.indexed]).toEqual([0x1000, 16, 0x1000, true]);
  });

  for (const q of QS) {
    const b = 0x1000 + q * 0x1000;
    it(`q_qos is at dwrr_cfg_2 (queue base + 0x84), not dwrr_cfg_1 (+0x80): M2S_Q[${q}]`, () => {
      expect(pin(m2s, `M2S_Q[${q}].dwrr_cfg_2.q_qos`)).toEqual([b + 0x84, 0, 8, 0, false]);
      expect(getInstance(m2s, `M2S_Q[${q}].dwrr_cfg_1`).offset).toBe(b + 0x80);
      expect(findField(m2s, `M2S_Q[${q}].dwrr_cfg_1.q_qos`)).toBeUndefined();
      expect(pin(m2s, `M2S_Q[${q}].dwrr_cfg_1.max_deficit_cnt_size`)).toEqual([
        b + 0x80,
        0,
        24,
        0,
        false,
      ]);
      expect(pin(m2s, `M2S_Q[${q}].dwrr_cfg_1.strict`)[1]).toBe(24);
      expect(pin(m2s, `M2S_Q[${q}].dwrr_cfg_1.pause`)[1]).toBe(25);
      expect(pin(m2s, `M2S_Q[${q}].dwrr_cfg_3.weight`)).toEqual([b + 0x88, 0, 8, 0, false]);
    });

    it(`cfg.AXI_qos is bits 30:28 of queue base + 0x20, reset word 0x03000000: M2S_Q[${q}]`, () => {
      expect(pin(m2s, `M2S_Q[${q}].cfg.AXI_qos`)).toEqual([b + 0x20, 28, 3, 0, true]);
      expect(pin(m2s, `M2S_Q[${q}].cfg.rst_default`)).toEqual([b + 0x20, 24, 2, 3, true]);
      expect(pin(m2s, `M2S_Q[${q}].cfg.en_pref`)[1]).toBe(16);
      expect(pin(m2s, `M2S_Q[${q}].cfg.en_scheduling`)[1]).toBe(17);
      expect(getInstance(m2s, `M2S_Q[${q}].cfg`).register.reset).toBe(0x03000000);
    });

    it(`ring registers and the tdrtp_inc doorbell: M2S_Q[${q}]`, () => {
      expect(pin(m2s, `M2S_Q[${q}].tdrbp_low.addr`)).toEqual([b + 0x28, 6, 26, 0, false]);
      expect(pin(m2s, `M2S_Q[${q}].tdrbp_high.addr`)).toEqual([b + 0x2c, 0, 32, 0, false]);
      expect(pin(m2s, `M2S_Q[${q}].tdrl.len`)).toEqual([b + 0x30, 0, 24, 0, false]);
      expect(pin(m2s, `M2S_Q[${q}].tdrhp.ring_id`)).toEqual([b + 0x34, 30, 2, 0, false]);
      const inc = getInstance(m2s, `M2S_Q[${q}].tdrtp_inc`);
      expect([inc.offset, inc.register.access]).toEqual([b + 0x38, 'INC']);
      expect(inc.register.incrementTarget).toEqual({ register: 'tdrtp', field: 'offset' });
      const t = incrementTargetOf(m2s, inc)!;
      expect([t.instance.path, t.instance.offset, t.field.lsb, t.field.width]).toEqual([
        `M2S_Q[${q}].tdrtp`,
        b + 0x3c,
        0,
        24,
      ]);
      expect(t.instance.register.access).toBe('RO');
      expect(getInstance(m2s, `M2S_Q[${q}].tdcp`).offset).toBe(b + 0x40);
      expect(pin(m2s, `M2S_Q[${q}].tcrbp_low.addr`)[0]).toBe(b + 0x44);
      expect(pin(m2s, `M2S_Q[${q}].tcrbp_high.addr`)[0]).toBe(b + 0x48);
      expect(pin(m2s, `M2S_Q[${q}].tcrhp.offset`)[0]).toBe(b + 0x4c);
      expect(pin(m2s, `M2S_Q[${q}].comp_cfg.dis_comp_coal`)).toEqual([b + 0xa0, 1, 1, 0, false]);
      const sw = getInstance(m2s, `M2S_Q[${q}].q_sw_ctrl`);
      expect([sw.offset, sw.register.access, sw.register.fields[0].lsb]).toEqual([
        b + 0xb0,
        'WO',
        8,
      ]);
    });

    it(`per-queue rate limiter: cfg_1 max_burst_size 0xFFFFFF, mask reset 0b111: M2S_Q[${q}]`, () => {
      expect(pin(m2s, `M2S_Q[${q}].rate_limit_cfg_1.max_burst_size`)).toEqual([
        b + 0x60,
        0,
        24,
        0xffffff,
        true,
      ]);
      const mask = getInstance(m2s, `M2S_Q[${q}].rate_limit_mask`);
      expect([mask.offset, mask.register.reset]).toEqual([b + 0x74, 0b111]);
      expect(mask.register.inferred).toBe(true); // two field names are inferred
      expect(mask.register.fields.find((f) => f.name === 'internal_pause_dmb')!.provenance).toBe(
        'public',
      );
    });
  }

  it('pref_force_rr resets to 1 (prefetch arbiter round robin) at M2S_rd.desc_pref_cfg_2 0x304 bit 16', () => {
    expect(pin(m2s, 'M2S_rd.desc_pref_cfg_2.pref_force_rr')).toEqual([0x304, 16, 1, 1, true]);
    expect(pin(m2s, 'M2S_rd.desc_pref_cfg_2.max_desc_per_pkt')).toEqual([0x304, 0, 12, 0x40, true]);
    expect(pin(m2s, 'M2S_rd.desc_pref_cfg_3.min_burst_below_thr')).toEqual([0x308, 0, 4, 1, true]);
    expect(pin(m2s, 'M2S_rd.desc_pref_cfg_3.min_burst_above_thr')).toEqual([0x308, 4, 4, 4, true]);
    expect(pin(m2s, 'M2S_rd.desc_pref_cfg_3.pref_thr')).toEqual([0x308, 8, 8, 0x10, true]);
    expect(pin(m2s, 'M2S_rd.data_cfg.max_pkt_limit')).toEqual([0x310, 16, 9, 0x100, true]);
  });

  it('DWRR is off at reset (en_dwrr 0), byte mode, weight_inc 2, inc_factor 7: cfg_sched at 0x340', () => {
    expect(pin(m2s, 'M2S_dwrr.cfg_sched.en_dwrr')).toEqual([0x340, 0, 1, 0, true]);
    expect(pin(m2s, 'M2S_dwrr.cfg_sched.pkt_mode_en')).toEqual([0x340, 4, 1, 0, true]);
    expect(pin(m2s, 'M2S_dwrr.cfg_sched.weight_inc')).toEqual([0x340, 8, 2, 2, true]);
    expect(pin(m2s, 'M2S_dwrr.cfg_sched.inc_factor')).toEqual([0x340, 16, 4, 7, true]);
    expect(getInstance(m2s, 'M2S_dwrr.cfg_sched').register.reset).toBe((2 << 8) | (7 << 16));
    expect(pin(m2s, 'M2S_dwrr.ctrl_deficit_cnt.init')).toEqual([0x344, 0, 24, 0, false]);
  });

  it('per-queue status is read through indirect_ctrl.q_num (0x234): token_cnt 0x240, deficit_cnt 0x244', () => {
    expect(pin(m2s, 'M2S.indirect_ctrl.q_num')).toEqual([0x234, 0, 12, 0, false]);
    expect(pin(m2s, 'M2S.sel_rate_limit_status.token_cnt')).toEqual([0x240, 0, 24, 0, false]);
    expect(pin(m2s, 'M2S.sel_dwrr_status.deficit_cnt')).toEqual([0x244, 0, 24, 0, false]);
    expect(getInstance(m2s, 'M2S.sel_dwrr_status').register.access).toBe('RO');
  });

  it('both rate limiters are masked at reset; the two blocks are split (gen_cfg 0x380, cfg_1s 0x3c0, mask 0x3d4)', () => {
    expect(pin(m2s, 'M2S_rate_limiter.gen_cfg.short_cycle_size')).toEqual([
      0x380,
      0,
      16,
      0xfa,
      true,
    ]);
    expect(pin(m2s, 'M2S_rate_limiter.gen_cfg.pkt_mode_en')).toEqual([0x380, 24, 1, 0, true]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.cfg_1s.max_burst_size')).toEqual([
      0x3c0,
      0,
      24,
      0xffffff,
      true,
    ]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.cfg_1s.en')).toEqual([0x3c0, 24, 1, 0, true]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.mask.external_rate_limiter')).toEqual([
      0x3d4,
      0,
      1,
      1,
      true,
    ]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.mask.internal_rate_limiter')).toEqual([
      0x3d4,
      1,
      1,
      1,
      true,
    ]);
    expect(findField(m2s, 'M2S_rate_limiter.gen_cfg.en')).toBeUndefined();
  });

  it('each token bucket has its refill registers beside its size (cfg_cycle, cfg_token_size_1/2, sw_ctrl; inferred)', () => {
    // The stream bucket: cfg_1s (size) at 0x3c0, then the refill words, then mask at 0x3d4.
    expect(pin(m2s, 'M2S_stream_rate_limiter.cfg_cycle.long_cycle_size')).toEqual([
      0x3c4,
      0,
      16,
      0,
      false,
    ]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.cfg_token_size_1.long_cycle')).toEqual([
      0x3c8,
      0,
      19,
      0,
      false,
    ]);
    expect(pin(m2s, 'M2S_stream_rate_limiter.cfg_token_size_2.short_cycle')).toEqual([
      0x3cc,
      0,
      19,
      0,
      false,
    ]);
    const sw = getInstance(m2s, 'M2S_stream_rate_limiter.sw_ctrl');
    expect([sw.offset, sw.register.access, sw.register.fields[0].name]).toEqual([
      0x3d0,
      'WO',
      'rst_token_cnt',
    ]);
    for (const q of [0, 15]) {
      const b = 0x1000 + q * 0x1000;
      expect(pin(m2s, `M2S_Q[${q}].rate_limit_cfg_cycle.long_cycle_size`)).toEqual([
        b + 0x64,
        0,
        16,
        0,
        false,
      ]);
      expect(pin(m2s, `M2S_Q[${q}].rate_limit_cfg_token_size_1.long_cycle`)).toEqual([
        b + 0x68,
        0,
        19,
        0,
        false,
      ]);
      expect(pin(m2s, `M2S_Q[${q}].rate_limit_cfg_token_size_2.short_cycle`)).toEqual([
        b + 0x6c,
        0,
        19,
        0,
        false,
      ]);
      expect(getInstance(m2s, `M2S_Q[${q}].rate_limit_sw_ctrl`).offset).toBe(b + 0x70);
    }
    // No source states them for this device: tools never write them without the opt-in.
    for (const path of [
      'M2S_stream_rate_limiter.cfg_cycle',
      'M2S_stream_rate_limiter.cfg_token_size_1',
      'M2S_stream_rate_limiter.cfg_token_size_2',
      'M2S_stream_rate_limiter.sw_ctrl',
      'M2S_Q[3].rate_limit_cfg_cycle',
      'M2S_Q[3].rate_limit_cfg_token_size_1',
      'M2S_Q[3].rate_limit_cfg_token_size_2',
      'M2S_Q[3].rate_limit_sw_ctrl',
    ])
      expect(getInstance(m2s, path).register.inferred, path).toBe(true);
  });

  it('the completion arbiter is the only one that resets to QoS (force_rr 0), with q_promotion 1: cfg_1c at 0x400', () => {
    expect(pin(m2s, 'M2S_comp.cfg_1c.comp_fifo_depth')).toEqual([0x400, 0, 8, 0x40, true]);
    expect(pin(m2s, 'M2S_comp.cfg_1c.unack_fifo_depth')).toEqual([0x400, 8, 12, 0x100, true]);
    expect(pin(m2s, 'M2S_comp.cfg_1c.q_promotion')).toEqual([0x400, 24, 1, 1, true]);
    expect(pin(m2s, 'M2S_comp.cfg_1c.force_rr')).toEqual([0x400, 25, 1, 0, true]);
    expect(pin(m2s, 'M2S_comp.cfg_1c.q_free_min')).toEqual([0x400, 28, 4, 0, true]);
    expect(getInstance(m2s, 'M2S_comp.cfg_1c').register.reset).toBe(
      0x40 | (0x100 << 8) | (1 << 24),
    );
    expect(pin(m2s, 'M2S_comp.cfg_coal.timer')).toEqual([0x404, 0, 32, 0x186a0, true]);
  });

  it('AXI_M2S_MLA.high_priority.enable: one bit per queue at 0x08, inferred because the block base is', () => {
    const i = getInstance(m2s, 'AXI_M2S_MLA.high_priority');
    expect([i.offset, i.register.fields[0].width, i.register.fields[0].provenance]).toEqual([
      8,
      16,
      'seed',
    ]);
    expect(i.register.inferred).toBe(true);
    expect(i.register.addressInferred).toBe(true);
    expect(i.register.inferredReasons).toEqual(['block base']);
    expect(i.block!.provenanceNote).toMatch(/block base 0x000 is inferred/);
  });

  it('engine state, change_state, cfg_len, stream_cfg and AXI outstanding limits', () => {
    const st = getInstance(m2s, 'M2S.state');
    expect([st.offset, st.register.access]).toEqual([0x200, 'RO']);
    expect(st.register.fields.map((f: FieldModel) => [f.name, f.lsb, f.width])).toEqual([
      ['comp_ctrl', 0, 2],
      ['stream_if', 4, 2],
      ['data_rd_ctrl', 8, 2],
      ['desc_pref', 12, 2],
    ]);
    expect(st.register.fields[0].enums.map((e) => [e.name, e.value])).toEqual([
      ['idle', 0],
      ['normal', 1],
      ['abort', 2],
    ]);
    expect(getInstance(m2s, 'M2S.change_state').register.access).toBe('WO');
    expect(pin(m2s, 'M2S.cfg_len.encode_64k')).toEqual([0x254, 24, 1, 0, false]);
    expect(pin(m2s, 'M2S.stream_cfg.rd_th')).toEqual([0x258, 8, 11, 0, false]);
    expect(pin(m2s, 'AXI_M2S.ostand_cfg.max_comp_data_wr')).toEqual([0x124, 24, 8, 0, false]);
    expect(getInstance(m2s, 'M2S_feature.dma_version').offset).toBe(0x604);
  });
});

describe('udma_s2m (REGISTERS.md, seed 004 §8.5)', () => {
  it('has a 0x18000-byte window, no DWRR block and no rate limiters', () => {
    expect(s2m.size).toBe(0x18000);
    expect(s2m.blocks.map((b) => b.name)).toEqual([
      'AXI_S2M',
      'S2M',
      'S2M_rd',
      'S2M_comp',
      'S2M_Q',
    ]);
    expect(s2m.instances.some((i) => /dwrr|rate_limit/.test(i.path))).toBe(false);
  });

  for (const q of QS) {
    const b = 0x1000 + q * 0x1000;
    it(`rdrtp_inc is the S2M doorbell at queue base + 0x38, adding to rdrtp.offset: S2M_Q[${q}]`, () => {
      const inc = getInstance(s2m, `S2M_Q[${q}].rdrtp_inc`);
      expect([inc.offset, inc.register.access]).toEqual([b + 0x38, 'INC']);
      expect(incrementTargetOf(s2m, inc)!.instance.offset).toBe(b + 0x3c);
      expect(pin(s2m, `S2M_Q[${q}].rdrbp_low.addr`)).toEqual([b + 0x28, 6, 26, 0, false]);
      expect(pin(s2m, `S2M_Q[${q}].rdrl.len`)[0]).toBe(b + 0x30);
      expect(pin(s2m, `S2M_Q[${q}].rcrhp.ring_id`)).toEqual([b + 0x4c, 30, 2, 0, false]);
      expect(pin(s2m, `S2M_Q[${q}].comp_cfg.en_comp_ring_update`)[0]).toBe(b + 0x54);
      expect(pin(s2m, `S2M_Q[${q}].q_sw_ctrl.rst_q`)).toEqual([b + 0x64, 8, 1, 0, false]);
    });

    it(`S2M_Q.cfg: en_stream bit 17, rst_default 0b11, AXI_qos inferred by analogy: S2M_Q[${q}]`, () => {
      expect(pin(s2m, `S2M_Q[${q}].cfg.en_stream`)).toEqual([b + 0x20, 17, 1, 0, true]);
      expect(pin(s2m, `S2M_Q[${q}].cfg.rst_default`)).toEqual([b + 0x20, 24, 2, 3, true]);
      const cfg = getInstance(s2m, `S2M_Q[${q}].cfg`).register;
      expect(cfg.fields.find((f) => f.name === 'AXI_qos')!.provenance).toBe('inferred');
      expect(cfg.inferred).toBe(true);
      expect(cfg.addressInferred).toBe(false);
    });
  }

  it('S2M q_qos has no known offset: recorded as a known gap, never as a register', () => {
    expect(s2m.knownGaps).toEqual([
      expect.objectContaining({ name: 'q_qos', block: 'S2M_Q', provenance: 'seed' }),
    ]);
    expect(s2m.instances.some((i) => i.register.fields.some((f) => f.name === 'q_qos'))).toBe(
      false,
    );
  });

  it('S2M force_rr is bit 16 of S2M_comp.cfg_1c (bit 25 on M2S), reset 0 (QoS)', () => {
    expect(pin(s2m, 'S2M_comp.cfg_1c.force_rr')).toEqual([0x380, 16, 1, 0, true]);
    expect(pin(s2m, 'S2M_comp.cfg_1c.q_promotion')).toEqual([0x380, 12, 1, 0, false]);
    expect(pin(s2m, 'S2M_comp.cfg_1c.desc_size')).toEqual([0x380, 0, 4, 0, false]);
  });

  it('S2M_rd.desc_pref_cfg_2.pref_force_rr is inferred by analogy with M2S (bit 16, reset 1)', () => {
    const f = findField(s2m, 'S2M_rd.desc_pref_cfg_2.pref_force_rr')!;
    expect([f.instance.offset, f.field.lsb, f.field.reset, f.field.provenance]).toEqual([
      0x304,
      16,
      1,
      'inferred',
    ]);
  });

  it('AXI_S2M outstanding limits and stream_cfg', () => {
    expect(pin(s2m, 'AXI_S2M.ostand_cfg_wr.max_data_beats_wr')).toEqual([0x128, 8, 8, 0, false]);
    expect(pin(s2m, 'AXI_S2M.ostand_cfg_wr_2.max_data_wr_ostand')).toEqual([
      0x12c,
      0,
      10,
      0,
      false,
    ]);
    expect(pin(s2m, 'S2M.stream_cfg.stop_prefetch')).toEqual([0x250, 8, 1, 0, false]);
    expect(pin(s2m, 'S2M.err_log_mask.pref_ring_id')).toEqual([0x20c, 11, 1, 0, false]);
  });
});

describe('dge_host (seed 004 §7.2)', () => {
  it('the priority-class map is four u32 at dram_base + 0x18, stride 4', () => {
    for (let i = 0; i < 4; i++) {
      expect(pin(dge, `priority_class_map[${i}].bytes_per_packet`)).toEqual([
        0x18 + 4 * i,
        0,
        32,
        0,
        false,
      ]);
    }
    expect(findInstance(dge, 'priority_class_map[4]')).toBeUndefined();
  });

  it('the DGE mailboxes are four {reserved u8, priority u8, bitmask u16} at dram_base + 0x28 + 4*i', () => {
    for (let i = 0; i < 4; i++) {
      expect(pin(dge, `mailbox[${i}].reserved`)).toEqual([0x28 + 4 * i, 0, 8, 0, false]);
      expect(pin(dge, `mailbox[${i}].priority`)).toEqual([0x28 + 4 * i, 8, 8, 0, false]);
      expect(pin(dge, `mailbox[${i}].bitmask`)).toEqual([0x28 + 4 * i, 16, 16, 0, false]);
    }
    expect(dge.registers.map((r) => [r.name, r.array])).toEqual([
      ['priority_class_map', { size: 4, stride: 4 }],
      ['mailbox', { size: 4, stride: 4 }],
    ]);
  });
});

describe('the model, the generated maps and the accessors agree', () => {
  it('every shipped schema passes the full loader (zod format included) and builds the model regFile() serves', () => {
    for (const name of REGFILE_NAMES) {
      const full = loadRegFile(schemaPath(name), schemaDisplayPath(name));
      expect(full).toEqual(regFile(name));
    }
  });

  it('the generated maps equal the maps built from the loaded schemas', () => {
    for (const name of REGFILE_NAMES) {
      expect(JSON.parse(JSON.stringify(regFileMaps[name]))).toEqual(toRegFileMap(regFile(name)));
    }
  });

  it('instances(file) lists every register word once, ascending, with unique paths', () => {
    for (const name of REGFILE_NAMES) {
      const f = regFile(name);
      const list = instances(f);
      const offsets = list.map((i) => i.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(new Set(offsets).size).toBe(offsets.length);
      expect(new Set(list.map((i) => i.path)).size).toBe(list.length);
      expect(list.every((i) => i.offset % 4 === 0 && i.offset + 4 <= f.size)).toBe(true);
      expect(mapInstances(toRegFileMap(f)).map((i) => [i.path, i.offset])).toEqual(
        list.map((i) => [i.path, i.offset]),
      );
      for (const i of list) expect(instanceAt(f, i.offset)).toBe(i);
    }
    expect(instances(m2s).filter((i) => i.block?.name === 'M2S_Q').length).toBe(16 * 24);
  });

  it('bound accessors sit at the model offsets (first and last instances)', () => {
    const a = bindUdmaM2S(new ArrayRegisterIO(0x20000));
    const b = bindUdmaS2M(new ArrayRegisterIO(0x18000));
    const d = bindDgeHost(new ArrayRegisterIO(0x40));
    expect(a.M2S_Q[0].dwrr_cfg_2.offset).toBe(getInstance(m2s, 'M2S_Q[0].dwrr_cfg_2').offset);
    expect(a.M2S_Q[15].dwrr_cfg_2.offset).toBe(0x10084);
    expect(a.M2S_Q[15].cfg.path).toBe('M2S_Q[15].cfg');
    expect(a.M2S_rd.desc_pref_cfg_2.offset).toBe(0x304);
    expect(b.S2M_Q[15].rdrtp_inc.offset).toBe(0x10038);
    expect(d.mailbox[3].offset).toBe(0x34);
    expect(d.priority_class_map[2].path).toBe('priority_class_map[2]');
  });
});
