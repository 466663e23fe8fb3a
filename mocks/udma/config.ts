/**
 * The decoded register configuration of one mock UDMA engine, cached until a register write
 * changes it (a doorbell does not): the engine-wide arbitration modes and thresholds and, per
 * queue, its enables, levels, weights, AXI QoS, pauses, ring geometry and completion settings.
 * The pipeline reads these plain numbers instead of decoding register fields per packet.
 * `refresh()` re-decodes everything from the register words; the unit calls it on the first
 * decision after a configuration write.
 */
import type { UdmaCore } from './core.ts';
import { ringBase } from './core.ts';
import type { HalfRefs, RingRefs } from './refs.ts';

/** Descriptor-fetch bursts when AXI_*.desc_rd_cfg_3.max_desc_burst reads 0 (UDMA-FACTS bring-up). */
export const DEFAULT_DESC_BURST = 8;

/**
 * Depth of a queue's descriptor prefetch FIFO when max_desc_per_pkt is 0 (no limit), and its
 * least depth otherwise (the FIFO always holds one packet of max_desc_per_pkt descriptors).
 */
export const DESC_FIFO_DEPTH = 64;

/** Completion FIFO depth of the S2M half (its schema has no comp_fifo_depth): the M2S reset. */
export const S2M_COMP_FIFO_DEPTH = 64;

/** The configuration of one half's queues. */
export class HalfConfig {
  /** M2S: en_pref; S2M: en_stream (the descriptor prefetch may fetch). */
  readonly prefEnabled: Uint8Array;
  /** cfg.AXI_qos per queue. */
  readonly axiQos: Uint8Array;
  /** comp_cfg.en_comp_ring_update, comp_cfg.dis_comp_coal. */
  readonly compEnabled: Uint8Array;
  readonly compNoCoal: Uint8Array;
  /** Ring length (descriptors) and base address. */
  readonly ringLen: Int32Array;
  readonly ringBase: Float64Array;
  /** desc_pref_cfg_2.pref_force_rr, desc_pref_cfg_3 and the descriptor-read burst. */
  prefForceRR = true;
  prefThr = 0;
  minBurstBelow = 1;
  minBurstAbove = 1;
  maxBurst = DEFAULT_DESC_BURST;
  /** *_comp.cfg_1c.force_rr and q_promotion. */
  compForceRR = false;
  compPromotion = true;
  /** Completion FIFO depth per queue (entries), unacknowledged FIFO depth (engine, entries). */
  compFifoDepth = S2M_COMP_FIFO_DEPTH;
  unackFifoDepth = Infinity;
  compFreeMin = 0;
  /** Cycles a coalesced completion may wait (Infinity: until the FIFO fills or the engine idles). */
  coalTimer = Infinity;
  /** AXI_M2S_MLA.high_priority.enable (M2S; 0 on S2M, which has no such register). */
  highPriority = 0;

  constructor(n: number) {
    this.prefEnabled = new Uint8Array(n);
    this.axiQos = new Uint8Array(n);
    this.compEnabled = new Uint8Array(n);
    this.compNoCoal = new Uint8Array(n);
    this.ringLen = new Int32Array(n);
    this.ringBase = new Float64Array(n);
  }

  /** The least burst the prefetch grants a FIFO holding `count` descriptors (desc_pref_cfg_3). */
  minBurst(count: number): number {
    return count < this.prefThr ? this.minBurstBelow : this.minBurstAbove;
  }

  protected refreshHalf(R: HalfRefs, w: Uint32Array): void {
    for (let q = 0; q < R.queues; q++) {
      const r: RingRefs = R.q[q];
      this.prefEnabled[q] = r.enables[0].isSet(w) ? 1 : 0;
      this.axiQos[q] = r.axiQos.read(w);
      this.compEnabled[q] = r.compEnable.isSet(w) ? 1 : 0;
      this.compNoCoal[q] = r.disCompCoal.isSet(w) ? 1 : 0;
      this.ringLen[q] = r.len.read(w);
      this.ringBase[q] = ringBase(r, w);
    }
    this.prefForceRR = R.prefForceRR.isSet(w);
    this.prefThr = R.prefThr.read(w);
    this.minBurstBelow = Math.max(1, R.minBurstBelow.read(w));
    this.minBurstAbove = Math.max(1, R.minBurstAbove.read(w));
    this.maxBurst = R.maxDescBurst.read(w) || DEFAULT_DESC_BURST;
    this.compForceRR = R.compForceRR.isSet(w);
    this.compPromotion = R.compPromotion.isSet(w);
  }
}

