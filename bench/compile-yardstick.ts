/**
 * The yardstick of the compile passes: the same bindings (DGE route, trigger engine and sub id,
 * HWDGE engine, queue, transpose chain and xbar edges, switch count) computed by two fused loops
 * over typed arrays, one column per instruction field, instead of the passes' walks over the IR's
 * objects. `yardstickInput` lays a module out in columns (not timed); `runYardstick` is the timed
 * part; `checkYardstick` compares its bindings with the compiled module, so the yardstick cannot
 * drift from what the passes compute.
 *
 * It covers what the bench program uses (ArchLevel <= 49, no dynamic access patterns, no
 * accumulating Activation, no preset routes) and reports no errors; a routing key is computed once
 * (getDGEInstructionType on its first DMA, as the passes' RouteMemo does) before timing.
 */
import {
  DGEType,
  DMAKind,
  DMAQueueType,
  EdgeKind,
  EngineType,
  InstructionType,
  MemoryType,
  TensorKind,
  TransposeKind,
} from '../compiler/ir/enums.ts';
import type { Module } from '../compiler/ir/module.ts';
import { isDMAFamily, isTensorKindInput, isTensorKindOutput } from '../compiler/ir/predicates.ts';
import { kind2QueType } from '../compiler/passes/alloc-queues.ts';
import { getDGEInstructionType, routeFirst } from '../compiler/passes/dge-route.ts';

/** A module laid out in columns (program order), plus the output columns the loops fill. */
export interface YardstickInput {
  n: number;
  arch: number;
  numDmaEngines: number;
  hwmDmaEngines: number;
  limitIoQueues: boolean;
  op: Uint8Array;
  block: Int32Array;
  /** 1 for the first instruction of a block. */
  blockStart: Uint8Array;
  blockIsLoop: Uint8Array;
  dma: Uint8Array;
  transpose: Uint8Array;
  dmaKind: Uint8Array;
  qos: Uint8Array;
  dmaEngines: Int32Array;
  srcTensor: Int32Array;
  dstTensor: Int32Array;
  /** Compute / collective: the first tensor written and read (-1: none). */
  writes: Int32Array;
  reads: Int32Array;
  /** The route of each DMA's key (computed once per key before timing). */
  route: Uint8Array;
  tensorKind: Uint8Array;
  tensorMem: Uint8Array;
  /** The engine and sub id each instruction starts with. */
  engine0: Uint8Array;
  subId0: Uint8Array;
  // outputs (each run starts them afresh)
  engine: Uint8Array;
  subId: Uint8Array;
  dgeType: Uint8Array;
  queue: Int32Array;
  edgeFrom: Int32Array;
  edgeOn: Int32Array;
  edgeKind: Uint8Array;
  edges: number;
  switches: number;
  queues: number;
  /** The instruction index of each program instruction id (the module's ids). */
  ids: Int32Array;
}

/** Lays a module (before compile) out in columns. */
export function yardstickInput(m: Module): YardstickInput {
  let n = 0;
  for (const f of m.functions) for (const bb of f.blocks) n += bb.ids().length;
  const T = m.tensors.length;
  if (m.arch < 30 || m.arch > 49) throw new Error('the compile yardstick covers ArchLevel 30..49');
  const y: YardstickInput = {
    n,
    arch: m.arch,
    numDmaEngines: m.options.numDmaEngines,
    hwmDmaEngines: m.options.hwmDmaEngines,
    limitIoQueues: m.options.limitIoQueues,
    op: new Uint8Array(n),
    block: new Int32Array(n),
    blockStart: new Uint8Array(n),
    blockIsLoop: new Uint8Array(n),
    dma: new Uint8Array(n),
    transpose: new Uint8Array(n),
    dmaKind: new Uint8Array(n),
    qos: new Uint8Array(n),
    dmaEngines: new Int32Array(n),
    srcTensor: new Int32Array(n).fill(-1),
    dstTensor: new Int32Array(n).fill(-1),
    writes: new Int32Array(n).fill(-1),
    reads: new Int32Array(n).fill(-1),
    route: new Uint8Array(n),
    tensorKind: new Uint8Array(T),
    tensorMem: new Uint8Array(T),
    engine0: new Uint8Array(n),
    subId0: new Uint8Array(n),
    engine: new Uint8Array(n),
    subId: new Uint8Array(n),
    dgeType: new Uint8Array(n),
    queue: new Int32Array(n),
    edgeFrom: new Int32Array(2 * n),
    edgeOn: new Int32Array(2 * n),
    edgeKind: new Uint8Array(2 * n),
    edges: 0,
    switches: 0,
    queues: 0,
    ids: new Int32Array(n),
  };
  for (const t of m.tensors) {
    y.tensorKind[t.id] = t.kind;
    y.tensorMem[t.id] = t.memType;
  }
  const routeOfKey = new Map<string, number>();
  let i = 0;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      // through the block's ids (fetching bb.instrs would make the compile rebuild them)
      bb.ids().forEach((id, k) => {
        const I = m.instrs[id];
        y.ids[i] = I.id;
        y.op[i] = I.op;
        y.block[i] = bb.index;
        y.blockStart[i] = k === 0 ? 1 : 0;
        y.blockIsLoop[i] = bb.isLoopBody ? 1 : 0;
        y.dma[i] = isDMAFamily(I.op) ? 1 : 0;
        y.transpose[i] = I.transpose;
        y.dmaKind[i] = I.dmaKind;
        y.qos[i] = I.qos;
        y.dmaEngines[i] = I.dmaEngines;
        y.engine0[i] = I.engine;
        y.subId0[i] = I.subId;
        if (I.src !== null) y.srcTensor[i] = I.src.tensor.id;
        if (I.dst !== null) y.dstTensor[i] = I.dst.tensor.id;
        if ((I.writes?.length ?? 0) > 1 || (I.reads?.length ?? 0) > 1 || I.accumulate)
          throw new Error('the compile yardstick covers one-tensor computes and collectives');
        if (I.dst !== null && I.dst.tensor.memType === MemoryType.RemoteSB)
          throw new Error('the compile yardstick covers no remote-SB pushes');
        if (I.dgeType !== DGEType.Unassigned || (I.src?.isDynamic() ?? false))
          throw new Error('the compile yardstick covers no preset routes or dynamic patterns');
        if (I.writes !== null && I.writes.length > 0) y.writes[i] = I.writes[0].id;
        if (I.reads !== null && I.reads.length > 0) y.reads[i] = I.reads[0].id;
        if (y.dma[i] && I.src !== null && I.dst !== null) {
          const key = `${I.op}/${I.transpose}/${I.dstReduce}/${I.src.shapeId}/${I.dst.shapeId}`;
          let r = routeOfKey.get(key);
          if (r === undefined) {
            r = routeFirst(
              getDGEInstructionType(
                I,
                m,
                m.options.considerDescNum,
                m.options.considerMinElems,
                () => {
                  throw new Error('the yardstick covers programs that compile without errors');
                },
              ),
            );
            routeOfKey.set(key, r);
          }
          y.route[i] = r;
        }
        i++;
      });
    }
  }
  return y;
}

