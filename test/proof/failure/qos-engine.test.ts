/**
 * A QoS plan naming an engine the device lacks (driver/qos; docs/qos.md): an id outside the
 * profile (DEVICE_PROFILE), an engine of the profile the mock did not create (BAD_ARGUMENT), an
 * engine a mapped device did not open (DEVICE_PROFILE), a negative id (PLAN_INVALID). In every
 * case the plan is refused before the first register access, so the engines it does name
 * correctly are not half-programmed either; diffQos refuses the same way.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../common/errors.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { applyQos, diffQos, planQos, type QosPlanInput } from '../../../driver/qos/index.ts';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import { MockDevice, type RegisterAccessEvent } from '../../../mocks/index.ts';
import { allocatedBytes, removeFiles, sparseFile } from '../../driver/mmio/helpers.ts';
import { expectNxdma } from '../../support/fuzz.ts';

afterEach(removeFiles);

function plan(...engines: number[]): QosPlanInput {
  return {
    version: 1,
    engines: engines.map((engine) => ({
      engine,
      arbiters: { prefetch: 'qos', dwrr: 'on' },
      queues: [
        { queue: 0, class: 'P0' },
        { queue: 1, qos: { axiQos: 2, qQos: 1, weight: 4 } },
      ],
    })),
  };
}

describe('a QoS plan naming an engine the profile lacks', () => {
  const cases: [string, number[], ErrorCode][] = [
    ['outside the trn2 profile (132 engines)', [0, 132], 'DEVICE_PROFILE'],
    ['far outside the profile', [1, 4096], 'DEVICE_PROFILE'],
    ['in the profile, not created by the mock', [0, 5], 'BAD_ARGUMENT'],
  ];
  for (const [what, engines, code] of cases) {
    it(`${what}: ${code} before any register access; applyQos and diffQos alike`, () => {
      const trace: RegisterAccessEvent[] = [];
      const dev = new MockDevice({
        engines: [0, 1],
        strict: true,
        registerTrace: (e) => trace.push(e),
      });
      const images = () =>
        [0, 1].flatMap((e) => [dev.udma(e).m2s.words.slice(), dev.udma(e).s2m.words.slice()]);
      const before = images();
      const e = expectNxdma(() => applyQos(dev, plan(...engines)), code);
      expect(e.message).toContain(String(engines[1]));
      expectNxdma(() => applyQos(dev, plan(...engines), { dryRun: true }), code);
      expectNxdma(() => diffQos(dev, plan(...engines)), code);
      expect(trace).toEqual([]);
      expect(images()).toEqual(before);
      // the same plan without the missing engine applies
      const ok = applyQos(dev, plan(engines[0]), { verify: true });
      expect(ok.verified).toBe(true);
      expect(ok.writes.every((w) => w.engine === engines[0])).toBe(true);
    });
  }

  it('a negative engine id is PLAN_INVALID naming the JSON path', () => {
    const e = expectNxdma(() => planQos(plan(0, -1)), 'PLAN_INVALID');
    expect(String(e.details.where)).toContain('engines[1].engine');
  });

  it('an engine a mapped device did not open: DEVICE_PROFILE, nothing written to the file', () => {
    const bar0 = sparseFile(0x82000000 + 32 * 0x100000);
    using dev = openDevice({ path: bar0, profile: 'trn2', engines: [0] });
    for (const engines of [
      [0, 1],
      [0, 132],
    ]) {
      const e = expectNxdma(() => applyQos(dev, plan(...engines)), 'DEVICE_PROFILE');
      expect(e.message).toContain(String(engines[1]));
    }
    expect(allocatedBytes(bar0)).toBe(0);
    expect(fs.statSync(bar0).size).toBe(0x82000000 + 32 * 0x100000);
    // the engine driver refuses such an engine the same way
    expectNxdma(() => new UdmaEngine(dev, 1), 'DEVICE_PROFILE');
    expectNxdma(() => new UdmaEngine(new MockDevice({ engines: [0] }), 132), 'DEVICE_PROFILE');
  });
});
