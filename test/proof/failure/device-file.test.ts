/**
 * Failure modes of a mapped device file (driver/mmio; docs/device.md), through the layers a user
 * calls (openDevice, UdmaEngine, applyQos), not only the region primitives: a device file that is
 * missing, read-only, or shorter than the mapping. Each ends in a typed error with nothing mapped
 * (all or nothing) or nothing written: the files are read back with fs after every refusal.
 *
 * Also the full driver on a file-backed device: bring-up, queue init and a copy write exactly the
 * bytes the driver says they write; with no engine behind the file, the wait ends in QUEUE_STATE
 * (heads no reset queue shows) or TIMEOUT (nothing consumed).
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDevice } from '../../../driver/mmio/device.ts';
import { getProfile, unitOffset } from '../../../driver/mmio/profiles.ts';
import { applyQos, diffQos, type QosPlanInput } from '../../../driver/qos/index.ts';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import { queueRegs } from '../../../driver/udma/queue-regs.ts';
import {
  allocatedBytes,
  fileBytes,
  mappingsOf,
  missingPath,
  removeFiles,
  sparseFile,
} from '../../driver/mmio/helpers.ts';
import { expectNxdma, expectNxdmaAsync } from '../../support/fuzz.ts';

afterEach(removeFiles);

const trn2 = getProfile('trn2');
/** Covers SENG 0 (engines 0..31) of a trn2 BAR0. */
const BAR0_SENG0 = 0x82000000 + 32 * 0x100000;
const UNIT_SPAN = 0x40000;
const PLAN: QosPlanInput = {
  version: 1,
  engines: [{ engine: 0, arbiters: { prefetch: 'qos' }, queues: [{ queue: 0, class: 'P0' }] }],
};

describe('a device file that is missing', () => {
  it('openDevice is DEVICE_OPEN naming the path; a missing memory file undoes the BAR0 mappings', () => {
    const p = missingPath();
    const e = expectNxdma(
      () => openDevice({ path: p, profile: 'trn2', engines: [0] }),
      'DEVICE_OPEN',
    );
    expect(e.message).toContain(p);
    expect(fs.existsSync(p)).toBe(false); // never created
    const bar0 = sparseFile(BAR0_SENG0);
    const mem = missingPath();
    expectNxdma(
      () =>
        openDevice({
          path: bar0,
          profile: 'trn2',
          engines: [0, 1],
          memory: [{ deviceAddress: 2 ** 32, fileOffset: 0, size: 0x10000, path: mem }],
        }),
      'DEVICE_OPEN',
    );
    expect(mappingsOf(bar0)).toEqual([]);
    expect(allocatedBytes(bar0)).toBe(0);
  });
});

describe('a device file that is read-only', () => {
  it('read-write open is refused; a read-only device refuses bring-up and QoS writes and nothing reaches the file', () => {
    const bar0 = sparseFile(BAR0_SENG0);
    const image = Buffer.alloc(UNIT_SPAN);
    for (let i = 0; i < image.length; i += 4) image.writeUInt32LE((i * 2654435761) >>> 0, i);
    const fd = fs.openSync(bar0, 'r+');
    fs.writeSync(fd, image, 0, image.length, unitOffset('trn2', 0));
    fs.closeSync(fd);
    fs.chmodSync(bar0, 0o444);
    const e = expectNxdma(
      () => openDevice({ path: bar0, profile: 'trn2', engines: [0] }),
      'DEVICE_OPEN',
    );
    expect(e.message).toContain('readOnly');
    expect(mappingsOf(bar0)).toEqual([]);

    using dev = openDevice({ path: bar0, profile: 'trn2', engines: [0], readOnly: true });
    const eng = new UdmaEngine(dev, 0);
    expectNxdma(() => eng.bringUp(), 'DEVICE_READ_ONLY');
    expect(eng.isBroughtUp).toBe(false);
    expectNxdma(() => applyQos(dev, PLAN), 'DEVICE_READ_ONLY');
    // inspection still works: health and a diff read the registers
    expect(eng.health().engine).toBe(0);
    expect(diffQos(dev, PLAN).io.reads).toBeGreaterThan(0);
    // the dry run computes without writing
    expect(applyQos(dev, PLAN, { dryRun: true }).writes.length).toBeGreaterThan(0);
    expect(fileBytes(bar0, unitOffset('trn2', 0), UNIT_SPAN).equals(image)).toBe(true);
  });
});

