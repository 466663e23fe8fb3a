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
 *   byte (pkt_mode_en = 0) or a packet (pkt_mode_en = 1) (seed §8.1);
 * - with DWRR, a queue whose dwrr_cfg_1.strict bit is set bypasses DWRR: while one is ready at
 *   the top level, the strict queues of that level are served (round robin among them) and no
 *   deficit is touched;
 * - dwrr_cfg_1.max_deficit_cnt_size caps a queue's deficit ("the maximum number of accumulated
 *   bytes in the deficit counter", the public UDMA driver); a queue whose deficit reaches the cap
 *   may send its head packet even when the packet costs more (its deficit then drops to 0);
 * - cfg_sched.weight_inc is the exponential increment between DWRR iterations: the k-th
 *   successive turn a queue is credited without sending adds quantum x 2^(weight_inc x k)
 *   (k = 0 for the first), so a queue with a large head packet needs fewer turns; 0 is textbook
 *   DRR. The readings of strict, the cap and weight_inc are the mock's (docs/mock-arbitration.md).
 */

export const MAX_LEVELS = 256;

/** The first set bit of `mask` after bit `after`, in circular order (-1: mask is 0). */
export function nextBit(mask: number, after: number): number {
  if (mask === 0) return -1;
  const shift = after + 1;
  const hi = shift >= 32 ? 0 : (mask >>> shift) << shift;
  const m = hi !== 0 ? hi : mask;
  return 31 - Math.clz32(m & -m);
}

export interface ArbiterMode {
  /** desc_pref_cfg_2.pref_force_rr. */
  forceRR: boolean;
  /** cfg_sched.en_dwrr. */
  enDwrr: boolean;
  /** cfg_sched.pkt_mode_en: DWRR counts packets instead of bytes. */
  pktMode: boolean;
  /** cfg_sched.inc_factor: quantum = weight x 2^inc_factor. */
  incFactor: number;
  /** cfg_sched.weight_inc: growth of the quantum between successive turns (0: none). */
  weightInc?: number;
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
  /** dwrr_cfg_1.strict per queue: bypasses DWRR. */
  readonly strict: Uint8Array;
  /** dwrr_cfg_1.max_deficit_cnt_size per queue (Infinity: no cap). */
  readonly maxDeficit: Float64Array;
  /** Turns credited to each queue since it last sent (the weight_inc exponent). */
  readonly rounds: Float64Array;
  /** Per level: the strict queue served last (-1: none). */
  private readonly strictLast: Int16Array;
  /** Round-robin pointer in forceRR mode: the queue served last (-1: none yet). */
  private rrLast = -1;
  /**
   * `select` over a mask decides by `selectAlone` when the highest ready level holds one ready
   * queue; false sends every decision through the general scans. Either way the decisions and
   * the state they leave are the same (test/mocks/udma/arbiter.test.ts compares the two).
   */
  alone = true;
  /** Scratch of one `select`: the ready queues, ascending, and how many. */
  private readonly list: Int16Array;
  private nReady = 0;
  /** The DWRR mode's powers of two (powersOf): for inc_factor, weight_inc. */
  private incFactor = NaN;
  private weightInc = NaN;
  private unit = 1;
  private g = 1;

  /** The round-robin pointer of forceRR mode: the queue `select` granted last (-1: none yet). */
  get lastRoundRobin(): number {
    return this.rrLast;
  }
  /** Per level: the queue served last (round robin) or holding the DWRR turn (-1: none). */
  private readonly levelLast: Int16Array;

  constructor(queues: number) {
    this.queues = queues;
    this.ready = new Uint8Array(queues);
    this.qos = new Uint8Array(queues);
    this.weight = new Uint16Array(queues);
    this.cost = new Float64Array(queues);
    this.deficit = new Float64Array(queues);
    this.strict = new Uint8Array(queues);
    this.maxDeficit = new Float64Array(queues).fill(Infinity);
    this.rounds = new Float64Array(queues);
    this.levelLast = new Int16Array(MAX_LEVELS).fill(-1);
    this.strictLast = new Int16Array(MAX_LEVELS).fill(-1);
    this.list = new Int16Array(queues);
  }

  /** Back to the reset state: pointers cleared, every deficit set to `initDeficit`. */
  reset(initDeficit = 0): void {
    this.rrLast = -1;
    this.levelLast.fill(-1);
    this.strictLast.fill(-1);
    this.deficit.fill(initDeficit);
    this.rounds.fill(0);
  }

  /** Sets every queue's deficit (M2S_dwrr.ctrl_deficit_cnt.init). */
  initDeficits(value: number): void {
    this.deficit.fill(value);
  }

  /** Forgets one queue's arbitration state (q_sw_ctrl.rst_q). */
  resetQueue(q: number, initDeficit = 0): void {
    this.deficit[q] = initDeficit;
    this.rounds[q] = 0;
    if (this.rrLast === q) this.rrLast = -1;
    for (let l = 0; l < MAX_LEVELS; l++) {
      if (this.levelLast[l] === q) this.levelLast[l] = -1;
      if (this.strictLast[l] === q) this.strictLast[l] = -1;
    }
  }

