/**
 * The rate-limit stage of the mock M2S pipeline (docs/mock-arbitration.md "Rate limiters"): the
 * per-queue token buckets (M2S_Q[q].rate_limit_cfg_1, rate_limit_mask) and the engine-wide stream
 * bucket (M2S_stream_rate_limiter.cfg_1s, mask), windows of M2S_rate_limiter.gen_cfg
 * short_cycle_size engine cycles, charged in bytes or packets (gen_cfg.pkt_mode_en).
 *
 * The seam with the rest of the engine is this class's interface, and only it:
 * - `queueWait(q)` / `streamWait()`: 0 when the queue (the engine) may start a packet now, else
 *   the number of windows until its bucket holds a token again (Infinity: never);
 * - `waitWindows(n)`: the engine is idle until n windows from now (the clock jumps);
 * - `charge(q, bytes)`: a packet of `bytes` was served on queue q;
 * - `tokenCount(q)`: the read-back of M2S.sel_rate_limit_status.token_cnt;
 * - `resetQueue(q)`: q_sw_ctrl.rst_q.
 * The bucket arithmetic behind it may change without the unit changing.
 */
import type { UdmaCore } from './core.ts';

export class RateLimitStage {
  private readonly c: UdmaCore;
  // Queue buckets: tokens and the window they were last refilled in (-1: not armed).
  private readonly tokens: Float64Array;
  private readonly tokWindow: Float64Array;
  private streamTokens = 0;
  private streamWindow = -1;

  constructor(c: UdmaCore) {
    this.c = c;
    this.tokens = new Float64Array(c.queues);
    this.tokWindow = new Float64Array(c.queues).fill(-1);
  }

  /** Queue q's limiter is armed: rate_limit_cfg_1.en and not masked (internal_rate_limiter). */
  private limited(q: number): boolean {
    const s = this.c.M.sched[q];
    const on = s.rlEn.isSet(this.c.mw) && !s.rlMaskInternal.isSet(this.c.mw);
    if (!on) this.tokWindow[q] = -1;
    return on;
  }

  private window(): number {
    const win = Math.max(1, this.c.M.shortCycle.read(this.c.mw));
    return Math.floor(this.c.cycle / win);
  }

  /** Refills queue q's bucket up to the current window; returns its tokens. */
  private refill(q: number): number {
    const w = this.window();
    const last = this.tokWindow[q];
    if (last !== w) {
      const budget = this.c.M.sched[q].rlMaxBurst.read(this.c.mw);
      this.tokens[q] = last < 0 ? budget : Math.min(budget, this.tokens[q] + budget * (w - last));
      this.tokWindow[q] = w;
    }
    return this.tokens[q];
  }

  private streamLimited(): boolean {
    const M = this.c.M;
    const on = M.streamRlEn.isSet(this.c.mw) && !M.streamRlMaskInternal.isSet(this.c.mw);
    if (!on) this.streamWindow = -1;
    return on;
  }

  private refillStream(): number {
    const w = this.window();
    if (this.streamWindow !== w) {
      const budget = this.c.M.streamRlMaxBurst.read(this.c.mw);
      this.streamTokens =
        this.streamWindow < 0
          ? budget
          : Math.min(budget, this.streamTokens + budget * (w - this.streamWindow));
      this.streamWindow = w;
    }
    return this.streamTokens;
  }

  /** 0 when queue q may start a packet now; else windows until it may (Infinity: never). */
  queueWait(q: number): number {
    if (!this.limited(q)) return 0;
    const t = this.refill(q);
    if (t > 0) return 0;
    // A zero budget never refills: that queue is simply not served.
    const budget = this.c.M.sched[q].rlMaxBurst.read(this.c.mw);
    return budget > 0 ? Math.floor(-t / budget) + 1 : Infinity;
  }

  /** 0 when the engine-wide bucket lets a packet start now; else windows until it does. */
  streamWait(): number {
    if (!this.streamLimited()) return 0;
    const t = this.refillStream();
    if (t > 0) return 0;
    const budget = this.c.M.streamRlMaxBurst.read(this.c.mw);
    return budget > 0 ? Math.floor(-t / budget) + 1 : Infinity;
  }

  /** The engine idles until the start of the window `n` windows after the current one. */
  waitWindows(n: number): void {
    const win = Math.max(1, this.c.M.shortCycle.read(this.c.mw));
    this.c.cycle = (Math.floor(this.c.cycle / win) + n) * win;
  }

  /** A packet of `bytes` was served on queue q: its bucket and the stream bucket pay for it. */
  charge(q: number, bytes: number): void {
    const cost = this.c.M.rlPktMode.isSet(this.c.mw) ? 1 : bytes;
    if (this.tokWindow[q] >= 0) this.tokens[q] -= cost;
    if (this.streamWindow >= 0) this.streamTokens -= cost;
  }

  /** sel_rate_limit_status.token_cnt of queue q: 0 when not armed or in debt. */
  tokenCount(q: number, max: number): number {
    if (q >= this.c.queues || !this.limited(q)) return 0;
    return Math.max(0, Math.min(this.refill(q), max));
  }

  /** q_sw_ctrl.rst_q: the queue's bucket starts full again when next armed. */
  resetQueue(q: number): void {
    this.tokWindow[q] = -1;
  }
}
