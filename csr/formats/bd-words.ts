/**
 * The 16-byte ring descriptor's words (bd.ts): sizes, the len_ctrl and meta_ctrl bit layouts, the
 * field types of each descriptor kind, and the small helpers on raw words the mock's data path and
 * the lowering use (length, ring id, descriptor count, len_ctrl / meta_ctrl encoding).
 */
import { badField } from './wire.ts';

/** One ring descriptor is 16 bytes. */
export const BD_SIZE = 16;
/** A descriptor moves at most 64 KiB (encoded as length 0). */
export const BD_MAX_LEN = 65536;

/** len_ctrl (word 0) bits. */
export const LEN_CTRL = {
  /** len[15:0]: byte count; 0 means 65536. */
  LEN_MASK: 0x0000ffff,
  /** ring_id[25:24]: the ring id (phase) the descriptor was written under. */
  RING_ID_SHIFT: 24,
  RING_ID_MASK: 0x03000000,
  /** first[26]: first descriptor of a packet. */
  FIRST: 0x04000000,
  /** last[27]: last descriptor of a packet. */
  LAST: 0x08000000,
  /** int_en[28]: raise an interrupt on completion. */
  INT_EN: 0x10000000,
  /** dmb[30] (TX only): every earlier transfer completes before this one starts. */
  DMB: 0x40000000,
} as const;

/**
 * Ring ids are the 2-bit len_ctrl.ring_id[25:24] of a descriptor (and of the head and tail
 * pointers): 0..3, so the id increments mod 4. Re-exported by ring.ts, the home of the ring rules;
 * defined here, beside the len_ctrl layout it derives from, so the descriptor codec needs no import
 * of ring.ts (which imports this module).
 */
export const RING_ID_MASK = LEN_CTRL.RING_ID_MASK >>> LEN_CTRL.RING_ID_SHIFT;

/** len_ctrl bits no TX descriptor nxdma writes sets: 23:16, 29, 31. */
export const LEN_CTRL_TX_RESERVED = 0xa0ff0000;
/** len_ctrl bits no RX descriptor nxdma writes sets: 23:16, 29, 30 (dmb is TX only), 31. */
export const LEN_CTRL_RX_RESERVED = 0xe0ff0000;

/** meta_ctrl (TX word 1) bits. */
export const META_CTRL = {
  /** is_last_block[0]. */
  IS_LAST_BLOCK: 0x00000001,
  /** is_first_block[1]. */
  IS_FIRST_BLOCK: 0x00000002,
  /** copy_source_data[19]. */
  COPY_SOURCE_DATA: 0x00080000,
  /** op[25:23]. */
  OP_SHIFT: 23,
  OP_MASK: 0x03800000,
  /** write barrier[26] (unused by a plain copy). */
  WRITE_BARRIER: 0x04000000,
} as const;

/** meta_ctrl op[25:23] values. */
export const META_CTRL_OP = {
  /** A plain copy (0b010). */
  COPY: 0b010,
} as const;

/** meta_ctrl of a plain copy: is_last_block | is_first_block | copy_source_data | op = COPY. */
export const META_CTRL_PLAIN_COPY = 0x01080003;

/** meta_ctrl bits outside the named ones (CRC, byte swap: never set by nxdma). */
export const META_CTRL_RESERVED = 0xf877fffc;

/** Fields of len_ctrl common to TX and RX descriptors. */
export interface LenCtrlFields {
  /** Byte count, 1..65536. */
  len: number;
  /** Ring id 0..3 (the producer's phase). */
  ring_id: number;
  first?: boolean;
  last?: boolean;
  int_en?: boolean;
}

/** Input of `encodeTx`. */
export interface TxFields extends LenCtrlFields {
  dmb?: boolean;
  /** Word 1; default META_CTRL_PLAIN_COPY. */
  meta_ctrl?: number;
  /** Source address (a safe integer < 2^53). */
  buf_ptr: number;
}

/** Input of `encodeRx`. */
export interface RxFields extends LenCtrlFields {
  /** Destination address (a safe integer < 2^53). */
  buf1_ptr: number;
  /** Word 1; default 0 (unused by a plain copy). */
  buf2_ptr_lo?: number;
}

/** A decoded TX (M2S) descriptor. */
export interface TxBd {
  len: number;
  ring_id: number;
  first: boolean;
  last: boolean;
  int_en: boolean;
  dmb: boolean;
  /** The raw word 0. */
  len_ctrl: number;
  meta_ctrl: number;
  buf_ptr: number;
}

