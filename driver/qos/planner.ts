/**
 * planQos: a QoS plan -> the ordered register writes that program it. Pure: no device, no I/O.
 *
 * Every field the plan sets is merged into its register word, so each register touched gets one
 * write. A write carries the bits it sets (`mask`, `value`); when it sets every field of its
 * register (`complete`) the word is fully known and applying it needs no read.
 *
 * Order, per engine (engines ascending): the M2S queue registers (queue by queue, ascending
 * offset), the high-priority mask, the S2M queue registers, the rate limiters, then the arbiter
 * modes with the prefetch arbiter last, so no queue is arbitrated by QoS with half-programmed
 * levels (seed 004 §8.6: QoS scheduling is armed by clearing pref_force_rr and setting en_dwrr).
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import { DMAQoSClass, defaultQueueQos } from '../../csr/formats/qos-class.ts';
import { fieldMax } from '../../csr/schema/model.ts';
import { inferredWrite, reg, type Field, type Reg, type UdmaFileName } from '../udma/regs.ts';
import { parseQosPlan, type PlanEngine, type QosPlan, type QosPlanInput } from './plan.ts';

/** Where a planned value comes from: a class's default mapping, or the plan's own numbers. */
export type QosOrigin = 'class' | 'explicit';

export interface PlannedField {
  /** "q_qos"; "enable[3]" for queue 3's bit of the high-priority mask. */
  name: string;
  lsb: number;
  width: number;
  value: number;
  origin: QosOrigin;
  /** The field (or its register's address) is inferred. */
  inferred: boolean;
  /** The queue the value belongs to, for per-queue values. */
  queue?: number;
  /** JSON path of the plan entry that asked for it. */
  source: string;
}

export interface PlannedWrite {
  engine: number;
  file: UdmaFileName;
  /** As `nxdma regs list` prints it ("M2S_Q[3].dwrr_cfg_2"). */
  path: string;
  /** Byte offset in the register file. */
  offset: number;
  /** Bits the plan sets. */
  mask: number;
  /** Their values (inside `mask`). */
  value: number;
  fields: PlannedField[];
  /** The plan sets every field of the register: the word is known without reading it. */
  complete: boolean;
  /** Why this write puts inferred facts on the device; empty when it does not. */
  inferred: string[];
  /** Reset word of the register. */
  reset: number;
  /** Bits that read back (readable fields), for verification. */
  readMask: number;
}

export type QosWarningCode =
  'ARBITERS_ROUND_ROBIN' | 'COMPLETION_ROUND_ROBIN' | 'INFERRED_SKIPPED' | 'RATE_LIMIT_NO_REFILL';

export interface QosWarning {
  code: QosWarningCode;
  engine: number;
  message: string;
}

export interface QosProgram {
  plan: QosPlan;
  /** The writes to perform, in order. */
  writes: PlannedWrite[];
  /** Writes left out: inferred registers set only by a class's default mapping (no allowInferred). */
  skipped: PlannedWrite[];
  warnings: QosWarning[];
}

export interface PlanQosOptions {
  /**
   * Plan writes of inferred registers (spec/REGISTERS.md). Without it a value the plan states
   * explicitly for an inferred register is refused (REGISTER_INFERRED) and a value that only a
   * class's default mapping implies (the high-priority bit) is left out with a warning. Default
   * false, on the mock as on hardware.
   */
  allowInferred?: boolean;
  /** Warnings are errors (the arming rule: PLAN_INVALID; a left-out HP bit: REGISTER_INFERRED). */
  strict?: boolean;
  /** Only these engines of the plan. */
  engines?: readonly number[];
}

// ---------------------------------------------------------------------------------------------

class WordBuilder {
  readonly reg: Reg;
  readonly engine: number;
  readonly phase: number;
  readonly rank: number;
  mask = 0;
  value = 0;
  readonly fields: PlannedField[] = [];

  constructor(reg: Reg, engine: number, phase: number, rank: number) {
    this.reg = reg;
    this.engine = engine;
    this.phase = phase;
    this.rank = rank;
  }

