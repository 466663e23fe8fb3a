/**
 * The compiler's enums with the seeds' ordinals and names (seeds 000, 001, 003). Where a seed pins
 * an ordinal the value is the seed's; where it only names a member (or is silent) the value is
 * nxdma's own and docs/compiler.md says so. DMAQoSClass lives in csr/formats/qos-class.ts (the one
 * home of the QoS class rule) and is re-exported here for convenience.
 */
export { DMAQoSClass, type DMAQoSClassName, qosClassName } from '../../csr/formats/qos-class.ts';
import { DGE_DTYPE_SIZE, DgeDtype } from '../../csr/formats/dge-desc.ts';

/** Builds the reverse (ordinal -> name) table of an `as const` enum object. */
function names<T extends Record<string, number>>(e: T): Readonly<Record<number, keyof T & string>> {
  const out: Record<number, keyof T & string> = {};
  for (const k of Object.keys(e)) out[e[k]] = k;
  return Object.freeze(out);
}

/**
 * bir::InstructionType. Seed-pinned: DMA 18 (InstDMA base), Load 19, Save 22, DMACopy 32, the
 * DMA variants 41-46, CollectiveCompute 48, DMATrigger 67, SwitchQueueInstance 85,
 * ResetQueueInstance 86 (seed 000 table byte_1DF3660, seed 003 D-D01). The names of 41-46 and the
 * compute opcodes 1-7 are nxdma's (the seeds give no names for them); the compute ordinals sit below
 * 18 so they never collide with a seed-pinned value.
 */
export const InstructionType = {
  Activation: 1,
  Matmult: 2,
  TensorTensor: 3,
  TensorScalar: 4,
  TensorReduce: 5,
  Iota: 6,
  Memset: 7,
  DMA: 18,
  Load: 19,
  Save: 22,
  DMACopy: 32,
  AbstractCopy: 41,
  GenericLoad: 42,
  GenericSave: 43,
  IndirectLoad: 44,
  IndirectSave: 45,
  CollectiveDMA: 46,
  CollectiveCompute: 48,
  DMATrigger: 67,
  SwitchQueueInstance: 85,
  ResetQueueInstance: 86,
} as const;
export type InstructionType = (typeof InstructionType)[keyof typeof InstructionType];
export type InstructionTypeName = keyof typeof InstructionType;
export const INSTRUCTION_TYPE_NAMES = names(InstructionType);

const KNOWN_OPS = new Uint8Array(128);
for (const v of Object.values(InstructionType)) KNOWN_OPS[v] = 1;
/** True when `op` is a member of InstructionType (the IR visitor's known types). */
export function isKnownInstructionType(op: number): boolean {
  return op >= 0 && op < 128 && KNOWN_OPS[op] === 1;
}

/** The compute opcodes (not DMAs, not collectives) and the engine each runs on by default. */
export const COMPUTE_OPS = [
  'Activation',
  'Matmult',
  'TensorTensor',
  'TensorScalar',
  'TensorReduce',
  'Iota',
  'Memset',
] as const;
export type ComputeOpName = (typeof COMPUTE_OPS)[number];

/**
 * The names of the DMA opcodes (a type only: the DMA family itself is decided in one place,
 * isDMAFamily in predicates.ts, and the runtime list DMA_OPS is derived from it there).
 */
export type DmaOpName = Exclude<
  InstructionTypeName,
  ComputeOpName | 'CollectiveCompute' | 'SwitchQueueInstance' | 'ResetQueueInstance'
>;

/** bir::EngineType (seed 000): the compute engine that triggers / owns an instruction. */
export const EngineType = {
  Unassigned: 0,
  Pool: 1,
  Activation: 2,
  PE: 3,
  DMA: 4,
  DVE: 5,
  SP: 6,
} as const;
export type EngineType = (typeof EngineType)[keyof typeof EngineType];
export type EngineTypeName = keyof typeof EngineType;
export const ENGINE_TYPE_NAMES = names(EngineType);

