/**
 * The 16-byte UDMA ring descriptor (UDMA-FACTS.md "The 16-byte descriptor"): the one encoder and
 * decoder shared by the driver that writes rings, the lowering that emits BD streams and the mock
 * that executes them. Little-endian, 16 bytes, 16-byte aligned in the ring.
 *
 * | kind                | word 0   | word 1      | words 2-3                          |
 * |---------------------|----------|-------------|------------------------------------|
 * | M2S / TX (source)   | len_ctrl | meta_ctrl   | buf_ptr (u64 source address)       |
 * | S2M / RX (dest.)    | len_ctrl | buf2_ptr_lo | buf1_ptr (u64 destination address) |
 * | completion          | word 0: first[26], last[27] (ring_id[25:24] by analogy); rest opaque |
 *
 * len_ctrl: len[15:0] (65536 is encoded as 0, M2S.cfg_len.encode_64k), ring_id[25:24],
 * first[26], last[27], int_en[28], dmb[30] (TX only). The encoders are the hot path of descriptor
 * emission: they validate every field, then write four words, and never allocate.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import {
  type ByteView,
  type DecodeResult,
  HOST_LITTLE_ENDIAN,
  TWO_POW_32,
  badField,
  fail,
  invalidField,
  ok,
} from './wire.ts';

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
  return (lenCtrl >>> LEN_CTRL.RING_ID_SHIFT) & 3;
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
  if (ring !== (ring & 3)) throw badField('len_ctrl.ring_id', 'an integer 0..3', ring);
  if (f.dmb && !tx)
    throw badField('len_ctrl.dmb', 'false on an RX descriptor (dmb is TX only)', true);
  return (
    ((len & LEN_CTRL.LEN_MASK) |
      (ring << LEN_CTRL.RING_ID_SHIFT) |
      (f.first ? LEN_CTRL.FIRST : 0) |
      (f.last ? LEN_CTRL.LAST : 0) |
      (f.int_en ? LEN_CTRL.INT_EN : 0) |
      (f.dmb ? LEN_CTRL.DMB : 0)) >>>
    0
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

// ---------------------------------------------------------------------------------------------
// Raw 16-byte access.

function spanError(dst: ByteView, byteOffset: number, where: string): NxdmaError {
  const u32 = dst instanceof Uint32Array;
  return new NxdmaError(
    'OUT_OF_RANGE',
    `${where}: a 16-byte descriptor at byte offset ${String(byteOffset)} does not fit a ` +
      `${dst.byteLength}-byte view${u32 ? ' (Uint32Array views need a multiple of 4)' : ''}`,
    {
      where,
      expected: `0 <= offset <= ${dst.byteLength - BD_SIZE}${u32 ? ', offset % 4 == 0' : ''}`,
      actual: byteOffset,
    },
  );
}

function spanOk(v: ByteView, byteOffset: number): boolean {
  return (
    Number.isInteger(byteOffset) &&
    byteOffset >= 0 &&
    byteOffset + BD_SIZE <= v.byteLength &&
    (!(v instanceof Uint32Array) || (byteOffset & 3) === 0)
  );
}

function put32(b: Uint8Array, o: number, w: number): void {
  b[o] = w;
  b[o + 1] = w >>> 8;
  b[o + 2] = w >>> 16;
  b[o + 3] = w >>> 24;
}

function get32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/**
 * Writes four little-endian words at `byteOffset` without any field validation (the span is
 * checked). The typed encoders below are built on it.
 */
export function writeBdWords(
  dst: ByteView,
  byteOffset: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): void {
  if (!spanOk(dst, byteOffset)) throw spanError(dst, byteOffset, 'bd');
  store(dst, byteOffset, w0, w1, w2, w3);
}

