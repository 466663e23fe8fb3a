/**
 * The mock device's DMA-visible memory: a sparse 64-bit address space made of named regions the
 * user declares (host memory, device DRAM, ...). Each region is one contiguous backing store; the
 * space between regions is unmapped. Implements `MemoryIO`.
 *
 * Addresses are JavaScript numbers (non-negative safe integers, < 2^53), as everywhere in nxdma.
 */
import { NxdmaError, hex } from '../common/errors.ts';
import { getU32LE, putU32LE } from '../csr/formats/wire.ts';
import type { MemoryIO } from '../csr/io.ts';

/** What a user declares. */
export interface MemoryRegionSpec {
  /** Unique name ('host', 'dram', ...). */
  name: string;
  /** First device address of the region. */
  base: number;
  /** Size in bytes (> 0). Ignored when `backing` is given (its length is the size). */
  size?: number;
  /** Free-form kind shown in listings ('host', 'dram'); defaults to the name. */
  kind?: string;
  /** Optional caller-owned backing store; the region then aliases it (no copy). */
  backing?: Uint8Array;
}

/** Largest single region: one typed array. */
export const MAX_REGION_BYTES = 2 ** 32;

/** One mapped region. `bytes` is the live backing store; `view` reads it little-endian. */
export class MemoryRegion {
  readonly name: string;
  readonly kind: string;
  readonly base: number;
  readonly size: number;
  /** One past the last address. */
  readonly end: number;
  readonly bytes: Uint8Array;
  /** Little-endian word access to `bytes` (used by the engine to read descriptors). */
  readonly dv: DataView;
  /**
   * The same bytes as 32-bit words (index = byte offset / 4) when the backing store is 4-byte
   * aligned, else null: the engine copies small word-aligned chunks through it.
   */
  readonly i32: Int32Array | null;
  /**
   * The same bytes as 64-bit words (index = byte offset / 8) when the backing store is 8-byte
   * aligned, else null: the engine copies small chunks of whole 8-byte words through it (a
   * load and a store of a float64 element move its 8 bytes unchanged, NaN payloads included).
   */
  readonly f64: Float64Array | null;
  /** The backing store `bytes` is a view of (two regions may share one: caller-owned backings). */
  readonly store: ArrayBufferLike;

  constructor(name: string, kind: string, base: number, bytes: Uint8Array) {
    this.name = name;
    this.kind = kind;
    this.base = base;
    this.size = bytes.length;
    this.end = base + bytes.length;
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.store = bytes.buffer;
    this.i32 =
      (bytes.byteOffset & 3) === 0
        ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2)
        : null;
    this.f64 =
      (bytes.byteOffset & 7) === 0
        ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 3)
        : null;
  }

  /** True when [addr, addr + length) lies inside this region. */
  contains(addr: number, length: number): boolean {
    return addr >= this.base && addr + length <= this.end;
  }
}

function checkAddress(addr: number, length: number, where: string): void {
  if (!Number.isSafeInteger(addr) || addr < 0) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: address ${String(addr)} is not a safe non-negative integer`,
      {
        where,
        expected: 'integer in [0, 2^53)',
        actual: addr,
      },
    );
  }
  if (!Number.isSafeInteger(length) || length < 0 || !Number.isSafeInteger(addr + length)) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: length ${String(length)} is not valid at ${hex(addr)}`,
      {
        where,
        expected: 'non-negative integer with addr + length < 2^53',
        actual: length,
      },
    );
  }
}

export class MockMemory implements MemoryIO {
  /** Sorted by base. */
  private readonly list: MemoryRegion[] = [];
  private readonly byName = new Map<string, MemoryRegion>();
  /** Last region hit: most accesses fall in the region of the previous one. */
  private last: MemoryRegion | undefined;
  /**
   * Called before every read through `read`, `view` and `readU32` (the mock device uses it to let
   * its engines catch up before the host looks at memory). The engines' own accesses skip it.
   */
  beforeRead: (() => void) | null = null;

  constructor(regions: readonly MemoryRegionSpec[] = []) {
    // Validate the whole set first so a rejected list adds nothing.
    const seen: RegionExtent[] = [];
    for (const spec of regions) seen.push(validateRegionSpec(spec, seen));
    for (const spec of regions) this.addRegion(spec);
  }

