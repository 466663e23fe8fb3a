/**
 * One engine of a QoS plan -> its register writes, and the arming rule's warnings. Every field the
 * plan sets is merged into its register word (one write per register touched), in the write order
 * of driver/qos/qos-regs.ts. Pure: no device, no I/O.
 */
import { DMAQoSClass, DMA_QOS_CLASS_NAMES, defaultQueueQos } from '../../csr/formats/qos-class.ts';
import { reg } from '../udma/regs.ts';
import type { PlanEngine, PlanQueue } from './plan.ts';
import type { QosWarning } from './planner.ts';
import { EngineWords, type PlannedWords } from './plan-words.ts';
import { qosRegs, type PlanFieldSpec, type QueueFieldSpecs } from './qos-regs.ts';

/** S2M_Q[n].cfg.AXI_qos; a queue the S2M half lacks is REGISTER_UNKNOWN (the lookup names it). */
function s2mQueueField(f: PlanFieldSpec | undefined, n: number): PlanFieldSpec {
  if (f) return f;
  reg('udma_s2m', `S2M_Q[${n}].cfg`);
  throw new Error(`S2M_Q[${n}].cfg resolved but has no planned field`);
}

/**
 * The tables of the last engine planned to completion, for the next one (planEngine takes them and
 * gives them back once `writes()` has emptied them; a plan that throws midway, or a planEngine
 * that runs inside another, makes its own).
 */
let spare: EngineWords | undefined;

/** Empty tables to plan `engine` in, its field rows going to `out`. */
function engineWords(engine: number, slots: number, out: PlannedWords): EngineWords {
  const W = spare ?? new EngineWords(slots);
  spare = undefined;
  W.engine = engine;
  W.out = out;
  return W;
}

/**
 * Per DMAQoSClass ordinal: the values its default mapping (defaultQueueQos) gives a queue's AXI
 * QoS, DWRR level, weight and HP bit, or null when one of them does not fit its field in every
 * queue (then each is checked as it is set). Built on first use.
 */
let classValues: readonly (ClassValues | null)[] | undefined;

/** A class's AXI QoS, DWRR level, weight and HP bit (0 or 1). */
type ClassValues = readonly [number, number, number, number];

/** The class values table (see `classValues`), checked once against every queue's fields. */
function classValuesOf(queues: readonly QueueFieldSpecs[]): readonly (ClassValues | null)[] {
  if (classValues !== undefined) return classValues;
  const fits = (f: PlanFieldSpec, v: number) => Number.isInteger(v) && v >= 0 && v <= f.spec.max;
  const table: (ClassValues | null)[] = [];
  for (const name of DMA_QOS_CLASS_NAMES) {
    const v = defaultQueueQos(DMAQoSClass[name]);
    const row = [v.axiQos, v.qQos, v.weight, v.highPriority ? 1 : 0] as const;
    const ok = queues.every(
      (Q) =>
        fits(Q.axiQos, row[0]) &&
        fits(Q.qQos, row[1]) &&
        fits(Q.weight, row[2]) &&
        fits(Q.highPriority, row[3]),
    );
    table[DMAQoSClass[name]] = ok ? row : null;
  }
  return (classValues = table);
}

