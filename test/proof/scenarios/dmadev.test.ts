/**
 * The scenarios of DPDK's dmadev test suite (app/test/test_dmadev.c), run through driver/udma on
 * the mock device:
 *
 *  - argument validation: every bad argument is a typed error and changes no state;
 *  - a single copy;
 *  - bursts of 32 copies submitted as 1 x 32 and as 2 x 16, completed == submitted after every
 *    burst, over hundreds of iterations;
 *  - stop / start (queue pause / resume; engine disable / normal);
 *  - burst capacity: the room drops by one per enqueue and comes back after the drain, over enough
 *    laps to wrap the ring id.
 */
import { describe, expect, it } from 'vitest';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import { queueRegs } from '../../../driver/udma/queue-regs.ts';
import { reg } from '../../../driver/udma/regs.ts';
import { MockDevice, type RegisterAccessEvent } from '../../../mocks/index.ts';
import { expectNxdma, expectNxdmaAsync } from '../../support/fuzz.ts';
import { Arena, pattern } from '../support/arena.ts';

const SRC = 0x40_0000;
const SRC_SIZE = 0x40_0000;
const DST = 2 ** 32;
const DST_SIZE = 0x80_0000;
const TX = 0x10_0000;
const RX = 0x20_0000;

function setup(ring = 256, autoRun: 'none' | 'on-read' = 'none') {
  const trace: RegisterAccessEvent[] = [];
  const dev = new MockDevice({
    engines: [0],
    autoRun,
    strict: true,
    memory: [
      { name: 'host', base: 0, size: 0x80_0000 },
      { name: 'dram', base: DST, size: DST_SIZE },
    ],
    registerTrace: (e) => trace.push(e),
  });
  const eng = new UdmaEngine(dev, 0);
  eng.bringUp();
  const q = eng.initQueue(0, { tx: { base: TX, size: ring }, rx: { base: RX, size: ring } });
  const src = new Arena(dev, SRC, SRC_SIZE, pattern(SRC_SIZE, 11));
  const dst = new Arena(dev, DST, DST_SIZE, 0xa5);
  trace.length = 0;
  return { dev, eng, q, src, dst, trace };
}

function deviceImage(dev: MockDevice): Buffer {
  const u = dev.udma(0);
  return Buffer.concat([
    Buffer.from(u.m2s.words.slice().buffer),
    Buffer.from(u.s2m.words.slice().buffer),
    Buffer.from(dev.memory.view(0, 0x80_0000)!),
    Buffer.from(dev.memory.view(DST, DST_SIZE)!),
  ]);
}