/** Default engine of each compute opcode (nxdma's choice, overridable per instruction). */
export const DEFAULT_COMPUTE_ENGINE: Readonly<Record<ComputeOpName, EngineTypeName>> = {
  Activation: 'Activation',
  Matmult: 'PE',
  TensorTensor: 'DVE',
  TensorScalar: 'DVE',
  TensorReduce: 'DVE',
  Iota: 'Pool',
  Memset: 'Pool',
};

/** bir::DGEType, the per-DMA route (seed 001, byte-exact from DGEType2string). */
export const DGEType = { None: 0, SWDGE: 1, HWDGE: 2, Unassigned: 3 } as const;
export type DGEType = (typeof DGEType)[keyof typeof DGEType];
export type DGETypeName = keyof typeof DGEType;
export const DGE_TYPE_NAMES = names(DGEType);

/** Bit of a DGEType in an eligible-route set (the set is kept as a bit mask: 1 << DGEType). */
export function dgeBit(t: DGEType): number {
  return 1 << t;
}
/** The DGEType names of an eligible-route bit mask, in ordinal order. */
export function dgeSetNames(mask: number): DGETypeName[] {
  const out: DGETypeName[] = [];
  for (let t = 0; t <= 3; t++) if (mask & (1 << t)) out.push(DGE_TYPE_NAMES[t]);
  return out;
}

/**
 * DGELevels, the --dge-levels configuration set (seed 001). The seed reads the names and their
 * order off the cl::ValuesClass table but not the ints; nxdma uses the 0-based table index (the
 * value cl::parser returns), so transpose is 5 (docs/compiler.md, "DGELevels ordinals").
 */
export const DGELevels = {
  spill_reload: 0,
  scalar_dynamic_offset: 1,
  vector_dynamic_offsets: 2,
  dynamic_size: 3,
  dst_reduce: 4,
  transpose: 5,
} as const;
export type DGELevels = (typeof DGELevels)[keyof typeof DGELevels];
export type DGELevelName = keyof typeof DGELevels;
export const DGE_LEVEL_NAMES = names(DGELevels);

/** bir::DMAQueue::Type (seed 003, cross-checked against D-E16). */
export const DMAQueueType = {
  input: 0,
  output: 1,
  data: 2,
  pinned_weight: 3,
  indirect_loadsave: 4,
  embedding_update: 5,
  collective_compute: 6,
  dynamic_act_table: 7,
  dynamic: 8,
} as const;
export type DMAQueueType = (typeof DMAQueueType)[keyof typeof DMAQueueType];
export type DMAQueueTypeName = keyof typeof DMAQueueType;
export const DMA_QUEUE_TYPE_NAMES = names(DMAQueueType);

/** Dependence edge kind, in precedence order (seed 003, D-E19). */
export const EdgeKind = { Invalid: 0, Ordered: 1, Anti: 2, Output: 3, Flow: 4 } as const;
export type EdgeKind = (typeof EdgeKind)[keyof typeof EdgeKind];
export type EdgeKindName = keyof typeof EdgeKind;
export const EDGE_KIND_NAMES = names(EdgeKind);

/**
 * bir::TensorKind. Seed-pinned: 6, 7 and 9 are DATA kinds, 1 is Output, 4 is Const (seed 003
 * kind2QueType). The other members and names are nxdma's.
 */
export const TensorKind = {
  Invalid: 0,
  Output: 1,
  Input: 2,
  InputOutput: 3,
  Const: 4,
  Pointer: 5,
  Internal: 6,
  Scratch: 7,
  Semaphore: 8,
  Spill: 9,
} as const;
export type TensorKind = (typeof TensorKind)[keyof typeof TensorKind];
export type TensorKindName = keyof typeof TensorKind;
export const TENSOR_KIND_NAMES = names(TensorKind);

/**
 * Memory type of a storage location. Seed-pinned: DRAM 8 (seed 000's `memType != 8` test) and SB 4
 * (seed 001's SB memory-space tag). PSUM and RemoteSB (another core's state buffer, the target of
 * a remote-SB push in seed 003) are nxdma's.
 */
