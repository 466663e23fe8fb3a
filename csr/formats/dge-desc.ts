/**
 * The four 64-byte DGE descriptors (seed 004 §4.1, §5.3-§5.4, §7.1): DIRECT2D, INDIRECT1D,
 * DIRECT2D_XPOSE and GATHER_XPOSE. The seed fixes the size (64 B), the four kinds and their
 * opcodes, the compute_op enum of DIRECT2D, the DMA_CONFIGS byte (priority_class[2:0], reserved
 * [7:3] zero, valid when priority_class <= 4) at +12 (DIRECT2D), +13 (GATHER_XPOSE) and +61
 * (INDIRECT1D), the BOUND_CHECK_REG byte and the gather-transpose constraints. Everything else in
 * these layouts is nxdma's own design, documented in docs/descriptors.md (tables rendered from the
 * layouts below, checked by test/csr/formats/dge-desc.test.ts).
 */
import { type BoundCheck, type Problem, type RecordLayout, type RecordValue } from './layout.ts';
import { RecordCodec } from './record-codec.ts';
import { RecordFamily } from './record-family.ts';
import type { ByteView, DecodeResult } from './wire.ts';

export type { BoundCheck } from './layout.ts';
export {
  DMA_CONFIGS_RESERVED_MASK,
  NO_BOUND_CHECK,
  decodeBoundCheck,
  decodeDmaConfigs,
  encodeBoundCheck,
  encodeDmaConfigs,
  isValidDmaConfigs,
} from './layout.ts';

/** Every DGE descriptor is 64 bytes (ISA_STATIC_ASSERT(sizeof == 64)). */
export const DGE_DESC_SIZE = 64;

/**
 * DGE_OPCODE (aws_neuron_isa_tpb_common.h: DGE_OPCODE_MAX_PLUS_ONE = 4), indices in declaration
 * order (seed 004 §5.3): DIRECT2D, INDIRECT1D, TRANSPOSE (DIRECT2D_XPOSE), GATHER_TRANSPOSE.
 * nxdma stores it in byte 0 of every descriptor.
 */
export const DgeOpcode = {
  DIRECT2D: 0,
  INDIRECT1D: 1,
  DIRECT2D_XPOSE: 2,
  GATHER_XPOSE: 3,
} as const;
export type DgeKind = keyof typeof DgeOpcode;
export const DGE_KINDS = Object.keys(DgeOpcode) as DgeKind[];

/** DIRECT2D compute_op (seed 004 §4.1): a Pool descriptor can do B op= A in transfer. */
export const ComputeOp = { NONE: 0, ADD: 1, MULTIPLY: 2, MAX: 3, MIN: 4 } as const;
export type ComputeOp = (typeof ComputeOp)[keyof typeof ComputeOp];

/**
 * Element data type (nxdma's own codes): what a compute_op computes in, and the 2-byte rule of the
 * gather transpose. RAW means "bytes, no arithmetic".
 */
export const DgeDtype = {
  RAW: 0,
  UINT8: 1,
  INT8: 2,
  UINT16: 3,
  INT16: 4,
  UINT32: 5,
  INT32: 6,
  FP16: 7,
  BF16: 8,
  FP32: 9,
} as const;
export type DgeDtype = (typeof DgeDtype)[keyof typeof DgeDtype];

/** Size in bytes of each dtype (0 for RAW: any elem_size). */
export const DGE_DTYPE_SIZE: Readonly<Record<DgeDtype, number>> = {
  0: 0,
  1: 1,
  2: 1,
  3: 2,
  4: 2,
  5: 4,
  6: 4,
  7: 2,
  8: 2,
  9: 4,
};

/** INDIRECT1D: which side the index tensor selects rows of. */
export const IndirectSide = { GATHER: 0, SCATTER: 1 } as const;
export type IndirectSide = (typeof IndirectSide)[keyof typeof IndirectSide];

/** No semaphore to increment on completion. */
export const NO_SEMAPHORE = -1;

