/**
 * The arbitration pipeline of one mock UDMA engine (seed 004 §8; docs/mock-arbitration.md), one
 * decision per `step()`:
 *
 * 1. prefetch: the M2S and S2M prefetch arbiters grant descriptor bursts in their order while a
 *    queue qualifies (prefetch.ts): the prefetch runs ahead of the scheduler, bounded by the FIFO
 *    depth and the burst rules; every grant is logged (`prefetches`);
 * 2. candidates: a queue whose head packet is complete in its TX FIFO, whose RX FIFO holds buffers
 *    for all its bytes, enabled, not stalled, not paused, its rate-limit bucket (and the stream
 *    bucket) holding a token (rate-limit-stage.ts);
 * 3. the packet scheduler (arbiter.ts) picks one; the packet walk (walk.ts) moves it; its
 *    descriptors' completion entries go to the completion arbiter (completion.ts);
 * 4. when nothing can move: waiting completion entries are written; if every candidate waits for
 *    tokens, the clock jumps to the window in which the first bucket refills.
 *
 * Every grant goes to the service trace with the stage that decided it: `scheduler` when it chose
 * among several candidates, else `rate-limiter` when other queues with a complete packet were
 * held back by their buckets or pauses, else `prefetch` when other queues had descriptors handed
 * over that were not fetched yet, else `scheduler` (the only queue with work).
 *
 * Work is kept O(ready): bit masks of the queues with work and of the candidates, a per-queue
 * candidate state recomputed only for queues something happened to, and the register
 * configuration decoded once per configuration write (config.ts). Runs of single-descriptor
 * packets go through the streaming path (stream.ts), which shares this state and takes the same
 * decisions without re-deriving them.
 */
import { Arbiter, type ArbiterMode } from './arbiter.ts';
import { CompletionLog, CompletionUnit, type CompletionSide } from './completion.ts';
import { M2sConfig, S2mConfig, type HalfConfig } from './config.ts';
import type { HalfState, UdmaCore } from './core.ts';
import { stall } from './faults.ts';
import {
  DescFifo,
  FETCH_OK,
  PrefetchArbiter,
  fetchBurst,
  raiseBlocked,
  unfetched,
} from './prefetch.ts';
import type { MockRegisterFile } from '../register-file.ts';
import { RateLimitStage } from './rate-limit-stage.ts';
import type { StreamScratch } from './stream.ts';
import { servePacket } from './walk.ts';

/** The stages of the pipeline, by their index in TRACE_STAGES (service-trace.ts). */
export const STAGE_PREFETCH = 0;
export const STAGE_SCHEDULER = 1;
export const STAGE_COMPLETION = 2;
export const STAGE_RATE_LIMITER = 3;

// Why a queue with work is not a candidate (per queue, `why`).
export const W_CANDIDATE = 0;
const W_PREFETCH = 1;
const W_HELD = 2;
export const W_OTHER = 3;

export class ArbitrationPipeline {
  readonly arbiter: Arbiter;
  readonly limits: RateLimitStage;
  readonly m2sCfg: M2sConfig;
  readonly s2mCfg: S2mConfig;
  readonly txFifo: DescFifo;
  readonly rxFifo: DescFifo;
  readonly completions: CompletionLog;
  /** Every prefetch grant: half, queue, first ring slot, cycle, descriptors. */
  readonly prefetches: CompletionLog;
  readonly m2sComp: CompletionUnit;
  readonly s2mComp: CompletionUnit;
  /** A configuration register was written since the configuration was decoded. */
  configDirty = true;
  // The decision state below is shared with the streaming path (stream.ts), which takes the same
  // decisions for runs of single-descriptor packets.
  readonly c: UdmaCore;
  readonly txPref = new PrefetchArbiter();
  readonly rxPref = new PrefetchArbiter();
  private readonly m2sSide: CompletionSide;
  private readonly s2mSide: CompletionSide;
  readonly mode: ArbiterMode = {
    forceRR: true,
    enDwrr: false,
    pktMode: false,
    incFactor: 7,
    weightInc: 0,
  };
  /** Queues with TX descriptors handed over and not consumed. */
  work = 0;
  /** Queues whose candidate state must be recomputed. */
  stale = -1;
  /** Per half: queues the prefetch arbiter must look at (something changed for them). */
  txCheck = -1;
  rxCheck = -1;
  /** Scheduler candidates (before the rate limiters). */
  cand = 0;
  readonly why: Uint8Array;
  /** Head packet of each queue (valid while `why` is W_CANDIDATE or W_HELD): descriptors, bytes. */
  readonly headDescs: Int32Array;
  readonly headBytes: Float64Array;
  /** Scratch: the burst each queue may fetch (burstFor), per prefetch pass. */
  private readonly burst: Int32Array;
  /** Bits set in the arbiter's `ready` array by the last decision. */
  private readyBits = 0;
  /** The scheduler picks by the ready mask alone (round robin): its per-queue inputs unused. */
  maskOnly = false;
  /** The queue the last packet was served from (-1: none yet, or it faulted). */
  lastServed = -1;
  /** Packets served by the streaming path (stream.ts), and its scratch. */
  streamed = 0;
  streamScratch: StreamScratch | null = null;
  private readonly all: number;

