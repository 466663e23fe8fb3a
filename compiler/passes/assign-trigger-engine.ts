/**
 * assign_trigger_engine (seed 000, pipeline order 110): picks the compute engine that triggers
 * each DMA. Only DMAs still on the abstract EngineType::DMA (4) are re-homed:
 *  - Load / DMACopy touching a collective's argument or result storage -> the collective's engine
 *    and sub id (tryAssignToCCEngine);
 *  - otherwise Save / DMACopy from on-chip memory to a DRAM tensor that is not a graph output ->
 *    the engine (and sub id) of the latest writer of its source earlier in the block
 *    (assignSaveToProducerEngine, the trigger-follows-producer rule);
 *  - the load -> consumer arm (assignLoadToConsumerEngine) stays unreachable, as in the binary.
 * Then the IO-queue limiting tail: when HWDGE DMAs use more than one engine (or the module forces
 * it), every IO DMA that is not an HWDGE DMA with an engine set moves to SP.
 *
 * The scheduled IDs and the CC maps are built in a first walk over the whole module, before any
 * engine moves (docs/compiler.md "assign_trigger_engine maps"): every instruction has its ID when a
 * writer is looked up, and a DMA that feeds a later collective finds it. The walk reads no engine,
 * so in a module without a collective it runs when a producer save first needs the IDs.
 */
import { type InstrColumns, type TensorFacts, tensorFacts } from '../ir/columns.ts';
import { DGEType, EngineType, InstructionType, MemoryType, type TensorKind } from '../ir/enums.ts';
import type { Instr, Module, Tensor } from '../ir/module.ts';
import {
  isDMAFamily,
  isHWDGEWithEngineSet,
  isIODMAAt,
  isTensorKindOutput,
} from '../ir/predicates.ts';
import { type ErrorSink, type Pass, type PassContext, instLabel } from './pass.ts';

/** The CC storage maps of AssignIdsAndCcLocs: tensor id -> the collective using it. */
export interface CcMaps {
  result: (Instr | null)[];
  arg: (Instr | null)[];
  /** The same maps as instruction ids (-1: none). */
  resultId: Int32Array;
  argId: Int32Array;
}

const NO_TENSORS: readonly Tensor[] = [];

/** CC maps with no storage of any collective, over `nT` tensors. */
function emptyCcMaps(nT: number): CcMaps {
  return {
    result: new Array<Instr | null>(nT).fill(null),
    arg: new Array<Instr | null>(nT).fill(null),
    resultId: new Int32Array(nT).fill(-1),
    argId: new Int32Array(nT).fill(-1),
  };
}

/** AssignIdsAndCcLocs over the whole module: scheduled IDs (walk order) and the CC maps. */
export function assignIdsAndCcLocs(m: Module): { idOf: Int32Array; cc: CcMaps } {
  const idOf = new Int32Array(m.instrs.length).fill(-1);
  const cc = emptyCcMaps(m.tensors.length);
  // record_cc_locations: DenseMap::insert keeps the first collective seen per storage
  const record = (map: Int32Array, objs: (Instr | null)[], t: number, id: number) => {
    if (map[t] === -1) {
      map[t] = id;
      objs[t] = m.instrs[id];
    }
  };
  let counter = 0;
  const c = m.columns;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const ids = bb.ids();
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        idOf[id] = counter++;
        if (c.op[id] === InstructionType.CollectiveCompute) {
          // one result and one argument are in the columns; longer lists on the instruction
          if (c.writes[id] === 1) record(cc.resultId, cc.result, c.write0[id], id);
          else
            for (const t of m.instrs[id].writes ?? NO_TENSORS)
              record(cc.resultId, cc.result, t.id, id);
          if (c.reads[id] === 1) record(cc.argId, cc.arg, c.read0[id], id);
          else for (const t of m.instrs[id].reads ?? NO_TENSORS) record(cc.argId, cc.arg, t.id, id);
        }
      }
    }
  }
  return { idOf, cc };
}

/**
 * tryAssignToCCEngine: Load / DMACopy touching CC storage take the collective's engine and sub id
 * (instruction `id`, read from and written to the columns).
 */
export function tryAssignToCCEngine(c: InstrColumns, id: number, cc: CcMaps): boolean {
  if (c.op[id] !== InstructionType.Load && c.op[id] !== InstructionType.DMACopy) return false;
  for (let k = 0; k < 2; k++) {
    const t = k === 0 ? c.srcTensor[id] : c.dstTensor[id];
    if (t < 0) continue;
    const cci = cc.resultId[t] !== -1 ? cc.resultId[t] : cc.argId[t];
    if (cci !== -1) {
      // `inst[+0x90] = cc[+0x90]`: +0x90 is written as one 64-bit store (seed 000: "+0x90 is
      // written as a 64-bit store"), engine id and +0x94 sub id together, so "the DMA and the CC
      // op share an engine queue" (docs/compiler.md "CC maps")
      c.engine[id] = c.engine[cci];
      c.subId[id] = c.subId[cci];
      return true;
    }
  }
  return false;
}

/** The direction filter of assignSaveToProducerEngine: on-chip -> DRAM, not a graph output. */
export function isProducerSave(c: InstrColumns, tf: TensorFacts, id: number): boolean {
  if (c.op[id] !== InstructionType.DMACopy && c.op[id] !== InstructionType.Save) return false;
  const s = c.srcTensor[id];
  const d = c.dstTensor[id];
  if (s < 0 || d < 0) return false;
  return (
    tf.mem[s] !== MemoryType.DRAM &&
    tf.mem[d] === MemoryType.DRAM &&
    !isTensorKindOutput(tf.kind[d] as TensorKind)
  );
}