/** The M2S half adds the packet scheduler's and the completion FIFOs' configuration. */
export class M2sConfig extends HalfConfig {
  /** en_scheduling per queue (en_pref is prefEnabled). */
  readonly schedEnabled: Uint8Array;
  readonly qQos: Uint8Array;
  readonly weight: Uint16Array;
  readonly strict: Uint8Array;
  readonly maxDeficit: Float64Array;
  /** dwrr_cfg_1.pause or rate_limit_cfg_1.pause. */
  readonly paused: Uint8Array;
  enDwrr = false;
  pktMode = false;
  incFactor = 7;
  weightInc = 0;
  maxDescPerPkt = 0;
  /** The FIFO depth that holds a packet of maxDescPerPkt descriptors. */
  fifoDepth = DESC_FIFO_DEPTH;
  /** Per queue: its rate limiter is armed (rate_limit_cfg_1.en, not masked). */
  readonly rlArmed: Uint8Array;
  /** Some queue's limiter, or the stream limiter, is armed. */
  anyRlArmed = false;
  streamRlArmed = false;

  constructor(n: number) {
    super(n);
    this.schedEnabled = new Uint8Array(n);
    this.qQos = new Uint8Array(n);
    this.weight = new Uint16Array(n);
    this.strict = new Uint8Array(n);
    this.maxDeficit = new Float64Array(n);
    this.paused = new Uint8Array(n);
    this.rlArmed = new Uint8Array(n);
  }

  refresh(c: UdmaCore): void {
    const M = c.M;
    const w = c.mw;
    this.refreshHalf(M, w);
    let any = false;
    for (let q = 0; q < M.queues; q++) {
      const s = M.sched[q];
      this.schedEnabled[q] = M.q[q].enables[1].isSet(w) ? 1 : 0;
      this.qQos[q] = s.qQos.read(w);
      this.weight[q] = s.weight.read(w);
      this.strict[q] = s.strict.isSet(w) ? 1 : 0;
      // 0 (the reset) is read as no limit: a zero cap would starve the queue.
      this.maxDeficit[q] = s.maxDeficit.read(w) || Infinity;
      this.paused[q] = s.dwrrPause.isSet(w) ? 1 : 0;
      this.rlArmed[q] = s.rlEn.isSet(w) && !s.rlMaskInternal.isSet(w) ? 1 : 0;
      any ||= this.rlArmed[q] !== 0;
    }
    this.streamRlArmed = M.streamRlEn.isSet(w) && !M.streamRlMaskInternal.isSet(w);
    this.anyRlArmed = any || this.streamRlArmed;
    this.enDwrr = M.enDwrr.isSet(w);
    this.pktMode = M.pktModeEn.isSet(w);
    this.incFactor = M.incFactor.read(w);
    this.weightInc = M.weightInc.read(w);
    this.maxDescPerPkt = M.maxDescPerPkt.read(w);
    this.fifoDepth = Math.max(DESC_FIFO_DEPTH, this.maxDescPerPkt + 1);
    this.highPriority = M.highPriority.read(w);
    this.compFifoDepth = Math.max(1, M.compFifoDepth.read(w));
    this.unackFifoDepth = Math.max(1, M.unackFifoDepth.read(w));
    this.compFreeMin = M.compFreeMin.read(w);
    this.coalTimer = M.coalTimer.read(w) || Infinity;
  }
}

/** The S2M half: prefetch and completion settings only (no scheduler of its own). */
export class S2mConfig extends HalfConfig {
  refresh(c: UdmaCore): void {
    this.refreshHalf(c.S, c.sw);
  }
}