  constructor(c: UdmaCore, m2s: MockRegisterFile) {
    this.c = c;
    const n = c.queues;
    this.all = n >= 32 ? -1 : (1 << n) - 1;
    this.arbiter = new Arbiter(n);
    this.limits = new RateLimitStage(c, m2s);
    this.m2sCfg = new M2sConfig(n);
    this.s2mCfg = new S2mConfig(c.S.queues);
    this.txFifo = new DescFifo('m2s', n);
    this.rxFifo = new DescFifo('s2m', c.S.queues);
    this.completions = new CompletionLog(c.trace);
    this.prefetches = new CompletionLog(c.trace);
    this.m2sComp = new CompletionUnit('m2s', n);
    this.s2mComp = new CompletionUnit('s2m', c.S.queues);
    this.m2sSide = {
      unit: this.m2sComp,
      cfg: this.m2sCfg,
      log: this.completions,
      st: c.tx,
      refs: c.M,
      words: c.mw,
    };
    this.s2mSide = {
      unit: this.s2mComp,
      cfg: this.s2mCfg,
      log: this.completions,
      st: c.rx,
      refs: c.S,
      words: c.sw,
    };
    this.why = new Uint8Array(n);
    this.headDescs = new Int32Array(n);
    this.headBytes = new Float64Array(n);
    this.burst = new Int32Array(Math.max(n, c.S.queues));
  }

  /** A doorbell on queue q (either half): its state is looked at again. */
  touched(q: number): void {
    this.stale |= 1 << q;
    this.txCheck |= 1 << q;
    this.rxCheck |= 1 << q;
    // A doorbell makes the engine look at the ring again (a rewritten descriptor is refetched).
    this.txFifo.blocked[q] = FETCH_OK;
    if (q < this.rxFifo.blocked.length) this.rxFifo.blocked[q] = FETCH_OK;
    const tx = this.c.tx;
    if (tx.tailOff[q] !== tx.headOff[q] || tx.tailRid[q] !== tx.headRid[q]) this.work |= 1 << q;
  }

  /** q_sw_ctrl.rst_q of queue q on one half: its FIFOs start again at the reset head. */
  resetQueue(half: 'm2s' | 's2m', q: number): void {
    const st = half === 'm2s' ? this.c.tx : this.c.rx;
    (half === 'm2s' ? this.txFifo : this.rxFifo).reset(q, st.headOff[q], st.headRid[q]);
    (half === 'm2s' ? this.m2sComp : this.s2mComp).reset(q);
    (half === 'm2s' ? this.txPref : this.rxPref).forget(q);
    if (half === 'm2s') this.work &= ~(1 << q);
    this.cand &= ~(1 << q);
    this.stale |= 1 << q;
    this.txCheck |= 1 << q;
    this.rxCheck |= 1 << q;
  }

  /** The engine aborted or changed state: every queue is looked at again. */
  invalidate(): void {
    this.stale = -1;
    this.txCheck = -1;
    this.rxCheck = -1;
  }

