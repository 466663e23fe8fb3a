/**
 * Hardware safety on the mapped back end over a sparse trn2-sized BAR0 file: one register shadow
 * per device, DGE host tables through the core's own window, boolean-only safety options and
 * typed errors for bad arguments.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Device } from '../../../csr/io.ts';
import { hex } from '../../../common/errors.ts';
import { bindRegFile, regFileMaps, registerAt } from '../../../csr/index.ts';
import {
  NRTUCODE_RESULT,
  RegisterShadow,
  UdmaEngine,
  applyQos,
  diffQos,
  openDevice,
  openRegion,
  planQos,
  readMailboxes,
  readPriorityClassMap,
  restoreRegisters,
  setPriorityClassMap,
  writeMailboxes,
  type QosPlanInput,
  type PlannedWrite,
} from '../../../driver/index.ts';
import { unitOffset } from '../../../driver/mmio/profiles.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { prepareFlow, runPrepared } from '../../../flow/index.ts';
import { expectReject } from '../../support/errors.ts';
import { allocatedBytes, expectCode, fileBytes, removeFiles, sparseFile } from './helpers.ts';
import { PLAN } from '../qos/plans.ts';

afterEach(removeFiles);

const BAR0_SIZE = 0xb4000000 + 32 * 0x100000;
/** DMA-visible memory for rings: a BAR0 range no register window covers. */
const MEM = { deviceAddress: 0x1000_0000, fileOffset: 0x1000_0000, size: 0x10_0000 };

const rings = (q: number, base: number) => ({
  tx: { base: base + q * 0x2000, size: 32 },
  rx: { base: base + q * 0x2000 + 0x1000, size: 32 },
});

/** Every bit the plan set (mask / value of each planned write) still holds in `word(write)`. */
function expectPlanHolds(word: (w: PlannedWrite) => number): void {
  const lost: string[] = [];
  for (const w of planQos(PLAN, { allowInferred: true }).writes) {
    const cur = word(w);
    if ((cur & w.mask) >>> 0 !== w.value)
      lost.push(`${w.path}: ${hex(cur & w.mask, 8)} != ${hex(w.value, 8)}`);
  }
  expect(lost).toEqual([]);
}

/** Bring-up, the plan (without handing any shadow around), then init / pause / resume / reset. */
function exercise(dev: Device, base: number): void {
  const eng = new UdmaEngine(dev, 0);
  eng.bringUp();
  const r = applyQos(dev, PLAN, { allowInferred: true });
  expect(r.writes.some((w) => w.path === 'M2S_Q[0].cfg')).toBe(true);
  for (const q of [0, 2, 3]) {
    eng.initQueue(q, rings(q, base));
    eng.pause(q);
    eng.resume(q);
    eng.reset(q);
  }
  eng.pause(3);
  // A second engine driver of the same device, created later, shares the same shadow.
  const again = new UdmaEngine(dev, 0);
  again.initQueue(2, rings(2, base));
  again.initQueue(3, rings(3, base));
  again.pause(3);
  again.resume(3);
}

describe('one register shadow per device', () => {
  it('mapped: after a plan, queue init / pause / resume / reset keep every planned QoS field (AXI_qos of M2S_Q[q].cfg included)', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [0], memory: [MEM] });
    exercise(dev, MEM.deviceAddress);
    const unit = unitOffset('trn2', 0);
    const word = (w: { file: string; offset: number }) =>
      fileBytes(p, unit + (w.file === 'udma_m2s' ? 0 : 0x20000) + w.offset, 4).readUInt32LE(0);
    // P0 -> AXI_qos 4 on queue 0, explicit AXI_qos 3 on queue 3 (bits 31:28 of M2S_Q[q].cfg)
    expect(word({ file: 'udma_m2s', offset: 0x1020 }) >>> 28).toBe(4);
    expect(word({ file: 'udma_m2s', offset: 0x4020 }) >>> 28).toBe(3);
    expectPlanHolds(word);
  });

  it('mock: the same sequence keeps every planned field', () => {
    const dev = new MockDevice({ engines: [0] });
    exercise(dev, 0x100000);
    const u = dev.udma(0);
    expectPlanHolds((w) => (w.file === 'udma_m2s' ? u.m2s : u.s2m).peek(w.offset));
  });

  it('separately created RegisterShadows of one device share the words they know', () => {
    const dev = new MockDevice({ engines: [0] });
    const a = new RegisterShadow();
    const b = new RegisterShadow();
    const eng = new UdmaEngine(dev, 0, { shadow: a });
    eng.bringUp();
    applyQos(dev, PLAN, { allowInferred: true, shadow: b });
    eng.initQueue(0, { tx: { base: 0x100000, size: 32 }, rx: { base: 0x108000, size: 32 } });
    eng.pause(0);
    expect(dev.udma(0).m2s.peek(0x1020) >>> 28).toBe(4);
  });
});

