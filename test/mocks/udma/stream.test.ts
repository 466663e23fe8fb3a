/**
 * The mock's streaming path (mocks/udma/stream.ts) against the general step: the same device
 * driven the same way with `streaming` on and off must show the same everything (step and run
 * results, service trace, prefetch and completion logs, faults, register words, memory, queue
 * stats) after every operation, on random mixes of copies, doorbells, configuration writes, ring
 * overwrites and partial runs over 1 to 16 queues.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BD_SIZE } from '../../../csr/formats/bd.ts';
import { MockDevice } from '../../../mocks/device.ts';
import type { MockUdmaUnit } from '../../../mocks/udma/unit.ts';
import { QueuePair, bringUp, modify, strobe } from '../helpers.ts';

/** Bounded in CI; NXDMA_FUZZ_RUNS raises the count. */
const RUNS = Number(process.env.NXDMA_FUZZ_RUNS ?? 60);

const RINGS = 0x200000;
const SRC = 0x100000;
const DST = 2 ** 32;
const SRAM = 2 ** 33;
const COMP = 0x80000;

type Op =
  | { kind: 'copy'; q: number; bytes: number; chunk: number; dstOff: number; ring: boolean }
  | { kind: 'intoRing'; q: number; slot: number }
  | { kind: 'cfg'; set: 'base' | 'qos'; field: number; q: number; value: number }
  | { kind: 'bell'; q: number; tx: boolean; n: number }
  | { kind: 'step' }
  | { kind: 'run'; max: number };

/**
 * Fields written by 'cfg' ops ({q} = the op's queue): the largest value drawn, and the value a
 * streaming run has (drawn two times in three, so that runs stay in the streaming state a while).
 */
const FIELDS: [m2s: boolean, path: string, max: number, usual: number][] = [
  [true, 'M2S_rd.desc_pref_cfg_2.pref_force_rr', 1, 1],
  [true, 'M2S_rd.desc_pref_cfg_3.pref_thr', 20, 16],
  [true, 'M2S_rd.desc_pref_cfg_3.min_burst_above_thr', 6, 4],
  [false, 'S2M_rd.desc_pref_cfg_3.min_burst_above_thr', 6, 4],
  [true, 'AXI_M2S.desc_rd_cfg_3.max_desc_burst', 10, 8],
  [true, 'M2S_rd.desc_pref_cfg_2.max_desc_per_pkt', 4, 0],
  [true, 'M2S_dwrr.cfg_sched.en_dwrr', 1, 0],
  [true, 'M2S_Q[{q}].dwrr_cfg_1.pause', 1, 0],
  [true, 'M2S_Q[{q}].cfg.en_scheduling', 1, 1],
  [false, 'S2M_Q[{q}].cfg.en_stream', 1, 1],
  [true, 'M2S_Q[{q}].rate_limit_mask.internal_rate_limiter', 1, 1],
  [true, 'M2S_Q[{q}].rate_limit_cfg_1.en', 1, 0],
  [true, 'M2S_Q[{q}].comp_cfg.en_comp_ring_update', 1, 0],
  [true, 'M2S.cfg_len.encode_64k', 1, 1],
];

/**
 * The scheduler's and the prefetch arbiter's QoS fields (strict priority between q_qos levels,
 * DWRR within one, the AXI_qos prefetch order) and a few of the fields above, for runs under the
 * flow's arbitration (prefetch by QoS, DWRR on).
 */
const QOS_FIELDS: [m2s: boolean, path: string, max: number, usual: number][] = [
  [true, 'M2S_rd.desc_pref_cfg_2.pref_force_rr', 1, 0],
  [true, 'M2S_dwrr.cfg_sched.en_dwrr', 1, 1],
  [true, 'M2S_dwrr.cfg_sched.pkt_mode_en', 1, 0],
  [true, 'M2S_dwrr.cfg_sched.inc_factor', 9, 7],
  [true, 'M2S_dwrr.cfg_sched.weight_inc', 3, 2],
  [true, 'M2S_dwrr.ctrl_deficit_cnt.init', 3000, 0],
  [true, 'M2S_Q[{q}].dwrr_cfg_2.q_qos', 3, 1],
  [true, 'M2S_Q[{q}].dwrr_cfg_3.weight', 20, 12],
  [true, 'M2S_Q[{q}].dwrr_cfg_1.strict', 1, 0],
  [true, 'M2S_Q[{q}].dwrr_cfg_1.max_deficit_cnt_size', 3000, 0],
  [true, 'M2S_Q[{q}].dwrr_cfg_1.pause', 1, 0],
  [true, 'M2S_Q[{q}].cfg.AXI_qos', 3, 0],
  [false, 'S2M_Q[{q}].cfg.AXI_qos', 3, 0],
  [true, 'AXI_M2S_MLA.high_priority.enable', 0xffff, 0],
  [true, 'M2S_rd.desc_pref_cfg_3.pref_thr', 20, 0],
  [true, 'M2S_rd.desc_pref_cfg_3.min_burst_above_thr', 6, 1],
  [true, 'AXI_M2S.desc_rd_cfg_3.max_desc_burst', 10, 8],
  [true, 'M2S_rd.desc_pref_cfg_2.max_desc_per_pkt', 4, 0],
  [true, 'M2S_Q[{q}].rate_limit_cfg_1.en', 1, 0],
  [true, 'M2S_Q[{q}].comp_cfg.en_comp_ring_update', 1, 0],
];

