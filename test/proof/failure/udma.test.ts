/**
 * Failure modes of the copy path (driver/udma on the mock device), each ending in a typed error
 * and a state a user can inspect (queue stats, status words, fault records, ring positions), with
 * nothing written outside the ranges the copies name:
 *
 *  - engine abort mid-transfer (a destination that is not mapped; change_state.abort between
 *    packets of one copy);
 *  - queue reset while busy (by the driver; behind the driver's back);
 *  - ring full (single copies, batches, across ring laps);
 *  - a stale ring id in a submitted descriptor;
 *  - a doorbell announcing more descriptors than were written (a descriptor write landing after
 *    its doorbell; a stray doorbell past the producer).
 */
import { describe, expect, it } from 'vitest';
import type { NxdmaError } from '../../../common/errors.ts';
import { BD_SIZE, LEN_CTRL } from '../../../csr/formats/bd.ts';
import { UdmaEngine, type UdmaEngineOptions } from '../../../driver/udma/engine.ts';
import { queueRegs } from '../../../driver/udma/queue-regs.ts';
import { reg } from '../../../driver/udma/regs.ts';
import { MOCK_QUEUE_STATUS, MockDevice } from '../../../mocks/index.ts';
import { expectNxdma, expectNxdmaAsync } from '../../support/fuzz.ts';
import { Arena, pattern } from '../support/arena.ts';

const RINGS = 0x10_0000;
const SRC = 0x40_0000;
const SRC_SIZE = 0x10_0000;
const DST = 2 ** 32;
const DST_SIZE = 0x40_0000;
const UNMAPPED = DST + DST_SIZE + 0x10_0000;
const KIB64 = 65536;

function setup(opts: UdmaEngineOptions = {}, ring = 64) {
  const dev = new MockDevice({
    engines: [0],
    autoRun: 'none',
    memory: [
      { name: 'host', base: 0, size: 0x80_0000 },
      { name: 'dram', base: DST, size: DST_SIZE },
    ],
  });
  const eng = new UdmaEngine(dev, 0, opts);
  eng.bringUp();
  const q = eng.initQueue(0, {
    tx: { base: RINGS, size: ring },
    rx: { base: RINGS + 0x10_0000, size: ring },
  });
  const src = new Arena(dev, SRC, SRC_SIZE, pattern(SRC_SIZE, 7));
  const dst = new Arena(dev, DST, DST_SIZE, 0xa5);
  const unit = dev.udma(0);
  return { dev, eng, q, src, dst, unit };
}

/** Register images of both halves (copies). */
function regImage(dev: MockDevice): Buffer {
  const u = dev.udma(0);
  return Buffer.concat([
    Buffer.from(u.m2s.words.slice().buffer),
    Buffer.from(u.s2m.words.slice().buffer),
  ]);
}

function ringBytes(dev: MockDevice, base: number, size: number): Buffer {
  return Buffer.from(dev.memory.view(base, size * BD_SIZE)!.slice());
}

const STALLED_RING_ID = MOCK_QUEUE_STATUS.RING_ID_ERROR | MOCK_QUEUE_STATUS.STALLED;

