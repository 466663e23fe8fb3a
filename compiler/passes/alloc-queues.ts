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
import { type TensorFacts, tensorFacts } from '../ir/columns.ts';
import type { DmaQueue, Instr, Module } from '../ir/module.ts';
import { isDMAFamily, isTensorKindInput, isTensorKindOutput } from '../ir/predicates.ts';
import { isCoreV5 } from '../ir/target.ts';
import { type ErrorSink, type Pass, type PassContext, instLabel, keepShape } from './pass.ts';

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
 * Returns the tensor id of instruction `id`'s endpoint (read from the columns), or -1.
 */
export function queueEndpoint(m: Module, tf: TensorFacts, id: number): number {
  const s = m.columns.srcTensor[id];
  const d = m.columns.dstTensor[id];
  if (s !== -1 && d !== -1) {
    if (tf.mem[s] === MemoryType.DRAM) return s;
    if (tf.mem[d] === MemoryType.DRAM) return d;
    return s;
  }
  return m.columns.write0[id];
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
  return determineEngineAt(I.id, t, arch, m, err);
}

/** determineEngine on instruction `id`, read from the instruction columns. */
export function determineEngineAt(
  id: number,
  t: QueueTuple,
  arch: number,
  m: Module,
  err: ErrorSink,
): boolean {
  const c = m.columns;
  const engine = c.engine[id];
  if (engine === EngineType.Unassigned) {
    err('NO_ENGINE_ASSIGNED', id, `no engine assigned to ${instLabel(m, id)}`);
    return false;
  }
  if (t.type === DMAQueueType.dynamic) {
    t.engine = EngineType.Pool;
    t.subId = 0;
  } else if (engine === EngineType.DMA) {
    t.engine = EngineType.SP;
    t.subId = 0;
  } else {
    t.engine = engine as EngineType;
    t.subId = c.subId[id];
    const route = c.dgeType[id];
    if (isDMAFamily(c.op[id]) && (route === DGEType.SWDGE || route === DGEType.HWDGE)) {
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
  return findQueueTupleAt(I.id, m, tensorFacts(m), err, out);
}

/** findQueueTuple on instruction `id`, read from the instruction columns. */
export function findQueueTupleAt(
  id: number,
  m: Module,
  tf: TensorFacts,
  err: ErrorSink,
  out: QueueTuple,
): QueueTuple | null {
  const ep = queueEndpoint(m, tf, id);
  if (ep === -1) return null;
  const kind = tf.kind[ep] as TensorKind;
  const type = kind2QueType(kind);
  if (type === -1) {
    err(
      'UNEXPECTED_TENSOR_KIND',
      id,
      `${instLabel(m, id)}: Unexpected tensor kind ${TENSOR_KIND_NAMES[kind]} (tensor "${m.tensors[ep].name}")`,
    );
    return null;
  }
  const c = m.columns;
  const n = m.options.numDmaEngines;
  const fan = c.dmaEngines[id];
  out.type = type;
  out.qos = c.qos[id] as DMAQoSClass;
  out.numDmaEngines = n;
  out.dmaEngines = Math.min(fan > 0 ? fan : n, n); // the engine-count clamp
  if (kind === TensorKind.Output || kind === TensorKind.Const)
    out.dmaEngines = m.options.hwmDmaEngines;
  if (!determineEngineAt(id, out, m.arch, m, err)) return null;
  return out;
}

/**
 * The queue index of recently seen tuples: a direct-mapped table whose slots hold a tuple's fields
 * (numDmaEngines is the module's, the same for every tuple) and its queue; a lookup compares every
 * field, so a hit is exact, and allocates nothing.
 */
class TupleTable {
  private readonly fields = new Int32Array(64 * 5);
  private readonly queue = new Int32Array(64).fill(-1);

  constructor() {
    keepShape(TupleTable, () => new TupleTable()); // the table's shape outlives each compile
  }

  private slot(t: QueueTuple): number {
    const h =
      Math.imul(t.engine * 31 + t.subId, 0x9e3779b1) ^ Math.imul(t.type * 37 + t.qos, 0x85ebca6b);
    return ((h ^ (h >>> 16) ^ t.dmaEngines) >>> 0) & 63;
  }

  /** The queue index held for `t`, or -1. */
  get(t: QueueTuple): number {
    const k = this.slot(t);
    const f = this.fields;
    const b = k * 5;
    if (this.queue[k] === -1) return -1;
    if (f[b] !== t.engine || f[b + 1] !== t.subId || f[b + 2] !== t.type) return -1;
    if (f[b + 3] !== t.qos || f[b + 4] !== t.dmaEngines) return -1;
    return this.queue[k];
  }

  set(t: QueueTuple, q: number): void {
    const k = this.slot(t);
    const b = k * 5;
    this.fields[b] = t.engine;
    this.fields[b + 1] = t.subId;
    this.fields[b + 2] = t.type;
    this.fields[b + 3] = t.qos;
    this.fields[b + 4] = t.dmaEngines;
    this.queue[k] = q;
  }
}

/**
 * The queue of each DMA key seen in the pass: the tuple of a DMA with both patterns is a function
 * of its source and destination tensors (the endpoint and its kind), engine, sub id, route, QoS
 * and fan-out (the module's counts and arch are the same for every DMA), so DMAs with equal keys
 * share a queue. A direct-mapped table compared field by field (a hit is exact); a key whose
 * tuple reported an error is never held.
 */
class QueueMemo {
  private readonly fields = new Int32Array(256 * 5);
  private readonly queue = new Int32Array(256).fill(-1);

  constructor() {
    keepShape(QueueMemo, () => new QueueMemo()); // the memo's shape outlives each compile
  }

  /** The slot of a key: src, dst, flavours (engine | route << 8 | qos << 16), sub id, fan-out. */
  slot(src: number, dst: number, flav: number, sub: number, fan: number): number {
    const h = Math.imul(src * 977 + dst, 0x9e3779b1) ^ Math.imul(flav * 31 + sub, 0x85ebca6b);
    return ((h ^ (h >>> 15) ^ fan) >>> 0) & 255;
  }

  /** The queue index held in slot `k` for the key, or -1. */
  get(k: number, src: number, dst: number, flav: number, sub: number, fan: number): number {
    const f = this.fields;
    const b = k * 5;
    if (f[b] !== src || f[b + 1] !== dst || f[b + 2] !== flav) return -1;
    if (f[b + 3] !== sub || f[b + 4] !== fan) return -1;
    return this.queue[k];
  }

  set(
    k: number,
    src: number,
    dst: number,
    flav: number,
    sub: number,
    fan: number,
    q: number,
  ): void {
    const b = k * 5;
    this.fields[b] = src;
    this.fields[b + 1] = dst;
    this.fields[b + 2] = flav;
    this.fields[b + 3] = sub;
    this.fields[b + 4] = fan;
    this.queue[k] = q;
  }
}

export const allocQueues: Pass = {
  name: 'alloc_queues',
  order: 124,
  summary: 'bind every DMA to a DMAQueue, deduplicated by QueueTuple full name',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const err = ctx.error;
    // A numeric cache of the full name: the name is an injective function of these fields, so equal
    // keys mean equal names; the name map stays the authority (getQueueByName on a miss). In
    // front of it, a table of the tuples seen compared field by field (no key built per DMA).
    const cache = new Map<number, DmaQueue>();
    const seen = new TupleTable();
    const t: QueueTuple = { engine: 0, subId: 0, type: 0, qos: 0, numDmaEngines: 0, dmaEngines: 0 };
    let created = 0;
    let queued = 0;
    let alreadyQueued = 0;
    let activationQueues = 0;

    const tf = tensorFacts(m);
    const c = m.columns;
    const findQueue = (id: number): DmaQueue | null => {
      if (findQueueTupleAt(id, m, tf, err, t) === null) return null;
      const hit = seen.get(t);
      if (hit !== -1) return m.queues[hit];
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
      seen.set(t, q.index);
      return q;
    };

    // the queue of each DMA key (src, dst, engine, route, QoS, sub id, fan-out) seen so far
    const memo = new QueueMemo();
    const { op: ops, queue, queueType, srcTensor, dstTensor, engine, subId, dgeType, qos } = c;
    for (const f of m.functions) {
      for (const bb of f.blocks) {
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          const op = ops[id];
          if (op === InstructionType.Activation) {
            // visitInstActivation: the accumulator dump drives a DMA on a queue; not bound
            if (c.accumulate[id] === 1 && findQueue(id) !== null) activationQueues++;
            continue;
          }
          if (!isDMAFamily(op)) continue;
          let q: DmaQueue | null;
          const s = srcTensor[id];
          const d = dstTensor[id];
          if (queue[id] !== -1) {
            q = m.queues[queue[id]];
            alreadyQueued++;
          } else if (s !== -1 && d !== -1) {
            const flav = engine[id] | (dgeType[id] << 8) | (qos[id] << 16);
            const sub = subId[id];
            const fan = c.dmaEngines[id];
            const k = memo.slot(s, d, flav, sub, fan);
            const hit = memo.get(k, s, d, flav, sub, fan);
            if (hit !== -1) q = m.queues[hit];
            else {
              q = findQueue(id);
              if (q !== null) memo.set(k, s, d, flav, sub, fan, q.index);
            }
          } else q = findQueue(id);
          if (q === null) continue;
          q.instructions++; // the "Num instructions" census
          queue[id] = q.index;
          queueType[id] = q.type; // the queue-type stamp
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