  private refreshConfig(): void {
    const c = this.c;
    this.m2sCfg.refresh(c);
    this.s2mCfg.refresh(c);
    const a = this.arbiter;
    const m = this.m2sCfg;
    for (let q = 0; q < c.queues; q++) {
      a.qos[q] = m.qQos[q];
      a.weight[q] = m.weight[q];
      a.strict[q] = m.strict[q];
      a.maxDeficit[q] = m.maxDeficit[q];
    }
    const mode = this.mode;
    mode.forceRR = m.prefForceRR;
    mode.enDwrr = m.enDwrr;
    mode.pktMode = m.pktMode;
    mode.incFactor = m.incFactor;
    mode.weightInc = m.weightInc;
    this.maskOnly = mode.forceRR && c.queues <= 31;
    if (this.maskOnly) {
      for (let b = this.readyBits; b !== 0; b &= b - 1) a.ready[31 - Math.clz32(b & -b)] = 0;
      this.readyBits = 0;
    }
    this.configDirty = false;
    this.invalidate();
  }

  /**
   * How many descriptors queue q of a half may fetch now: n (a burst of at least the minimum),
   * -n (a partial burst, short of the minimum, of a queue that cannot move without it), or 0.
   */
  burstFor(f: DescFifo, st: HalfState, cfg: HalfConfig, q: number, tx: boolean): number {
    if (cfg.prefEnabled[q] === 0 || st.stalled[q] !== 0) return 0;
    const avail = unfetched(st, f, q, cfg.ringLen[q]);
    if (avail === 0) return 0;
    // RX may exceed the depth while the TX head packet needs more buffer bytes.
    const short = !tx && this.headBytes[q] > f.bytes[q];
    const room = short ? avail : this.m2sCfg.fifoDepth - f.count[q];
    if (room <= 0) return 0;
    const min = cfg.minBurst(f.count[q]);
    const n = Math.min(avail, room, cfg.maxBurst);
    if (n >= min) return n;
    const needed = tx ? f.lasts[q] === 0 : short || f.count[q] === 0;
    return needed ? -n : 0;
  }

  /**
   * A half's prefetch arbiter grants bursts, one queue per grant in its order, while a queue
   * qualifies (the prefetch runs ahead of the scheduler). When none qualifies by the burst
   * minimums, one partial burst goes to a queue that cannot move without it. Returns the
   * descriptors fetched.
   */
  private prefetchHalf(tx: boolean): number {
    const c = this.c;
    const f = tx ? this.txFifo : this.rxFifo;
    const st = tx ? c.tx : c.rx;
    const cfg: HalfConfig = tx ? this.m2sCfg : this.s2mCfg;
    const arb = tx ? this.txPref : this.rxPref;
    const burst = this.burst;
    const log = c.trace.enabled;
    let total = 0;
    let fetched = 0;
    // Each queue's burst, then after each grant only the granted queue's again (a fetch for one
    // queue changes nothing another queue's burst depends on); one that stopped short (stale or
    // unmapped descriptor) is not asked again now.
    let todo = this.work & (tx ? this.txCheck : this.rxCheck);
    let mask = 0;
    let needy = 0;
    for (;;) {
      for (let b = todo; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        const n = this.burstFor(f, st, cfg, q, tx);
        burst[q] = n;
        if (n > 0) mask |= 1 << q;
        else if (n < 0) needy |= 1 << q;
      }
      const partial = mask === 0;
      if (partial && (needy === 0 || total > 0)) break;
      const q = arb.pick(cfg, partial ? needy : mask);
      const n = partial ? -burst[q] : burst[q];
      const first = f.fetchOff[q];
      const got = fetchBurst(c, f, cfg, q, n, tx);
      if (got > 0 && f.blocked[q] === FETCH_OK && (this.cand & (1 << q)) !== 0) {
        // A candidate stays one (its head packet and RX room only gain entries): no recompute,
        // only the RX look classify would have asked for.
        this.rxCheck |= 1 << q;
      } else if (got > 0 || f.blocked[q] !== FETCH_OK) this.stale |= 1 << q;
      if (got > 0) {
        if (log) this.prefetches.record(tx ? 'm2s' : 's2m', q, first, c.cycle, got);
        fetched |= 1 << q;
      }
      total += got;
      if (partial) break;
      mask &= ~(1 << q);
      needy &= ~(1 << q);
      todo = got < n ? 0 : 1 << q;
    }
    // Only a queue that fetched may qualify again before something happens to the others.
    if (tx) this.txCheck = fetched;
    else this.rxCheck = fetched;
    return total;
  }

