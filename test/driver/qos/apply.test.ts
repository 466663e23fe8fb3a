import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Device, RegisterIO, UdmaUnitIO } from '../../../csr/io.ts';
import {
  RegisterShadow,
  UdmaEngine,
  applyQos,
  diffQos,
  planQos,
  type QosPlanInput,
} from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { expectCode } from '../udma/helpers.ts';
import { PLAN } from './plans.ts';

const EXAMPLE = JSON.parse(
  fs.readFileSync(new URL('../../../examples/qos-plan.json', import.meta.url), 'utf8'),
);

function image(dev: MockDevice, engine = 0): Uint32Array[] {
  return [dev.udma(engine).m2s.words.slice(), dev.udma(engine).s2m.words.slice()];
}

function sameImage(a: Uint32Array[], b: Uint32Array[]): boolean {
  return a.every((w, i) => Buffer.from(w.buffer).equals(Buffer.from(b[i].buffer)));
}

function counters(dev: MockDevice, engine = 0): { reads: number; writes: number } {
  const u = dev.udma(engine);
  return {
    reads: u.m2s.counters.reads + u.s2m.counters.reads,
    writes: u.m2s.counters.writes + u.s2m.counters.writes,
  };
}

describe('applyQos', () => {
  it('writes the planned words: one write per register, a read only for partly planned registers', () => {
    const dev = new MockDevice({ engines: [0], strict: true });
    const before = counters(dev);
    const r = applyQos(dev, PLAN, { allowInferred: true });
    const after = counters(dev);
    const w = (path: string) => dev.udma(0)[path.startsWith('S2M') ? 's2m' : 'm2s'];
    const word = (path: string, offset: number) => w(path).peek(offset);
    // Reset words merged with the planned bits.
    expect(word('M2S_Q[0].cfg', 0x1020)).toBe(0x43000000);
    expect(word('M2S_Q[0].dwrr_cfg_2', 0x1084)).toBe(4);
    expect(word('M2S_Q[3].dwrr_cfg_3', 0x4088)).toBe(200);
    expect(word('AXI_M2S_MLA.high_priority', 0x8)).toBe(1);
    expect(word('M2S_comp.cfg_1c', 0x400)).toBe(0x00010040); // q_promotion cleared, depths kept
    expect(word('M2S_dwrr.cfg_sched', 0x340)).toBe(0x00050111);
    expect(word('M2S_rd.desc_pref_cfg_2', 0x304)).toBe(0x40); // pref_force_rr cleared, max_desc kept
    // S2M_comp.cfg_1c already held 0: read, left alone.
    expect(r.unchanged.map((x) => x.path)).toEqual(['S2M_comp.cfg_1c']);
    expect(r.writes).toHaveLength(13);
    // 7 partly planned registers read once each; 6 complete ones not read.
    expect(r.io).toEqual({ reads: 7, writes: 13, verifyReads: 0, shadowHits: 0 });
    expect(after.reads - before.reads).toBe(7);
    expect(after.writes - before.writes).toBe(13);
    const cfg = r.writes.find((x) => x.path === 'M2S_Q[0].cfg')!;
    expect(cfg).toMatchObject({
      engine: 0,
      file: 'udma_m2s',
      offset: 0x1020,
      old: 0x03000000,
      new: 0x43000000,
    });
    expect(cfg.fields).toEqual([{ name: 'AXI_qos', old: 0, new: 4, origin: 'class' }]);
    expect(r.writes.find((x) => x.path === 'M2S_Q[0].dwrr_cfg_2')!.old).toBeNull();
  });

  it('dry run touches nothing', () => {
    const dev = new MockDevice({ engines: [0], strict: true });
    const img = image(dev);
    const trace: string[] = [];
    const dev2 = new MockDevice({
      engines: [0],
      strict: true,
      registerTrace: (e) => trace.push(`${e.op} ${e.path}`),
    });
    const real = applyQos(dev, PLAN, { allowInferred: true });
    const r = applyQos(dev2, PLAN, { allowInferred: true, dryRun: true, verify: true });
    expect(trace.filter((t) => t.startsWith('write'))).toEqual([]);
    expect(sameImage(image(dev2), img)).toBe(true);
    expect(r.dryRun).toBe(true);
    expect(r.verified).toBe(false);
    expect(r.io.writes).toBe(0);
    // The dry run reports exactly what the real apply did.
    expect(r.writes).toEqual(real.writes);
  });

  it('with a shadow: no device read, and re-applying writes nothing', () => {
    const dev = new MockDevice({ engines: [0], strict: true });
    const shadow = new RegisterShadow();
    const eng = new UdmaEngine(dev, 0, { shadow });
    eng.bringUp();
    applyQos(
      dev,
      {
        version: 1,
        engines: [{ engine: 0, arbiters: { dwrr: 'off', completion: 'qos', qPromotion: true } }],
      },
      { shadow },
    );
    const before = counters(dev);
    const r1 = applyQos(dev, PLAN, { allowInferred: true, shadow });
    // Only the HP mask is unknown to the shadow (bring-up never writes it).
    expect(r1.io.reads).toBe(1);
    // Known: the three queue cfgs, both cfg_1c, desc_pref_cfg_2 (bring-up), cfg_sched (first apply).
    expect(r1.io.shadowHits).toBe(7);
    const r2 = applyQos(dev, PLAN, { allowInferred: true, shadow });
    expect(r2.io).toEqual({ reads: 0, writes: 0, verifyReads: 0, shadowHits: 14 });
    expect(r2.writes).toEqual([]);
    expect(counters(dev).reads - before.reads).toBe(1);
    // The engine driver sees AXI_qos in its shadowed cfg: pausing keeps it.
    eng.initQueue(0, { tx: { base: 0x100000, size: 32 }, rx: { base: 0x108000, size: 32 } });
    eng.pause(0);
    expect(dev.udma(0).m2s.peek(0x1020)).toBe(0x43000000);
  });

  it('verify reads back; a register that does not keep its value is VERIFY_FAILED', () => {
    const dev = new MockDevice({ engines: [0] });
    const ok = applyQos(dev, PLAN, { allowInferred: true, verify: true });
    expect(ok.verified).toBe(true);
    expect(ok.io.verifyReads).toBe(14);
    // A device whose M2S window drops writes to dwrr_cfg_3 of queue 3.
    const d2 = new MockDevice({ engines: [0] });
    const u = d2.udma(0);
    const m2s: RegisterIO = {
      size: u.m2s.size,
      read32: (o) => u.m2s.read32(o),
      write32: (o, v) => (o === 0x4088 ? undefined : u.m2s.write32(o, v)),
    };
    const unit: UdmaUnitIO = { engine: 0, m2s, s2m: u.s2m };
    const lossy: Device = {
      ...d2,
      name: 'lossy',
      profile: 'trn2',
      isHardware: false,
      memory: d2.memory,
      udma: () => unit,
      engines: () => [0],
      dgeCore: (c) => d2.dgeCore(c),
      dgeCores: () => [],
    };
    const e = expectCode(
      () => applyQos(lossy, PLAN, { allowInferred: true, verify: true }),
      'VERIFY_FAILED',
    );
    expect(e.message).toContain('M2S_Q[3].dwrr_cfg_3');
    expect(e.message).toContain('0x000000c8');
  });

  it('a refused plan touches nothing: inferred value, strict warning, unknown engine', () => {
    const trace: string[] = [];
    const dev = new MockDevice({
      engines: [0],
      registerTrace: (e) => trace.push(`${e.op} ${e.path}`),
    });
    const img = image(dev);
    expectCode(
      () =>
        applyQos(dev, {
          version: 1,
          engines: [
            {
              engine: 0,
              queues: [
                { queue: 1, class: 'P2' },
                { queue: 4, qos: { highPriority: true } },
              ],
            },
          ],
        }),
      'REGISTER_INFERRED',
    );
    expectCode(
      () =>
        applyQos(
          dev,
          { version: 1, engines: [{ engine: 0, queues: [{ queue: 1, class: 'P2' }] }] },
          { strict: true },
        ),
      'PLAN_INVALID',
    );
    expect(() =>
      applyQos(dev, {
        version: 1,
        engines: [
          { engine: 0, queues: [{ queue: 1, class: 'P2' }] },
          { engine: 9, queues: [{ queue: 1, class: 'P2' }] },
        ],
      }),
    ).toThrow(/engine 9/);
    expectCode(
      () => applyQos(dev, { version: 1, engines: [{ engine: 0 }] }, { engines: [3] }),
      'BAD_ARGUMENT',
    );
    expectCode(() => applyQos(dev, { version: 7 } as never), 'PLAN_INVALID');
    expect(trace).toEqual([]);
    expect(sameImage(image(dev), img)).toBe(true);
  });

  it('class HP bits without allowInferred: the rest is applied, the HP mask untouched', () => {
    const dev = new MockDevice({ engines: [0] });
    const r = applyQos(dev, PLAN);
    expect(r.skipped.map((x) => x.path)).toEqual(['AXI_M2S_MLA.high_priority']);
    expect(r.warnings.map((x) => x.code)).toEqual(['INFERRED_SKIPPED']);
    expect(r.writes.map((x) => x.path)).not.toContain('AXI_M2S_MLA.high_priority');
    expect(dev.udma(0).m2s.counters.badAccesses).toBe(0);
    expect(dev.udma(0).m2s.peek(0x1084)).toBe(4);
  });

  it('--engine: only the chosen engines of a plan', () => {
    const dev = new MockDevice({ engines: [0, 1, 2] });
    const r = applyQos(dev, EXAMPLE, { engines: [2] });
    expect([...new Set(r.writes.map((w) => w.engine))]).toEqual([2]);
    expect(counters(dev, 0)).toEqual({ reads: 0, writes: 0 });
  });
});

