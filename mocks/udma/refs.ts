/**
 * The registers and fields the mock UDMA engine reads and updates, resolved once per schema model
 * to word indices and bit positions (mocks/field-ref.ts). Only names appear here; every offset
 * and bit position comes from the loaded udma_m2s / udma_s2m models.
 */
import type { RegFileModel } from '../../csr/schema/model.ts';
import { getBlock } from '../../csr/schema/model.ts';
import { enumValue, fieldRef, fieldRefs, registerOffset, type FieldRef } from '../field-ref.ts';

/** Per-queue ring registers, common to both halves (names differ: tdr* on M2S, rdr* on S2M). */
export interface RingRefs {
  /** Queue enable bits that must all be set (M2S: en_pref, en_scheduling; S2M: en_stream). */
  enables: FieldRef[];
  /** Queue status word (whole word; the mock's encoding, see MOCK_QUEUE_STATUS). */
  status: number;
  baseLo: FieldRef;
  baseHi: FieldRef;
  len: FieldRef;
  headOffset: FieldRef;
  headRingId: FieldRef;
  /** The doorbell register (INC). */
  doorbell: number;
  /** Its value field. */
  doorbellVal: FieldRef;
  tailOffset: FieldRef;
  tailRingId: FieldRef;
  /** Current descriptor pointer (whole word). */
  cp: number;
  compLo: FieldRef;
  compHi: FieldRef;
  compHeadOffset: FieldRef;
  compHeadRingId: FieldRef;
  compEnable: FieldRef;
  swCtrl: number;
  rstQ: FieldRef;
  /** cfg.AXI_qos[30:28]: the queue's AXI QoS (prefetch and completion arbiters). */
  axiQos: FieldRef;
  /** comp_cfg.dis_comp_coal: completion entries are written at once, not coalesced. */
  disCompCoal: FieldRef;
}

/** Per-queue M2S scheduling registers. */
export interface M2SQueueSchedRefs {
  qQos: FieldRef;
  weight: FieldRef;
  dwrrPause: FieldRef;
  strict: FieldRef;
  maxDeficit: FieldRef;
  rlEn: FieldRef;
  rlPause: FieldRef;
  rlMaxBurst: FieldRef;
  rlMaskInternal: FieldRef;
}

export interface EngineStateValues {
  idle: number;
  normal: number;
  abort: number;
}

/** Registers of one half (M2S or S2M) the engine uses. */
export interface HalfRefs {
  /** 'M2S' or 'S2M': the block and queue-bundle name stem. */
  name: 'M2S' | 'S2M';
  queues: number;
  state: number;
  stateFields: FieldRef[];
  stateValues: EngineStateValues;
  changeState: number;
  csNormal: FieldRef;
  csDis: FieldRef;
  csAbort: FieldRef;
  errMaskRingId: FieldRef;
  streamDisable: FieldRef;
  /** M2S_rd / S2M_rd.desc_pref_cfg_2.pref_force_rr. */
  prefForceRR: FieldRef;
  /** M2S_rd / S2M_rd.desc_pref_cfg_3. */
  prefThr: FieldRef;
  minBurstBelow: FieldRef;
  minBurstAbove: FieldRef;
  /** AXI_M2S / AXI_S2M.desc_rd_cfg_3.max_desc_burst. */
  maxDescBurst: FieldRef;
  /** M2S_comp / S2M_comp.cfg_1c. */
  compForceRR: FieldRef;
  compPromotion: FieldRef;
  q: RingRefs[];
}

export interface M2SRefs extends HalfRefs {
  encode64k: FieldRef;
  maxDescPerPkt: FieldRef;
  forceRR: FieldRef;
  weightInc: FieldRef;
  /** AXI_M2S_MLA.high_priority.enable: one bit per queue. */
  highPriority: FieldRef;
  compFifoDepth: FieldRef;
  unackFifoDepth: FieldRef;
  compFreeMin: FieldRef;
  coalTimer: FieldRef;
  enDwrr: FieldRef;
  pktModeEn: FieldRef;
  incFactor: FieldRef;
  deficitInit: FieldRef;
  shortCycle: FieldRef;
  rlPktMode: FieldRef;
  streamRlEn: FieldRef;
  streamRlPause: FieldRef;
  streamRlMaxBurst: FieldRef;
  streamRlMaskInternal: FieldRef;
  indirectQ: FieldRef;
  selRateLimit: FieldRef;
  selDwrr: FieldRef;
  sched: M2SQueueSchedRefs[];
}

