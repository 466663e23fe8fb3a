import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MockMemory } from '../../mocks/memory.ts';
import { errorCode as code } from '../support/errors.ts';

describe('MockMemory', () => {
  it('holds named regions anywhere in a sparse 64-bit space', () => {
    const m = new MockMemory([
      { name: 'host', base: 0x1000, size: 0x1000 },
      { name: 'dram', base: 2 ** 40, size: 0x2000, kind: 'dram' },
    ]);
    expect(m.regions().map((r) => [r.name, r.kind, r.base, r.end])).toEqual([
      ['host', 'host', 0x1000, 0x2000],
      ['dram', 'dram', 2 ** 40, 2 ** 40 + 0x2000],
    ]);
    m.write(2 ** 40 + 16, Uint8Array.of(1, 2, 3));
    const b = new Uint8Array(3);
    m.read(2 ** 40 + 16, b);
    expect([...b]).toEqual([1, 2, 3]);
    expect(m.isMapped(0x1000, 0x1000)).toBe(true);
    expect(m.isMapped(0x1000, 0x1001)).toBe(false);
    expect(m.isMapped(0xfff, 1)).toBe(false);
    expect(m.region('dram').size).toBe(0x2000);
  });

  it('rejects overlapping regions with MEMORY_OVERLAP and changes nothing', () => {
    const m = new MockMemory([{ name: 'a', base: 0x1000, size: 0x1000 }]);
    expect(code(() => m.addRegion({ name: 'b', base: 0x1fff, size: 2 }))).toBe('MEMORY_OVERLAP');
    expect(code(() => m.addRegion({ name: 'c', base: 0, size: 0x1001 }))).toBe('MEMORY_OVERLAP');
    expect(m.regions().length).toBe(1);
    // Adjacent is fine.
    m.addRegion({ name: 'd', base: 0x2000, size: 0x10 });
    // A list with an internal overlap adds nothing at all.
    expect(
      code(
        () =>
          new MockMemory([
            { name: 'x', base: 0, size: 16 },
            { name: 'y', base: 8, size: 16 },
          ]),
      ),
    ).toBe('MEMORY_OVERLAP');
  });

  it('rejects bad region specs with BAD_ARGUMENT', () => {
    const m = new MockMemory();
    expect(code(() => m.addRegion({ name: '', base: 0, size: 1 }))).toBe('BAD_ARGUMENT');
    expect(code(() => m.addRegion({ name: 'n', base: -1, size: 1 }))).toBe('BAD_ARGUMENT');
    expect(code(() => m.addRegion({ name: 'n', base: 0, size: 0 }))).toBe('BAD_ARGUMENT');
    expect(code(() => m.addRegion({ name: 'n', base: 2 ** 53 - 2, size: 4 }))).toBe('BAD_ARGUMENT');
    m.addRegion({ name: 'n', base: 0, size: 1 });
    expect(code(() => m.addRegion({ name: 'n', base: 100, size: 1 }))).toBe('BAD_ARGUMENT');
    expect(code(() => m.region('nope'))).toBe('BAD_ARGUMENT');
  });

  it('a write touching unmapped bytes throws MEMORY_UNMAPPED and writes nothing', () => {
    const m = new MockMemory([{ name: 'a', base: 0, size: 16 }]);
    expect(code(() => m.write(12, new Uint8Array(8).fill(9)))).toBe('MEMORY_UNMAPPED');
    expect([...m.view(0, 16)!].every((b) => b === 0)).toBe(true);
    expect(code(() => m.read(12, new Uint8Array(8)))).toBe('MEMORY_UNMAPPED');
    expect(m.view(12, 8)).toBeUndefined();
  });

  it('reads and writes across adjacent regions', () => {
    const m = new MockMemory([
      { name: 'a', base: 0, size: 8 },
      { name: 'b', base: 8, size: 8 },
    ]);
    m.write(4, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    expect([...m.region('b').bytes.subarray(0, 4)]).toEqual([5, 6, 7, 8]);
    const out = new Uint8Array(8);
    m.read(4, out);
    expect([...out]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // A view needs one backing store.
    expect(m.view(4, 8)).toBeUndefined();
    expect(m.view(8, 8)!.length).toBe(8);
  });

  it('view() is live: writes through it land in memory', () => {
    const m = new MockMemory([{ name: 'a', base: 0x100, size: 64 }]);
    m.view(0x110, 4)!.set([0xef, 0xbe, 0xad, 0xde]);
    expect(m.readU32(0x110)).toBe(0xdeadbeef);
    m.writeU32(0x120, 0x01020304);
    expect([...m.view(0x120, 4)!]).toEqual([4, 3, 2, 1]);
  });

  it('aliases a caller-owned backing store', () => {
    const buf = Buffer.alloc(32);
    const m = new MockMemory([{ name: 'a', base: 2 ** 33, backing: buf }]);
    m.write(2 ** 33 + 1, Uint8Array.of(7));
    expect(buf[1]).toBe(7);
  });

  it('never touches a byte outside a region, for any access (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 80 }),
        (addr, len) => {
          const m = new MockMemory([
            { name: 'a', base: 16, size: 32 },
            { name: 'b', base: 100, size: 32 },
          ]);
          const c = code(() => m.write(addr, new Uint8Array(len).fill(1)));
          const mappedAll = m.isMapped(addr, len);
          expect(c).toBe(mappedAll ? 'none' : 'MEMORY_UNMAPPED');
          const written = [...m.region('a').bytes, ...m.region('b').bytes].filter(
            (b) => b === 1,
          ).length;
          expect(written).toBe(mappedAll ? len : 0);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});
