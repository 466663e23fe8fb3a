/**
 * The two-level token-bucket rate limiters of one mock M2S half, as pure code over plain numbers
 * (seed 004 §8.4; docs/mock-arbitration.md "Rate limiters").
 *
 * Buckets 0..queues-1 are the per-queue limiters (M2S_Q[q].rate_limit_*), bucket `queues` is the
 * engine-wide stream limiter (M2S_stream_rate_limiter.*): a packet starts only when both its
 * queue's bucket and the stream bucket let it, and pays both. Each bucket has its own settings
 * (`BucketSettings`, decoded from its registers by the caller) and one counter; the time base is
 * shared (M2S_rate_limiter.gen_cfg.short_cycle_size engine cycles per short cycle, counted from
 * the last restart of the cycle counters).
 *
 * Model, per bucket:
 * - armed = enabled and not masked; an unarmed bucket neither fills nor pays and never holds a
 *   packet back (its counter keeps its value);
 * - at the end of every short cycle an armed, unpaused bucket gains `shortTokens`
 *   (cfg_token_size_2), and at the end of every `longCycle`-th short cycle also `longTokens`
 *   (cfg_token_size_1 every cfg_cycle.long_cycle_size short cycles; 0 short cycles: never), capped
 *   at `cap` (cfg_1s.max_burst_size): the bucket size and the refill rate are different fields;
 * - a packet may start while the counter is above 0; its cost (bytes, or 1 in packet mode) is
 *   then taken out, which may leave the counter negative: that debt is paid back by later fills,
 *   so the long-run rate is the refill rate even for packets larger than the bucket;
 * - `pause` stops the fill (the bucket still pays and still holds packets back).
 *
 * Fills are applied lazily (when a bucket is looked at), so settings must be changed through
 * `configure` / `setShortCycle` at the cycle the register write happens: the interval before it
 * is filled with the old settings. Nothing here allocates after construction, and the per-packet
 * calls (`wait`, `take`) are O(1) for an unarmed bucket and O(log) for a waiting one.
 *
 * The seam with the engine is this class's interface (the rate-limit stage of the mock's M2S
 * pipeline decodes the registers into it and asks it whether, and when, a queue may go).
 */

/** One limiter's configuration, decoded from its registers. */
export interface BucketSettings {
  /** en = 1 and mask.internal_rate_limiter = 0. */
  armed: boolean;
  /** cfg_1s.pause / rate_limit_cfg_1.pause: the fill stops. */
  paused: boolean;
  /** cfg_1s.max_burst_size / rate_limit_cfg_1.max_burst_size: the most the counter holds. */
  cap: number;
  /** cfg_token_size_2.short_cycle: tokens added at the end of every short cycle. */
  shortTokens: number;
  /** cfg_token_size_1.long_cycle: tokens added at the end of every long cycle. */
  longTokens: number;
  /** cfg_cycle.long_cycle_size: short cycles per long cycle (0: no long-cycle fill). */
  longCycle: number;
}

/** Settings of a bucket at reset: not armed, no fill. */
export const BUCKET_RESET: Readonly<BucketSettings> = Object.freeze({
  armed: false,
  paused: false,
  cap: 0,
  shortTokens: 0,
  longTokens: 0,
  longCycle: 0,
});

export class TokenBuckets {
  /** Number of buckets (per-queue buckets plus the stream bucket). */
  readonly count: number;
  /** Index of the stream (engine-wide) bucket. */
  readonly stream: number;
  // Counters (may be negative: debt) and the short-cycle index up to which fills are applied.
  private readonly tokensAt: Float64Array;
  private readonly filledTo: Float64Array;
  // Settings per bucket.
  private readonly armed: Uint8Array;
  private readonly paused: Uint8Array;
  private readonly cap: Float64Array;
  private readonly shortTokens: Float64Array;
  private readonly longTokens: Float64Array;
  private readonly longCycle: Float64Array;
  /** Engine cycles per short cycle (at least 1). */
  private shortCycle = 1;
  /** Engine cycle at which the short and long cycle counters last restarted. */
  private base = 0;

  /** `queues` per-queue buckets and one stream bucket, all at their reset settings. */
  constructor(queues: number, shortCycle = 1) {
    this.count = queues + 1;
    this.stream = queues;
    const n = this.count;
    this.tokensAt = new Float64Array(n);
    this.filledTo = new Float64Array(n);
    this.armed = new Uint8Array(n);
    this.paused = new Uint8Array(n);
    this.cap = new Float64Array(n);
    this.shortTokens = new Float64Array(n);
    this.longTokens = new Float64Array(n);
    this.longCycle = new Float64Array(n);
    this.shortCycle = Math.max(1, Math.floor(shortCycle));
  }