  /** Sets `width` bits at `lsb` (inside field f) to `value`. */
  private put(
    f: Field,
    name: string,
    lsb: number,
    width: number,
    value: number,
    origin: QosOrigin,
    source: string,
    queue?: number,
  ): void {
    const max = fieldMax(width);
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new NxdmaError(
        'PLAN_INVALID',
        `${source}: ${this.reg.path}.${name} = ${String(value)} does not fit ${width} bits`,
        {
          where: source,
          expected: `0..${max}`,
          actual: value,
        },
      );
    }
    const m = ((max << lsb) >>> 0) & f.mask;
    this.mask = (this.mask | m) >>> 0;
    this.value = ((this.value & ~m) | ((value << lsb) & m)) >>> 0;
    const prev = this.fields.findIndex((x) => x.name === name);
    const pf: PlannedField = {
      name,
      lsb,
      width,
      value,
      origin,
      inferred: f.inferred || this.reg.model.addressInferred,
      ...(queue !== undefined ? { queue } : {}),
      source,
    };
    if (prev >= 0) this.fields[prev] = pf;
    else this.fields.push(pf);
  }

  set(name: string, value: number, origin: QosOrigin, source: string, queue?: number): void {
    const f = this.reg.field(name);
    this.put(f, name, f.lsb, f.width, value, origin, source, queue);
  }

  /** One bit of a per-queue bitmask field (bit `bit` of field `name`). */
  setBit(
    name: string,
    bit: number,
    on: boolean,
    origin: QosOrigin,
    source: string,
    queue: number,
  ): void {
    const f = this.reg.field(name);
    this.put(f, `${name}[${bit}]`, f.lsb + bit, 1, on ? 1 : 0, origin, source, queue);
  }

  build(): PlannedWrite {
    const r = this.reg;
    const names = new Set(this.fields.map((x) => x.name.replace(/\[\d+\]$/, '')));
    return {
      engine: this.engine,
      file: r.file,
      path: r.path,
      offset: r.offset,
      mask: this.mask,
      value: this.value,
      fields: [...this.fields].sort((a, b) => a.lsb - b.lsb),
      complete: (this.mask & r.fieldMask) >>> 0 === r.fieldMask,
      inferred: inferredWrite(r, [...names]),
      reset: r.reset,
      readMask: r.readMask,
    };
  }
}

/** Phases of the write order (see the module comment). */
const PHASE = { m2sQueue: 0, hp: 1, s2mQueue: 2, rateLimit: 3, arbiter: 4 } as const;
/** Arbiter registers: completion, DWRR, then prefetch (S2M, then M2S last). */
const ARBITER_RANK: Record<string, number> = {
  'M2S_comp.cfg_1c': 0,
  'S2M_comp.cfg_1c': 1,
  'M2S_dwrr.cfg_sched': 2,
  'S2M_rd.desc_pref_cfg_2': 3,
  'M2S_rd.desc_pref_cfg_2': 4,
};

/** The plan's refill keys of a token bucket and the register (after its prefix) and field each sets. */
const REFILL_WORDS = [
  ['refill', 'token_size_2', 'short_cycle'],
  ['longCycle', 'cycle', 'long_cycle_size'],
  ['longRefill', 'token_size_1', 'long_cycle'],
] as const;

const regCache = new Map<string, Reg>();
function R(file: UdmaFileName, path: string): Reg {
  const k = `${file}:${path}`;
  let r = regCache.get(k);
  if (!r) {
    r = reg(file, path);
    regCache.set(k, r);
  }
  return r;
}