/** One queue entry's fields (class or explicit values, rate limiter, S2M AXI QoS). */
function planQueue(
  W: EngineWords,
  Q: QueueFieldSpecs,
  q: PlanQueue,
  classes: readonly (ClassValues | null)[],
): void {
  const n = q.queue;
  const src = q.where;
  if (q.class !== undefined) {
    const v = classes[DMAQoSClass[q.class]];
    if (v !== null) {
      W.put(Q.axiQos, v[0], 'class', src, '.class', n);
      W.put(Q.qQos, v[1], 'class', src, '.class', n);
      W.put(Q.weight, v[2], 'class', src, '.class', n);
      W.put(Q.highPriority, v[3], 'class', src, '.class', n);
    } else {
      const d = defaultQueueQos(DMAQoSClass[q.class]);
      W.set(Q.axiQos, d.axiQos, 'class', src, '.class', n);
      W.set(Q.qQos, d.qQos, 'class', src, '.class', n);
      W.set(Q.weight, d.weight, 'class', src, '.class', n);
      W.set(Q.highPriority, d.highPriority ? 1 : 0, 'class', src, '.class', n);
    }
  }
  if (q.qos !== undefined) {
    const x = q.qos;
    if (x.axiQos !== undefined) W.set(Q.axiQos, x.axiQos, 'explicit', src, '.qos.axiQos', n);
    if (x.qQos !== undefined) W.set(Q.qQos, x.qQos, 'explicit', src, '.qos.qQos', n);
    if (x.weight !== undefined) W.set(Q.weight, x.weight, 'explicit', src, '.qos.weight', n);
    if (x.highPriority !== undefined)
      W.set(Q.highPriority, x.highPriority ? 1 : 0, 'explicit', src, '.qos.highPriority', n);
  }
  if (q.rateLimit !== undefined) {
    const rl = q.rateLimit;
    W.set(Q.rateLimitEn, rl.enabled ? 1 : 0, 'explicit', src, '.rateLimit.enabled', n);
    if (rl.maxBurst !== undefined)
      W.set(Q.rateLimitMaxBurst, rl.maxBurst, 'explicit', src, '.rateLimit.maxBurst', n);
    if (rl.pause !== undefined)
      W.set(Q.rateLimitPause, rl.pause ? 1 : 0, 'explicit', src, '.rateLimit.pause', n);
    W.setRefill(rl, Q.rateLimitRefill, src, '.rateLimit', n);
    // The per-queue limiter engages only when its mask bit is clear (1 = masked, the reset value).
    W.set(Q.rateLimitMask, rl.enabled ? 0 : 1, 'explicit', src, '.rateLimit.enabled', n);
  }
  if (q.s2mAxiQos !== undefined)
    W.set(s2mQueueField(Q.s2mAxiQos, n), q.s2mAxiQos, 'explicit', src, '.s2mAxiQos', n);
}

/** The writes of one engine of the plan, in write order, appended to `out`. */
export function planEngine(e: PlanEngine, out: PlannedWords): PlannedWords {
  const T = qosRegs();
  const W = engineWords(e.engine, T.order.length, out);

  const classes = classValuesOf(T.queues);
  for (const q of e.queues) planQueue(W, T.queues[q.queue], q, classes);

  const E = T.engine;
  const rl = e.rateLimit;
  const at = e.where;
  if (rl) {
    if (rl.shortCycleSize !== undefined)
      W.set(E.shortCycleSize, rl.shortCycleSize, 'explicit', at, '.rateLimit.shortCycleSize');
    if (rl.packetMode !== undefined)
      W.set(E.rateLimitPacketMode, rl.packetMode ? 1 : 0, 'explicit', at, '.rateLimit.packetMode');
    if (rl.stream) {
      const st = rl.stream;
      W.set(E.streamEn, st.enabled ? 1 : 0, 'explicit', at, '.rateLimit.stream.enabled');
      if (st.maxBurst !== undefined)
        W.set(E.streamMaxBurst, st.maxBurst, 'explicit', at, '.rateLimit.stream.maxBurst');
      if (st.pause !== undefined)
        W.set(E.streamPause, st.pause ? 1 : 0, 'explicit', at, '.rateLimit.stream.pause');
      W.setRefill(st, E.streamRefill, at, '.rateLimit.stream');
      W.set(E.streamMask, st.enabled ? 0 : 1, 'explicit', at, '.rateLimit.stream.enabled');
    }
  }

  const a = e.arbiters;
  if (a.completion !== undefined) {
    const v = a.completion === 'rr' ? 1 : 0;
    W.set(E.m2sCompForceRr, v, 'explicit', at, '.arbiters.completion');
    W.set(E.s2mCompForceRr, v, 'explicit', at, '.arbiters.completion');
  }
  if (a.qPromotion !== undefined) {
    const v = a.qPromotion ? 1 : 0;
    W.set(E.m2sQPromotion, v, 'explicit', at, '.arbiters.qPromotion');
    W.set(E.s2mQPromotion, v, 'explicit', at, '.arbiters.qPromotion');
  }
  if (a.dwrr !== undefined) {
    const d = a.dwrr;
    W.set(E.enDwrr, d.enabled ? 1 : 0, 'explicit', at, '.arbiters.dwrr');
    if (d.incFactor !== undefined)
      W.set(E.incFactor, d.incFactor, 'explicit', at, '.arbiters.dwrr.incFactor');
    if (d.weightInc !== undefined)
      W.set(E.weightInc, d.weightInc, 'explicit', at, '.arbiters.dwrr.weightInc');
    if (d.packetMode !== undefined)
      W.set(E.dwrrPacketMode, d.packetMode ? 1 : 0, 'explicit', at, '.arbiters.dwrr.packetMode');
  }
  if (a.s2mPrefetch !== undefined)
    W.set(
      E.s2mPrefForceRr,
      a.s2mPrefetch === 'rr' ? 1 : 0,
      'explicit',
      at,
      '.arbiters.s2mPrefetch',
    );
  if (a.prefetch !== undefined)
    W.set(E.m2sPrefForceRr, a.prefetch === 'rr' ? 1 : 0, 'explicit', at, '.arbiters.prefetch');

  W.writes(out);
  spare = W;
  return out;
}