describe('engine abort mid-transfer', () => {
  it('an unmapped destination aborts the engine: ENGINE_ERROR, earlier copies landed, nothing past the fault', async () => {
    const { dev, eng, q, src, dst } = setup({ checkBuffers: false });
    const a = q.copy(SRC, DST, 100_000); // two chunks
    const b = q.copy(SRC + 0x1000, UNMAPPED, 3 * KIB64); // faults on its first chunk
    const c = q.copy(SRC + 0x2000, DST + 0x20_0000, 5000);
    const e = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 2000 }), 'ENGINE_ERROR');
    expect(e.message).toContain('aborted');
    // inspectable: health, the fault record, the queue's status word and stats
    expect(eng.health().aborted).toBe(true);
    const f = dev.faults();
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      kind: 'data',
      half: 's2m',
      queue: 0,
      aborted: true,
      address: UNMAPPED,
    });
    expect(eng.queueStatus(0).s2m & MOCK_QUEUE_STATUS.DATA_FAULT).toBeTruthy();
    expect(q.stats()).toMatchObject({ submitted: 3, completed: 1, inFlight: 2, errors: 1 });
    expect([q.isComplete(a), q.isComplete(b), q.isComplete(c)]).toEqual([true, false, false]);
    // memory: copy a exactly, nothing else; the source untouched
    dst.expectOnly([{ addr: DST, len: 100_000, data: src.bytes(SRC, 100_000) }]);
    expect(src.untouched()).toBe(true);
    // error details survive JSON (scripts read them)
    expect(JSON.parse(JSON.stringify(e.toJSON())).details.queues[0]).toMatchObject({
      queue: 0,
      inFlight: 2,
    });
    // nothing moves while aborted, even when stepped
    expect(dev.runUntilIdle()).toBe(0);
    // recovery: bring-up again (change_state.normal), reset the queue, copy again
    eng.bringUp();
    eng.reset(0);
    expect(q.stats()).toMatchObject({ discarded: 2, inFlight: 0 });
    const d = q.copy(SRC + 0x3000, DST + 0x30_0000, 777);
    await eng.waitIdle({ timeoutMs: 2000 });
    expect(q.isComplete(d)).toBe(true);
    expect(q.isComplete(b)).toBe(false);
    dst.expectOnly([
      { addr: DST, len: 100_000, data: src.bytes(SRC, 100_000) },
      { addr: DST + 0x30_0000, len: 777, data: src.bytes(SRC + 0x3000, 777) },
    ]);
  });

  it('change_state.abort between packets of one copy: the chunks before it landed, none after', async () => {
    const { dev, eng, q, src, dst, unit } = setup();
    q.copy(SRC, DST, 10 * KIB64); // ten packets
    for (let i = 0; i < 3; i++) expect(dev.step()).toBe(true);
    const abort = reg('udma_m2s', 'M2S.change_state');
    unit.m2s.write32(abort.offset, abort.encode({ abort: 1 }, 0));
    await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 2000 }), 'ENGINE_ERROR');
    expect(eng.health().aborted).toBe(true);
    expect(q.stats()).toMatchObject({ submitted: 1, completed: 0, inFlight: 1, errors: 1 });
    expect(unit.queueStats(0).m2s).toMatchObject({ headOffset: 3, descriptors: 3 });
    dst.expectOnly([{ addr: DST, len: 3 * KIB64, data: src.bytes(SRC, 3 * KIB64) }]);
    expect(src.untouched()).toBe(true);
  });
});

describe('queue reset while busy', () => {
  it('reset by the driver: served copies landed, the rest dropped, stale descriptors never served', async () => {
    const { dev, eng, q, src, dst } = setup();
    const seqs = [];
    for (let i = 0; i < 6; i++) seqs.push(q.copy(SRC + i * 0x1000, DST + i * 0x10000, 3000 + i));
    dev.step(); // two packets served
    dev.step();
    q.poll(); // the driver learns about them
    eng.reset(0);
    expect(q.stats()).toMatchObject({ submitted: 6, completed: 2, inFlight: 0, discarded: 4 });
    expect(seqs.map((s) => q.isComplete(s))).toEqual([true, true, false, false, false, false]);
    expect([q.tx.tail, q.tx.ringId, q.rx.tail, q.rx.ringId]).toEqual([0, 1, 0, 1]);
    expect(eng.queueStatus(0)).toEqual({ m2s: 0, s2m: 0 });
    // the engine pointers are back at slot 0, ring id 1; the old descriptors are not served
    expect(dev.runUntilIdle()).toBe(0);
    const n = q.copy(SRC + 0x8000, DST + 0x10_0000, 1234);
    await eng.waitIdle({ timeoutMs: 2000 });
    expect(q.isComplete(n)).toBe(true);
    expect(q.completedCount).toBe(n);
    expect(dev.serviceTrace.entries()).toHaveLength(3);
    dst.expectOnly([
      { addr: DST, len: 3000, data: src.bytes(SRC, 3000) },
      { addr: DST + 0x10000, len: 3001, data: src.bytes(SRC + 0x1000, 3001) },
      { addr: DST + 0x10_0000, len: 1234, data: src.bytes(SRC + 0x8000, 1234) },
    ]);
    expect(src.untouched()).toBe(true);
  });

  it('rst_q behind the driver: the next look at the head is QUEUE_STATE, or the wait times out', async () => {
    // The driver polled (it knows 2 copies consumed); the queue is then reset by someone else.
    {
      const { dev, q, unit, dst } = setup();
      for (let i = 0; i < 5; i++) q.copy(SRC, DST + i * 0x10000, 100);
      dev.step();
      dev.step();
      q.poll();
      const h = queueRegs(0).s2m;
      unit.s2m.write32(h.swCtrl.offset, h.swCtrl.encode({ [h.rstQ.name]: 1 }, 0));
      const before = q.stats();
      const e = expectNxdma(() => q.poll(), 'QUEUE_STATE');
      expect(e.message).toContain('reset behind the driver');
      expect(e.details.actual).toEqual({ offset: 0, ringId: 1 });
      // nothing changed but the error count; the device moved nothing more
      expect(q.stats()).toEqual({ ...before, errors: before.errors + 1 });
      expect(dev.runUntilIdle()).toBe(0);
      dst.expectOnly([
        { addr: DST, len: 100 },
        { addr: DST + 0x10000, len: 100 },
      ]);
    }
    // The driver had not polled: the head looks consistent, the copies never complete.
    {
      const { eng, q, unit } = setup();
      q.copy(SRC, DST, 100);
      const h = queueRegs(0).m2s;
      unit.m2s.write32(h.swCtrl.offset, h.swCtrl.encode({ [h.rstQ.name]: 1 }, 0));
      const e = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 20 }), 'TIMEOUT');
      expect(e.message).toContain('queue 0 has 1 copies in flight');
      expect(q.stats()).toMatchObject({ inFlight: 1, errors: 1 });
      // the driver's own reset recovers
      eng.reset(0);
      q.copy(SRC, DST, 100);
      await eng.waitIdle({ timeoutMs: 2000 });
      expect(q.stats()).toMatchObject({ inFlight: 0, discarded: 1, completed: 1 });
    }
  });
});

