/**
 * driver/udma/ops.ts's completion FIFO (runs of operations) against a FIFO of one entry per
 * operation (its RX end, TX end and bytes): the same retirements, TX consumption, counters and
 * statuses over random sequences of pushes, doorbells, retirements and resets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpLog } from '../../../driver/udma/ops.ts';
import type { RingProducer } from '../../../driver/udma/ring.ts';

/** The one-entry-per-operation FIFO and the counters retire() keeps. */
class Reference {
  ends: { rx: number; tx: number; bytes: number }[] = [];
  seq = 0;
  lastDone = 0;
  completed = 0;
  bytes = 0;
  push(rx: number, tx: number, bytes: number): number {
    this.ends.push({ rx, tx, bytes });
    return ++this.seq;
  }
  /** Returns the operations retired and the last one's TX end (-1: none). */
  retire(rxConsumed: number): [number, number] {
    let done = 0;
    let txDone = -1;
    while (this.ends.length > 0 && this.ends[0].rx <= rxConsumed) {
      const e = this.ends.shift()!;
      this.bytes += e.bytes;
      txDone = e.tx;
      done++;
    }
    if (done === 0) return [0, -1];
    this.completed += done;
    this.lastDone = this.seq - this.ends.length;
    return [done, txDone];
  }
  dropAll(): void {
    this.ends = [];
  }
}

type Step =
  | { op: 'push'; n: number; rx: number; tx: number; bytes: number }
  | { op: 'retire'; ahead: number }
  | { op: 'ring' }
  | { op: 'reset' };

const step: fc.Arbitrary<Step> = fc.oneof(
  // `n` operations in a row, each taking rx / tx descriptors (0 for an empty copy) and bytes:
  // batches of equal copies, and single copies of other shapes in between.
  fc.record({
    op: fc.constant('push' as const),
    n: fc.integer({ min: 1, max: 40 }),
    rx: fc.integer({ min: 0, max: 3 }),
    tx: fc.integer({ min: 0, max: 3 }),
    bytes: fc.oneof(fc.constant(64), fc.integer({ min: 0, max: 3 * 65536 })),
  }),
  fc.record({
    op: fc.constant('push' as const),
    n: fc.constant(1),
    rx: fc.integer({ min: 1, max: 3 }),
    tx: fc.integer({ min: 1, max: 3 }),
    bytes: fc.nat(5000),
  }),
  // The engine consumes up to `ahead` more RX descriptors (at most what was produced).
  fc.record({ op: fc.constant('retire' as const), ahead: fc.integer({ min: 0, max: 120 }) }),
  fc.constant({ op: 'ring' as const }),
  fc.constant({ op: 'reset' as const }),
);

describe('OpLog completion FIFO', () => {
  it('retires, reports and counts exactly as a FIFO of one entry per operation', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const log = new OpLog(0, 0);
        const ref = new Reference();
        const txSeen: number[] = [];
        const tx = { consumedAtLeast: (n: number) => txSeen.push(n) } as unknown as RingProducer;
        const refTx: number[] = [];
        // The producers' counts (restarted by a reset, as reprogramming restarts the producers).
        let rxProduced = 0;
        let txProduced = 0;
        let rxConsumed = 0;
        for (const s of steps) {
          if (s.op === 'push') {
            for (let i = 0; i < s.n; i++) {
              rxProduced += s.rx;
              txProduced += s.tx;
              expect(log.push(rxProduced, txProduced, s.bytes)).toBe(
                ref.push(rxProduced, txProduced, s.bytes),
              );
            }
          } else if (s.op === 'retire') {
            rxConsumed = Math.min(rxProduced, rxConsumed + s.ahead);
            const [done, txDone] = ref.retire(rxConsumed);
            if (done > 0) refTx.push(txDone);
            expect(log.retire(rxConsumed, tx)).toBe(done);
          } else if (s.op === 'ring') {
            log.rung(0);
          } else {
            log.dropAll();
            ref.dropAll();
            rxProduced = txProduced = rxConsumed = 0;
          }
          expect(log.inFlight).toBe(ref.ends.length);
          expect(txSeen).toEqual(refTx);
          const st = log.stats(false);
          expect([st.completed, st.bytes, st.inFlight]).toEqual([
            ref.completed,
            ref.bytes,
            ref.ends.length,
          ]);
        }
        expect(log.seq).toBe(ref.seq);
        if (ref.completed > 0) expect(log.lastDoneSeq).toBe(ref.lastDone);
        for (let s = 1; s <= ref.seq; s++) expect(log.statusOf(s)).not.toBe('unknown');
      }),
      { numRuns: 400 },
    );
  });

  it('holds a full 65,536-operation lap of equal copies and retires it in parts', () => {
    const log = new OpLog(0, 0);
    const tx = { consumedAtLeast: () => {} } as unknown as RingProducer;
    for (let i = 1; i <= 65536; i++) log.push(i, i, 64);
    expect(log.inFlight).toBe(65536);
    expect(log.retire(1000.5, tx)).toBe(1000);
    expect(log.retire(65536, tx)).toBe(64536);
    expect(log.stats(false)).toMatchObject({ completed: 65536, bytes: 65536 * 64, inFlight: 0 });
  });
});
