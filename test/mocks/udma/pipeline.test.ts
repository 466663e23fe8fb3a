/**
 * Contention tests of the mock's arbitration pipeline (mocks/udma/arbitration.ts): for each field
 * with an effect, two runs that differ only in that field, and the trace moving in the direction
 * docs/mock-arbitration.md documents.
 */
import { describe, expect, it } from 'vitest';
import { MockDevice } from '../../../mocks/device.ts';
import type { MockUdmaUnit } from '../../../mocks/udma/unit.ts';
import { QueuePair, bringUp, modify, wr } from '../helpers.ts';

const SRC = 0x400000;
const DST = 2 ** 32;
const COMP = 0x200000;

type Setup = (u: MockUdmaUnit) => void;

/** Queues 0..n-1 (rings of 256), `set` applied, `count` packets of `sizes[q]` on each queue. */
function run(
  n: number,
  count: number,
  sizes: number[],
  set: Setup,
  opts: { completion?: boolean; serviceTrace?: boolean | { limit: number } } = {},
) {
  const dev = new MockDevice({ engines: [0], autoRun: 'none', serviceTrace: opts.serviceTrace });
  const u = dev.udma(0);
  bringUp(u);
  const qps = Array.from(
    { length: n },
    (_, q) =>
      new QueuePair(dev, u, q, 256, 0x10000 + q * 2 * 256 * 16, {
        completion: opts.completion
          ? { tx: COMP + q * 2 * 256 * 16, rx: COMP + (q * 2 + 1) * 256 * 16 }
          : undefined,
      }),
  );
  set(u);
  qps.forEach((qp, q) => {
    for (let i = 0; i < count; i++) {
      qp.putRx(DST, sizes[q]);
      qp.putTx(SRC, sizes[q]);
    }
    qp.ringRx(count);
    qp.ringTx(count);
  });
  dev.runUntilIdle();
  return { dev, u, trace: dev.serviceTrace.entries() };
}

const queues = (es: { queue: number }[], k = es.length) => es.slice(0, k).map((e) => e.queue);

