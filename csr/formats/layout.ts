/**
 * Fixed-size little-endian record layouts described as data: the one home of the 64-byte DGE
 * descriptors and the 16-byte micro-op records. A layout lists each field's offset, type, count
 * and range; from it come the encoder, the lenient and the validating decoder, the reserved-byte
 * rule (every byte no field covers must be zero) and the Markdown table in docs/descriptors.md.
 *
 * This module is the layout vocabulary (field types and their ranges, the DMA_CONFIGS and
 * BOUND_CHECK_REG bytes); the codec of one layout is record-codec.ts, a family of layouts told
 * apart by their tag byte is record-family.ts.
 */
import { NxdmaError } from '../../common/errors.ts';
import { MAX_PRIORITY_CLASS } from './qos-class.ts';

export type FieldType =
  | 'u8'
  | 'u16'
  | 'u32'
  | 'i16'
  | 'i32'
  | 'u64'
  /** NEURON_ISA_TPB_DMA_CONFIGS: priority_class[2:0], reserved[7:3] must be zero; valid <= 4. */
  | 'dma_configs'
  /** BOUND_CHECK_REG: bc_reg[5:0], bc_disable_oob_error_notif[6], bc_enabled[7]. */
  | 'bound_check';

export interface FieldDef {
  readonly type: FieldType;
  /** Byte offset in the record. */
  readonly offset: number;
  /** Number of consecutive elements (an array field). */
  readonly count?: number;
  /** Allowed range (inclusive) within the type's own range. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values by name (an enumeration). */
  readonly enum?: Readonly<Record<string, number>>;
  readonly doc: string;
}

/** The tag byte that says which record this is (DGE opcode, micro-op code). */
export interface TagDef {
  readonly name: string;
  readonly offset: number;
  readonly value: number;
  readonly doc: string;
}

export interface RecordLayout {
  readonly name: string;
  readonly size: number;
  readonly tag: TagDef;
  readonly fields: Readonly<Record<string, FieldDef>>;
}

/** The decoded BOUND_CHECK_REG byte. */
export interface BoundCheck {
  /** bc_reg[5:0]: which bound register holds the limit. */
  bc_reg: number;
  /** bc_disable_oob_error_notif[6]. */
  bc_disable_oob_error_notif: boolean;
  /** bc_enabled[7]. */
  bc_enabled: boolean;
}

type Scalar<T extends FieldType> = T extends 'bound_check' ? BoundCheck : number;
type Tuple<N extends number, V, A extends V[] = []> = A['length'] extends N
  ? A
  : Tuple<N, V, [...A, V]>;
type ValueOf<F extends FieldDef> = F extends { readonly count: infer N extends number }
  ? Readonly<Tuple<N, Scalar<F['type']>>>
  : Scalar<F['type']>;

/** The typed value of a layout: one property per field (arrays as fixed-length tuples). */
export type RecordValue<L extends RecordLayout> = {
  -readonly [K in keyof L['fields']]: ValueOf<L['fields'][K]>;
};

/** A field-level problem found by a semantic check. */
export interface Problem {
  /** Field path inside the record ('src_num_elem[1]'). */
  field: string;
  expected: string;
  actual: unknown;
}

export const TYPE_SIZE: Record<FieldType, number> = {
  u8: 1,
  u16: 2,
  u32: 4,
  i16: 2,
  i32: 4,
  u64: 8,
  dma_configs: 1,
  bound_check: 1,
};

export const TYPE_RANGE: Record<Exclude<FieldType, 'bound_check'>, [number, number]> = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  i16: [-0x8000, 0x7fff],
  i32: [-0x80000000, 0x7fffffff],
  u64: [0, Number.MAX_SAFE_INTEGER],
  dma_configs: [0, MAX_PRIORITY_CLASS],
};

export function typeSize(t: FieldType): number {
  return TYPE_SIZE[t];
}

// --- DMA_CONFIGS and BOUND_CHECK_REG bytes --------------------------------------------------

/** Reserved bits [7:3] of DMA_CONFIGS (must be zero). */
export const DMA_CONFIGS_RESERVED_MASK = 0xf8;

/** The DMA_CONFIGS byte of a priority class (validates 0..4). */
export function encodeDmaConfigs(priority_class: number): number {
  if (
    !Number.isInteger(priority_class) ||
    priority_class < 0 ||
    priority_class > MAX_PRIORITY_CLASS
  ) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `dma_configs.priority_class: expected an integer 0..${MAX_PRIORITY_CLASS}, got ${String(priority_class)}`,
      {
        where: 'dma_configs.priority_class',
        expected: `0..${MAX_PRIORITY_CLASS}`,
        actual: priority_class,
      },
    );
  }
  return priority_class;
}

export function decodeDmaConfigs(byte: number): {
  priority_class: number;
  reserved_bitfield: number;
} {
  return { priority_class: byte & 7, reserved_bitfield: (byte >>> 3) & 0x1f };
}

/** is_valid_dma_configs: priority_class <= 4 and reserved_bitfield == 0 (seed 004 §7.1). */
export function isValidDmaConfigs(byte: number): boolean {
  return (byte & DMA_CONFIGS_RESERVED_MASK) === 0 && (byte & 7) <= MAX_PRIORITY_CLASS;
}

export function encodeBoundCheck(b: BoundCheck): number {
  return (b.bc_reg & 0x3f) | (b.bc_disable_oob_error_notif ? 0x40 : 0) | (b.bc_enabled ? 0x80 : 0);
}

export function decodeBoundCheck(byte: number): BoundCheck {
  return {
    bc_reg: byte & 0x3f,
    bc_disable_oob_error_notif: (byte & 0x40) !== 0,
    bc_enabled: (byte & 0x80) !== 0,
  };
}

/** A BOUND_CHECK_REG that checks nothing. */
export const NO_BOUND_CHECK: Readonly<BoundCheck> = Object.freeze({
  bc_reg: 0,
  bc_disable_oob_error_notif: false,
  bc_enabled: false,
});