/** Gather-transpose constraints (aws_neuron_isa_tpb_dma_gather_xpose.h, seed 004 §3.3). */
export const GATHER_XPOSE_RULES = {
  /** Only 2-byte data types (BF16 / FP16). */
  elemSize: 2,
  /** Xbar transpose tiles are 16 x 128 for 2-byte dtypes. */
  tileRows: 16,
  tileCols: 128,
  /** Index tensor is UINT32, a multiple of 16 indices. */
  indexMultiple: 16,
  indexSize: 4,
  /** Destination 32-byte aligned. */
  dstAlign: 32,
} as const;

// --- layouts --------------------------------------------------------------------------------

const common = {
  elem_size: { type: 'u16', offset: 4, min: 1, doc: 'bytes per element' },
  sem_num: {
    type: 'i16',
    offset: 6,
    min: -1,
    doc: 'semaphore incremented when the descriptor completes; -1 none',
  },
} as const;

const direct2dBody = {
  dtype: { type: 'u8', offset: 2, enum: DgeDtype, doc: 'element type (RAW: bytes, no arithmetic)' },
  ...common,
  priority_class: {
    type: 'dma_configs',
    offset: 12,
    doc: 'DMA_CONFIGS: priority_class[2:0], reserved[7:3] zero (firmware: +12)',
  },
  src_bound_check: { type: 'bound_check', offset: 13, doc: 'BOUND_CHECK_REG of the source' },
  dst_bound_check: { type: 'bound_check', offset: 14, doc: 'BOUND_CHECK_REG of the destination' },
  src_addr: { type: 'u64', offset: 16, doc: 'source address' },
  dst_addr: { type: 'u64', offset: 24, doc: 'destination address' },
  src_num_elem: {
    type: 'u16',
    offset: 32,
    count: 2,
    min: 1,
    doc: 'source loop bounds [inner, outer], in elements',
  },
  dst_num_elem: {
    type: 'u16',
    offset: 36,
    count: 2,
    min: 1,
    doc: 'destination loop bounds [inner, outer]',
  },
  src_step_elem: {
    type: 'i32',
    offset: 40,
    count: 2,
    doc: 'source strides [inner, outer], in elements, signed',
  },
  dst_step_elem: {
    type: 'i32',
    offset: 48,
    count: 2,
    doc: 'destination strides [inner, outer], in elements, signed',
  },
} as const;

export const DIRECT2D_LAYOUT = {
  name: 'DIRECT2D',
  size: DGE_DESC_SIZE,
  tag: { name: 'opcode', offset: 0, value: DgeOpcode.DIRECT2D, doc: 'DGE_OPCODE DIRECT2D' },
  fields: {
    compute_op: {
      type: 'u8',
      offset: 1,
      enum: ComputeOp,
      doc: 'dst op= src element-wise (NONE: plain copy)',
    },
    ...direct2dBody,
  },
} as const satisfies RecordLayout;

/** DIRECT2D_XPOSE (OPCODE_DMA_TRANSPOSE): the DIRECT2D layout without compute_op; DMA_CONFIGS at +12 (nxdma's choice). */
export const DIRECT2D_XPOSE_LAYOUT = {
  name: 'DIRECT2D_XPOSE',
  size: DGE_DESC_SIZE,
  tag: {
    name: 'opcode',
    offset: 0,
    value: DgeOpcode.DIRECT2D_XPOSE,
    doc: 'DGE_OPCODE TRANSPOSE',
  },
  fields: {
    ...direct2dBody,
    priority_class: {
      ...direct2dBody.priority_class,
      doc: "DMA_CONFIGS: priority_class[2:0], reserved[7:3] zero (+12: nxdma's choice, as DIRECT2D)",
    },
  },
} as const satisfies RecordLayout;