describe('the prefetch arbiter (M2S_rd.desc_pref_cfg_2, cfg.AXI_qos, AXI_M2S_MLA)', () => {
  const axi =
    (forceRR: number): Setup =>
    (u) => {
      modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: forceRR });
      modify(u.m2s, 'M2S_Q[1].cfg', { AXI_qos: 5 });
    };

  it('pref_force_rr 0: the higher AXI_qos queue is fetched first; 1: the grants alternate', () => {
    const qos = run(2, 40, [64, 64], axi(0)).u.prefetches.entries({ half: 'm2s' });
    const rr = run(2, 40, [64, 64], axi(1)).u.prefetches.entries({ half: 'm2s' });
    expect(queues(qos, 2)).toEqual([1, 1]);
    expect(queues(rr, 4)).toEqual([0, 1, 0, 1]);
  });

  it('a high-priority candidate (AXI_M2S_MLA.high_priority.enable) is fetched before a higher AXI_qos', () => {
    const plain = run(2, 40, [64, 64], axi(0)).u.prefetches.entries({ half: 'm2s' });
    const hp = run(2, 40, [64, 64], (u) => {
      axi(0)(u);
      wr(u.m2s, 'AXI_M2S_MLA.high_priority', 0b01);
    }).u.prefetches.entries({ half: 'm2s' });
    expect(plain[0].queue).toBe(1);
    expect(hp[0].queue).toBe(0);
  });

  it('AXI_M2S.desc_rd_cfg_3.max_desc_burst bounds a grant', () => {
    const burst = (b: number) =>
      run(1, 40, [64], (u) =>
        modify(u.m2s, 'AXI_M2S.desc_rd_cfg_3', { max_desc_burst: b }),
      ).u.prefetches.entries({ half: 'm2s' })[0].count;
    expect(burst(8)).toBe(8);
    expect(burst(3)).toBe(3);
  });

  it('M2S_Q[q].cfg.AXI_qos alone (pref_force_rr 0): the higher queue is fetched first; equal ones alternate', () => {
    const qos0: Setup = (u) => modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    const equal = run(2, 40, [64, 64], qos0).u.prefetches.entries({ half: 'm2s' });
    const higher = run(2, 40, [64, 64], axi(0)).u.prefetches.entries({ half: 'm2s' });
    expect(queues(equal, 4)).toEqual([0, 1, 0, 1]);
    expect(queues(higher, 5)).toEqual([1, 1, 1, 1, 1]);
  });

  /**
   * One queue, 42 one-descriptor packets, bursts of 8: five full bursts at cycle 0 and a trailing
   * burst of 2, which goes at once when its minimum is at most 2 and is held back (until the FIFO
   * needs it) when its minimum is above 2.
   */
  const trailing = (half: 'm2s' | 's2m', fields: Record<string, number>) => {
    const es = run(1, 42, [64], (u) =>
      half === 'm2s'
        ? modify(u.m2s, 'M2S_rd.desc_pref_cfg_3', fields)
        : modify(u.s2m, 'S2M_rd.desc_pref_cfg_3', fields),
    ).u.prefetches.entries({ half });
    expect(es.map((e) => e.count)).toEqual([8, 8, 8, 8, 8, 2]);
    return es[5].cycle;
  };

  it('M2S desc_pref_cfg_3.min_burst_below_thr: a FIFO below pref_thr waits for a burst of that many', () => {
    expect(trailing('m2s', { pref_thr: 255, min_burst_below_thr: 1 })).toBe(0);
    expect(trailing('m2s', { pref_thr: 255, min_burst_below_thr: 4 })).toBeGreaterThan(0);
  });

  it('M2S desc_pref_cfg_3.min_burst_above_thr: a FIFO at or above pref_thr waits for a burst of that many', () => {
    expect(trailing('m2s', { pref_thr: 1, min_burst_above_thr: 1 })).toBe(0);
    expect(trailing('m2s', { pref_thr: 1, min_burst_above_thr: 4 })).toBeGreaterThan(0);
  });

  it('M2S desc_pref_cfg_3.pref_thr: a FIFO below it takes the smaller below-threshold burst', () => {
    // Resets: min_burst_below_thr 1, min_burst_above_thr 4; the FIFO holds 40 at the last burst.
    expect(trailing('m2s', { pref_thr: 64 })).toBe(0);
    expect(trailing('m2s', { pref_thr: 16 })).toBeGreaterThan(0);
  });

  it('S2M desc_pref_cfg_3 min_burst_below_thr, min_burst_above_thr and pref_thr bound an RX burst', () => {
    expect(trailing('s2m', { pref_thr: 255, min_burst_below_thr: 1 })).toBe(0);
    expect(trailing('s2m', { pref_thr: 255, min_burst_below_thr: 4 })).toBeGreaterThan(0);
    expect(trailing('s2m', { pref_thr: 1, min_burst_above_thr: 1 })).toBe(0);
    expect(trailing('s2m', { pref_thr: 1, min_burst_above_thr: 4 })).toBeGreaterThan(0);
    expect(trailing('s2m', { pref_thr: 64, min_burst_above_thr: 4 })).toBe(0);
    expect(trailing('s2m', { pref_thr: 16, min_burst_above_thr: 4 })).toBeGreaterThan(0);
  });

  it('S2M_rd.desc_pref_cfg_2.pref_force_rr 0: the higher S2M_Q AXI_qos queue is fetched first; 1: alternate', () => {
    const rx =
      (forceRR: number, axiQos: number): Setup =>
      (u) => {
        modify(u.s2m, 'S2M_rd.desc_pref_cfg_2', { pref_force_rr: forceRR });
        modify(u.s2m, 'S2M_Q[1].cfg', { AXI_qos: axiQos });
      };
    const fetched = (s: Setup) =>
      queues(run(2, 40, [64, 64], s).u.prefetches.entries({ half: 's2m' }), 5);
    expect(fetched(rx(0, 5))).toEqual([1, 1, 1, 1, 1]);
    expect(fetched(rx(1, 5))).toEqual([0, 1, 0, 1, 0]);
    // S2M_Q[q].cfg.AXI_qos alone.
    expect(fetched(rx(0, 0))).toEqual([0, 1, 0, 1, 0]);
  });

  it('the service trace names the prefetch as the stage that decided while another queue waits for its LAST', () => {
    const dev = new MockDevice({ engines: [0], autoRun: 'none' });
    const u = dev.udma(0);
    bringUp(u);
    const a = new QueuePair(dev, u, 0, 64, 0x10000);
    const b = new QueuePair(dev, u, 1, 64, 0x20000);
    a.putRx(DST, 64);
    a.putTx(SRC, 64);
    a.ringRx(1);
    a.ringTx(1);
    b.putRx(DST, 128);
    b.putTx(SRC, 128, { chunk: 64 }); // two descriptors, LAST on the second
    b.ringRx(1);
    b.ringTx(1); // LAST not handed over yet
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries().map((e) => [e.queue, e.stage])).toEqual([[0, 'prefetch']]);
  });
});