function half(model: RegFileModel, name: 'M2S' | 'S2M'): HalfRefs {
  const qb = `${name}_Q`;
  const queues = getBlock(model, qb).arraySize;
  const p = name === 'M2S' ? 't' : 'r';
  const q: RingRefs[] = [];
  for (let i = 0; i < queues; i++) {
    const Q = `${qb}[${i}]`;
    q.push({
      enables:
        name === 'M2S'
          ? [fieldRef(model, `${Q}.cfg.en_pref`), fieldRef(model, `${Q}.cfg.en_scheduling`)]
          : [fieldRef(model, `${Q}.cfg.en_stream`)],
      status: registerOffset(model, `${Q}.status`),
      baseLo: fieldRef(model, `${Q}.${p}drbp_low.addr`),
      baseHi: fieldRef(model, `${Q}.${p}drbp_high.addr`),
      len: fieldRef(model, `${Q}.${p}drl.len`),
      headOffset: fieldRef(model, `${Q}.${p}drhp.offset`),
      headRingId: fieldRef(model, `${Q}.${p}drhp.ring_id`),
      doorbell: registerOffset(model, `${Q}.${p}drtp_inc`),
      doorbellVal: fieldRef(model, `${Q}.${p}drtp_inc.val`),
      tailOffset: fieldRef(model, `${Q}.${p}drtp.offset`),
      tailRingId: fieldRef(model, `${Q}.${p}drtp.ring_id`),
      cp: registerOffset(model, `${Q}.${p}dcp`),
      compLo: fieldRef(model, `${Q}.${p}crbp_low.addr`),
      compHi: fieldRef(model, `${Q}.${p}crbp_high.addr`),
      compHeadOffset: fieldRef(model, `${Q}.${p}crhp.offset`),
      compHeadRingId: fieldRef(model, `${Q}.${p}crhp.ring_id`),
      compEnable: fieldRef(model, `${Q}.comp_cfg.en_comp_ring_update`),
      swCtrl: registerOffset(model, `${Q}.q_sw_ctrl`),
      rstQ: fieldRef(model, `${Q}.q_sw_ctrl.rst_q`),
      axiQos: fieldRef(model, `${Q}.cfg.AXI_qos`),
      disCompCoal: fieldRef(model, `${Q}.comp_cfg.dis_comp_coal`),
    });
  }
  const statePath = `${name}.state`;
  const stateFields = fieldRefs(model, statePath);
  const first = stateFields[0].path;
  return {
    name,
    queues,
    state: registerOffset(model, statePath),
    stateFields,
    stateValues: {
      idle: enumValue(model, first, 'idle', 0),
      normal: enumValue(model, first, 'normal', 1),
      abort: enumValue(model, first, 'abort', 2),
    },
    changeState: registerOffset(model, `${name}.change_state`),
    csNormal: fieldRef(model, `${name}.change_state.normal`),
    csDis: fieldRef(model, `${name}.change_state.dis`),
    csAbort: fieldRef(model, `${name}.change_state.abort`),
    errMaskRingId: fieldRef(model, `${name}.err_log_mask.pref_ring_id`),
    streamDisable: fieldRef(model, `${name}.stream_cfg.disable`),
    prefForceRR: fieldRef(model, `${name}_rd.desc_pref_cfg_2.pref_force_rr`),
    prefThr: fieldRef(model, `${name}_rd.desc_pref_cfg_3.pref_thr`),
    minBurstBelow: fieldRef(model, `${name}_rd.desc_pref_cfg_3.min_burst_below_thr`),
    minBurstAbove: fieldRef(model, `${name}_rd.desc_pref_cfg_3.min_burst_above_thr`),
    maxDescBurst: fieldRef(model, `AXI_${name}.desc_rd_cfg_3.max_desc_burst`),
    compForceRR: fieldRef(model, `${name}_comp.cfg_1c.force_rr`),
    compPromotion: fieldRef(model, `${name}_comp.cfg_1c.q_promotion`),
    q,
  };
}

