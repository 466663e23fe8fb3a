/**
 * The dmadev / dmaengine style API of driver/udma in detail: done() with timeouts and
 * AbortSignals, completion events and callbacks, fences, refused enqueues, info, dump, the
 * allocator, and the same calls on the mapped back end over a sparse file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTx } from '../../../csr/formats/bd.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { DmaAllocator, UdmaEngine, formatDump, type OpStatus } from '../../../driver/udma/index.ts';
import { removeFiles, sparseFile } from '../mmio/helpers.ts';
import { expectCode, expectReject, pattern, readMem, rig, rings, same } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

describe('done(seq, { signal, timeoutMs })', () => {
  it('resolves with the status once the copy completed (the mock is stepped)', async () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0));
    dev.memory.write(SRC, pattern(70000, 1));
    const seq = q.copy(SRC, DST, 70000);
    await expect(q.done(seq)).resolves.toEqual({ queue: 0, seq, status: 'success' });
    expect(same(readMem(dev, DST, 70000), pattern(70000, 1))).toBe(true);
  });

  it('TIMEOUT on a device that never runs; the signal reason when the signal aborts; QUEUE_STATE when never submitted', async () => {
    const { eng } = rig({ autoRun: 'none' }, { clock: null });
    const q = eng.initQueue(0, rings(0));
    const seq = q.copy(SRC, DST, 64);
    const e = await expectReject(q.done(seq, { timeoutMs: 10 }), 'TIMEOUT');
    expect(e.message).toContain(`done(${seq})`);
    const ac = new AbortController();
    const p = q.done(seq, { signal: ac.signal, timeoutMs: 5000 });
    setTimeout(() => ac.abort(), 5);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    const reason = new Error('gave up');
    await expect(q.done(seq, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const pend = q.enqueueCopy(SRC, DST + 0x1000, 64);
    await expectReject(q.done(pend), 'QUEUE_STATE');
    await expectReject(q.done(99), 'BAD_ARGUMENT');
    await expectReject(q.done(seq, { timeoutMs: -1 }), 'BAD_ARGUMENT');
    await expectReject(q.done(seq, { signal: {} as AbortSignal }), 'BAD_ARGUMENT');
  });

  it('rejects with ENGINE_ERROR (and the fault) for an aborted copy, QUEUE_STATE for a discarded one', async () => {
    const { eng } = rig({ autoRun: 'none', strict: false }, { checkBuffers: false });
    const q = eng.initQueue(0, rings(0));
    const bad = q.copy(SRC, 0x7000_0000, 4096);
    const after = q.copy(SRC, DST, 4096);
    const e = await expectReject(q.done(bad), 'ENGINE_ERROR');
    expect(e.details.fault).toMatchObject({ address: 0x7000_0000, kind: 'data' });
    eng.start();
    await expectReject(q.done(after), 'QUEUE_STATE');
    expect(q.statusOf(after)).toBe('discarded');
    expect(q.statusOf(bad)).toBe('aborted');
  });
});

describe('completion events and callbacks (dmaengine callbacks)', () => {
  it("'completion' fires once per operation in order; onComplete once for its own; discarded ones too", () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0));
    const events: OpStatus[] = [];
    const mine: OpStatus[] = [];
    q.on('completion', (s: OpStatus) => events.push(s));
    q.copy(SRC, DST, 100);
    q.enqueueCopy(SRC, DST + 0x1000, 100, { onComplete: (s) => mine.push(s) });
    q.submit();
    q.copy(SRC, DST + 0x2000, 100, { onComplete: (s) => mine.push(s) });
    dev.runUntilIdle();
    expect(q.poll()).toBe(3);
    expect(events.map((s) => [s.seq, s.status])).toEqual([
      [1, 'success'],
      [2, 'success'],
      [3, 'success'],
    ]);
    expect(mine.map((s) => s.seq)).toEqual([2, 3]);
    q.copy(SRC, DST + 0x3000, 100);
    q.enqueueCopy(SRC, DST + 0x4000, 100);
    eng.reset(0);
    expect(events.slice(3).map((s) => [s.seq, s.status])).toEqual([
      [4, 'discarded'],
      [5, 'discarded'],
    ]);
    expectCode(() => q.copy(SRC, DST, 8, { onComplete: 5 as never }), 'BAD_ARGUMENT');
    expect(q.stats().submitted).toBe(4);
  });
});

describe('a throwing completion listener', () => {
  it('the error reaches the caller after the driver state is updated and every listener ran', () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0));
    const seen: number[] = [];
    q.on('completion', () => {
      throw new Error('listener failed');
    });
    q.on('completion', (s: OpStatus) => seen.push(s.seq));
    q.copy(SRC, DST, 64);
    q.copy(SRC, DST + 0x100, 64);
    dev.runUntilIdle();
    expect(() => q.poll()).toThrow('listener failed');
    expect(seen).toEqual([1, 2]);
    expect(q.stats()).toMatchObject({ completed: 2, inFlight: 0 });
    expect(q.isComplete(2)).toBe(true);
  });
});

describe('enqueue, fence, submit', () => {
  it('fence() puts dmb on the next operation only; submit() with nothing pending writes nothing', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const r = rings(0);
    const q = eng.initQueue(0, r);
    q.enqueueCopy(SRC, DST, 64);
    q.fence();
    q.enqueueCopy(SRC, DST + 0x100, 64);
    q.enqueueCopy(SRC, DST + 0x200, 64, { fence: true });
    q.enqueueCopy(SRC, DST + 0x300, 64);
    const ring = readMem(dev, r.tx.base, 4 * 16);
    const dmb = [0, 1, 2, 3].map((i) => decodeTx(ring, i * 16).dmb);
    expect(dmb).toEqual([false, true, true, false]);
    expect(q.submit()).toBe(4);
    trace.length = 0;
    expect(q.submit()).toBe(0);
    expect(trace).toEqual([]);
  });

  it('a refused enqueue writes nothing: unequal totals, overlapping destinations, a segment in a ring, too many TX descriptors', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const r = rings(0, 256);
    const q = eng.initQueue(0, r);
    const before = readMem(dev, r.tx.base, 0x10000).slice();
    trace.length = 0;
    const s = (a: number, l: number) => ({ addr: a, length: l });
    expectCode(() => q.enqueueSg([s(SRC, 100)], [s(DST, 99)]), 'BAD_ARGUMENT');
    expectCode(() => q.enqueueSg([s(SRC, 100)], [s(DST, 60), s(DST + 50, 40)]), 'MEMORY_OVERLAP');
    expectCode(() => q.enqueueSg([s(SRC, 100)], [s(SRC + 50, 100)]), 'MEMORY_OVERLAP');
    expectCode(() => q.enqueueSg([s(SRC, 100)], [s(r.rx.base, 100)]), 'MEMORY_OVERLAP');
    expectCode(() => q.enqueueSg([s(0x7000_0000, 100)], [s(DST, 100)]), 'MEMORY_UNMAPPED');
    expectCode(() => q.enqueueSg([], [s(DST, 100)]), 'BAD_ARGUMENT');
    expectCode(() => q.enqueueSg([s(SRC, 0)], [s(DST, 0)]), 'BAD_ARGUMENT');
    // 66 source segments: more TX descriptors than max_desc_per_pkt (65) allows in one packet
    const many = Array.from({ length: 66 }, (_, i) => s(SRC + i * 16, 16));
    const e = expectCode(() => q.enqueueSg(many, [s(DST, 66 * 16)]), 'BAD_ARGUMENT');
    expect(e.message).toContain('65');
    expectCode(() => q.enqueueCopy(SRC, DST, 16, { fence: 'yes' as never }), 'BAD_ARGUMENT');
    expect(trace).toEqual([]);
    expect(same(readMem(dev, r.tx.base, 0x10000), before)).toBe(true);
    expect(q.stats()).toMatchObject({ submitted: 0, enqueued: 0 });
    // 65 segments is the limit and works
    const ok = Array.from({ length: 65 }, (_, i) => s(SRC + i * 32, 16));
    const seq = q.copySg(ok, [s(DST, 65 * 16)]);
    dev.runUntilIdle();
    expect(q.completed()).toEqual({ count: 1, lastSeq: seq, hasError: false });
    const ringWords = readMem(dev, r.tx.base, 65 * 16);
    expect(decodeTx(ringWords, 0).first).toBe(true);
    expect(decodeTx(ringWords, 64 * 16).last).toBe(true);
    expect(decodeTx(ringWords, 32 * 16).first || decodeTx(ringWords, 32 * 16).last).toBe(false);
  });

  it('a scatter-gather copy of more RX than TX descriptors keeps the TX room honest', () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0, 32));
    const data = pattern(640, 7);
    dev.memory.write(SRC, data);
    // 1 TX descriptor, 20 RX descriptors
    const dst = Array.from({ length: 20 }, (_, i) => ({ addr: DST + i * 64, length: 32 }));
    q.copySg([{ addr: SRC, length: 640 }], dst);
    dev.runUntilIdle();
    q.poll();
    expect(q.tx.consumed).toBe(1);
    expect(q.rx.consumed).toBe(20);
    for (let i = 0; i < 20; i++)
      expect(same(readMem(dev, DST + i * 64, 32), data.subarray(i * 32, i * 32 + 32))).toBe(true);
    expect(q.burstCapacity()).toBe(32);
  });
});

describe('info, dump, stop / start', () => {
  it('info(): queues, ring limits, max descriptors per packet and bytes per descriptor', () => {
    const { eng } = rig();
    eng.initQueue(3, rings(3, 64));
    expect(eng.info()).toMatchObject({
      engine: 0,
      queues: 16,
      initializedQueues: [3],
      minRingSize: 32,
      maxRingSize: 2 ** 24 - 16,
      maxDescPerPkt: 65,
      maxBytesPerDescriptor: 65536,
      maxCopyBytes: 64 * 65536,
      broughtUp: true,
    });
  });

  it('dump(): reads only; the registers of every queue and the driver view; text names the queue', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const q = eng.initQueue(2, rings(2, 32));
    q.copy(SRC, DST, 100);
    q.enqueueCopy(SRC, DST + 0x100, 100);
    trace.length = 0;
    const d = eng.dump();
    expect(trace.filter((t) => t.op === 'write')).toEqual([]);
    const q2 = d.queues[2];
    expect(q2.m2s).toMatchObject({ ringBase: rings(2).tx.base, ringSize: 32, enabled: true });
    expect(q2.m2s.tail).toEqual({ offset: 1, ringId: 1 });
    expect(q2.driver?.stats).toMatchObject({ submitted: 1, enqueued: 1, inFlight: 2 });
    expect(d.queues[5].driver).toBeNull();
    const text = eng.dump({ format: 'text' });
    expect(text).toContain('queue 2:');
    expect(text).not.toContain('queue 5:');
    expect(text).toBe(formatDump(d));
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    dev.runUntilIdle();
    expect(eng.dump({ queues: [2] }).queues).toHaveLength(1);
    expectCode(() => eng.dump({ format: 'xml' as never }), 'BAD_ARGUMENT');
  });

  it('stop / start on an aborted engine recover both halves (change_state.normal on M2S and S2M) and every queue', async () => {
    const { dev, eng, trace } = rig({ autoRun: 'none', strict: false }, { checkBuffers: false });
    const a = eng.initQueue(0, rings(0));
    const b = eng.initQueue(1, rings(1));
    a.copy(SRC, 0x7000_0000, 64);
    b.copy(SRC, DST, 64);
    dev.runUntilIdle();
    expect(eng.health().aborted).toBe(true);
    trace.length = 0;
    const r = eng.start();
    expect(r.recovered).toBe(true);
    expect(r.queuesReset).toEqual([0, 1]);
    const w = trace.filter((t) => t.op === 'write').map((t) => t.path);
    expect(w.slice(-2)).toEqual(['M2S.change_state', 'S2M.change_state']);
    expect(eng.health()).toMatchObject({ aborted: false });
    dev.memory.write(SRC, pattern(256, 3));
    const s1 = a.copy(SRC, DST + 0x1000, 256);
    const s2 = b.copy(SRC, DST + 0x2000, 256);
    await a.done(s1);
    await b.done(s2);
    expect(same(readMem(dev, DST + 0x2000, 256), pattern(256, 3))).toBe(true);
    // the abort a second time is a new fault, attributed again
    a.copy(SRC, 0x7100_0000, 64);
    dev.runUntilIdle();
    expect(a.completedStatus().statuses.at(-1)).toMatchObject({
      status: 'aborted',
      fault: { address: 0x7100_0000 },
    });
  });
});

describe('the allocator over the DMA-visible memory', () => {
  it('places rings 256-byte aligned and buffers without overlap; avoids hand-placed rings; refuses overlapping reservations', async () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    eng.initQueue(0, { tx: { base: 0x100, size: 32 }, rx: { base: 0x400, size: 32 } });
    const alloc = eng.allocator;
    expect(eng.allocator).toBe(alloc);
    const r = alloc.allocQueueRings(100);
    expect(r.tx.size).toBe(112);
    expect(r.tx.base % 256).toBe(0);
    expect(r.rx.base % 256).toBe(0);
    // clear of queue 0's rings at 0x100..0x300 and 0x400..0x600
    expect(r.tx.base).toBeGreaterThanOrEqual(0x600);
    const q = eng.initQueue(1, r);
    const src = alloc.alloc(5000, { name: 'src' });
    const dst = alloc.alloc(5000, { name: 'dst', align: 4096 });
    expect(dst.base % 4096).toBe(0);
    const all = alloc.placements();
    for (let i = 1; i < all.length; i++) expect(all[i].base).toBeGreaterThanOrEqual(all[i - 1].end);
    dev.memory.write(src.base, pattern(5000, 9));
    await q.done(q.copy(src.base, dst.base, 5000));
    expect(same(readMem(dev, dst.base, 5000), pattern(5000, 9))).toBe(true);
    expectCode(() => alloc.reserve(src.base + 10, 10), 'MEMORY_OVERLAP');
    expectCode(() => alloc.reserve(0x200, 16), 'MEMORY_OVERLAP'); // queue 0's TX ring
    expectCode(() => alloc.reserve(2 ** 40, 16), 'MEMORY_UNMAPPED');
    alloc.free(src);
    expect(alloc.reserve(src.base, 64).base).toBe(src.base);
    expectCode(() => alloc.alloc(2 ** 40), 'MEMORY_UNMAPPED');
    expectCode(() => alloc.alloc(64, { align: 3 }), 'BAD_ARGUMENT');
    expectCode(
      () =>
        new DmaAllocator([
          { base: 0, size: 10 },
          { base: 5, size: 10 },
        ]),
      'MEMORY_OVERLAP',
    );
  });
});

describe('the allocator keeps clear of DGE host tables', () => {
  it('a DGE core table inside the dram region is never handed out', () => {
    const { dev, eng } = rig({
      autoRun: 'none',
      dgeCores: 1,
      memory: [{ name: 'dram', base: 0x4000_0000, size: 0x10_0000 }],
    });
    const core = dev.dgeCore(dev.dgeCores()[0]!);
    const alloc = eng.allocator;
    const got = [];
    for (let i = 0; i < 40; i++) got.push(alloc.alloc(0x4000));
    for (const p of got)
      expect(p.end <= core.dramBase || p.base >= core.dramBase + core.dram.size).toBe(true);
    expectCode(() => alloc.reserve(core.dramBase, 4), 'MEMORY_OVERLAP');
  });
});

describe('the same API on the mapped back end over a sparse file', () => {
  afterEach(removeFiles);

  it('enqueue / submit / burstCapacity / info / dump / allocator; with no engine behind the file done() times out', async () => {
    const bar0 = sparseFile(0x82000000 + 32 * 0x100000);
    const mem = sparseFile(0x20_0000, 'mem');
    using dev = openDevice({
      path: bar0,
      profile: 'trn2',
      engines: [0],
      memory: [{ deviceAddress: 2 ** 32, fileOffset: 0, size: 0x20_0000, path: mem }],
    });
    const eng = new UdmaEngine(dev, 0, { clock: null });
    eng.bringUp();
    const rings2 = eng.allocator.allocQueueRings(32);
    expect(rings2.tx.base).toBe(2 ** 32);
    const q = eng.initQueue(0, rings2);
    const buf = eng.allocator.alloc(0x1000);
    const out = eng.allocator.alloc(0x1000);
    q.enqueueCopy(buf.base, out.base, 64);
    q.enqueueSg(
      [{ addr: buf.base + 0x100, length: 32 }],
      [
        { addr: out.base + 0x100, length: 16 },
        { addr: out.base + 0x200, length: 16 },
      ],
    );
    expect(q.submit()).toBe(2);
    expect(eng.info()).toMatchObject({ device: { isHardware: true }, initializedQueues: [0] });
    const d = eng.dump({ queues: [0] });
    expect(d.queues[0].m2s.ringBase).toBe(rings2.tx.base);
    expect(d.queues[0].m2s.ringSize).toBe(32);
    // A plain file does not act on rst_q: its heads read ring id 0 (inconsistent), QUEUE_STATE.
    expectCode(() => q.burstCapacity(), 'QUEUE_STATE');
    await expectReject(q.done(1, { timeoutMs: 20 }), 'QUEUE_STATE');
  });
});

describe('dump over a read-only device', () => {
  afterEach(removeFiles);
  it('dump() on a device opened read-only reads and never writes', () => {
    const bar0 = sparseFile(0x82000000 + 32 * 0x100000);
    using dev = openDevice({ path: bar0, profile: 'trn2', engines: [0], readOnly: true });
    const eng = new UdmaEngine(dev, 0, { clock: null });
    const d = eng.dump();
    expect(d.queues).toHaveLength(16);
    expect(d.health.aborted).toBe(false);
    expect(eng.mmio.writes).toBe(0);
    expect(eng.dump({ format: 'text' })).toContain('no queue programmed');
  });
});
