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
 * first[26], last[27], int_en[28], dmb[30] (TX only).
 *
 * Three encoder forms, all validating every field before writing and none allocating:
 * encodeTx / encodeRx take a fields object; putTx / putRx take positional arguments; BdRings holds
 * a TX and an RX ring whose views it checks once, for emission loops (putCopyPair writes both
 * descriptors of one copy chunk). decode* read leniently, validate* check untrusted bytes.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import {
  type ByteView,
  type DecodeResult,
  HOST_LITTLE_ENDIAN,
  TWO_POW_32,
  badField,
  fail,
  getU32LE,
  invalidField,
  ok,
  putU32LE,
} from './wire.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const LITTLE_ENDIAN_HOST = HOST_LITTLE_ENDIAN;
const TWO32 = TWO_POW_32;
const put32 = putU32LE;
const get32 = getU32LE;

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
  return ((len & LEN_CTRL.LEN_MASK) | (ring << LEN_CTRL.RING_ID_SHIFT) | lenCtrlFlags(f)) >>> 0;
}

/** The len_ctrl flag bits (first, last, int_en, dmb) of a fields object. */
function lenCtrlFlags(f: {
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
  if (dst instanceof Uint32Array && LITTLE_ENDIAN_HOST) {
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
  if (src instanceof Uint32Array && LITTLE_ENDIAN_HOST) return src[(o >>> 2) + i];
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

/** len_ctrl flag bits a TX descriptor may carry: first | last | int_en | dmb. */
export const LEN_CTRL_TX_FLAGS = 0x5c000000;
/** len_ctrl flag bits an RX descriptor may carry: first | last | int_en. */
export const LEN_CTRL_RX_FLAGS = 0x1c000000;

/**
 * Positional TX encoder, the form emission loops use: `flags` is an OR of LEN_CTRL.FIRST, LAST,
 * INT_EN and DMB. Validates every argument first (a rejected descriptor writes nothing): len
 * 1..65536, ring_id 0..3, flags within LEN_CTRL_TX_FLAGS, meta_ctrl a u32, buf_ptr a non-negative
 * safe integer, the 16 bytes inside the view. Kept small so the engine inlines it; the error is
 * built off the hot path.
 */
export function putTx(
  dst: ByteView,
  byteOffset: number,
  len: number,
  ring_id: number,
  flags: number,
  buf_ptr: number,
  meta_ctrl: number = META_CTRL_PLAIN_COPY,
): void {
  putBd('tx', LEN_CTRL_TX_FLAGS, dst, byteOffset, len, ring_id, flags, meta_ctrl, buf_ptr);
}

/**
 * Positional RX encoder: `flags` is an OR of LEN_CTRL.FIRST, LAST and INT_EN (no dmb on RX).
 * Validates as putTx; buf2_ptr_lo (default 0) must be a u32.
 */
export function putRx(
  dst: ByteView,
  byteOffset: number,
  len: number,
  ring_id: number,
  flags: number,
  buf1_ptr: number,
  buf2_ptr_lo = 0,
): void {
  putBd('rx', LEN_CTRL_RX_FLAGS, dst, byteOffset, len, ring_id, flags, buf2_ptr_lo, buf1_ptr);
}

/**
 * putTx / putRx: validates len, ring_id, the flags against `allowed`, word 1 (meta_ctrl /
 * buf2_ptr_lo) and the address, then writes len_ctrl, word 1 and the address's lo / hi words.
 */
function putBd(
  side: 'tx' | 'rx',
  allowed: number,
  dst: ByteView,
  byteOffset: number,
  len: number,
  ring_id: number,
  flags: number,
  word1: number,
  buf: number,
): void {
  // lo/hi split of the address; it is a safe non-negative integer exactly when they rebuild it
  const lo = buf >>> 0;
  const hi = (buf / TWO32) >>> 0;
  if (
    (len | 0) === len &&
    (len - 1) >>> 16 === 0 &&
    (ring_id & 3) === ring_id &&
    (flags & allowed) === flags &&
    word1 >>> 0 === word1 &&
    hi <= 0x1fffff &&
    hi * TWO32 + lo === buf
  ) {
    const w0 = (len & 0xffff) | (ring_id << 24) | flags;
    if (dst instanceof Uint32Array && LITTLE_ENDIAN_HOST) {
      if (words32(dst, byteOffset, w0, word1, lo, hi)) return;
    } else if (spanOk(dst, byteOffset)) {
      store(dst, byteOffset, w0, word1, lo, hi);
      return;
    }
  }
  throw bdError(side, dst, byteOffset, len, ring_id, flags, buf, word1);
}

function fits32(v: Uint32Array, o: number): boolean {
  // an in-bounds element read is the bounds check the stores need anyway (an out-of-range read
  // gives undefined), and is cheaper than reading the view's length
  return (o | 0) === o && o >= 0 && (o & 3) === 0 && v[(o >> 2) + 3] !== undefined;
}

/**
 * Four aligned word stores into a Uint32Array ring on a little-endian host; false (nothing written)
 * when the 16 bytes do not fit. A function of its own so its element stores only ever see
 * Uint32Array, whatever other views the encoders are used with.
 */
function words32(
  dst: Uint32Array,
  o: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): boolean {
  if (fits32(dst, o)) {
    const i = o >>> 2;
    dst[i] = w0;
    dst[i + 1] = w1;
    dst[i + 2] = w2;
    dst[i + 3] = w3;
    return true;
  }
  return false;
}

/** The error of a descriptor putTx / putRx refused (cold path): names the first bad field. */
function bdError(
  side: 'tx' | 'rx',
  dst: ByteView,
  byteOffset: number,
  len: number,
  ring_id: number,
  flags: number,
  buf: number,
  word1: number,
): NxdmaError {
  if (!Number.isInteger(len) || len < 1 || len > BD_MAX_LEN) {
    return badField(`${side}.len_ctrl.len`, 'an integer 1..65536', len);
  }
  if ((ring_id & 3) !== ring_id)
    return badField(`${side}.len_ctrl.ring_id`, 'an integer 0..3', ring_id);
  if (side === 'rx' && (flags & LEN_CTRL.DMB) !== 0) {
    return badField('rx.len_ctrl.dmb', 'false on an RX descriptor (dmb is TX only)', true);
  }
  const allowed = side === 'tx' ? LEN_CTRL_TX_FLAGS : LEN_CTRL_RX_FLAGS;
  if ((flags & allowed) !== flags) {
    return badField(`${side}.len_ctrl.flags`, `only bits ${hex(allowed, 8)}`, flags);
  }
  if (word1 >>> 0 !== word1) {
    return badField(side === 'tx' ? 'tx.meta_ctrl' : 'rx.buf2_ptr_lo', 'a u32', word1);
  }
  if (!Number.isSafeInteger(buf) || buf < 0) {
    return badField(
      side === 'tx' ? 'tx.buf_ptr' : 'rx.buf1_ptr',
      'a non-negative safe integer address',
      buf,
    );
  }
  return spanError(dst, byteOffset, side);
}

/**
 * Encodes a TX (M2S) descriptor into `dst` at `byteOffset`. Validates every field first (a
 * rejected descriptor writes nothing): len 1..65536, ring_id 0..3, meta_ctrl a u32 (default
 * META_CTRL_PLAIN_COPY), buf_ptr a non-negative safe integer, the 16 bytes inside the view.
 */
export function encodeTx(dst: ByteView, byteOffset: number, f: TxFields): void {
  const meta = f.meta_ctrl;
  putTx(
    dst,
    byteOffset,
    f.len,
    f.ring_id,
    lenCtrlFlags(f),
    f.buf_ptr,
    meta === undefined ? META_CTRL_PLAIN_COPY : meta,
  );
}

/**
 * Encodes an RX (S2M) descriptor into `dst` at `byteOffset`. Validates every field first: len
 * 1..65536, ring_id 0..3, buf2_ptr_lo a u32 (default 0), buf1_ptr a non-negative safe integer,
 * no dmb, the 16 bytes inside the view.
 */
export function encodeRx(dst: ByteView, byteOffset: number, f: RxFields): void {
  const lo2 = f.buf2_ptr_lo;
  // an RX fields object carrying dmb is refused by putRx (dmb is TX only)
  putRx(
    dst,
    byteOffset,
    f.len,
    f.ring_id,
    lenCtrlFlags(f),
    f.buf1_ptr,
    lo2 === undefined ? 0 : lo2,
  );
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
  return hi * TWO32 + lo;
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

// ---------------------------------------------------------------------------------------------
// Ring views for emission loops.

/**
 * A TX (M2S) ring and an RX (S2M) ring seen as 32-bit words, for emission loops. The views' type,
 * alignment and size are checked once, here; each put then checks only its own fields and slot,
 * and writes four words per descriptor (bench/bd.bench.ts measures it against a raw fill). Slots
 * are descriptor indices (byte offset / 16). Little-endian hosts only (every platform Node runs
 * on); elsewhere use putTx / putRx.
 */
export class BdRings {
  /** The TX ring's words. */
  readonly tx: Uint32Array;
  /** The RX ring's words. */
  readonly rx: Uint32Array;
  /** Whole descriptors in each ring. */
  readonly txSlots: number;
  readonly rxSlots: number;

  constructor(tx: ByteView, rx: ByteView) {
    if (!LITTLE_ENDIAN_HOST) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        'BdRings needs a little-endian host; use putTx / putRx',
        {
          where: 'BdRings',
          expected: 'a little-endian host',
          actual: 'big-endian',
        },
      );
    }
    this.tx = words(tx, 'BdRings.tx');
    this.rx = words(rx, 'BdRings.rx');
    this.txSlots = this.tx.length >>> 2;
    this.rxSlots = this.rx.length >>> 2;
  }

  /**
   * Writes the TX and RX descriptors of one chunk of a memory-to-memory copy (UDMA-FACTS "Memory-
   * to-memory copy": the M2S half reads `src`, the S2M half of the same queue writes `dst`, with
   * the same chunking): TX in slot `txSlot` under `txRingId`, RX in slot `rxSlot` under
   * `rxRingId`, both `len` bytes. `flags` (first | last | int_en | dmb) apply to TX and, without
   * dmb, to RX; meta_ctrl is META_CTRL_PLAIN_COPY and buf2_ptr_lo 0. Both are validated before
   * either is written.
   */
  putCopyPair(
    txSlot: number,
    txRingId: number,
    rxSlot: number,
    rxRingId: number,
    len: number,
    flags: number,
    src: number,
    dst: number,
  ): void {
    const slo = src >>> 0;
    const shi = (src / TWO32) >>> 0;
    const dlo = dst >>> 0;
    const dhi = (dst / TWO32) >>> 0;
    if (
      (len | 0) === len &&
      (len - 1) >>> 16 === 0 &&
      (txRingId & 3) === txRingId &&
      (rxRingId & 3) === rxRingId &&
      (flags & LEN_CTRL_TX_FLAGS) === flags &&
      shi <= 0x1fffff &&
      shi * TWO32 + slo === src &&
      dhi <= 0x1fffff &&
      dhi * TWO32 + dlo === dst &&
      txSlot >>> 0 === txSlot &&
      txSlot < this.txSlots &&
      rxSlot >>> 0 === rxSlot &&
      rxSlot < this.rxSlots
    ) {
      const w0 = (len & 0xffff) | flags;
      const tx = this.tx;
      const rx = this.rx;
      let i = txSlot << 2;
      tx[i] = w0 | (txRingId << 24);
      tx[i + 1] = META_CTRL_PLAIN_COPY;
      tx[i + 2] = slo;
      tx[i + 3] = shi;
      i = rxSlot << 2;
      rx[i] = (w0 & RX_KEEP) | (rxRingId << 24);
      rx[i + 1] = 0;
      rx[i + 2] = dlo;
      rx[i + 3] = dhi;
      return;
    }
    throw this.pairError(txSlot, txRingId, rxSlot, rxRingId, len, flags, src, dst);
  }

  /** putTx into slot `slot` of the TX ring. */
  putTx(
    slot: number,
    len: number,
    ring_id: number,
    flags: number,
    buf_ptr: number,
    meta_ctrl = META_CTRL_PLAIN_COPY,
  ): void {
    if (slot >>> 0 !== slot || slot >= this.txSlots) throw slotError('tx', slot, this.txSlots);
    putTx(this.tx, slot * BD_SIZE, len, ring_id, flags, buf_ptr, meta_ctrl);
  }

  /** putRx into slot `slot` of the RX ring. */
  putRx(
    slot: number,
    len: number,
    ring_id: number,
    flags: number,
    buf1_ptr: number,
    buf2_ptr_lo = 0,
  ): void {
    if (slot >>> 0 !== slot || slot >= this.rxSlots) throw slotError('rx', slot, this.rxSlots);
    putRx(this.rx, slot * BD_SIZE, len, ring_id, flags, buf1_ptr, buf2_ptr_lo);
  }

  private pairError(
    txSlot: number,
    txRingId: number,
    rxSlot: number,
    rxRingId: number,
    len: number,
    flags: number,
    src: number,
    dst: number,
  ): NxdmaError {
    if (txSlot >>> 0 !== txSlot || txSlot >= this.txSlots)
      return slotError('tx', txSlot, this.txSlots);
    if (rxSlot >>> 0 !== rxSlot || rxSlot >= this.rxSlots)
      return slotError('rx', rxSlot, this.rxSlots);
    const probe = new Uint32Array(4);
    try {
      putTx(probe, 0, len, txRingId, flags, src);
      putRx(probe, 0, len, rxRingId, flags & RX_KEEP, dst);
    } catch (e) {
      return e as NxdmaError;
    }
    return badField('copy pair', 'valid fields', { len, flags });
  }
}

/** len_ctrl bits an RX descriptor of a copy keeps from the TX flags (all but dmb). */
const RX_KEEP = ~LEN_CTRL.DMB;

function slotError(side: 'tx' | 'rx', slot: number, slots: number): NxdmaError {
  return new NxdmaError(
    'OUT_OF_RANGE',
    `${side} ring: slot ${String(slot)} is outside the ring (0..${slots - 1})`,
    { where: `${side}.slot`, expected: `an integer 0..${slots - 1}`, actual: slot },
  );
}

function words(v: ByteView, where: string): Uint32Array {
  if (v instanceof Uint32Array) return v;
  if (
    (v instanceof Uint8Array || v instanceof DataView) &&
    v.byteOffset % 4 === 0 &&
    v.byteLength % 4 === 0
  ) {
    return new Uint32Array(v.buffer, v.byteOffset, v.byteLength / 4);
  }
  throw new NxdmaError(
    'BAD_ARGUMENT',
    `${where}: a ring view must be a Uint32Array, or a Uint8Array / DataView 4-byte aligned in its buffer`,
    {
      where,
      expected: 'a 4-byte aligned view',
      actual:
        v && typeof v === 'object'
          ? `${v.constructor.name} at byteOffset ${String((v as { byteOffset?: number }).byteOffset)}`
          : String(v),
    },
  );
}
