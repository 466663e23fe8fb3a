/**
 * DMAQoSClass and its mapping to the hardware: the one home of the QoS-class rule
 * (seed 004 §7.1, §7.3, §8.6). The compiler, the lowering (DMA_CONFIGS.priority_class), the QoS
 * planner and the runtime helpers all take the mapping from here.
 */
import { NxdmaError } from '../../common/errors.ts';

/** Compiler QoS class (seed 004 §7.1): Unassigned 0, Default 1, P0..P14 = 2..16. */
export const DMAQoSClass = {
  Unassigned: 0,
  Default: 1,
  P0: 2,
  P1: 3,
  P2: 4,
  P3: 5,
  P4: 6,
  P5: 7,
  P6: 8,
  P7: 9,
  P8: 10,
  P9: 11,
  P10: 12,
  P11: 13,
  P12: 14,
  P13: 15,
  P14: 16,
} as const;
export type DMAQoSClass = (typeof DMAQoSClass)[keyof typeof DMAQoSClass];
export type DMAQoSClassName = keyof typeof DMAQoSClass;

export const DMA_QOS_CLASS_NAMES = Object.keys(DMAQoSClass) as DMAQoSClassName[];

/** Highest legal wire priority_class (DMA_CONFIGS.priority_class <= 4, MAX_DMA_PKT_PRIO_NUM). */
export const MAX_PRIORITY_CLASS = 4;

export function isDMAQoSClass(v: unknown): v is DMAQoSClass {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 16;
}

export function qosClassName(cls: DMAQoSClass): DMAQoSClassName {
  return DMA_QOS_CLASS_NAMES[cls];
}

/** Parses a class given by name ('P3', 'Default') or ordinal (0..16). */
export function parseQoSClass(v: string | number, where = 'qos class'): DMAQoSClass {
  if (typeof v === 'number') {
    if (isDMAQoSClass(v)) return v;
  } else if (Object.prototype.hasOwnProperty.call(DMAQoSClass, v)) {
    return DMAQoSClass[v as DMAQoSClassName];
  }
  throw new NxdmaError('BAD_ARGUMENT', `${where}: unknown DMAQoSClass ${JSON.stringify(v)}`, {
    where,
    expected: `one of ${DMA_QOS_CLASS_NAMES.join(', ')} or 0..16`,
    actual: v,
  });
}

/**
 * DMAQoSClass -> the 3-bit wire priority_class (seed 004 §7.1): class - 1 for P0..P14, 0 for
 * Unassigned / Default, saturated into the legal band 0..4. So P0..P3 map to 1..4 and P4..P14
 * collapse onto 4. Wire class 0 is the firmware default class.
 */
export function toPriorityClass(cls: DMAQoSClass): number {
  if (!isDMAQoSClass(cls)) {
    throw new NxdmaError('BAD_ARGUMENT', `not a DMAQoSClass: ${String(cls)}`, {
      expected: '0..16',
      actual: cls,
    });
  }
  if (cls <= DMAQoSClass.Default) return 0;
  return Math.min(cls - 1, MAX_PRIORITY_CLASS);
}

/** Per-queue register values a class programs (seed 004 §7.3). */
export interface QueueQos {
  /** M2S_Q.cfg.AXI_qos[30:28]. */
  axiQos: number;
  /** M2S_Q.dwrr_cfg_2.q_qos[7:0]: the DWRR scheduling level; a higher level is served first. */
  qQos: number;
  /** M2S_Q.dwrr_cfg_3.weight[7:0]: the DWRR weight among queues of one level. */
  weight: number;
  /** AXI_M2S_MLA.high_priority.enable bit of this queue. */
  highPriority: boolean;
}

/**
 * The default mapping from a class to the per-queue arbiter values. The seed fixes the wire
 * priority_class (above) and that the class is served first; it gives no numbers for the
 * registers, so nxdma chooses (docs/qos.md):
 *
 * - the level: P0 is the most urgent class, so wire class 1 gets the highest level. level =
 *   5 - priority_class for P classes (P0 -> 4, P1 -> 3, P2 -> 2, P3..P14 -> 1); Unassigned and
 *   Default (wire class 0, best effort) get level 0.
 * - AXI_qos = level (AXI QoS: larger is more urgent; 0..4 fits the 3-bit field).
 * - weight: within a level, a lower P number gets a larger DWRR share, which keeps P3..P14 (one
 *   saturated level) apart: weight = 17 - class for P classes (P0 15 .. P14 1), 1 otherwise.
 * - the high-priority descriptor-fetch bit only for P0.
 */
export function defaultQueueQos(cls: DMAQoSClass): QueueQos {
  const pc = toPriorityClass(cls);
  const level = pc === 0 ? 0 : 5 - pc;
  return {
    axiQos: level,
    qQos: level,
    weight: cls >= DMAQoSClass.P0 ? 17 - cls : 1,
    highPriority: cls === DMAQoSClass.P0,
  };
}
