import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Device, UdmaUnitIO } from '../../../csr/io.ts';
import { applyQos, getProfile, openRegion, type MappedRegion } from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';

const EXAMPLE = JSON.parse(
  fs.readFileSync(new URL('../../../examples/qos-plan.json', import.meta.url), 'utf8'),
);
const trn2 = getProfile('trn2');
/** One UDMA unit per engine in the stand-in file (M2S and S2M at the profile's window offsets). */
const UNIT = 0x40000;
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** A Device whose engines' register windows are regions of one file-backed mapping. */
function fileDevice(file: string, engines: number[]): Device {
  const units = new Map<number, UdmaUnitIO>();
  const regions: MappedRegion[] = [];
  engines.forEach((e, k) => {
    const region = openRegion(file, { offset: k * UNIT, size: UNIT });
    regions.push(region);
    const w = trn2.windows;
    units.set(e, {
      engine: e,
      m2s: region.registers(w.udma_m2s.offset, w.udma_m2s.size),
      s2m: region.registers(w.udma_s2m.offset, w.udma_s2m.size),
    });
  });
  cleanup.push(() => regions.forEach((r) => r[Symbol.dispose]()));
  const nope = (): never => {
    throw new Error('no DGE cores');
  };
  return {
    name: `file:${file}`,
    profile: 'trn2',
    isHardware: true,
    memory: { read: nope, write: nope, isMapped: () => false },
    udma: (e) => units.get(e)!,
    engines: () => engines,
    dgeCore: nope,
    dgeCores: () => [],
  };
}

function windowBytes(file: string, offset: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, b, 0, size, offset);
  } finally {
    fs.closeSync(fd);
  }
  return b;
}

describe('the same plan on the mock and on a file-backed openRegion', () => {
  it('yields byte-identical register images', () => {
    const engines = [0, 1, 2];
    const mock = new MockDevice({ engines });
    // The file starts as the mock's image (reset values), as a freshly reset device would.
    const file = path.join(dir, `nxdma-qos-image-${process.pid}-${Date.now()}`);
    cleanup.push(() => fs.rmSync(file, { force: true }));
    const init = Buffer.alloc(engines.length * UNIT);
    engines.forEach((e, k) => {
      const u = mock.udma(e);
      Buffer.from(u.m2s.words.buffer).copy(init, k * UNIT + trn2.windows.udma_m2s.offset);
      Buffer.from(u.s2m.words.buffer).copy(init, k * UNIT + trn2.windows.udma_s2m.offset);
    });
    fs.writeFileSync(file, init);
    const dev = fileDevice(file, engines);

    const a = applyQos(mock, EXAMPLE, { allowInferred: true, verify: true });
    const b = applyQos(dev, EXAMPLE, { allowInferred: true, verify: true });
    expect(b.writes).toEqual(a.writes);
    expect(a.writes.length).toBeGreaterThan(20);

    engines.forEach((e, k) => {
      const u = mock.udma(e);
      const m = windowBytes(
        file,
        k * UNIT + trn2.windows.udma_m2s.offset,
        trn2.windows.udma_m2s.size,
      );
      const s = windowBytes(
        file,
        k * UNIT + trn2.windows.udma_s2m.offset,
        trn2.windows.udma_s2m.size,
      );
      expect(m.equals(Buffer.from(u.m2s.words.buffer)), `engine ${e} udma_m2s`).toBe(true);
      expect(s.equals(Buffer.from(u.s2m.words.buffer)), `engine ${e} udma_s2m`).toBe(true);
    });
    // And the plan really changed the image.
    expect(windowBytes(file, 0x1084, 4).readUInt32LE(0)).toBe(4);
    expect(init.subarray(0, UNIT).equals(windowBytes(file, 0, UNIT))).toBe(false);
  });
});
