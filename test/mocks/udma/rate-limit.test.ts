/**
 * The two-level token-bucket rate limiters of the mock M2S half, driven through their registers
 * (docs/mock-arbitration.md "Rate limiters"): contention tests where changing one field changes
 * the service trace in the documented direction, and the read-back of the modelled counters.
 */
import { describe, expect, it } from 'vitest';
import { MockDevice } from '../../../mocks/device.ts';
import type { ServiceTraceEntry } from '../../../mocks/service-trace.ts';
import { QueuePair, bringUp, modify, rdf, strobe, wr } from '../helpers.ts';

const SRC = 0x400000;
const DST = 2 ** 32;
/** Engine cycles per short cycle in these tests (M2S_rate_limiter.gen_cfg.short_cycle_size). */
const SHORT = 1000;

/** Queues 0..n-1 of engine 0 (rings of 1024), short cycles of SHORT engine cycles. */
function setup(n: number) {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  const u = dev.udma(0);
  bringUp(u);
  modify(u.m2s, 'M2S_rate_limiter.gen_cfg', { short_cycle_size: SHORT });
  const qps = Array.from(
    { length: n },
    (_, q) => new QueuePair(dev, u, q, 1024, 0x10000 + q * 2 * 1024 * 16),
  );
  return { dev, u, qps };
}

/** `count` single-descriptor packets of `size` bytes queued on a queue pair. */
function load(qp: QueuePair, count: number, size: number): void {
  for (let i = 0; i < count; i++) {
    qp.putRx(DST, size);
    qp.putTx(SRC, size);
  }
  qp.ringRx(count);
  qp.ringTx(count);
}

type Bucket = {
  max_burst_size?: number;
  refill?: number;
  longRefill?: number;
  longCycle?: number;
  pause?: number;
};

/** Arms queue q's limiter (or the stream limiter for q = 'stream') with these values. */
function arm(u: ReturnType<MockDevice['udma']>, q: number | 'stream', b: Bucket): void {
  const cfg1 = q === 'stream' ? 'M2S_stream_rate_limiter.cfg_1s' : `M2S_Q[${q}].rate_limit_cfg_1`;
  const p = q === 'stream' ? 'M2S_stream_rate_limiter.cfg_' : `M2S_Q[${q}].rate_limit_cfg_`;
  const mask = q === 'stream' ? 'M2S_stream_rate_limiter.mask' : `M2S_Q[${q}].rate_limit_mask`;
  wr(u.m2s, `${p}token_size_2`, b.refill ?? 0);
  wr(u.m2s, `${p}token_size_1`, b.longRefill ?? 0);
  wr(u.m2s, `${p}cycle`, b.longCycle ?? 0);
  modify(u.m2s, cfg1, { en: 1, max_burst_size: b.max_burst_size ?? 0xffffff, pause: b.pause ?? 0 });
  modify(u.m2s, mask, { internal_rate_limiter: 0 });
}

/** Bytes of `queue` (all queues when undefined) started in each short cycle. */
function perWindow(trace: ServiceTraceEntry[], queue?: number): number[] {
  const out: number[] = [];
  for (const e of trace) {
    if (queue !== undefined && e.queue !== queue) continue;
    const w = Math.floor(e.startCycle / SHORT);
    while (out.length <= w) out.push(0);
    out[w] += e.bytes;
  }
  return out;
}

/** The trace of queue q (cycle of its last packet's end). */
function lastEnd(trace: ServiceTraceEntry[], q: number): number {
  return trace.filter((e) => e.queue === q).at(-1)!.endCycle;
}

