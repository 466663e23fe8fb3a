/**
 * The dmadev / dmaengine style queue API of driver/udma/queue.ts: fences, enqueue / submit,
 * refused enqueues, burst capacity; and the same calls on the mapped back end over a sparse file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTx } from '../../../csr/formats/bd.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { UdmaEngine } from '../../../driver/udma/index.ts';
import { removeFiles, sparseFile } from '../mmio/helpers.ts';
import { expectCode, expectReject, pattern, readMem, rig, rings, same } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

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
