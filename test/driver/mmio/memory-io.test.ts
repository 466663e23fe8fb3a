import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MmioMemoryIO } from '../../../driver/mmio/memory-io.ts';
import { openRegion } from '../../../driver/mmio/region.ts';
import { expectCode, fileBytes, removeFiles, sparseFile } from './helpers.ts';

afterEach(removeFiles);

/** Two adjacent windows [0x10000, 0x11000) and [0x11000, 0x12000), and one at [0x20000, 0x21000). */
function setup() {
  const p = sparseFile(0x10000);
  const a = openRegion(p, { offset: 0x0000, size: 0x1000 });
  const b = openRegion(p, { offset: 0x4000, size: 0x1000 });
  const c = openRegion(p, { offset: 0x8000, size: 0x2000 });
  const mem = new MmioMemoryIO([
    { deviceAddress: 0x11000, region: b },
    { deviceAddress: 0x10000, region: a },
    { deviceAddress: 0x20000, region: c, offset: 0x1000, size: 0x1000 },
  ]);
  const dispose = () => [a, b, c].forEach((r) => r.dispose());
  return { p, a, b, c, mem, dispose };
}

describe('MmioMemoryIO', () => {
  it('reads and writes bytes at device addresses, across adjacent windows', () => {
    const { p, mem, dispose } = setup();
    const src = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    mem.write(0x11000 - 16, src);
    expect([...fileBytes(p, 0x1000 - 16, 16)]).toEqual([...src.subarray(0, 16)]);
    expect([...fileBytes(p, 0x4000, 16)]).toEqual([...src.subarray(16)]);
    const back = new Uint8Array(32);
    mem.read(0x11000 - 16, back);
    expect([...back]).toEqual([...src]);
    mem.write(0x20010, Uint8Array.of(9, 8, 7));
    expect([...fileBytes(p, 0x9010, 3)]).toEqual([9, 8, 7]);
    expect(mem.windows().map((w) => w.deviceAddress)).toEqual([0x10000, 0x11000, 0x20000]);
    dispose();
  });

  it('a write with any byte unmapped is MEMORY_UNMAPPED and writes nothing', () => {
    const { p, mem, dispose } = setup();
    const before = fs.readFileSync(p);
    expectCode(() => mem.write(0x12000 - 4, new Uint8Array(8).fill(0xee)), 'MEMORY_UNMAPPED');
    expectCode(() => mem.write(0x0fffc, new Uint8Array(8).fill(0xee)), 'MEMORY_UNMAPPED');
    expectCode(() => mem.write(0x21000, new Uint8Array(1)), 'MEMORY_UNMAPPED');
    expectCode(() => mem.write(-1, new Uint8Array(1)), 'MEMORY_UNMAPPED');
    expectCode(() => mem.write(0.5, new Uint8Array(1)), 'MEMORY_UNMAPPED');
    expectCode(() => mem.read(0x1ffff, new Uint8Array(2)), 'MEMORY_UNMAPPED');
    expect(fs.readFileSync(p).equals(before)).toBe(true);
    dispose();
  });

  it('isMapped and view', () => {
    const { p, mem, dispose } = setup();
    expect(mem.isMapped(0x10000, 0x2000)).toBe(true);
    expect(mem.isMapped(0x10000, 0x2001)).toBe(false);
    expect(mem.isMapped(0x20fff, 1)).toBe(true);
    expect(mem.isMapped(0x21000, 0)).toBe(true);
    expect(mem.isMapped(-1, 1)).toBe(false);
    const v = mem.view(0x20100, 16)!;
    expect(v).toBeInstanceOf(Uint8Array);
    v[0] = 0x42;
    expect(fileBytes(p, 0x9100, 1)[0]).toBe(0x42);
    expect(mem.view(0x10ff0, 32)).toBeUndefined(); // spans two windows
    expect(mem.view(0x30000, 1)).toBeUndefined();
    dispose();
  });

  it('registers(): a RegisterIO over device memory', () => {
    const { p, mem, dispose } = setup();
    const r = mem.registers(0x20100, 0x38, 'dge_host');
    r.write32(0x18, 0xdeadbeef);
    expect(fileBytes(p, 0x9118, 4).readUInt32LE(0)).toBe(0xdeadbeef);
    expectCode(() => r.write32(0x38, 0), 'OUT_OF_WINDOW');
    expectCode(() => mem.registers(0x20ff0, 0x38), 'MEMORY_UNMAPPED');
    expectCode(() => mem.registers(0x20102, 0x38), 'MISALIGNED');
    dispose();
  });

  it('overlapping windows are MEMORY_OVERLAP; windows outside their region are refused', () => {
    const p = sparseFile(0x4000);
    using a = openRegion(p, { offset: 0, size: 0x2000 });
    expectCode(
      () =>
        new MmioMemoryIO([
          { deviceAddress: 0x1000, region: a },
          { deviceAddress: 0x2fff, region: a, offset: 0x1000, size: 0x100 },
        ]),
      'MEMORY_OVERLAP',
    );
    expectCode(
      () => new MmioMemoryIO([{ deviceAddress: 0, region: a, offset: 0x1000, size: 0x1001 }]),
      'OUT_OF_WINDOW',
    );
    expectCode(() => new MmioMemoryIO([{ deviceAddress: -1, region: a }]), 'BAD_ARGUMENT');
    expectCode(
      () => new MmioMemoryIO([{ deviceAddress: 2 ** 53 - 16, region: a }]),
      'BAD_ARGUMENT',
    );
  });

  it('after its region is disposed a window is DEVICE_CLOSED and not mapped', () => {
    const { mem, a, dispose } = setup();
    a.dispose();
    expect(mem.isMapped(0x10000, 4)).toBe(false);
    expectCode(() => mem.read(0x10000, new Uint8Array(4)), 'DEVICE_CLOSED');
    expectCode(() => mem.write(0x10ffc, new Uint8Array(8)), 'DEVICE_CLOSED');
    expectCode(() => mem.view(0x10000, 4), 'DEVICE_CLOSED');
    dispose();
  });
});