function store(dst: ByteView, o: number, w0: number, w1: number, w2: number, w3: number): void {
  if (dst instanceof Uint32Array && HOST_LITTLE_ENDIAN) {
    const i = o >>> 2;
    dst[i] = w0;
    dst[i + 1] = w1;
    dst[i + 2] = w2;
    dst[i + 3] = w3;
  } else if (dst instanceof Uint8Array) {
    put32(dst, o, w0);
    put32(dst, o + 4, w1);
    put32(dst, o + 8, w2);
    put32(dst, o + 12, w3);
  } else {
    const dv =
      dst instanceof DataView ? dst : new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
    dv.setUint32(o, w0, true);
    dv.setUint32(o + 4, w1, true);
    dv.setUint32(o + 8, w2, true);
    dv.setUint32(o + 12, w3, true);
  }
}

/** Reads word `i` (0..3) of the descriptor at `byteOffset` (span already checked). */
function load(src: ByteView, o: number, i: number): number {
  if (src instanceof Uint32Array && HOST_LITTLE_ENDIAN) return src[(o >>> 2) + i];
  if (src instanceof Uint8Array) return get32(src, o + 4 * i);
  const dv =
    src instanceof DataView ? src : new DataView(src.buffer, src.byteOffset, src.byteLength);
  return dv.getUint32(o + 4 * i, true);
}

/** The four little-endian words of the descriptor at `byteOffset`. */
export function readBdWords(src: ByteView, byteOffset = 0): [number, number, number, number] {
  if (!spanOk(src, byteOffset)) throw spanError(src, byteOffset, 'bd');
  return [
    load(src, byteOffset, 0),
    load(src, byteOffset, 1),
    load(src, byteOffset, 2),
    load(src, byteOffset, 3),
  ];
}

// ---------------------------------------------------------------------------------------------
// Encoders (hot path: validate, then four stores; no allocation).

/**
 * Encodes a TX (M2S) descriptor into `dst` at `byteOffset`. Validates every field first (a
 * rejected descriptor writes nothing): len 1..65536, ring_id 0..3, meta_ctrl a u32, buf_ptr a
 * non-negative safe integer.
 */
export function encodeTx(dst: ByteView, byteOffset: number, f: TxFields): void {
  const len = f.len;
  const ring = f.ring_id;
  const buf = f.buf_ptr;
  const meta = f.meta_ctrl === undefined ? META_CTRL_PLAIN_COPY : f.meta_ctrl;
  if (!Number.isInteger(len) || len < 1 || len > BD_MAX_LEN) {
    throw badField('tx.len_ctrl.len', 'an integer 1..65536', len);
  }
  if (ring !== (ring & 3)) throw badField('tx.len_ctrl.ring_id', 'an integer 0..3', ring);
  if (meta !== meta >>> 0) throw badField('tx.meta_ctrl', 'a u32', meta);
  if (!Number.isSafeInteger(buf) || buf < 0) {
    throw badField('tx.buf_ptr', 'a non-negative safe integer address', buf);
  }
  if (!spanOk(dst, byteOffset)) throw spanError(dst, byteOffset, 'tx');
  const w0 =
    (len & LEN_CTRL.LEN_MASK) |
    (ring << LEN_CTRL.RING_ID_SHIFT) |
    (f.first ? LEN_CTRL.FIRST : 0) |
    (f.last ? LEN_CTRL.LAST : 0) |
    (f.int_en ? LEN_CTRL.INT_EN : 0) |
    (f.dmb ? LEN_CTRL.DMB : 0);
  store(dst, byteOffset, w0, meta, buf >>> 0, (buf / TWO_POW_32) >>> 0);
}

/**
 * Encodes an RX (S2M) descriptor into `dst` at `byteOffset`. Validates every field first: len
 * 1..65536, ring_id 0..3, buf2_ptr_lo a u32, buf1_ptr a non-negative safe integer, no dmb.
 */
