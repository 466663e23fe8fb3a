/**
 * The M2S packet arbiter of one UDMA engine, as pure code over plain numbers (seed 004 §8).
 *
 * The engine fills the per-queue inputs (`ready`, `qos`, `weight`, `cost`) and the mode from its
 * registers, then asks `select()` for the queue whose head packet goes next. `select()` also does
 * the arbiter's book-keeping for the grant (round-robin pointers, DWRR deficits), so it must be
 * called exactly once per packet served. Nothing here allocates after construction.
 *
 * Model (docs/mock-arbitration.md):
 * - forceRR (M2S_rd.desc_pref_cfg_2.pref_force_rr = 1): ready queues in round robin, levels and
 *   weights ignored (seed §8.2, §8.6).
 * - otherwise strict priority between levels (M2S_Q.dwrr_cfg_2.q_qos; larger is served first, a
 *   decision: the seed never says which way q_qos runs, docs/mock-arbitration.md), and
 *   within the highest ready level either round robin (cfg_sched.en_dwrr = 0) or deficit-weighted
 *   round robin (en_dwrr = 1) with quantum = max(weight, 1) x 2^inc_factor units, a unit being a
 *   byte (pkt_mode_en = 0) or a packet (pkt_mode_en = 1) (seed §8.1).
 */

export const MAX_LEVELS = 256;

export interface ArbiterMode {
  /** desc_pref_cfg_2.pref_force_rr. */
  forceRR: boolean;
  /** cfg_sched.en_dwrr. */
  enDwrr: boolean;
  /** cfg_sched.pkt_mode_en: DWRR counts packets instead of bytes. */
  pktMode: boolean;
  /** cfg_sched.inc_factor: quantum = weight x 2^inc_factor. */
  incFactor: number;
}

export class Arbiter {
  readonly queues: number;
  /** 1 when the queue has a packet that may be served now. */
  readonly ready: Uint8Array;
  /** dwrr_cfg_2.q_qos per queue (0..255). */
  readonly qos: Uint8Array;
  /** dwrr_cfg_3.weight per queue (0..255; 0 counts as 1). */
  readonly weight: Uint16Array;
  /** Bytes of each queue's head packet (valid where ready). */
  readonly cost: Float64Array;
  /** DWRR deficit counter per queue (units of the current mode). */
  readonly deficit: Float64Array;
  /** Round-robin pointer in forceRR mode: the queue served last (-1: none yet). */
  private rrLast = -1;
  /** Per level: the queue served last (round robin) or holding the DWRR turn (-1: none). */
  private readonly levelLast: Int16Array;

  constructor(queues: number) {
    this.queues = queues;
    this.ready = new Uint8Array(queues);
    this.qos = new Uint8Array(queues);
    this.weight = new Uint16Array(queues);
    this.cost = new Float64Array(queues);
    this.deficit = new Float64Array(queues);
    this.levelLast = new Int16Array(MAX_LEVELS).fill(-1);
  }

  /** Back to the reset state: pointers cleared, every deficit set to `initDeficit`. */
  reset(initDeficit = 0): void {
    this.rrLast = -1;
    this.levelLast.fill(-1);
    this.deficit.fill(initDeficit);
  }

  /** Sets every queue's deficit (M2S_dwrr.ctrl_deficit_cnt.init). */
  initDeficits(value: number): void {
    this.deficit.fill(value);
  }

  /** Forgets one queue's arbitration state (q_sw_ctrl.rst_q). */
  resetQueue(q: number, initDeficit = 0): void {
    this.deficit[q] = initDeficit;
    if (this.rrLast === q) this.rrLast = -1;
    for (let l = 0; l < MAX_LEVELS; l++) if (this.levelLast[l] === q) this.levelLast[l] = -1;
  }

  /** The queue to serve next, or -1 when none is ready. Updates pointers and deficits. */
  select(mode: ArbiterMode): number {
    const n = this.queues;
    const ready = this.ready;
    if (mode.forceRR) {
      const q = this.nextReady(this.rrLast, -1);
      if (q >= 0) this.rrLast = q;
      return q;
    }
    // Strict priority between levels: the highest q_qos among ready queues.
    let level = -1;
    for (let q = 0; q < n; q++) {
      if (ready[q] !== 0 && this.qos[q] > level) level = this.qos[q];
    }
    if (level < 0) return -1;
    if (!mode.enDwrr) {
      const q = this.nextReady(this.levelLast[level], level);
      this.levelLast[level] = q;
      return q;
    }
    return this.selectDwrr(level, mode);
  }

  /** First ready queue after `after` in circular order (restricted to `level` when >= 0). */
  private nextReady(after: number, level: number): number {
    const n = this.queues;
    for (let i = 1; i <= n; i++) {
      const q = (after + i + n) % n;
      if (this.ready[q] !== 0 && (level < 0 || this.qos[q] === level)) return q;
    }
    return -1;
  }

  /**
   * Deficit round robin over the ready queues of one level. The queue holding the turn keeps it
   * while its deficit covers its head packet; otherwise the turn passes in circular order and
   * each queue adds its quantum when its turn comes. Instead of looping turn by turn (a 64 KiB
   * packet against a 128-byte quantum needs hundreds of turns), the number of turns each queue
   * needs is computed directly and the earliest one in turn order wins; every queue whose turn
   * came before it is credited the quanta it received on the way. A queue whose turn comes while
   * it is not ready has nothing queued: its deficit drops to 0, as DRR does for an empty queue.
   */
  private selectDwrr(level: number, mode: ArbiterMode): number {
    const n = this.queues;
    const ready = this.ready;
    const qos = this.qos;
    const deficit = this.deficit;
    const unit = 2 ** mode.incFactor;
    const holder = this.levelLast[level];
    if (holder >= 0 && ready[holder] !== 0 && qos[holder] === level) {
      const c = mode.pktMode ? 1 : this.cost[holder];
      if (deficit[holder] >= c) {
        deficit[holder] -= c;
        return holder;
      }
    } else if (holder >= 0 && qos[holder] === level) {
      deficit[holder] = 0;
    }
    // Count the ready queues of this level (the turn order has `m` positions).
    let m = 0;
    for (let q = 0; q < n; q++) if (ready[q] !== 0 && qos[q] === level) m++;
    if (m === 0) return -1;
    // Position of each candidate in turn order: 1..m starting after the holder; the holder (if
    // still a candidate) is last, at position m.
    const start = holder >= 0 ? holder : -1;
    let best = -1;
    let bestTime = Infinity;
    let pos = 0;
    for (let i = 1; i <= n; i++) {
      const q = (start + i + n) % n;
      if (ready[q] === 0 || qos[q] !== level) continue;
      pos++;
      const quantum = Math.max(this.weight[q], 1) * unit;
      const need = (mode.pktMode ? 1 : this.cost[q]) - deficit[q];
      const turns = need <= 0 ? 1 : Math.ceil(need / quantum);
      const time = (turns - 1) * m + pos;
      if (time < bestTime) {
        bestTime = time;
        best = q;
      }
    }
    // Credit every candidate with the quanta of the turns it had up to and including the winner's.
    pos = 0;
    for (let i = 1; i <= n; i++) {
      const q = (start + i + n) % n;
      if (ready[q] === 0 || qos[q] !== level) continue;
      pos++;
      if (bestTime >= pos) {
        const turns = Math.floor((bestTime - pos) / m) + 1;
        deficit[q] += turns * Math.max(this.weight[q], 1) * unit;
      }
    }
    deficit[best] -= mode.pktMode ? 1 : this.cost[best];
    this.levelLast[level] = best;
    return best;
  }
}
