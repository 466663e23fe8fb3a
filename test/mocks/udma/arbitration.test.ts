import { describe, expect, it } from 'vitest';
import { MockDevice } from '../../../mocks/device.ts';
import type { ServiceTraceEntry } from '../../../mocks/service-trace.ts';
import { QueuePair, bringUp, modify, rdf, wr } from '../helpers.ts';

const SRC = 0x400000;
const DST = 2 ** 32;

/** Queues 0..n-1 of engine 0 with rings of `ring` descriptors, arbiter registers untouched. */
function setup(n: number, ring = 1024) {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  const u = dev.udma(0);
  bringUp(u);
  const qps = Array.from(
    { length: n },
    (_, q) => new QueuePair(dev, u, q, ring, 0x10000 + q * 2 * ring * 16),
  );
  return { dev, u, qps };
}

/** The queues of the first n grants of the service trace. */
function firstQueues(dev: MockDevice, n: number): number[] {
  return dev.serviceTrace
    .entries()
    .slice(0, n)
    .map((e) => e.queue);
}

/** Queues `count` single-descriptor packets of the given sizes (cycled) on a queue pair. */
function load(qp: QueuePair, count: number, sizes: number[]): void {
  for (let i = 0; i < count; i++) {
    const s = sizes[i % sizes.length];
    qp.putRx(DST, s);
    qp.putTx(SRC, s);
  }
  qp.ringRx(count);
  qp.ringTx(count);
}

/** Prefix of the trace during which every listed queue still had packets left. */
function backlogged(trace: ServiceTraceEntry[], totals: Map<number, number>): ServiceTraceEntry[] {
  const served = new Map<number, number>();
  const out: ServiceTraceEntry[] = [];
  for (const e of trace) {
    out.push(e);
    served.set(e.queue, (served.get(e.queue) ?? 0) + 1);
    if (served.get(e.queue) === totals.get(e.queue)) break;
  }
  return out;
}

function share(entries: ServiceTraceEntry[], by: 'bytes' | 'packets'): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of entries) m.set(e.queue, (m.get(e.queue) ?? 0) + (by === 'bytes' ? e.bytes : 1));
  return m;
}

