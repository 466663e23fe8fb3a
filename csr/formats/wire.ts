/**
 * Shared helpers of the hardware wire formats (csr/formats/*): the byte views an encoder writes
 * into, bounds checks, 64-bit addresses as safe JavaScript numbers, and the result type of the
 * validating decoders. Every format is little-endian.
 */
import { NxdmaError, hex } from '../../common/errors.ts';

/** A view an encoder writes into / a decoder reads from. Offsets are bytes from the view's start. */
export type ByteView = Uint8Array | Uint32Array | DataView;

/** Result of a validating decoder: the typed record, or the typed error saying what is wrong. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: NxdmaError };

export const TWO_POW_32 = 4294967296;

/** True on a little-endian host (every platform Node runs on in practice). */
export const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function ok<T>(value: T): DecodeResult<T> {
  return { ok: true, value };
}

export function fail<T>(error: NxdmaError): DecodeResult<T> {
  return { ok: false, error };
}

/** Returns the value of a validating decoder or throws its error. */
export function unwrap<T>(r: DecodeResult<T>): T {
  if (r.ok) return r.value;
  throw r.error;
}

export function isU8(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xff;
}

export function isU16(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff;
}

export function isU32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

/** A device address: a non-negative safe integer (< 2^53), see csr/io.ts. */
export function isAddress(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Byte length of a view. */
export function viewLength(v: ByteView): number {
  return v.byteLength;
}

/**
 * Throws OUT_OF_RANGE unless [byteOffset, byteOffset + size) lies inside the view (and, for a
 * Uint32Array, byteOffset is a multiple of 4).
 */
export function checkSpan(view: ByteView, byteOffset: number, size: number, where: string): void {
  if (
    !Number.isInteger(byteOffset) ||
    byteOffset < 0 ||
    byteOffset + size > view.byteLength ||
    (view instanceof Uint32Array && (byteOffset & 3) !== 0)
  ) {
    throw new NxdmaError(
      'OUT_OF_RANGE',
      `${where}: a ${size}-byte record at byte offset ${String(byteOffset)} does not fit a ` +
        `${view.byteLength}-byte view${view instanceof Uint32Array ? ' (Uint32Array views need a multiple of 4)' : ''}`,
      {
        where,
        expected: `0 <= offset <= ${view.byteLength - size}${view instanceof Uint32Array ? ', offset % 4 == 0' : ''}`,
        actual: byteOffset,
      },
    );
  }
}

/** A DataView over the same bytes (allocates one small object: for the non-hot formats). */
export function asDataView(view: ByteView): DataView {
  if (view instanceof DataView) return view;
  return new DataView(view.buffer, view.byteOffset, view.byteLength);
}

/** Writes the u32 `w` little-endian into four bytes at `o` (bounds checked by the caller). */
export function putU32LE(b: Uint8Array, o: number, w: number): void {
  b[o] = w;
  b[o + 1] = w >>> 8;
  b[o + 2] = w >>> 16;
  b[o + 3] = w >>> 24;
}

/** The little-endian u32 at bytes `o`..`o + 3` (bounds checked by the caller). */
export function getU32LE(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/** Reads a little-endian u64 as a safe number; throws DESCRIPTOR_INVALID when it is >= 2^53. */
export function readU64(dv: DataView, off: number, where: string): number {
  const lo = dv.getUint32(off, true);
  const hi = dv.getUint32(off + 4, true);
  if (hi > 0x1fffff) {
    throw new NxdmaError(
      'DESCRIPTOR_INVALID',
      `${where}: 64-bit value ${hex(hi, 8)}_${hex(lo, 8).slice(2)} is not representable (>= 2^53)`,
      { where, expected: 'a value below 2^53', actual: `${hex(hi, 8)}_${hex(lo, 8).slice(2)}` },
    );
  }
  return hi * TWO_POW_32 + lo;
}

/** Writes a safe non-negative number as a little-endian u64 (caller has validated it). */
export function writeU64(dv: DataView, off: number, v: number): void {
  dv.setUint32(off, v >>> 0, true);
  dv.setUint32(off + 4, Math.floor(v / TWO_POW_32), true);
}

/** Builds the DESCRIPTOR_INVALID error of a field that failed validation. */
export function invalidField(where: string, expected: string, actual: unknown): NxdmaError {
  return new NxdmaError(
    'DESCRIPTOR_INVALID',
    `${where}: expected ${expected}, got ${String(actual)}`,
    {
      where,
      expected,
      actual,
    },
  );
}

/** Builds the BAD_ARGUMENT error of an encoder input that failed validation. */
export function badField(where: string, expected: string, actual: unknown): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `${where}: expected ${expected}, got ${describe(actual)}`, {
    where,
    expected,
    actual: jsonable(actual),
  });
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(describe).join(', ')}]`;
  return String(v);
}

function jsonable(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function' || typeof v === 'symbol') return String(v);
  return v;
}
