/**
 * Device layout rules (docs/device.md, "Layout rules"): register windows, memory windows and DGE
 * host-table windows may not overlap one another, checked before anything is mapped, and every
 * violation names both windows. A sparse file of the trn2 BAR0 size stands in for the device.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkInsideMemory, checkLayout } from '../../../driver/mmio/layout.ts';
import { openDevice, type OpenDeviceOptions } from '../../../driver/mmio/device.ts';
import { barRegisterWindows, unitOffset } from '../../../driver/mmio/profiles.ts';
import {
  allocatedBytes,
  expectCode,
  fileBytes,
  mappingsOf,
  removeFiles,
  sparseFile,
} from './helpers.ts';

afterEach(removeFiles);

const BAR0_SIZE = 0xb4000000 + 32 * 0x100000;
/** A BAR0 offset no register window of trn2 covers. */
const FREE = 0x1000_0000;

/** openDevice refuses `opts` with `code`; nothing was mapped and no byte of the file changed. */
function refused(
  opts: Omit<OpenDeviceOptions, 'path'>,
  code: 'MEMORY_OVERLAP' | 'MEMORY_UNMAPPED',
) {
  const p = sparseFile(BAR0_SIZE);
  const e = expectCode(() => openDevice({ path: p, ...opts }), code);
  expect(mappingsOf(p)).toEqual([]);
  expect(allocatedBytes(p)).toBe(0);
  return e;
}

describe('layout rule 1: nothing mapped from BAR0 overlaps a register window', () => {
  it('the profile reserves every engine unit and its SDMA wrapper, opened or not', () => {
    const w = barRegisterWindows('trn2');
    expect(w).toHaveLength(132);
    const e80 = w.find((x) => x.engine === 80)!;
    expect(e80.offset).toBe(0xa3000000);
    expect(e80.size).toBe(0x41000);
    expect(w.find((x) => x.engine === 128)!.offset).toBe(0x06800000);
  });

  it("a memory window over engine 80's UDMA unit is refused though engine 80 is not opened", () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [0],
        memory: [{ deviceAddress: 0xa3000000, fileOffset: 0xa3000000, size: 0x40000 }],
      },
      'MEMORY_OVERLAP',
    );
    expect(e.message).toMatch(/memory\[0\]/);
    expect(e.message).toMatch(/engine 80 UDMA unit/);
    expect([...(e.details.windows as string[])].sort()).toEqual([
      'engine 80 UDMA unit + SDMA wrapper',
      'memory[0]',
    ]);
  });

  it('a 4-byte memory window on udma_m2s word 0 of an opened engine is refused', () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [0],
        memory: [{ deviceAddress: 0x1000, fileOffset: unitOffset('trn2', 0), size: 4 }],
      },
      'MEMORY_OVERLAP',
    );
    expect(e.message).toMatch(/engine 0 UDMA unit.*memory\[0\]|memory\[0\].*engine 0 UDMA unit/);
  });

  it('a memory window on the SDMA wrapper block (unit + 0x40000) is refused', () => {
    refused(
      {
        profile: 'trn2',
        engines: [],
        memory: [{ deviceAddress: 0, fileOffset: unitOffset('trn2', 5) + 0x40000, size: 0x20 }],
      },
      'MEMORY_OVERLAP',
    );
  });

  it('a DGE core given by barOffset inside a register window is refused, naming both', () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [],
        dgeCores: [{ core: 0, kind: 9, bootState: 1, barOffset: unitOffset('trn2', 129) + 0x100 }],
      },
      'MEMORY_OVERLAP',
    );
    expect(e.message).toMatch(/engine 129 UDMA unit/);
    expect(e.message).toMatch(/DGE core 0 dge_host/);
  });

  it('windows right next to a register window, and the same offsets of another file, are fine', () => {
    const p = sparseFile(BAR0_SIZE);
    const other = sparseFile(BAR0_SIZE, 'bar2');
    const u0 = unitOffset('trn2', 0);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [0],
      memory: [
        { deviceAddress: 0x2000_0000, fileOffset: u0 - 0x1000, size: 0x1000 },
        { deviceAddress: 0x3000_0000, fileOffset: u0 + 0x41000, size: 0x1000 },
        { deviceAddress: 0x4000_0000, fileOffset: u0, size: 0x1000, path: other },
      ],
    });
    dev.memory.write(0x4000_0000, new Uint8Array([1, 2, 3, 4]));
    expect(fileBytes(p, u0, 4)).toEqual(Buffer.alloc(4));
    expect(fileBytes(other, u0, 4)).toEqual(Buffer.from([1, 2, 3, 4]));
  });
});