export function encodeRx(dst: ByteView, byteOffset: number, f: RxFields): void {
  const len = f.len;
  const ring = f.ring_id;
  const buf = f.buf1_ptr;
  const lo2 = f.buf2_ptr_lo === undefined ? 0 : f.buf2_ptr_lo;
  if (!Number.isInteger(len) || len < 1 || len > BD_MAX_LEN) {
    throw badField('rx.len_ctrl.len', 'an integer 1..65536', len);
  }
  if (ring !== (ring & 3)) throw badField('rx.len_ctrl.ring_id', 'an integer 0..3', ring);
  if (lo2 !== lo2 >>> 0) throw badField('rx.buf2_ptr_lo', 'a u32', lo2);
  if (!Number.isSafeInteger(buf) || buf < 0) {
    throw badField('rx.buf1_ptr', 'a non-negative safe integer address', buf);
  }
  if ((f as { dmb?: boolean }).dmb) {
    throw badField('rx.len_ctrl.dmb', 'false on an RX descriptor (dmb is TX only)', true);
  }
  if (!spanOk(dst, byteOffset)) throw spanError(dst, byteOffset, 'rx');
  const w0 =
    (len & LEN_CTRL.LEN_MASK) |
    (ring << LEN_CTRL.RING_ID_SHIFT) |
    (f.first ? LEN_CTRL.FIRST : 0) |
    (f.last ? LEN_CTRL.LAST : 0) |
    (f.int_en ? LEN_CTRL.INT_EN : 0);
  store(dst, byteOffset, w0, lo2, buf >>> 0, (buf / TWO_POW_32) >>> 0);
}

/** Encodes a completion descriptor: word 0 = first[26] | last[27] | ring_id[25:24], words 1-3 zero. */
export function encodeCompletion(dst: ByteView, byteOffset: number, f: CompletionFields): void {
  const ring = f.ring_id ?? 0;
  if (ring !== (ring & 3)) throw badField('completion.ring_id', 'an integer 0..3', ring);
  if (!spanOk(dst, byteOffset)) throw spanError(dst, byteOffset, 'completion');
  const w0 =
    (ring << LEN_CTRL.RING_ID_SHIFT) |
    (f.first ? LEN_CTRL.FIRST : 0) |
    (f.last ? LEN_CTRL.LAST : 0);
  store(dst, byteOffset, w0, 0, 0, 0);
}

// ---------------------------------------------------------------------------------------------
// Decoders.

function address(lo: number, hi: number, where: string): number {
  if (hi > 0x1fffff) {
    throw new NxdmaError(
      'DESCRIPTOR_INVALID',
      `${where}: address ${hex(hi, 8)}_${hex(lo, 8).slice(2)} is not representable (>= 2^53)`,
      { where, expected: 'an address below 2^53', actual: `${hex(hi, 8)}_${hex(lo, 8).slice(2)}` },
    );
  }
  return hi * TWO_POW_32 + lo;
}

function txFrom(w0: number, w1: number, w2: number, w3: number, where: string): TxBd {
  return {
    len: bdLen(w0),
    ring_id: bdRingId(w0),
    first: (w0 & LEN_CTRL.FIRST) !== 0,
    last: (w0 & LEN_CTRL.LAST) !== 0,
    int_en: (w0 & LEN_CTRL.INT_EN) !== 0,
    dmb: (w0 & LEN_CTRL.DMB) !== 0,
    len_ctrl: w0,
    meta_ctrl: w1,
    buf_ptr: address(w2, w3, `${where}.buf_ptr`),
  };
}

function rxFrom(w0: number, w1: number, w2: number, w3: number, where: string): RxBd {
  return {
    len: bdLen(w0),
    ring_id: bdRingId(w0),
    first: (w0 & LEN_CTRL.FIRST) !== 0,
    last: (w0 & LEN_CTRL.LAST) !== 0,
    int_en: (w0 & LEN_CTRL.INT_EN) !== 0,
    len_ctrl: w0,
    buf2_ptr_lo: w1,
    buf1_ptr: address(w2, w3, `${where}.buf1_ptr`),
  };
}

/**
 * Decodes a TX descriptor. Lenient: bits outside the named fields are ignored (they stay visible in
 * `len_ctrl` / `meta_ctrl`). Throws OUT_OF_RANGE when the view is too short, DESCRIPTOR_INVALID
 * when buf_ptr is not representable.
 */
