/**
 * The reference interpreter's memory: one byte array per declared region, and the program's
 * initial contents. Every region starts with a deterministic pseudo-random fill (so a byte that a
 * DMA should have written and did not, or wrote wrong, shows); tensors that give `init` values
 * hold them, encoded in their dtype, little-endian.
 *
 * The flow loads this same initial image into the device before it runs the program, so the
 * device and the interpreter start from identical memory.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { DtypeName } from '../ir/enums.ts';
import type { Module, Tensor } from '../ir/module.ts';

export interface ImageRegion {
  name: string;
  base: number;
  size: number;
  bytes: Uint8Array;
}

/** Byte arrays a MemoryImage remembers the arena offset of (a program has few regions). */
const MAX_SEEN = 64;

/**
 * A set of byte arrays at device addresses (the program's regions). An image may hold all its
 * regions in one byte array, its `arena` (each region's bytes a view of it), so that bytes move
 * between regions without a view per move; null when the regions are separate arrays.
 */
export class MemoryImage {
  readonly regions: ImageRegion[];
  readonly arena: Uint8Array | null;
  /** Byte arrays arenaOffset was asked about, and its answers. */
  private readonly seen: Uint8Array[] = [];
  private readonly seenAt: number[] = [];

  /** `arena`: the byte array every region's bytes are a view of (or null). */
  constructor(regions: ImageRegion[], arena: Uint8Array | null = null) {
    this.regions = regions;
    this.arena = arena;
  }

  /**
   * Where `bytes` (a region's bytes) starts in the arena: its byte offset there when it is a view
   * of the arena's buffer, else -1 (also without an arena). Remembered per byte array.
   */
  arenaOffset(bytes: Uint8Array): number {
    const a = this.arena;
    if (a === null) return -1;
    const seen = this.seen;
    for (let i = 0; i < seen.length; i++) if (seen[i] === bytes) return this.seenAt[i];
    const at = bytes.buffer === a.buffer ? bytes.byteOffset - a.byteOffset : -1;
    if (seen.length < MAX_SEEN) {
      seen.push(bytes);
      this.seenAt.push(at);
    }
    return at;
  }

  /** The region holding [addr, addr + len), or undefined. */
  find(addr: number, len: number): ImageRegion | undefined {
    const i = this.indexOf(addr, len);
    return i >= 0 ? this.regions[i] : undefined;
  }

  /** The index in `regions` of the region holding [addr, addr + len), or -1. */
  indexOf(addr: number, len: number): number {
    const regions = this.regions;
    for (let i = 0; i < regions.length; i++) {
      const r = regions[i];
      if (addr >= r.base && addr + len <= r.base + r.size) return i;
    }
    return -1;
  }

  /** The region holding the range; throws MEMORY_UNMAPPED otherwise. */
  region(addr: number, len: number): ImageRegion {
    return this.regions[this.regionIndex(addr, len)];
  }

  /** indexOf for a range some region must hold; throws MEMORY_UNMAPPED otherwise. */
  regionIndex(addr: number, len: number): number {
    const r = this.indexOf(addr, len);
    if (r < 0) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `${hex(addr)}+${len} lies outside every declared region`,
        { where: hex(addr), expected: 'an address inside a declared region', actual: len },
      );
    }
    return r;
  }

  /**
   * A deep copy; with an arena, into `into` when given (a byte array as long as the arena), else
   * into a new one.
   */
  clone(into?: Uint8Array): MemoryImage {
    const a = this.arena;
    if (a === null) {
      return new MemoryImage(this.regions.map((r) => ({ ...r, bytes: r.bytes.slice() })));
    }
    if (into !== undefined) {
      checkArenaMemory(into, a.length, a, {
        fn: 'MemoryImage.clone',
        where: 'MemoryImage.clone into',
        what: 'the arena given',
        needs: "the image's holds",
      });
      into.set(a);
    }
    const copy = into ?? a.slice();
    const views = this.regionViews(copy);
    return new MemoryImage(
      this.regions.map((r, i) => ({ ...r, bytes: views[i] })),
      copy,
    );
  }

  /**
   * Each region's bytes in `into`, a byte array laid out as the arena: its view there at the
   * region's offset in the arena (an image with an arena only).
   */
  regionViews(into: Uint8Array): Uint8Array[] {
    const a = this.arena!;
    return this.regions.map((r) => {
      const off = r.bytes.byteOffset - a.byteOffset;
      return into.subarray(off, off + r.size);
    });
  }

  /** Bytes in all regions. */
  get size(): number {
    let n = 0;
    for (const r of this.regions) n += r.size;
    return n;
  }
}

