/**
 * BdRings.putCopyPairs, the one-pass form of a run of copy pairs: the same words, the same wrap
 * (slot 0 under the next ring id at each ring's end) and the same refusals as one putCopyPair per
 * pair, on many inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { BdRings, LEN_CTRL, putRx, putTx } from '../../../csr/formats/bd.ts';
import { nextRingId } from '../../../csr/formats/ring.ts';

/** Scratch for the encoders' words of one pair: TX in words 0-3, RX in 4-7. */
const probe = new Uint32Array(8);

const FLAG_BITS = [LEN_CTRL.FIRST, LEN_CTRL.LAST, LEN_CTRL.INT_EN, LEN_CTRL.DMB];

/** Columns of copy pairs: a descriptor stream's typed arrays, or any numbers. */
interface Columns {
  src: Float64Array;
  dst: Float64Array;
  len: Uint32Array | Float64Array;
  flags: Uint32Array | Float64Array;
}

const good = fc.record({
  src: fc.oneof(fc.integer({ min: 0, max: 2 ** 32 }), fc.maxSafeInteger()),
  dst: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.constant(2 ** 53 - 1)),
  len: fc.integer({ min: 1, max: 65536 }),
  flags: fc.subarray(FLAG_BITS).map((b) => b.reduce((a, x) => a | x, 0)),
});
const bad = fc.oneof(
  fc.record({ len: fc.constantFrom(0, 65537, 2 ** 32 - 1) }),
  fc.record({ flags: fc.constantFrom(1, 1 << 16, 0x20000000, 0x80000000) }),
  fc.record({ src: fc.constantFrom(-8, 0.5, 2 ** 53, 2 ** 60) }),
  fc.record({ dst: fc.constantFrom(-1, 1.25, 2 ** 53) }),
  // only in columns of any numbers
  fc.record({ len: fc.constantFrom(1.5, 2 ** 32 + 1, -1, NaN) }),
  fc.record({ flags: fc.constantFrom(0.5, 2 ** 32 + LEN_CTRL.FIRST, -LEN_CTRL.LAST) }),
);
/** Mostly good pairs, one in about 40 with a bad field. */
const pair = fc
  .tuple(
    good,
    fc.oneof({ arbitrary: fc.constant(null), weight: 39 }, { arbitrary: bad, weight: 1 }),
  )
  .map(([g, b]) => ({ ...g, ...(b ?? {}) }));

function columns(
  pairs: Array<{ src: number; dst: number; len: number; flags: number }>,
  anyNumbers = false,
): Columns {
  const Words = anyNumbers ? Float64Array : Uint32Array;
  const c = {
    src: new Float64Array(pairs.length),
    dst: new Float64Array(pairs.length),
    len: new Words(pairs.length),
    flags: new Words(pairs.length),
  };
  pairs.forEach((p, i) => {
    c.src[i] = p.src;
    c.dst[i] = p.dst;
    c.len[i] = p.len;
    c.flags[i] = p.flags;
  });
  return c;
}

function errorOf(fn: () => void): NxdmaError | null {
  try {
    fn();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(NxdmaError);
    return e as NxdmaError;
  }
}