export function decodeTx(src: ByteView, byteOffset = 0): TxBd {
  const where = `tx@${String(byteOffset)}`;
  if (!spanOk(src, byteOffset)) throw spanError(src, byteOffset, where);
  return txFrom(
    load(src, byteOffset, 0),
    load(src, byteOffset, 1),
    load(src, byteOffset, 2),
    load(src, byteOffset, 3),
    where,
  );
}

/** Decodes an RX descriptor (lenient, as decodeTx). */
export function decodeRx(src: ByteView, byteOffset = 0): RxBd {
  const where = `rx@${String(byteOffset)}`;
  if (!spanOk(src, byteOffset)) throw spanError(src, byteOffset, where);
  return rxFrom(
    load(src, byteOffset, 0),
    load(src, byteOffset, 1),
    load(src, byteOffset, 2),
    load(src, byteOffset, 3),
    where,
  );
}

/** Decodes a completion descriptor. */
export function decodeCompletion(src: ByteView, byteOffset = 0): CompletionBd {
  if (!spanOk(src, byteOffset))
    throw spanError(src, byteOffset, `completion@${String(byteOffset)}`);
  const w0 = load(src, byteOffset, 0);
  return {
    first: (w0 & LEN_CTRL.FIRST) !== 0,
    last: (w0 & LEN_CTRL.LAST) !== 0,
    ring_id: bdRingId(w0),
    words: [w0, load(src, byteOffset, 1), load(src, byteOffset, 2), load(src, byteOffset, 3)],
  };
}

/**
 * Validating TX decoder for untrusted bytes: never throws; returns the descriptor when it is one
 * nxdma would write (no reserved len_ctrl bit, no meta_ctrl bit outside the named ones, buf_ptr
 * below 2^53, the view long enough), else the typed error.
 */
export function validateTx(src: ByteView, byteOffset = 0): DecodeResult<TxBd> {
  const where = `tx@${String(byteOffset)}`;
  if (!spanOk(src, byteOffset)) return fail(spanError(src, byteOffset, where));
  const w0 = load(src, byteOffset, 0);
  const w1 = load(src, byteOffset, 1);
  const w3 = load(src, byteOffset, 3);
  if ((w0 & LEN_CTRL_TX_RESERVED) !== 0) {
    return fail(
      invalidField(
        `${where}.len_ctrl`,
        `reserved bits ${hex(LEN_CTRL_TX_RESERVED, 8)} clear`,
        hex(w0, 8),
      ),
    );
  }
  if ((w1 & META_CTRL_RESERVED) !== 0) {
    return fail(
      invalidField(
        `${where}.meta_ctrl`,
        `reserved bits ${hex(META_CTRL_RESERVED, 8)} clear`,
        hex(w1, 8),
      ),
    );
  }
  if (w3 > 0x1fffff) {
    return fail(
      invalidField(`${where}.buf_ptr`, 'an address below 2^53', `high word ${hex(w3, 8)}`),
    );
  }
  return ok(txFrom(w0, w1, load(src, byteOffset, 2), w3, where));
}

/**
 * Validating RX decoder for untrusted bytes: never throws; rejects reserved len_ctrl bits
 * (including dmb) and a buf1_ptr at or above 2^53.
 */
export function validateRx(src: ByteView, byteOffset = 0): DecodeResult<RxBd> {
  const where = `rx@${String(byteOffset)}`;
  if (!spanOk(src, byteOffset)) return fail(spanError(src, byteOffset, where));
  const w0 = load(src, byteOffset, 0);
  const w3 = load(src, byteOffset, 3);
  if ((w0 & LEN_CTRL_RX_RESERVED) !== 0) {
    return fail(
      invalidField(
        `${where}.len_ctrl`,
        `reserved bits ${hex(LEN_CTRL_RX_RESERVED, 8)} clear`,
        hex(w0, 8),
      ),
    );
  }
  if (w3 > 0x1fffff) {
    return fail(
      invalidField(`${where}.buf1_ptr`, 'an address below 2^53', `high word ${hex(w3, 8)}`),
    );
  }
  return ok(rxFrom(w0, load(src, byteOffset, 1), load(src, byteOffset, 2), w3, where));
}
