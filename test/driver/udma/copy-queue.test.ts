import { describe, expect, it } from 'vitest';
import {
  LEN_CTRL,
  META_CTRL_PLAIN_COPY,
  decodeRx,
  decodeTx,
  readBdWords,
} from '../../../csr/formats/bd.ts';
import { UdmaEngine } from '../../../driver/udma/index.ts';
import { expectCode, expectReject, pattern, readMem, rig, rings, same } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

/** Raw ring bytes of a ring (a snapshot). */
function ringBytes(dev: ReturnType<typeof rig>['dev'], base: number, size: number): Uint8Array {
  return readMem(dev, base, size * 16).slice();
}

describe('copy: paired TX/RX descriptors in chunks of at most 64 KiB', () => {
  it('copies of many sizes land byte for byte', async () => {
    const { dev, eng } = rig();
    eng.initQueue(0, rings(0, 256));
    const sizes = [1, 2, 15, 16, 255, 4096, 65535, 65536, 65537, 131072, 3 * 65536 + 7, 1 << 20];
    let off = 0;
    let descs = 0;
    for (const [i, n] of sizes.entries()) {
      const data = pattern(n, i + 1);
      dev.memory.write(SRC + off, data);
      eng.copy(SRC + off, DST + off, n, { queue: 0 });
      await eng.waitIdle({ timeoutMs: 1000 });
      expect(same(readMem(dev, DST + off, n), data), `copy of ${n} bytes`).toBe(true);
      // No byte past the end.
      expect(readMem(dev, DST + off + n, 1)[0]).toBe(0);
      descs += Math.ceil(n / 65536);
      off += n + 4096;
    }
    const s = eng.queue(0).stats();
    expect(s).toMatchObject({
      submitted: sizes.length,
      completed: sizes.length,
      inFlight: 0,
      descriptors: descs,
      bytes: sizes.reduce((a, b) => a + b, 0),
      bytesSubmitted: sizes.reduce((a, b) => a + b, 0),
      errors: 0,
    });
    expect(dev.faults()).toEqual([]);
  });

  it('descriptor words: ring id, first|last per TX chunk, 64 KiB as length 0, dmb and int_en', () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const r = rings(1, 64);
    eng.initQueue(1, r);
    eng.copy(SRC, DST, 2 * 65536 + 100, { queue: 1, barrier: true, interrupt: true });
    const txw = ringBytes(dev, r.tx.base, 3);
    const rxw = ringBytes(dev, r.rx.base, 3);
    const lens = [65536, 65536, 100];
    for (let i = 0; i < 3; i++) {
      const t = decodeTx(txw, i * 16);
      const x = decodeRx(rxw, i * 16);
      expect(t).toMatchObject({
        len: lens[i],
        ring_id: 1,
        first: true,
        last: true,
        dmb: i === 0,
        int_en: false,
      });
      expect(t.meta_ctrl).toBe(META_CTRL_PLAIN_COPY);
      expect(t.buf_ptr).toBe(SRC + i * 65536);
      expect(x).toMatchObject({
        len: lens[i],
        ring_id: 1,
        first: false,
        last: false,
        int_en: i === 2,
      });
      expect(x.buf1_ptr).toBe(DST + i * 65536);
      // 65536 travels as length 0 (encode_64k).
      expect(readBdWords(txw, i * 16)[0] & LEN_CTRL.LEN_MASK).toBe(lens[i] & 0xffff);
    }
    dev.runUntilIdle();
    eng.poll();
    expect(dev.udma(0).queueStats(1).s2m.interrupts).toBe(1);
  });

  it('memory without a live view: descriptors go through MemoryIO.write, same result', async () => {
    const { dev } = rig({ autoRun: 'none' }, {}, false);
    const memory = {
      read: (a: number, d: Uint8Array) => dev.memory.read(a, d),
      write: (a: number, s: Uint8Array) => dev.memory.write(a, s),
      isMapped: (a: number, n: number) => dev.memory.isMapped(a, n),
    };
    const plain = Object.assign(Object.create(dev) as typeof dev, { memory });
    const eng = new UdmaEngine(plain, 0);
    eng.bringUp();
    const q = eng.initQueue(0, rings(0, 32));
    expect(q.tx.words).toBeNull();
    const data = pattern(200000, 5);
    dev.memory.write(SRC, data);
    eng.copy(SRC, DST, data.length, { queue: 0, barrier: true });
    expect(decodeTx(ringBytes(dev, rings(0).tx.base, 1), 0)).toMatchObject({
      len: 65536,
      dmb: true,
      ring_id: 1,
    });
    await eng.waitIdle();
    expect(same(readMem(dev, DST, data.length), data)).toBe(true);
  });

  it('ring wrap: ring ids advance and every copy lands', async () => {
    const { dev, eng } = rig();
    const r = rings(2, 32);
    eng.initQueue(2, r);
    const data = pattern(40 * 3 * 65536, 7);
    dev.memory.write(SRC, data.subarray(0, 8 << 20));
    let off = 0;
    let wrote = 0;
    for (let i = 0; i < 40; i++) {
      const n = ((i % 3) + 1) * 65536 - (i % 5) * 17;
      eng.copy(SRC + (off % (8 << 20)), DST + off, Math.min(n, (8 << 20) - (off % (8 << 20))), {
        queue: 2,
      });
      off += 3 * 65536;
      wrote++;
    }
    await eng.waitIdle();
    expect(eng.queue(2).stats().completed).toBe(wrote);
    // 80 descriptors through a 32-slot ring: the producer wrapped twice, ring id 1 -> 3.
    expect(eng.queue(2).tx.ringId).toBe(3);
    expect(dev.faults()).toEqual([]);
    off = 0;
    for (let i = 0; i < 40; i++) {
      const n = Math.min(((i % 3) + 1) * 65536 - (i % 5) * 17, (8 << 20) - (off % (8 << 20)));
      const s = off % (8 << 20);
      expect(same(readMem(dev, DST + off, n), data.subarray(s, s + n)), `copy ${i}`).toBe(true);
      off += 3 * 65536;
    }
  });

  it('ring full: refused with RING_FULL, nothing written, no doorbell; room comes back from the head', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const r = rings(3, 32);
    const q = eng.initQueue(3, r);
    trace.length = 0;
    for (let i = 0; i < 32; i++) eng.copy(SRC + i * 256, DST + i * 256, 256, { queue: 3 });
    // Submission never read the device while the driver knew there was room.
    expect(trace.filter((t) => t.op === 'read')).toEqual([]);
    const txBefore = ringBytes(dev, r.tx.base, 32);
    const rxBefore = ringBytes(dev, r.rx.base, 32);
    trace.length = 0;
    const e = expectCode(() => eng.copy(SRC, DST + 0x10000, 256, { queue: 3 }), 'RING_FULL');
    expect(e.message).toContain('room for 0');
    expect(e.details.needed).toBe(1);
    // Only the two head reads: no write at all.
    expect(trace.filter((t) => t.op === 'write')).toEqual([]);
    expect(trace.map((t) => t.path)).toEqual(['S2M_Q[3].rdrhp', 'M2S_Q[3].tdrhp']);
    expect(same(ringBytes(dev, r.tx.base, 32), txBefore)).toBe(true);
    expect(same(ringBytes(dev, r.rx.base, 32), rxBefore)).toBe(true);
    expect(q.stats()).toMatchObject({ submitted: 32, refused: 1 });
    // A copy larger than the ring never fits.
    expectCode(() => eng.copy(SRC, DST + 0x100000, 33 * 65536, { queue: 3 }), 'RING_FULL');
    // The engine consumes: the next copy reads the head and goes in.
    dev.runUntilIdle();
    eng.copy(SRC, DST + 0x10000, 256, { queue: 3 });
    expect(q.stats()).toMatchObject({ submitted: 33, completed: 32, inFlight: 1 });
  });

  it('doorbells: RX first, then TX, with the descriptor count', () => {
    const { eng, trace } = rig({ autoRun: 'none' });
    eng.initQueue(0, rings(0));
    trace.length = 0;
    eng.copy(SRC, DST, 3 * 65536, { queue: 0 });
    expect(trace.map((t) => [t.op, t.path, t.value])).toEqual([
      ['write', 'S2M_Q[0].rdrtp_inc', 3],
      ['write', 'M2S_Q[0].tdrtp_inc', 3],
    ]);
  });

  it('a batch of 32 copies rings each doorbell once', async () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    eng.initQueue(4, rings(4, 256));
    const copies = Array.from({ length: 32 }, (_, i) => ({
      src: SRC + i * 0x20000,
      dst: DST + i * 0x20000,
      bytes: 1000 + i * 4000,
    }));
    for (const [i, c] of copies.entries()) dev.memory.write(c.src, pattern(c.bytes, 100 + i));
    const total = copies.reduce((a, c) => a + Math.ceil(c.bytes / 65536), 0);
    trace.length = 0;
    const last = eng.copyBatch(4, copies);
    expect(last).toBe(32);
    expect(trace.map((t) => [t.op, t.path, t.value])).toEqual([
      ['write', 'S2M_Q[4].rdrtp_inc', total],
      ['write', 'M2S_Q[4].tdrtp_inc', total],
    ]);
    await eng.waitIdle();
    for (const [i, c] of copies.entries()) {
      expect(same(readMem(dev, c.dst, c.bytes), pattern(c.bytes, 100 + i))).toBe(true);
    }
    expect(eng.queue(4).stats()).toMatchObject({
      submitted: 32,
      completed: 32,
      descriptors: total,
    });
  });

  it('a refused batch writes nothing', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const r = rings(5, 32);
    eng.initQueue(5, r);
    const before = ringBytes(dev, r.tx.base, 32);
    trace.length = 0;
    const e = expectCode(
      () =>
        eng.copyBatch(5, [
          { src: SRC, dst: DST, bytes: 100 },
          { src: SRC, dst: DST + 0x1000, bytes: 0 },
        ]),
      'BAD_ARGUMENT',
    );
    expect(e.message).toContain('batch[1]');
    expectCode(
      () =>
        eng.copyBatch(
          5,
          Array.from({ length: 33 }, (_, i) => ({ src: SRC, dst: DST + i * 64, bytes: 64 })),
        ),
      'RING_FULL',
    );
    expect(trace).toEqual([]);
    expect(same(ringBytes(dev, r.tx.base, 32), before)).toBe(true);
    expect(eng.queue(5).stats().submitted).toBe(0);
  });

  it('copy arguments: size, addresses, overlap, mapped memory', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    eng.initQueue(0, rings(0));
    trace.length = 0;
    for (const bytes of [0, -1, 1.5, NaN])
      expectCode(() => eng.copy(SRC, DST, bytes, { queue: 0 }), 'BAD_ARGUMENT');
    expectCode(() => eng.copy(-16, DST, 16, { queue: 0 }), 'BAD_ARGUMENT');
    expectCode(() => eng.copy(SRC, 2 ** 53, 16, { queue: 0 }), 'BAD_ARGUMENT');
    const o = expectCode(() => eng.copy(SRC, SRC + 100, 200, { queue: 0 }), 'MEMORY_OVERLAP');
    expect(o.message).toContain('overlap');
    const host = dev.memory.region('host');
    const u = expectCode(() => eng.copy(SRC, host.end - 8, 16, { queue: 0 }), 'MEMORY_UNMAPPED');
    expect(u.message).toContain('destination');
    expectCode(() => eng.copy(0x7000_0000, DST, 16, { queue: 0 }), 'MEMORY_UNMAPPED');
    expectCode(() => eng.copy(SRC, DST, 16, { queue: 16 }), 'BAD_ARGUMENT');
    expect(trace).toEqual([]);
  });
});