  /** Declares a region. Rejects (changing nothing) a bad spec, a duplicate name or an overlap. */
  addRegion(spec: MemoryRegionSpec): MemoryRegion {
    const { base, size } = validateRegionSpec(spec, this.list);
    const bytes = spec.backing ?? new Uint8Array(size);
    const region = new MemoryRegion(spec.name, spec.kind ?? spec.name, base, bytes);
    let i = 0;
    while (i < this.list.length && this.list[i].base < base) i++;
    this.list.splice(i, 0, region);
    this.byName.set(spec.name, region);
    return region;
  }

  /** Regions in address order. */
  regions(): readonly MemoryRegion[] {
    return this.list;
  }

  /** The region with this name; throws BAD_ARGUMENT when there is none. */
  region(name: string): MemoryRegion {
    const r = this.byName.get(name);
    if (!r) {
      throw new NxdmaError('BAD_ARGUMENT', `no memory region named '${name}'`, {
        where: 'MockMemory.region',
        expected: [...this.byName.keys()].join(', ') || '(no regions declared)',
        actual: name,
      });
    }
    return r;
  }

  /**
   * The region wholly containing [addr, addr + length), or undefined. No allocation: this is the
   * engine's lookup on every descriptor.
   */
  find(addr: number, length: number): MemoryRegion | undefined {
    const last = this.last;
    if (last !== undefined && addr >= last.base && addr + length <= last.end) return last;
    const list = this.list;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = list[mid];
      if (addr < r.base) hi = mid - 1;
      else if (addr >= r.end) lo = mid + 1;
      else {
        if (addr + length > r.end) return undefined;
        this.last = r;
        return r;
      }
    }
    return undefined;
  }

  /** The region containing the byte at addr, or undefined. */
  private regionOf(addr: number): MemoryRegion | undefined {
    return this.find(addr, 1);
  }

  /**
   * The regions [addr, addr + length) runs through, in order, when every byte is mapped (adjacent
   * regions with no gap between them), else null. Used by the engines for an access that crosses a
   * seam between two regions; no hook runs.
   */
  span(addr: number, length: number): MemoryRegion[] | null {
    const out: MemoryRegion[] = [];
    let a = addr;
    const end = addr + length;
    if (length > 0 && !Number.isSafeInteger(end)) return null;
    while (a < end) {
      const r = this.regionOf(a);
      if (!r) return null;
      out.push(r);
      a = r.end;
    }
    return out;
  }

  /** First unmapped address in [addr, addr + length), or -1 when all of it is mapped. */
  firstUnmapped(addr: number, length: number): number {
    let a = addr;
    const end = addr + length;
    // past 2^53 addresses are not exact: nothing there is mapped
    if (length > 0 && !Number.isSafeInteger(end)) return addr;
    while (a < end) {
      const r = this.regionOf(a);
      if (!r) return a;
      a = r.end;
    }
    return -1;
  }

  isMapped(addr: number, length: number): boolean {
    checkAddress(addr, length, 'MockMemory.isMapped');
    if (this.find(addr, length) !== undefined) return true; // inside one region: the common case
    return this.firstUnmapped(addr, length) < 0;
  }

  read(addr: number, dst: Uint8Array): void {
    checkAddress(addr, dst.length, 'MockMemory.read');
    if (this.beforeRead !== null) this.beforeRead();
    const r = this.find(addr, dst.length);
    if (r) {
      const off = addr - r.base;
      dst.set(r.bytes.subarray(off, off + dst.length));
      return;
    }
    this.mustBeMapped(addr, dst.length, 'read');
    let done = 0;
    while (done < dst.length) {
      const rr = this.regionOf(addr + done)!;
      const off = addr + done - rr.base;
      const n = Math.min(dst.length - done, rr.end - (addr + done));
      dst.set(rr.bytes.subarray(off, off + n), done);
      done += n;
    }
  }

  write(addr: number, src: Uint8Array): void {
    checkAddress(addr, src.length, 'MockMemory.write');
    const r = this.find(addr, src.length);
    if (r) {
      r.bytes.set(src, addr - r.base);
      return;
    }
    this.mustBeMapped(addr, src.length, 'write');
    let done = 0;
    while (done < src.length) {
      const rr = this.regionOf(addr + done)!;
      const n = Math.min(src.length - done, rr.end - (addr + done));
      rr.bytes.set(src.subarray(done, done + n), addr + done - rr.base);
      done += n;
    }
  }

  view(addr: number, length: number): Uint8Array | undefined {
    checkAddress(addr, length, 'MockMemory.view');
    if (this.beforeRead !== null) this.beforeRead();
    const r = this.find(addr, length);
    if (!r) return undefined;
    const off = addr - r.base;
    return r.bytes.subarray(off, off + length);
  }

  /** Fills [addr, addr + length) with one byte value. */
  fill(addr: number, length: number, value: number): void {
    checkAddress(addr, length, 'MockMemory.fill');
    this.mustBeMapped(addr, length, 'fill');
    let done = 0;
    while (done < length) {
      const rr = this.regionOf(addr + done)!;
      const off = addr + done - rr.base;
      const n = Math.min(length - done, rr.end - (addr + done));
      rr.bytes.fill(value, off, off + n);
      done += n;
    }
  }

  /** Little-endian 32-bit read (convenience for tests and tools). */
  readU32(addr: number): number {
    checkAddress(addr, 4, 'MockMemory.readU32');
    if (this.beforeRead !== null) this.beforeRead();
    const r = this.find(addr, 4);
    if (r) return r.dv.getUint32(addr - r.base, true);
    const b = new Uint8Array(4);
    this.read(addr, b);
    return getU32LE(b, 0);
  }

  /** Little-endian 32-bit write (convenience for tests and tools). */
  writeU32(addr: number, value: number): void {
    checkAddress(addr, 4, 'MockMemory.writeU32');
    const r = this.find(addr, 4);
    if (r) {
      r.dv.setUint32(addr - r.base, value >>> 0, true);
      return;
    }
    const b = new Uint8Array(4);
    putU32LE(b, 0, value >>> 0);
    this.write(addr, b);
  }

  private mustBeMapped(addr: number, length: number, op: string): void {
    const bad = this.firstUnmapped(addr, length);
    if (bad >= 0) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `${op} of ${length} byte(s) at ${hex(addr)}: address ${hex(bad)} is not in any region`,
        {
          where: hex(bad),
          expected: `mapped range (regions: ${this.describe()})`,
          actual: { addr, length, firstUnmapped: bad },
        },
      );
    }
  }

  /** 'host [0x0, 0x4000000), dram [...)' for messages. */
  describe(): string {
    if (this.list.length === 0) return 'none';
    return this.list.map((r) => `${r.name} [${hex(r.base)}, ${hex(r.end)})`).join(', ');
  }
}

