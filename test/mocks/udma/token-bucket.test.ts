import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUCKET_RESET,
  TokenBuckets,
  type BucketSettings,
} from '../../../mocks/udma/token-bucket.ts';

const ARMED: BucketSettings = {
  armed: true,
  paused: false,
  cap: 1000,
  shortTokens: 100,
  longTokens: 0,
  longCycle: 0,
};

function bucket(s: Partial<BucketSettings> = {}, shortCycle = 10): TokenBuckets {
  const t = new TokenBuckets(2, shortCycle);
  t.configure(0, 0, { ...ARMED, ...s });
  return t;
}

describe('TokenBuckets: one bucket', () => {
  it('an unarmed bucket never holds a packet back, pays nothing and does not fill', () => {
    const t = new TokenBuckets(1, 10);
    expect(t.isArmed(0)).toBe(false);
    t.configure(0, 0, { ...ARMED, armed: false });
    expect(t.wait(0, 0)).toBe(0);
    t.take(0, 0, 5000);
    expect(t.tokens(0, 0)).toBe(0);
    expect(t.tokens(0, 10_000)).toBe(0);
  });

  it('a bucket starts empty and gains shortTokens at the end of every short cycle', () => {
    const t = bucket();
    expect(t.tokens(0, 0)).toBe(0);
    expect(t.wait(0, 0)).toBe(1);
    expect(t.tokens(0, 9)).toBe(0);
    expect(t.tokens(0, 10)).toBe(100);
    expect(t.tokens(0, 35)).toBe(300);
    expect(t.wait(0, 35)).toBe(0);
  });

  it('the bucket size (cap) and the refill rate (shortTokens) are different numbers', () => {
    const t = bucket({ cap: 250, shortTokens: 100 });
    expect(t.tokens(0, 20)).toBe(200);
    expect(t.tokens(0, 30)).toBe(250); // capped, not 300
    expect(t.tokens(0, 1000)).toBe(250);
    // A larger bucket with the same refill holds more after an idle stretch, fills no faster.
    const u = bucket({ cap: 10_000, shortTokens: 100 });
    expect(u.tokens(0, 30)).toBe(300);
    expect(u.tokens(0, 1000)).toBe(10_000);
  });

  it('longTokens are added at the end of every longCycle-th short cycle', () => {
    const t = bucket({ shortTokens: 0, longTokens: 500, longCycle: 4 });
    expect(t.tokens(0, 39)).toBe(0);
    expect(t.tokens(0, 40)).toBe(500);
    expect(t.tokens(0, 79)).toBe(500);
    expect(t.tokens(0, 80)).toBe(1000);
    expect(t.wait(0, 0)).toBe(0); // above 0 at cycle 80 already
    // both levels together: 10 per short cycle plus 100 every 3rd
    const u = bucket({ shortTokens: 10, longTokens: 100, longCycle: 3 });
    expect(u.tokens(0, 20)).toBe(20);
    expect(u.tokens(0, 30)).toBe(130);
    expect(u.tokens(0, 60)).toBe(260);
  });

  it('a packet larger than the counter leaves a debt that later fills pay back', () => {
    const t = bucket({ shortTokens: 100 });
    expect(t.tokens(0, 10)).toBe(100);
    t.take(0, 10, 1000);
    expect(t.tokens(0, 10)).toBe(-900);
    // 9 fills bring it to 0 (not above): the 10th lets the next packet go
    expect(t.wait(0, 10)).toBe(10);
    expect(t.cycleAfter(10, 10)).toBe(110);
    expect(t.tokens(0, 109)).toBe(0);
    expect(t.wait(0, 109)).toBe(1);
    expect(t.tokens(0, 110)).toBe(100);
    expect(t.wait(0, 110)).toBe(0);
  });

  it('pause stops the fill; a paused bucket still pays and still holds packets back', () => {
    const t = bucket();
    expect(t.tokens(0, 20)).toBe(200);
    t.configure(0, 20, { ...ARMED, paused: true });
    expect(t.tokens(0, 500)).toBe(200);
    expect(t.wait(0, 500)).toBe(0);
    t.take(0, 500, 300);
    expect(t.wait(0, 500)).toBe(Infinity);
    t.configure(0, 500, { ...ARMED, paused: false });
    expect(t.wait(0, 500)).toBe(2);
  });

  it('a bucket that can never fill waits forever (bucket size 0, or no tokens per cycle)', () => {
    expect(bucket({ cap: 0 }).wait(0, 100)).toBe(Infinity);
    expect(bucket({ shortTokens: 0 }).wait(0, 100)).toBe(Infinity);
    expect(bucket({ shortTokens: 0, longTokens: 5, longCycle: 0 }).wait(0, 100)).toBe(Infinity);
  });

  it('new settings apply from the cycle of the write; the time before keeps the old ones', () => {
    const t = bucket({ shortTokens: 100, cap: 100_000 });
    t.configure(0, 50, { ...ARMED, shortTokens: 1, cap: 100_000 });
    expect(t.tokens(0, 50)).toBe(500);
    expect(t.tokens(0, 100)).toBe(505);
  });

  it('setTokens sets the counter (capped at the bucket size)', () => {
    const t = bucket({ cap: 300 });
    t.setTokens(0, 0, 200);
    expect(t.tokens(0, 0)).toBe(200);
    expect(t.wait(0, 0)).toBe(0);
    t.setTokens(0, 0, 5000);
    expect(t.tokens(0, 0)).toBe(300);
  });

  it('a new short-cycle size restarts the cycle counters at the cycle of the write', () => {
    const t = bucket({ shortTokens: 100, cap: 100_000 });
    t.setShortCycle(25, 100);
    expect(t.tokens(0, 25)).toBe(200);
    expect(t.tokens(0, 124)).toBe(200);
    expect(t.tokens(0, 125)).toBe(300);
    expect(t.cycleAfter(130, 1)).toBe(225);
    t.resetCycles(150);
    expect(t.tokens(0, 249)).toBe(300);
    expect(t.tokens(0, 250)).toBe(400);
    // size 0 is read as 1
    t.setShortCycle(250, 0);
    expect(t.tokens(0, 253)).toBe(700);
  });

  it('the stream bucket is the one after the queue buckets, independent of them', () => {
    const t = new TokenBuckets(16, 10);
    expect(t.count).toBe(17);
    expect(t.stream).toBe(16);
    t.configure(t.stream, 0, ARMED);
    expect(t.tokens(t.stream, 10)).toBe(100);
    expect(t.tokens(3, 10)).toBe(0);
    expect(t.isArmed(3)).toBe(false);
    t.configure(3, 10, BUCKET_RESET);
    expect(t.wait(3, 10)).toBe(0);
  });
});