/**
 * The image region of each tensor of one image, by tensor id, found (or its MEMORY_UNMAPPED
 * thrown) the first time a DMA names the tensor: every element of a tensor lies in the tensor's
 * region, and neither a tensor nor the image's regions move during a run.
 */
export class TensorRegions {
  private readonly tensors: (Tensor | null)[];
  private readonly index: Int32Array;
  /** Per region: its bytes' offset in the image's arena, or -1 (MemoryImage.arenaOffset). */
  readonly arenaAt: Float64Array;

  constructor(
    readonly image: MemoryImage,
    tensors: number,
  ) {
    this.tensors = new Array<Tensor | null>(tensors).fill(null);
    this.index = new Int32Array(tensors);
    const regions = image.regions;
    this.arenaAt = new Float64Array(regions.length);
    for (let i = 0; i < regions.length; i++) this.arenaAt[i] = image.arenaOffset(regions[i].bytes);
  }

  /** The index in image.regions of the region holding tensor `t` (MemoryImage.regionIndex). */
  of(t: Tensor): number {
    const i = this.find(t);
    return i >= 0 ? i : this.image.regionIndex(t.address, t.byteSize);
  }

  /** The index in image.regions of the region holding tensor `t`, or -1 (MemoryImage.indexOf). */
  find(t: Tensor): number {
    const id = t.id;
    const known = id >= 0 && id < this.tensors.length;
    if (known && this.tensors[id] === t) return this.index[id];
    const i = this.image.indexOf(t.address, t.byteSize);
    if (known && i >= 0) {
      this.tensors[id] = t;
      this.index[id] = i;
    }
    return i;
  }
}

/** One xorshift32 step of state x (int32). */
function xorshift(x: number): number {
  x ^= x << 13;
  x ^= x >>> 17;
  return x ^ (x << 5);
}

/** The image of state x under a linear map given as the images of the 32 one-bit states. */
function mapState(cols: Int32Array, x: number): number {
  let r = 0;
  for (let b = 0; x !== 0; b++, x >>>= 1) if ((x & 1) !== 0) r ^= cols[b];
  return r;
}

/**
 * k xorshift32 steps as one map: a step is linear over GF(2)^32 (shifts and xors), so k steps are
 * the step's matrix to the k-th power (by squaring), given as the images of the one-bit states.
 */
function stepsMap(k: number): Int32Array {
  let power = new Int32Array(32);
  let acc = new Int32Array(32);
  for (let b = 0; b < 32; b++) {
    power[b] = xorshift(1 << b);
    acc[b] = 1 << b;
  }
  for (; k > 0; k = Math.floor(k / 2)) {
    const p = power;
    if (k % 2 === 1) acc = acc.map((v) => mapState(p, v));
    power = power.map((v) => mapState(p, v));
  }
  return acc;
}

/**
 * xorshift32, seeded per region: the fill of region i under `seed`, one state step per 32-bit
 * word, then one per remaining byte. The words are written as four quarters side by side, each
 * from the state the stream has at its first word (stepsMap jumps there): the same stream, four
 * independent steps at a time.
 */