describe('dmadev: argument validation', () => {
  it('every bad argument is a typed error naming it, and changes nothing on the device or in the driver', async () => {
    const { dev, eng, q, trace } = setup();
    const image = deviceImage(dev);
    const stats = JSON.stringify(q.stats());
    const bad: [string, () => unknown, ...Parameters<typeof expectNxdma>[1][]][] = [
      ['size 0', () => q.copy(SRC, DST, 0), 'BAD_ARGUMENT'],
      ['size -1', () => q.copy(SRC, DST, -1), 'BAD_ARGUMENT'],
      ['size 1.5', () => q.copy(SRC, DST, 1.5), 'BAD_ARGUMENT'],
      ['size NaN', () => q.copy(SRC, DST, Number.NaN), 'BAD_ARGUMENT'],
      ['size 2^53', () => q.copy(SRC, DST, 2 ** 53), 'BAD_ARGUMENT'],
      ['size as a string', () => q.copy(SRC, DST, '64' as unknown as number), 'BAD_ARGUMENT'],
      ['source -1', () => q.copy(-1, DST, 64), 'BAD_ARGUMENT'],
      ['source past 2^53', () => q.copy(2 ** 53 - 8, DST, 64), 'BAD_ARGUMENT'],
      ['destination NaN', () => q.copy(SRC, Number.NaN, 64), 'BAD_ARGUMENT'],
      ['overlapping buffers', () => q.copy(SRC, SRC + 32, 64), 'MEMORY_OVERLAP'],
      ['unmapped source', () => q.copy(0x7f_0000_0000, DST, 64), 'MEMORY_UNMAPPED'],
      [
        'destination running past memory',
        () => q.copy(SRC, DST + DST_SIZE - 8, 64),
        'MEMORY_UNMAPPED',
      ],
      ['queue 16', () => eng.copy(SRC, DST, 64, { queue: 16 }), 'BAD_ARGUMENT'],
      ['queue -1', () => eng.copy(SRC, DST, 64, { queue: -1 }), 'BAD_ARGUMENT'],
      ['uninitialized queue', () => eng.copy(SRC, DST, 64, { queue: 3 }), 'QUEUE_STATE'],
      ['batch not an array', () => q.copyBatch(null as never), 'BAD_ARGUMENT'],
      [
        'batch entry null',
        () => q.copyBatch([{ src: SRC, dst: DST, bytes: 8 }, null as never]),
        'BAD_ARGUMENT',
      ],
      [
        'batch entry bad',
        () =>
          q.copyBatch([
            { src: SRC, dst: DST, bytes: 8 },
            { src: SRC, dst: DST, bytes: 0 },
          ]),
        'BAD_ARGUMENT',
      ],
      [
        'ring base misaligned',
        () =>
          eng.initQueue(1, {
            tx: { base: 0x30_0010, size: 32 },
            rx: { base: 0x31_0000, size: 32 },
          }),
        'RING_INVALID',
      ],
      [
        'ring size 16',
        () =>
          eng.initQueue(1, {
            tx: { base: 0x30_0000, size: 16 },
            rx: { base: 0x31_0000, size: 32 },
          }),
        'RING_INVALID',
      ],
      [
        'ring size 40',
        () =>
          eng.initQueue(1, {
            tx: { base: 0x30_0000, size: 40 },
            rx: { base: 0x31_0000, size: 32 },
          }),
        'RING_INVALID',
      ],
      [
        'ring overlapping queue 0',
        () => eng.initQueue(1, { tx: { base: TX, size: 32 }, rx: { base: 0x31_0000, size: 32 } }),
        'MEMORY_OVERLAP',
      ],
      ['rings missing', () => eng.initQueue(1, undefined as never), 'RING_INVALID'],
      ['bring-up maxDescPerPkt 7', () => eng.bringUp({ maxDescPerPkt: 7 }), 'BAD_ARGUMENT'],
      ['bring-up maxDescPerPkt 129', () => eng.bringUp({ maxDescPerPkt: 129 }), 'BAD_ARGUMENT'],
      ['engine the profile lacks', () => new UdmaEngine(dev, 132), 'DEVICE_PROFILE'],
      ['engine not created', () => new UdmaEngine(dev, 1), 'BAD_ARGUMENT'],
    ];
    for (const [what, fn, ...codes] of bad) {
      const e = expectNxdma(fn, ...codes);
      expect(typeof e.details.where, what).toBe('string');
    }
    await expectNxdmaAsync(eng.waitIdle({ timeoutMs: -1 }), 'BAD_ARGUMENT');
    await expectNxdmaAsync(eng.waitIdle({ queue: 5 }), 'QUEUE_STATE');
    expect(trace.filter((t) => t.op === 'write')).toEqual([]);
    expect(deviceImage(dev).equals(image)).toBe(true);
    expect(JSON.stringify(q.stats())).toBe(stats);
    expect(eng.initializedQueues()).toEqual([0]);
  });
});

describe('dmadev: single copy', () => {
  it('one copy of 1024 bytes: one descriptor pair, two doorbells, completed == 1, data exact', async () => {
    const { dev, eng, q, src, dst, trace } = setup();
    const seq = q.copy(SRC + 0x100, DST + 0x200, 1024);
    expect(seq).toBe(1);
    expect(trace.filter((t) => t.op === 'write').map((t) => t.path)).toEqual([
      'S2M_Q[0].rdrtp_inc',
      'M2S_Q[0].tdrtp_inc',
    ]);
    expect(q.isComplete(seq)).toBe(false);
    await eng.waitIdle({ timeoutMs: 1000 });
    expect(q.isComplete(seq)).toBe(true);
    expect(q.stats()).toMatchObject({
      submitted: 1,
      completed: 1,
      inFlight: 0,
      bytes: 1024,
      descriptors: 1,
      errors: 0,
    });
    expect(dev.faults()).toEqual([]);
    dst.expectOnly([{ addr: DST + 0x200, len: 1024, data: src.bytes(SRC + 0x100, 1024) }]);
    expect(src.untouched()).toBe(true);
  });
});

describe('dmadev: bursts of 32', () => {
  for (const split of [1, 2] as const) {
    it(`${split === 1 ? '1 x 32' : '2 x 16'}: completed == submitted after each of 300 bursts, data exact`, async () => {
      const ITER = 300;
      const BURST = 32;
      const LEN = 256;
      const { dev, eng, q, src, dst, trace } = setup(64);
      const expected = [];
      for (let it = 0; it < ITER; it++) {
        trace.length = 0;
        const burst = Array.from({ length: BURST }, (_, i) => {
          const k = (it * BURST + i) % 512;
          return {
            src: SRC + ((it * 37 + i * 101) % 4096) * 16,
            dst: DST + k * 0x4000 + (it % 8) * 512,
            bytes: LEN,
          };
        });
        const before = q.stats();
        const per = BURST / split;
        for (let s = 0; s < split; s++) q.copyBatch(burst.slice(s * per, (s + 1) * per));
        // one RX and one TX doorbell per submitted batch
        expect(trace.filter((t) => t.op === 'write').length).toBe(2 * split);
        await eng.waitIdle({ timeoutMs: 2000 });
        const after = q.stats();
        expect(after.submitted - before.submitted).toBe(BURST);
        expect(after.completed - before.completed).toBe(BURST);
        expect(after.completed).toBe(after.submitted);
        if (it >= ITER - 16)
          for (const c of burst)
            expected.push({ addr: c.dst, len: LEN, data: src.bytes(c.src, LEN) });
      }
      expect(q.stats()).toMatchObject({
        submitted: ITER * BURST,
        completed: ITER * BURST,
        errors: 0,
        refused: 0,
      });
      expect(dev.faults()).toEqual([]);
      // The last 16 bursts own their destinations (512 slots): exact; nothing outside the slots.
      const slots = Array.from({ length: 512 }, (_, k) => ({
        addr: DST + k * 0x4000,
        len: 0x4000,
      }));
      dst.expectOnly([...slots, ...expected]);
      expect(src.untouched()).toBe(true);
    });
  }
});