function planEngine(e: PlanEngine): PlannedWrite[] {
  const builders = new Map<string, WordBuilder>();
  const word = (file: UdmaFileName, path: string, phase: number): WordBuilder => {
    const k = `${file}:${path}`;
    let b = builders.get(k);
    if (!b) {
      const r = R(file, path);
      b = new WordBuilder(
        r,
        e.engine,
        phase,
        phase === PHASE.arbiter ? (ARBITER_RANK[path] ?? 9) : r.offset,
      );
      builders.set(k, b);
    }
    return b;
  };
  const m2s = 'udma_m2s';
  const s2m = 'udma_s2m';
  /** A bucket's refill words (`prefix` + cycle / token_size_1 / token_size_2), as far as given. */
  const setRefill = (
    r: { refill?: number; longCycle?: number; longRefill?: number },
    prefix: string,
    phase: number,
    src: string,
    queue?: number,
  ): void => {
    for (const [key, reg, fieldName] of REFILL_WORDS) {
      const v = r[key];
      if (v !== undefined)
        word(m2s, `${prefix}${reg}`, phase).set(fieldName, v, 'explicit', `${src}.${key}`, queue);
    }
  };

  for (const q of e.queues) {
    const Q = `M2S_Q[${q.queue}]`;
    const src = q.where;
    if (q.class !== undefined) {
      const v = defaultQueueQos(DMAQoSClass[q.class]);
      const s = `${src}.class`;
      word(m2s, `${Q}.cfg`, PHASE.m2sQueue).set('AXI_qos', v.axiQos, 'class', s, q.queue);
      word(m2s, `${Q}.dwrr_cfg_2`, PHASE.m2sQueue).set('q_qos', v.qQos, 'class', s, q.queue);
      word(m2s, `${Q}.dwrr_cfg_3`, PHASE.m2sQueue).set('weight', v.weight, 'class', s, q.queue);
      word(m2s, 'AXI_M2S_MLA.high_priority', PHASE.hp).setBit(
        'enable',
        q.queue,
        v.highPriority,
        'class',
        s,
        q.queue,
      );
    }
    if (q.qos !== undefined) {
      const x = q.qos;
      const s = `${src}.qos`;
      if (x.axiQos !== undefined)
        word(m2s, `${Q}.cfg`, PHASE.m2sQueue).set(
          'AXI_qos',
          x.axiQos,
          'explicit',
          `${s}.axiQos`,
          q.queue,
        );
      if (x.qQos !== undefined)
        word(m2s, `${Q}.dwrr_cfg_2`, PHASE.m2sQueue).set(
          'q_qos',
          x.qQos,
          'explicit',
          `${s}.qQos`,
          q.queue,
        );
      if (x.weight !== undefined)
        word(m2s, `${Q}.dwrr_cfg_3`, PHASE.m2sQueue).set(
          'weight',
          x.weight,
          'explicit',
          `${s}.weight`,
          q.queue,
        );
      if (x.highPriority !== undefined) {
        word(m2s, 'AXI_M2S_MLA.high_priority', PHASE.hp).setBit(
          'enable',
          q.queue,
          x.highPriority,
          'explicit',
          `${s}.highPriority`,
          q.queue,
        );
      }
    }
    if (q.rateLimit !== undefined) {
      const rl = q.rateLimit;
      const s = `${src}.rateLimit`;
      const w = word(m2s, `${Q}.rate_limit_cfg_1`, PHASE.m2sQueue);
      w.set('en', rl.enabled ? 1 : 0, 'explicit', `${s}.enabled`, q.queue);
      if (rl.maxBurst !== undefined)
        w.set('max_burst_size', rl.maxBurst, 'explicit', `${s}.maxBurst`, q.queue);
      if (rl.pause !== undefined)
        w.set('pause', rl.pause ? 1 : 0, 'explicit', `${s}.pause`, q.queue);
      setRefill(rl, `${Q}.rate_limit_cfg_`, PHASE.m2sQueue, s, q.queue);
      // The per-queue limiter engages only when its mask bit is clear (1 = masked, the reset value).
      word(m2s, `${Q}.rate_limit_mask`, PHASE.m2sQueue).set(
        'internal_rate_limiter',
        rl.enabled ? 0 : 1,
        'explicit',
        `${s}.enabled`,
        q.queue,
      );
    }
    if (q.s2mAxiQos !== undefined) {
      word(s2m, `S2M_Q[${q.queue}].cfg`, PHASE.s2mQueue).set(
        'AXI_qos',
        q.s2mAxiQos,
        'explicit',
        `${src}.s2mAxiQos`,
        q.queue,
      );
    }
  }

  const rl = e.rateLimit;
  if (rl) {
    const s = `${e.where}.rateLimit`;
    if (rl.shortCycleSize !== undefined) {
      word(m2s, 'M2S_rate_limiter.gen_cfg', PHASE.rateLimit).set(
        'short_cycle_size',
        rl.shortCycleSize,
        'explicit',
        `${s}.shortCycleSize`,
      );
    }
    if (rl.packetMode !== undefined) {
      word(m2s, 'M2S_rate_limiter.gen_cfg', PHASE.rateLimit).set(
        'pkt_mode_en',
        rl.packetMode ? 1 : 0,
        'explicit',
        `${s}.packetMode`,
      );
    }
    if (rl.stream) {
      const st = rl.stream;
      const w = word(m2s, 'M2S_stream_rate_limiter.cfg_1s', PHASE.rateLimit);
      w.set('en', st.enabled ? 1 : 0, 'explicit', `${s}.stream.enabled`);
      if (st.maxBurst !== undefined)
        w.set('max_burst_size', st.maxBurst, 'explicit', `${s}.stream.maxBurst`);
      if (st.pause !== undefined) w.set('pause', st.pause ? 1 : 0, 'explicit', `${s}.stream.pause`);
      setRefill(st, 'M2S_stream_rate_limiter.cfg_', PHASE.rateLimit, `${s}.stream`);
      word(m2s, 'M2S_stream_rate_limiter.mask', PHASE.rateLimit).set(
        'internal_rate_limiter',
        st.enabled ? 0 : 1,
        'explicit',
        `${s}.stream.enabled`,
      );
    }
  }

  const a = e.arbiters;
  const s = `${e.where}.arbiters`;
  if (a.completion !== undefined) {
    const v = a.completion === 'rr' ? 1 : 0;
    word(m2s, 'M2S_comp.cfg_1c', PHASE.arbiter).set('force_rr', v, 'explicit', `${s}.completion`);
    word(s2m, 'S2M_comp.cfg_1c', PHASE.arbiter).set('force_rr', v, 'explicit', `${s}.completion`);
  }
  if (a.qPromotion !== undefined) {
    const v = a.qPromotion ? 1 : 0;
    word(m2s, 'M2S_comp.cfg_1c', PHASE.arbiter).set(
      'q_promotion',
      v,
      'explicit',
      `${s}.qPromotion`,
    );
    word(s2m, 'S2M_comp.cfg_1c', PHASE.arbiter).set(
      'q_promotion',
      v,
      'explicit',
      `${s}.qPromotion`,
    );
  }
  if (a.dwrr !== undefined) {
    const d = a.dwrr;
    const w = word(m2s, 'M2S_dwrr.cfg_sched', PHASE.arbiter);
    w.set('en_dwrr', d.enabled ? 1 : 0, 'explicit', `${s}.dwrr`);
    if (d.incFactor !== undefined)
      w.set('inc_factor', d.incFactor, 'explicit', `${s}.dwrr.incFactor`);
    if (d.weightInc !== undefined)
      w.set('weight_inc', d.weightInc, 'explicit', `${s}.dwrr.weightInc`);
    if (d.packetMode !== undefined)
      w.set('pkt_mode_en', d.packetMode ? 1 : 0, 'explicit', `${s}.dwrr.packetMode`);
  }
  if (a.s2mPrefetch !== undefined) {
    word(s2m, 'S2M_rd.desc_pref_cfg_2', PHASE.arbiter).set(
      'pref_force_rr',
      a.s2mPrefetch === 'rr' ? 1 : 0,
      'explicit',
      `${s}.s2mPrefetch`,
    );
  }
  if (a.prefetch !== undefined) {
    word(m2s, 'M2S_rd.desc_pref_cfg_2', PHASE.arbiter).set(
      'pref_force_rr',
      a.prefetch === 'rr' ? 1 : 0,
      'explicit',
      `${s}.prefetch`,
    );
  }

  return [...builders.values()]
    .sort((x, y) => x.phase - y.phase || x.rank - y.rank)
    .map((b) => b.build());
}