export const MemoryType = { SB: 4, PSUM: 5, RemoteSB: 6, DRAM: 8 } as const;
export type MemoryType = (typeof MemoryType)[keyof typeof MemoryType];
export type MemoryTypeName = keyof typeof MemoryType;
export const MEMORY_TYPE_NAMES = names(MemoryType);

/**
 * InstDMA +0x38, the DMA-kind dword. Seed 000 only exercises 2 (which enables assign_hwdge_engine's
 * dedup against ValidEngines). nxdma names 2 `DGE`: a DMA whose engine was placed on a descriptor
 * generation engine upstream and must be kept when it is still valid. The rest are nxdma's.
 */
export const DMAKind = { Generic: 0, IO: 1, DGE: 2, CCE: 3 } as const;
export type DMAKind = (typeof DMAKind)[keyof typeof DMAKind];
export type DMAKindName = keyof typeof DMAKind;
export const DMA_KIND_NAMES = names(DMAKind);

/** Transpose flavour of a DMA: none, a descriptor (4-D DMA) transpose, or a cross-bar transpose. */
export const TransposeKind = { none: 0, dma: 1, xbar: 2 } as const;
export type TransposeKind = (typeof TransposeKind)[keyof typeof TransposeKind];
export type TransposeKindName = keyof typeof TransposeKind;
export const TRANSPOSE_KIND_NAMES = names(TransposeKind);

/** Destination-reduce op of a DMA (the DIRECT2D compute_op the lowering emits). */
export const DstReduce = { none: 0, add: 1, multiply: 2, max: 3, min: 4 } as const;
export type DstReduce = (typeof DstReduce)[keyof typeof DstReduce];
export type DstReduceName = keyof typeof DstReduce;
export const DST_REDUCE_NAMES = names(DstReduce);

/**
 * Element data types of tensors and the DGE dtype code each is emitted as (DMA_CONFIGS dtype,
 * csr/formats/dge-desc.ts DgeDtype).
 */
export const DTYPE_CODE = {
  uint8: DgeDtype.UINT8,
  int8: DgeDtype.INT8,
  uint16: DgeDtype.UINT16,
  int16: DgeDtype.INT16,
  fp16: DgeDtype.FP16,
  bf16: DgeDtype.BF16,
  uint32: DgeDtype.UINT32,
  int32: DgeDtype.INT32,
  fp32: DgeDtype.FP32,
} as const;
export type DtypeName = keyof typeof DTYPE_CODE;
export const DTYPE_NAMES = Object.keys(DTYPE_CODE) as DtypeName[];

/** Size in bytes of each element data type (the one table: csr/formats/dge-desc.ts DGE_DTYPE_SIZE). */
export const DTYPE_SIZE: Readonly<Record<DtypeName, number>> = Object.freeze(
  Object.fromEntries(DTYPE_NAMES.map((n) => [n, DGE_DTYPE_SIZE[DTYPE_CODE[n]]])) as Record<
    DtypeName,
    number
  >,
);

/**
 * ArchLevel (seed 001, Target Abstraction): 10 Inf1/Tonga, 20 Trn1/Sunda, 30 Trn2/Cayman,
 * 40 Trn3/CoreV4, 50 CoreV5.
 */
export const ArchLevel = { Tonga: 10, Sunda: 20, Cayman: 30, CoreV4: 40, CoreV5: 50 } as const;
export type ArchLevel = (typeof ArchLevel)[keyof typeof ArchLevel];
export type ArchCodename = keyof typeof ArchLevel;
export const ARCH_CODENAMES = names(ArchLevel);
/** The product name of each ArchLevel. */
export const ARCH_PRODUCT: Readonly<Record<ArchLevel, string>> = {
  10: 'Inf1',
  20: 'Trn1',
  30: 'Trn2',
  40: 'Trn3',
  50: 'CoreV5',
};
export function isArchLevel(v: unknown): v is ArchLevel {
  return v === 10 || v === 20 || v === 30 || v === 40 || v === 50;
}
