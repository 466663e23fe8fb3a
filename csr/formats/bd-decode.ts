/**
 * Reading 16-byte ring descriptors (bd.ts): the lenient decoders (decode*) and the validating
 * decoders for untrusted bytes (validate*).
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { type ByteView, type DecodeResult, TWO_POW_32, fail, invalidField, ok } from './wire.ts';
import {
  LEN_CTRL,
  LEN_CTRL_TX_RESERVED,
  LEN_CTRL_RX_RESERVED,
  META_CTRL_RESERVED,
  type TxBd,
  type RxBd,
  type CompletionBd,
  bdLen,
  bdRingId,
} from './bd-words.ts';
import { spanOk, spanError, load } from './bd-encode.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const TWO32 = TWO_POW_32;

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
 * Checks that the view holds a whole descriptor at byteOffset (OUT_OF_RANGE naming `where` when
 * not) and hands its four words to `from`.
 */
function decodeWords<T>(
  src: ByteView,
  byteOffset: number,
  where: string,
  from: (w0: number, w1: number, w2: number, w3: number, where: string) => T,
): T {
  if (!spanOk(src, byteOffset)) throw spanError(src, byteOffset, where);
  return from(
    load(src, byteOffset, 0),
    load(src, byteOffset, 1),
    load(src, byteOffset, 2),
    load(src, byteOffset, 3),
    where,
  );
}

/**
 * Decodes a TX descriptor. Lenient: bits outside the named fields are ignored (they stay visible in
 * `len_ctrl` / `meta_ctrl`). Throws OUT_OF_RANGE when the view is too short, DESCRIPTOR_INVALID
 * when buf_ptr is not representable.
 */
export function decodeTx(src: ByteView, byteOffset = 0): TxBd {
  return decodeWords(src, byteOffset, `tx@${String(byteOffset)}`, txFrom);
}

/** Decodes an RX descriptor (lenient, as decodeTx). */
export function decodeRx(src: ByteView, byteOffset = 0): RxBd {
  return decodeWords(src, byteOffset, `rx@${String(byteOffset)}`, rxFrom);
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

/** DESCRIPTOR_INVALID at `at` when word `w` has a bit of the reserved `mask` set. */
function reservedSet(at: string, mask: number, w: number): NxdmaError | undefined {
  return (w & mask) !== 0
    ? invalidField(at, `reserved bits ${hex(mask, 8)} clear`, hex(w, 8))
    : undefined;
}

/** DESCRIPTOR_INVALID at `at` when the high word `hi` puts the address at or above 2^53. */
function addressTooHigh(at: string, hi: number): NxdmaError | undefined {
  return hi > 0x1fffff
    ? invalidField(at, 'an address below 2^53', `high word ${hex(hi, 8)}`)
    : undefined;
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
  const bad =
    reservedSet(`${where}.len_ctrl`, LEN_CTRL_TX_RESERVED, w0) ??
    reservedSet(`${where}.meta_ctrl`, META_CTRL_RESERVED, w1) ??
    addressTooHigh(`${where}.buf_ptr`, w3);
  if (bad !== undefined) return fail(bad);
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
  const bad =
    reservedSet(`${where}.len_ctrl`, LEN_CTRL_RX_RESERVED, w0) ??
    addressTooHigh(`${where}.buf1_ptr`, w3);
  if (bad !== undefined) return fail(bad);
  return ok(rxFrom(w0, load(src, byteOffset, 1), load(src, byteOffset, 2), w3, where));
}