describe("rate limiters: a rate-limited queue's bytes per window match its tokens", () => {
  it('a limited queue moves its refill (rate_limit_cfg_token_size_2) per short cycle, whatever its neighbour does', () => {
    const { dev, u, qps } = setup(2);
    arm(u, 0, { max_burst_size: 1024, refill: 1024 });
    load(qps[0], 40, 512);
    load(qps[1], 40, 512);
    expect(dev.runUntilIdle()).toBe(80);
    const trace = dev.serviceTrace.entries();
    const w0 = perWindow(trace, 0);
    // nothing before the first fill, then exactly 1024 bytes (two packets) per short cycle
    expect(w0[0]).toBe(0);
    expect(w0.slice(1, 21)).toEqual(new Array(20).fill(1024));
    // the unlimited queue is done long before
    expect(lastEnd(trace, 1)).toBeLessThan(SHORT);
    expect(lastEnd(trace, 0)).toBeGreaterThan(20 * SHORT);
  });

  it('a larger refill (only that field changed) moves proportionally more bytes per short cycle', () => {
    const rate = (refill: number) => {
      const { dev, u, qps } = setup(1);
      arm(u, 0, { max_burst_size: 4096, refill });
      load(qps[0], 64, 512);
      dev.runUntilIdle();
      const w = perWindow(dev.serviceTrace.entries(), 0);
      return { perWindow: w[2], windows: w.length };
    };
    const a = rate(1024);
    const b = rate(2048);
    expect(a.perWindow).toBe(1024);
    expect(b.perWindow).toBe(2048);
    expect(b.windows).toBeLessThan(a.windows);
  });

  it('the bucket size (max_burst_size, only that field changed) sets the burst after an idle stretch, not the rate', () => {
    const run = (cap: number) => {
      const { dev, u, qps } = setup(1);
      arm(u, 0, { max_burst_size: cap, refill: 1024 });
      // idle for ten short cycles: the bucket fills up to its size
      u.cycle = 10 * SHORT;
      load(qps[0], 64, 512);
      dev.runUntilIdle();
      return perWindow(dev.serviceTrace.entries(), 0);
    };
    const small = run(1024);
    const large = run(8192);
    // the first window after the idle stretch: what the bucket held (plus what refills meanwhile)
    expect(small[10]).toBe(1024);
    expect(large[10]).toBeGreaterThanOrEqual(8192);
    // afterwards both run at the refill rate
    expect(small[20]).toBe(1024);
    expect(large[20]).toBe(1024);
  });

  it('a packet larger than the bucket leaves a debt: the long-run rate is still the refill rate', () => {
    const { dev, u, qps } = setup(1);
    arm(u, 0, { max_burst_size: 64, refill: 64 });
    load(qps[0], 10, 65536);
    expect(dev.runUntilIdle()).toBe(10);
    const t = dev.serviceTrace.entries();
    // 64 KiB at 64 bytes per short cycle: 1024 short cycles from one packet's start to the next
    for (let i = 1; i < t.length; i++)
      expect(Math.round((t[i].startCycle - t[i - 1].startCycle) / SHORT)).toBe(1024);
  });

  it('the long cycle: cfg_token_size_1 tokens every long_cycle_size short cycles', () => {
    const { dev, u, qps } = setup(1);
    arm(u, 0, { max_burst_size: 1 << 20, refill: 0, longRefill: 4096, longCycle: 4 });
    load(qps[0], 32, 1024);
    dev.runUntilIdle();
    const w = perWindow(dev.serviceTrace.entries(), 0);
    // 4 KiB lands at the end of every 4th short cycle and is spent in the short cycle after it
    expect(w.slice(0, 12)).toEqual([0, 0, 0, 0, 4096, 0, 0, 0, 4096, 0, 0, 0]);
  });

  it('the stream limiter caps the sum of all queues to its refill per short cycle; round robin shares it', () => {
    const { dev, u, qps } = setup(4);
    arm(u, 'stream', { max_burst_size: 2048, refill: 2048 });
    qps.forEach((qp) => load(qp, 16, 512));
    expect(dev.runUntilIdle()).toBe(64);
    const trace = dev.serviceTrace.entries();
    const all = perWindow(trace);
    expect(all[0]).toBe(0);
    expect(all.slice(1, 17)).toEqual(new Array(16).fill(2048));
    // round robin decides who goes within the budget: each queue one packet per short cycle
    for (let q = 0; q < 4; q++)
      expect(perWindow(trace, q).slice(1, 17)).toEqual(new Array(16).fill(512));
  });

  it('both levels: a queue pays its own bucket and the stream bucket, the tighter one wins', () => {
    const { dev, u, qps } = setup(2);
    arm(u, 'stream', { max_burst_size: 4096, refill: 4096 });
    arm(u, 1, { max_burst_size: 512, refill: 512 });
    load(qps[0], 40, 512);
    load(qps[1], 40, 512);
    dev.runUntilIdle();
    const trace = dev.serviceTrace.entries();
    // queue 1 is held to 512 per short cycle by its own bucket; queue 0 takes the rest of the
    // stream's 4096
    expect(perWindow(trace, 1).slice(1, 6)).toEqual([512, 512, 512, 512, 512]);
    expect(perWindow(trace, 0).slice(1, 6)).toEqual([3584, 3584, 3584, 3584, 3584]);
  });

  it('gen_cfg.pkt_mode_en: tokens count packets, not bytes', () => {
    const { dev, u, qps } = setup(1);
    modify(u.m2s, 'M2S_rate_limiter.gen_cfg', { pkt_mode_en: 1 });
    arm(u, 0, { max_burst_size: 3, refill: 3 });
    load(qps[0], 30, 4096);
    dev.runUntilIdle();
    const trace = dev.serviceTrace.entries();
    const packets = new Map<number, number>();
    for (const e of trace) {
      const w = Math.floor(e.startCycle / SHORT);
      packets.set(w, (packets.get(w) ?? 0) + 1);
    }
    expect([1, 2, 3, 4].map((w) => packets.get(w))).toEqual([3, 3, 3, 3]);
  });

  it('pause stops the refill: the queue spends what its bucket holds, then waits until unpaused', () => {
    const { dev, u, qps } = setup(1);
    arm(u, 0, { max_burst_size: 4096, refill: 1024 });
    u.cycle = 4 * SHORT; // the bucket fills to 4096
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { pause: 1 });
    load(qps[0], 20, 1024);
    dev.runUntilIdle();
    expect(u.queueStats(0).m2s.packets).toBe(4);
    u.cycle += 50 * SHORT;
    expect(dev.runUntilIdle()).toBe(0); // still paused: no refill however long it waits
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { pause: 0 });
    expect(dev.runUntilIdle()).toBe(16);
  });

  it('cfg_1s.pause on the stream limiter stops the engine once the stream bucket is spent', () => {
    const { dev, u, qps } = setup(2);
    arm(u, 'stream', { max_burst_size: 2048, refill: 2048 });
    u.cycle = 2 * SHORT;
    modify(u.m2s, 'M2S_stream_rate_limiter.cfg_1s', { pause: 1 });
    qps.forEach((qp) => load(qp, 10, 512));
    expect(dev.runUntilIdle()).toBe(4);
    modify(u.m2s, 'M2S_stream_rate_limiter.cfg_1s', { pause: 0 });
    expect(dev.runUntilIdle()).toBe(16);
  });

  it('a masked (reset) or disabled limiter does not limit', () => {
    const { dev, u, qps } = setup(2);
    // enabled but masked (the reset mask): no limit
    modify(u.m2s, 'M2S_Q[0].rate_limit_cfg_1', { en: 1, max_burst_size: 1 });
    // unmasked but not enabled: no limit
    modify(u.m2s, 'M2S_Q[1].rate_limit_mask', { internal_rate_limiter: 0 });
    load(qps[0], 20, 1024);
    load(qps[1], 20, 1024);
    expect(dev.runUntilIdle()).toBe(40);
    expect(dev.serviceTrace.entries().at(-1)!.endCycle).toBeLessThan(SHORT);
  });

  it("ctrl_token sets every queue's counter; sw_ctrl.rst_token_cnt sets one bucket's to that value", () => {
    const { dev, u, qps } = setup(2);
    arm(u, 0, { max_burst_size: 1 << 20, refill: 0 });
    arm(u, 1, { max_burst_size: 1 << 20, refill: 0 });
    wr(u.m2s, 'M2S_rate_limiter.ctrl_token', 3072);
    load(qps[0], 10, 1024);
    load(qps[1], 10, 1024);
    // no refill: each queue spends exactly its initial 3072 tokens
    expect(dev.runUntilIdle()).toBe(6);
    expect(u.queueStats(0).m2s.packets).toBe(3);
    expect(u.queueStats(1).m2s.packets).toBe(3);
    // a new ctrl_token value is every queue's counter again
    wr(u.m2s, 'M2S_rate_limiter.ctrl_token', 2048);
    expect(dev.runUntilIdle()).toBe(4);
    // rst_token_cnt gives one bucket the init value, the others keep theirs (0)
    strobe(u.m2s, 'M2S_Q[1].rate_limit_sw_ctrl', { rst_token_cnt: 1 });
    expect(dev.runUntilIdle()).toBe(2);
    expect(u.queueStats(0).m2s.packets).toBe(5);
    expect(u.queueStats(1).m2s.packets).toBe(7);
  });

  it('ctrl_cycle_cnt bit 0 restarts the short-cycle counter: the next fill comes a full short cycle later', () => {
    const { dev, u, qps } = setup(1);
    arm(u, 0, { max_burst_size: 1024, refill: 1024 });
    u.cycle = 500;
    wr(u.m2s, 'M2S_rate_limiter.ctrl_cycle_cnt', 1);
    load(qps[0], 2, 1024);
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries().map((e) => e.startCycle)).toEqual([1500, 2500]);
  });
});

