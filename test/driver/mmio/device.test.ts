import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Device } from '../../../csr/io.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { getProfile, registerFileOffset, unitOffset } from '../../../driver/mmio/profiles.ts';
import {
  allocatedBytes,
  expectCode,
  fileBytes,
  mappingsOf,
  removeFiles,
  sparseFile,
} from './helpers.ts';

afterEach(removeFiles);

/** A BAR0 stand-in covering every trn2 engine (sparse: costs only the pages written). */
const BAR0_SIZE = 0xb4000000 + 32 * 0x100000;
const trn2 = getProfile('trn2');

/** Works on any Device: what the layers above do. */
function touchQueue(dev: Device, engine: number): void {
  const u = dev.udma(engine);
  u.m2s.write32(0x1000 + 3 * 0x1000 + 0x84, 5); // M2S_Q[3].dwrr_cfg_2
  u.s2m.write32(0x1000 + 0x38, 2); // S2M_Q[0].rdrtp_inc
}

describe('openDevice (trn2 over a sparse BAR0 file)', () => {
  it("maps each opened engine's M2S and S2M windows at the profile offsets", () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [0, 31, 32, 95, 96, 127, 128, 131],
    });
    expect(dev.isHardware).toBe(true);
    expect(dev.profile).toBe('trn2');
    expect(dev.engines()).toEqual([0, 31, 32, 95, 96, 127, 128, 131]);
    for (const e of dev.engines()) {
      const u = dev.udma(e);
      expect(u.engine).toBe(e);
      expect(u.m2s.size).toBe(trn2.windows.udma_m2s.size);
      expect(u.s2m.size).toBe(trn2.windows.udma_s2m.size);
      touchQueue(dev, e);
      const unit = unitOffset('trn2', e);
      expect(dev.unitOffset(e)).toBe(unit);
      expect(fileBytes(p, unit + 0x4084, 4).readUInt32LE(0)).toBe(5);
      expect(fileBytes(p, unit + 0x20000 + 0x1038, 4).readUInt32LE(0)).toBe(2);
    }
    // two words per engine, each in its own page: nothing else was written
    expect(allocatedBytes(p)).toBe(8 * 2 * 4096);
    // only what is needed is mapped: two windows per engine
    expect(mappingsOf(p)).toHaveLength(16);
  });

  it('an engine window stops at its register file: the next file is out of window', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [7] });
    const u = dev.udma(7);
    expectCode(() => u.m2s.write32(trn2.windows.udma_m2s.size, 1), 'OUT_OF_WINDOW');
    expectCode(() => u.s2m.read32(trn2.windows.udma_s2m.size), 'OUT_OF_WINDOW');
    expectCode(() => u.m2s.write32(0x1002, 1), 'MISALIGNED');
    expect(allocatedBytes(p)).toBe(0);
  });

  it('an engine the profile lacks, or one not opened, is DEVICE_PROFILE', () => {
    const p = sparseFile(BAR0_SIZE);
    expectCode(() => openDevice({ path: p, profile: 'trn2', engines: [0, 132] }), 'DEVICE_PROFILE');
    expect(mappingsOf(p)).toEqual([]);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [1] });
    const e = expectCode(() => dev.udma(2), 'DEVICE_PROFILE');
    expect(e.message).toContain('not opened');
    expectCode(() => dev.udma(500), 'DEVICE_PROFILE');
    expectCode(() => dev.dgeCore(0), 'DEVICE_PROFILE');
  });

  it('an unknown profile is DEVICE_PROFILE; bad engine lists are refused before mapping', () => {
    const p = sparseFile(0x1000);
    expectCode(
      () => openDevice({ path: p, profile: 'trn9' as 'trn2', engines: [0] }),
      'DEVICE_PROFILE',
    );
    expectCode(
      () => openDevice({ path: sparseFile(BAR0_SIZE), profile: 'trn2', engines: [3, 3] }),
      'BAD_ARGUMENT',
    );
  });

  it('a file too short for a later engine maps nothing (all or nothing)', () => {
    const p = sparseFile(0x94000000); // covers SENG 0 only
    const e = expectCode(
      () => openDevice({ path: p, profile: 'trn2', engines: [0, 1, 32] }),
      'DEVICE_OPEN',
    );
    expect(e.message).toContain('beyond the end');
    expect(mappingsOf(p)).toEqual([]);
  });

  it('memory windows and DGE cores (by BAR offset and by device address)', () => {
    const p = sparseFile(BAR0_SIZE);
    const mem = sparseFile(0x100000, 'hbm');
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [0],
      memory: [{ deviceAddress: 0x4_0000_0000, fileOffset: 0x10000, size: 0x20000, path: mem }],
      dgeCores: [
        { core: 0, kind: 9, bootState: 1, barOffset: 0x1000 },
        { core: 1, kind: 9, bootState: 0, deviceAddress: 0x4_0000_8000 },
      ],
    });
    expect(dev.dgeCores()).toEqual([0, 1]);
    const c0 = dev.dgeCore(0);
    expect(c0).toMatchObject({ core: 0, kind: 9, bootState: 1, dramBase: 0x1000 });
    expect(c0.dram.size).toBe(trn2.dgeHostSize);
    c0.dram.write32(0x18, 0x1234);
    expect(fileBytes(p, 0x1018, 4).readUInt32LE(0)).toBe(0x1234);
    const c1 = dev.dgeCore(1);
    expect(c1.dramBase).toBe(0x4_0000_8000);
    c1.dram.write32(0x28, 0xffff_ff00);
    expect(fileBytes(mem, 0x10000 + 0x8000 + 0x28, 4).readUInt32LE(0)).toBe(0xffffff00);
    // the same bytes through MemoryIO
    const b = new Uint8Array(4);
    dev.memory.read(0x4_0000_8028, b);
    expect([...b]).toEqual([0x00, 0xff, 0xff, 0xff]);
    expectCode(() => dev.memory.read(0x4_0002_0000 + 0x10000, b), 'MEMORY_UNMAPPED');
  });

  it('a DGE core address outside the memory windows is refused and nothing stays mapped', () => {
    const p = sparseFile(0x100000);
    expectCode(
      () =>
        openDevice({
          path: p,
          profile: 'trn2',
          engines: [],
          memory: [{ deviceAddress: 0x1000, fileOffset: 0, size: 0x1000 }],
          dgeCores: [{ core: 0, kind: 9, bootState: 1, deviceAddress: 0x1ff0 }],
        }),
      'MEMORY_UNMAPPED',
    );
    expect(mappingsOf(p)).toEqual([]);
    expectCode(
      () =>
        openDevice({
          path: p,
          profile: 'trn2',
          engines: [],
          dgeCores: [{ core: 0, kind: 9, bootState: 1 }],
        }),
      'BAD_ARGUMENT',
    );
    expectCode(
      () =>
        openDevice({
          path: p,
          profile: 'trn2',
          engines: [],
          memory: [
            { deviceAddress: 0x1000, fileOffset: 0, size: 0x1000 },
            { deviceAddress: 0x1800, fileOffset: 0x4000, size: 0x1000 },
          ],
        }),
      'MEMORY_OVERLAP',
    );
    expect(mappingsOf(p)).toEqual([]);
  });

  it('a read-only device refuses every write with DEVICE_READ_ONLY', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [64],
      readOnly: true,
      memory: [{ deviceAddress: 0, fileOffset: 0, size: 0x1000 }],
      dgeCores: [{ core: 0, kind: 9, bootState: 1, deviceAddress: 0x100 }],
    });
    expect(dev.udma(64).m2s.read32(0x1020)).toBe(0);
    const unit = unitOffset('trn2', 64);
    const snapshot = () => Buffer.concat([fileBytes(p, unit, 0x40000), fileBytes(p, 0, 0x1000)]);
    const before = snapshot();
    const allocated = allocatedBytes(p); // reading a hole through a mapping may allocate its page
    expectCode(() => dev.udma(64).m2s.write32(0x1020, 1), 'DEVICE_READ_ONLY');
    expectCode(() => dev.udma(64).s2m.write32(0x1038, 1), 'DEVICE_READ_ONLY');
    expectCode(() => dev.dgeCore(0).dram.write32(0x18, 1), 'DEVICE_READ_ONLY');
    expectCode(() => dev.memory.write(0, new Uint8Array(4).fill(1)), 'DEVICE_READ_ONLY');
    expect(dev.memory.view(0, 4)).toBeUndefined();
    expect(snapshot().equals(before)).toBe(true);
    expect(before.every((b) => b === 0)).toBe(true);
    expect(allocatedBytes(p)).toBe(allocated);
    for (const line of mappingsOf(p)) expect(line.split(/\s+/)[1]).toBe('r--s');
  });

  it('dispose unmaps everything; access afterwards is DEVICE_CLOSED; dispose twice is fine', () => {
    const p = sparseFile(BAR0_SIZE);
    const dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [0, 129],
      memory: [{ deviceAddress: 0x1000, fileOffset: 0x1000, size: 0x1000 }],
    });
    const m2s = dev.udma(0).m2s;
    expect(mappingsOf(p)).toHaveLength(5);
    dev.dispose();
    dev.dispose();
    expect(dev.disposed).toBe(true);
    expect(mappingsOf(p)).toEqual([]);
    expectCode(() => dev.udma(0), 'DEVICE_CLOSED');
    expectCode(() => m2s.read32(0), 'DEVICE_CLOSED');
    expectCode(() => m2s.write32(0, 1), 'DEVICE_CLOSED');
    expectCode(() => dev.memory.read(0x1000, new Uint8Array(4)), 'DEVICE_CLOSED');
    expect(dev.memory.isMapped(0x1000, 4)).toBe(false);
    expect(fs.statSync(p).blocks).toBe(0);
  });

  it('registerFileOffset agrees with where the device writes', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [130] });
    dev.udma(130).s2m.write32(0, 0xcafef00d);
    expect(fileBytes(p, registerFileOffset('trn2', 130, 'udma_s2m'), 4).readUInt32LE(0)).toBe(
      0xcafef00d,
    );
  });
});
