/**
 * The rate-limit stage of the mock M2S pipeline (seed 004 §8.4; docs/mock-arbitration.md "Rate
 * limiters"): the registers of the two-level rate limiters decoded into the token buckets of
 * token-bucket.ts, per queue (M2S_Q[q].rate_limit_*) and engine-wide (M2S_stream_rate_limiter.*),
 * on the short and long cycles of M2S_rate_limiter.gen_cfg.short_cycle_size engine cycles, charged
 * in bytes or packets (gen_cfg.pkt_mode_en).
 *
 * Register writes reach the buckets through write hooks installed here, at the engine cycle of the
 * write (the buckets fill lazily, so the time before a write keeps the old settings):
 * - rate_limit_cfg_1 / cfg_1s, the refill words (cfg_cycle, cfg_token_size_1, cfg_token_size_2)
 *   and the masks re-decode that bucket;
 * - rate_limit_sw_ctrl / sw_ctrl.rst_token_cnt set that bucket's counter to the token init value
 *   (bits 23:0 of M2S_rate_limiter.ctrl_token);
 * - a write of ctrl_token sets every queue's counter to that value (the public Alpine UDMA HAL:
 *   "initializes the token counters of all queues to this value any time this register is
 *   written"); a write of ctrl_cycle_cnt with bit 0 set restarts the short and long cycle counters
 *   (the HAL's CTRL_CYCLE_CNT_RST); a new short_cycle_size restarts them too.
 *
 * The seam with the rest of the engine is this class's interface, and only it:
 * - `queueWait(q)` / `streamWait()`: 0 when the queue (the engine) may start a packet now, else
 *   the number of short cycles until its bucket holds a token again (Infinity: never);
 * - `waitWindows(n)`: the engine is idle until the end of the n-th short cycle from now;
 * - `charge(q, bytes, at)`: a packet of `bytes` started on queue q at cycle `at`;
 * - `tokenCount(q, max)`: the read-back of M2S.sel_rate_limit_status.token_cnt;
 * - `resetQueue(q)`: q_sw_ctrl.rst_q.
 */
import { fieldRef, registerOffset, type FieldRef } from '../field-ref.ts';
import type { MockRegisterFile } from '../register-file.ts';
import type { UdmaCore } from './core.ts';
import { BUCKET_RESET, TokenBuckets, type BucketSettings } from './token-bucket.ts';

/** The registers of one token bucket. */
interface BucketRefs {
  en: FieldRef;
  pause: FieldRef;
  cap: FieldRef;
  masked: FieldRef;
  shortTokens: FieldRef;
  longTokens: FieldRef;
  longCycle: FieldRef;
  /** Offsets of the words whose write re-decodes the bucket. */
  config: number[];
  swCtrl: number;
  rst: FieldRef;
}

function bucketRefs(model: MockRegisterFile['model'], cfg1: string, prefix: string): BucketRefs {
  const r = (path: string) => fieldRef(model, path);
  const refs = {
    en: r(`${cfg1}.en`),
    pause: r(`${cfg1}.pause`),
    cap: r(`${cfg1}.max_burst_size`),
    masked: r(`${prefix}mask.internal_rate_limiter`),
    shortTokens: r(`${prefix}cfg_token_size_2.short_cycle`),
    longTokens: r(`${prefix}cfg_token_size_1.long_cycle`),
    longCycle: r(`${prefix}cfg_cycle.long_cycle_size`),
    rst: r(`${prefix}sw_ctrl.rst_token_cnt`),
  };
  return {
    ...refs,
    config: [refs.en, refs.masked, refs.shortTokens, refs.longTokens, refs.longCycle].map(
      (f) => f.offset,
    ),
    swCtrl: refs.rst.offset,
  };
}

/** The token counters are 24 bits wide (M2S.sel_rate_limit_status.token_cnt, ctrl_token). */
const TOKEN_MASK = 0xffffff;

export class RateLimitStage {
  private readonly c: UdmaCore;
  private readonly buckets: TokenBuckets;
  private readonly refs: BucketRefs[];
  private readonly shortCycle: FieldRef;
  private readonly pktMode: FieldRef;
  private readonly ctrlToken: number;
  /** Scratch settings of the bucket being decoded. */
  private readonly settings: BucketSettings = { ...BUCKET_RESET };
  private lastShortCycle: number;

