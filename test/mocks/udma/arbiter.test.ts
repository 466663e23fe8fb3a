import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arbiter, type ArbiterMode } from '../../../mocks/udma/arbiter.ts';

const RR: ArbiterMode = { forceRR: true, enDwrr: false, pktMode: false, incFactor: 7 };

/** Drives the arbiter over finite per-queue packet lists until all are served; returns the grant order. */
function drain(
  packets: number[][],
  mode: ArbiterMode,
  qos: number[] = [],
  weight: number[] = [],
): number[] {
  const n = packets.length;
  const a = new Arbiter(n);
  const heads = new Array<number>(n).fill(0);
  const order: number[] = [];
  for (;;) {
    for (let q = 0; q < n; q++) {
      a.ready[q] = heads[q] < packets[q].length ? 1 : 0;
      a.cost[q] = packets[q][heads[q]] ?? 0;
      a.qos[q] = qos[q] ?? 0;
      a.weight[q] = weight[q] ?? 1;
    }
    const q = a.select(mode);
    if (q < 0) return order;
    order.push(q);
    heads[q]++;
  }
}

/**
 * Textbook deficit round robin (Shreedhar & Varghese), turn by turn, one level: each turn adds the
 * queue's quantum and sends head packets while they fit; an emptied queue's deficit drops to 0.
 */
function referenceDrr(packets: number[][], quantum: number[], pktMode: boolean): number[] {
  const n = packets.length;
  const heads = new Array<number>(n).fill(0);
  const deficit = new Array<number>(n).fill(0);
  const order: number[] = [];
  const left = () => heads.some((h, q) => h < packets[q].length);
  let q = 0;
  while (left()) {
    if (heads[q] < packets[q].length) {
      deficit[q] += quantum[q];
      for (;;) {
        if (heads[q] >= packets[q].length) {
          deficit[q] = 0;
          break;
        }
        const c = pktMode ? 1 : packets[q][heads[q]];
        if (c > deficit[q]) break;
        deficit[q] -= c;
        order.push(q);
        heads[q]++;
      }
    }
    q = (q + 1) % n;
  }
  return order;
}

