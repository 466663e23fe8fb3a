import { describe, expect, it } from 'vitest';
import {
  PROFILES,
  engineGroup,
  getProfile,
  hasEngine,
  profileEngines,
  registerFileOffset,
  sdmaWrapperOffset,
  unitOffset,
} from '../../../driver/mmio/profiles.ts';
import { regFile } from '../../../csr/schema/files.ts';
import { expectCode } from './helpers.ts';

describe('trn2 engine -> BAR0 offset (UDMA-FACTS.md, Device profile: trn2)', () => {
  // Expected values computed from the table: SENG k base + (e % 32) * 0x100000.
  const cases: [number, number][] = [
    [0, 0x82000000],
    [1, 0x82100000],
    [31, 0x82000000 + 31 * 0x100000],
    [32, 0x94000000],
    [63, 0x94000000 + 31 * 0x100000],
    [64, 0xa2000000],
    [95, 0xa2000000 + 31 * 0x100000],
    [96, 0xb4000000],
    [127, 0xb4000000 + 31 * 0x100000],
    [128, 0x06800000],
    [129, 0x06900000],
    [130, 0x46800000],
    [131, 0x46900000],
  ];
  it.each(cases)('engine %i', (engine, offset) => {
    expect(unitOffset('trn2', engine)).toBe(offset);
    expect(unitOffset(PROFILES.trn2!, engine)).toBe(offset);
  });

  it('engines 0-127 fall in four SENG groups of 32, 128-131 are host engines', () => {
    for (let e = 0; e < 128; e++) {
      const g = engineGroup('trn2', e);
      expect(g.name).toBe(`SENG ${Math.floor(e / 32)}`);
      expect(g.kind).toBe('sdma');
    }
    for (const e of [128, 129, 130, 131]) expect(engineGroup('trn2', e).kind).toBe('host');
    expect(profileEngines('trn2')).toEqual([...Array(132).keys()]);
  });

  it('an engine the profile lacks is DEVICE_PROFILE', () => {
    for (const e of [132, -1, 1.5, 1000, Number.NaN]) {
      expect(hasEngine('trn2', e)).toBe(false);
      const err = expectCode(() => unitOffset('trn2', e), 'DEVICE_PROFILE');
      expect(err.message).toContain('trn2');
    }
    expectCode(() => getProfile('trn9'), 'DEVICE_PROFILE');
    expectCode(() => getProfile('toString'), 'DEVICE_PROFILE');
  });

  it('unit layout: M2S at +0, S2M at +0x20000, SDMA wrapper at +0x40000', () => {
    expect(registerFileOffset('trn2', 5, 'udma_m2s')).toBe(0x82500000);
    expect(registerFileOffset('trn2', 5, 'udma_s2m')).toBe(0x82520000);
    expect(sdmaWrapperOffset('trn2', 129)).toBe(0x06940000);
    const p = getProfile('trn2');
    expect(p.unit).toMatchObject({
      unitSize: 0x40000,
      m2s: 0,
      s2m: 0x20000,
      generic: 0x38000,
      genericEx: 0x3c000,
    });
  });

  it('register window sizes come from the register schemas (SizeInBytes)', () => {
    const p = getProfile('trn2');
    expect(p.windows.udma_m2s.size).toBe(regFile('udma_m2s').size);
    expect(p.windows.udma_s2m.size).toBe(regFile('udma_s2m').size);
    expect(p.dgeHostSize).toBe(regFile('dge_host').size);
    // both windows fit before the generic block
    expect(p.windows.udma_s2m.offset + p.windows.udma_s2m.size).toBeLessThanOrEqual(p.unit.generic);
  });

  it('no two engines (unit plus SDMA wrapper) share BAR0 bytes', () => {
    const p = getProfile('trn2');
    const spans = profileEngines(p)
      .map((e) => [unitOffset(p, e), sdmaWrapperOffset(p, e) + 0x24] as const)
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
  });

  it('the profile is frozen', () => {
    const p = getProfile('trn2');
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.engineGroups[0])).toBe(true);
  });
});