describe('completion, pause, reset, timeouts, stats', () => {
  it('poll reads the RX head once and retires completed copies in order', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0));
    const a = eng.copy(SRC, DST, 100, { queue: 0 });
    const b = eng.copy(SRC, DST + 0x1000, 70000, { queue: 0 });
    expect(eng.poll()).toBe(0);
    expect(q.isComplete(a)).toBe(false);
    dev.udma(0).step(); // one packet: copy a
    trace.length = 0;
    expect(eng.poll()).toBe(1);
    expect(trace.map((t) => [t.op, t.path])).toEqual([['read', 'S2M_Q[0].rdrhp']]);
    expect(q.isComplete(a)).toBe(true);
    expect(q.isComplete(b)).toBe(false);
    dev.runUntilIdle();
    expect(eng.poll()).toBe(1);
    expect(q.completedCount).toBe(b);
    // Nothing in flight: poll does not touch the device.
    trace.length = 0;
    expect(eng.poll()).toBe(0);
    expect(trace).toEqual([]);
  });

  it('waitIdle steps a device that does not run by itself', async () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    eng.initQueue(0, rings(0));
    const data = pattern(300000, 9);
    dev.memory.write(SRC, data);
    eng.copy(SRC, DST, data.length, { queue: 0 });
    expect(eng.clock).toBe(dev);
    await eng.waitIdle({ timeoutMs: 1000 });
    expect(same(readMem(dev, DST, data.length), data)).toBe(true);
  });

  it('timeouts: a device that never runs, and a paused queue', async () => {
    const a = rig({ autoRun: 'none' }, { clock: null });
    a.eng.initQueue(0, rings(0));
    a.eng.copy(SRC, DST, 4096, { queue: 0 });
    const e = await expectReject(a.eng.waitIdle({ timeoutMs: 15 }), 'TIMEOUT');
    expect(e.message).toContain('queue 0 has 1 copies in flight');
    expect(a.eng.queue(0).stats().errors).toBe(1);

    const b = rig({ autoRun: 'none' });
    b.eng.initQueue(1, rings(1));
    b.eng.pause(1);
    b.eng.copy(SRC, DST, 4096, { queue: 1 });
    const e2 = await expectReject(b.eng.waitIdle({ timeoutMs: 15, queue: 1 }), 'TIMEOUT');
    expect(e2.message).toContain('(paused)');
    b.eng.resume(1);
    await b.eng.waitIdle({ timeoutMs: 1000, queue: 1 });
    expect(b.eng.queue(1).stats()).toMatchObject({ completed: 1, errors: 1, paused: false });
    await expectReject(b.eng.waitIdle({ timeoutMs: -1 }), 'BAD_ARGUMENT');
  });

  it('an engine abort ends the wait with ENGINE_ERROR', async () => {
    const { dev, eng } = rig({ autoRun: 'none', strict: false }, { checkBuffers: false });
    eng.initQueue(0, rings(0));
    eng.copy(SRC, 0x7000_0000, 4096, { queue: 0 }); // destination not mapped: the engine aborts
    const e = await expectReject(eng.waitIdle({ timeoutMs: 2000 }), 'ENGINE_ERROR');
    expect(e.message).toContain('aborted');
    expect(dev.faults()[0].kind).toBe('data');
    expect(eng.health().aborted).toBe(true);
  });

  it('pause and resume write only the M2S cfg, from the shadow (no read)', () => {
    const { eng, trace } = rig({ autoRun: 'none' });
    eng.initQueue(2, rings(2));
    trace.length = 0;
    eng.pause(2);
    eng.resume(2);
    expect(trace.map((t) => [t.op, t.path, t.value])).toEqual([
      ['write', 'M2S_Q[2].cfg', 0x03000000],
      ['write', 'M2S_Q[2].cfg', 0x03030000],
    ]);
  });

  it('reset drops copies in flight and restarts the rings at slot 0, ring id 1', async () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const r = rings(6, 32);
    const q = eng.initQueue(6, r);
    for (let i = 0; i < 20; i++) eng.copy(SRC + i * 64, DST + i * 64, 64, { queue: 6 });
    eng.reset(6);
    expect(q.stats()).toMatchObject({ submitted: 20, completed: 0, inFlight: 0, discarded: 20 });
    expect(q.tx.tail).toBe(0);
    expect(q.tx.ringId).toBe(1);
    const data = pattern(5000, 3);
    dev.memory.write(SRC, data);
    eng.copy(SRC, DST + 0x100000, 5000, { queue: 6 });
    await eng.waitIdle();
    expect(same(readMem(dev, DST + 0x100000, 5000), data)).toBe(true);
    // The stale descriptors were never served.
    expect(dev.serviceTrace.entries().filter((t) => t.queue === 6)).toHaveLength(1);
  });

  it('stats per queue and per engine', async () => {
    const { eng } = rig();
    eng.initQueue(0, rings(0));
    eng.initQueue(7, rings(7));
    eng.copy(SRC, DST, 70000, { queue: 0 });
    eng.copy(SRC, DST + 0x100000, 10, { queue: 7 });
    eng.copy(SRC, DST + 0x200000, 20, { queue: 7 });
    await eng.waitIdle();
    const s = eng.stats();
    expect(
      s.map((x) => [x.queue, x.submitted, x.completed, x.bytes, x.descriptors, x.errors]),
    ).toEqual([
      [0, 1, 1, 70000, 2, 0],
      [7, 2, 2, 30, 2, 0],
    ]);
    expect(eng.initializedQueues()).toEqual([0, 7]);
  });
});