describe('DGE host tables through the core window', () => {
  it('a core given by barOffset (the docs/device.md form): setPriorityClassMap and writeMailboxes land at barOffset + 0x18 / + 0x28', () => {
    const p = sparseFile(BAR0_SIZE);
    const barOffset = 0x2000_0000;
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [],
      dgeCores: [{ core: 0, kind: 9, bootState: 1, barOffset }],
    });
    expect(setPriorityClassMap(dev, 0, [0x1000, 0x2000, 0xdeadbeef])).toBe(NRTUCODE_RESULT.OK);
    expect(fileBytes(p, barOffset + 0x18, 12).toString('hex')).toBe('0010000000200000efbeadde');
    expect(readPriorityClassMap(dev, 0, 3)).toEqual([0x1000, 0x2000, 0xdeadbeef]);
    const mb = [
      { reserved: 0, priority: 3, bitmask: 0x00ff },
      { reserved: 1, priority: 7, bitmask: 0xff00 },
    ];
    expect(writeMailboxes(dev, 0, mb)).toBe(NRTUCODE_RESULT.OK);
    expect(fileBytes(p, barOffset + 0x28, 8).toString('hex')).toBe('0003ff00010700ff');
    expect(readMailboxes(dev, 0, 2)).toEqual(mb);
  });

  it('with barOffset and a device address: the table is still written at barOffset', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [],
      dgeCores: [
        { core: 2, kind: 9, bootState: 1, barOffset: 0x2000_0000, deviceAddress: 0x5_0000_0000 },
      ],
    });
    expect(dev.dgeCore(2).dramBase).toBe(0x5_0000_0000);
    expect(setPriorityClassMap(dev, 2, [7])).toBe(0);
    expect(fileBytes(p, 0x2000_0000 + 0x18, 4).readUInt32LE(0)).toBe(7);
  });

  it('a core carved out of a memory window: the table lands in that window', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [],
      memory: [MEM],
      dgeCores: [{ core: 0, kind: 9, bootState: 1, deviceAddress: MEM.deviceAddress + 0x8000 }],
    });
    expect(setPriorityClassMap(dev, 0, [5, 6])).toBe(0);
    expect(fileBytes(p, MEM.fileOffset + 0x8018, 8).toString('hex')).toBe('0500000006000000');
  });

  it('mock: the tables go through the core window (one bulk write each), not around it', () => {
    const dev = new MockDevice({ engines: [0], dgeCores: 1 });
    const w = dev.dgeCore(0).dram;
    expect(setPriorityClassMap(dev, 0, [1, 2])).toBe(0);
    expect(writeMailboxes(dev, 0, [{ reserved: 0, priority: 1, bitmask: 3 }])).toBe(0);
    expect(w.counters.writes).toBe(2);
    expect(w.read32(0x18)).toBe(1);
    expect(w.read32(0x1c)).toBe(2);
    expect(w.read32(0x28)).toBe(0x00030100);
  });

  it('read-only device: the table write is refused, nothing written', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [],
      readOnly: true,
      dgeCores: [{ core: 0, kind: 9, bootState: 1, barOffset: 0x2000_0000 }],
    });
    expectCode(() => setPriorityClassMap(dev, 0, [1]), 'DEVICE_READ_ONLY');
    expect(fileBytes(p, 0x2000_0018, 4).readUInt32LE(0)).toBe(0);
  });
});

describe('safety options take booleans only', () => {
  it("openDevice readOnly: 'true' is refused (it used to map read-write)", () => {
    const p = sparseFile(BAR0_SIZE);
    const bad = ['true', 'false', 1, 0, null, {}];
    for (const readOnly of bad) {
      expectCode(
        () => openDevice({ path: p, profile: 'trn2', engines: [0], readOnly: readOnly as boolean }),
        'BAD_ARGUMENT',
      );
    }
    expectCode(
      () => openRegion(p, { offset: 0, size: 4096, readOnly: 'yes' as never }),
      'BAD_ARGUMENT',
    );
  });

  it("applyQos dryRun: 'yes' is refused and writes nothing; verify / allowInferred / savePrevious likewise", () => {
    const dev = new MockDevice({ engines: [0] });
    const before = [...dev.udma(0).m2s.words];
    for (const o of [
      { dryRun: 'yes' },
      { dryRun: 1 },
      { verify: 'true' },
      { allowInferred: 'false' },
      { savePrevious: 'yes' },
      { strict: 'no' },
    ]) {
      const e = expectCode(() => applyQos(dev, PLAN, o as never), 'BAD_ARGUMENT');
      expect(e.details.where).toBe(`applyQos options.${Object.keys(o)[0]}`);
    }
    expect([...dev.udma(0).m2s.words]).toEqual(before);
    expect(dev.udma(0).m2s.counters.writes).toBe(0);
  });

  it("register accessors: allowInferred: 'false' on hardware is refused, not an opt-in", () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [0] });
    const io = dev.udma(0).m2s;
    const bad = { hardware: true, allowInferred: 'false' as never };
    expectCode(() => bindRegFile(regFileMaps.udma_m2s, io, bad), 'BAD_ARGUMENT');
    expectCode(
      () => registerAt(regFileMaps.udma_m2s, io, 'AXI_M2S.desc_rd_cfg_3', bad),
      'BAD_ARGUMENT',
    );
    expectCode(
      () => bindRegFile(regFileMaps.udma_m2s, io, { hardware: 'yes' as never }),
      'BAD_ARGUMENT',
    );
    // with real booleans the inferred guard stands
    const h = registerAt(regFileMaps.udma_m2s, io, 'AXI_M2S.desc_rd_cfg_3', { hardware: true });
    expectCode(() => h.write({ max_desc_burst: 4 }), 'REGISTER_INFERRED');
  });

  it("planQos / diffQos / UdmaEngine / restoreRegisters: allowInferred: 'false' does not opt in", () => {
    const dev = new MockDevice({ engines: [0] });
    expectCode(() => planQos(PLAN, { allowInferred: 'false' as never }), 'BAD_ARGUMENT');
    expectCode(() => diffQos(dev, PLAN, { allowInferred: 'false' as never }), 'BAD_ARGUMENT');
    expectCode(() => new UdmaEngine(dev, 0, { allowInferred: 'false' as never }), 'BAD_ARGUMENT');
    expectCode(() => new UdmaEngine(dev, 0, { checkBuffers: 'no' as never }), 'BAD_ARGUMENT');
    expectCode(() => new UdmaEngine(dev, 0, null as never), 'BAD_ARGUMENT');
    const snap = {
      format: 'nxdma-register-snapshot',
      version: 1,
      device: 'x',
      profile: 'trn2',
      registers: [],
    };
    expectCode(() => restoreRegisters(dev, snap, { dryRun: 'no' as never }), 'BAD_ARGUMENT');
  });
});

