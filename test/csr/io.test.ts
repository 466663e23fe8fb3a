import { describe, expect, it } from 'vitest';
import { isSimulated, serviceTraceOf, type Device } from '../../csr/io.ts';
import { MockDevice } from '../../mocks/device.ts';

/** A Device over a mock that hides every Simulation member (as a mapped device has none). */
function plain(mock: MockDevice, isHardware: boolean): Device {
  return {
    name: 'plain',
    profile: mock.profile,
    isHardware,
    memory: mock.memory,
    udma: (e) => mock.udma(e),
    engines: () => mock.engines(),
    dgeCore: (c) => mock.dgeCore(c),
    dgeCores: () => mock.dgeCores(),
  };
}

describe('the Simulation interface beside Device', () => {
  it('a MockDevice is a simulation: step, runUntilIdle, faults and its service trace', () => {
    const mock = new MockDevice({ engines: [0] });
    expect(isSimulated(mock)).toBe(true);
    expect(serviceTraceOf(mock)).toBe(mock.serviceTrace);
  });

  it('a device without the simulation members is not one, and keeps no service trace', () => {
    const dev = plain(new MockDevice({ engines: [0] }), false);
    expect(isSimulated(dev)).toBe(false);
    expect(serviceTraceOf(dev)).toBeNull();
  });

  it('a device with only some of the members is not one', () => {
    const mock = new MockDevice({ engines: [0] });
    const stepOnly = { ...plain(mock, false), step: () => mock.step() };
    expect(isSimulated(stepOnly)).toBe(false);
    const noTrace = {
      ...stepOnly,
      runUntilIdle: () => mock.runUntilIdle(),
      faults: () => mock.faults(),
    };
    expect(isSimulated(noTrace)).toBe(false);
    const all = { ...noTrace, serviceTrace: mock.serviceTrace };
    expect(isSimulated(all)).toBe(true);
  });

  it('a hardware device is never a simulation, whatever members it has', () => {
    const mock = new MockDevice({ engines: [0] });
    const hw = {
      ...plain(mock, true),
      step: () => mock.step(),
      runUntilIdle: () => mock.runUntilIdle(),
      faults: () => mock.faults(),
      serviceTrace: mock.serviceTrace,
    };
    expect(isSimulated(hw)).toBe(false);
    expect(serviceTraceOf(hw)).toBeNull();
  });
});
