/**
 * The scenarios of DPDK's app/test/test_dmadev.c through the dmadev-style API of driver/udma
 * (enqueue / submit / completed / completedStatus / burstCapacity / stop / start / stats reset /
 * scatter-gather) on the mock device, each test named after the test_dmadev.c scenario, plus a
 * dmatest-style randomized scatter-gather run (seeded fast-check, bounded).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BD_SIZE, LEN_CTRL } from '../../../csr/formats/bd.ts';
import { UdmaEngine, type Segment } from '../../../driver/udma/index.ts';
import { MockDevice, type RegisterAccessEvent } from '../../../mocks/index.ts';
import { fuzz } from '../../support/fuzz.ts';
import { Arena, pattern } from '../support/arena.ts';

const SRC = 0x40_0000;
const SRC_SIZE = 0x40_0000;
const DST = 2 ** 32;
const DST_SIZE = 0x80_0000;
const TX = 0x10_0000;
const RX = 0x20_0000;

function setup(ring = 256) {
  const trace: RegisterAccessEvent[] = [];
  const dev = new MockDevice({
    engines: [0],
    autoRun: 'none',
    strict: false,
    memory: [
      { name: 'host', base: 0, size: 0x80_0000 },
      { name: 'dram', base: DST, size: DST_SIZE },
    ],
    registerTrace: (e) => trace.push(e),
  });
  const eng = new UdmaEngine(dev, 0, { checkBuffers: false });
  eng.bringUp();
  const q = eng.initQueue(0, { tx: { base: TX, size: ring }, rx: { base: RX, size: ring } });
  const src = new Arena(dev, SRC, SRC_SIZE, pattern(SRC_SIZE, 11));
  const dst = new Arena(dev, DST, DST_SIZE, 0xa5);
  trace.length = 0;
  return { dev, eng, q, src, dst, trace };
}

const doorbells = (trace: RegisterAccessEvent[]) =>
  trace
    .filter((t) => t.op === 'write' && /drtp_inc/.test(t.path ?? ''))
    .map((t) => [t.path, t.value]);

/** Runs the mock until idle (the engine only moves when told to). */
function run(dev: MockDevice): void {
  dev.runUntilIdle();
}

