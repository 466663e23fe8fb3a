/**
 * The Pool DGE core's DIRECT2D engine: "DIRECT2D (Pool) compute_op can fuse a reduction: NONE=0,
 * ADD=1, MULTIPLY=2, MAX=3, MIN=4 — so a Pool descriptor can do B op= A in transfer" (seed 004
 * §4.1). One 64-byte DIRECT2D descriptor is executed element by element: the n-th source element
 * of the 2-D source walk meets the n-th element of the 2-D destination walk, dst = dst op src.
 *
 * The element arithmetic, per DgeDtype (the seed gives the ops, not their numerics; nxdma's
 * reading, docs/mock.md "DGE cores"):
 * - integers (UINT8..INT32): two's complement, wrapping modulo 2^bits (ADD, MULTIPLY); MAX / MIN
 *   compare as signed or unsigned per the dtype;
 * - FP32, FP16, BF16: IEEE-754, the exact result rounded once to the dtype, to nearest, ties to
 *   even (subnormals kept, overflow to infinity); MAX / MIN return one operand (-0 < +0); a NaN
 *   operand or result gives the dtype's canonical quiet NaN (0x7FC00000, 0x7E00, 0x7FC0);
 * - RAW has no arithmetic: only NONE.
 *
 * This file is the mock's own implementation; the reference interpreter (compiler/interp) has an
 * independent one and a property test checks they agree bit for bit.
 */
import { NxdmaError } from '../common/errors.ts';
import { ComputeOp, DgeDtype, type Direct2D } from '../csr/formats/dge-desc.ts';
import type { MemoryIO } from '../csr/io.ts';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Canonical quiet NaNs. */
export const CANONICAL_NAN = { fp32: 0x7fc00000, fp16: 0x7e00, bf16: 0x7fc0 } as const;

function f32FromBits(b: number): number {
  u32[0] = b >>> 0;
  return f32[0];
}
function f32Bits(v: number): number {
  f32[0] = v;
  return u32[0];
}

function fp16ToNumber(h: number): number {
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  const s = h & 0x8000 ? -1 : 1;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m === 0 ? s * Infinity : NaN;
  return s * (1024 + m) * 2 ** (e - 25);
}

/**
 * A finite or infinite number (not NaN) to FP16 bits, rounded to nearest even. Via FP32 (exact for
 * double -> float -> half: 24 >= 2 * 11 + 2 bits, so the double rounding is innocuous).
 */
function numberToFp16(v: number): number {
  const x = f32Bits(v);
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00; // infinity (NaN is handled by the caller)
  const e = exp - 112; // rebias 127 -> 15
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal: +-0
    const full = mant | 0x800000;
    const shift = 14 - e;
    let h = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (h & 1) === 1)) h++;
    return sign | h; // a carry into the exponent field is the correct smallest normal
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++;
  return sign | (h >= 0x7c00 ? 0x7c00 : h);
}

function bf16ToNumber(b: number): number {
  return f32FromBits((b & 0xffff) << 16);
}

/** A number (not NaN) to BF16 bits: to FP32 (innocuous first rounding), then nearest even. */
function numberToBf16(v: number): number {
  const x = f32Bits(v);
  const lower = x & 0xffff;
  let hi = x >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && (hi & 1) === 1)) hi++;
  return hi & 0xffff;
}

/** Element size in bytes of each DgeDtype. */
const SIZE: Readonly<Record<number, number>> = {
  [DgeDtype.UINT8]: 1,
  [DgeDtype.INT8]: 1,
  [DgeDtype.UINT16]: 2,
  [DgeDtype.INT16]: 2,
  [DgeDtype.UINT32]: 4,
  [DgeDtype.INT32]: 4,
  [DgeDtype.FP16]: 2,
  [DgeDtype.BF16]: 2,
  [DgeDtype.FP32]: 4,
};

