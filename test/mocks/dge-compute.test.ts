/**
 * The Pool core's DIRECT2D compute_op (seed 004 §4.1: NONE=0, ADD=1, MULTIPLY=2, MAX=3, MIN=4, "B op=
 * A in transfer"), against the reference interpreter's independent implementation, bit for bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reduce, storeReduced } from '../../compiler/interp/interpret.ts';
import { decodeElement } from '../../compiler/interp/memory.ts';
import {
  DTYPE_CODE,
  DTYPE_NAMES,
  DTYPE_SIZE,
  DstReduce,
  type DtypeName,
} from '../../compiler/ir/enums.ts';
import { ComputeOp } from '../../csr/formats/dge-desc.ts';
import { CANONICAL_NAN, computeElement } from '../../mocks/dge-compute.ts';

const OPS = [
  [ComputeOp.ADD, DstReduce.add],
  [ComputeOp.MULTIPLY, DstReduce.multiply],
  [ComputeOp.MAX, DstReduce.max],
  [ComputeOp.MIN, DstReduce.min],
] as const;

function bytesOf(v: number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (v >>> (8 * i)) & 0xff;
  return b;
}

/** The interpreter's dst op src on raw element bits. */
function interp(dtype: DtypeName, op: number, d: number, s: number): number {
  const n = DTYPE_SIZE[dtype];
  const out = bytesOf(d, n);
  const v = reduce(op, dtype, decodeElement(dtype, out, 0), decodeElement(dtype, bytesOf(s, n), 0));
  storeReduced(dtype, v, out, 0);
  let r = 0;
  for (let i = n - 1; i >= 0; i--) r = r * 256 + out[i];
  return r;
}

describe('DIRECT2D compute_op: the Pool core and the reference interpreter agree exactly', () => {
  for (const dtype of DTYPE_NAMES) {
    it(`ADD / MULTIPLY / MAX / MIN on ${dtype}, random element bits`, () => {
      const max = 2 ** (8 * DTYPE_SIZE[dtype]) - 1;
      fc.assert(
        fc.property(fc.integer({ min: 0, max }), fc.integer({ min: 0, max }), (d, s) => {
          for (const [cop, rop] of OPS) {
            expect(computeElement(DTYPE_CODE[dtype], cop, d, s)).toBe(interp(dtype, rop, d, s));
          }
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('golden values: integer wrap, exact 32-bit products, signedness, rounding, canonical NaN', () => {
    const C = (dt: DtypeName, op: number, d: number, s: number) =>
      computeElement(DTYPE_CODE[dt], op, d, s);
    expect(C('uint8', ComputeOp.ADD, 200, 100)).toBe(44);
    expect(C('uint32', ComputeOp.MULTIPLY, 0xffffffff, 0xffffffff)).toBe(1);
    expect(C('int32', ComputeOp.MULTIPLY, 0x12345679, 0x9abcdef1)).toBe(
      Math.imul(0x12345679, 0x9abcdef1) >>> 0,
    );
    expect(C('int8', ComputeOp.MAX, 0xff, 0x01)).toBe(0x01); // -1 < 1
    expect(C('uint8', ComputeOp.MAX, 0xff, 0x01)).toBe(0xff);
    // fp16: 1 + 2^-11 is a tie, rounded to even (1.0); 1 + 3 * 2^-11 rounds up
    expect(C('fp16', ComputeOp.ADD, 0x3c00, 0x1000)).toBe(0x3c00);
    expect(C('fp16', ComputeOp.ADD, 0x3c01, 0x1000)).toBe(0x3c02);
    // bf16: 1 + 1 = 2; inf - inf is NaN -> canonical
    expect(C('bf16', ComputeOp.ADD, 0x3f80, 0x3f80)).toBe(0x4000);
    expect(C('bf16', ComputeOp.ADD, 0x7f80, 0xff80)).toBe(CANONICAL_NAN.bf16);
    expect(C('fp32', ComputeOp.MIN, 0x7fc00001, 0x3f800000)).toBe(CANONICAL_NAN.fp32);
    expect(C('fp32', ComputeOp.MAX, 0x80000000, 0x00000000)).toBe(0); // -0 < +0
    expect(interp('uint32', DstReduce.multiply, 0xffffffff, 0xffffffff)).toBe(1);
  });
});
