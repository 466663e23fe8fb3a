/**
 * Engine bring-up (UDMA-FACTS.md "Engine bring-up", the order of the public driver's
 * udma_set_defaults): every register composed as a whole word first (validation), then written,
 * skipping registers that hold inferred facts unless the caller allows them. Also the engine-level
 * registers the engine driver uses after bring-up (state, change_state), resolved once.
 */
import { NxdmaError } from '../../common/errors.ts';
import {
  MAX_DESC_PER_PKT as MAX_DESC_PER_PKT_DEFAULT,
  MAX_DESC_PER_PKT_MAX,
  MAX_DESC_PER_PKT_MIN,
} from '../../csr/formats/ring.ts';
import type { EngineIO } from './engine-io.ts';
import type { BringUpOptions, BringUpReport } from './engine-types.ts';
import { queueRegs } from './queue-regs.ts';
import { inferredWrite, reg, type Reg } from './regs.ts';

// Bring-up values (UDMA-FACTS.md "Engine bring-up"; the public driver's udma_set_defaults).
const DATA_FIFO_DEPTH_DEFAULT = 1024;
/** M2S_rd.data_cfg.max_pkt_limit: the public driver keeps its reset value. */
const OSTAND_M2S = { max_data_rd: 128, max_desc_rd: 128, max_comp_req: 128, max_comp_data_wr: 32 };
const OSTAND_S2M_RD = { max_desc_rd_ostand: 128, max_stream_ack: 0x40 };
const OSTAND_S2M_WR = {
  max_data_wr_ostand: 128,
  max_data_beats_wr: 0x40,
  max_comp_req: 128,
  max_comp_data_wr: 0x40,
};
const MIN_BURST_ABOVE_THR = 8;
const MIN_BURST_BELOW_THR = 1;
const AXI_DESC_MAX_BURST = 8;
/** Completion descriptor size in words (16-byte completion descriptors). */
const COMP_DESC_WORDS = 16 / 4;

/** Registers the engine-level code uses, resolved once. */
export interface EngineRegs {
  m2sDataCfg: Reg;
  m2sOstand: Reg;
  m2sCfgLen: Reg;
  m2sStreamCfg: Reg;
  s2mOstandRd: Reg;
  s2mOstandWr: Reg;
  m2sPref2: Reg;
  m2sPref3: Reg;
  s2mPref3: Reg;
  m2sAxiDescRd3: Reg;
  s2mAxiDescRd3: Reg;
  s2mComp1c: Reg;
  m2sChangeState: Reg;
  s2mChangeState: Reg;
  m2sState: Reg;
  s2mState: Reg;
}

let engineRegsCache: EngineRegs | null = null;
/** The engine-level registers (bring-up, state, change_state), resolved once. */
export function engineRegs(): EngineRegs {
  if (engineRegsCache) return engineRegsCache;
  const m = 'udma_m2s';
  const s = 'udma_s2m';
  engineRegsCache = {
    m2sDataCfg: reg(m, 'M2S_rd.data_cfg'),
    m2sOstand: reg(m, 'AXI_M2S.ostand_cfg'),
    m2sCfgLen: reg(m, 'M2S.cfg_len'),
    m2sStreamCfg: reg(m, 'M2S.stream_cfg'),
    s2mOstandRd: reg(s, 'AXI_S2M.ostand_cfg_rd'),
    s2mOstandWr: reg(s, 'AXI_S2M.ostand_cfg_wr'),
    m2sPref2: reg(m, 'M2S_rd.desc_pref_cfg_2'),
    m2sPref3: reg(m, 'M2S_rd.desc_pref_cfg_3'),
    s2mPref3: reg(s, 'S2M_rd.desc_pref_cfg_3'),
    m2sAxiDescRd3: reg(m, 'AXI_M2S.desc_rd_cfg_3'),
    s2mAxiDescRd3: reg(s, 'AXI_S2M.desc_rd_cfg_3'),
    s2mComp1c: reg(s, 'S2M_comp.cfg_1c'),
    m2sChangeState: reg(m, 'M2S.change_state'),
    s2mChangeState: reg(s, 'S2M.change_state'),
    m2sState: reg(m, 'M2S.state'),
    s2mState: reg(s, 'S2M.state'),
  };
  return engineRegsCache;
}

/**
 * Engine bring-up in the order of UDMA-FACTS.md, every register written as a whole word (the
 * reset word with the named fields replaced; no reads):
 *
 * 1. M2S_rd.data_cfg, AXI_M2S.ostand_cfg (128 data reads, 128 descriptor reads, 128 completion
 *    requests, 32 completion data writes), M2S.cfg_len (max_pkt_size 0xFFFFF, encode_64k),
 *    M2S.stream_cfg (rd_mode 1, rd_th 1), AXI_S2M.ostand_cfg_rd / ostand_cfg_wr;
 * 2. every queue's cfg: reset value | en_pref | en_scheduling (M2S), | en_stream (S2M);
 * 3. M2S_rd.desc_pref_cfg_2 = max_desc_per_pkt | pref_force_rr; desc_pref_cfg_3 (pref_thr,
 *    min_burst_above_thr 8, min_burst_below_thr 1) on both halves; AXI desc_rd_cfg_3 (max burst 8,
 *    always_break_on_max_boundary) on both halves;
 * 4. S2M_comp.cfg_1c = q_promotion | completion descriptor size in words;
 * 5. change_state.normal on both halves.
 *
 * Registers holding inferred facts are skipped unless `allowInferred` (see the report).
 * Bring-up leaves the prefetch arbiter in round robin: QoS programming must clear pref_force_rr.
 */