/**
 * The seed's literal selection over getWritersFromBB: the writer with the latest scheduled ID
 * strictly before the DMA's own. A writer without an ID is the "has not assigned ID yet"
 * invariant violation. The pass itself keeps the last writer per tensor as it walks the block,
 * which selects the same writer in O(1); this function is the reference the tests compare with.
 */
export function latestWriterBefore(
  I: Instr,
  writers: readonly Instr[],
  idOf: Int32Array,
  m: Module,
  err: ErrorSink,
): Instr | null {
  const own = idOf[I.id];
  let best = -Infinity;
  let cand: Instr | null = null;
  for (const w of writers) {
    const id = idOf[w.id];
    if (id === undefined || id < 0) {
      err('WRITER_WITHOUT_ID', I.id, `${instLabel(m, w.id)} has not assigned ID yet`);
      continue;
    }
    if (own > id && id >= best) {
      best = id;
      cand = w;
    }
  }
  return cand;
}

/** The tensors an instruction writes (a DMA its destination; compute and collectives their list). */
export function forEachWritten(I: Instr, fn: (t: Tensor) => void): void {
  if (I.dst !== null) fn(I.dst.tensor);
  else if (I.writes !== null) for (const t of I.writes) fn(t);
}

export const assignTriggerEngine: Pass = {
  name: 'assign_trigger_engine',
  order: 110,
  summary:
    'choose the trigger engine of DMAs on EngineType::DMA (CC engine, then producer engine); IO-queue limiting tail',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const c = m.columns;
    // Stage 1: scheduled IDs + CC maps. Neither depends on an engine, so the walk that makes them
    // may run at any point before they are first read: up front when the module holds a
    // collective (every DMA looks its storage up), else when a producer save first finds a writer
    // (the one reader of the IDs). Without a collective the CC maps are empty: no DMA touches CC
    // storage, and the CC arm is not tried.
    const hasCC = c.collectives > 0;
    let idOf: Int32Array | null = null;
    let cc: CcMaps | null = null;
    if (hasCC) ({ idOf, cc } = assignIdsAndCcLocs(m));

    // Stage 2/3: the dispatch, walking each block in order with the last writer of each tensor
    const tf = tensorFacts(m);
    const { op, engine, subId, dgeType, srcTensor, dstTensor } = c;
    const nT = m.tensors.length;
    const lastWriter = new Int32Array(nT).fill(-1);
    const writerGen = new Int32Array(nT);
    let gen = 0;
    let movedToCC = 0;
    let assignedToProducer = 0;
    let noEarlierWriter = 0;
    let visited = 0;
    let engineSet = 0; // CheckLimitIOQueues: distinct engines of HWDGE DMAs, as a bit set
    for (const f of m.functions) {
      for (const bb of f.blocks) {
        gen++;
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          if (isDMAFamily(op[id])) {
            visited++;
            if (engine[id] === EngineType.DMA) {
              if (hasCC && tryAssignToCCEngine(c, id, cc!)) {
                movedToCC++;
              } else if (isProducerSave(c, tf, id)) {
                const t = srcTensor[id];
                const w = writerGen[t] === gen ? lastWriter[t] : -1;
                if (w !== -1) idOf ??= assignIdsAndCcLocs(m).idOf;
                if (w !== -1 && idOf![w] < idOf![id]) {
                  engine[id] = engine[w];
                  subId[id] = subId[w];
                  assignedToProducer++;
                } else {
                  noEarlierWriter++; // silent in the seed: nxdma leaves the DMA where it is
                }
              }
            }
            // CheckLimitIOQueues, fused into this walk: I's engine is final once I was visited
            if (dgeType[id] === DGEType.HWDGE) engineSet |= 1 << engine[id];
          }
          // record I as the latest writer of what it writes (after I itself was handled)
          if (dstTensor[id] !== -1) {
            const t = dstTensor[id];
            lastWriter[t] = id;
            writerGen[t] = gen;
          } else if (c.writes[id] === 1) {
            lastWriter[c.write0[id]] = id;
            writerGen[c.write0[id]] = gen;
          } else if (c.writes[id] > 1) {
            for (const tw of m.instrs[id].writes!) {
              lastWriter[tw.id] = id;
              writerGen[tw.id] = gen;
            }
          }
        }
      }
    }
    ctx.notes.push(`Moved ${movedToCC} DMA instructions to CC's engines.`);
    ctx.notes.push(
      `Assigned trigger engine for ${assignedToProducer} DMA instructions. Moved ${movedToCC}`,
    );

    // Stage 4: IO-queue limiting
    let hwdgeEngines = 0;
    for (let b = engineSet; b !== 0; b &= b - 1) hwdgeEngines++;
    const limit = m.options.limitIoQueues || hwdgeEngines > 1;
    let limitedToSP = 0;
    if (limit) {
      ctx.notes.push('Limiting IO queue to SP only');
      for (const f of m.functions) {
        for (const bb of f.blocks) {
          const ids = bb.ids();
          for (let i = 0; i < ids.length; i++) {
            const id = ids[i];
            // LimitIOQueues: a 64-bit store of 6: engine SP, sub id 0
            if (
              !isHWDGEWithEngineSet(dgeType[id] as DGEType, engine[id] as EngineType) &&
              isIODMAAt(c, tf, id)
            ) {
              engine[id] = EngineType.SP;
              subId[id] = 0;
              limitedToSP++;
            }
          }
        }
      }
    }
    Object.assign(ctx.counters, {
      visited,
      movedToCC,
      assignedToProducer,
      noEarlierWriter,
      hwdgeEngines,
      limitIoQueues: limit ? 1 : 0,
      limitedToSP,
    });
  },
};