  /**
   * The queue to serve next, or -1 when none is ready. Updates pointers and deficits. `mask`, when
   * given, is `ready` as bits (queues < 32): the scans then cost O(ready), not O(queues).
   */
  select(mode: ArbiterMode, mask = -1): number {
    const byMask = mask >= 0 && this.queues <= 31;
    if (mode.forceRR && byMask) return this.selectRoundRobin(mask);
    if (byMask && mask !== 0 && this.alone) {
      // (not forceRR: that returned above) The ready list, its highest level, and whether that
      // level holds one ready queue.
      const qos = this.qos;
      const list = this.list;
      let k = 0;
      let level = -1;
      let one = -1;
      for (let b = mask; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        list[k++] = q;
        const l = qos[q];
        if (l > level) {
          level = l;
          one = q;
        } else if (l === level) one = -1;
      }
      if (one >= 0) return this.selectAlone(one, level, mode);
      this.nReady = k;
      return this.selectAt(level, mode);
    }
    return this.selectScan(mode, mask, byMask);
  }

  /**
   * select() by the general scans: the ready list (from `mask` when `byMask`, else from `ready`),
   * its highest level, then selectAt. (Apart from select(), whose look over a mask stays a short
   * function: half the time a call took when both were one.)
   */
  private selectScan(mode: ArbiterMode, mask: number, byMask: boolean): number {
    const n = this.queues;
    // The ready queues, ascending.
    const list = this.list;
    let k = 0;
    if (byMask) {
      for (let b = mask; b !== 0; b &= b - 1) list[k++] = 31 - Math.clz32(b & -b);
    } else {
      const ready = this.ready;
      for (let q = 0; q < n; q++) if (ready[q] !== 0) list[k++] = q;
    }
    this.nReady = k;
    if (mode.forceRR) {
      const q = this.nextReady(this.rrLast, -1, false);
      if (q >= 0) this.rrLast = q;
      return q;
    }
    // Strict priority between levels: the highest q_qos among ready queues.
    let level = -1;
    for (let i = 0; i < k; i++) {
      const l = this.qos[list[i]];
      if (l > level) level = l;
    }
    if (level < 0) return -1;
    return this.selectAt(level, mode);
  }

  /**
   * The queue to serve among the ready list's queues of `level`, its highest level (not forceRR):
   * round robin, or the level's strict queues before DWRR.
   */
  private selectAt(level: number, mode: ArbiterMode): number {
    if (!mode.enDwrr) {
      const q = this.nextReady(this.levelLast[level], level, false);
      this.levelLast[level] = q;
      return q;
    }
    // Strict queues of the level bypass DWRR.
    const s = this.nextReady(this.strictLast[level], level, true);
    if (s >= 0) {
      this.strictLast[level] = s;
      return s;
    }
    return this.selectDwrr(level, mode);
  }

  /**
   * select() when queue q is the one ready queue of the highest ready level (not forceRR): the
   * general scans' steps for a level of one candidate. Round robin picks q; a strict q is served
   * as the level's strict queue; DWRR keeps the holder's turn while its deficit covers its head
   * packet, else q is the one position of the turn order, so it wins after the turns it needs
   * and is credited exactly those.
   */
  private selectAlone(q: number, level: number, mode: ArbiterMode): number {
    if (!mode.enDwrr) {
      this.levelLast[level] = q;
      return q;
    }
    if (this.strict[q] !== 0) {
      this.strictLast[level] = q;
      return q;
    }
    const kept = this.holderTurn(level, mode);
    if (kept >= 0) return kept;
    const deficit = this.deficit;
    const cap = this.maxDeficit;
    this.powersOf(mode);
    const g = this.g;
    const quantum = Math.max(this.weight[q], 1) * this.unit;
    const need = Math.min(mode.pktMode ? 1 : this.cost[q], cap[q]) - deficit[q];
    const turns = this.turnsFor(q, need, quantum, g);
    deficit[q] = Math.min(cap[q], deficit[q] + this.creditFor(q, turns, quantum, g));
    deficit[q] = Math.max(0, deficit[q] - (mode.pktMode ? 1 : this.cost[q]));
    this.rounds[q] = 0; // (the winner's turns counted, then cleared: it sent)
    this.levelLast[level] = q;
    return q;
  }

  /** select() in forceRR mode over the ready queues of `mask` (queues < 32). */
  selectRoundRobin(mask: number): number {
    const q = nextBit(mask, this.rrLast);
    if (q >= 0) this.rrLast = q;
    return q;
  }

  /**
   * Where circular order after queue `after` starts in the ready list: the index of the first
   * ready queue above it (0 when there is none: the order wraps).
   */
  private firstAfter(after: number): number {
    const list = this.list;
    const k = this.nReady;
    let i = 0;
    while (i < k && list[i] <= after) i++;
    return i === k ? 0 : i;
  }