  /** Recomputes the candidate state of the queues in `stale` that have work. */
  private classify(): void {
    const c = this.c;
    const tx = c.tx;
    const rx = c.rx;
    const m = this.m2sCfg;
    const s = this.s2mCfg;
    const txf = this.txFifo;
    const rxf = this.rxFifo;
    // A queue without work (drained, reset) is no candidate.
    this.cand &= this.work | ~this.stale;
    let b = this.stale & this.work;
    this.stale = 0;
    this.rxCheck |= b;
    for (; b !== 0; b &= b - 1) {
      const q = 31 - Math.clz32(b & -b);
      const bit = 1 << q;
      this.cand &= ~bit;
      this.headBytes[q] = 0;
      if (tx.tailOff[q] === tx.headOff[q] && tx.tailRid[q] === tx.headRid[q]) {
        this.work &= ~bit;
        this.why[q] = W_OTHER;
        continue;
      }
      this.why[q] = W_OTHER;
      if (m.prefEnabled[q] === 0 || m.schedEnabled[q] === 0 || tx.stalled[q] !== 0) continue;
      // The head packet: the FIFO's entries up to the first LAST.
      const maxDesc = m.maxDescPerPkt || Infinity;
      const len = m.ringLen[q];
      if (txf.lasts[q] === 0 || this.headLongerThan(q, maxDesc)) {
        if (txf.count[q] >= maxDesc) {
          // No LAST within max_desc_per_pkt and another descriptor is there: too long.
          if (txf.count[q] > maxDesc || unfetched(tx, txf, q, len) > 0) {
            const i = maxDesc;
            const off = i < txf.count[q] ? txf.slotAt(q, i) : txf.fetchOff[q];
            stall(
              c,
              'm2s',
              q,
              'packet-too-long',
              off,
              m.ringBase[q] + off * 16,
              maxDesc,
              maxDesc + 1,
            );
          }
          continue;
        }
        if (txf.blocked[q] !== FETCH_OK && unfetched(tx, txf, q, len) > 0) {
          raiseBlocked(c, txf, m, q);
          continue;
        }
        this.why[q] = W_PREFETCH;
        continue;
      }
      let k = 0;
      let bytes = 0;
      for (;;) {
        const w0 = txf.w0At(q, k);
        bytes += c.txLen(w0);
        k++;
        if ((w0 & 0x08000000) !== 0) break;
      }
      this.headDescs[q] = k;
      this.headBytes[q] = bytes;
      // The RX side must be ready and hold buffers for all of it (at least one descriptor).
      if (s.prefEnabled[q] === 0 || rx.stalled[q] !== 0) continue;
      if (rxf.count[q] === 0 || rxf.bytes[q] < bytes) {
        if (rxf.blocked[q] !== FETCH_OK && unfetched(rx, rxf, q, s.ringLen[q]) > 0) {
          raiseBlocked(c, rxf, s, q);
          continue;
        }
        this.why[q] = W_PREFETCH;
        continue;
      }
      if (m.paused[q] !== 0) {
        this.why[q] = W_HELD;
        continue;
      }
      this.why[q] = W_CANDIDATE;
      this.cand |= bit;
    }
  }

  /** True when the TX FIFO's head packet has more than `max` descriptors (its LAST beyond). */
  private headLongerThan(q: number, max: number): boolean {
    if (max === Infinity) return false;
    const f = this.txFifo;
    const n = Math.min(f.count[q], max);
    for (let i = 0; i < n; i++) if ((f.w0At(q, i) & 0x08000000) !== 0) return false;
    return true;
  }