/** The two fused loops; returns a checksum. */
export function runYardstick(y: YardstickInput): number {
  const { n, op, dma, srcTensor: src, dstTensor: dst, tensorKind: kind, tensorMem: mem } = y;
  const { engine, subId, dgeType, queue } = y;
  engine.set(y.engine0);
  subId.set(y.subId0);
  const T = kind.length;
  // loop 1: CC maps (first collective per storage), then route, trigger engine, HWDGE engine set
  const ccResult = new Int32Array(T).fill(-1);
  const ccArg = new Int32Array(T).fill(-1);
  for (let i = 0; i < n; i++) {
    if (op[i] !== InstructionType.CollectiveCompute) continue;
    if (y.writes[i] >= 0 && ccResult[y.writes[i]] < 0) ccResult[y.writes[i]] = i;
    if (y.reads[i] >= 0 && ccArg[y.reads[i]] < 0) ccArg[y.reads[i]] = i;
  }
  const lastWriter = new Int32Array(T).fill(-1);
  const writerBlock = new Int32Array(T).fill(-1);
  let engineSet = 0;
  for (let i = 0; i < n; i++) {
    if (dma[i]) {
      dgeType[i] = y.route[i];
      if (engine[i] === EngineType.DMA) {
        const s = src[i];
        const d = dst[i];
        const o = op[i];
        const c =
          o === InstructionType.Load || o === InstructionType.DMACopy
            ? ccResult[s] >= 0
              ? ccResult[s]
              : ccArg[s] >= 0
                ? ccArg[s]
                : ccResult[d] >= 0
                  ? ccResult[d]
                  : ccArg[d]
            : -1;
        if (c >= 0) {
          engine[i] = engine[c];
          subId[i] = subId[c];
        } else if (
          (o === InstructionType.DMACopy || o === InstructionType.Save) &&
          mem[s] !== MemoryType.DRAM &&
          mem[d] === MemoryType.DRAM &&
          !isTensorKindOutput(kind[d] as TensorKind) &&
          writerBlock[s] === y.block[i]
        ) {
          const w = lastWriter[s];
          engine[i] = engine[w];
          subId[i] = subId[w];
        }
      }
      if (dgeType[i] === DGEType.HWDGE) engineSet |= 1 << engine[i];
    }
    const t = dst[i] >= 0 ? dst[i] : y.writes[i];
    if (t >= 0) {
      lastWriter[t] = i;
      writerBlock[t] = y.block[i];
    }
  }
  // loop 2: IO-queue limiting, HWDGE engine, queue, transpose chains, xbar ordering, switches
  const limit = y.limitIoQueues || (engineSet & (engineSet - 1)) !== 0;
  const queueOfKey = new Map<number, number>();
  const queueType: number[] = [];
  const lastOnQueue = new Int32Array(1024).fill(-1);
  const queueBlock = new Int32Array(1024).fill(-1);
  const seenInBlock = new Int32Array(1024).fill(-1);
  let lastXbar = -1;
  let lastColl = -1;
  let justColl = false;
  let edges = 0;
  let switches = 0;
  const N = y.numDmaEngines;
  for (let i = 0; i < n; i++) {
    const b = y.block[i];
    if (y.blockStart[i]) {
      lastXbar = -1;
      lastColl = -1;
      justColl = false;
    }
    if (op[i] === InstructionType.CollectiveCompute) {
      if (y.writes[i] >= 0 && mem[y.writes[i]] === MemoryType.SB) {
        if (lastXbar >= 0) edges = edge(y, edges, i, lastXbar, EdgeKind.Ordered);
        lastColl = i;
        justColl = true;
      }
      continue;
    }
    if (!dma[i]) continue;
    const s = src[i];
    const d = dst[i];
    const ks = kind[s] as TensorKind;
    const kd = kind[d] as TensorKind;
    const io =
      isTensorKindInput(ks) ||
      isTensorKindOutput(ks) ||
      isTensorKindInput(kd) ||
      isTensorKindOutput(kd);
    const hw = dgeType[i] === DGEType.HWDGE;
    if (limit && io && !(hw && (engine[i] & ~EngineType.DMA) !== 0)) {
      engine[i] = EngineType.SP;
      subId[i] = 0;
    }
    const valid =
      (engine[i] === EngineType.SP || engine[i] === EngineType.Activation) && subId[i] === 0;
    if (hw && !(y.dmaKind[i] === DMAKind.DGE && valid)) {
      const e = engine[i];
      if (e === EngineType.DMA || e <= EngineType.Pool) engine[i] = EngineType.SP;
      else if (e === EngineType.Activation || e === EngineType.DVE)
        engine[i] = EngineType.Activation;
      if (e !== EngineType.SP) subId[i] = 0;
    }
    // the queue: endpoint kind, QoS, engine counts, owning engine (SP for DGE routes below v5)
    const ep = mem[s] === MemoryType.DRAM ? s : mem[d] === MemoryType.DRAM ? d : s;
    const type = kind2QueType(kind[ep] as TensorKind);
    const k = kind[ep];
    const fan =
      k === TensorKind.Output || k === TensorKind.Const
        ? y.hwmDmaEngines
        : Math.min(y.dmaEngines[i] > 0 ? y.dmaEngines[i] : N, N);
    let qe = engine[i];
    let qs = subId[i];
    if (qe === EngineType.DMA || dgeType[i] === DGEType.SWDGE || hw) {
      qe = EngineType.SP;
      qs = 0;
    }
    const key = (((qe * 256 + qs) * 16 + type) * 32 + y.qos[i]) * 2048 + fan;
    let q = queueOfKey.get(key);
    if (q === undefined) {
      q = queueType.length;
      queueType.push(type);
      queueOfKey.set(key, q);
    }
    queue[i] = q;
    // transpose chains per queue and block; xbar transposes after / before SB collectives
    if (y.transpose[i] !== TransposeKind.none) {
      if (queueBlock[q] === b) edges = edge(y, edges, i, lastOnQueue[q], EdgeKind.Output);
      lastOnQueue[q] = i;
      queueBlock[q] = b;
      if (y.transpose[i] === TransposeKind.xbar) {
        if (justColl && lastColl >= 0) {
          edges = edge(y, edges, i, lastColl, EdgeKind.Ordered);
          justColl = false;
        }
        lastXbar = i;
      }
    }
    // one switch per DATA queue a non-loop block uses
    if (seenInBlock[q] !== b) {
      seenInBlock[q] = b;
      if (!y.blockIsLoop[i] && type === DMAQueueType.data) switches++;
    }
  }
  y.edges = edges;
  y.switches = switches;
  y.queues = queueType.length;
  return edges + switches + queueType.length;
}