describe('ring full', () => {
  it('refused copies and batches change nothing on the device; room returns after the engine drains', async () => {
    const RING = 32;
    const { dev, eng, q, src, dst } = setup({}, RING);
    // Three laps: the ring id wraps 1, 2, 3 and every refusal writes nothing.
    let landed = 0;
    for (let lap = 0; lap < 3; lap++) {
      for (let i = 0; i < RING; i++) q.copy(SRC + i * 64, DST + (landed + i) * 64, 64);
      const image = {
        regs: regImage(dev),
        tx: ringBytes(dev, RINGS, RING),
        rx: ringBytes(dev, RINGS + 0x10_0000, RING),
        dst: dst.bytes(DST, DST_SIZE),
        prod: [q.tx.tail, q.tx.ringId, q.tx.produced, q.rx.tail, q.rx.ringId, q.rx.produced],
      };
      const stats = q.stats();
      const e1 = expectNxdma(() => q.copy(SRC, DST + 0x30_0000, 64), 'RING_FULL');
      expect(e1.details).toMatchObject({ needed: 1, actual: { txFree: 0, rxFree: 0 } });
      const e2 = expectNxdma(
        () => q.copyBatch([{ src: SRC, dst: DST + 0x30_0000, bytes: 64 }]),
        'RING_FULL',
      );
      expect(e2.details.needed).toBe(1);
      // a copy larger than the ring never fits
      const e3 = expectNxdma(() => q.copy(SRC, DST, (RING + 1) * KIB64), 'RING_FULL');
      expect(e3.details.needed).toBe(RING + 1);
      expect(regImage(dev).equals(image.regs)).toBe(true);
      expect(ringBytes(dev, RINGS, RING).equals(image.tx)).toBe(true);
      expect(ringBytes(dev, RINGS + 0x10_0000, RING).equals(image.rx)).toBe(true);
      expect(Buffer.from(dst.bytes(DST, DST_SIZE)).equals(Buffer.from(image.dst))).toBe(true);
      expect([
        q.tx.tail,
        q.tx.ringId,
        q.tx.produced,
        q.rx.tail,
        q.rx.ringId,
        q.rx.produced,
      ]).toEqual(image.prod);
      expect(q.stats()).toMatchObject({
        submitted: stats.submitted,
        descriptors: stats.descriptors,
        refused: stats.refused + 3,
      });
      await eng.waitIdle({ timeoutMs: 5000 });
      landed += RING;
      expect(q.stats()).toMatchObject({ inFlight: 0, completed: landed });
      expect(q.tx.ringId).toBe((1 + lap + 1) & 3);
    }
    // A batch larger than the ring never fits, even on an empty ring.
    const big = Array.from({ length: RING + 1 }, (_, i) => ({
      src: SRC,
      dst: DST + 0x30_0000 + i * 64,
      bytes: 64,
    }));
    expectNxdma(() => q.copyBatch(big), 'RING_FULL');
    dst.expectOnly(
      Array.from({ length: landed }, (_, i) => ({
        addr: DST + i * 64,
        len: 64,
        data: src.bytes(SRC + (i % RING) * 64, 64),
      })),
    );
  });
});

