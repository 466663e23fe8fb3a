/**
 * One engine of a QoS plan -> its register writes, and the arming rule's warnings. Every field the
 * plan sets is merged into its register word (one write per register touched), in the write order
 * of driver/qos/qos-regs.ts. Pure: no device, no I/O.
 */
import { NxdmaError } from '../../common/errors.ts';
import { DMAQoSClass, defaultQueueQos } from '../../csr/formats/qos-class.ts';
import { reg } from '../udma/regs.ts';
import type { PlanEngine, PlanQueue } from './plan.ts';
import type { PlannedField, PlannedWrite, QosOrigin, QosWarning } from './planner.ts';
import {
  qosRegs,
  type PlanFieldSpec,
  type QueueFieldSpecs,
  type RefillFieldSpecs,
  type RefillKey,
} from './qos-regs.ts';

/** S2M_Q[n].cfg.AXI_qos; a queue the S2M half lacks is REGISTER_UNKNOWN (the lookup names it). */
function s2mQueueField(f: PlanFieldSpec | undefined, n: number): PlanFieldSpec {
  if (f) return f;
  reg('udma_s2m', `S2M_Q[${n}].cfg`);
  throw new Error(`S2M_Q[${n}].cfg resolved but has no planned field`);
}

/**
 * The planned writes of a plan, flat and in write order: one row per register write (its register,
 * engine, bits, completeness and inferred facts) and one per field it sets (in bit order), the
 * fields of write i being rows `fieldEnd[i - 1]` (0 for the first) to `fieldEnd[i]`. `plannedWrite`
 * makes the PlannedWrite of a row; applyQos reads the rows themselves. The arrays are reused:
 * `clear()` empties the table, keeping their room.
 */
export class PlannedWords {
  /** Writes in the table. */
  n = 0;
  readonly engine: number[] = [];
  readonly reg: PlanFieldSpec['reg'][] = [];
  readonly mask: number[] = [];
  readonly value: number[] = [];
  readonly complete: boolean[] = [];
  /** Why the write puts inferred facts on the device (shared and never changed when empty). */
  readonly inferred: (readonly string[])[] = [];
  readonly fieldEnd: number[] = [];
  /** Fields in the table. */
  nf = 0;
  readonly fSpec: PlanFieldSpec[] = [];
  readonly fValue: number[] = [];
  readonly fOrigin: QosOrigin[] = [];
  readonly fSource: string[] = [];
  /** The queue the value belongs to, -1 for an engine-wide value. */
  readonly fQueue: number[] = [];

  clear(): void {
    this.n = 0;
    this.nf = 0;
  }

  /** Row i as the PlannedWrite planQos returns (fresh objects). */
  plannedWrite(i: number): PlannedWrite {
    const r = this.reg[i];
    const from = i === 0 ? 0 : this.fieldEnd[i - 1];
    const to = this.fieldEnd[i];
    const fields = new Array<PlannedField>(to - from);
    for (let k = from; k < to; k++) fields[k - from] = this.plannedField(k);
    const inferred = this.inferred[i];
    return {
      engine: this.engine[i],
      file: r.file,
      path: r.path,
      offset: r.offset,
      mask: this.mask[i],
      value: this.value[i],
      fields,
      complete: this.complete[i],
      inferred: inferred.length === 0 ? [] : inferred.slice(),
      reset: r.reset,
      readMask: r.readMask,
    };
  }

  private plannedField(k: number): PlannedField {
    const f = this.fSpec[k];
    const s = f.spec;
    const queue = this.fQueue[k];
    const value = this.fValue[k];
    const origin = this.fOrigin[k];
    const source = this.fSource[k];
    return queue >= 0
      ? {
          name: s.name,
          lsb: s.lsb,
          width: s.width,
          value,
          origin,
          inferred: f.inferred,
          queue,
          source,
        }
      : { name: s.name, lsb: s.lsb, width: s.width, value, origin, inferred: f.inferred, source };
  }
}

/** Placeholder of a write's inferred facts when there are none (never changed). */
const NO_INFERRED: readonly string[] = Object.freeze([]);