  /**
   * Serves at most one packet of a running engine. Returns true when something happened (a
   * packet moved, an error was raised, completion entries were written, or the clock advanced
   * to the next rate-limiter window), false when idle.
   */
  step(): boolean {
    const c = this.c;
    if (this.configDirty) this.refreshConfig();
    // Coalesced completions whose timer ran out are written first.
    if (this.m2sComp.pending !== 0 && c.cycle - this.m2sComp.oldest() >= this.m2sCfg.coalTimer) {
      this.m2sComp.flush(c, this.m2sCfg, this.completions);
    }
    const raised = c.raised;
    // 1. The prefetch runs ahead: TX first, then the RX buffers the TX head packets need.
    if ((this.stale & this.work) !== 0) this.classify();
    if (this.work !== 0) {
      for (;;) {
        const a = (this.work & this.txCheck) !== 0 ? this.prefetchHalf(true) : 0;
        if ((this.stale & this.work) !== 0) this.classify();
        const b = (this.work & this.rxCheck) !== 0 ? this.prefetchHalf(false) : 0;
        if ((this.stale & this.work) !== 0) this.classify();
        if (!c.isRunning()) return true; // a descriptor fetch aborted the engine
        if (this.cand !== 0 || (a === 0 && b === 0)) break;
      }
    }
    // A stall raised by the look at the head packets is something that happened.
    if (this.cand === 0 && c.raised !== raised) return true;
    // 2. Candidates past the rate limiters.
    const arb = this.arbiter;
    const limits = this.limits;
    let ready = 0;
    let held = 0;
    let wait = Infinity;
    if (!this.m2sCfg.anyRlArmed) {
      ready = this.cand;
    } else {
      const armed = this.m2sCfg.rlArmed;
      for (let b = this.cand; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        const w = armed[q] !== 0 ? limits.queueWait(q) : 0;
        if (w > 0) {
          wait = Math.min(wait, w);
          held++;
          continue;
        }
        ready |= 1 << q;
      }
      if (ready !== 0 && this.m2sCfg.streamRlArmed) {
        const w = limits.streamWait();
        if (w > 0) {
          ready = 0;
          held++;
          wait = w;
        }
      }
    }
    // The arbiter's per-queue inputs, only for the modes that read them (round robin over the
    // ready mask needs none).
    if (!this.maskOnly) {
      this.setReady(ready);
      for (let b = ready; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        arb.cost[q] = this.headBytes[q];
      }
    }
    if (ready === 0) {
      if (this.flushCompletions()) return true;
      if (wait === Infinity) return false;
      // Idle until the window in which a bucket refills.
      limits.waitWindows(wait);
      return true;
    }
    // 3. The packet scheduler.
    const q = arb.select(this.mode, ready);
    let stage = STAGE_SCHEDULER;
    if ((ready & (ready - 1)) === 0) {
      let heldOthers = held > 0;
      let prefOthers = false;
      for (let b = this.work & ~(1 << q); b !== 0; b &= b - 1) {
        const i = 31 - Math.clz32(b & -b);
        if (this.why[i] === W_HELD) heldOthers = true;
        else if (this.why[i] === W_PREFETCH) prefOthers = true;
      }
      if (heldOthers) stage = STAGE_RATE_LIMITER;
      else if (prefOthers) stage = STAGE_PREFETCH;
    }
    this.serve(q, stage);
    return true;
  }

  /** Sets the arbiter's `ready` inputs to the queues of `ready` (a mask). */
  setReady(ready: number): void {
    if (ready === this.readyBits) return;
    const a = this.arbiter.ready;
    for (let b = this.readyBits; b !== 0; b &= b - 1) a[31 - Math.clz32(b & -b)] = 0;
    for (let b = ready; b !== 0; b &= b - 1) a[31 - Math.clz32(b & -b)] = 1;
    this.readyBits = ready;
  }

  /** Writes every waiting completion entry of both halves. True when there were some. */
  flushCompletions(): boolean {
    const any = this.m2sComp.pending !== 0 || this.s2mComp.pending !== 0;
    if (this.m2sComp.pending !== 0) this.m2sComp.flush(this.c, this.m2sCfg, this.completions);
    if (this.s2mComp.pending !== 0) this.s2mComp.flush(this.c, this.s2mCfg, this.completions);
    return any;
  }

  /** Serves queue q's head packet: time, rate-limit tokens, the service trace. */
  private serve(q: number, stage: number): void {
    const c = this.c;
    const startCycle = c.cycle;
    const nTx = this.headDescs[q];
    const moved = servePacket(c, q, nTx, this.txFifo, this.rxFifo, this.m2sSide, this.s2mSide);
    this.stale |= 1 << q;
    this.txCheck |= 1 << q;
    this.rxCheck |= 1 << q;
    this.lastServed = moved < 0 ? -1 : q;
    if (moved < 0) return;
    // Time: one cycle per descriptor plus the bytes at bytesPerCycle.
    c.cycle += nTx + c.byteCycles(moved);
    if (this.m2sCfg.anyRlArmed) this.limits.charge(q, moved, startCycle);
    c.packetsServed++;
    c.trace.record(c.engine, q, moved, nTx, startCycle, c.cycle, this.m2sCfg.qQos[q], stage);
  }
}
