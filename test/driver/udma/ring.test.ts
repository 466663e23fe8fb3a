import { describe, expect, it } from 'vitest';
import {
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  validateRing,
  type RingSpec,
} from '../../../driver/udma/index.ts';
import { RingProducer } from '../../../driver/udma/ring.ts';
import { expectCode, rig, rings } from './helpers.ts';

const where = 'udma0 queue 3 TX ring';

function ringError(spec: RingSpec): string {
  const { dev } = rig();
  return expectCode(() => validateRing(spec, dev.memory, where), 'RING_INVALID').message;
}

describe('ring validation (UDMA-FACTS "Rings")', () => {
  it('ring base must be a device address', () => {
    expect(ringError({ base: -256, size: 32 })).toContain('-256');
    expect(ringError({ base: 0.5, size: 32 })).toContain('0.5');
    expect(ringError({ base: 2 ** 53, size: 32 })).toContain(String(2 ** 53));
  });

  it('ring size must be an integer number of descriptors', () => {
    expect(ringError({ base: 0x1000, size: 32.5 })).toContain('32.5');
  });

  it('ring size at least 32 descriptors', () => {
    const m = ringError({ base: 0x1000, size: MIN_RING_SIZE - 16 });
    expect(m).toContain('16');
    expect(m).toContain('minimum of 32');
  });

  it('ring size at most 2^24 - 16 descriptors', () => {
    const m = ringError({ base: 0x1000, size: MAX_RING_SIZE + 16 });
    expect(m).toContain(String(MAX_RING_SIZE + 16));
    expect(m).toContain('2^24 - 16');
    expect(MAX_RING_SIZE).toBe(16777200);
  });

  it('ring base 256-byte aligned, the message naming the base', () => {
    for (const base of [0x1040, 0x1080, 0x10c0, 0x1010]) {
      expect(ringError({ base, size: 32 })).toContain(`0x${base.toString(16)}`);
    }
  });

  it('ring end 256-byte aligned: the size a multiple of 16', () => {
    const m = ringError({ base: 0x1000, size: 33 });
    expect(m).toContain('0x1210'); // 0x1000 + 33 * 16
    expect(m).toContain('33');
    expect(m).toContain('multiple of 16');
  });

  it('ring inside mapped memory', () => {
    const { dev } = rig();
    const host = dev.memory.region('host');
    // Straddles the end of the host region.
    const base = host.end - 16 * 16;
    const e = expectCode(() => validateRing({ base, size: 32 }, dev.memory, where), 'RING_INVALID');
    expect(e.message).toContain(`0x${base.toString(16)}`);
    expect(e.message).toContain('not inside mapped device memory');
    expectCode(
      () => validateRing({ base: 0x8000_0000, size: 32 }, dev.memory, where),
      'RING_INVALID',
    );
  });

  it('the smallest and largest legal rings pass', () => {
    const { dev } = rig();
    validateRing({ base: 0, size: MIN_RING_SIZE }, dev.memory, where);
    validateRing({ base: 0x100, size: 48 }, dev.memory, where);
    validateRing({ base: 0, size: MAX_RING_SIZE }, null, where);
  });
});

describe('initQueue', () => {
  it('rejects bad rings naming the ring, and writes nothing', () => {
    const { eng, trace } = rig();
    const e1 = expectCode(
      () => eng.initQueue(2, { tx: { base: 0x100040, size: 64 }, rx: rings(2).rx }),
      'RING_INVALID',
    );
    expect(e1.message).toContain('udma0 queue 2 TX ring');
    expect(e1.message).toContain('0x100040');
    const e2 = expectCode(
      () => eng.initQueue(2, { tx: rings(2).tx, rx: { base: 0x128000, size: 20 } }),
      'RING_INVALID',
    );
    expect(e2.message).toContain('queue 2 RX ring');
    expectCode(() => eng.initQueue(2, undefined as never), 'RING_INVALID');
    expect(trace).toEqual([]);
  });

  it('rejects overlapping rings (its own pair and other queues), writing nothing', () => {
    const { eng, trace } = rig();
    const e = expectCode(
      () =>
        eng.initQueue(0, { tx: { base: 0x100000, size: 64 }, rx: { base: 0x100200, size: 64 } }),
      'MEMORY_OVERLAP',
    );
    expect(e.message).toContain('0x100200');
    eng.initQueue(0, rings(0));
    trace.length = 0;
    const e2 = expectCode(
      () => eng.initQueue(1, { tx: rings(0).rx, rx: rings(1).rx }),
      'MEMORY_OVERLAP',
    );
    expect(e2.message).toContain('queue 0 RX');
    expect(trace).toEqual([]);
    // Re-initializing a queue on its own rings is fine.
    eng.initQueue(0, rings(0));
  });

  it('queue index must exist; an uninitialized queue is QUEUE_STATE', () => {
    const { eng } = rig();
    expectCode(() => eng.initQueue(16, rings(0)), 'BAD_ARGUMENT');
    expectCode(() => eng.initQueue(-1, rings(0)), 'BAD_ARGUMENT');
    expectCode(() => eng.queue(3), 'QUEUE_STATE');
    expectCode(() => eng.copy(0, 0x1000, 16, { queue: 3 }), 'QUEUE_STATE');
  });

  it('programs the public queue-init sequence on both halves, with no read after bring-up', () => {
    const { eng, trace } = rig();
    eng.initQueue(5, { tx: { base: 0x1_0000_4000, size: 32 }, rx: { base: 0x200000, size: 48 } });
    expect(trace.filter((t) => t.op === 'read')).toEqual([]);
    const w = trace.map((t) => [t.file.slice(-3), t.path, t.value]);
    expect(w).toEqual([
      ['m2s', 'M2S_Q[5].cfg', 0x03000000],
      ['m2s', 'M2S_Q[5].q_sw_ctrl', 1 << 8],
      ['m2s', 'M2S_Q[5].tdrbp_low', 0x4000],
      ['m2s', 'M2S_Q[5].tdrbp_high', 1],
      ['m2s', 'M2S_Q[5].tdrl', 32],
      ['m2s', 'M2S_Q[5].comp_cfg', 0],
      ['m2s', 'M2S_Q[5].cfg', 0x03030000],
      ['s2m', 'S2M_Q[5].cfg', 0x03000000],
      ['s2m', 'S2M_Q[5].q_sw_ctrl', 1 << 8],
      ['s2m', 'S2M_Q[5].rdrbp_low', 0x200000],
      ['s2m', 'S2M_Q[5].rdrbp_high', 0],
      ['s2m', 'S2M_Q[5].rdrl', 48],
      ['s2m', 'S2M_Q[5].comp_cfg', 0],
      ['s2m', 'S2M_Q[5].cfg', 0x03020000],
    ]);
  });
});

describe('RingProducer.advanceBy', () => {
  it('moves the tail, ring id and produced count as n single advances do', () => {
    const { dev } = rig();
    for (const size of [32, 48]) {
      for (const start of [0, 5, size - 1, 3 * size + 7]) {
        for (const n of [0, 1, size - 1, size]) {
          const a = new RingProducer('tx', { base: 0x100000, size }, dev.memory);
          const b = new RingProducer('tx', { base: 0x100000, size }, dev.memory);
          for (let i = 0; i < start; i++) {
            a.advance();
            b.advance();
          }
          a.advanceBy(n);
          for (let i = 0; i < n; i++) b.advance();
          expect([a.tail, a.ringId, a.produced]).toEqual([b.tail, b.ringId, b.produced]);
        }
      }
    }
  });
});