describe('a stale ring id', () => {
  it('a descriptor with the wrong phase stalls the queue: TIMEOUT with RING_ID_ERROR in the details; rewritten, it runs', async () => {
    const { dev, eng, q, src, dst } = setup();
    const a = q.copy(SRC, DST, 500);
    const b = q.copy(SRC + 0x1000, DST + 0x10000, 600);
    const c = q.copy(SRC + 0x2000, DST + 0x20000, 700);
    // Copy b's TX descriptor (slot 1) now carries ring id 2 where the engine expects 1.
    const slot = dev.memory.view(RINGS + BD_SIZE, 4)!;
    const dv = new DataView(slot.buffer, slot.byteOffset, 4);
    const w0 = dv.getUint32(0, true);
    dv.setUint32(
      0,
      ((w0 & ~(3 << LEN_CTRL.RING_ID_SHIFT)) | (2 << LEN_CTRL.RING_ID_SHIFT)) >>> 0,
      true,
    );
    const e: NxdmaError = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 20 }), 'TIMEOUT');
    const stuck = (e.details.actual as { status: { m2s: number } }[])[0];
    expect(stuck.status.m2s & STALLED_RING_ID).toBe(STALLED_RING_ID);
    expect(dev.faults()[0]).toMatchObject({
      kind: 'ring-id',
      half: 'm2s',
      descriptor: 1,
      expected: 1,
      actual: 2,
      aborted: false,
    });
    expect([q.isComplete(a), q.isComplete(b), q.isComplete(c)]).toEqual([true, false, false]);
    expect(eng.health().aborted).toBe(false);
    dst.expectOnly([{ addr: DST, len: 500, data: src.bytes(SRC, 500) }]);
    // Rewrite it with the right phase and ring 0 more: the engine looks again.
    dv.setUint32(0, w0, true);
    const db = queueRegs(0).m2s.doorbell;
    dev.udma(0).m2s.write32(db.reg.offset, db.place(0));
    await eng.waitIdle({ timeoutMs: 2000 });
    expect(q.isComplete(c)).toBe(true);
    // the error bit is sticky until rst_q; the stall is gone
    expect(eng.queueStatus(0).m2s).toBe(MOCK_QUEUE_STATUS.RING_ID_ERROR);
    eng.reset(0);
    expect(eng.queueStatus(0).m2s).toBe(0);
    dst.expectOnly([
      { addr: DST, len: 500, data: src.bytes(SRC, 500) },
      { addr: DST + 0x10000, len: 600, data: src.bytes(SRC + 0x1000, 600) },
      { addr: DST + 0x20000, len: 700, data: src.bytes(SRC + 0x2000, 700) },
    ]);
  });
});

describe('a doorbell announcing more descriptors than were written', () => {
  it('a descriptor write landing after its doorbell: the engine stalls on the old slot, moves nothing, resumes when it lands', async () => {
    const { dev, eng, q, dst, src } = setup();
    // The ring memory of slot 0 as it was before the copy (zero: ring id 0, stale on lap 1).
    const slot = dev.memory.view(RINGS, BD_SIZE)!;
    q.copy(SRC, DST, 4096);
    const written = slot.slice();
    slot.fill(0); // the doorbell was seen, the descriptor write was not
    const e = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 20 }), 'TIMEOUT');
    expect(
      (e.details.actual as { status: { m2s: number } }[])[0].status.m2s & STALLED_RING_ID,
    ).toBe(STALLED_RING_ID);
    expect(dev.faults()[0]).toMatchObject({
      kind: 'ring-id',
      descriptor: 0,
      expected: 1,
      actual: 0,
    });
    expect(dst.untouched()).toBe(true);
    slot.set(written);
    const db = queueRegs(0).m2s.doorbell;
    dev.udma(0).m2s.write32(db.reg.offset, db.place(0));
    await eng.waitIdle({ timeoutMs: 2000 });
    dst.expectOnly([{ addr: DST, len: 4096, data: src.bytes(SRC, 4096) }]);
  });

  it('a stray doorbell past the producer: the extra slots are never served; copies keep completing', async () => {
    const { dev, eng, q, dst, src, unit } = setup({}, 32);
    const db = queueRegs(0).m2s.doorbell;
    const rdb = queueRegs(0).s2m.doorbell;
    q.copy(SRC, DST, 1000);
    unit.m2s.write32(db.reg.offset, db.place(3)); // three descriptors nobody wrote
    unit.s2m.write32(rdb.reg.offset, rdb.place(2));
    await eng.waitIdle({ timeoutMs: 2000 });
    expect(eng.queueStatus(0).m2s & STALLED_RING_ID).toBe(STALLED_RING_ID);
    // 40 more copies: more than a lap of the ring, with the engine's tail 3 ahead all along
    const expected = [{ addr: DST, len: 1000, data: src.bytes(SRC, 1000) }];
    for (let i = 1; i <= 40; i++) {
      q.copy(SRC + i * 16, DST + i * 0x1000, 1000);
      expected.push({ addr: DST + i * 0x1000, len: 1000, data: src.bytes(SRC + i * 16, 1000) });
      await eng.waitIdle({ timeoutMs: 2000 });
    }
    expect(q.stats()).toMatchObject({ submitted: 41, completed: 41, errors: 0 });
    // only the 41 copies were served: no descriptor nobody wrote
    expect(dev.serviceTrace.entries()).toHaveLength(41);
    dst.expectOnly(expected);
    expect(src.untouched()).toBe(true);
    // inspectable until the queue is reset
    expect(dev.faults().every((f) => f.kind === 'ring-id' && !f.aborted)).toBe(true);
    eng.reset(0);
    expect(eng.queueStatus(0)).toEqual({ m2s: 0, s2m: 0 });
  });
});
