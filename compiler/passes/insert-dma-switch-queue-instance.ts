/**
 * insert_dma_switch_queue_instance (seed 003, pipeline order 126): at the front of every basic
 * block that is not a loop body, one SwitchQueueInstance (IT 85) per DATA queue the block uses,
 * pointing the queue at a fresh instance so producers in different blocks do not overwrite each
 * other's in-flight descriptors. Loop bodies are skipped: a loop reuses one instance across
 * iterations. The switches keep the order in which the block first uses their queues
 * (docs/compiler.md "insert_dma_switch_queue_instance").
 */
import { DMAQueueType, DMA_QUEUE_TYPE_NAMES, InstructionType } from '../ir/enums.ts';
import { type Block, type DmaQueue, type Instr, type Module, placeAtFront } from '../ir/module.ts';
import type { ErrorSink, Pass, PassContext } from './pass.ts';

/**
 * The queues a block's instructions are bound to, in first-use order (getStaticDMAQueuesUsed),
 * read from the instruction columns.
 */
export function staticDMAQueuesUsed(
  m: Module,
  bb: Block,
  seen: Int32Array,
  gen: number,
): DmaQueue[] {
  const used: DmaQueue[] = [];
  const queue = m.columns.queue;
  const ids = bb.ids();
  for (let i = 0; i < ids.length; i++) {
    const q = queue[ids[i]];
    if (q !== -1 && seen[q] !== gen) {
      seen[q] = gen;
      used.push(m.queues[q]);
    }
  }
  return used;
}

/** Builds one SwitchQueueInstance {Q, Instance} for queue q in block bb (not yet placed). */
export function makeSwitchQueueInstance(
  m: Module,
  bb: Block,
  q: DmaQueue,
  err: ErrorSink,
): Instr | null {
  if (q.type !== DMAQueueType.data) {
    err(
      'SWITCH_QUEUE_NOT_DATA',
      null,
      `queue->getType() == DMAQueue::Type::DATA failed: queue "${q.name}" is ${DMA_QUEUE_TYPE_NAMES[q.type]}`,
    );
    return null;
  }
  const sqi = m.newInstr(
    InstructionType.SwitchQueueInstance,
    `${bb.name}_q${q.index}_sqi`,
    bb,
    q.engine,
    q.subId,
    false,
  );
  sqi.queue = q; // Q
  sqi.queueType = q.type;
  sqi.instance = q.instances++; // Instance: a fresh holder in q's dma_blocks
  return sqi;
}

export { placeAtFront };

export const insertDmaSwitchQueueInstance: Pass = {
  name: 'insert_dma_switch_queue_instance',
  order: 126,
  summary: 'insert one SwitchQueueInstance per DATA queue at the front of every non-loop block',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const seen = new Int32Array(m.queues.length);
    let gen = 0;
    let inserted = 0;
    let blocks = 0;
    let loopBodiesSkipped = 0;
    for (const f of m.functions) {
      for (const bb of f.blocks) {
        gen++;
        const queues = staticDMAQueuesUsed(m, bb, seen, gen);
        if (bb.isLoopBody) {
          loopBodiesSkipped++;
          continue;
        }
        blocks++;
        let front: Instr[] | null = null;
        for (const q of queues) {
          if (q.type !== DMAQueueType.data) continue; // only DATA queues get a switch
          const sqi = makeSwitchQueueInstance(m, bb, q, ctx.error);
          if (sqi === null) continue;
          (front ??= []).push(sqi);
          inserted++;
        }
        if (front !== null) bb.placeAtFront(front);
      }
    }
    Object.assign(ctx.counters, { inserted, blocks, loopBodiesSkipped });
  },
};