describe('BdRings.putCopyPairs: a run of copy pairs in one pass', () => {
  it.each([
    ['typed columns', false],
    ['columns of any numbers', true],
  ])(
    '%s: writes what one putCopyPair per pair writes, wrapping each ring to slot 0 under the next ring id, and stops at the same refused pair',
    (_, anyNumbers) => {
      const seen = { refused: 0, whole: 0, wrapped: 0 };
      fc.assert(
        fc.property(
          fc.array(pair, { minLength: 0, maxLength: 100 }),
          fc.integer({ min: 1, max: 24 }),
          fc.integer({ min: 1, max: 24 }),
          fc.nat(),
          fc.nat(),
          fc.nat({ max: 3 }),
          fc.nat({ max: 3 }),
          fc.nat(),
          (pairs, txSlots, rxSlots, t0, r0, tr0, rr0, cut) => {
            const c = columns(pairs, anyNumbers);
            const from = pairs.length === 0 ? 0 : cut % (pairs.length + 1);
            const count = pairs.length - from;
            const txSlot = t0 % txSlots;
            const rxSlot = r0 % rxSlots;
            const fast = new BdRings(new Uint32Array(txSlots * 4), new Uint32Array(rxSlots * 4));
            const slow = new BdRings(new Uint32Array(txSlots * 4), new Uint32Array(rxSlots * 4));
            const n = fast.putCopyPairs(c, from, count, txSlot, tr0, rxSlot, rr0);
            // the reference: one putCopyPair per pair, the wrap by the ring rules
            let t = txSlot;
            let tr = tr0;
            let r = rxSlot;
            let rr = rr0;
            let written = 0;
            let refused: NxdmaError | null = null;
            for (let i = from; i < from + count; i++) {
              refused = errorOf(() =>
                slow.putCopyPair(t, tr, r, rr, c.len[i], c.flags[i], c.src[i], c.dst[i]),
              );
              // the pair as the two positional encoders write it (or refuse it)
              const enc = errorOf(() => {
                putTx(probe, 0, c.len[i], tr, c.flags[i], c.src[i]);
                putRx(probe, 16, c.len[i], rr, c.flags[i] & ~LEN_CTRL.DMB, c.dst[i]);
              });
              expect(refused?.details.where ?? null).toBe(enc?.details.where ?? null);
              if (!refused) {
                expect(Array.from(slow.tx.subarray(4 * t, 4 * t + 4))).toEqual(
                  Array.from(probe.subarray(0, 4)),
                );
                expect(Array.from(slow.rx.subarray(4 * r, 4 * r + 4))).toEqual(
                  Array.from(probe.subarray(4, 8)),
                );
              }
              if (refused) {
                const e = fast.pairError(t, tr, r, rr, c.len[i], c.flags[i], c.src[i], c.dst[i]);
                expect([e.code, e.details.where, e.message]).toEqual([
                  refused.code,
                  refused.details.where,
                  refused.message,
                ]);
                break;
              }
              written++;
              if (++t === txSlots) [t, tr, seen.wrapped] = [0, nextRingId(tr), seen.wrapped + 1];
              if (++r === rxSlots) [r, rr] = [0, nextRingId(rr)];
            }
            expect(n).toBe(written);
            expect(refused === null).toBe(n === count);
            seen[refused ? 'refused' : 'whole']++;
            expect(Array.from(fast.tx)).toEqual(Array.from(slow.tx));
            expect(Array.from(fast.rx)).toEqual(Array.from(slow.rx));
          },
        ),
        { numRuns: 400 },
      );
      // the inputs reach every case
      expect(Math.min(seen.refused, seen.whole, seen.wrapped)).toBeGreaterThan(0);
    },
  );

  it('checks the start first: a bad slot, ring id or range throws and writes nothing', () => {
    const rings = new BdRings(new Uint32Array(64), new Uint32Array(64));
    const c = columns([{ src: 0x1000, dst: 0x2000, len: 64, flags: 0 }]);
    const cases: Array<[() => unknown, string, string]> = [
      [() => rings.putCopyPairs(c, 0, 1, 16, 1, 0, 1), 'OUT_OF_RANGE', 'tx.slot'],
      [() => rings.putCopyPairs(c, 0, 1, 0, 1, 0.5, 1), 'OUT_OF_RANGE', 'rx.slot'],
      [() => rings.putCopyPairs(c, 0, 1, 0, 4, 0, 1), 'BAD_ARGUMENT', 'tx.len_ctrl.ring_id'],
      [() => rings.putCopyPairs(c, 0, 1, 0, 1, 0, -1), 'BAD_ARGUMENT', 'rx.len_ctrl.ring_id'],
      [() => rings.putCopyPairs(c, 0, 2, 0, 1, 0, 1), 'BAD_ARGUMENT', 'BdRings.putCopyPairs'],
      [() => rings.putCopyPairs(c, -1, 1, 0, 1, 0, 1), 'BAD_ARGUMENT', 'BdRings.putCopyPairs'],
      [() => rings.putCopyPairs(c, 0, 0.5, 0, 1, 0, 1), 'BAD_ARGUMENT', 'BdRings.putCopyPairs'],
    ];
    for (const [fn, code, where] of cases) {
      const e = errorOf(fn);
      expect([e?.code, e?.details.where]).toEqual([code, where]);
    }
    expect(rings.putCopyPairs(c, 1, 0, 99, 9, 99, 9)).toBe(0);
    expect(rings.tx.every((w) => w === 0) && rings.rx.every((w) => w === 0)).toBe(true);
  });
});
