/**
 * The IR predicates the passes share. This file is the one home of the DMA-family predicate
 * (seed 000 byte_1DF3660 + the IT == 18 special case; seed 001 off_1DE6420; seed 003's
 * alloc_queues gate, read as the same family: docs/compiler.md "alloc_queues opcode gate").
 */
import { type InstrColumns, type TensorFacts, hasDynamicAPAt } from './columns.ts';
import type { Instr, Module } from './module.ts';
import {
  DGEType,
  type DmaOpName,
  EngineType,
  InstructionType,
  type InstructionTypeName,
  MemoryType,
  TensorKind,
  TransposeKind,
  DstReduce,
} from './enums.ts';

/**
 * The 49-byte table byte_1DF3660 indexed by IT - 19 (seed 000, read off .rodata): nonzero at
 * {0, 3, 13, 22..27, 48}.
 */
const DMA_FAMILY_TABLE = new Uint8Array(49);
for (const i of [0, 3, 13, 22, 23, 24, 25, 26, 27, 48]) DMA_FAMILY_TABLE[i] = 1;

/**
 * The DMA family {18, 19, 22, 32, 41-46, 67} (D-D01): `IT == 18 || (IT - 19 <= 0x30 &&
 * byte_1DF3660[IT - 19])`, with the unsigned compare of the binary.
 */
export function isDMAFamily(op: number): boolean {
  if (op === InstructionType.DMA) return true;
  // the unsigned compare as a signed one on an int32 (no uint32 above 2^31 to box)
  const idx = (op - 19) | 0;
  return idx >= 0 && idx <= 0x30 && DMA_FAMILY_TABLE[idx] !== 0;
}

/**
 * The opcodes getDGEInstructionType considers (its `opcode > 0x20 || !DMA_OPCODE_MASK[opcode]`
 * early-out) and assign_hwdge_engine binds (Load, Save, DMACopy): the DMA family members at or
 * below 32 other than the InstDMA base. The seed does not print the mask; nxdma takes the set
 * pass 123 visits, so every DMA the route predicate can make HWDGE also gets an HWDGE engine.
 */
export function isDGEOpcode(op: number): boolean {
  return op <= 0x20 && op !== InstructionType.DMA && isDMAFamily(op);
}

/** bir::isTensorKindInput: graph inputs, input-outputs and constants. */
export function isTensorKindInput(kind: TensorKind): boolean {
  return kind === TensorKind.Input || kind === TensorKind.InputOutput || kind === TensorKind.Const;
}

/** bir::isTensorKindOutput: graph outputs and input-outputs. */
export function isTensorKindOutput(kind: TensorKind): boolean {
  return kind === TensorKind.Output || kind === TensorKind.InputOutput;
}

/** bir::isIODMA: a DMA-family instruction with a graph input or output endpoint. */
export function isIODMA(inst: Instr): boolean {
  if (!isDMAFamily(inst.op) || inst.src === null || inst.dst === null) return false;
  return isIOKinds(inst.src.tensor.kind, inst.dst.tensor.kind);
}

/** isIODMA on the instruction columns (tensor kinds from `tf`). */
export function isIODMAAt(c: InstrColumns, tf: TensorFacts, id: number): boolean {
  const s = c.srcTensor[id];
  const d = c.dstTensor[id];
  if (!isDMAFamily(c.op[id]) || s < 0 || d < 0) return false;
  return isIOKinds(tf.kind[s] as TensorKind, tf.kind[d] as TensorKind);
}

/** isIODMA's endpoint test on the source and destination tensor kinds. */
export function isIOKinds(s: TensorKind, d: TensorKind): boolean {
  return (
    isTensorKindInput(s) || isTensorKindOutput(s) || isTensorKindInput(d) || isTensorKindOutput(d)
  );
}

/** The DMA opcodes by name (derived from isDMAFamily): what a program may use as a DMA `op`. */
export const DMA_OPS = (Object.keys(InstructionType) as InstructionTypeName[]).filter((k) =>
  isDMAFamily(InstructionType[k]),
) as [DmaOpName, ...DmaOpName[]];

/** Spill / reload DMA: an endpoint is a spill slot. */
export function isSRDMA(inst: Instr): boolean {
  if (!isDMAFamily(inst.op) || inst.src === null || inst.dst === null) return false;
  return inst.src.tensor.kind === TensorKind.Spill || inst.dst.tensor.kind === TensorKind.Spill;
}

/** A cast changes the element type between source and destination; a copy keeps it. */
function isCast(inst: Instr): boolean {
  return inst.src !== null && inst.dst !== null && inst.src.tensor.dtype !== inst.dst.tensor.dtype;
}

/**
 * The copy / cast family of getDGEInstructionType (seed 001 arm 4). A destination-reduce DMA is a
 * reduce, not a copy or a cast (docs/compiler.md "dst-reduce DMAs").
 */
