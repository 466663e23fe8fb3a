/**
 * driver/udma/ops.ts through the queue API: done() with timeouts and AbortSignals, completion
 * events and callbacks (dmaengine callbacks), a throwing completion listener.
 */
import { describe, expect, it } from 'vitest';
import type { OpStatus } from '../../../driver/udma/index.ts';
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
