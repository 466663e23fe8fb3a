/**
 * How the mock UDMA engine touches device memory: 16-byte descriptors and completion entries
 * (also across the seam of two adjacent regions) and data copies that never allocate.
 */
import { MemoryRegion, type MockMemory } from '../memory.ts';
import type { UdmaCore } from './core.ts';

/**
 * Copies n bytes from one region to another (or within one). Small copies never allocate: they
 * move 64-bit words when everything is 8-byte aligned, 32-bit words when it is 4-byte aligned,
 * else bytes; large ones use one
 * TypedArray.set of a subarray (memmove), the same as Buffer.copy.
 */
export function copyBytes(
  src: MemoryRegion,
  so: number,
  dst: MemoryRegion,
  d: number,
  n: number,
): void {
  if (src === dst) {
    src.bytes.copyWithin(d, so, so + n);
    return;
  }
  if (n <= 256) {
    const s64 = src.f64;
    const d64 = dst.f64;
    if (s64 !== null && d64 !== null && ((so | d | n) & 7) === 0) {
      // (two regions on one buffer are then a multiple of 8 bytes apart: no word is written
      // before a half of it that one 4-byte word a turn reads later, so the bytes are the same)
      const end = (d + n) >>> 3;
      for (let j = d >>> 3, i = so >>> 3; j < end; j++, i++) d64[j] = s64[i];
      return;
    }
    const s32 = src.i32;
    const d32 = dst.i32;
    if (s32 !== null && d32 !== null && ((so | d | n) & 3) === 0) {
      const a = so >>> 2;
      const b = d >>> 2;
      const w = n >>> 2;
      for (let i = 0; i < w; i++) d32[b + i] = s32[a + i];
    } else {
      const sb = src.bytes;
      const db = dst.bytes;
      for (let i = 0; i < n; i++) db[d + i] = sb[so + i];
    }
    return;
  }
  dst.bytes.set(src.bytes.subarray(so, so + n), d);
}

/**
 * Copies n bytes from device address `src` to `dst` when one or both ranges cross a seam between
 * adjacent regions (the caller checked that every byte is mapped): piece by piece, each piece
 * inside one region on both sides.
 */
export function copySpanning(mem: MockMemory, src: number, dst: number, n: number): void {
  let done = 0;
  while (done < n) {
    const rs = mem.find(src + done, 1)!;
    const rd = mem.find(dst + done, 1)!;
    const k = Math.min(n - done, rs.end - (src + done), rd.end - (dst + done));
    copyBytes(rs, src + done - rs.base, rd, dst + done - rd.base, k);
    done += k;
  }
}

/**
 * The region holding the 16-byte descriptor (or completion entry) at addr. One that crosses the
 * seam of two adjacent regions is mapped too: its bytes are gathered into `c.seam`, a 16-byte
 * region placed at addr (a write to it is copied back by the caller). Undefined when a byte is
 * not mapped.
 */
export function descRegion(c: UdmaCore, addr: number): MemoryRegion | undefined {
  const reg = c.mem.find(addr, 16);
  if (reg !== undefined) return reg;
  const parts = c.mem.span(addr, 16);
  if (parts === null) return undefined;
  const buf = new Uint8Array(16);
  let a = addr;
  for (const r of parts) {
    const n = Math.min(addr + 16 - a, r.end - a);
    buf.set(r.bytes.subarray(a - r.base, a - r.base + n), a - addr);
    a += n;
  }
  c.seam = new MemoryRegion('seam', 'seam', addr, buf);
  return c.seam;
}

/** The first unmapped byte of [addr, addr + length), or addr when all are mapped. */
export function firstUnmapped(mem: MockMemory, addr: number, length: number): number {
  const a = mem.firstUnmapped(addr, length);
  return a < 0 ? addr : a;
}