const FIELD_SETS = { base: FIELDS, qos: QOS_FIELDS };

const opArb = (queues: number, set: 'base' | 'qos' = 'base'): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant('copy' as const),
        q: fc.nat({ max: queues - 1 }),
        bytes: fc.oneof(fc.integer({ min: 1, max: 256 }), fc.integer({ min: 1, max: 65536 })),
        chunk: fc.oneof(
          { weight: 9, arbitrary: fc.constant(65536) },
          fc.integer({ min: 16, max: 200 }),
        ),
        dstOff: fc.nat({ max: 0x30000 }),
        ring: fc.oneof({ weight: 19, arbitrary: fc.constant(true) }, fc.constant(false)),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('intoRing' as const),
        q: fc.nat({ max: queues - 1 }),
        slot: fc.nat({ max: 63 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('cfg' as const),
        set: fc.constant(set),
        field: fc.nat({ max: FIELD_SETS[set].length - 1 }),
        q: fc.nat({ max: queues - 1 }),
        value: fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, fc.nat({ max: 1000 })),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('bell' as const),
        q: fc.nat({ max: queues - 1 }),
        tx: fc.boolean(),
        n: fc.nat({ max: 4 }),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'step' as const }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('run' as const),
        max: fc.integer({ min: 1, max: 400 }),
      }),
    },
  );

interface Rig {
  dev: MockDevice;
  u: MockUdmaUnit;
  qps: QueuePair[];
}

function rig(
  queues: number,
  ring: number,
  streaming: boolean,
  trace: boolean | { limit: number },
  sram = false,
  bytesPerCycle?: number,
): Rig {
  const dev = new MockDevice({
    engines: [0],
    ...(bytesPerCycle !== undefined ? { bytesPerCycle } : {}),
    autoRun: 'none',
    serviceTrace: trace,
    memory: [
      { name: 'host', base: 0, size: 4 << 20 },
      { name: 'dram', base: DST, size: 1 << 20 },
      ...(sram ? [{ name: 'sram', base: SRAM, size: 1 << 20 }] : []),
    ],
  });
  const u = dev.udma(0);
  u.streaming = streaming;
  bringUp(u);
  const src = new Uint8Array(0x80000);
  for (let i = 0; i < src.length; i++) src[i] = (i * 131 + 7) & 0xff;
  dev.memory.write(SRC, src);
  const qps = Array.from(
    { length: queues },
    (_, q) =>
      new QueuePair(dev, u, q, ring, RINGS + q * 2 * ring * BD_SIZE, {
        completion: { tx: COMP + q * 0x1000, rx: COMP + 0x40000 + q * 0x1000 },
      }),
  );
  // Completion updates off (the rings are set): a 'cfg' op may turn them on.
  for (let q = 0; q < queues; q++) {
    modify(u.m2s, `M2S_Q[${q}].comp_cfg`, { en_comp_ring_update: 0 });
    modify(u.s2m, `S2M_Q[${q}].comp_cfg`, { en_comp_ring_update: 0 });
  }
  return { dev, u, qps };
}