describe('arbitration driven by the registers', () => {
  it('pref_force_rr = 1 (reset): round robin gives equal service within one packet', () => {
    const { dev, qps } = setup(4);
    // Different packet sizes per queue; RR is per packet.
    qps.forEach((qp, q) => load(qp, 100, [512 * (q + 1)]));
    dev.runUntilIdle();
    const trace = dev.serviceTrace.entries();
    expect(trace.length).toBe(400);
    const count = [0, 0, 0, 0];
    for (const e of trace) {
      count[e.queue]++;
      expect(Math.max(...count) - Math.min(...count)).toBeLessThanOrEqual(1);
    }
    expect(trace.slice(0, 8).map((e) => e.queue)).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
  });

  it('programming q_qos and weights without clearing pref_force_rr still gives round robin (seed §8.6)', () => {
    const { dev, u, qps } = setup(2);
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_2', 1);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_2', 4);
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1 });
    qps.forEach((qp) => load(qp, 20, [1024]));
    dev.runUntilIdle();
    expect(firstQueues(dev, 6)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('strict QoS levels: the higher q_qos level drains first', () => {
    const { dev, u, qps } = setup(3);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_2', 1);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_2', 3);
    wr(u.m2s, 'M2S_Q[2].dwrr_cfg_2', 2);
    qps.forEach((qp) => load(qp, 30, [2048]));
    dev.runUntilIdle();
    const order = dev.serviceTrace.entries().map((e) => e.queue);
    expect(order).toEqual([...Array(30).fill(1), ...Array(30).fill(2), ...Array(30).fill(0)]);
    expect(dev.serviceTrace.entries()[0].qQos).toBe(3);
  });

  it('equal levels without en_dwrr share round robin', () => {
    const { dev, u, qps } = setup(3);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    for (const q of [0, 1, 2]) wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_2`, 2);
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_3', 1);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_3', 8);
    qps.forEach((qp) => load(qp, 10, [1000]));
    dev.runUntilIdle();
    expect(firstQueues(dev, 6)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('DWRR weights 1:2:4 give byte shares within 5% of 1:2:4 over a long run', () => {
    const { dev, u, qps } = setup(3, 4096);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1, inc_factor: 7 });
    const weights = [1, 2, 4];
    weights.forEach((w, q) => {
      wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_2`, 3);
      wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_3`, w);
    });
    // Mixed packet sizes, different per queue.
    const sizes = [
      [1500, 64, 9000, 256],
      [4096, 700, 128],
      [512, 12000, 64, 3000, 1],
    ];
    qps.forEach((qp, q) => load(qp, 4000, sizes[q]));
    dev.runUntilIdle();
    const prefix = backlogged(dev.serviceTrace.entries(), new Map([0, 1, 2].map((q) => [q, 4000])));
    const bytes = share(prefix, 'bytes');
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(5_000_000);
    weights.forEach((w, q) => {
      const want = w / 7;
      const got = (bytes.get(q) ?? 0) / total;
      expect(Math.abs(got - want) / want).toBeLessThan(0.05);
    });
  });

  it('DWRR packet mode (pkt_mode_en) counts packets, not bytes', () => {
    const { dev, u, qps } = setup(2, 2048);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1, pkt_mode_en: 1, inc_factor: 0 });
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_3', 1);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_3', 3);
    load(qps[0], 2000, [16384]);
    load(qps[1], 2000, [64]);
    dev.runUntilIdle();
    const prefix = backlogged(
      dev.serviceTrace.entries(),
      new Map([
        [0, 2000],
        [1, 2000],
      ]),
    );
    const pk = share(prefix, 'packets');
    expect(pk.get(1)! / pk.get(0)!).toBeCloseTo(3, 1);
    // In byte mode the same weights would give queue 1 three times the bytes; here it gets far less.
    const by = share(prefix, 'bytes');
    expect(by.get(1)! / by.get(0)!).toBeLessThan(0.02);
  });

  it('a higher level preempts DWRR sharing of a lower level', () => {
    const { dev, u, qps } = setup(3);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1 });
    wr(u.m2s, 'M2S_Q[2].dwrr_cfg_2', 7);
    qps.forEach((qp) => load(qp, 10, [4096]));
    dev.runUntilIdle();
    expect(
      dev.serviceTrace
        .entries()
        .slice(0, 10)
        .every((e) => e.queue === 2),
    ).toBe(true);
  });

  it('an enabled, unmasked rate limiter caps a queue at its refill per window (refill = bucket size here)', () => {
    const { dev, u, qps } = setup(2);
    wr(u.m2s, 'M2S_rate_limiter.gen_cfg', 1000); // short_cycle_size = 1000 cycles
    wr(u.m2s, 'M2S_Q[0].rate_limit_cfg_token_size_2', 4096); // 4096 tokens per short cycle
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { en: 1, max_burst_size: 4096 });
    modify(u.m2s, 'M2S_Q[0].rate_limit_mask', { internal_rate_limiter: 0 });
    load(qps[0], 200, [1024]);
    load(qps[1], 200, [1024]);
    dev.runUntilIdle();
    const trace = dev.serviceTrace.entries();
    // Per 1000-cycle window queue 0 moves at most its 4096-byte budget (plus one packet of debt).
    const perWindow = new Map<number, number>();
    for (const e of trace.filter((x) => x.queue === 0)) {
      const w = Math.floor(e.startCycle / 1000);
      perWindow.set(w, (perWindow.get(w) ?? 0) + e.bytes);
    }
    for (const b of perWindow.values()) expect(b).toBeLessThanOrEqual(4096);
    const last0 = trace.filter((e) => e.queue === 0).at(-1)!;
    const last1 = trace.filter((e) => e.queue === 1).at(-1)!;
    expect(last1.endCycle).toBeLessThan(last0.endCycle);
    // Alone, the limited queue runs at its budget: 200 KiB at 4 KiB per window is ~50 windows.
    expect(last0.endCycle).toBeGreaterThanOrEqual(49 * 1000);
    expect(u.queueStats(0).m2s.packets).toBe(200);
  });

  it('a packet larger than the bucket waits out its debt (long-run rate = refill per window)', () => {
    const { dev, u, qps } = setup(1);
    wr(u.m2s, 'M2S_rate_limiter.gen_cfg', 100);
    wr(u.m2s, 'M2S_Q[0].rate_limit_cfg_token_size_2', 64);
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { en: 1, max_burst_size: 64 });
    modify(u.m2s, 'M2S_Q[0].rate_limit_mask', { internal_rate_limiter: 0 });
    load(qps[0], 20, [65536]);
    expect(dev.runUntilIdle()).toBe(20);
    const t = dev.serviceTrace.entries();
    // 64 KiB at 64 bytes per 100-cycle window: 1024 windows between packets.
    for (let i = 1; i < t.length; i++)
      expect(t[i].startCycle - t[i - 1].startCycle).toBeGreaterThanOrEqual(1024 * 100);
  });

  it('the engine-wide stream rate limiter caps the sum of all queues per window', () => {
    const { dev, u, qps } = setup(2);
    wr(u.m2s, 'M2S_rate_limiter.gen_cfg', 1000);
    wr(u.m2s, 'M2S_stream_rate_limiter.cfg_token_size_2', 2048);
    modify(u.m2s, 'M2S_stream_rate_limiter.cfg_1s', { en: 1, max_burst_size: 2048 });
    modify(u.m2s, 'M2S_stream_rate_limiter.mask', { internal_rate_limiter: 0 });
    qps.forEach((qp) => load(qp, 40, [1024]));
    expect(dev.runUntilIdle()).toBe(80);
    const perWindow = new Map<number, number>();
    for (const e of dev.serviceTrace.entries()) {
      const w = Math.floor(e.startCycle / 1000);
      perWindow.set(w, (perWindow.get(w) ?? 0) + e.bytes);
    }
    expect(Math.max(...perWindow.values())).toBe(2048);
    expect(perWindow.size).toBe(40);
    // Round robin still decides who goes within the budget.
    expect(firstQueues(dev, 4)).toEqual([0, 1, 0, 1]);
  });

  it('a masked rate limiter (reset) does not limit', () => {
    const { dev, u, qps } = setup(1);
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { en: 1, max_burst_size: 1 });
    load(qps[0], 50, [1024]);
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries().at(-1)!.endCycle).toBeLessThan(2000);
  });

  it('dwrr_cfg_1.pause holds a queue back', () => {
    const { dev, u, qps } = setup(2);
    modify(u.m2s, 'M2S_Q[1].dwrr_cfg_1', { pause: 1 });
    qps.forEach((qp) => load(qp, 5, [100]));
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries().map((e) => e.queue)).toEqual([0, 0, 0, 0, 0]);
    modify(u.m2s, 'M2S_Q[1].dwrr_cfg_1', { pause: 0 });
    dev.runUntilIdle();
    expect(u.queueStats(1).m2s.packets).toBe(5);
  });

  it('sel_dwrr_status shows the deficit of the queue indirect_ctrl.q_num selects', () => {
    const { dev, u, qps } = setup(2);
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1, inc_factor: 10 });
    wr(u.m2s, 'M2S_Q[0].dwrr_cfg_3', 1);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_3', 1);
    load(qps[0], 1, [100]);
    load(qps[1], 1, [100]);
    dev.runUntilIdle({ maxPackets: 1 });
    wr(u.m2s, 'M2S.indirect_ctrl', 0);
    expect(rdf(u.m2s, 'M2S.sel_dwrr_status.deficit_cnt')).toBe(1024 - 100);
    wr(u.m2s, 'M2S_dwrr.ctrl_deficit_cnt', 77);
    wr(u.m2s, 'M2S.indirect_ctrl', 1);
    expect(rdf(u.m2s, 'M2S.sel_dwrr_status.deficit_cnt')).toBe(77);
  });

  it('the service trace records queue, bytes, order, cycle stamps and q_qos', () => {
    const { dev, u, qps } = setup(2);
    wr(u.m2s, 'M2S_Q[1].dwrr_cfg_2', 5);
    load(qps[0], 1, [640]);
    load(qps[1], 1, [64]);
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries()).toEqual([
      {
        order: 0,
        engine: 0,
        queue: 0,
        bytes: 640,
        descriptors: 1,
        startCycle: 0,
        endCycle: 11,
        qQos: 0,
      },
      {
        order: 1,
        engine: 0,
        queue: 1,
        bytes: 64,
        descriptors: 1,
        startCycle: 11,
        endCycle: 13,
        qQos: 5,
      },
    ]);
    expect(dev.serviceTrace.bytesPerQueue(0, 2)).toEqual([640, 64]);
  });
});