  /**
   * First ready queue after `after` in circular order (restricted to `level` when >= 0, and to
   * the strict queues when `strictOnly`).
   */
  private nextReady(after: number, level: number, strictOnly: boolean): number {
    const list = this.list;
    const k = this.nReady;
    const start = this.firstAfter(after);
    for (let j = 0; j < k; j++) {
      const q = list[start + j < k ? start + j : start + j - k];
      if (level >= 0 && this.qos[q] !== level) continue;
      if (strictOnly && this.strict[q] === 0) continue;
      return q;
    }
    return -1;
  }

  /** Turns queue q needs to gather `need` more units, its quanta growing by `g` per turn. */
  private turnsFor(q: number, need: number, quantum: number, g: number): number {
    if (need <= 0) return 1;
    if (g === 1) return Math.ceil(need / quantum);
    let t = 0;
    let got = 0;
    let next = quantum * this.growth(q, g);
    while (got < need) {
      got += next;
      next *= g;
      t++;
    }
    return t;
  }

  /** Units `turns` turns credit queue q (growing by `g` per turn from its current round). */
  private creditFor(q: number, turns: number, quantum: number, g: number): number {
    if (g === 1) return turns * quantum;
    return (quantum * this.growth(q, g) * (g ** turns - 1)) / (g - 1);
  }

  /** g^rounds[q]: how much queue q's quantum has grown (1 on its first turn, x^0 being 1). */
  private growth(q: number, g: number): number {
    const r = this.rounds[q];
    return r === 0 ? 1 : g ** r;
  }

  /** 2^inc_factor and 2^weight_inc of `mode` (computed again only when they change). */
  private powersOf(mode: ArbiterMode): void {
    const w = mode.weightInc ?? 0;
    if (mode.incFactor === this.incFactor && w === this.weightInc) return;
    this.incFactor = mode.incFactor;
    this.weightInc = w;
    this.unit = 2 ** mode.incFactor;
    this.g = 2 ** w;
  }

  /**
   * The DWRR turn's holder at `level`, when it keeps the turn: it is ready and its deficit covers
   * its head packet (which it then sends: the deficit pays, its turns count again from 0). Else
   * -1; a holder of the level that is not ready has nothing queued and its deficit drops to 0.
   */
  private holderTurn(level: number, mode: ArbiterMode): number {
    const deficit = this.deficit;
    const holder = this.levelLast[level];
    if (holder >= 0 && this.ready[holder] !== 0 && this.qos[holder] === level) {
      const c = mode.pktMode ? 1 : this.cost[holder];
      if (deficit[holder] >= Math.min(c, this.maxDeficit[holder])) {
        deficit[holder] = Math.max(0, deficit[holder] - c);
        this.rounds[holder] = 0;
        return holder;
      }
    } else if (holder >= 0 && this.qos[holder] === level) {
      deficit[holder] = 0;
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
    const qos = this.qos;
    const deficit = this.deficit;
    const cap = this.maxDeficit;
    const holder = this.levelLast[level];
    const kept = this.holderTurn(level, mode);
    if (kept >= 0) return kept;
    this.powersOf(mode);
    const unit = this.unit;
    const g = this.g;
    // Count the ready queues of this level (the turn order has `m` positions).
    const list = this.list;
    const k = this.nReady;
    let m = 0;
    for (let i = 0; i < k; i++) if (qos[list[i]] === level) m++;
    // (strict queues were served above: none is ready here)
    if (m === 0) return -1;
    // Position of each candidate in turn order: 1..m starting after the holder; the holder (if
    // still a candidate) is last, at position m.
    const first = this.firstAfter(holder);
    let best = -1;
    let bestTime = Infinity;
    let pos = 0;
    for (let j = 0; j < k; j++) {
      const q = list[first + j < k ? first + j : first + j - k];
      if (qos[q] !== level) continue;
      pos++;
      const quantum = Math.max(this.weight[q], 1) * unit;
      const need = Math.min(mode.pktMode ? 1 : this.cost[q], cap[q]) - deficit[q];
      const turns = this.turnsFor(q, need, quantum, g);
      const time = (turns - 1) * m + pos;
      if (time < bestTime) {
        bestTime = time;
        best = q;
      }
    }
    // Credit every candidate with the quanta of the turns it had up to and including the winner's.
    pos = 0;
    for (let j = 0; j < k; j++) {
      const q = list[first + j < k ? first + j : first + j - k];
      if (qos[q] !== level) continue;
      pos++;
      if (bestTime >= pos) {
        const turns = Math.floor((bestTime - pos) / m) + 1;
        const quantum = Math.max(this.weight[q], 1) * unit;
        deficit[q] = Math.min(cap[q], deficit[q] + this.creditFor(q, turns, quantum, g));
        this.rounds[q] += turns;
      }
    }
    deficit[best] = Math.max(0, deficit[best] - (mode.pktMode ? 1 : this.cost[best]));
    this.rounds[best] = 0;
    this.levelLast[level] = best;
    return best;
  }
}