describe('test_dmadev.c scenarios through enqueue / submit / completed', () => {
  it('test_enqueue_copies (copy): one enqueued copy, nothing moves before submit, completed == 1 with its sequence number', () => {
    const { dev, q, src, dst, trace } = setup();
    const seq = q.enqueueCopy(SRC, DST, 1024);
    expect(seq).toBe(1);
    expect(doorbells(trace)).toEqual([]);
    run(dev);
    expect(q.completed(8)).toEqual({ count: 0, lastSeq: 0, hasError: false });
    expect(q.submit()).toBe(1);
    expect(doorbells(trace)).toEqual([
      ['S2M_Q[0].rdrtp_inc', 1],
      ['M2S_Q[0].tdrtp_inc', 1],
    ]);
    run(dev);
    expect(q.completed(8)).toEqual({ count: 1, lastSeq: 1, hasError: false });
    expect(q.completed(8)).toEqual({ count: 0, lastSeq: 1, hasError: false });
    dst.expectOnly([{ addr: DST, len: 1024, data: src.bytes(SRC, 1024) }]);
  });

  it('test_enqueue_copies (burst copies): 32 copies enqueued, one submit, completed in bursts, over 100 bursts (the ring wraps)', () => {
    const { dev, q, src, dst, trace } = setup(64);
    const expected = [];
    let last = 0;
    for (let b = 0; b < 100; b++) {
      for (let i = 0; i < 32; i++) {
        const k = (b * 32 + i) % 2048;
        last = q.enqueueCopy(SRC + k * 64, DST + k * 1024, 64);
        if (b >= 100 - 64)
          expected.push({ addr: DST + k * 1024, len: 64, data: src.bytes(SRC + k * 64, 64) });
      }
      trace.length = 0;
      expect(q.submit()).toBe(32);
      expect(doorbells(trace)).toEqual([
        ['S2M_Q[0].rdrtp_inc', 32],
        ['M2S_Q[0].tdrtp_inc', 32],
      ]);
      run(dev);
      // completed in two bursts of 16, as the DPDK test reads them
      expect(q.completed(16)).toEqual({ count: 16, lastSeq: last - 16, hasError: false });
      expect(q.completed(16)).toEqual({ count: 16, lastSeq: last, hasError: false });
    }
    expect(last).toBe(3200);
    expect(q.stats()).toMatchObject({ submitted: 3200, completed: 3200, inFlight: 0, errors: 0 });
    // every destination of the last laps holds its source
    for (const e of expected)
      expect(Buffer.from(dst.bytes(e.addr, e.len)).equals(Buffer.from(e.data))).toBe(true);
  });

  it('test_dmadev_instance stop / start: a stopped engine moves nothing; start resumes the queued work without a reset', async () => {
    const { dev, eng, q, src, dst, trace } = setup();
    eng.stop();
    expect(trace.filter((t) => t.op === 'write').map((t) => t.path)).toEqual([
      'M2S.change_state',
      'S2M.change_state',
    ]);
    const seq = q.copy(SRC, DST, 4096);
    run(dev);
    expect(q.completed()).toEqual({ count: 0, lastSeq: 0, hasError: false });
    expect(dst.untouched()).toBe(true);
    const report = eng.start();
    expect(report).toEqual({
      engine: 0,
      recovered: false,
      queuesReset: [],
      discarded: 0,
      aborted: 0,
    });
    const st = await q.done(seq, { timeoutMs: 1000 });
    expect(st).toEqual({ queue: 0, seq, status: 'success' });
    dst.expectOnly([{ addr: DST, len: 4096, data: src.bytes(SRC, 4096) }]);
  });

  it('test_completion_handling (completed without errors): hasError stays false over 20 batches', () => {
    const { dev, q } = setup(64);
    for (let b = 0; b < 20; b++) {
      for (let i = 0; i < 16; i++) q.enqueueCopy(SRC + i * 256, DST + i * 256, 256);
      q.submit();
      run(dev);
      const r = q.completed(32);
      expect(r.count).toBe(16);
      expect(r.hasError).toBe(false);
    }
  });

  it('test_completion_handling (completed with errors): the count stops before the failed copy, hasError is set until completedStatus reads it', () => {
    const { dev, eng, q, src, dst } = setup(64);
    const BAD = 0x7000_0000; // not mapped: the engine aborts on it
    for (let i = 0; i < 8; i++) q.enqueueCopy(SRC + i * 256, i === 5 ? BAD : DST + i * 256, 256);
    q.submit();
    run(dev);
    expect(eng.health().aborted).toBe(true);
    expect(q.completed(16)).toEqual({ count: 5, lastSeq: 5, hasError: true });
    expect(q.completed(16)).toEqual({ count: 0, lastSeq: 5, hasError: true });
    const st = q.completedStatus(16);
    expect(st.count).toBe(1);
    expect(st.statuses[0]).toMatchObject({
      seq: 6,
      status: 'aborted',
      fault: { address: BAD, kind: 'data', half: 's2m' },
    });
    expect(q.stats()).toMatchObject({ completed: 5, aborted: 1, errors: 1, inFlight: 3 });
    dst.expectOnly(
      [0, 1, 2, 3, 4].map((i) => ({
        addr: DST + i * 256,
        len: 256,
        data: src.bytes(SRC + i * 256, 256),
      })),
    );
  });

  it('test_completion_status (completed_status after a fault): success, aborted with its address, then discarded by the recovery; the queue works after start', async () => {
    const { dev, eng, q, src, dst } = setup(64);
    const BAD = 0x6000_0000;
    for (let i = 0; i < 10; i++) q.enqueueCopy(i === 3 ? BAD : SRC + i * 512, DST + i * 512, 512);
    q.submit();
    run(dev);
    const before = q.completedStatus(2);
    expect(before.statuses.map((s) => s.status)).toEqual(['success', 'success']);
    const report = eng.start();
    expect(report).toMatchObject({ recovered: true, queuesReset: [0], discarded: 6, aborted: 1 });
    expect(eng.health().aborted).toBe(false);
    const st = q.completedStatus(64);
    expect(st.statuses.map((s) => [s.seq, s.status])).toEqual([
      [3, 'success'],
      [4, 'aborted'],
      ...[5, 6, 7, 8, 9, 10].map((s) => [s, 'discarded']),
    ]);
    expect(st.statuses[1].fault).toMatchObject({ address: BAD, kind: 'data', half: 'm2s' });
    expect(st.lastSeq).toBe(10);
    // a copy after the recovery runs
    const seq = q.copy(SRC + 0x10000, DST + 0x10000, 4096);
    await expect(q.done(seq)).resolves.toMatchObject({ status: 'success' });
    dst.expectOnly([
      ...[0, 1, 2].map((i) => ({
        addr: DST + i * 512,
        len: 512,
        data: src.bytes(SRC + i * 512, 512),
      })),
      { addr: DST + 0x10000, len: 4096, data: src.bytes(SRC + 0x10000, 4096) },
    ]);
    expect(q.stats()).toMatchObject({ completed: 4, aborted: 1, discarded: 6, inFlight: 0 });
  });

  it('test_burst_capacity (over ring wrap): capacity drops by one per enqueue and comes back after the drain, 10 laps of a 64-descriptor ring', () => {
    const { dev, q } = setup(64);
    expect(q.burstCapacity()).toBe(64);
    let ids = new Set<number>();
    for (let lap = 0; lap < 10; lap++) {
      for (let k = 0; k < 3; k++) {
        for (let i = 0; i < 21; i++) {
          q.enqueueCopy(SRC + i * 64, DST + i * 64, 64);
          expect(q.burstCapacity()).toBe(64 - i - 1);
        }
        q.submit();
        run(dev);
        expect(q.burstCapacity()).toBe(64);
        expect(q.completed(64).count).toBe(21);
        ids.add(q.tx.ringId);
      }
      ids.add(q.tx.ringId);
    }
    // 630 descriptors on a 64-slot ring: every ring id was used
    expect([...ids].sort()).toEqual([0, 1, 2, 3]);
    ids = new Set();
    // A full ring: capacity 0, and one more enqueue is RING_FULL with nothing written
    for (let i = 0; i < 64; i++) q.enqueueCopy(SRC, DST + i * 64, 64);
    expect(q.burstCapacity()).toBe(0);
    expect(() => q.enqueueCopy(SRC, DST, 64)).toThrow(/room for 0/);
  });

  it('test_enqueue_sg_copies (scatter-gather copies): every source and destination segment count 1..4, one packet per copy, data exact', () => {
    const { dev, q, src, dst } = setup(256);
    const expected = [];
    let di = 0;
    let n = 0;
    for (let ns = 1; ns <= 4; ns++) {
      for (let nd = 1; nd <= 4; nd++) {
        const total = 840 * ns * nd;
        const s: Segment[] = [];
        let at = SRC + n * 0x4000;
        for (let i = 0; i < ns; i++) {
          const len = i === ns - 1 ? total - ((total / ns) | 0) * (ns - 1) : (total / ns) | 0;
          s.push({ addr: at, length: len });
          at += len + 64; // gaps between source segments
        }
        const d: Segment[] = [];
        let dat = DST + di;
        for (let i = 0; i < nd; i++) {
          const len = i === nd - 1 ? total - ((total / nd) | 0) * (nd - 1) : (total / nd) | 0;
          d.push({ addr: dat, length: len });
          dat += len + 128;
        }
        di += 0x8000;
        n++;
        const seq = q.copySg(s, d);
        expect(seq).toBe(n);
        const joined = Buffer.concat(s.map((x) => Buffer.from(src.bytes(x.addr, x.length))));
        let off = 0;
        for (const x of d) {
          expected.push({
            addr: x.addr,
            len: x.length,
            data: new Uint8Array(joined.subarray(off, off + x.length)),
          });
          off += x.length;
        }
      }
    }
    run(dev);
    expect(q.completed(64)).toEqual({ count: 16, lastSeq: 16, hasError: false });
    dst.expectOnly(expected);
    // one packet per scatter-gather copy, first..last on the TX descriptors
    const served = dev.serviceTrace.entries();
    expect(served).toHaveLength(16);
    expect(served.map((e) => e.descriptors)).toEqual(
      [1, 2, 3, 4].flatMap((ns) => [1, 2, 3, 4].map(() => ns)),
    );
    const w = new Uint32Array(dev.memory.view(TX, 4 * BD_SIZE)!.slice().buffer);
    // copy 1 is one TX descriptor (first|last); copy 2 starts at slot 1 (also single)
    expect(w[0] & (LEN_CTRL.FIRST | LEN_CTRL.LAST)).toBe(LEN_CTRL.FIRST | LEN_CTRL.LAST);
  });

  it('test_dmadev_stats (stats reset): counters read, reset to zero, sequence numbers go on', () => {
    const { dev, eng, q } = setup();
    for (let i = 0; i < 5; i++) q.copy(SRC + i * 100, DST + i * 100, 100);
    run(dev);
    q.completed();
    const s = eng.stats({ reset: true });
    expect(s[0]).toMatchObject({ submitted: 5, completed: 5, bytes: 500, errors: 0 });
    expect(eng.stats()[0]).toMatchObject({
      submitted: 0,
      completed: 0,
      bytes: 0,
      descriptors: 0,
      errors: 0,
    });
    expect(q.copy(SRC, DST, 8)).toBe(6);
    run(dev);
    expect(q.completed()).toEqual({ count: 1, lastSeq: 6, hasError: false });
    expect(q.stats({ reset: true })).toMatchObject({ submitted: 1, completed: 1, bytes: 8 });
    expect(q.stats()).toMatchObject({ submitted: 0, completed: 0 });
    expect(() => eng.stats({ reset: 'yes' as never })).toThrow(/reset must be a boolean/);
  });
});

