import { describe, expect, it } from 'vitest';
import { grown } from '../../common/typed-arrays.ts';

describe('grown', () => {
  it('returns a larger array of the same type holding the old contents, the rest zero', () => {
    const a = Int32Array.of(-1, 2, -3);
    const b = grown(a, 6);
    expect(b).toBeInstanceOf(Int32Array);
    expect([...b]).toEqual([-1, 2, -3, 0, 0, 0]);
    expect(b).not.toBe(a);
    const f = grown(Float64Array.of(0.5, 2 ** 40), 3);
    expect(f).toBeInstanceOf(Float64Array);
    expect([...f]).toEqual([0.5, 2 ** 40, 0]);
  });

  it('keeps only the first `keep` elements when asked', () => {
    const b = grown(Uint32Array.of(7, 8, 9, 10), 8, 2);
    expect(b).toBeInstanceOf(Uint32Array);
    expect([...b]).toEqual([7, 8, 0, 0, 0, 0, 0, 0]);
  });

  it('refuses a capacity below what it must keep', () => {
    expect(() => grown(Uint8Array.of(1, 2, 3), 2)).toThrow(RangeError);
  });
});