function fill(bytes: Uint8Array, seed: number): void {
  let x = (seed * 0x9e3779b1) >>> 0 || 0x12345678;
  const n = bytes.length;
  const words = n >>> 2;
  const w32 =
    bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, words) : null;
  let i = 0;
  if (w32 !== null) {
    const q = words >>> 2;
    // the last quarter's state is the stream's after 4q words
    x = fillQuarters(w32, q, x | 0);
    for (i = 4 * q; i < words; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      w32[i] = x;
    }
    i *= 4;
  }
  for (; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
}

/**
 * The first 4q words of fill(): four quarters of q words side by side, the first from state `x`,
 * each next one from the state the stream has at its first word. Returns the stream's state after
 * the 4q words. (A function of its own: the loop is the one part hot enough to be optimized, and
 * optimized on the stack it would leave the code after it without type feedback, dropped again on
 * every call.)
 */
function fillQuarters(w32: Uint32Array, q: number, x: number): number {
  const jump = stepsMap(q);
  let a = x;
  let b = mapState(jump, a);
  let c = mapState(jump, b);
  let d = mapState(jump, c);
  for (let k = 0; k < q; k++) {
    a ^= a << 13;
    a ^= a >>> 17;
    a ^= a << 5;
    w32[k] = a;
    b ^= b << 13;
    b ^= b >>> 17;
    b ^= b << 5;
    w32[q + k] = b;
    c ^= c << 13;
    c ^= c >>> 17;
    c ^= c << 5;
    w32[2 * q + k] = c;
    d ^= d << 13;
    d ^= d >>> 17;
    d ^= d << 5;
    w32[3 * q + k] = d;
  }
  return d;
}

/** Largest region the interpreter allocates (the flow runs programs whose regions it can hold). */
export const MAX_IMAGE_BYTES = 2 ** 31;

/**
 * Memory given to hold an arena of `size` bytes, refused (BAD_ARGUMENT) when its length is another
 * or it is the memory of `own` (the image's own arena): `at` names the function and the argument,
 * what the memory is and what its length must match, for the message.
 */
export function checkArenaMemory(
  into: Uint8Array,
  size: number,
  own: Uint8Array | null,
  at: { fn: string; where: string; what: string; needs: string },
): void {
  const aliased = own !== null && into.buffer === own.buffer;
  if (into.length === size && !aliased) return;
  throw new NxdmaError(
    'BAD_ARGUMENT',
    aliased
      ? `${at.fn}: ${at.what} is the image's own memory`
      : `${at.fn}: ${at.what} holds ${into.length} bytes; ${at.needs} ${size}`,
    {
      where: at.where,
      expected: own === null ? `${size} bytes` : `${size} bytes of other memory`,
      actual: into.length,
    },
  );
}

/** Where each region lies in an image's arena (8-byte aligned offsets), and the arena's length. */
export function arenaLayout(m: Module): { offsets: number[]; size: number } {
  let total = 0;
  for (const r of m.regions) total += r.size;
  if (total > MAX_IMAGE_BYTES) {
    throw new NxdmaError(
      'OUT_OF_RANGE',
      `the program declares ${total} bytes of regions; the reference interpreter holds at most ${MAX_IMAGE_BYTES}`,
      { where: 'memory.regions', expected: `<= ${MAX_IMAGE_BYTES} bytes`, actual: total },
    );
  }
  const offsets: number[] = [];
  let end = 0;
  for (const r of m.regions) {
    offsets.push(end);
    end += Math.ceil(r.size / 8) * 8;
  }
  return { offsets, size: end };
}

/**
 * The program's initial memory: every region filled from `seed`, then each tensor's `init` values
 * written in its dtype. The regions lie in one arena: `into` when given (as long as
 * `arenaLayout(m).size`; every byte of it is written), else a new one.
 */
