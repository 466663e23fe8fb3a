/**
 * The registers and fields a QoS plan writes, resolved once from the UDMA register models
 * (the csr resolved-register vocabulary) and numbered in the planner's write order, so planning a
 * field is an array index and a FieldSpec's `place`, with no path built or looked up per field.
 *
 * Write order, per engine: the M2S queue registers (queue by queue, ascending offset), the
 * high-priority mask, the S2M queue registers, the rate limiters, then the arbiter modes with the
 * prefetch arbiter last, so no queue is arbitrated by QoS with half-programmed levels (seed 004
 * §8.6: QoS scheduling is armed by clearing pref_force_rr and setting en_dwrr).
 */
import type { FieldSpec } from '../../csr/runtime/fields.ts';
import { queueCount, reg, type Reg, type UdmaFileName } from '../udma/regs.ts';

/** One field (or one queue's bit of a bitmask field) a plan sets, with its register's slot. */
export interface PlanFieldSpec {
  /** Index of the register in the write order (QosRegs.order). */
  readonly slot: number;
  readonly reg: Reg;
  /** Position and placement of the bits set ("enable[3]" for queue 3's HP bit). */
  readonly spec: FieldSpec;
  /** The register field the bits belong to ("enable"), for the inferred-write rule. */
  readonly field: string;
  /** `[field]`: the names of a word that sets only this register field. */
  readonly fieldNames: readonly string[];
  /** The field or its register's address is inferred. */
  readonly inferred: boolean;
  /** Why a word setting only this register field puts inferred facts on the device (may be empty). */
  readonly writeInferred: readonly string[];
}

/** The plan's refill keys of a token bucket and the register (after its prefix) and field each sets. */
export const REFILL_WORDS = [
  ['refill', 'token_size_2', 'short_cycle'],
  ['longCycle', 'cycle', 'long_cycle_size'],
  ['longRefill', 'token_size_1', 'long_cycle'],
] as const;

export type RefillKey = (typeof REFILL_WORDS)[number][0];

/** A token bucket's refill fields, one per REFILL_WORDS entry, in that order. */
export type RefillFieldSpecs = readonly { readonly key: RefillKey; readonly spec: PlanFieldSpec }[];

/** Per-queue fields (queue q of an engine). */
export interface QueueFieldSpecs {
  readonly axiQos: PlanFieldSpec;
  readonly qQos: PlanFieldSpec;
  readonly weight: PlanFieldSpec;
  /** Bit q of AXI_M2S_MLA.high_priority.enable. */
  readonly highPriority: PlanFieldSpec;
  readonly rateLimitEn: PlanFieldSpec;
  readonly rateLimitMaxBurst: PlanFieldSpec;
  readonly rateLimitPause: PlanFieldSpec;
  /** rate_limit_mask.internal_rate_limiter (1 = masked). */
  readonly rateLimitMask: PlanFieldSpec;
  /** rate_limit_cfg_token_size_2 / _cycle / _token_size_1. */
  readonly rateLimitRefill: RefillFieldSpecs;
  /** S2M_Q[q].cfg.AXI_qos; undefined when the S2M half has no queue q. */
  readonly s2mAxiQos: PlanFieldSpec | undefined;
}

/** Engine-wide fields. */
export interface EngineFieldSpecs {
  readonly shortCycleSize: PlanFieldSpec;
  readonly rateLimitPacketMode: PlanFieldSpec;
  readonly streamEn: PlanFieldSpec;
  readonly streamMaxBurst: PlanFieldSpec;
  readonly streamPause: PlanFieldSpec;
  readonly streamMask: PlanFieldSpec;
  /** M2S_stream_rate_limiter.cfg_token_size_2 / cfg_cycle / cfg_token_size_1. */
  readonly streamRefill: RefillFieldSpecs;
  readonly m2sCompForceRr: PlanFieldSpec;
  readonly s2mCompForceRr: PlanFieldSpec;
  readonly m2sQPromotion: PlanFieldSpec;
  readonly s2mQPromotion: PlanFieldSpec;
  readonly enDwrr: PlanFieldSpec;
  readonly incFactor: PlanFieldSpec;
  readonly weightInc: PlanFieldSpec;
  readonly dwrrPacketMode: PlanFieldSpec;
  readonly s2mPrefForceRr: PlanFieldSpec;
  readonly m2sPrefForceRr: PlanFieldSpec;
}