describe('layout rules 1 and 2: memory and DGE windows do not overlap each other', () => {
  it('two memory windows over the same file bytes are refused (at different device addresses)', () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [],
        memory: [
          { deviceAddress: 0x1_0000_0000, fileOffset: FREE, size: 0x2000 },
          { deviceAddress: 0x2_0000_0000, fileOffset: FREE + 0x1000, size: 0x1000 },
        ],
      },
      'MEMORY_OVERLAP',
    );
    expect(e.details.windows).toEqual(['memory[0]', 'memory[1]']);
  });

  it('a DGE barOffset window over a memory window is refused', () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [],
        memory: [{ deviceAddress: 0x1_0000_0000, fileOffset: FREE, size: 0x10000 }],
        dgeCores: [{ core: 1, kind: 9, bootState: 1, barOffset: FREE + 0x8000 }],
      },
      'MEMORY_OVERLAP',
    );
    expect(e.message).toMatch(/memory\[0\]/);
    expect(e.message).toMatch(/DGE core 1 dge_host/);
  });

  it('two DGE cores sharing host-table bytes are refused', () => {
    refused(
      {
        profile: 'trn2',
        engines: [],
        dgeCores: [
          { core: 0, kind: 9, bootState: 1, barOffset: FREE },
          { core: 1, kind: 9, bootState: 1, barOffset: FREE + 0x10 },
        ],
      },
      'MEMORY_OVERLAP',
    );
  });

  it('a DGE table mapped from BAR0 whose device address lies in a memory window is refused', () => {
    refused(
      {
        profile: 'trn2',
        engines: [],
        memory: [{ deviceAddress: 0x1_0000_0000, fileOffset: FREE, size: 0x10000 }],
        dgeCores: [
          {
            core: 0,
            kind: 9,
            bootState: 1,
            barOffset: FREE + 0x20000,
            deviceAddress: 0x1_0000_1000,
          },
        ],
      },
      'MEMORY_OVERLAP',
    );
  });

  it('a DGE core given only by a device address must lie in a memory window (checked before mapping)', () => {
    const e = refused(
      {
        profile: 'trn2',
        engines: [],
        memory: [{ deviceAddress: 0x1_0000_0000, fileOffset: FREE, size: 0x10000 }],
        dgeCores: [{ core: 0, kind: 9, bootState: 1, deviceAddress: 0x1_0000_fff0 }],
      },
      'MEMORY_UNMAPPED',
    );
    expect(e.message).toMatch(/DGE core 0 dge_host/);
    expect(e.message).toMatch(/memory\[0\]/);
  });
});

describe('checkLayout / checkInsideMemory (pure)', () => {
  it('program regions may not overlap each other or a DGE table; inside memory they are expected', () => {
    const mem = {
      kind: 'memory' as const,
      name: 'memory[0]',
      device: { address: 0, size: 0x10000 },
    };
    const a = {
      kind: 'program' as const,
      name: 'region A',
      device: { address: 0x100, size: 0x100 },
    };
    const b = {
      kind: 'program' as const,
      name: 'region B',
      device: { address: 0x180, size: 0x100 },
    };
    const dge = {
      kind: 'dge' as const,
      name: 'DGE core 0 dge_host',
      carved: true,
      device: { address: 0x8000, size: 0x40 },
    };
    checkLayout([mem, a, dge]);
    const e = expectCode(() => checkLayout([mem, a, b]), 'MEMORY_OVERLAP');
    expect(e.details.windows).toEqual(['region A', 'region B']);
    const c = { kind: 'program' as const, name: 'region C', device: { address: 0x8020, size: 8 } };
    expect(expectCode(() => checkLayout([mem, dge, c]), 'MEMORY_OVERLAP').message).toMatch(
      /DGE core 0 dge_host.*region C/,
    );
  });

  it('a region must lie inside declared memory; adjacent declarations count as one', () => {
    const decl = [
      { name: 'sb', deviceAddress: 0x1000, size: 0x1000 },
      { name: 'more', deviceAddress: 0x2000, size: 0x1000 },
    ];
    expect(checkInsideMemory({ name: 'r', address: 0x1800, size: 0x1000 }, decl).name).toBe('sb');
    const e = expectCode(
      () => checkInsideMemory({ name: 'region SB', address: 0x2800, size: 0x1000 }, decl),
      'MEMORY_UNMAPPED',
    );
    expect(e.message).toMatch(/region SB.*more/);
    expect(
      expectCode(() => checkInsideMemory({ name: 'r', address: 0, size: 4 }, []), 'MEMORY_UNMAPPED')
        .message,
    ).toMatch(/none is declared/);
  });
});

describe('the layout is checked on a private snapshot of the options', () => {
  it('a memory window whose fileOffset getter turns to a register window after the first read maps where the first read said', () => {
    const p = sparseFile(BAR0_SIZE);
    let reads = 0;
    const spec = {
      deviceAddress: 0x1_0000_0000,
      size: 0x1000,
      get fileOffset() {
        reads++;
        return reads === 1 ? FREE : 0xa3000000;
      },
    };
    using dev = openDevice({ path: p, profile: 'trn2', engines: [], memory: [spec] });
    expect(reads).toBe(1);
    dev.memory.write(0x1_0000_0000, new Uint8Array([0xde, 0xad, 0xbe, 0xef]));
    expect(fileBytes(p, FREE, 4)).toEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
    expect(fileBytes(p, 0xa3000000, 4)).toEqual(Buffer.alloc(4));
  });

  it('a DGE barOffset getter cannot move the table onto registers after validation', () => {
    const p = sparseFile(BAR0_SIZE);
    let reads = 0;
    const core = {
      core: 0,
      kind: 9,
      bootState: 1,
      get barOffset() {
        reads++;
        return reads === 1 ? FREE : unitOffset('trn2', 3);
      },
    };
    using dev = openDevice({ path: p, profile: 'trn2', engines: [], dgeCores: [core] });
    expect(reads).toBe(1);
    dev.dgeCore(0).dram.write32(0x18, 0x1234);
    expect(fileBytes(p, FREE + 0x18, 4).readUInt32LE(0)).toBe(0x1234);
    expect(fileBytes(p, unitOffset('trn2', 3) + 0x18, 4).readUInt32LE(0)).toBe(0);
  });
});