export function initialImage(m: Module, seed = 1, into?: Uint8Array): MemoryImage {
  const { offsets, size: end } = arenaLayout(m);
  if (into !== undefined) {
    checkArenaMemory(into, end, null, {
      fn: 'initialImage',
      where: 'initialImage into',
      what: 'the arena given',
      needs: "the program's regions need",
    });
  }
  const arena = into ?? new Uint8Array(end);
  const regions = m.regions.map((r, i) => {
    const bytes = arena.subarray(offsets[i], offsets[i] + r.size);
    fill(bytes, ((seed >>> 0) * 65599 + i + 1) >>> 0);
    // the alignment padding after the region: zero, as in a new arena
    if (into !== undefined) arena.fill(0, offsets[i] + r.size, offsets[i + 1] ?? end);
    return { name: r.name, base: r.base, size: r.size, bytes };
  });
  const img = new MemoryImage(regions, arena);
  for (const t of m.tensors) {
    if (t.init === null) continue;
    const r = img.region(t.address, t.byteSize);
    let off = t.address - r.base;
    for (const v of t.init) {
      encodeElement(t.dtype, v, r.bytes, off);
      off += t.elemSize;
    }
  }
  return img;
}

// --- element codecs ----------------------------------------------------------------------------

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float -> IEEE half bits, round to nearest even. */
export function toHalf(v: number): number {
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1) !== 0)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) !== 0)) h++;
  e = h >>> 10;
  return sign | (e >= 0x1f ? 0x7c00 : h);
}

export function fromHalf(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m !== 0 ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** float -> bfloat16 bits, round to nearest even. */
export function toBf16(v: number): number {
  f32[0] = v;
  const x = u32[0];
  if ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) return (x >>> 16) | 0x40;
  const r = x + 0x7fff + ((x >>> 16) & 1);
  return (r >>> 16) & 0xffff;
}

export function fromBf16(b: number): number {
  u32[0] = (b & 0xffff) << 16;
  return f32[0];
}

const dv = new DataView(new ArrayBuffer(8));

/** Writes `value` as one element of `dtype` at bytes[off..] (little-endian; integers wrap). */
export function encodeElement(
  dtype: DtypeName,
  value: number,
  bytes: Uint8Array,
  off: number,
): void {
  switch (dtype) {
    case 'uint8':
    case 'int8':
      bytes[off] = Math.trunc(value) & 0xff;
      return;
    case 'uint16':
    case 'int16':
    case 'fp16':
    case 'bf16': {
      const h =
        dtype === 'fp16'
          ? toHalf(value)
          : dtype === 'bf16'
            ? toBf16(value)
            : Math.trunc(value) & 0xffff;
      bytes[off] = h & 0xff;
      bytes[off + 1] = (h >>> 8) & 0xff;
      return;
    }
    case 'uint32':
    case 'int32':
    case 'fp32': {
      if (dtype === 'fp32') dv.setFloat32(0, value, true);
      else dv.setUint32(0, Math.trunc(value) >>> 0, true);
      bytes[off] = dv.getUint8(0);
      bytes[off + 1] = dv.getUint8(1);
      bytes[off + 2] = dv.getUint8(2);
      bytes[off + 3] = dv.getUint8(3);
      return;
    }
  }
}

/** Reads one element of `dtype` at bytes[off..]. */
export function decodeElement(dtype: DtypeName, bytes: Uint8Array, off: number): number {
  switch (dtype) {
    case 'uint8':
      return bytes[off];
    case 'int8':
      return (bytes[off] << 24) >> 24;
    case 'uint16':
      return bytes[off] | (bytes[off + 1] << 8);
    case 'int16':
      return ((bytes[off] | (bytes[off + 1] << 8)) << 16) >> 16;
    case 'fp16':
      return fromHalf(bytes[off] | (bytes[off + 1] << 8));
    case 'bf16':
      return fromBf16(bytes[off] | (bytes[off + 1] << 8));
    case 'uint32':
    case 'int32':
    case 'fp32': {
      for (let i = 0; i < 4; i++) dv.setUint8(i, bytes[off + i]);
      return dtype === 'uint32'
        ? dv.getUint32(0, true)
        : dtype === 'int32'
          ? dv.getInt32(0, true)
          : dv.getFloat32(0, true);
    }
  }
}