/** The queue entry sets a class or an explicit AXI QoS, DWRR level or weight. */
function setsQueueQos(q: PlanQueue): boolean {
  return (
    q.class !== undefined ||
    (q.qos !== undefined &&
      (q.qos.axiQos !== undefined || q.qos.qQos !== undefined || q.qos.weight !== undefined))
  );
}

/** The seed 004 §8.6 arming rule for one engine: per-queue QoS set but the arbiters left in round robin. */
export function armingWarnings(e: PlanEngine): QosWarning[] {
  if (!e.queues.some(setsQueueQos)) return [];
  const out: QosWarning[] = [];
  const missing: string[] = [];
  if (e.arbiters.prefetch !== 'qos') {
    missing.push(
      e.arbiters.prefetch === 'rr'
        ? 'the plan sets the prefetch arbiter to round robin (pref_force_rr = 1)'
        : 'the plan leaves M2S_rd.desc_pref_cfg_2.pref_force_rr as it is (1, round robin, after reset and bring-up)',
    );
  }
  if (e.arbiters.dwrr?.enabled !== true) {
    missing.push(
      e.arbiters.dwrr === undefined
        ? 'the plan leaves M2S_dwrr.cfg_sched.en_dwrr as it is (0, round robin, after reset)'
        : 'the plan turns DWRR off (en_dwrr = 0)',
    );
  }
  if (missing.length > 0) {
    out.push({
      code: 'ARBITERS_ROUND_ROBIN',
      engine: e.engine,
      message:
        `engine ${e.engine}: per-queue QoS is set but the arbiters are not armed: ${missing.join('; ')}. ` +
        `Classes take effect only with arbiters: { prefetch: "qos", dwrr: "on" } (seed 004 §8.6)`,
    });
  }
  if (e.arbiters.completion === 'rr') {
    out.push({
      code: 'COMPLETION_ROUND_ROBIN',
      engine: e.engine,
      message: `engine ${e.engine}: per-queue QoS is set but the completion arbiter is forced to round robin (force_rr = 1; its reset mode is QoS)`,
    });
  }
  return out;
}

/**
 * A rate limiter the plan enables without saying how it refills: its bucket then refills by
 * whatever its token-size registers hold (reset unknown; 0 on the mock, where its traffic stops
 * once the bucket is empty).
 */
export function refillWarnings(e: PlanEngine): QosWarning[] {
  const out: QosWarning[] = [];
  const st = e.rateLimit?.stream;
  if (st && noRefill(st))
    out.push(
      noRefillWarning(
        e,
        'the stream rate limiter',
        'M2S_stream_rate_limiter.cfg_token_size_1 / _2',
      ),
    );
  for (const q of e.queues) {
    if (q.rateLimit && noRefill(q.rateLimit))
      out.push(
        noRefillWarning(
          e,
          `queue ${q.queue}'s rate limiter`,
          `M2S_Q[${q.queue}].rate_limit_cfg_token_size_1 / _2`,
        ),
      );
  }
  return out;
}

/** An enabled bucket without a refill or longRefill. */
function noRefill(r: { enabled: boolean; refill?: number; longRefill?: number }): boolean {
  return r.enabled && r.refill === undefined && r.longRefill === undefined;
}

function noRefillWarning(e: PlanEngine, what: string, regs: string): QosWarning {
  return {
    code: 'RATE_LIMIT_NO_REFILL',
    engine: e.engine,
    message:
      `engine ${e.engine}: ${what} is enabled but the plan gives no refill or longRefill: ` +
      `its bucket refills by whatever ${regs} hold (reset unknown), and stops the traffic once empty if that is 0`,
  };
}