describe('read-backs through M2S.indirect_ctrl.q_num', () => {
  it("sel_rate_limit_status.token_cnt shows the selected queue's modelled counter", () => {
    const { dev, u, qps } = setup(3);
    arm(u, 1, { max_burst_size: 10_000, refill: 700 });
    arm(u, 2, { max_burst_size: 1500, refill: 700 });
    u.cycle = 3 * SHORT + 10;
    wr(u.m2s, 'M2S.indirect_ctrl', 1);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(2100);
    wr(u.m2s, 'M2S.indirect_ctrl', 2);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(1500); // capped
    wr(u.m2s, 'M2S.indirect_ctrl', 0);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(0); // never armed
    // spending: one 1000-byte packet on queue 1 leaves 1100
    load(qps[1], 1, 1000);
    dev.runUntilIdle();
    wr(u.m2s, 'M2S.indirect_ctrl', 1);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(1100);
    // in debt the counter reads 0
    load(qps[1], 1, 5000);
    dev.runUntilIdle();
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(0);
    // an index past the last queue reads 0
    wr(u.m2s, 'M2S.indirect_ctrl', 0xfff);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(0);
  });

  it("q_sw_ctrl.rst_q sets the queue's counter back to the ctrl_token value", () => {
    const { u } = setup(1);
    arm(u, 0, { max_burst_size: 10_000, refill: 500 });
    u.cycle = 4 * SHORT;
    wr(u.m2s, 'M2S.indirect_ctrl', 0);
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(2000);
    wr(u.m2s, 'M2S_rate_limiter.ctrl_token', 300); // every queue's counter is 300 now
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(300);
    u.cycle = 6 * SHORT;
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(1300);
    strobe(u.m2s, 'M2S_Q[0].q_sw_ctrl', { rst_q: 1 });
    expect(rdf(u.m2s, 'M2S.sel_rate_limit_status.token_cnt')).toBe(300);
  });
});