  constructor(c: UdmaCore, m2s: MockRegisterFile) {
    this.c = c;
    const model = m2s.model;
    const n = c.queues;
    this.refs = [];
    for (let q = 0; q < n; q++)
      this.refs.push(bucketRefs(model, `M2S_Q[${q}].rate_limit_cfg_1`, `M2S_Q[${q}].rate_limit_`));
    this.refs.push(bucketRefs(model, 'M2S_stream_rate_limiter.cfg_1s', 'M2S_stream_rate_limiter.'));
    this.shortCycle = fieldRef(model, 'M2S_rate_limiter.gen_cfg.short_cycle_size');
    this.pktMode = fieldRef(model, 'M2S_rate_limiter.gen_cfg.pkt_mode_en');
    this.ctrlToken = registerOffset(model, 'M2S_rate_limiter.ctrl_token') >>> 2;
    this.lastShortCycle = this.shortCycle.read(c.mw);
    this.buckets = new TokenBuckets(n, this.lastShortCycle);
    for (let b = 0; b < this.refs.length; b++) {
      this.decode(b);
      const R = this.refs[b];
      for (const off of R.config) m2s.onWrite(off, () => this.decode(b));
      m2s.onWrite(R.swCtrl, (v) => {
        if ((v & R.rst.mask) !== 0) this.buckets.setTokens(b, c.cycle, this.initTokens());
      });
    }
    m2s.onWrite(this.shortCycle.offset, () => {
      const size = this.shortCycle.read(c.mw);
      if (size === this.lastShortCycle) return;
      this.lastShortCycle = size;
      this.buckets.setShortCycle(c.cycle, size);
    });
    m2s.onWrite(registerOffset(model, 'M2S_rate_limiter.ctrl_cycle_cnt'), (v) => {
      if ((v & 1) !== 0) this.buckets.resetCycles(c.cycle);
    });
    m2s.onWrite(this.ctrlToken << 2, (v) => {
      for (let q = 0; q < n; q++) this.buckets.setTokens(q, c.cycle, v & TOKEN_MASK);
    });
  }

  /** The token init value: bits 23:0 of M2S_rate_limiter.ctrl_token. */
  private initTokens(): number {
    return this.c.mw[this.ctrlToken] & TOKEN_MASK;
  }

  /** Re-reads bucket b's registers into its settings, from the current cycle on. */
  private decode(b: number): void {
    const R = this.refs[b];
    const w = this.c.mw;
    const s = this.settings;
    s.armed = R.en.isSet(w) && !R.masked.isSet(w);
    s.paused = R.pause.isSet(w);
    s.cap = R.cap.read(w);
    s.shortTokens = R.shortTokens.read(w);
    s.longTokens = R.longTokens.read(w);
    s.longCycle = R.longCycle.read(w);
    this.buckets.configure(b, this.c.cycle, s);
  }

  /** 0 when queue q may start a packet now; else short cycles until it may (Infinity: never). */
  queueWait(q: number): number {
    return this.buckets.wait(q, this.c.cycle);
  }

  /** 0 when the engine-wide bucket lets a packet start now; else short cycles until it does. */
  streamWait(): number {
    return this.buckets.wait(this.buckets.stream, this.c.cycle);
  }

  /** The engine idles until the end of the n-th short cycle from now. */
  waitWindows(n: number): void {
    this.c.cycle = this.buckets.cycleAfter(this.c.cycle, n);
  }

  /** A packet of `bytes` started on queue q at cycle `at`: its bucket and the stream bucket pay. */
  charge(q: number, bytes: number, at: number): void {
    const cost = this.pktMode.isSet(this.c.mw) ? 1 : bytes;
    this.buckets.take(q, at, cost);
    this.buckets.take(this.buckets.stream, at, cost);
  }

  /** sel_rate_limit_status.token_cnt of queue q: its counter, 0 while in debt. */
  tokenCount(q: number, max: number): number {
    if (q >= this.c.queues) return 0;
    return Math.max(0, Math.min(Math.floor(this.buckets.tokens(q, this.c.cycle)), max));
  }

  /** q_sw_ctrl.rst_q: the queue's counter back to the token init value. */
  resetQueue(q: number): void {
    this.buckets.setTokens(q, this.c.cycle, this.initTokens());
  }
}