  /** The short-cycle index of engine cycle `now` (short cycles completed since the restart). */
  private index(now: number): number {
    return Math.floor((now - this.base) / this.shortCycle);
  }

  /** Tokens bucket b gains over the short cycles ending after index `from` up to `to`. */
  private gain(b: number, from: number, to: number): number {
    let g = (to - from) * this.shortTokens[b];
    const L = this.longCycle[b];
    if (L > 0 && this.longTokens[b] > 0)
      g += (Math.floor(to / L) - Math.floor(from / L)) * this.longTokens[b];
    return g;
  }

  /** Applies bucket b's fills up to engine cycle `now`. */
  private advance(b: number, now: number): void {
    const k = this.index(now);
    const from = this.filledTo[b];
    if (k <= from) return;
    this.filledTo[b] = k;
    if (this.armed[b] === 0 || this.paused[b] === 1) return;
    const g = this.gain(b, from, k);
    if (g > 0) this.tokensAt[b] = Math.min(this.cap[b], this.tokensAt[b] + g);
  }

  /** Applies every bucket's fills up to `now`. */
  private advanceAll(now: number): void {
    for (let b = 0; b < this.count; b++) this.advance(b, now);
  }

  /** New settings for bucket b from engine cycle `now` on (the time before keeps the old ones). */
  configure(b: number, now: number, s: Readonly<BucketSettings>): void {
    this.advance(b, now);
    this.armed[b] = s.armed ? 1 : 0;
    this.paused[b] = s.paused ? 1 : 0;
    this.cap[b] = Math.max(0, s.cap);
    this.shortTokens[b] = Math.max(0, s.shortTokens);
    this.longTokens[b] = Math.max(0, s.longTokens);
    this.longCycle[b] = Math.max(0, Math.floor(s.longCycle));
  }

  /** Bucket b is armed (it may hold a packet back and pays for what it lets through). */
  isArmed(b: number): boolean {
    return this.armed[b] === 1;
  }

  /**
   * A new short-cycle size (gen_cfg.short_cycle_size; 0 is read as 1) from `now` on: the fills up
   * to `now` are applied with the old size, then the cycle counters restart at `now`.
   */
  setShortCycle(now: number, size: number): void {
    this.advanceAll(now);
    this.shortCycle = Math.max(1, Math.floor(size));
    this.restart(now);
  }

  /** Restarts the short and long cycle counters at `now` (ctrl_cycle_cnt). */
  resetCycles(now: number): void {
    this.advanceAll(now);
    this.restart(now);
  }

  private restart(now: number): void {
    this.base = now;
    this.filledTo.fill(0);
  }

  /** Sets bucket b's counter to `value` (capped at the bucket size) at `now`. */
  setTokens(b: number, now: number, value: number): void {
    this.advance(b, now);
    this.tokensAt[b] = Math.min(this.cap[b], value);
  }

  /** Bucket b's counter at `now` (negative while in debt). */
  tokens(b: number, now: number): number {
    this.advance(b, now);
    return this.tokensAt[b];
  }

  /**
   * 0 when bucket b lets a packet start at `now` (unarmed, or above 0); otherwise the number of
   * short cycles from the current one until the fill that takes it above 0 (Infinity: no fill
   * ever does, e.g. paused, a bucket size of 0 or no tokens per cycle).
   */
  wait(b: number, now: number): number {
    if (this.armed[b] === 0) return 0;
    this.advance(b, now);
    const t = this.tokensAt[b];
    if (t > 0) return 0;
    if (this.paused[b] === 1 || this.cap[b] <= 0) return Infinity;
    const s = this.shortTokens[b];
    const L = this.longCycle[b];
    const l = L > 0 ? this.longTokens[b] : 0;
    if (s <= 0 && l <= 0) return Infinity;
    const k = this.filledTo[b];
    const need = -t; // the gain must exceed this
    // Smallest m >= 1 with gain(k, k + m) > need; gain is non-decreasing in m.
    let hi = s > 0 ? Math.floor(need / s) + 1 : (Math.floor(need / l) + 2) * L;
    let lo = 1;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.gain(b, k, k + mid) > need) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /**
   * The engine cycle at which the short cycle `m` cycles after the current one (at `now`) ends:
   * where the engine's clock jumps to when every candidate waits `m` short cycles.
   */
  cycleAfter(now: number, m: number): number {
    return this.base + (this.index(now) + m) * this.shortCycle;
  }

  /** A packet of `cost` tokens went through bucket b at `now` (an unarmed bucket pays nothing). */
  take(b: number, now: number, cost: number): void {
    if (this.armed[b] === 0) return;
    this.advance(b, now);
    this.tokensAt[b] -= cost;
  }
}
