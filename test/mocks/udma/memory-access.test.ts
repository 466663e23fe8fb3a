/**
 * mocks/udma/memory-access.ts copyBytes against a byte-at-a-time copy done in the same order:
 * every size up to 512 bytes, aligned and unaligned offsets, and two regions that alias one
 * buffer (caller-owned backings), where the order of the reads and writes shows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryRegion } from '../../../mocks/memory.ts';
import { copyBytes } from '../../../mocks/udma/memory-access.ts';

/** The reference: n bytes, one at a time, lowest first (copyWithin within one region). */
function reference(src: Uint8Array, so: number, dst: Uint8Array, d: number, n: number): void {
  if (src.buffer === dst.buffer && src.byteOffset === dst.byteOffset) {
    src.copyWithin(d, so, so + n);
    return;
  }
  for (let i = 0; i < n; i++) dst[d + i] = src[so + i];
}

/** copyBytes from region "a" (at 0) to region "b" (at 4096) moves what the reference moves. */
function expectCopy(a: Uint8Array, so: number, b: Uint8Array, d: number, n: number): void {
  const want = b.slice();
  reference(a, so, want, d, n);
  copyBytes(new MemoryRegion('a', 'a', 0, a), so, new MemoryRegion('b', 'b', 4096, b), d, n);
  expect(Buffer.from(b).equals(Buffer.from(want))).toBe(true);
}

function filled(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed * 17 + 7) & 0xff;
  return b;
}

describe('copyBytes', () => {
  it('moves exactly the bytes of a byte-at-a-time copy between two regions', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 512 }),
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 64 }),
        fc.boolean(),
        (n, so0, d0, aligned) => {
          const so = aligned ? so0 & ~3 : so0;
          const d = aligned ? d0 & ~3 : d0;
          const nn = aligned ? n & ~3 : n;
          expectCopy(filled(1024, 1), so, filled(1024, 2), d, nn);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('reads and writes in the same order as one word a turn when two regions alias one buffer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }).map((w) => w * 4),
        fc.integer({ min: 0, max: 32 }).map((x) => x * 4),
        fc.integer({ min: 0, max: 32 }).map((x) => x * 4),
        (n, so, d) => {
          const buf = filled(1024, 3);
          const want = buf.slice();
          // Region "b" starts 8 bytes into the same buffer as region "a".
          const wa = new Int32Array(want.buffer, 0, 256);
          const wb = new Int32Array(want.buffer, 8, 254);
          const w = n >>> 2;
          for (let i = 0; i < w; i++) wb[(d >>> 2) + i] = wa[(so >>> 2) + i];
          const ra = new MemoryRegion('a', 'a', 0, buf.subarray(0, 1024));
          const rb = new MemoryRegion('b', 'b', 8192, buf.subarray(8, 1024));
          if (d + n > rb.size || so + n > ra.size) return;
          copyBytes(ra, so, rb, d, n);
          expect(Buffer.from(buf).equals(Buffer.from(want))).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps every bit of 8-byte words that read as NaN (signalling and quiet, any payload)', () => {
    const nanWord = fc
      .tuple(fc.boolean(), fc.integer({ min: 0, max: 0xfffff }), fc.nat({ max: 0xffffffff }))
      .map(([neg, hi, lo]) => [lo, (neg ? 0xfff00000 : 0x7ff00000) | hi || 1]);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(nanWord, fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }))),
          {
            minLength: 1,
            maxLength: 32,
          },
        ),
        fc.integer({ min: 0, max: 32 }).map((x) => x * 8),
        fc.integer({ min: 0, max: 32 }).map((x) => x * 8),
        (words, so, d) => {
          const a = new Uint8Array(1024);
          const b = filled(1024, 4);
          const a32 = new Uint32Array(a.buffer);
          words.forEach(([lo, hi], i) => {
            a32[(so >>> 2) + 2 * i] = lo;
            a32[(so >>> 2) + 2 * i + 1] = hi;
          });
          expectCopy(a, so, b, d, words.length * 8);
        },
      ),
      { numRuns: 600 },
    );
  });
});