function apply(r: Rig, op: Op): unknown {
  const { dev, u, qps } = r;
  switch (op.kind) {
    case 'copy': {
      const qp = qps[op.q];
      const chunk = Math.min(65536, Math.max(op.chunk, Math.ceil(op.bytes / 8)));
      const nRx = qp.putRx(DST + op.dstOff, op.bytes, { chunk });
      const nTx = qp.putTx(SRC + (op.dstOff % 0x40000), op.bytes, { chunk });
      if (op.ring) {
        qp.ringRx(nRx);
        qp.ringTx(nTx);
      }
      return [nRx, nTx];
    }
    case 'intoRing': {
      // A copy whose destination is a TX ring slot of the queue: the data lands in the ring.
      const qp = qps[op.q];
      qp.putRx(qp.txBase + (op.slot % qp.size) * BD_SIZE, 16);
      qp.putTx(SRC, 16);
      qp.ringRx(1);
      qp.ringTx(1);
      return 0;
    }
    case 'cfg': {
      const [m2s, path, max, usual] = FIELD_SETS[op.set][op.field];
      const full = path.replace('{q}', String(op.q));
      const dot = full.lastIndexOf('.');
      const value = op.value < 0 ? usual : op.value % (max + 1);
      modify(m2s ? u.m2s : u.s2m, full.slice(0, dot), { [full.slice(dot + 1)]: value });
      return 0;
    }
    case 'bell':
      strobe(
        op.tx ? u.m2s : u.s2m,
        `${op.tx ? 'M2S' : 'S2M'}_Q[${op.q}].${op.tx ? 't' : 'r'}drtp_inc`,
        {
          val: op.n,
        },
      );
      return 0;
    case 'step':
      return dev.step();
    case 'run':
      return dev.runUntilIdle({ maxPackets: op.max });
  }
}

function digest(a: Uint8Array | Uint32Array): string {
  return createHash('sha1').update(a).digest('hex');
}

/** Everything observable of the engine and its memory. */
function observe(r: Rig): unknown {
  const { dev, u } = r;
  const pipe = (u as unknown as { pipeline: { txPref: object; rxPref: object } }).pipeline;
  return {
    cycle: u.cycle,
    packets: u.packetsServed,
    trace: dev.serviceTrace.entries(),
    dropped: dev.serviceTrace.dropped,
    order: (dev.serviceTrace as unknown as { nextOrder: number }).nextOrder,
    prefetches: u.prefetches.entries(),
    completions: u.completions.entries(),
    logsDropped: [u.prefetches.dropped, u.completions.dropped],
    faults: u.faults,
    registers: [u.m2s.words, u.s2m.words].map(digest),
    memory: dev.memory.regions().map((g) => digest(g.bytes)),
    stats: Array.from({ length: r.qps.length }, (_, q) => u.queueStats(q)),
    arbiter: [u.arbiter.deficit, u.arbiter.rounds, u.arbiter.ready, u.arbiter.cost].map((a) =>
      Array.from(a),
    ),
    // (the prefetch arbiters' round-robin pointers, kept privately by the pipeline)
    prefetchArbiters: [pipe.txPref, pipe.rxPref].map((a) => ({ ...a })),
  };
}

interface Case {
  queues: number;
  ring: number;
  /** Off, on, or on with an entry limit (reached in the middle of a run). */
  trace: boolean | { limit: number };
  copies: { q: number; bytes: number }[];
  firstRun: number;
  ops: Op[];
}

const caseArb = (set: 'base' | 'qos'): fc.Arbitrary<Case> =>
  fc.integer({ min: 1, max: 16 }).chain((queues) =>
    fc.record({
      queues: fc.constant(queues),
      ring: fc.constantFrom(64, 256, 1024),
      trace: fc.oneof(fc.boolean(), fc.record({ limit: fc.nat({ max: 300 }) })),
      copies: fc.array(
        fc.record({
          q: fc.nat({ max: queues - 1 }),
          bytes: fc.integer({ min: 1, max: 512 }),
        }),
        { minLength: 10, maxLength: 150 },
      ),
      firstRun: fc.integer({ min: 1, max: 100 }),
      ops: fc.array(opArb(queues, set), { minLength: 10, maxLength: 80 }),
    }),
  );

/**
 * Drives a device with the streaming path on and one with it off through `setup`, a burst of
 * single-descriptor copies, a first run and the mix, comparing everything after every run.
 * Returns the packets the streaming path served.
 */
function compareRuns(
  { queues, ring, trace, copies, firstRun, ops }: Case,
  setup: readonly Op[] = [],
): number {
  const fast = rig(queues, ring, true, trace);
  const slow = rig(queues, ring, false, trace);
  // A burst of single-descriptor copies first, then the mix.
  const first: Op[] = copies.map((k, i) => ({
    kind: 'copy',
    q: k.q,
    bytes: k.bytes,
    chunk: 65536,
    dstOff: i * 512,
    ring: true,
  }));
  const all: Op[] = [...setup, ...first, { kind: 'run', max: firstRun }, ...ops];
  for (const op of [...all, { kind: 'run', max: 100_000 } as const]) {
    expect(apply(fast, op)).toEqual(apply(slow, op));
    if (op.kind === 'run') expect(observe(fast)).toEqual(observe(slow));
  }
  expect(observe(fast)).toEqual(observe(slow));
  expect(slow.u.packetsStreamed).toBe(0);
  return fast.u.packetsStreamed;
}

