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
 * writer is looked up, and a DMA that feeds a later collective finds it.
 */
import { EngineType, InstructionType, MemoryType } from '../ir/enums.ts';
import type { Instr, Module, Tensor } from '../ir/module.ts';
import {
  isDMAFamily,
  isHWDGEDMAWithEngineSet,
  isIODMA,
  isTensorKindOutput,
} from '../ir/predicates.ts';
import { DGEType } from '../ir/enums.ts';
import { type ErrorSink, type Pass, type PassContext, instLabel } from './pass.ts';

/** The CC storage maps of AssignIdsAndCcLocs: tensor id -> the collective using it. */
export interface CcMaps {
  result: (Instr | null)[];
  arg: (Instr | null)[];
}

const NO_TENSORS: readonly Tensor[] = [];

/** AssignIdsAndCcLocs over the whole module: scheduled IDs (walk order) and the CC maps. */
export function assignIdsAndCcLocs(m: Module): { idOf: Int32Array; cc: CcMaps } {
  const idOf = new Int32Array(m.instrs.length).fill(-1);
  const cc: CcMaps = {
    result: new Array<Instr | null>(m.tensors.length).fill(null),
    arg: new Array<Instr | null>(m.tensors.length).fill(null),
  };
  let counter = 0;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const instrs = bb.instrs;
      for (let i = 0; i < instrs.length; i++) {
        const I = instrs[i];
        idOf[I.id] = counter++;
        if (I.op === InstructionType.CollectiveCompute) {
          // record_cc_locations: DenseMap::insert keeps the first collective seen per storage
          const ws = I.writes ?? NO_TENSORS;
          const rs = I.reads ?? NO_TENSORS;
          for (let k = 0; k < ws.length; k++)
            if (cc.result[ws[k].id] === null) cc.result[ws[k].id] = I;
          for (let k = 0; k < rs.length; k++) if (cc.arg[rs[k].id] === null) cc.arg[rs[k].id] = I;
        }
      }
    }
  }
  return { idOf, cc };
}

/** tryAssignToCCEngine: Load / DMACopy touching CC storage take the collective's engine and sub id. */
export function tryAssignToCCEngine(I: Instr, cc: CcMaps): boolean {
  if (I.op !== InstructionType.Load && I.op !== InstructionType.DMACopy) return false;
  for (let k = 0; k < 2; k++) {
    const ap = k === 0 ? I.src : I.dst;
    if (ap === null) continue;
    const id = ap.tensor.id;
    const c = cc.result[id] ?? cc.arg[id];
    if (c !== null) {
      // `inst[+0x90] = cc[+0x90]`: +0x90 is written as one 64-bit store (seed 000: "+0x90 is
      // written as a 64-bit store"), engine id and +0x94 sub id together, so "the DMA and the CC
      // op share an engine queue" (docs/compiler.md "CC maps")
      I.engine = c.engine;
      I.subId = c.subId;
      return true;
    }
  }
  return false;
}

/** The direction filter of assignSaveToProducerEngine: on-chip -> DRAM, not a graph output. */
export function isProducerSave(I: Instr): boolean {
  if (I.op !== InstructionType.DMACopy && I.op !== InstructionType.Save) return false;
  if (I.src === null || I.dst === null) return false;
  return (
    I.src.tensor.memType !== MemoryType.DRAM &&
    I.dst.tensor.memType === MemoryType.DRAM &&
    !isTensorKindOutput(I.dst.tensor.kind)
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
    // Stage 1: scheduled IDs + CC maps
    const { idOf, cc } = assignIdsAndCcLocs(m);

    // Stage 2/3: the dispatch, walking each block in order with the last writer of each tensor
    const nT = m.tensors.length;
    const lastWriter = new Array<Instr | null>(nT).fill(null);
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
        const instrs = bb.instrs;
        for (let i = 0; i < instrs.length; i++) {
          const I = instrs[i];
          if (isDMAFamily(I.op)) {
            visited++;
            if (I.engine === EngineType.DMA) {
              if (tryAssignToCCEngine(I, cc)) {
                movedToCC++;
              } else if (isProducerSave(I)) {
                const t = I.src!.tensor.id;
                const w = writerGen[t] === gen ? lastWriter[t] : null;
                if (w !== null && idOf[w.id] < idOf[I.id]) {
                  I.engine = w.engine;
                  I.subId = w.subId;
                  assignedToProducer++;
                } else {
                  noEarlierWriter++; // silent in the seed: nxdma leaves the DMA where it is
                }
              }
            }
            // CheckLimitIOQueues, fused into this walk: I's engine is final once I was visited
            if (I.dgeType === DGEType.HWDGE) engineSet |= 1 << I.engine;
          }
          // record I as the latest writer of what it writes (after I itself was handled)
          if (I.dst !== null) {
            const t = I.dst.tensor.id;
            lastWriter[t] = I;
            writerGen[t] = gen;
          } else if (I.writes !== null) {
            for (let k = 0; k < I.writes.length; k++) {
              const tw = I.writes[k];
              lastWriter[tw.id] = I;
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
          const instrs = bb.instrs;
          for (let i = 0; i < instrs.length; i++) {
            const I = instrs[i];
            // LimitIOQueues: a 64-bit store of 6: engine SP, sub id 0
            if (!isHWDGEDMAWithEngineSet(I) && isIODMA(I)) {
              I.engine = EngineType.SP;
              I.subId = 0;
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
