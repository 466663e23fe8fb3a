/**
 * Writing 16-byte ring descriptors (bd.ts): raw four-word access with the span checked, and the
 * validating encoders (putTx / putRx positional, encodeTx / encodeRx / encodeCompletion with a
 * fields object). Hot path: validate, then four stores; no allocation.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import {
  type ByteView,
  HOST_LITTLE_ENDIAN,
  TWO_POW_32,
  badField,
  getU32LE,
  putU32LE,
} from './wire.ts';
import {
  BD_SIZE,
  BD_MAX_LEN,
  LEN_CTRL,
  META_CTRL_PLAIN_COPY,
  RING_ID_MASK,
  type TxFields,
  type RxFields,
  type CompletionFields,
  lenCtrlFlags,
} from './bd-words.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const LITTLE_ENDIAN_HOST = HOST_LITTLE_ENDIAN;
const TWO32 = TWO_POW_32;
const put32 = putU32LE;
const get32 = getU32LE;
const RID = RING_ID_MASK;

// ---------------------------------------------------------------------------------------------
// Raw 16-byte access.

export function spanError(dst: ByteView, byteOffset: number, where: string): NxdmaError {
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

export function spanOk(v: ByteView, byteOffset: number): boolean {
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
export function load(src: ByteView, o: number, i: number): number {
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
    (ring_id & RID) === ring_id &&
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
  if ((ring_id & RID) !== ring_id)
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
  if (ring !== (ring & RID)) throw badField('completion.ring_id', 'an integer 0..3', ring);
  if (!spanOk(dst, byteOffset)) throw spanError(dst, byteOffset, 'completion');
  const w0 =
    (ring << LEN_CTRL.RING_ID_SHIFT) |
    (f.first ? LEN_CTRL.FIRST : 0) |
    (f.last ? LEN_CTRL.LAST : 0);
  store(dst, byteOffset, w0, 0, 0, 0);
}