/** A 'cfg' op of the QoS set writing `value` to field `path` of queue q. */
function qosCfg(path: string, q: number, value: number): Op {
  const field = QOS_FIELDS.findIndex((f) => f[1] === path);
  return { kind: 'cfg', set: 'qos', field, q, value };
}

describe('the streaming path against the general step', () => {
  it('gives the same results on random copies, doorbells, configuration and runs', () => {
    let streamed = 0;
    fc.assert(
      fc.property(caseArb('base'), (c) => {
        streamed += compareRuns(c);
      }),
      { numRuns: RUNS },
    );
    // The path was taken (a random mix keeps some runs in its state).
    expect(streamed).toBeGreaterThan(0);
  });

  it('gives the same results under strict priority, DWRR and the QoS prefetch order', () => {
    let streamed = 0;
    fc.assert(
      fc.property(
        caseArb('qos'),
        fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 20 }), fc.nat({ max: 3 })), {
          minLength: 16,
          maxLength: 16,
        }),
        fc.nat({ max: 9 }),
        fc.nat({ max: 3 }),
        fc.boolean(),
        (c, perQueue, incFactor, weightInc, pktMode) => {
          // The flow's arbitration: prefetch by QoS, DWRR on; levels, weights and AXI_qos drawn.
          const setup: Op[] = [
            qosCfg('M2S_rd.desc_pref_cfg_2.pref_force_rr', 0, 0),
            qosCfg('M2S_dwrr.cfg_sched.en_dwrr', 0, 1),
            qosCfg('M2S_dwrr.cfg_sched.inc_factor', 0, incFactor),
            qosCfg('M2S_dwrr.cfg_sched.weight_inc', 0, weightInc),
            qosCfg('M2S_dwrr.cfg_sched.pkt_mode_en', 0, pktMode ? 1 : 0),
          ];
          for (let q = 0; q < c.queues; q++) {
            const [level, weight, axi] = perQueue[q];
            setup.push(qosCfg('M2S_Q[{q}].dwrr_cfg_2.q_qos', q, level));
            setup.push(qosCfg('M2S_Q[{q}].dwrr_cfg_3.weight', q, weight));
            setup.push(qosCfg('M2S_Q[{q}].cfg.AXI_qos', q, axi));
          }
          streamed += compareRuns(c, setup);
        },
      ),
      { numRuns: RUNS },
    );
    expect(streamed).toBeGreaterThan(0);
  });

  it('serves a long run of single-descriptor copies over 1 and 16 queues as the general step does', () => {
    for (const queues of [1, 16]) {
      const [fast, slow] = [true, false].map((on) => rig(queues, 256, on, true));
      for (const r of [fast, slow]) {
        for (let i = 0; i < 200; i++) {
          for (const qp of r.qps) qp.copy(SRC + i * 64, DST + (qp.q * 200 + i) * 64, 64);
        }
        expect(r.dev.runUntilIdle()).toBe(200 * queues);
      }
      expect(observe(fast)).toEqual(observe(slow));
      expect(fast.u.packetsStreamed).toBeGreaterThan(190 * queues);
    }
  });

  it('moves runs of copies that continue one another, and ones whose destinations overlap another queue, as the general step does', () => {
    for (const overlap of [0, 32, 64]) {
      const [fast, slow] = [true, false].map((on) => rig(2, 256, on, true));
      for (const r of [fast, slow]) {
        // queue 0 and queue 1 each write a run of tiles; queue 1's run starts `overlap` bytes into
        // queue 0's, so its packets write bytes queue 0 writes too (the order decides them)
        for (let i = 0; i < 200; i++) {
          r.qps[0].copy(SRC + i * 64, DST + i * 64, 64);
          r.qps[1].copy(SRC + 0x20000 + i * 64, DST + overlap + i * 64, 64);
        }
        expect(r.dev.runUntilIdle()).toBe(400);
      }
      expect(observe(fast)).toEqual(observe(slow));
      expect(fast.u.packetsStreamed).toBeGreaterThan(380);
    }
  });

  it('moves a run before another queue’s run grows into its bytes, as the general step does', () => {
    // Runs from the host into dram and sram, and from sram into dram (the rings are in the host);
    // round robin serves the queues in turn, so the order decides the bytes.
    for (const ahead of [1, 17, 64]) {
      const [fast, slow] = [true, false].map((on) => rig(3, 256, on, true, true));
      for (const r of [fast, slow]) {
        const [q0, q1, q2] = r.qps;
        // queue 0's destination grows into what queue 1 writes and what queue 2 reads
        for (let i = 0; i < 60; i++) {
          q0.copy(SRC + i * 64, DST + i * 64, 64);
          q1.copy(SRC + 0x10000 + i * 64, DST + ahead * 64 + i * 64, 64);
          q2.copy(DST + (ahead + 40) * 64 + i * 64, SRAM + i * 64, 64);
        }
        // queue 0's source grows into what queue 1 writes (both runs start in one round)
        for (let i = 0; i < 60; i++) {
          q0.copy(SRAM + 0x40000 + i * 64, DST + 0x20000 + i * 64, 64);
          q1.copy(SRC + 0x20000 + i * 64, SRAM + 0x40000 + ahead * 64 + i * 64, 64);
        }
        // queue 0's source grows into what queue 2 writes (queue 2's run started 60 rounds before)
        for (let i = 0; i < 60; i++) {
          q2.copy(SRC + 0x30000 + i * 64, SRAM + 0x80000 + ahead * 64 + i * 64, 64);
          q0.copy(SRAM + 0x80000 + i * 64, DST + 0x40000 + i * 64, 64);
        }
        // queue 0's destination grows into what queue 1 writes (queue 1's run started before)
        for (let i = 0; i < 60; i++) {
          q1.copy(SRC + 0x40000 + i * 64, DST + 0x60000 + ahead * 64 + i * 64, 64);
          q0.copy(SRC + 0x50000 + i * 64, DST + 0x60000 + i * 64, 64);
        }
        expect(r.dev.runUntilIdle()).toBe(540);
      }
      expect(observe(fast)).toEqual(observe(slow));
      expect(fast.u.packetsStreamed).toBeGreaterThan(500);
    }
  });

  it('counts each packet’s cycles as the general step does, whatever the bytes per cycle', () => {
    for (const bpc of [1, 3, 48, 64, 100, 4096]) {
      const [fast, slow] = [true, false].map((on) => rig(2, 256, on, true, false, bpc));
      for (const r of [fast, slow]) {
        for (let i = 0; i < 100; i++) {
          for (const qp of r.qps)
            qp.copy(SRC + i * 256, DST + (qp.q * 100 + i) * 256, 1 + ((i * 37) % 256));
        }
        expect(r.dev.runUntilIdle()).toBe(200);
      }
      // each packet: a cycle for its descriptor and ceil(bytes / bytes per cycle) for its bytes
      const entries = slow.dev.serviceTrace.entries();
      expect(entries).toHaveLength(200);
      for (const e of entries)
        expect(e.endCycle - e.startCycle).toBe(e.descriptors + Math.ceil(e.bytes / bpc));
      expect(observe(fast)).toEqual(observe(slow));
      expect(fast.u.packetsStreamed).toBeGreaterThan(190);
    }
  });

  it('serves a long run under prefetch by QoS, strict levels and DWRR as the general step does', () => {
    for (const queues of [2, 16]) {
      const [fast, slow] = [true, false].map((on) => rig(queues, 256, on, true));
      for (const r of [fast, slow]) {
        // As the flow programs it: two levels, DWRR weights, an exponential weight increment.
        apply(r, qosCfg('M2S_rd.desc_pref_cfg_2.pref_force_rr', 0, 0));
        apply(r, qosCfg('M2S_dwrr.cfg_sched.en_dwrr', 0, 1));
        apply(r, qosCfg('M2S_dwrr.cfg_sched.weight_inc', 0, 2));
        for (let q = 0; q < queues; q++) {
          apply(r, qosCfg('M2S_Q[{q}].dwrr_cfg_2.q_qos', q, q % 2 === 0 ? 3 : 1));
          apply(r, qosCfg('M2S_Q[{q}].dwrr_cfg_3.weight', q, 12 + (q % 4)));
        }
        for (let i = 0; i < 200; i++) {
          for (const qp of r.qps)
            qp.copy(SRC + i * 64, DST + (qp.q * 200 + i) * 64, 64 + (i % 5) * 48);
        }
        expect(r.dev.runUntilIdle()).toBe(200 * queues);
      }
      expect(observe(fast)).toEqual(observe(slow));
      expect(fast.u.packetsStreamed).toBeGreaterThan(190 * queues);
    }
  });
});