/**
 * The registers of one engine being planned, by slot in the write order: for each register set so
 * far, its bits and the fields set, a list in bit order (a field set again keeps its place and
 * takes the new value). `writes()` appends the words set to a PlannedWords table in write order
 * and empties the slots, so the next engine can be planned in the same tables (`engineWords`).
 */
class EngineWords {
  engine = -1;
  /** Per slot: 1 when the register is set. */
  private readonly isSet: Uint8Array;
  private readonly mask: Float64Array;
  private readonly value: Float64Array;
  /** Per slot: the first and the last field of its list (an entry index), or -1. */
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Per slot: the first field set (its register field starts the names of the inferred rule). */
  private readonly first: (PlanFieldSpec | undefined)[];
  /** Per slot: register fields named so far, in first-set order, once a second one is set. */
  private readonly names: (string[] | undefined)[];
  /** Field entries (ne of them): what was set, and the next entry of its slot's list (-1: last). */
  private ne = 0;
  private readonly eSpec: PlanFieldSpec[] = [];
  private readonly eValue: number[] = [];
  private readonly eOrigin: QosOrigin[] = [];
  private readonly eSource: string[] = [];
  private readonly eQueue: number[] = [];
  private readonly eNext: number[] = [];

  constructor(slots: number) {
    this.isSet = new Uint8Array(slots);
    this.mask = new Float64Array(slots);
    this.value = new Float64Array(slots);
    this.head = new Int32Array(slots).fill(-1);
    this.tail = new Int32Array(slots).fill(-1);
    this.first = new Array<PlanFieldSpec | undefined>(slots).fill(undefined);
    this.names = new Array<string[] | undefined>(slots).fill(undefined);
  }

  /** Sets the bits of `f` to `value` in its register's word (checked against the bits' width first). */
  set(f: PlanFieldSpec, value: number, origin: QosOrigin, source: string, queue = -1): void {
    const s = f.spec;
    if (!Number.isInteger(value) || value < 0 || value > s.max) {
      throw new NxdmaError(
        'PLAN_INVALID',
        `${source}: ${f.reg.path}.${s.name} = ${String(value)} does not fit ${s.width} bits`,
        { where: source, expected: `0..${s.max}`, actual: value },
      );
    }
    const slot = f.slot;
    if (this.isSet[slot] === 0) {
      const e = this.entry(f, value, origin, source, queue, -1);
      this.isSet[slot] = 1;
      this.mask[slot] = s.mask >>> 0;
      this.value[slot] = s.place(value) >>> 0;
      this.head[slot] = e;
      this.tail[slot] = e;
      this.first[slot] = f;
      return;
    }
    this.mask[slot] = (this.mask[slot] | s.mask) >>> 0;
    this.value[slot] = ((this.value[slot] & ~s.mask) | s.place(value)) >>> 0;
    // Fields kept in bit order, as a stable sort by lsb of the first-set order would leave them
    // (a field set again keeps its place).
    // A field above every field set so far is appended: one set before would share its lsb.
    const tail = this.tail[slot];
    if (this.eSpec[tail].spec.lsb < s.lsb) {
      this.eNext[tail] = this.entry(f, value, origin, source, queue, -1);
      this.tail[slot] = this.eNext[tail];
    } else {
      let prev = -1;
      let cur = this.head[slot];
      while (
        cur >= 0 &&
        this.eSpec[cur].spec.name !== s.name &&
        this.eSpec[cur].spec.lsb <= s.lsb
      ) {
        prev = cur;
        cur = this.eNext[cur];
      }
      if (cur >= 0 && this.eSpec[cur].spec.name === s.name) {
        this.eSpec[cur] = f;
        this.eValue[cur] = value;
        this.eOrigin[cur] = origin;
        this.eSource[cur] = source;
        this.eQueue[cur] = queue;
      } else {
        const e = this.entry(f, value, origin, source, queue, cur);
        if (prev < 0) this.head[slot] = e;
        else this.eNext[prev] = e;
      }
    }
    const first = this.first[slot]!;
    if (f.field !== first.field) {
      const names = (this.names[slot] ??= [first.field]);
      if (!names.includes(f.field)) names.push(f.field);
    }
  }