export interface QosRegs {
  /** Every register a plan may write, in write order (a register's slot is its index). */
  readonly order: readonly Reg[];
  /** Indexed by queue number (the M2S queue count). */
  readonly queues: readonly QueueFieldSpecs[];
  readonly engine: EngineFieldSpecs;
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

function build(): QosRegs {
  const regs: { reg: Reg; phase: number; rank: number }[] = [];
  const pending: { slot: number; reg: Reg }[] = [];
  const use = (
    file: UdmaFileName,
    path: string,
    phase: number,
    name: string,
    bit?: number,
  ): PlanFieldSpec => {
    const r = reg(file, path);
    if (!regs.some((x) => x.reg === r)) {
      regs.push({ reg: r, phase, rank: phase === PHASE.arbiter ? ARBITER_RANK[path] : r.offset });
    }
    const f = r.field(name);
    const spec = bit === undefined ? f : f.bit(bit);
    const out = {
      slot: -1,
      reg: r,
      spec,
      field: name,
      fieldNames: [name],
      inferred: f.inferred || r.addressInferred,
      writeInferred: r.inferredWrite([name]),
    };
    pending.push(out);
    return out;
  };
  const m2s = 'udma_m2s';
  const s2m = 'udma_s2m';
  const refill = (prefix: string, phase: number): RefillFieldSpecs =>
    REFILL_WORDS.map(([key, r, name]) => ({ key, spec: use(m2s, `${prefix}${r}`, phase, name) }));
  const s2mQueues = queueCount(s2m);
  const queues: QueueFieldSpecs[] = [];
  for (let q = 0; q < queueCount(m2s); q++) {
    const Q = `M2S_Q[${q}]`;
    const P = PHASE.m2sQueue;
    queues.push({
      axiQos: use(m2s, `${Q}.cfg`, P, 'AXI_qos'),
      qQos: use(m2s, `${Q}.dwrr_cfg_2`, P, 'q_qos'),
      weight: use(m2s, `${Q}.dwrr_cfg_3`, P, 'weight'),
      highPriority: use(m2s, 'AXI_M2S_MLA.high_priority', PHASE.hp, 'enable', q),
      rateLimitEn: use(m2s, `${Q}.rate_limit_cfg_1`, P, 'en'),
      rateLimitMaxBurst: use(m2s, `${Q}.rate_limit_cfg_1`, P, 'max_burst_size'),
      rateLimitPause: use(m2s, `${Q}.rate_limit_cfg_1`, P, 'pause'),
      rateLimitMask: use(m2s, `${Q}.rate_limit_mask`, P, 'internal_rate_limiter'),
      rateLimitRefill: refill(`${Q}.rate_limit_cfg_`, P),
      s2mAxiQos: q < s2mQueues ? use(s2m, `S2M_Q[${q}].cfg`, PHASE.s2mQueue, 'AXI_qos') : undefined,
    });
  }
  const RL = PHASE.rateLimit;
  const A = PHASE.arbiter;
  const engine: EngineFieldSpecs = {
    shortCycleSize: use(m2s, 'M2S_rate_limiter.gen_cfg', RL, 'short_cycle_size'),
    rateLimitPacketMode: use(m2s, 'M2S_rate_limiter.gen_cfg', RL, 'pkt_mode_en'),
    streamEn: use(m2s, 'M2S_stream_rate_limiter.cfg_1s', RL, 'en'),
    streamMaxBurst: use(m2s, 'M2S_stream_rate_limiter.cfg_1s', RL, 'max_burst_size'),
    streamPause: use(m2s, 'M2S_stream_rate_limiter.cfg_1s', RL, 'pause'),
    streamMask: use(m2s, 'M2S_stream_rate_limiter.mask', RL, 'internal_rate_limiter'),
    streamRefill: refill('M2S_stream_rate_limiter.cfg_', RL),
    m2sCompForceRr: use(m2s, 'M2S_comp.cfg_1c', A, 'force_rr'),
    s2mCompForceRr: use(s2m, 'S2M_comp.cfg_1c', A, 'force_rr'),
    m2sQPromotion: use(m2s, 'M2S_comp.cfg_1c', A, 'q_promotion'),
    s2mQPromotion: use(s2m, 'S2M_comp.cfg_1c', A, 'q_promotion'),
    enDwrr: use(m2s, 'M2S_dwrr.cfg_sched', A, 'en_dwrr'),
    incFactor: use(m2s, 'M2S_dwrr.cfg_sched', A, 'inc_factor'),
    weightInc: use(m2s, 'M2S_dwrr.cfg_sched', A, 'weight_inc'),
    dwrrPacketMode: use(m2s, 'M2S_dwrr.cfg_sched', A, 'pkt_mode_en'),
    s2mPrefForceRr: use(s2m, 'S2M_rd.desc_pref_cfg_2', A, 'pref_force_rr'),
    m2sPrefForceRr: use(m2s, 'M2S_rd.desc_pref_cfg_2', A, 'pref_force_rr'),
  };
  regs.sort((x, y) => x.phase - y.phase || x.rank - y.rank);
  const order = regs.map((x) => x.reg);
  for (const p of pending) p.slot = order.indexOf(p.reg);
  return { order, queues, engine };
}

let table: QosRegs | undefined;

/** The resolved QoS registers (built on first use). */
export function qosRegs(): QosRegs {
  return (table ??= build());
}