describe('dmadev: stop / start', () => {
  it('a paused queue takes copies and moves nothing; resumed, it completes them', async () => {
    const { dev, eng, q, src, dst } = setup(64);
    eng.pause(0);
    for (let i = 0; i < 10; i++) q.copy(SRC + i * 1000, DST + i * 0x1000, 1000);
    expect(dev.runUntilIdle()).toBe(0);
    expect(dst.untouched()).toBe(true);
    await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 10 }), 'TIMEOUT');
    eng.resume(0);
    await eng.waitIdle({ timeoutMs: 1000 });
    expect(q.stats()).toMatchObject({ submitted: 10, completed: 10, paused: false });
    dst.expectOnly(
      Array.from({ length: 10 }, (_, i) => ({
        addr: DST + i * 0x1000,
        len: 1000,
        data: src.bytes(SRC + i * 1000, 1000),
      })),
    );
  });

  it('the engine disabled (change_state.dis) moves nothing; change_state.normal starts it again', async () => {
    const { dev, eng, q } = setup(64);
    const m = reg('udma_m2s', 'M2S.change_state');
    const s = reg('udma_s2m', 'S2M.change_state');
    const u = dev.udma(0);
    for (let round = 0; round < 5; round++) {
      u.m2s.write32(m.offset, m.encode({ dis: 1 }, 0));
      u.s2m.write32(s.offset, s.encode({ dis: 1 }, 0));
      for (let i = 0; i < 8; i++) q.copy(SRC + i * 64, DST + (round * 8 + i) * 64, 64);
      expect(dev.runUntilIdle()).toBe(0);
      expect(eng.health().aborted).toBe(false);
      u.m2s.write32(m.offset, m.encode({ normal: 1 }, 0));
      u.s2m.write32(s.offset, s.encode({ normal: 1 }, 0));
      await eng.waitIdle({ timeoutMs: 1000 });
      expect(q.stats()).toMatchObject({ submitted: (round + 1) * 8, completed: (round + 1) * 8 });
    }
  });
});

describe('dmadev: burst capacity', () => {
  it('the room drops by one per enqueue and comes back after the drain, over 10 laps (the ring id wraps twice)', async () => {
    const RING = 64;
    const { eng, q, src, dst } = setup(RING);
    const ids: number[] = [];
    for (let lap = 0; lap < 10; lap++) {
      ids.push(q.tx.ringId);
      expect(Math.min(q.tx.room, q.rx.room)).toBe(RING);
      for (let i = 0; i < RING; i++) {
        q.copy(SRC + i * 32, DST + i * 32, 32);
        expect(q.tx.room).toBe(RING - i - 1);
        expect(q.rx.room).toBe(RING - i - 1);
      }
      expectNxdma(() => q.copy(SRC, DST, 32), 'RING_FULL');
      await eng.waitIdle({ timeoutMs: 2000 });
      expect(q.stats()).toMatchObject({ inFlight: 0, completed: (lap + 1) * RING });
    }
    expect(ids).toEqual([1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
    expect(q.stats()).toMatchObject({ refused: 10, errors: 0 });
    dst.expectOnly([{ addr: DST, len: RING * 32, data: src.bytes(SRC, RING * 32) }]);
  });

  it('a copy of n chunks takes n from the room of both rings', () => {
    const { q, trace } = setup(64);
    q.copy(SRC, DST, 5 * 65536 - 1);
    expect([q.tx.room, q.rx.room]).toEqual([59, 59]);
    q.copyBatch([
      { src: SRC, dst: DST + 0x50_0000, bytes: 65536 },
      { src: SRC, dst: DST + 0x60_0000, bytes: 65537 },
    ]);
    expect([q.tx.room, q.rx.room]).toEqual([56, 56]);
    // the doorbells announced exactly the descriptors written: 5, then 1 + 2
    const h = queueRegs(0);
    const rung = trace
      .filter((t) => t.op === 'write')
      .map((t) => [t.path, (t.path?.startsWith('S2M') ? h.s2m : h.m2s).doorbell.get(t.value)]);
    expect(rung).toEqual([
      ['S2M_Q[0].rdrtp_inc', 5],
      ['M2S_Q[0].tdrtp_inc', 5],
      ['S2M_Q[0].rdrtp_inc', 3],
      ['M2S_Q[0].tdrtp_inc', 3],
    ]);
  });
});