describe('diffQos', () => {
  it('reports current vs planned field by field, reads each register once, writes nothing', () => {
    const trace: string[] = [];
    const dev = new MockDevice({
      engines: [0],
      registerTrace: (e) => trace.push(`${e.op} ${e.path}`),
    });
    const d = diffQos(dev, PLAN);
    expect(trace.every((t) => t.startsWith('read'))).toBe(true);
    const planned = planQos(PLAN, { allowInferred: true }).writes;
    // HP's address is inferred: not read without allowInferred.
    expect(d.io.reads).toBe(planned.length - 1);
    expect(d.notRead.map((x) => x.path)).toEqual(['AXI_M2S_MLA.high_priority']);
    const f = (path: string, field: string) =>
      d.fields.find((x) => x.path === path && x.field === field)!;
    expect(f('M2S_Q[0].dwrr_cfg_2', 'q_qos')).toMatchObject({
      current: 0,
      planned: 4,
      differs: true,
      origin: 'class',
      queue: 0,
    });
    expect(f('M2S_rd.desc_pref_cfg_2', 'pref_force_rr')).toMatchObject({
      current: 1,
      planned: 0,
      differs: true,
    });
    expect(f('S2M_comp.cfg_1c', 'force_rr')).toMatchObject({
      current: 0,
      planned: 0,
      differs: false,
    });
    expect(f('AXI_M2S_MLA.high_priority', 'enable[0]')).toMatchObject({
      current: null,
      planned: 1,
      differs: true,
      inferred: true,
    });
    expect(d.writes.find((w) => w.path === 'M2S_Q[0].cfg')).toMatchObject({
      old: 0x03000000,
      new: 0x43000000,
    });

    applyQos(dev, PLAN, { allowInferred: true });
    const after = diffQos(dev, PLAN, { allowInferred: true });
    expect(after.differences).toBe(0);
    expect(after.writes).toEqual([]);
    expect(after.notRead).toEqual([]);
  });
});