describe('a device file shorter than the mapping', () => {
  it('engine windows past the end: DEVICE_OPEN before mapping, nothing left mapped, the file unchanged', () => {
    // Ends inside engine 0's S2M window.
    const short = sparseFile(unitOffset('trn2', 0) + 0x20000 + 0x1000);
    const size = fs.statSync(short).size;
    const e = expectNxdma(
      () => openDevice({ path: short, profile: 'trn2', engines: [0] }),
      'DEVICE_OPEN',
    );
    expect(e.message).toContain('beyond the end');
    expect(mappingsOf(short)).toEqual([]);
    expect(fs.statSync(short).size).toBe(size);
    expect(allocatedBytes(short)).toBe(0);
  });

  it('a memory window past the end of its file: DEVICE_OPEN, the BAR0 mappings undone', () => {
    const bar0 = sparseFile(BAR0_SENG0);
    const mem = sparseFile(0x8000, 'mem');
    expectNxdma(
      () =>
        openDevice({
          path: bar0,
          profile: 'trn2',
          engines: [0],
          memory: [{ deviceAddress: 2 ** 32, fileOffset: 0, size: 0x10000, path: mem }],
        }),
      'DEVICE_OPEN',
    );
    expect(mappingsOf(bar0)).toEqual([]);
    expect(mappingsOf(mem)).toEqual([]);
    expect(fs.statSync(mem).size).toBe(0x8000);
  });
});

describe('the driver over a file-backed device', () => {
  it('writes exactly its registers and descriptors; with no engine behind the file the wait is TIMEOUT', async () => {
    const bar0 = sparseFile(BAR0_SENG0);
    const mem = sparseFile(0x20_0000, 'mem');
    using dev = openDevice({
      path: bar0,
      profile: 'trn2',
      engines: [0],
      memory: [{ deviceAddress: 2 ** 32, fileOffset: 0, size: 0x20_0000, path: mem }],
    });
    const eng = new UdmaEngine(dev, 0, { clock: null });
    const report = eng.bringUp();
    expect(report.writes.length).toBeGreaterThan(0);
    const base = 2 ** 32;
    const q = eng.initQueue(0, { tx: { base, size: 32 }, rx: { base: base + 0x1000, size: 32 } });
    const src = base + 0x10_0000;
    const data = Buffer.alloc(5000, 0x5a);
    dev.memory.write(src, data);
    q.copy(src, base + 0x18_0000, 5000);
    // one TX and one RX descriptor, nothing else in the ring area
    const rings = fileBytes(mem, 0, 0x2000);
    expect(rings.subarray(16, 0x1000).every((b) => b === 0)).toBe(true);
    expect(rings.subarray(0x1010, 0x2000).every((b) => b === 0)).toBe(true);
    expect(rings.readUInt32LE(0) & 0xffff).toBe(5000);
    expect(rings.readUInt32LE(0x1000) & 0xffff).toBe(5000);
    // the destination is not written by anyone: there is no engine behind a file
    expect(fileBytes(mem, 0x18_0000, 5000).every((b) => b === 0)).toBe(true);
    // A plain file does not act on rst_q: its heads read ring id 0, which no reset queue shows.
    const inconsistent = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 30 }), 'QUEUE_STATE');
    expect(inconsistent.details.actual).toEqual({ offset: 0, ringId: 0 });
    expect(q.stats()).toMatchObject({ submitted: 1, inFlight: 1, errors: 1 });
    // Give the heads the value a reset queue holds (offset 0, ring id 1): nothing consumes, so
    // the wait runs out of time.
    const Q = queueRegs(0);
    for (const [io, h] of [
      [dev.udma(0).m2s, Q.m2s],
      [dev.udma(0).s2m, Q.s2m],
    ] as const) {
      io.write32(h.headOffset.reg.offset, h.headRingId.place(1));
    }
    const e = await expectNxdmaAsync(eng.waitIdle({ timeoutMs: 30 }), 'TIMEOUT');
    expect(e.message).toContain('queue 0 has 1 copies in flight');
    expect(q.stats()).toMatchObject({ submitted: 1, inFlight: 1, errors: 2 });
    // the register writes landed inside engine 0's windows only
    expect(trn2.windows.udma_m2s.size).toBeLessThanOrEqual(0x20000);
    const pages = allocatedBytes(bar0);
    expect(pages).toBeGreaterThan(0);
    expect(pages).toBeLessThanOrEqual(UNIT_SPAN);
  });
});
