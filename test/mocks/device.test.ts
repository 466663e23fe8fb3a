import { describe, expect, it } from 'vitest';
import { regFile } from '../../csr/schema/files.ts';
import type { Device } from '../../csr/io.ts';
import { DGE_BOOTED, DGE_CORE_KIND } from '../../mocks/dge-core.ts';
import { DEFAULT_DGE_CORE_STRIDE, MockDevice } from '../../mocks/device.ts';
import { QueuePair, bringUp, pattern } from './helpers.ts';
import { errorCode as code } from '../support/errors.ts';

describe('MockDevice', () => {
  it('implements Device for the engines asked for (trn2 by default)', () => {
    const dev: Device = new MockDevice({ engines: [3, 129] });
    expect(dev.profile).toBe('trn2');
    expect(dev.isHardware).toBe(false);
    expect(dev.engines()).toEqual([3, 129]);
    expect(dev.udma(129).engine).toBe(129);
    expect(dev.udma(3).m2s.size).toBe(regFile('udma_m2s').size);
    expect(dev.udma(3).s2m.size).toBe(regFile('udma_s2m').size);
    expect(code(() => dev.udma(4))).toBe('BAD_ARGUMENT');
    expect(code(() => dev.udma(500))).toBe('DEVICE_PROFILE');
    expect(code(() => new MockDevice({ engines: [132] }))).toBe('DEVICE_PROFILE');
    expect(code(() => new MockDevice({ engines: [1, 1] }))).toBe('BAD_ARGUMENT');
    expect(code(() => new MockDevice({ profile: 'trn9' }))).toBe('DEVICE_PROFILE');
    expect(new MockDevice({ engines: 16 }).engines()).toEqual([...Array(16).keys()]);
  });

  it('declares the default host and DRAM regions, or the ones given', () => {
    expect(new MockDevice().memory.regions().map((r) => r.name)).toEqual(['host', 'dram']);
    const dev = new MockDevice({ memory: [{ name: 'hbm', base: 2 ** 36, size: 4096 }] });
    expect(dev.memory.describe()).toBe('hbm [0x1000000000, 0x1000001000)');
  });

  it('DGE cores: dge_host window in DRAM, kind and boot state', () => {
    const dev = new MockDevice({
      dgeCores: [{ core: 0 }, { core: 2, kind: DGE_CORE_KIND.MAVERICK, bootState: 0 }],
    });
    expect(dev.dgeCores()).toEqual([0, 2]);
    const c0 = dev.dgeCore(0);
    const c2 = dev.dgeCore(2);
    expect([c0.kind, c0.bootState]).toEqual([DGE_CORE_KIND.CAYMAN, DGE_BOOTED]);
    expect([c2.kind, c2.bootState]).toEqual([32, 0]);
    expect(c2.dramBase).toBe(dev.memory.region('dram').base + 2 * DEFAULT_DGE_CORE_STRIDE);
    expect(c0.dram.size).toBe(regFile('dge_host').size);
    expect(code(() => dev.dgeCore(1))).toBe('BAD_ARGUMENT');
  });

  it('dge_host layout: priority-class map at +0x18, mailboxes at +0x28, same bytes as device memory', () => {
    const dev = new MockDevice({ dgeCores: 1 });
    const core = dev.dgeCore(0);
    const model = regFile('dge_host');
    const at = (p: string) => model.instances.find((i) => i.path === p)!.offset;
    expect([at('priority_class_map[0]'), at('mailbox[0]'), at('mailbox[3]')]).toEqual([
      0x18, 0x28, 0x34,
    ]);
    // A bulk write of four u32 at dram_base + 0x18 shows through the window...
    const classes = new Uint8Array(new Uint32Array([4096, 2048, 1024, 512]).buffer);
    dev.memory.write(core.dramBase + 0x18, classes);
    expect([0, 1, 2, 3].map((i) => core.dram.read32(at(`priority_class_map[${i}]`)))).toEqual([
      4096, 2048, 1024, 512,
    ]);
    // ...and a window write lands in device memory.
    core.dram.write32(at('mailbox[1]'), 0xffff0300);
    expect(dev.memory.readU32(core.dramBase + 0x2c)).toBe(0xffff0300);
    // Misaligned or outside the window: dropped and counted.
    expect(core.dram.read32(0x19)).toBe(0);
    core.dram.write32(model.size, 1);
    expect(core.dram.counters.badAccesses).toBe(2);
  });

  it('DGE window at boot holds the schema reset image', () => {
    const dev = new MockDevice({ dgeCores: 1 });
    const core = dev.dgeCore(0);
    for (const inst of regFile('dge_host').instances) {
      expect(core.dram.read32(inst.offset)).toBe(inst.register.reset);
    }
  });

  it('rejects a DGE core whose window is not in declared memory', () => {
    expect(code(() => new MockDevice({ dgeCores: [{ core: 0, dramBase: 0x90000000 }] }))).toBe(
      'MEMORY_UNMAPPED',
    );
    expect(
      code(() => new MockDevice({ memory: [{ name: 'host', base: 0, size: 4096 }], dgeCores: 1 })),
    ).toBe('BAD_ARGUMENT');
  });

  it('runUntilIdle runs every engine; 16 engines x 16 queues with 65,536-descriptor rings are feasible', () => {
    const ring = 65536;
    const perQueue = 2 * ring * 16;
    const dev = new MockDevice({
      engines: 16,
      autoRun: 'none',
      memory: [
        { name: 'rings', base: 0, size: 16 * 16 * perQueue },
        { name: 'data', base: 2 ** 34, size: 1 << 20 },
      ],
    });
    const src = 2 ** 34;
    dev.memory.write(src, pattern(4096, 1));
    let area = 0;
    for (const e of dev.engines()) {
      const u = dev.udma(e);
      bringUp(u);
      for (let q = 0; q < 16; q++) {
        const qp = new QueuePair(dev, u, q, ring, area);
        area += perQueue;
        qp.copy(src, src + 65536 + ((e * 16 + q) % 200) * 4096, 64 + e + q);
      }
    }
    expect(dev.runUntilIdle()).toBe(256);
    expect(dev.faults()).toEqual([]);
    expect(dev.udma(15).queueStats(15).m2s.bytes).toBe(64 + 30);
  });

  it('autoRun modes: none waits for runUntilIdle, on-doorbell runs at the doorbell, on-read when observed', () => {
    for (const mode of ['none', 'on-doorbell', 'on-read'] as const) {
      const dev = new MockDevice({ autoRun: mode });
      const u = dev.udma(0);
      bringUp(u);
      const qp = new QueuePair(dev, u, 0, 32, 0x10000);
      qp.copy(0x100000, 0x200000, 64);
      // Count packets without observing through the device (the trace is not an observer).
      const servedBeforeLook = u.packetsServed;
      expect(servedBeforeLook).toBe(mode === 'on-doorbell' ? 1 : 0);
      u.queueStats(0);
      expect(u.packetsServed).toBe(mode === 'none' ? 0 : 1);
      dev.runUntilIdle();
      expect(u.packetsServed).toBe(1);
    }
  });
});
