import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProgramBuilder } from '../../../compiler/ir/builder.ts';
import { initialImage } from '../../../compiler/interp/index.ts';

/** The fill as one xorshift32 stream: a step per 32-bit word (little-endian), then per byte. */
function streamFill(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = (seed * 0x9e3779b1) >>> 0 || 0x12345678;
  const words = size >>> 2;
  let i = 0;
  for (; i < words; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const w = x >>> 0;
    out[4 * i] = w & 0xff;
    out[4 * i + 1] = (w >>> 8) & 0xff;
    out[4 * i + 2] = (w >>> 16) & 0xff;
    out[4 * i + 3] = w >>> 24;
  }
  for (i *= 4; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('reference interpreter: the initial image', () => {
  it('fills every region with its seed’s xorshift32 stream, a step per word, then per byte', () => {
    const size = fc.oneof(
      fc.integer({ min: 1, max: 80 }),
      fc.integer({ min: 1, max: 70_000 }),
      fc.constantFrom(4, 16, 17, 4095, 4096, 4099, 65_536),
    );
    fc.assert(
      fc.property(fc.array(size, { minLength: 1, maxLength: 3 }), fc.nat(), (sizes, seed) => {
        const b = new ProgramBuilder({ name: 'fill', arch: 30 });
        let base = 0x1000_0000;
        sizes.forEach((s, i) => {
          b.region({ name: `r${i}`, type: 'sb', base, size: s });
          base += 0x100_0000;
        });
        b.function('main').block('e');
        const m = b.build();
        const img = initialImage(m, seed);
        img.regions.forEach((r, i) => {
          const want = streamFill(r.size, ((seed >>> 0) * 65599 + i + 1) >>> 0);
          expect(Buffer.from(r.bytes).equals(Buffer.from(want))).toBe(true);
        });
      }),
      { seed: 20261225, numRuns: 150 },
    );
  });
});