function readLE(b: Uint8Array, o: number, n: number): number {
  if (n === 1) return b[o];
  if (n === 2) return b[o] | (b[o + 1] << 8);
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

function writeLE(b: Uint8Array, o: number, n: number, v: number): void {
  b[o] = v & 0xff;
  if (n > 1) b[o + 1] = (v >>> 8) & 0xff;
  if (n > 2) {
    b[o + 2] = (v >>> 16) & 0xff;
    b[o + 3] = (v >>> 24) & 0xff;
  }
}

function intOp(op: number, bits: number, signed: boolean, d: number, s: number): number {
  const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
  const sx = (v: number) => (signed ? (v << (32 - bits)) >> (32 - bits) : v);
  switch (op) {
    case ComputeOp.ADD:
      return ((d + s) & mask) >>> 0;
    case ComputeOp.MULTIPLY:
      return (Math.imul(d, s) & mask) >>> 0;
    case ComputeOp.MAX:
      return sx(d) >= sx(s) ? d : s;
    case ComputeOp.MIN:
      return sx(d) <= sx(s) ? d : s;
    default:
      return s;
  }
}

function floatOp(op: number, a: number, b: number): number {
  switch (op) {
    case ComputeOp.ADD:
      return a + b;
    case ComputeOp.MULTIPLY:
      return a * b;
    case ComputeOp.MAX:
      return Math.max(a, b);
    case ComputeOp.MIN:
      return Math.min(a, b);
    default:
      return b;
  }
}

/**
 * dst op src for one element of `dtype`, on raw little-endian element bits; returns the bits to
 * store. NONE returns src.
 */
export function computeElement(
  dtype: number,
  op: number,
  dstBits: number,
  srcBits: number,
): number {
  if (op === ComputeOp.NONE) return srcBits;
  switch (dtype) {
    case DgeDtype.UINT8:
      return intOp(op, 8, false, dstBits, srcBits);
    case DgeDtype.INT8:
      return intOp(op, 8, true, dstBits, srcBits);
    case DgeDtype.UINT16:
      return intOp(op, 16, false, dstBits, srcBits);
    case DgeDtype.INT16:
      return intOp(op, 16, true, dstBits, srcBits);
    case DgeDtype.UINT32:
      return intOp(op, 32, false, dstBits, srcBits);
    case DgeDtype.INT32:
      return intOp(op, 32, true, dstBits, srcBits);
    case DgeDtype.FP32: {
      const r = floatOp(op, f32FromBits(dstBits), f32FromBits(srcBits));
      return Number.isNaN(r) ? CANONICAL_NAN.fp32 : f32Bits(Math.fround(r));
    }
    case DgeDtype.FP16: {
      const r = floatOp(op, fp16ToNumber(dstBits), fp16ToNumber(srcBits));
      return Number.isNaN(r) ? CANONICAL_NAN.fp16 : numberToFp16(r);
    }
    case DgeDtype.BF16: {
      const r = floatOp(op, bf16ToNumber(dstBits), bf16ToNumber(srcBits));
      return Number.isNaN(r) ? CANONICAL_NAN.bf16 : numberToBf16(r);
    }
    default:
      throw new NxdmaError('BAD_ARGUMENT', `DIRECT2D compute_op ${op} on dtype ${dtype}`, {
        where: 'DIRECT2D.dtype',
        expected: 'an arithmetic dtype (UINT8..FP32) for a compute_op other than NONE',
        actual: dtype,
      });
  }
}

/** True when the Pool core computes `op` in `dtype` (every op on the arithmetic dtypes). */
export function poolComputes(dtype: number, op: number): boolean {
  if (op === ComputeOp.NONE) return true;
  return (
    SIZE[dtype] !== undefined &&
    (op === ComputeOp.ADD ||
      op === ComputeOp.MULTIPLY ||
      op === ComputeOp.MAX ||
      op === ComputeOp.MIN)
  );
}

/**
 * Executes one DIRECT2D on memory: element n of the source walk (inner dim fastest) combined into
 * element n of the destination walk, in walk order. Reads both sides' bytes before writing a row
 * of the destination (one element at a time, as the interpreter does).
 */
export function executeDirect2D(mem: MemoryIO, d: Direct2D): number {
  const es = d.elem_size;
  if (
    !poolComputes(d.dtype, d.compute_op) ||
    (d.compute_op !== ComputeOp.NONE && SIZE[d.dtype] !== es)
  ) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `DIRECT2D: compute_op ${d.compute_op} on dtype ${d.dtype} (elem_size ${es}) is not computed by the Pool core`,
      { where: 'DIRECT2D', expected: 'ADD/MULTIPLY/MAX/MIN on UINT8..FP32', actual: d.dtype },
    );
  }
  const [si, so] = d.src_num_elem;
  const [di, dOut] = d.dst_num_elem;
  const n = si * so;
  if (n !== di * dOut) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `DIRECT2D: ${n} source and ${di * dOut} destination elements`,
      {
        where: 'DIRECT2D.num_elem',
        expected: 'equal element counts',
        actual: [d.src_num_elem, d.dst_num_elem],
      },
    );
  }
  const a = new Uint8Array(es);
  const b = new Uint8Array(es);
  for (let k = 0; k < n; k++) {
    const sa =
      d.src_addr + ((k % si) * d.src_step_elem[0] + Math.floor(k / si) * d.src_step_elem[1]) * es;
    const da =
      d.dst_addr + ((k % di) * d.dst_step_elem[0] + Math.floor(k / di) * d.dst_step_elem[1]) * es;
    mem.read(sa, a);
    if (d.compute_op === ComputeOp.NONE) {
      mem.write(da, a);
      continue;
    }
    mem.read(da, b);
    writeLE(b, 0, es, computeElement(d.dtype, d.compute_op, readLE(b, 0, es), readLE(a, 0, es)));
    mem.write(da, b);
  }
  return n;
}