export const INDIRECT1D_LAYOUT = {
  name: 'INDIRECT1D',
  size: DGE_DESC_SIZE,
  tag: { name: 'opcode', offset: 0, value: DgeOpcode.INDIRECT1D, doc: 'DGE_OPCODE INDIRECT1D' },
  fields: {
    indirect_side: {
      type: 'u8',
      offset: 1,
      enum: IndirectSide,
      doc: 'GATHER: indices pick source rows; SCATTER: indices pick destination rows',
    },
    dtype: { type: 'u8', offset: 2, enum: DgeDtype, doc: 'element type' },
    ...common,
    src_addr: { type: 'u64', offset: 8, doc: 'source base address' },
    dst_addr: { type: 'u64', offset: 16, doc: 'destination base address' },
    idx_addr: { type: 'u64', offset: 24, doc: 'index tensor address (u32 little-endian)' },
    num_idx: { type: 'u32', offset: 32, min: 1, doc: 'number of indices = rows moved' },
    row_num_elem: { type: 'u16', offset: 36, min: 1, doc: 'elements per row (contiguous)' },
    src_step_elem: { type: 'i32', offset: 40, doc: 'source row stride, in elements, signed' },
    dst_step_elem: { type: 'i32', offset: 44, doc: 'destination row stride, in elements, signed' },
    idx_limit: {
      type: 'u32',
      offset: 48,
      doc: 'every index must be below this (0: unchecked)',
    },
    src_bound_check: { type: 'bound_check', offset: 60, doc: 'BOUND_CHECK_REG of the source' },
    priority_class: {
      type: 'dma_configs',
      offset: 61,
      doc: 'DMA_CONFIGS: priority_class[2:0], reserved[7:3] zero (firmware: +61)',
    },
    dst_bound_check: {
      type: 'bound_check',
      offset: 62,
      doc: 'BOUND_CHECK_REG of the destination',
    },
  },
} as const satisfies RecordLayout;

export const GATHER_XPOSE_LAYOUT = {
  name: 'GATHER_XPOSE',
  size: DGE_DESC_SIZE,
  tag: {
    name: 'opcode',
    offset: 0,
    value: DgeOpcode.GATHER_XPOSE,
    doc: 'DGE_OPCODE GATHER_TRANSPOSE',
  },
  fields: {
    dtype: { type: 'u8', offset: 1, enum: DgeDtype, doc: 'element type (a 2-byte type or RAW)' },
    elem_size: { type: 'u16', offset: 2, min: 2, max: 2, doc: 'bytes per element: 2' },
    sem_num: { ...common.sem_num, offset: 4 },
    num_idx: {
      type: 'u32',
      offset: 8,
      min: 16,
      doc: 'number of indices (gathered rows), a multiple of 16',
    },
    src_bound_check: { type: 'bound_check', offset: 12, doc: 'BOUND_CHECK_REG of the source' },
    priority_class: {
      type: 'dma_configs',
      offset: 13,
      doc: 'DMA_CONFIGS: priority_class[2:0], reserved[7:3] zero (firmware: +13)',
    },
    dst_bound_check: {
      type: 'bound_check',
      offset: 14,
      doc: 'BOUND_CHECK_REG of the destination',
    },
    src_addr: { type: 'u64', offset: 16, doc: 'source table base address' },
    dst_addr: { type: 'u64', offset: 24, doc: 'destination address, 32-byte aligned' },
    idx_addr: { type: 'u64', offset: 32, doc: 'index tensor address (UINT32 little-endian)' },
    row_num_elem: { type: 'u16', offset: 40, min: 1, doc: 'elements per gathered row' },
    src_step_elem: { type: 'i32', offset: 44, doc: 'source row stride, in elements, signed' },
    dst_step_elem: {
      type: 'i32',
      offset: 48,
      doc: 'destination row stride (rows of the transpose), in elements, signed',
    },
    idx_limit: {
      type: 'u32',
      offset: 52,
      doc: 'every index must be below this (0: unchecked)',
    },
  },
} as const satisfies RecordLayout;

export type Direct2DFields = RecordValue<typeof DIRECT2D_LAYOUT>;
export type Direct2DXposeFields = RecordValue<typeof DIRECT2D_XPOSE_LAYOUT>;
export type Indirect1DFields = RecordValue<typeof INDIRECT1D_LAYOUT>;
export type GatherXposeFields = RecordValue<typeof GATHER_XPOSE_LAYOUT>;