export function bringUpEngine(
  eio: EngineIO,
  queueCount: number,
  allowInferred: boolean,
  opts: BringUpOptions,
): { report: BringUpReport; maxDescPerPkt: number } {
  const maxDesc = opts.maxDescPerPkt ?? MAX_DESC_PER_PKT_DEFAULT;
  if (
    !Number.isInteger(maxDesc) ||
    maxDesc < MAX_DESC_PER_PKT_MIN ||
    maxDesc > MAX_DESC_PER_PKT_MAX
  ) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `udma${eio.engine} bring-up: maxDescPerPkt ${String(maxDesc)} is outside ${MAX_DESC_PER_PKT_MIN}..${MAX_DESC_PER_PKT_MAX}`,
      {
        where: 'bringUp.maxDescPerPkt',
        expected: `${MAX_DESC_PER_PKT_MIN}..${MAX_DESC_PER_PKT_MAX}`,
        actual: maxDesc,
      },
    );
  }
  const R = engineRegs();
  const depth = opts.dataFifoDepth ?? DATA_FIFO_DEPTH_DEFAULT;
  const depthField = R.m2sDataCfg.field('data_fifo_depth');
  if (!Number.isInteger(depth) || depth < 1 || depth > depthField.max) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `udma${eio.engine} bring-up: dataFifoDepth ${String(depth)} is outside 1..${depthField.max}`,
      { where: 'bringUp.dataFifoDepth', expected: `1..${depthField.max}`, actual: depth },
    );
  }
  // Compose every word first (validation), then write. Each entry names the fields it sets.
  const plan: [Reg, Record<string, number>, number][] = [];
  const full = (r: Reg, v: Record<string, number>): void => void plan.push([r, v, r.encode(v)]);
  // 1.
  full(R.m2sDataCfg, { data_fifo_depth: depth });
  full(R.m2sOstand, OSTAND_M2S);
  full(R.m2sCfgLen, { max_pkt_size: R.m2sCfgLen.field('max_pkt_size').max, encode_64k: 1 });
  full(R.m2sStreamCfg, { rd_mode: 1, rd_th: 1 });
  full(R.s2mOstandRd, OSTAND_S2M_RD);
  full(R.s2mOstandWr, OSTAND_S2M_WR);
  // 2.
  for (let q = 0; q < queueCount; q++) {
    for (const h of [queueRegs(q).m2s, queueRegs(q).s2m]) {
      const names: Record<string, number> = {};
      for (const f of h.enables) names[f.name] = 1;
      plan.push([h.cfg, names, (h.cfg.reset | h.enableMask) >>> 0]);
    }
  }
  // 3.
  full(R.m2sPref2, { max_desc_per_pkt: maxDesc, pref_force_rr: 1 });
  const pref3 = {
    pref_thr: maxDesc,
    min_burst_above_thr: MIN_BURST_ABOVE_THR,
    min_burst_below_thr: MIN_BURST_BELOW_THR,
  };
  full(R.m2sPref3, pref3);
  full(R.s2mPref3, pref3);
  const axi = { max_desc_burst: AXI_DESC_MAX_BURST, always_break_on_max_boundary: 1 };
  full(R.m2sAxiDescRd3, axi);
  full(R.s2mAxiDescRd3, axi);
  // 4.
  full(R.s2mComp1c, { q_promotion: 1, desc_size: COMP_DESC_WORDS });
  // 5.
  plan.push([R.m2sChangeState, { normal: 1 }, R.m2sChangeState.encode({ normal: 1 }, 0)]);
  plan.push([R.s2mChangeState, { normal: 1 }, R.s2mChangeState.encode({ normal: 1 }, 0)]);

  const report: BringUpReport = { engine: eio.engine, writes: [], skipped: [] };
  eio.log = report.writes;
  try {
    for (const [r, named, v] of plan) {
      const why = inferredWrite(r, Object.keys(named));
      if (why.length > 0 && !allowInferred) {
        report.skipped.push({
          file: r.file,
          path: r.path,
          offset: r.offset,
          reason: `${why.join(', ')} ${why.length > 1 ? 'are' : 'is'} inferred; pass allowInferred to write it`,
        });
        continue;
      }
      eio.write(r, v);
    }
  } finally {
    eio.log = null;
  }
  return { report, maxDescPerPkt: maxDesc };
}
