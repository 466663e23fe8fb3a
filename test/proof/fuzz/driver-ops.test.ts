/**
 * driver/udma fed random sequences of calls (copies and batches with good and bad arguments,
 * pause, resume, reset, poll, engine steps) on two queues of a mock engine with small rings, so
 * that rings fill, wrap and reset under load.
 *
 * Properties:
 *  - only NxdmaError escapes;
 *  - a refused call changes nothing: not the register images, not a byte of memory (rings, source,
 *    destinations), not the producer positions, not the submission counters (RING_FULL adds to
 *    `refused`; reading a head may retire completed copies, which is learning, not a change);
 *  - at the end every copy the driver reports complete holds exactly its source bytes, a copy a
 *    reset dropped is reported incomplete, and nothing outside the copies' ranges changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import type { UdmaQueue } from '../../../driver/udma/queue.ts';
import { MockDevice } from '../../../mocks/device.ts';
import { fuzz, outcome } from '../../support/fuzz.ts';
import { Arena, pattern, type Expected } from '../support/arena.ts';

const RING = 32;
const SRC = 0x10_0000;
const SRC_SIZE = 0x4_0000;
const DST = 2 ** 32;
const DST_SIZE = 0x40_0000;

type Bad = 'none' | 'zero' | 'negative' | 'fraction' | 'nan' | 'overlap' | 'unmapped' | 'huge';
const badArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Bad>('none') },
  fc.constantFrom<Bad>('zero', 'negative', 'fraction', 'nan', 'overlap', 'unmapped', 'huge'),
);
const copyArb = fc.record({
  len: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 3000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 65_000, max: 140_000 }) },
  ),
  srcOff: fc.nat({ max: SRC_SIZE - 140_001 }),
  bad: badArb,
});
type CopyArg = { len: number; srcOff: number; bad: Bad };
type Op =
  | { k: 'copy'; q: number; c: CopyArg }
  | { k: 'batch'; q: number; cs: CopyArg[] }
  | { k: 'pause' | 'resume' | 'reset' | 'poll'; q: number }
  | { k: 'step'; n: number };
const qArb = fc.constantFrom(0, 1, 1, 2); // queue 2 is never initialized
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ k: fc.constant('copy' as const), q: qArb, c: copyArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('batch' as const),
      q: qArb,
      cs: fc.array(copyArb, { maxLength: 12 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constantFrom('pause', 'resume', 'reset', 'poll'), q: qArb }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ k: fc.constant('step' as const), n: fc.integer({ min: 1, max: 20 }) }),
  },
) as fc.Arbitrary<Op>;

interface Submitted {
  q: number;
  seq: number;
  src: number;
  dst: number;
  len: number;
}

function deviceImage(dev: MockDevice): Buffer {
  const u = dev.udma(0);
  return Buffer.concat([
    Buffer.from(u.m2s.words.slice().buffer),
    Buffer.from(u.s2m.words.slice().buffer),
    Buffer.from(dev.memory.view(0, SRC + SRC_SIZE)!),
    Buffer.from(dev.memory.view(DST, DST_SIZE)!),
  ]);
}

function driverImage(q: UdmaQueue): unknown {
  const s = q.stats();
  return [
    q.tx.tail,
    q.tx.ringId,
    q.tx.produced,
    q.rx.tail,
    q.rx.ringId,
    q.rx.produced,
    s.submitted,
    s.descriptors,
    s.bytesSubmitted,
    s.discarded,
    s.paused,
  ];
}

describe('driver/udma fed random calls (fuzz)', () => {
  it('refused calls change nothing; completed copies are exact; nothing outside the copies changes', async () => {
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const dev = new MockDevice({
          engines: [0],
          autoRun: 'none',
          strict: true,
          memory: [
            { name: 'host', base: 0, size: SRC + SRC_SIZE },
            { name: 'dram', base: DST, size: DST_SIZE },
          ],
        });
        const eng = new UdmaEngine(dev, 0);
        eng.bringUp();
        const queues = [0, 1].map((q) =>
          eng.initQueue(q, {
            tx: { base: 0x1000 + q * 0x1000, size: RING },
            rx: { base: 0x1000 + q * 0x1000 + 0x800, size: RING },
          }),
        );
        const src = new Arena(dev, SRC, SRC_SIZE, pattern(SRC_SIZE, 3));
        const dst = new Arena(dev, DST, DST_SIZE, 0xa5);
        const copies: Submitted[] = [];
        let next = DST; // every accepted copy gets fresh destination bytes
        const args = (c: CopyArg): [number, number, number] => {
          const s = SRC + c.srcOff;
          const d = next;
          switch (c.bad) {
            case 'zero':
              return [s, d, 0];
            case 'negative':
              return [s, d, -c.len];
            case 'fraction':
              return [s, d, c.len + 0.5];
            case 'nan':
              return [s, Number.NaN, c.len];
            case 'overlap':
              return [s, s + 1, c.len];
            case 'unmapped':
              return [s, DST + DST_SIZE - 8, c.len + 8];
            case 'huge':
              return [2 ** 53, d, c.len];
            default:
              return [s, d, c.len];
          }
        };
        for (const op of ops) {
          if (op.k === 'step') {
            for (let i = 0; i < op.n; i++) dev.step();
            continue;
          }
          const beforeDev = deviceImage(dev);
          const beforeDrv = queues.map(driverImage);
          const refusedBefore = queues.map((q) => q.stats().refused);
          const batchArgs = op.k === 'batch' ? op.cs.map(args) : [];
          const copyArgs = op.k === 'copy' ? args(op.c) : null;
          const r = outcome(() => {
            switch (op.k) {
              case 'copy':
                return eng.copy(copyArgs![0], copyArgs![1], copyArgs![2], { queue: op.q });
              case 'batch': {
                // fresh destinations inside the batch too
                let d = next;
                const reqs = batchArgs.map(([s, dd, n], i) => {
                  const dest = op.cs[i].bad === 'none' ? d : dd;
                  if (op.cs[i].bad === 'none') d += op.cs[i].len + 16;
                  return { src: s, dst: dest, bytes: n };
                });
                return eng.copyBatch(op.q, reqs);
              }
              case 'pause':
                return eng.pause(op.q);
              case 'resume':
                return eng.resume(op.q);
              case 'reset':
                return eng.reset(op.q);
              case 'poll':
                return eng.queue(op.q).poll();
            }
          });
          if (!r.ok) {
            refused++;
            expect(deviceImage(dev).equals(beforeDev), `${op.k}: the device changed`).toBe(true);
            expect(queues.map(driverImage), `${op.k}: the driver changed`).toEqual(beforeDrv);
            queues.forEach((q, i) => {
              const grew = q.stats().refused - refusedBefore[i];
              expect(grew === 0 || (r.error.code === 'RING_FULL' && i === op.q)).toBe(true);
            });
            continue;
          }
          accepted++;
          // record what was submitted (sequence numbers count per queue, the last one returned)
          if (op.k === 'copy') {
            copies.push({
              q: op.q,
              seq: r.value as number,
              src: copyArgs![0],
              dst: copyArgs![1],
              len: copyArgs![2],
            });
            next += copyArgs![2] + 16;
          } else if (op.k === 'batch' && op.cs.length > 0) {
            const last = r.value as number;
            op.cs.forEach((c, i) => {
              copies.push({
                q: op.q,
                seq: last - op.cs.length + 1 + i,
                src: batchArgs[i][0],
                dst: next,
                len: c.len,
              });
              next += c.len + 16;
            });
          }
        }
        for (const q of [0, 1]) eng.resume(q);
        await eng.waitIdle({ timeoutMs: 5000 });
        const expected: Expected[] = [];
        for (const c of copies) {
          const done = queues[c.q].isComplete(c.seq);
          expected.push(
            done
              ? { addr: c.dst, len: c.len, data: src.bytes(c.src, c.len) }
              : { addr: c.dst, len: c.len },
          );
        }
        dst.expectOnly(expected);
        expect(src.untouched()).toBe(true);
        for (const q of queues) {
          const s = q.stats();
          expect(s.inFlight).toBe(0);
          expect(s.completed + s.discarded).toBe(s.submitted);
          expect(copies.filter((c) => queues[c.q] === q && q.isComplete(c.seq))).toHaveLength(
            s.completed,
          );
        }
        expect(dev.faults()).toEqual([]);
      }),
      fuzz(0xd21e0001, 60, 1000),
    );
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });
});
