/**
 * The plan as a table per engine (what `nxdma qos show` and the other qos commands print): each
 * planned queue with the values it resolves to, and the engine's arbiter modes and rate limits.
 * Pure: resolves classes through the default mapping (csr/formats/qos-class.ts).
 */
import { DMAQoSClass, defaultQueueQos, toPriorityClass } from '../../csr/formats/qos-class.ts';
import { readQosPlan, type PlanEngine, type QosPlan, type QosPlanInput } from './plan.ts';

export interface PlanQueueRow {
  queue: number;
  /** Class name, or "explicit". */
  class: string;
  /** Wire priority_class of the class (null for explicit values). */
  priorityClass: number | null;
  /** Resolved values; null where the plan leaves the field as it is. */
  axiQos: number | null;
  qQos: number | null;
  weight: number | null;
  highPriority: boolean | null;
  s2mAxiQos: number | null;
  rateLimit: string | null;
}

export interface PlanEngineTable {
  engine: number;
  /** "prefetch qos, dwrr on (inc_factor 7), completion qos, q_promotion on", or "unchanged". */
  arbiters: string;
  /** Both the prefetch arbiter and DWRR set to QoS (seed 004 §8.6). */
  armed: boolean;
  rateLimit: string | null;
  queues: PlanQueueRow[];
}

function arbiterText(e: PlanEngine): string {
  const a = e.arbiters;
  const parts: string[] = [];
  if (a.prefetch) parts.push(`prefetch ${a.prefetch}`);
  if (a.s2mPrefetch) parts.push(`s2m prefetch ${a.s2mPrefetch}`);
  if (a.dwrr) {
    const extra = [
      a.dwrr.incFactor !== undefined ? `inc_factor ${a.dwrr.incFactor}` : '',
      a.dwrr.weightInc !== undefined ? `weight_inc ${a.dwrr.weightInc}` : '',
      a.dwrr.packetMode !== undefined ? (a.dwrr.packetMode ? 'packet mode' : 'byte mode') : '',
    ].filter(Boolean);
    parts.push(
      `dwrr ${a.dwrr.enabled ? 'on' : 'off'}${extra.length ? ` (${extra.join(', ')})` : ''}`,
    );
  }
  if (a.completion) parts.push(`completion ${a.completion}`);
  if (a.qPromotion !== undefined) parts.push(`q_promotion ${a.qPromotion ? 'on' : 'off'}`);
  return parts.length ? parts.join(', ') : 'unchanged';
}

function rateText(r: {
  enabled: boolean;
  maxBurst?: number;
  pause?: boolean;
  refill?: number;
  longCycle?: number;
  longRefill?: number;
}): string {
  return [
    r.enabled ? 'on' : 'off',
    r.maxBurst !== undefined ? `burst ${r.maxBurst}` : '',
    r.refill !== undefined ? `refill ${r.refill}/short cycle` : '',
    r.longRefill !== undefined ? `+${r.longRefill}/long cycle` : '',
    r.longCycle !== undefined ? `long cycle ${r.longCycle}` : '',
    r.pause ? 'paused' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** One table per engine of the plan (optionally only `engines`). */
export function describeQosPlan(
  plan: QosPlanInput | QosPlan,
  engines?: readonly number[],
): PlanEngineTable[] {
  const p = readQosPlan(plan);
  return p.engines
    .filter((e) => !engines || engines.includes(e.engine))
    .map((e) => {
      const rl = e.rateLimit;
      const rlParts = rl
        ? [
            rl.shortCycleSize !== undefined ? `short_cycle ${rl.shortCycleSize}` : '',
            rl.packetMode !== undefined ? (rl.packetMode ? 'packet mode' : 'byte mode') : '',
            rl.stream ? `stream ${rateText(rl.stream)}` : '',
          ].filter(Boolean)
        : [];
      return {
        engine: e.engine,
        arbiters: arbiterText(e),
        armed: e.arbiters.prefetch === 'qos' && e.arbiters.dwrr?.enabled === true,
        rateLimit: rlParts.length ? rlParts.join(', ') : null,
        queues: e.queues.map((q): PlanQueueRow => {
          const cls = q.class !== undefined ? DMAQoSClass[q.class] : undefined;
          const v = cls !== undefined ? defaultQueueQos(cls) : undefined;
          return {
            queue: q.queue,
            class: q.class ?? (q.qos ? 'explicit' : '-'),
            priorityClass: cls !== undefined ? toPriorityClass(cls) : null,
            axiQos: v?.axiQos ?? q.qos?.axiQos ?? null,
            qQos: v?.qQos ?? q.qos?.qQos ?? null,
            weight: v?.weight ?? q.qos?.weight ?? null,
            highPriority: v?.highPriority ?? q.qos?.highPriority ?? null,
            s2mAxiQos: q.s2mAxiQos ?? null,
            rateLimit: q.rateLimit ? rateText(q.rateLimit) : null,
          };
        }),
      };
    });
}