describe('the DWRR packet scheduler (M2S_dwrr, dwrr_cfg_1..3)', () => {
  const dwrr =
    (extra: Setup = () => {}): Setup =>
    (u) => {
      modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
      modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1, inc_factor: 7, weight_inc: 0 });
      for (const q of [0, 1]) {
        wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_2`, 2);
        wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_3`, 1);
      }
      extra(u);
    };
  const bigFirst = (t: { queue: number }[], k: number) =>
    t.slice(0, k).filter((e) => e.queue === 0).length;

  it('a strict queue bypasses DWRR at its level', () => {
    const plain = run(2, 20, [1024, 1024], dwrr()).trace;
    const strict = run(
      2,
      20,
      [1024, 1024],
      dwrr((u) => modify(u.m2s, 'M2S_Q[1].dwrr_cfg_1', { strict: 1 })),
    ).trace;
    expect(queues(plain, 4)).toEqual([0, 1, 0, 1]);
    expect(queues(strict, 20)).toEqual(Array(20).fill(1));
    expect(strict[0].stage).toBe('scheduler');
  });

  it('weight_inc grows the quantum between iterations: the large-packet queue gets more turns', () => {
    const flat = run(2, 60, [4096, 64], dwrr()).trace;
    const grown = run(
      2,
      60,
      [4096, 64],
      dwrr((u) => modify(u.m2s, 'M2S_dwrr.cfg_sched', { weight_inc: 2 })),
    ).trace;
    expect(bigFirst(grown, 60)).toBeGreaterThan(bigFirst(flat, 60));
  });

  it('max_deficit_cnt_size caps the deficit: a capped queue sends once the cap is reached', () => {
    const free = run(2, 60, [4096, 64], dwrr()).trace;
    const capped = run(
      2,
      60,
      [4096, 64],
      dwrr((u) => modify(u.m2s, 'M2S_Q[0].dwrr_cfg_1', { max_deficit_cnt_size: 256 })),
    ).trace;
    expect(bigFirst(capped, 60)).toBeGreaterThan(bigFirst(free, 60));
  });

  it('ctrl_deficit_cnt.init starts every deficit at its value (a queue sends before its turns)', () => {
    const zero = run(2, 10, [4096, 64], dwrr()).trace;
    const init = run(
      2,
      10,
      [4096, 64],
      dwrr((u) => wr(u.m2s, 'M2S_dwrr.ctrl_deficit_cnt', 8192)),
    ).trace;
    expect(bigFirst(init, 4)).toBeGreaterThan(bigFirst(zero, 4));
  });
});