describe('typed errors for bad arguments', () => {
  it('write32(0, 1n) on a mapped window is OUT_OF_RANGE (not a TypeError), nothing written', () => {
    const p = sparseFile(BAR0_SIZE);
    using dev = openDevice({ path: p, profile: 'trn2', engines: [0] });
    const e = expectCode(() => dev.udma(0).m2s.write32(0, 1n as never), 'OUT_OF_RANGE');
    expect(() => JSON.stringify(e)).not.toThrow();
    expectCode(() => dev.udma(0).m2s.write32(0, '1' as never), 'OUT_OF_RANGE');
    expect(fileBytes(p, unitOffset('trn2', 0), 4).readUInt32LE(0)).toBe(0);
  });

  it('openDevice with memory: [null], dgeCores: [undefined], profile: null', () => {
    const p = sparseFile(BAR0_SIZE);
    const base = { path: p, profile: 'trn2' as const, engines: [0] };
    expect(
      expectCode(() => openDevice({ ...base, memory: [null as never] }), 'BAD_ARGUMENT').details
        .where,
    ).toBe('memory[0]');
    expect(
      expectCode(() => openDevice({ ...base, dgeCores: [undefined as never] }), 'BAD_ARGUMENT')
        .details.where,
    ).toBe('dgeCores[0]');
    expectCode(() => openDevice({ ...base, profile: null as never }), 'DEVICE_PROFILE');
    expectCode(() => openDevice({ ...base, profile: 42 as never }), 'DEVICE_PROFILE');
    expectCode(() => openDevice({ ...base, path: undefined as never }), 'DEVICE_OPEN');
  });

  it('applyQos(null, ...), diffQos(undefined, ...) and planQos(plan, null)', () => {
    expect(expectCode(() => applyQos(null as never, PLAN), 'BAD_ARGUMENT').details.where).toBe(
      'applyQos.device',
    );
    expectCode(() => diffQos(undefined as never, PLAN), 'BAD_ARGUMENT');
    expectCode(() => planQos(PLAN, null as never), 'BAD_ARGUMENT');
    expectCode(() => planQos(PLAN, { engines: 0 as never }), 'BAD_ARGUMENT');
    expectCode(() => applyQos(new MockDevice(), PLAN, null as never), 'BAD_ARGUMENT');
  });
});

describe('the flow on a mapped device', () => {
  it('a program region over a DGE core host table is refused before anything is written', async () => {
    const p = sparseFile(BAR0_SIZE);
    const program = JSON.parse(
      readFileSync(new URL('../../../examples/programs/qos-mix.json', import.meta.url), 'utf8'),
    );
    const prepared = prepareFlow(program);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [...new Set(prepared.active.map((a) => a.engine))],
      memory: [
        { deviceAddress: 0x4000000, fileOffset: 0x4000000, size: 0x40000 },
        { deviceAddress: 0x1_0000_0000, fileOffset: 0x1000_0000, size: 0x20_0000 },
      ],
      dgeCores: [{ core: 0, kind: 9, bootState: 1, deviceAddress: 0x1_0000_1000 }],
    });
    const e = await expectReject(runPrepared(prepared, dev), 'MEMORY_OVERLAP');
    expect(e.message).toMatch(/region "host"/);
    expect(e.message).toMatch(/DGE core 0/);
    expect(allocatedBytes(p)).toBe(0);
  });
});
