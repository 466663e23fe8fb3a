import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MockDevice } from '../../../mocks/device.ts';
import { QueuePair, bringUp } from '../helpers.ts';

/** Bounded in CI; NXDMA_FUZZ_RUNS raises the count. */
const RUNS = Number(process.env.NXDMA_FUZZ_RUNS ?? 60);

const RING_AREA = 0x10000;
const RING = 32;

type Op =
  | { kind: 'reg'; m2s: boolean; index: number; value: number }
  | { kind: 'doorbell'; tx: boolean; q: number; n: number }
  | { kind: 'ring'; offset: number; bytes: number[] }
  | { kind: 'step' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('reg' as const),
    m2s: fc.boolean(),
    index: fc.nat(),
    value: fc.oneof(fc.nat({ max: 0xffffffff }), fc.constantFrom(0, 1, 32, 0x30000, 0xffffffff)),
  }),
  fc.record({
    kind: fc.constant('doorbell' as const),
    tx: fc.boolean(),
    q: fc.integer({ min: 0, max: 1 }),
    n: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({
    kind: fc.constant('ring' as const),
    offset: fc.integer({ min: 0, max: 4 * RING * 16 - 16 }),
    bytes: fc.array(fc.nat({ max: 255 }), { minLength: 16, maxLength: 16 }),
  }),
  fc.constant({ kind: 'step' as const }),
);

describe('mock engine fed random rings, registers and doorbells', () => {
  it('never throws, never leaves the declared memory, keeps pointers inside the rings', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const dev = new MockDevice({
          autoRun: 'none',
          memory: [
            { name: 'host', base: 0, size: 1 << 20 },
            { name: 'dram', base: 2 ** 32, size: 1 << 16 },
          ],
        });
        const u = dev.udma(0);
        bringUp(u);
        const qps = [0, 1].map(
          (q) => new QueuePair(dev, u, q, RING, RING_AREA + q * 2 * RING * 16),
        );
        // Sensible descriptors to start from: a few copies on each queue.
        for (const qp of qps)
          for (let i = 0; i < 3; i++) qp.copy(0x80000, 2 ** 32 + i * 4096, 100 + i);
        const regs = [u.m2s, u.s2m].map((f) =>
          f.model.instances.filter((i) => i.register.writable),
        );
        for (const o of ops) {
          if (o.kind === 'reg') {
            const list = regs[o.m2s ? 0 : 1];
            const inst = list[o.index % list.length];
            (o.m2s ? u.m2s : u.s2m).write32(inst.offset, o.value);
          } else if (o.kind === 'doorbell') {
            if (o.tx) qps[o.q].ringTx(o.n);
            else qps[o.q].ringRx(o.n);
          } else if (o.kind === 'ring') {
            dev.memory.write(RING_AREA + o.offset, Uint8Array.from(o.bytes));
          } else {
            dev.step();
          }
        }
        expect(() => dev.runUntilIdle({ maxPackets: 10_000 })).not.toThrow();
        for (let q = 0; q < 2; q++) {
          const s = u.queueStats(q);
          for (const h of [s.m2s, s.s2m]) {
            expect(h.headOffset).toBeGreaterThanOrEqual(0);
            expect(h.headRingId).toBeLessThan(4);
            expect(Number.isFinite(h.bytes)).toBe(true);
          }
        }
        for (const f of dev.faults()) expect(typeof f.message).toBe('string');
      }),
      { seed: 20261129, numRuns: RUNS },
    );
  });
});
