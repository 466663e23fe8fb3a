/**
 * Where each DMAQueue of a compiled program lives on the device: one (UDMA engine, queue id) pair
 * per queue (docs/flow.md "queue -> (engine, qid)").
 *
 * alloc_queues gives every queue an owner, the compute engine that triggers it (EngineType and sub
 * id: SP:0, Activation:0, Pool:0, ...). nxdma gives each owner one UDMA engine and numbers the
 * owner's queues on it in creation order:
 *
 *   engine = 16 * (EngineType - 1) + subId    Pool 0.., Activation 16.., PE 32.., DMA 48..,
 *                                             DVE 64.., SP 80..   (trn2 SENG 0-2, 128 engines)
 *   qid    = the queue's rank among its owner's queues (0..15)
 *
 * The mapping depends only on the program, so a report names the same rings every run, and two
 * owners never share an engine. An owner with a sub id above 15, or with more than 16 queues, has
 * no place: LOWER_ERROR.
 */
import { NxdmaError } from '../common/errors.ts';
import { ENGINE_TYPE_NAMES } from '../compiler/ir/enums.ts';
import type { DmaQueue, Module } from '../compiler/ir/module.ts';

/** Queues per UDMA engine (M2S_Q / S2M_Q instances). */
export const QUEUES_PER_ENGINE = 16;
/** UDMA engines reserved per compute-engine type. */
export const ENGINES_PER_OWNER_TYPE = 16;

export interface QueuePlacement {
  queue: DmaQueue;
  /** UDMA engine id of the device profile. */
  engine: number;
  /** Queue index on that engine (M2S_Q[qid] / S2M_Q[qid]). */
  qid: number;
}

/** The UDMA engine of an owner (EngineType, sub id). */
export function ownerEngine(engineType: number, subId: number): number {
  return ENGINES_PER_OWNER_TYPE * (engineType - 1) + subId;
}

/** Places every queue of the module (indexed like module.queues). */
export function mapQueues(m: Module): QueuePlacement[] {
  const perOwner = new Map<number, number>();
  return m.queues.map((queue) => {
    const owner = `${ENGINE_TYPE_NAMES[queue.engine]}:${queue.subId}`;
    if (queue.engine < 1 || queue.subId >= ENGINES_PER_OWNER_TYPE) {
      throw new NxdmaError(
        'LOWER_ERROR',
        `queue "${queue.name}": its owner ${owner} has no UDMA engine (sub ids 0..${ENGINES_PER_OWNER_TYPE - 1} of an assigned engine type)`,
        {
          where: `queue ${queue.name}`,
          expected: `an owner with sub id < ${ENGINES_PER_OWNER_TYPE}`,
          actual: owner,
        },
      );
    }
    const engine = ownerEngine(queue.engine, queue.subId);
    const qid = perOwner.get(engine) ?? 0;
    if (qid >= QUEUES_PER_ENGINE) {
      throw new NxdmaError(
        'LOWER_ERROR',
        `queue "${queue.name}": owner ${owner} already has ${QUEUES_PER_ENGINE} queues on UDMA engine ${engine}`,
        {
          where: `queue ${queue.name}`,
          expected: `<= ${QUEUES_PER_ENGINE} queues per owner`,
          actual: qid + 1,
        },
      );
    }
    perOwner.set(engine, qid + 1);
    return { queue, engine, qid };
  });
}