export function isIOCopyDMA(inst: Instr): boolean {
  return inst.dstReduce === DstReduce.none && isIODMA(inst) && !isCast(inst);
}
export function isSRCopyDMA(inst: Instr): boolean {
  return inst.dstReduce === DstReduce.none && isSRDMA(inst) && !isCast(inst);
}
export function isIOCastDMA(inst: Instr): boolean {
  return inst.dstReduce === DstReduce.none && isIODMA(inst) && isCast(inst);
}
export function isSRCastDMA(inst: Instr): boolean {
  return inst.dstReduce === DstReduce.none && isSRDMA(inst) && isCast(inst);
}

/**
 * isIOCopyDMA || isSRCopyDMA || isIOCastDMA || isSRCastDMA in one test (copy and cast together
 * cover both dtype cases, so the union is "IO or spill/reload, not a dst-reduce").
 */
export function isCopyOrCastDMA(inst: Instr): boolean {
  return inst.dstReduce === DstReduce.none && (isIODMA(inst) || isSRDMA(inst));
}

/** bir::isTransposeDMA: a DMA-family instruction carrying a transpose (either flavour). */
export function isTransposeDMA(inst: Instr): boolean {
  return isTransposeOp(inst.op, inst.transpose);
}
/** isTransposeDMA on the fields. */
export function isTransposeOp(op: number, transpose: TransposeKind): boolean {
  return transpose !== TransposeKind.none && isDMAFamily(op);
}

/** backend::isTransposeDMATrigger: a cross-bar (xbar) transpose DMA. */
export function isXbarTransposeDMA(inst: Instr): boolean {
  return isXbarTransposeOp(inst.op, inst.transpose);
}
/** isXbarTransposeDMA on the fields. */
export function isXbarTransposeOp(op: number, transpose: TransposeKind): boolean {
  return transpose === TransposeKind.xbar && isDMAFamily(op);
}

/** bir::isVectorDynamicOffsetDMA: either endpoint carries a vector dynamic offset. */
export function isVectorDynamicOffsetDMA(inst: Instr): boolean {
  return (
    (inst.src !== null && inst.src.vectorOffset !== null) ||
    (inst.dst !== null && inst.dst.vectorOffset !== null)
  );
}

/** Either endpoint has a dynamic AP (seed 001 cleanup: I.hasDynamicAP()). */
export function hasDynamicAP(inst: Instr): boolean {
  return hasDynamicAPAt(inst.cols, inst.id);
}

/** bir::isDstReduceDGE: a destination-reduce DMA that carries a DGE route. */
export function isDstReduceDGE(inst: Instr): boolean {
  return isDstReduceRoute(inst.dstReduce, inst.dgeType);
}
/** isDstReduceDGE on the fields: a destination reduce with an SWDGE or HWDGE route. */
export function isDstReduceRoute(dstReduce: DstReduce, dgeType: DGEType): boolean {
  return dstReduce !== DstReduce.none && (dgeType === DGEType.SWDGE || dgeType === DGEType.HWDGE);
}

/**
 * bir::isHWDGEDMAWithEngineSet (libBIR, seed 000): `DGEType == HWDGE && (engine & ~4) != 0`, i.e.
 * an HWDGE DMA whose engine field holds something other than the bare DMA bit.
 */
export function isHWDGEDMAWithEngineSet(inst: Instr): boolean {
  return isHWDGEWithEngineSet(inst.dgeType, inst.engine);
}
/** isHWDGEDMAWithEngineSet on the fields: route HWDGE, engine other than the bare DMA bit. */
export function isHWDGEWithEngineSet(dgeType: DGEType, engine: EngineType): boolean {
  return dgeType === DGEType.HWDGE && (engine & ~EngineType.DMA) !== 0;
}

/** backend::isSBDstCollective: a collective whose results land in the state buffer. */
export function isSBDstCollective(inst: Instr): boolean {
  if (inst.op !== InstructionType.CollectiveCompute || inst.writes === null) return false;
  for (const t of inst.writes) if (t.memType === MemoryType.SB) return true;
  return false;
}

/** isSBDstCollective on the instruction columns (a result list longer than one is read whole). */
export function isSBDstCollectiveAt(m: Module, tf: TensorFacts, id: number): boolean {
  const c = m.columns;
  if (c.op[id] !== InstructionType.CollectiveCompute) return false;
  if (c.writes[id] === 1) return tf.mem[c.write0[id]] === MemoryType.SB;
  return c.writes[id] > 1 && isSBDstCollective(m.instrs[id]);
}

/** backend::isRemoteSBPush: a DMA writing another core's state buffer. */
export function isRemoteSBPush(inst: Instr): boolean {
  return isRemoteSBPushOp(inst.op, inst.dst === null ? -1 : inst.dst.tensor.memType);
}
/** isRemoteSBPush on the fields (`dstMem` -1: no destination pattern). */
export function isRemoteSBPushOp(op: number, dstMem: number): boolean {
  return isDMAFamily(op) && dstMem === MemoryType.RemoteSB;
}