function edge(y: YardstickInput, e: number, from: number, on: number, kind: EdgeKind): number {
  y.edgeFrom[e] = from;
  y.edgeOn[e] = on;
  y.edgeKind[e] = kind;
  return e + 1;
}

/** Throws when the yardstick's bindings differ from the compiled module's. */
export function checkYardstick(y: YardstickInput, m: Module): void {
  const fail = (what: string) => {
    throw new Error(`compile yardstick: ${what} differs from the compiled module`);
  };
  for (let i = 0; i < y.n; i++) {
    const I = m.instrs[y.ids[i]];
    if (I.engine !== y.engine[i] || I.subId !== y.subId[i]) fail(`the engine of #${I.id}`);
    if (!y.dma[i]) continue;
    if (I.dgeType !== y.dgeType[i]) fail(`the route of #${I.id}`);
    if (I.queue === null || I.queue.index !== y.queue[i]) fail(`the queue of #${I.id}`);
  }
  if (m.edges.count !== y.edges) fail(`the edge count (${m.edges.count} vs ${y.edges})`);
  if (m.queues.length !== y.queues) fail('the queue count');
  let switches = 0;
  for (const I of m.instrs) if (I.op === InstructionType.SwitchQueueInstance) switches++;
  if (switches !== y.switches) fail(`the switch count (${switches} vs ${y.switches})`);
}