/** A decoded RX (S2M) descriptor. */
export interface RxBd {
  len: number;
  ring_id: number;
  first: boolean;
  last: boolean;
  int_en: boolean;
  /** The raw word 0. */
  len_ctrl: number;
  buf2_ptr_lo: number;
  buf1_ptr: number;
}

/** Input of `encodeCompletion`. */
export interface CompletionFields {
  first?: boolean;
  last?: boolean;
  /** Ring id 0..3 of the completion ring (same bits as len_ctrl; nxdma's reading). */
  ring_id?: number;
}

/** A decoded completion descriptor. Only word 0 has known fields; words 1-3 are kept raw. */
export interface CompletionBd {
  first: boolean;
  last: boolean;
  ring_id: number;
  words: [number, number, number, number];
}

/** Fields of a meta_ctrl word. */
export interface MetaCtrlFields {
  is_last_block: boolean;
  is_first_block: boolean;
  copy_source_data: boolean;
  /** op[25:23], 0..7. */
  op: number;
  write_barrier: boolean;
}

// ---------------------------------------------------------------------------------------------
// Small helpers on raw words (used by the mock's data path and the lowering).

/** Byte count of a len_ctrl word (length 0 means 65536). */
export function bdLen(lenCtrl: number): number {
  return lenCtrl & LEN_CTRL.LEN_MASK || BD_MAX_LEN;
}

/** Ring id of a len_ctrl (or completion word 0). */
export function bdRingId(lenCtrl: number): number {
  return (lenCtrl >>> LEN_CTRL.RING_ID_SHIFT) & RING_ID_MASK;
}

/** Number of descriptors a transfer of `bytes` takes (chunks of at most 64 KiB; 0 for 0 bytes). */
export function bdCount(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw badField('bdCount.bytes', 'a non-negative safe integer', bytes);
  }
  return Math.ceil(bytes / BD_MAX_LEN);
}

/**
 * Encodes len_ctrl, validating every field. `tx` allows dmb; on RX dmb must be absent or false.
 */
export function encodeLenCtrl(f: LenCtrlFields & { dmb?: boolean }, tx = true): number {
  const len = f.len;
  const ring = f.ring_id;
  if (!Number.isInteger(len) || len < 1 || len > BD_MAX_LEN) {
    throw badField('len_ctrl.len', 'an integer 1..65536', len);
  }
  if (ring !== (ring & RING_ID_MASK)) throw badField('len_ctrl.ring_id', 'an integer 0..3', ring);
  if (f.dmb && !tx)
    throw badField('len_ctrl.dmb', 'false on an RX descriptor (dmb is TX only)', true);
  return ((len & LEN_CTRL.LEN_MASK) | (ring << LEN_CTRL.RING_ID_SHIFT) | lenCtrlFlags(f)) >>> 0;
}

/** The len_ctrl flag bits (first, last, int_en, dmb) of a fields object. */
export function lenCtrlFlags(f: {
  first?: boolean;
  last?: boolean;
  int_en?: boolean;
  dmb?: boolean;
}): number {
  return (
    (f.first ? LEN_CTRL.FIRST : 0) |
    (f.last ? LEN_CTRL.LAST : 0) |
    (f.int_en ? LEN_CTRL.INT_EN : 0) |
    (f.dmb ? LEN_CTRL.DMB : 0)
  );
}

export function encodeMetaCtrl(f: Partial<MetaCtrlFields>): number {
  const op = f.op ?? META_CTRL_OP.COPY;
  if (op !== (op & 7)) throw badField('meta_ctrl.op', 'an integer 0..7', op);
  return (
    ((f.is_last_block ? META_CTRL.IS_LAST_BLOCK : 0) |
      (f.is_first_block ? META_CTRL.IS_FIRST_BLOCK : 0) |
      (f.copy_source_data ? META_CTRL.COPY_SOURCE_DATA : 0) |
      (op << META_CTRL.OP_SHIFT) |
      (f.write_barrier ? META_CTRL.WRITE_BARRIER : 0)) >>>
    0
  );
}

export function decodeMetaCtrl(word: number): MetaCtrlFields {
  return {
    is_last_block: (word & META_CTRL.IS_LAST_BLOCK) !== 0,
    is_first_block: (word & META_CTRL.IS_FIRST_BLOCK) !== 0,
    copy_source_data: (word & META_CTRL.COPY_SOURCE_DATA) !== 0,
    op: (word & META_CTRL.OP_MASK) >>> META_CTRL.OP_SHIFT,
    write_barrier: (word & META_CTRL.WRITE_BARRIER) !== 0,
  };
}