export type Direct2D = { kind: 'DIRECT2D' } & Direct2DFields;
export type Direct2DXpose = { kind: 'DIRECT2D_XPOSE' } & Direct2DXposeFields;
export type Indirect1D = { kind: 'INDIRECT1D' } & Indirect1DFields;
export type GatherXpose = { kind: 'GATHER_XPOSE' } & GatherXposeFields;
/** Any of the four DGE descriptors, discriminated by `kind`. */
export type DgeDescriptor = Direct2D | Direct2DXpose | Indirect1D | GatherXpose;

// --- semantic rules -------------------------------------------------------------------------

function dtypeProblem(dtype: number, elem_size: number): Problem | undefined {
  const size = DGE_DTYPE_SIZE[dtype as DgeDtype];
  if (size !== 0 && size !== elem_size) {
    return {
      field: 'elem_size',
      expected: `${size} (the size of dtype ${dtype})`,
      actual: elem_size,
    };
  }
  return undefined;
}

/** Source and destination walks must cover the same number of elements (the total-byte rule). */
function countProblem(v: Direct2DFields | Direct2DXposeFields): Problem | undefined {
  const s = v.src_num_elem[0] * v.src_num_elem[1];
  const d = v.dst_num_elem[0] * v.dst_num_elem[1];
  if (s !== d) {
    return {
      field: 'dst_num_elem',
      expected: `${s} elements in all (src_num_elem ${v.src_num_elem[0]} x ${v.src_num_elem[1]})`,
      actual: `${d} (${v.dst_num_elem[0]} x ${v.dst_num_elem[1]})`,
    };
  }
  return undefined;
}

const direct2dCheck = (v: Direct2DFields): Problem | undefined => {
  if (v.compute_op !== ComputeOp.NONE && v.dtype === DgeDtype.RAW) {
    return {
      field: 'dtype',
      expected: 'a typed dtype (not RAW) when compute_op is not NONE',
      actual: v.dtype,
    };
  }
  return dtypeProblem(v.dtype, v.elem_size) ?? countProblem(v);
};

const xposeCheck = (v: Direct2DXposeFields): Problem | undefined => {
  const p = dtypeProblem(v.dtype, v.elem_size);
  if (p) return p;
  if (v.dst_num_elem[0] !== v.src_num_elem[1] || v.dst_num_elem[1] !== v.src_num_elem[0]) {
    return {
      field: 'dst_num_elem',
      expected: `[${v.src_num_elem[1]}, ${v.src_num_elem[0]}] (the source bounds swapped)`,
      actual: `[${v.dst_num_elem[0]}, ${v.dst_num_elem[1]}]`,
    };
  }
  return undefined;
};

const indirectCheck = (v: Indirect1DFields): Problem | undefined =>
  dtypeProblem(v.dtype, v.elem_size);

/** The gather-transpose constraints; the lowering calls this same rule before it emits one. */
export function gatherXposeProblem(v: GatherXposeFields): Problem | undefined {
  const r = GATHER_XPOSE_RULES;
  if (v.elem_size !== r.elemSize) {
    return {
      field: 'elem_size',
      expected: `${r.elemSize} (only 2-byte dtypes)`,
      actual: v.elem_size,
    };
  }
  const size = DGE_DTYPE_SIZE[v.dtype as DgeDtype];
  if (size !== 0 && size !== r.elemSize) {
    return { field: 'dtype', expected: 'a 2-byte dtype (BF16, FP16) or RAW', actual: v.dtype };
  }
  if (v.num_idx % r.indexMultiple !== 0) {
    return { field: 'num_idx', expected: `a multiple of ${r.indexMultiple}`, actual: v.num_idx };
  }
  if (v.dst_addr % r.dstAlign !== 0) {
    return { field: 'dst_addr', expected: `${r.dstAlign}-byte aligned`, actual: v.dst_addr };
  }
  return undefined;
}