describe('arbiter (pure)', () => {
  it('round robin serves ready queues in circular order', () => {
    expect(drain([[1, 1], [5000, 5000, 5000], [], [7]], RR)).toEqual([0, 1, 3, 0, 1, 1]);
  });

  it('pref_force_rr ignores levels and weights', () => {
    expect(
      drain(
        [
          [1, 1],
          [1, 1],
        ],
        RR,
        [0, 9],
        [1, 200],
      ),
    ).toEqual([0, 1, 0, 1]);
  });

  it('strict priority between q_qos levels, round robin within a level', () => {
    const mode = { ...RR, forceRR: false };
    expect(drain([[1], [1, 1], [1, 1], [1]], mode, [0, 3, 3, 1])).toEqual([1, 2, 1, 2, 3, 0]);
  });

  it('DWRR equals textbook deficit round robin (byte and packet mode, random traffic)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 1, max: 70000 }), { maxLength: 30 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 0, max: 9 }),
        fc.boolean(),
        (packets, weights, incFactor, pktMode) => {
          const mode: ArbiterMode = { forceRR: false, enDwrr: true, pktMode, incFactor };
          const quantum = packets.map((_, q) => Math.max(weights[q], 1) * 2 ** incFactor);
          expect(drain(packets, mode, [], weights)).toEqual(
            referenceDrr(packets, quantum, pktMode),
          );
        },
      ),
      { seed: 0x5eed, numRuns: 300 },
    );
  });

  it('DWRR only shares within the highest ready level', () => {
    const mode: ArbiterMode = { forceRR: false, enDwrr: true, pktMode: false, incFactor: 0 };
    const order = drain([[100, 100], [100], [100, 100]], mode, [1, 2, 1], [1, 1, 1]);
    expect(order[0]).toBe(1);
    expect(order.slice(1).sort()).toEqual([0, 0, 2, 2]);
  });

  it('grants the same with the ready queues given as a mask as from its ready array', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 31 }),
        fc.record({
          forceRR: fc.boolean(),
          enDwrr: fc.boolean(),
          pktMode: fc.boolean(),
          incFactor: fc.nat({ max: 9 }),
          weightInc: fc.nat({ max: 3 }),
        }),
        fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 20 }), fc.boolean(), fc.nat(3000))),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 40 })), {
          minLength: 1,
          maxLength: 120,
        }),
        (n, mode, perQueue, steps) => {
          const [byMask, byArray] = [new Arbiter(n), new Arbiter(n)];
          for (const a of [byMask, byArray]) {
            perQueue.slice(0, n).forEach(([level, weight, strict, cap], q) => {
              a.qos[q] = level;
              a.weight[q] = weight;
              a.strict[q] = strict && cap % 3 === 0 ? 1 : 0;
              a.maxDeficit[q] = cap % 4 === 0 ? cap : Infinity;
            });
          }
          for (const [bits, costs, reset] of steps) {
            const mask = bits & ((2 ** n - 1) | 0);
            for (const a of [byMask, byArray]) {
              for (let q = 0; q < n; q++) {
                a.ready[q] = (mask >>> q) & 1;
                a.cost[q] = 1 + ((costs * (q + 1)) % 70000);
              }
              if (reset < n) a.resetQueue(reset, costs % 500);
            }
            expect(byMask.select(mode, mask)).toBe(byArray.select(mode));
            for (const k of ['deficit', 'rounds'] as const)
              expect(Array.from(byMask[k])).toEqual(Array.from(byArray[k]));
          }
          expect(byMask.lastRoundRobin).toBe(byArray.lastRoundRobin);
        },
      ),
      { seed: 0x5eed, numRuns: 300 },
    );
  });

  it('selectAlone decides and leaves every state as the general scans do', () => {
    /** Everything a decision reads or writes, private pointers included. */
    const state = (a: Arbiter) => {
      const p = a as unknown as { levelLast: Int16Array; strictLast: Int16Array };
      return {
        deficit: Array.from(a.deficit),
        rounds: Array.from(a.rounds),
        levelLast: Array.from(p.levelLast),
        strictLast: Array.from(p.strictLast),
        rr: a.lastRoundRobin,
      };
    };
    let alone = 0;
    let general = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 31 }),
        fc.array(
          fc.record({
            level: fc.nat({ max: 3 }),
            weight: fc.nat({ max: 255 }),
            strict: fc.nat({ max: 5 }),
            cap: fc.oneof(fc.constant(Infinity), fc.nat({ max: 70000 })),
          }),
          { maxLength: 31 },
        ),
        fc.array(
          fc.record({
            // one queue (the shortcut's case) or any subset of them
            one: fc.boolean(),
            bits: fc.nat(),
            cost: fc.nat({ max: 1 << 20 }),
            mode: fc.record({
              forceRR: fc.constantFrom(false, false, false, true),
              enDwrr: fc.constantFrom(true, true, false),
              pktMode: fc.boolean(),
              incFactor: fc.nat({ max: 15 }),
              weightInc: fc.nat({ max: 3 }),
            }),
            // 0: nothing, 1: a queue reset, 2: every deficit set
            event: fc.constantFrom(0, 0, 0, 0, 1, 2),
            at: fc.nat({ max: 40 }),
            value: fc.nat({ max: 5000 }),
          }),
          { minLength: 1, maxLength: 150, size: 'max' },
        ),
        (n, perQueue, steps) => {
          const fast = new Arbiter(n);
          const slow = new Arbiter(n);
          slow.alone = false;
          for (const a of [fast, slow]) {
            perQueue.slice(0, n).forEach(({ level, weight, strict, cap }, q) => {
              a.qos[q] = level;
              a.weight[q] = weight;
              a.strict[q] = strict === 0 ? 1 : 0;
              a.maxDeficit[q] = cap;
            });
          }
          for (const { one, bits, cost, mode, event, at, value } of steps) {
            const mask = one ? 1 << (bits % n) : bits & ((2 ** n - 1) | 0);
            for (const a of [fast, slow]) {
              for (let q = 0; q < n; q++) {
                a.ready[q] = (mask >>> q) & 1;
                a.cost[q] = 1 + ((cost * (q + 1)) % 70000);
              }
              if (event === 1 && at < n) a.resetQueue(at, value);
              if (event === 2) a.initDeficits(value);
            }
            const got = fast.select(mode, mask);
            expect(got).toBe(slow.select(mode, mask));
            expect(state(fast)).toEqual(state(slow));
            // (counted: the highest ready level held one ready queue, or several)
            let top = -1;
            let at2 = 0;
            for (let q = 0; q < n; q++)
              if ((mask >>> q) & 1) {
                if (fast.qos[q] > top) [top, at2] = [fast.qos[q], 1];
                else if (fast.qos[q] === top) at2++;
              }
            if (!mode.forceRR && at2 === 1) alone++;
            else general++;
          }
        },
      ),
      { seed: 0x5eed, numRuns: 300 },
    );
    // Both kinds of decision were drawn many times.
    expect(alone).toBeGreaterThan(5000);
    expect(general).toBeGreaterThan(5000);
  });
});
