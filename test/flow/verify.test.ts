import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryImage } from '../../compiler/interp/memory.ts';
import type { Module } from '../../compiler/ir/module.ts';
import type { Device } from '../../csr/io.ts';
import { compare, countNonZero, sameBytes } from '../../flow/verify.ts';

/** The byte-by-byte comparison compare() must agree with. */
function naive(got: Uint8Array[], want: MemoryImage, written: Uint8Array[], m: Module) {
  let destinationBytes = 0;
  let mismatches = 0;
  const samples: unknown[] = [];
  want.regions.forEach((r, i) => {
    for (let k = 0; k < r.size; k++) {
      if (written[i][k] !== 0) destinationBytes++;
      if (got[i][k] !== r.bytes[k]) {
        mismatches++;
        if (samples.length < 16) {
          const addr = r.base + k;
          const t = m.tensors.find((x) => addr >= x.address && addr < x.address + x.byteSize);
          samples.push({
            address: `0x${addr.toString(16)}`,
            region: r.name,
            tensor: t ? t.name : null,
            destination: written[i][k] !== 0,
            expected: r.bytes[k],
            actual: got[i][k],
          });
        }
      }
    }
  });
  return { destinationBytes, mismatches, samples };
}

/** `bytes` at byte offset `shift` of a fresh buffer (so views start unaligned). */
function at(bytes: number[], shift: number): Uint8Array {
  const u = new Uint8Array(bytes.length + shift).subarray(shift);
  u.set(bytes);
  return u;
}

describe('verify: the read-back comparison', () => {
  const regionArb = fc.record({
    size: fc.integer({ min: 0, max: 40 }),
    fill: fc.integer({ min: 0, max: 3 }),
    shift: fc.integer({ min: 0, max: 3 }),
    flips: fc.array(fc.nat(), { maxLength: 20 }),
    maskFlips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 30 }),
  });

  it('counts, finds and samples what a byte-by-byte comparison does, on aligned and unaligned arrays', () => {
    fc.assert(
      fc.property(fc.array(regionArb, { minLength: 1, maxLength: 3 }), (rs) => {
        let base = 0x1000;
        const regions = rs.map((r, i) => {
          const bytes = Array.from({ length: r.size }, (_, k) => (k * 7 + r.fill) & 0xff);
          const reg = { name: `r${i}`, base, size: r.size, bytes: at(bytes, r.shift) };
          base += 0x100;
          return reg;
        });
        const want = new MemoryImage(regions);
        const got = rs.map((r, i) => {
          const g = regions[i].bytes.slice();
          for (const f of r.flips) if (r.size > 0) g[f % r.size] ^= 1 + (f & 7);
          return g;
        });
        const written = rs.map((r) => {
          const w = at(new Array<number>(r.size).fill(0), (r.shift + 1) & 3);
          for (const [k, v] of r.maskFlips) if (r.size > 0) w[k % r.size] = v;
          return w;
        });
        const m = {
          tensors: [
            { name: 't0', address: 0x1004, byteSize: 8 },
            { name: 't1', address: 0x1100, byteSize: 64 },
          ],
        } as unknown as Module;
        const device = {
          memory: {
            read: (addr: number, dst: Uint8Array) => {
              const i = regions.findIndex((x) => addr >= x.base && addr < x.base + x.size);
              dst.set(got[i].subarray(addr - regions[i].base, addr - regions[i].base + dst.length));
            },
          },
        } as unknown as Device;
        const v = compare(device, want, written, m);
        const n = naive(got, want, written, m);
        expect(v.destinationBytes).toBe(n.destinationBytes);
        expect(v.mismatches).toBe(n.mismatches);
        expect(v.samples).toEqual(n.samples);
        expect(v.checkedBytes).toBe(rs.reduce((a, r) => a + r.size, 0));
        written.forEach((w) => expect(countNonZero(w)).toBe(w.filter((x) => x !== 0).length));
        got.forEach((g, i) =>
          expect(sameBytes(g, regions[i].bytes)).toBe(g.every((x, k) => x === regions[i].bytes[k])),
        );
      }),
      { seed: 20261204, numRuns: 500 },
    );
  });

  it('reads a region larger than its read-back buffer piece by piece, and finds mismatches in every piece', () => {
    const size = 3 * 65536 + 1000; // three whole 64 KiB pieces and a partial one
    const bytes = new Uint8Array(size);
    for (let k = 0; k < size; k++) bytes[k] = (k * 13 + 5) & 0xff;
    const want = new MemoryImage([{ name: 'big', base: 0x10000, size, bytes }]);
    const got = bytes.slice();
    const flips = [0, 65535, 65536, 131071, 131072 + 17, 196608, size - 1];
    for (const k of flips) got[k] ^= 0x5a;
    const written = [new Uint8Array(size).fill(1)];
    const reads: number[] = [];
    const device = {
      memory: {
        read: (addr: number, dst: Uint8Array) => {
          reads.push(dst.length);
          dst.set(got.subarray(addr - 0x10000, addr - 0x10000 + dst.length));
        },
      },
    } as unknown as Device;
    const m = { tensors: [] } as unknown as Module;
    const v = compare(device, want, written, m);
    expect(v).toEqual({ ...naive([got], want, written, m), checkedBytes: size });
    expect(v.mismatches).toBe(flips.length);
    expect(v.samples.map((x) => x.address)).toEqual(
      flips.map((k) => `0x${(0x10000 + k).toString(16)}`),
    );
    expect(reads).toEqual([65536, 65536, 65536, 1000]);
  });

  it('counts the non-zero bytes of masks of many pages, pages of 0s, of 1s and mixed, at any offset', () => {
    const page = fc.oneof(
      fc.constant('zeros' as const),
      fc.constant('ones' as const),
      fc.tuple(fc.nat(4095), fc.integer({ min: 0, max: 255 })),
    );
    fc.assert(
      fc.property(
        fc.array(page, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 4095 }),
        fc.integer({ min: 0, max: 7 }),
        (pages, tail, shift) => {
          const bytes: number[] = [];
          for (const p of pages) {
            const fill = p === 'ones' ? 1 : 0;
            const start = bytes.length;
            for (let k = 0; k < 4096; k++) bytes.push(fill);
            if (Array.isArray(p)) bytes[start + p[0]] = p[1];
          }
          for (let k = 0; k < tail; k++) bytes.push(k % 3 === 0 ? 0 : 1);
          const mask = at(bytes, shift);
          expect(countNonZero(mask)).toBe(bytes.filter((x) => x !== 0).length);
          // the same bytes shifted by some bytes: the spans no longer start where the pages do
          const moved = at(bytes.slice(shift + 1), shift);
          expect(countNonZero(moved)).toBe(moved.filter((x) => x !== 0).length);
        },
      ),
      { seed: 20261223, numRuns: 200 },
    );
  });
});