describe('the completion arbiter (M2S_comp / S2M_comp.cfg_1c, comp_cfg.dis_comp_coal)', () => {
  const comp =
    (fields: Record<string, number>, s2m: Record<string, number> = {}): Setup =>
    (u) => {
      modify(u.m2s, 'M2S_Q[1].cfg', { AXI_qos: 3 });
      modify(u.m2s, 'M2S_comp.cfg_1c', fields);
      if (Object.keys(s2m).length > 0) modify(u.s2m, 'S2M_comp.cfg_1c', s2m);
    };
  const writes = (u: MockUdmaUnit) => queues(u.completions.entries({ half: 'm2s' }));
  const rxWrites = (u: MockUdmaUnit) => queues(u.completions.entries({ half: 's2m' }));

  it('QoS by AXI_qos (reset) writes the higher queue first; force_rr alternates', () => {
    const qos = writes(run(2, 4, [64, 64], comp({}), { completion: true }).u);
    const rr = writes(
      run(2, 4, [64, 64], comp({ force_rr: 1, q_promotion: 0 }), { completion: true }).u,
    );
    expect(qos).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
    expect(rr).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it('q_promotion keeps the queue being written (round robin by runs)', () => {
    const promoted = writes(
      run(2, 4, [64, 64], comp({ force_rr: 1, q_promotion: 1 }), { completion: true }).u,
    );
    expect(promoted).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('q_free_min above the free entries withdraws the promotion', () => {
    const min = writes(
      run(
        2,
        4,
        [64, 64],
        comp({ force_rr: 1, q_promotion: 1, q_free_min: 15, comp_fifo_depth: 16 }),
        {
          completion: true,
        },
      ).u,
    );
    const promoted = writes(
      run(2, 4, [64, 64], comp({ force_rr: 1, q_promotion: 1, comp_fifo_depth: 16 }), {
        completion: true,
      }).u,
    );
    expect(promoted).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(min.slice(0, 4)).toEqual([0, 1, 0, 1]);
  });

  it('comp_fifo_depth 1 writes each entry as it completes; the reset 64 coalesces until idle', () => {
    const late = run(2, 4, [64, 64], comp({}), { completion: true });
    const early = run(2, 4, [64, 64], comp({ comp_fifo_depth: 1 }), { completion: true });
    const end = (r: typeof late) => r.trace.at(-1)!.endCycle;
    const cycles = (r: typeof late) => r.u.completions.entries({ half: 'm2s' }).map((e) => e.cycle);
    expect(cycles(late).every((c) => c === end(late))).toBe(true);
    expect(cycles(early)[0]).toBeLessThan(end(early));
  });

  it('M2S_Q[q].cfg.AXI_qos alone orders the completion writes (higher first)', () => {
    const equal = writes(run(2, 4, [64, 64], () => {}, { completion: true }).u);
    const higher = writes(run(2, 4, [64, 64], comp({}), { completion: true }).u);
    expect(equal).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(higher).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
  });

  const firstWrite = (r: ReturnType<typeof run>) =>
    r.u.completions.entries({ half: 'm2s' })[0].cycle;
  const end = (r: ReturnType<typeof run>) => r.trace.at(-1)!.endCycle;

  it('unack_fifo_depth: once that many entries wait, the half writes them', () => {
    const late = run(2, 4, [64, 64], () => {}, { completion: true });
    const early = run(
      2,
      4,
      [64, 64],
      (u) => modify(u.m2s, 'M2S_comp.cfg_1c', { unack_fifo_depth: 2 }),
      {
        completion: true,
      },
    );
    expect(firstWrite(late)).toBe(end(late));
    expect(firstWrite(early)).toBeLessThan(end(early));
    expect(early.u.completions.entries({ half: 'm2s' }).length).toBe(8);
  });

  it('cfg_coal.timer: an entry waits at most that many cycles', () => {
    const late = run(2, 4, [64, 64], () => {}, { completion: true });
    const early = run(2, 4, [64, 64], (u) => wr(u.m2s, 'M2S_comp.cfg_coal', 4), {
      completion: true,
    });
    expect(firstWrite(late)).toBe(end(late));
    expect(firstWrite(early)).toBeLessThan(end(early));
    expect(firstWrite(early) - early.trace[0].endCycle).toBeLessThanOrEqual(4);
  });

  it("dis_comp_coal writes a queue's entries at once", () => {
    const coal = run(1, 4, [64], comp({}), { completion: true });
    const now = run(1, 4, [64], (u) => modify(u.m2s, 'M2S_Q[0].comp_cfg', { dis_comp_coal: 1 }), {
      completion: true,
    });
    const first = (r: typeof coal) => r.u.completions.entries({ half: 'm2s' })[0].cycle;
    expect(first(now)).toBeLessThan(first(coal));
  });

  it('S2M_comp.cfg_1c.force_rr changes the RX completion order', () => {
    const axiRx: Setup = (u) => modify(u.s2m, 'S2M_Q[1].cfg', { AXI_qos: 3 });
    const qos = rxWrites(run(2, 2, [64, 64], axiRx, { completion: true }).u);
    const rr = rxWrites(
      run(
        2,
        2,
        [64, 64],
        (u) => {
          axiRx(u);
          modify(u.s2m, 'S2M_comp.cfg_1c', { force_rr: 1, q_promotion: 0 });
        },
        { completion: true },
      ).u,
    );
    expect(qos).toEqual([1, 1, 0, 0]);
    expect(rr).toEqual([0, 1, 0, 1]);
  });

  it('S2M_comp.cfg_1c.q_promotion keeps the RX queue being written', () => {
    const rr =
      (promotion: number): Setup =>
      (u) =>
        modify(u.s2m, 'S2M_comp.cfg_1c', { force_rr: 1, q_promotion: promotion });
    expect(rxWrites(run(2, 2, [64, 64], rr(0), { completion: true }).u)).toEqual([0, 1, 0, 1]);
    expect(rxWrites(run(2, 2, [64, 64], rr(1), { completion: true }).u)).toEqual([0, 0, 1, 1]);
  });

  it('S2M_Q[q].cfg.AXI_qos alone orders the RX completion writes (higher first)', () => {
    const axiRx =
      (v: number): Setup =>
      (u) =>
        modify(u.s2m, 'S2M_Q[1].cfg', { AXI_qos: v });
    expect(rxWrites(run(2, 2, [64, 64], axiRx(0), { completion: true }).u)).toEqual([0, 1, 0, 1]);
    expect(rxWrites(run(2, 2, [64, 64], axiRx(3), { completion: true }).u)).toEqual([1, 1, 0, 0]);
  });
});

describe('the engine event logs follow the service trace', () => {
  const both = (r: ReturnType<typeof run>) => [r.u.prefetches, r.u.completions];

  it('record every grant and completion write under the default trace', () => {
    const r = run(2, 40, [64, 64], () => {}, { completion: true });
    for (const log of both(r)) {
      expect(log.length).toBeGreaterThan(0);
      expect(log.dropped).toBe(0);
    }
  });

  it('keep at most the trace limit of entries each, counting the rest as dropped', () => {
    const all = both(run(2, 40, [64, 64], () => {}, { completion: true }));
    const capped = both(
      run(2, 40, [64, 64], () => {}, { completion: true, serviceTrace: { limit: 3 } }),
    );
    for (let i = 0; i < 2; i++) {
      expect(capped[i].length).toBe(3);
      expect(capped[i].entries()).toEqual(all[i].entries().slice(0, 3));
      expect(capped[i].dropped).toBe(all[i].length - 3);
    }
  });

  it('keep nothing under a limit of 0, and record nothing with the trace off', () => {
    for (const log of both(
      run(2, 40, [64, 64], () => {}, { completion: true, serviceTrace: { limit: 0 } }),
    )) {
      expect(log.length).toBe(0);
      expect(log.dropped).toBeGreaterThan(0);
    }
    for (const log of both(
      run(2, 40, [64, 64], () => {}, { completion: true, serviceTrace: false }),
    )) {
      expect(log.length).toBe(0);
      expect(log.dropped).toBe(0);
    }
  });
});
