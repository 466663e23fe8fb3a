/**
 * alloc_queues (seed 003, pipeline order 124): binds every DMA-family instruction to a DMAQueue.
 * Each DMA derives a QueueTuple (engine identity, DMAQueue::Type, QoS class and the two engine-count
 * fields); QueueTuple::getFullName() flattens it to a string and Module::getQueueByName(name) is the
 * dedup: two DMAs share a queue exactly when their full names are equal. No counter, no round
 * robin: the number of queues is the number of distinct full names.
 *
 * An Activation with its accumulator-dump flag set also finds (creates or reuses) a queue, but is
 * not bound to it (seed 003 visitInstActivation).
 */
import {
  DGEType,
  DMAQueueType,
  DMA_QUEUE_TYPE_NAMES,
  ENGINE_TYPE_NAMES,
  EngineType,
  InstructionType,
  MemoryType,
  TENSOR_KIND_NAMES,
  TensorKind,
  qosClassName,
  type DMAQoSClass,
} from '../ir/enums.ts';
import type { DmaQueue, Instr, Module, Tensor } from '../ir/module.ts';
import { isDMAFamily, isTensorKindInput, isTensorKindOutput } from '../ir/predicates.ts';
import { isCoreV5 } from '../ir/target.ts';
import { type ErrorSink, type Pass, type PassContext, instLabel } from './pass.ts';

/** A QueueTuple: what identifies a queue. */
export interface QueueTuple {
  engine: EngineType;
  subId: number;
  type: DMAQueueType;
  qos: DMAQoSClass;
  /** +0x24: the module's DMA-engine count. */
  numDmaEngines: number;
  /** +0x28: DMA engines the queue may spread over (clamped; the HWM for Output / Const). */
  dmaEngines: number;
}

/** kind2QueType(TensorKind): 6, 7, 9 -> data; input kinds -> input; output kinds -> output. */
export function kind2QueType(kind: TensorKind): DMAQueueType | -1 {
  if (kind === TensorKind.Internal || kind === TensorKind.Scratch) return DMAQueueType.data;
  if (kind === TensorKind.Spill) return DMAQueueType.data;
  if (isTensorKindInput(kind)) return DMAQueueType.input;
  if (isTensorKindOutput(kind)) return DMAQueueType.output;
  return -1; // assert(0 && "Unexpected tensor kind")
}

/**
 * The storage that names the DMA endpoint in findQueueTuple: the first DRAM side (source, then
 * destination), else the source. An accumulating Activation's endpoint is the tensor it dumps to.
 */
export function queueEndpoint(I: Instr): Tensor | null {
  if (I.src !== null && I.dst !== null) {
    if (I.src.tensor.memType === MemoryType.DRAM) return I.src.tensor;
    if (I.dst.tensor.memType === MemoryType.DRAM) return I.dst.tensor;
    return I.src.tensor;
  }
  return I.writes !== null && I.writes.length > 0 ? I.writes[0] : null;
}

/**
 * determineEngine: which engine owns the queue.
 *  - Unassigned engine: the reportError pre-check;
 *  - a dynamic-type queue -> Pool (engine 1); unreachable through kind2QueType, kept as quoted;
 *  - a DMA still on EngineType::DMA -> SP (6);
 *  - an SWDGE / HWDGE DMA -> SP (6) for ArchLevel <= 49; on core_v5 it keeps its own engine, so
 *    assign_hwdge_engine's round robin reaches the queues (docs/compiler.md "determineEngine");
 *  - otherwise the instruction's own engine and sub id.
 * Returns false when it reported an error.
 */
export function determineEngine(
  I: Instr,
  t: QueueTuple,
  arch: number,
  m: Module,
  err: ErrorSink,
): boolean {
  if (I.engine === EngineType.Unassigned) {
    err('NO_ENGINE_ASSIGNED', I.id, `no engine assigned to ${instLabel(m, I.id)}`);
    return false;
  }
  if (t.type === DMAQueueType.dynamic) {
    t.engine = EngineType.Pool;
    t.subId = 0;
  } else if (I.engine === EngineType.DMA) {
    t.engine = EngineType.SP;
    t.subId = 0;
  } else {
    t.engine = I.engine;
    t.subId = I.subId;
    if (isDMAFamily(I.op) && (I.dgeType === DGEType.SWDGE || I.dgeType === DGEType.HWDGE)) {
      if (!isCoreV5(arch)) {
        t.engine = EngineType.SP;
        t.subId = 0;
      }
    }
  }
  return true;
}