interface RegionExtent {
  name: string;
  base: number;
  end: number;
}

/** Validates one region spec against regions already declared; returns its extent. */
function validateRegionSpec(
  spec: MemoryRegionSpec,
  others: readonly RegionExtent[],
): RegionExtent & { size: number } {
  const where = `memory region '${String(spec?.name)}'`;
  if (!spec || typeof spec.name !== 'string' || spec.name.length === 0) {
    throw new NxdmaError('BAD_ARGUMENT', 'a memory region needs a non-empty name', {
      where: 'MockMemory.addRegion',
      expected: 'name: non-empty string',
      actual: spec?.name,
    });
  }
  const { base } = spec;
  if (!Number.isSafeInteger(base) || base < 0) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: base ${String(base)} is not a safe non-negative integer`,
      {
        where,
        expected: 'integer in [0, 2^53)',
        actual: base,
      },
    );
  }
  const size = spec.backing ? spec.backing.length : spec.size;
  if (size === undefined || !Number.isSafeInteger(size) || size <= 0 || size > MAX_REGION_BYTES) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: size ${String(size)} is not valid`, {
      where,
      expected: `integer in [1, ${MAX_REGION_BYTES}]`,
      actual: size,
    });
  }
  const end = base + size;
  if (!Number.isSafeInteger(end)) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: ends beyond 2^53`, {
      where,
      expected: 'base + size < 2^53',
      actual: { base, size },
    });
  }
  for (const r of others) {
    if (r.name === spec.name) {
      throw new NxdmaError('BAD_ARGUMENT', `${where}: a region with this name already exists`, {
        where,
        expected: 'unique region names',
        actual: spec.name,
      });
    }
    if (base < r.end && r.base < end) {
      throw new NxdmaError(
        'MEMORY_OVERLAP',
        `${where} [${hex(base)}, ${hex(end)}) overlaps region '${r.name}' [${hex(r.base)}, ${hex(r.end)})`,
        { where, expected: 'regions that do not overlap', actual: { base, end, overlaps: r.name } },
      );
    }
  }
  return { name: spec.name, base, end, size };
}