const m2sCache = new WeakMap<RegFileModel, M2SRefs>();
const s2mCache = new WeakMap<RegFileModel, HalfRefs>();

export function m2sRefs(model: RegFileModel): M2SRefs {
  const hit = m2sCache.get(model);
  if (hit) return hit;
  const h = half(model, 'M2S');
  const sched: M2SQueueSchedRefs[] = [];
  for (let i = 0; i < h.queues; i++) {
    const Q = `M2S_Q[${i}]`;
    sched.push({
      qQos: fieldRef(model, `${Q}.dwrr_cfg_2.q_qos`),
      weight: fieldRef(model, `${Q}.dwrr_cfg_3.weight`),
      dwrrPause: fieldRef(model, `${Q}.dwrr_cfg_1.pause`),
      strict: fieldRef(model, `${Q}.dwrr_cfg_1.strict`),
      maxDeficit: fieldRef(model, `${Q}.dwrr_cfg_1.max_deficit_cnt_size`),
      rlEn: fieldRef(model, `${Q}.rate_limit_cfg_1.en`),
      rlPause: fieldRef(model, `${Q}.rate_limit_cfg_1.pause`),
      rlMaxBurst: fieldRef(model, `${Q}.rate_limit_cfg_1.max_burst_size`),
      rlMaskInternal: fieldRef(model, `${Q}.rate_limit_mask.internal_rate_limiter`),
    });
  }
  const r: M2SRefs = {
    ...h,
    encode64k: fieldRef(model, 'M2S.cfg_len.encode_64k'),
    maxDescPerPkt: fieldRef(model, 'M2S_rd.desc_pref_cfg_2.max_desc_per_pkt'),
    forceRR: fieldRef(model, 'M2S_rd.desc_pref_cfg_2.pref_force_rr'),
    weightInc: fieldRef(model, 'M2S_dwrr.cfg_sched.weight_inc'),
    highPriority: fieldRef(model, 'AXI_M2S_MLA.high_priority.enable'),
    compFifoDepth: fieldRef(model, 'M2S_comp.cfg_1c.comp_fifo_depth'),
    unackFifoDepth: fieldRef(model, 'M2S_comp.cfg_1c.unack_fifo_depth'),
    compFreeMin: fieldRef(model, 'M2S_comp.cfg_1c.q_free_min'),
    coalTimer: fieldRef(model, 'M2S_comp.cfg_coal.timer'),
    enDwrr: fieldRef(model, 'M2S_dwrr.cfg_sched.en_dwrr'),
    pktModeEn: fieldRef(model, 'M2S_dwrr.cfg_sched.pkt_mode_en'),
    incFactor: fieldRef(model, 'M2S_dwrr.cfg_sched.inc_factor'),
    deficitInit: fieldRef(model, 'M2S_dwrr.ctrl_deficit_cnt.init'),
    shortCycle: fieldRef(model, 'M2S_rate_limiter.gen_cfg.short_cycle_size'),
    rlPktMode: fieldRef(model, 'M2S_rate_limiter.gen_cfg.pkt_mode_en'),
    streamRlEn: fieldRef(model, 'M2S_stream_rate_limiter.cfg_1s.en'),
    streamRlPause: fieldRef(model, 'M2S_stream_rate_limiter.cfg_1s.pause'),
    streamRlMaxBurst: fieldRef(model, 'M2S_stream_rate_limiter.cfg_1s.max_burst_size'),
    streamRlMaskInternal: fieldRef(model, 'M2S_stream_rate_limiter.mask.internal_rate_limiter'),
    indirectQ: fieldRef(model, 'M2S.indirect_ctrl.q_num'),
    selRateLimit: fieldRef(model, 'M2S.sel_rate_limit_status.token_cnt'),
    selDwrr: fieldRef(model, 'M2S.sel_dwrr_status.deficit_cnt'),
    sched,
  };
  m2sCache.set(model, r);
  return r;
}

export function s2mRefs(model: RegFileModel): HalfRefs {
  const hit = s2mCache.get(model);
  if (hit) return hit;
  const r = half(model, 'S2M');
  s2mCache.set(model, r);
  return r;
}
