/** Rollback of a QoS plan: applyQos savePrevious / onPrevious and restoreRegisters, on the mock. */
import { describe, expect, it } from 'vitest';
import {
  applyQos,
  parseRegisterSnapshot,
  restoreRegisters,
  type QosPlanInput,
  type RegisterSnapshot,
} from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { expectCode } from '../udma/helpers.ts';

const PLAN: QosPlanInput = {
  version: 1,
  engines: [
    {
      engine: 0,
      arbiters: {
        prefetch: 'qos',
        dwrr: { enabled: true, incFactor: 5, weightInc: 1, packetMode: true },
        completion: 'qos',
        qPromotion: false,
      },
      queues: [
        { queue: 0, class: 'P0' },
        { queue: 3, qos: { axiQos: 3, qQos: 9, weight: 200 } },
      ],
    },
  ],
};

function image(dev: MockDevice): number[] {
  return [...dev.udma(0).m2s.words, ...dev.udma(0).s2m.words];
}

/** A mock whose registers do not all hold reset words (as a device in service would). */
function usedDevice(): MockDevice {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  dev.udma(0).m2s.write32(0x1020, 0x03030000); // M2S_Q[0].cfg
  dev.udma(0).m2s.write32(0x4084, 2); // M2S_Q[3].dwrr_cfg_2
  return dev;
}

describe('applyQos savePrevious', () => {
  it('records the word of every register it changes, read before the first write', () => {
    const dev = usedDevice();
    const before = image(dev);
    let seen: RegisterSnapshot | undefined;
    let writesWhenSaved = -1;
    const r = applyQos(dev, PLAN, {
      allowInferred: true,
      savePrevious: true,
      onPrevious: (s) => {
        seen = s;
        writesWhenSaved = dev.udma(0).m2s.counters.writes + dev.udma(0).s2m.counters.writes;
      },
    });
    expect(writesWhenSaved).toBe(2); // only the two set up above
    expect(seen).toBe(r.previous);
    const prev = r.previous!;
    expect(prev.registers.map((x) => x.path)).toEqual(r.writes.map((w) => w.path));
    for (const [i, w] of r.writes.entries()) expect(prev.registers[i]!.value).toBe(w.old);
    expect(prev.registers.find((x) => x.path === 'M2S_Q[0].cfg')!.value).toBe(0x03030000);
    expect(parseRegisterSnapshot(JSON.parse(JSON.stringify(prev)))).toEqual(prev);
    expect(image(dev)).not.toEqual(before);
  });

  it('when saving fails (onPrevious throws), nothing is written', () => {
    const dev = usedDevice();
    const before = image(dev);
    expect(() =>
      applyQos(dev, PLAN, {
        allowInferred: true,
        savePrevious: true,
        onPrevious: () => {
          throw new Error('disk full');
        },
      }),
    ).toThrow('disk full');
    expect(image(dev)).toEqual(before);
  });

  it('a dry run reports the snapshot and writes nothing', () => {
    const dev = usedDevice();
    const before = image(dev);
    const r = applyQos(dev, PLAN, { allowInferred: true, savePrevious: true, dryRun: true });
    expect(r.previous!.registers.length).toBe(r.writes.length);
    expect(image(dev)).toEqual(before);
  });
});

describe('restoreRegisters', () => {
  it('undoes the plan word for word; a dry run first shows the same writes and changes nothing', () => {
    const dev = usedDevice();
    const before = image(dev);
    const r = applyQos(dev, PLAN, { allowInferred: true, savePrevious: true });
    const after = image(dev);
    const dry = restoreRegisters(dev, r.previous, { dryRun: true, allowInferred: true });
    expect(image(dev)).toEqual(after);
    expect(dry.writes).toHaveLength(r.writes.length);
    // reverse order of the apply
    expect(dry.writes.map((w) => w.path)).toEqual(r.writes.map((w) => w.path).reverse());
    const done = restoreRegisters(dev, r.previous, { allowInferred: true, verify: true });
    expect(done.verified).toBe(true);
    expect(image(dev)).toEqual(before);
    expect(restoreRegisters(dev, r.previous, { allowInferred: true }).writes).toEqual([]);
  });

  it('inferred registers need allowInferred; refused before any access', () => {
    const dev = usedDevice();
    const r = applyQos(dev, PLAN, { allowInferred: true, savePrevious: true });
    expect(r.previous!.registers.some((x) => x.path === 'AXI_M2S_MLA.high_priority')).toBe(true);
    const img = image(dev);
    const reads = dev.udma(0).m2s.counters.reads;
    expectCode(() => restoreRegisters(dev, r.previous), 'REGISTER_INFERRED');
    expect(image(dev)).toEqual(img);
    expect(dev.udma(0).m2s.counters.reads).toBe(reads);
  });

  it('a snapshot naming a non-plain register, a wrong offset or a register twice is refused', () => {
    const dev = new MockDevice({ engines: [0] });
    const base = { format: 'nxdma-register-snapshot', version: 1, device: 'x', profile: 'trn2' };
    const e = (path: string, offset: number) => ({
      engine: 0,
      file: 'udma_m2s',
      path,
      offset,
      value: 1,
    });
    expectCode(
      () => restoreRegisters(dev, { ...base, registers: [e('M2S_Q[0].tdrtp_inc', 0x1038)] }),
      'REGISTER_READ_ONLY',
    );
    expectCode(
      () => restoreRegisters(dev, { ...base, registers: [e('M2S_Q[0].cfg', 0x1024)] }),
      'PLAN_INVALID',
    );
    expectCode(
      () =>
        restoreRegisters(dev, {
          ...base,
          registers: [e('M2S_Q[0].cfg', 0x1020), e('M2S_Q[0].cfg', 0x1020)],
        }),
      'PLAN_INVALID',
    );
    expectCode(() => restoreRegisters(dev, { ...base, version: 2, registers: [] }), 'PLAN_INVALID');
    expectCode(() => restoreRegisters(null as never, { ...base, registers: [] }), 'BAD_ARGUMENT');
    expect(dev.udma(0).m2s.counters.writes).toBe(0);
  });
});