describe('dmatest with scatter-gather: random segment counts, lengths and offsets, guard bytes', () => {
  it('200 rounds (seed 0xd4a7e503): the destination changes exactly in its segments, in order; the source is untouched', async () => {
    const { dev, eng, q, src } = setup(256);
    // a 128 KiB guarded window of the destination: every copy lands inside it
    const dst = new Arena(dev, DST, 0x2_0000, 0xa5);
    const seg = fc.integer({ min: 1, max: 6 });
    const arb = fc.record({
      ns: seg,
      nd: seg,
      lens: fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 6, maxLength: 6 }),
      gaps: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 12, maxLength: 12 }),
      cut: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 5 }),
    });
    let round = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ ns, nd, lens, gaps, cut }) => {
        round++;
        dst.view.fill(0xa5);
        const s: Segment[] = [];
        let at = SRC + (round % 64) * 0x10000;
        for (let i = 0; i < ns; i++) {
          s.push({ addr: at, length: lens[i] });
          at += lens[i] + gaps[i];
        }
        const total = s.reduce((a, x) => a + x.length, 0);
        // split the total into nd destination lengths >= 1 at random cut points
        const points = [
          ...new Set(cut.slice(0, nd - 1).map((c) => 1 + Math.floor(c * (total - 1)))),
        ]
          .filter((p) => p > 0 && p < total)
          .sort((a, b) => a - b);
        const bounds = [0, ...points, total];
        const d: Segment[] = [];
        let dat = DST + 64;
        for (let i = 0; i + 1 < bounds.length; i++) {
          const len = bounds[i + 1] - bounds[i];
          d.push({ addr: dat, length: len });
          dat += len + gaps[6 + (i % 6)];
        }
        const seq = q.copySg(s, d);
        await q.done(seq, { timeoutMs: 5000 });
        const joined = Buffer.concat(s.map((x) => Buffer.from(src.bytes(x.addr, x.length))));
        let off = 0;
        const ranges = d.map((x) => {
          const r = {
            addr: x.addr,
            len: x.length,
            data: new Uint8Array(joined.subarray(off, off + x.length)),
          };
          off += x.length;
          return r;
        });
        dst.expectOnly(ranges);
        expect(src.untouched()).toBe(true);
      }),
      fuzz(0xd4a7e503, 200),
    );
    expect(q.stats()).toMatchObject({ submitted: round, completed: round, errors: 0, inFlight: 0 });
    expect(eng.health().aborted).toBe(false);
  });
});
