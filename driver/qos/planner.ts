/**
 * planQos: a QoS plan -> the ordered register writes that program it. Pure: no device, no I/O.
 *
 * Every field the plan sets is merged into its register word, so each register touched gets one
 * write. A write carries the bits it sets (`mask`, `value`); when it sets every field of its
 * register (`complete`) the word is fully known and applying it needs no read.
 *
 * Order: engines ascending, and per engine the write order of driver/qos/qos-regs.ts (queue
 * registers first, the prefetch arbiter last: seed 004 §8.6). Each engine is planned by
 * driver/qos/plan-engine.ts; here the plan is validated and the inferred-write gate applied.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import type { UdmaFileName } from '../udma/regs.ts';
import { armingWarnings, planEngine, refillWarnings } from './plan-engine.ts';
import { PlannedWords } from './plan-words.ts';
import { parseQosPlan, readQosPlan, type QosPlan, type QosPlanInput } from './plan.ts';

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

/**
 * Every write of the plan, ungated (inferred writes included), into `out` (emptied first), in
 * write order; returns the arming warnings.
 */
export function planWords(
  plan: QosPlan,
  engines: readonly number[] | undefined,
  out: PlannedWords,
): QosWarning[] {
  out.clear();
  const warnings: QosWarning[] = [];
  for (const e of plan.engines) {
    if (engines && !engines.includes(e.engine)) continue;
    planEngine(e, out);
    for (const w of armingWarnings(e)) warnings.push(w);
    for (const w of refillWarnings(e)) warnings.push(w);
  }
  return warnings;
}

/** Every write of the plan, ungated (inferred writes included), and the arming warnings. */
export function buildQosWrites(
  plan: QosPlan,
  engines?: readonly number[],
): { writes: PlannedWrite[]; warnings: QosWarning[] } {
  const table = new PlannedWords();
  const warnings = planWords(plan, engines, table);
  const writes = new Array<PlannedWrite>(table.n);
  for (let i = 0; i < table.n; i++) writes[i] = table.plannedWrite(i);
  return { writes, warnings };
}

/**
 * The options and the plan of planQos checked: the flags, `engines` (an array of engines of the
 * plan), the plan parsed (PLAN_INVALID, BAD_ARGUMENT). `escapes`: the plan is handed back to the
 * caller (planQos's `plan`), so it is parseQosPlan's frozen plan; otherwise readQosPlan's.
 */
export function planInput(
  plan: QosPlanInput | QosPlan,
  opts: PlanQosOptions,
  escapes: boolean,
): QosPlan {
  checkSafetyFlags(opts, ['allowInferred', 'strict'], 'planQos options');
  if (opts.engines !== undefined && !Array.isArray(opts.engines)) {
    throw new NxdmaError('BAD_ARGUMENT', 'planQos options.engines must be an array of engine ids', {
      where: 'planQos options.engines',
      expected: 'number[] (or the option left out)',
      actual: opts.engines,
    });
  }
  const p = escapes ? parseQosPlan(plan) : readQosPlan(plan);
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
  return p;
}

/** Under `strict`, any warning is an error (REGISTER_INFERRED for a left-out HP bit). */
export function strictWarnings(opts: PlanQosOptions, warnings: readonly QosWarning[]): void {
  if (!opts.strict || warnings.length === 0) return;
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

/**
 * The ordered register writes of a plan (raw JSON or parsed). Pure. Throws PLAN_INVALID for an
 * invalid plan, REGISTER_INFERRED for an explicit value on an inferred register without
 * `allowInferred`, and, under `strict`, for any warning.
 */
export function planQos(plan: QosPlanInput | QosPlan, opts: PlanQosOptions = {}): QosProgram {
  const p = planInput(plan, opts, true);
  const { writes: all, warnings } = buildQosWrites(p, opts.engines);
  const { writes, skipped } = opts.allowInferred
    ? { writes: all, skipped: [] }
    : withoutInferred(all, warnings);
  strictWarnings(opts, warnings);
  return { plan: p, writes, skipped, warnings };
}

/**
 * The inferred-write gate without allowInferred: a write of an inferred register that the plan
 * asks for explicitly is REGISTER_INFERRED; one that only a class's default mapping implies is
 * left out (`skipped`) with an INFERRED_SKIPPED warning (added to `warnings`).
 */
export function withoutInferred(
  all: PlannedWrite[],
  warnings: QosWarning[],
): { writes: PlannedWrite[]; skipped: PlannedWrite[] } {
  const writes: PlannedWrite[] = [];
  const skipped: PlannedWrite[] = [];
  for (const w of all) {
    if (w.inferred.length === 0) {
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
  return { writes, skipped };
}