export const DIRECT2D = new RecordCodec(DIRECT2D_LAYOUT, direct2dCheck);
export const DIRECT2D_XPOSE = new RecordCodec(DIRECT2D_XPOSE_LAYOUT, xposeCheck);
export const INDIRECT1D = new RecordCodec(INDIRECT1D_LAYOUT, indirectCheck);
export const GATHER_XPOSE = new RecordCodec(GATHER_XPOSE_LAYOUT, gatherXposeProblem);

/** The codec of each kind. */
export const DGE_CODECS = {
  DIRECT2D,
  INDIRECT1D,
  DIRECT2D_XPOSE,
  GATHER_XPOSE,
} as const;

/** Byte offset of DMA_CONFIGS in each descriptor (from the layouts). */
export const DMA_CONFIGS_OFFSET: Readonly<Record<DgeKind, number>> = {
  DIRECT2D: DIRECT2D_LAYOUT.fields.priority_class.offset,
  INDIRECT1D: INDIRECT1D_LAYOUT.fields.priority_class.offset,
  DIRECT2D_XPOSE: DIRECT2D_XPOSE_LAYOUT.fields.priority_class.offset,
  GATHER_XPOSE: GATHER_XPOSE_LAYOUT.fields.priority_class.offset,
};

/** The four descriptors as one family told apart by the opcode byte. */
export const DGE_DESCRIPTORS = new RecordFamily('dge', 'kind', [
  DIRECT2D,
  INDIRECT1D,
  DIRECT2D_XPOSE,
  GATHER_XPOSE,
] as unknown as ReadonlyArray<RecordCodec<RecordLayout>>);

/** Validates, then encodes a descriptor of any kind into `dst` at `byteOffset` (64 bytes). */
export function encodeDgeDescriptor(dst: ByteView, byteOffset: number, d: DgeDescriptor): void {
  DGE_DESCRIPTORS.encode(dst, byteOffset, d);
}

/** A fresh 64-byte array holding the descriptor. */
export function encodeDgeDescriptorBytes(d: DgeDescriptor): Uint8Array {
  const out = new Uint8Array(DGE_DESC_SIZE);
  DGE_DESCRIPTORS.encode(out, 0, d);
  return out;
}

/**
 * Decodes the descriptor at `byteOffset`, dispatching on its opcode byte. Lenient (see
 * RecordCodec.decode); throws only NxdmaError (unknown opcode, short view, unrepresentable address).
 */
export function decodeDgeDescriptor(src: ByteView, byteOffset = 0): DgeDescriptor {
  return DGE_DESCRIPTORS.decode(src, byteOffset) as DgeDescriptor;
}

/**
 * Validating decoder for untrusted bytes: never throws. Accepts exactly what the encoder can
 * write (so re-encoding a valid result gives the same 64 bytes).
 */
export function validateDgeDescriptor(src: ByteView, byteOffset = 0): DecodeResult<DgeDescriptor> {
  return DGE_DESCRIPTORS.validate(src, byteOffset) as DecodeResult<DgeDescriptor>;
}

/** The range or semantic problem of a descriptor value, or undefined when it is valid. */
export function dgeDescriptorProblem(d: DgeDescriptor): Problem | undefined {
  return DGE_DESCRIPTORS.problem(d);
}

/** Bytes a descriptor moves on its source and destination sides. */
export function dgeDescriptorBytes(d: DgeDescriptor): { src: number; dst: number } {
  switch (d.kind) {
    case 'DIRECT2D':
    case 'DIRECT2D_XPOSE':
      return {
        src: d.src_num_elem[0] * d.src_num_elem[1] * d.elem_size,
        dst: d.dst_num_elem[0] * d.dst_num_elem[1] * d.elem_size,
      };
    case 'INDIRECT1D':
    case 'GATHER_XPOSE': {
      const n = d.num_idx * d.row_num_elem * d.elem_size;
      return { src: n, dst: n };
    }
  }
}

/** Typed helper for building a BoundCheck value. */
export function boundCheck(bc_reg: number, enabled = true, disableOobNotif = false): BoundCheck {
  return { bc_reg, bc_enabled: enabled, bc_disable_oob_error_notif: disableOobNotif };
}