  private entry(
    f: PlanFieldSpec,
    value: number,
    origin: QosOrigin,
    source: string,
    queue: number,
    next: number,
  ): number {
    const e = this.ne++;
    this.eSpec[e] = f;
    this.eValue[e] = value;
    this.eOrigin[e] = origin;
    this.eSource[e] = source;
    this.eQueue[e] = queue;
    this.eNext[e] = next;
    return e;
  }

  /** A bucket's refill words, as far as the plan gives them. */
  setRefill(
    r: { readonly [k in RefillKey]?: number },
    fields: RefillFieldSpecs,
    src: string,
    queue?: number,
  ): void {
    for (const { key, spec } of fields) {
      const v = r[key];
      if (v !== undefined) this.set(spec, v, 'explicit', `${src}.${key}`, queue);
    }
  }

  /** The words set, completed, appended to `out` in write order; the slots are left empty. */
  writes(out: PlannedWords): void {
    const slots = this.isSet.length;
    for (let i = 0; i < slots; i++) {
      if (this.isSet[i] === 0) continue;
      const first = this.first[i]!;
      const r = first.reg;
      const names = this.names[i];
      const mask = this.mask[i];
      const n = out.n++;
      out.engine[n] = this.engine;
      out.reg[n] = r;
      out.mask[n] = mask;
      out.value[n] = this.value[i];
      out.complete[n] = (mask & r.fieldMask) >>> 0 === r.fieldMask;
      const alone = first.writeInferred;
      out.inferred[n] =
        names !== undefined ? r.inferredWrite(names) : alone.length === 0 ? NO_INFERRED : alone;
      for (let e = this.head[i]; e >= 0; e = this.eNext[e]) {
        const k = out.nf++;
        out.fSpec[k] = this.eSpec[e];
        out.fValue[k] = this.eValue[e];
        out.fOrigin[k] = this.eOrigin[e];
        out.fSource[k] = this.eSource[e];
        out.fQueue[k] = this.eQueue[e];
      }
      out.fieldEnd[n] = out.nf;
      this.isSet[i] = 0;
      this.head[i] = -1;
      this.tail[i] = -1;
      this.first[i] = undefined;
      this.names[i] = undefined;
    }
    this.ne = 0;
  }
}

/**
 * The tables of the last engine planned to completion, for the next one (planEngine takes them and
 * gives them back once `writes()` has emptied them; a plan that throws midway, or a planEngine
 * that runs inside another, makes its own).
 */
let spare: EngineWords | undefined;

/** Empty tables to plan `engine` in. */
function engineWords(engine: number, slots: number): EngineWords {
  const W = spare ?? new EngineWords(slots);
  spare = undefined;
  W.engine = engine;
  return W;
}

/** One queue entry's fields (class or explicit values, rate limiter, S2M AXI QoS). */
function planQueue(W: EngineWords, Q: QueueFieldSpecs, q: PlanQueue): void {
  const n = q.queue;
  const src = q.where;
  if (q.class !== undefined) {
    const v = defaultQueueQos(DMAQoSClass[q.class]);
    const s = `${src}.class`;
    W.set(Q.axiQos, v.axiQos, 'class', s, n);
    W.set(Q.qQos, v.qQos, 'class', s, n);
    W.set(Q.weight, v.weight, 'class', s, n);
    W.set(Q.highPriority, v.highPriority ? 1 : 0, 'class', s, n);
  }
  if (q.qos !== undefined) {
    const x = q.qos;
    const s = `${src}.qos`;
    if (x.axiQos !== undefined) W.set(Q.axiQos, x.axiQos, 'explicit', `${s}.axiQos`, n);
    if (x.qQos !== undefined) W.set(Q.qQos, x.qQos, 'explicit', `${s}.qQos`, n);
    if (x.weight !== undefined) W.set(Q.weight, x.weight, 'explicit', `${s}.weight`, n);
    if (x.highPriority !== undefined)
      W.set(Q.highPriority, x.highPriority ? 1 : 0, 'explicit', `${s}.highPriority`, n);
  }
  if (q.rateLimit !== undefined) {
    const rl = q.rateLimit;
    const s = `${src}.rateLimit`;
    W.set(Q.rateLimitEn, rl.enabled ? 1 : 0, 'explicit', `${s}.enabled`, n);
    if (rl.maxBurst !== undefined)
      W.set(Q.rateLimitMaxBurst, rl.maxBurst, 'explicit', `${s}.maxBurst`, n);
    if (rl.pause !== undefined)
      W.set(Q.rateLimitPause, rl.pause ? 1 : 0, 'explicit', `${s}.pause`, n);
    W.setRefill(rl, Q.rateLimitRefill, s, n);
    // The per-queue limiter engages only when its mask bit is clear (1 = masked, the reset value).
    W.set(Q.rateLimitMask, rl.enabled ? 0 : 1, 'explicit', `${s}.enabled`, n);
  }
  if (q.s2mAxiQos !== undefined)
    W.set(s2mQueueField(Q.s2mAxiQos, n), q.s2mAxiQos, 'explicit', `${src}.s2mAxiQos`, n);
}