/** QueueTuple::getFullName(): the dedup key, e.g. "SP:0/input/P3/16/16". */
export function queueFullName(t: QueueTuple): string {
  return `${ENGINE_TYPE_NAMES[t.engine]}:${t.subId}/${DMA_QUEUE_TYPE_NAMES[t.type]}/${qosClassName(t.qos)}/${t.numDmaEngines}/${t.dmaEngines}`;
}

/**
 * findQueueTuple: fillQueueTuple (type from the endpoint's TensorKind, QoS, the engine-count
 * clamp, the HWM override for Output / Const) and determineEngine. Null when an error was reported.
 */
export function findQueueTuple(
  I: Instr,
  m: Module,
  err: ErrorSink,
  out: QueueTuple,
): QueueTuple | null {
  const ep = queueEndpoint(I);
  if (ep === null) return null;
  const type = kind2QueType(ep.kind);
  if (type === -1) {
    err(
      'UNEXPECTED_TENSOR_KIND',
      I.id,
      `${instLabel(m, I.id)}: Unexpected tensor kind ${TENSOR_KIND_NAMES[ep.kind]} (tensor "${ep.name}")`,
    );
    return null;
  }
  const n = m.options.numDmaEngines;
  out.type = type;
  out.qos = I.qos;
  out.numDmaEngines = n;
  out.dmaEngines = Math.min(I.dmaEngines > 0 ? I.dmaEngines : n, n); // the engine-count clamp
  if (ep.kind === TensorKind.Output || ep.kind === TensorKind.Const)
    out.dmaEngines = m.options.hwmDmaEngines;
  if (!determineEngine(I, out, m.arch, m, err)) return null;
  return out;
}

export const allocQueues: Pass = {
  name: 'alloc_queues',
  order: 124,
  summary: 'bind every DMA to a DMAQueue, deduplicated by QueueTuple full name',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const err = ctx.error;
    // A numeric cache of the full name: the name is an injective function of these fields, so equal
    // keys mean equal names; the name map stays the authority (getQueueByName on a miss).
    const cache = new Map<number, DmaQueue>();
    const t: QueueTuple = { engine: 0, subId: 0, type: 0, qos: 0, numDmaEngines: 0, dmaEngines: 0 };
    let created = 0;
    let queued = 0;
    let alreadyQueued = 0;
    let activationQueues = 0;

    const findQueue = (I: Instr): DmaQueue | null => {
      if (findQueueTuple(I, m, err, t) === null) return null;
      const key = (((t.engine * 256 + t.subId) * 16 + t.type) * 32 + t.qos) * 2048 + t.dmaEngines;
      let q = cache.get(key);
      if (q === undefined) {
        const name = queueFullName(t);
        q = m.getQueueByName(name);
        if (q === undefined) {
          q = m.addQueue(name, t.type, t.engine, t.subId, t.qos, t.numDmaEngines, t.dmaEngines);
          created++;
        }
        cache.set(key, q);
      }
      return q;
    };

    for (const f of m.functions) {
      for (const bb of f.blocks) {
        const instrs = bb.instrs;
        for (let i = 0; i < instrs.length; i++) {
          const I = instrs[i];
          const op = I.op;
          if (op === InstructionType.Activation) {
            // visitInstActivation: the accumulator dump drives a DMA on a queue; not bound
            if (I.accumulate && findQueue(I) !== null) activationQueues++;
            continue;
          }
          if (!isDMAFamily(op)) continue;
          let q = I.queue;
          if (q !== null) alreadyQueued++;
          else q = findQueue(I);
          if (q === null) continue;
          q.instructions++; // the "Num instructions" census
          I.queue = q;
          I.queueType = q.type; // the queue-type stamp
          queued++;
        }
      }
    }
    ctx.notes.push(`Num Queues: ${m.queues.length}, Num instructions: ${queued}`);
    Object.assign(ctx.counters, {
      queues: m.queues.length,
      created,
      queued,
      alreadyQueued,
      activationQueues,
    });
  },
};