/** The seed 004 §8.6 arming rule for one engine: per-queue QoS set but the arbiters left in round robin. */
function armingWarnings(e: PlanEngine): QosWarning[] {
  const hasQos = e.queues.some(
    (q) =>
      q.class !== undefined ||
      (q.qos !== undefined &&
        (q.qos.axiQos !== undefined || q.qos.qQos !== undefined || q.qos.weight !== undefined)),
  );
  if (!hasQos) return [];
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
function refillWarnings(e: PlanEngine): QosWarning[] {
  const out: QosWarning[] = [];
  const none = (r: { enabled: boolean; refill?: number; longRefill?: number }): boolean =>
    r.enabled && r.refill === undefined && r.longRefill === undefined;
  const warn = (what: string, regs: string): void => {
    out.push({
      code: 'RATE_LIMIT_NO_REFILL',
      engine: e.engine,
      message:
        `engine ${e.engine}: ${what} is enabled but the plan gives no refill or longRefill: ` +
        `its bucket refills by whatever ${regs} hold (reset unknown), and stops the traffic once empty if that is 0`,
    });
  };
  const st = e.rateLimit?.stream;
  if (st && none(st))
    warn('the stream rate limiter', 'M2S_stream_rate_limiter.cfg_token_size_1 / _2');
  for (const q of e.queues) {
    if (q.rateLimit && none(q.rateLimit))
      warn(`queue ${q.queue}'s rate limiter`, `M2S_Q[${q.queue}].rate_limit_cfg_token_size_1 / _2`);
  }
  return out;
}

/** Every write of the plan, ungated (inferred writes included), and the arming warnings. */
export function buildQosWrites(
  plan: QosPlan,
  engines?: readonly number[],
): { writes: PlannedWrite[]; warnings: QosWarning[] } {
  const writes: PlannedWrite[] = [];
  const warnings: QosWarning[] = [];
  for (const e of plan.engines) {
    if (engines && !engines.includes(e.engine)) continue;
    writes.push(...planEngine(e));
    warnings.push(...armingWarnings(e), ...refillWarnings(e));
  }
  return { writes, warnings };
}

/**
 * The ordered register writes of a plan (raw JSON or parsed). Pure. Throws PLAN_INVALID for an
 * invalid plan, REGISTER_INFERRED for an explicit value on an inferred register without
 * `allowInferred`, and, under `strict`, for any warning.
 */
export function planQos(plan: QosPlanInput | QosPlan, opts: PlanQosOptions = {}): QosProgram {
  checkSafetyFlags(opts, ['allowInferred', 'strict'], 'planQos options');
  if (opts.engines !== undefined && !Array.isArray(opts.engines)) {
    throw new NxdmaError('BAD_ARGUMENT', 'planQos options.engines must be an array of engine ids', {
      where: 'planQos options.engines',
      expected: 'number[] (or the option left out)',
      actual: opts.engines,
    });
  }
  const p = parseQosPlan(plan);
  if (opts.engines) {
    for (const id of opts.engines) {
      if (!p.engines.some((e) => e.engine === id)) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `engine ${id} is not in the plan (plan engines: ${p.engines.map((e) => e.engine).join(', ')})`,
          {
            where: 'engines',
            expected: p.engines.map((e) => e.engine).join(' | '),
            actual: id,
          },
        );
      }
    }
  }
  const { writes: all, warnings } = buildQosWrites(p, opts.engines);
  const writes: PlannedWrite[] = [];
  const skipped: PlannedWrite[] = [];
  for (const w of all) {
    if (w.inferred.length === 0 || opts.allowInferred) {
      writes.push(w);
      continue;
    }
    const explicit = w.fields.filter((f) => f.origin === 'explicit');
    if (explicit.length > 0) {
      throw new NxdmaError(
        'REGISTER_INFERRED',
        `engine ${w.engine}: ${w.file} ${w.path} (${hex(w.offset)}) is not written without allowInferred: ` +
          `${w.inferred.join(', ')} ${w.inferred.length > 1 ? 'are' : 'is'} inferred (no source states it); asked for by ${[
            ...new Set(explicit.map((f) => f.source)),
          ].join(', ')}`,
        {
          where: `${explicit[0].source}`,
          expected: 'values on registers whose written bits a source states, or allowInferred',
          actual: { engine: w.engine, file: w.file, path: w.path, inferred: w.inferred },
        },
      );
    }
    skipped.push(w);
    const lost = w.fields.filter((f) => f.value !== 0);
    if (lost.length > 0) {
      warnings.push({
        code: 'INFERRED_SKIPPED',
        engine: w.engine,
        message:
          `engine ${w.engine}: ${w.path} not written (${w.inferred.join(', ')} ${w.inferred.length > 1 ? 'are' : 'is'} inferred): ` +
          `queue${lost.length > 1 ? 's' : ''} ${lost.map((f) => f.queue).join(', ')} would be set by the class mapping ` +
          `(${lost.map((f) => f.name).join(', ')}); pass allowInferred to write it`,
      });
    }
  }
  if (opts.strict && warnings.length > 0) {
    const inferred = warnings.find((w) => w.code === 'INFERRED_SKIPPED');
    throw new NxdmaError(
      inferred ? 'REGISTER_INFERRED' : 'PLAN_INVALID',
      `strict: ${warnings.map((w) => w.message).join(' | ')}`,
      {
        where: `engine ${warnings[0].engine}`,
        expected: 'a plan without warnings',
        actual: warnings,
        warnings,
      },
    );
  }
  return { plan: p, writes, skipped, warnings };
}