/** The writes of one engine of the plan, in write order, appended to `out`. */
export function planEngine(e: PlanEngine, out: PlannedWords): PlannedWords {
  const T = qosRegs();
  const W = engineWords(e.engine, T.order.length);

  for (const q of e.queues) planQueue(W, T.queues[q.queue], q);

  const E = T.engine;
  const rl = e.rateLimit;
  if (rl) {
    const s = `${e.where}.rateLimit`;
    if (rl.shortCycleSize !== undefined)
      W.set(E.shortCycleSize, rl.shortCycleSize, 'explicit', `${s}.shortCycleSize`);
    if (rl.packetMode !== undefined)
      W.set(E.rateLimitPacketMode, rl.packetMode ? 1 : 0, 'explicit', `${s}.packetMode`);
    if (rl.stream) {
      const st = rl.stream;
      W.set(E.streamEn, st.enabled ? 1 : 0, 'explicit', `${s}.stream.enabled`);
      if (st.maxBurst !== undefined)
        W.set(E.streamMaxBurst, st.maxBurst, 'explicit', `${s}.stream.maxBurst`);
      if (st.pause !== undefined)
        W.set(E.streamPause, st.pause ? 1 : 0, 'explicit', `${s}.stream.pause`);
      W.setRefill(st, E.streamRefill, `${s}.stream`);
      W.set(E.streamMask, st.enabled ? 0 : 1, 'explicit', `${s}.stream.enabled`);
    }
  }

  const a = e.arbiters;
  const s = `${e.where}.arbiters`;
  if (a.completion !== undefined) {
    const v = a.completion === 'rr' ? 1 : 0;
    W.set(E.m2sCompForceRr, v, 'explicit', `${s}.completion`);
    W.set(E.s2mCompForceRr, v, 'explicit', `${s}.completion`);
  }
  if (a.qPromotion !== undefined) {
    const v = a.qPromotion ? 1 : 0;
    W.set(E.m2sQPromotion, v, 'explicit', `${s}.qPromotion`);
    W.set(E.s2mQPromotion, v, 'explicit', `${s}.qPromotion`);
  }
  if (a.dwrr !== undefined) {
    const d = a.dwrr;
    W.set(E.enDwrr, d.enabled ? 1 : 0, 'explicit', `${s}.dwrr`);
    if (d.incFactor !== undefined)
      W.set(E.incFactor, d.incFactor, 'explicit', `${s}.dwrr.incFactor`);
    if (d.weightInc !== undefined)
      W.set(E.weightInc, d.weightInc, 'explicit', `${s}.dwrr.weightInc`);
    if (d.packetMode !== undefined)
      W.set(E.dwrrPacketMode, d.packetMode ? 1 : 0, 'explicit', `${s}.dwrr.packetMode`);
  }
  if (a.s2mPrefetch !== undefined)
    W.set(E.s2mPrefForceRr, a.s2mPrefetch === 'rr' ? 1 : 0, 'explicit', `${s}.s2mPrefetch`);
  if (a.prefetch !== undefined)
    W.set(E.m2sPrefForceRr, a.prefetch === 'rr' ? 1 : 0, 'explicit', `${s}.prefetch`);

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