/** Cycle-by-cycle reference: each short-cycle boundary adds the fills, one at a time, capped. */
class Reference {
  tokens = 0;
  shortIndex = 0;
  constructor(
    public s: BucketSettings,
    public shortCycle: number,
  ) {}
  /** Advances from cycle `from` to cycle `to`, filling at each boundary crossed. */
  run(from: number, to: number): void {
    for (let c = from + 1; c <= to; c++) {
      if (c % this.shortCycle !== 0) continue;
      this.shortIndex++;
      if (!this.s.armed || this.s.paused) continue;
      let g = this.s.shortTokens;
      if (this.s.longCycle > 0 && this.shortIndex % this.s.longCycle === 0) g += this.s.longTokens;
      if (g > 0) this.tokens = Math.min(this.s.cap, this.tokens + g);
    }
  }
}

describe('TokenBuckets against a cycle-by-cycle reference', () => {
  const settings = fc.record({
    armed: fc.boolean(),
    paused: fc.boolean(),
    cap: fc.integer({ min: 0, max: 5000 }),
    shortTokens: fc.integer({ min: 0, max: 300 }),
    longTokens: fc.integer({ min: 0, max: 2000 }),
    longCycle: fc.integer({ min: 0, max: 6 }),
  });
  const op = fc.oneof(
    fc.record({ kind: fc.constant('time' as const), dt: fc.integer({ min: 0, max: 120 }) }),
    fc.record({ kind: fc.constant('take' as const), cost: fc.integer({ min: 1, max: 3000 }) }),
    fc.record({ kind: fc.constant('configure' as const), s: settings }),
  );

  it('counters, waits and debts agree with the reference over random histories', () => {
    fc.assert(
      fc.property(
        settings,
        fc.integer({ min: 1, max: 17 }),
        fc.array(op, { maxLength: 40 }),
        (s0, shortCycle, ops) => {
          const t = new TokenBuckets(1, shortCycle);
          t.configure(0, 0, s0);
          const ref = new Reference(s0, shortCycle);
          let now = 0;
          for (const o of ops) {
            if (o.kind === 'time') {
              ref.run(now, now + o.dt);
              now += o.dt;
            } else if (o.kind === 'take') {
              if (t.wait(0, now) === 0 && ref.s.armed) ref.tokens -= o.cost;
              if (t.wait(0, now) === 0) t.take(0, now, o.cost);
            } else {
              t.configure(0, now, o.s);
              ref.s = o.s;
            }
            expect(t.tokens(0, now)).toBe(ref.tokens);
            const w = t.wait(0, now);
            expect(w === 0).toBe(!ref.s.armed || ref.tokens > 0);
            if (w > 0 && w < Infinity) {
              // exactly w short cycles: not above 0 one cycle before the w-th boundary, above at it
              const at = t.cycleAfter(now, w);
              const probe = new Reference(ref.s, shortCycle);
              probe.tokens = ref.tokens;
              probe.shortIndex = ref.shortIndex;
              probe.run(now, at - 1);
              expect(probe.tokens).toBeLessThanOrEqual(0);
              probe.run(at - 1, at);
              expect(probe.tokens).toBeGreaterThan(0);
            }
            if (w === Infinity) {
              const probe = new Reference(ref.s, shortCycle);
              probe.tokens = ref.tokens;
              probe.shortIndex = ref.shortIndex;
              probe.run(now, now + shortCycle * 200);
              expect(probe.tokens).toBeLessThanOrEqual(0);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
