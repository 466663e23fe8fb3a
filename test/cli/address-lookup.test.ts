/**
 * Lookup by address and near name: `regs read|write|decode` take a byte offset within a register
 * file (0x1084) or, through --profile, a BAR0 address (0x82001084 -> udma0 M2S_Q[0].dwrr_cfg_2,
 * as csr/profiles.ts lays out trn2); a path that names nothing suggests the nearest names; the docs
 * search (csr/docs/client/logic.js) reads BAR0 addresses and suggests names for typos alike.
 */
import { describe, expect, it } from 'vitest';
import { barLocation, editDistance, nearestNames } from '../../cli/address.ts';
import type { RegsValue } from '../../cli/commands/regs.ts';
import { loadClientLogic } from '../../csr/docs/client.ts';
import { searchIndex } from '../../csr/docs/data.ts';
import { getInstance, regFile } from '../../csr/index.ts';
import { getProfile, registerFileOffset } from '../../csr/profiles.ts';
import { shippedModels, trn2Unit } from '../csr/docs/helpers.ts';
import { nxdma } from './helpers.ts';

const DWRR0 = getInstance(regFile('udma_m2s'), 'M2S_Q[0].dwrr_cfg_2');

describe('BAR0 addresses through the trn2 profile', () => {
  it('0x82001084 is udma0 udma_m2s + 0x1084, which holds M2S_Q[0].dwrr_cfg_2', () => {
    expect(DWRR0.offset).toBe(0x1084);
    expect(registerFileOffset('trn2', 0, 'udma_m2s') + 0x1084).toBe(0x82001084);
    expect(barLocation('trn2', 0x82001084)).toEqual({
      profile: 'trn2',
      engine: 0,
      file: 'udma_m2s',
      offset: 0x1084,
    });
    // every engine of every group, both files, agrees with registerFileOffset
    for (const g of getProfile('trn2').engineGroups) {
      for (const e of [g.first, g.first + g.count - 1]) {
        for (const file of ['udma_m2s', 'udma_s2m'] as const) {
          const at = registerFileOffset('trn2', e, file) + 0x1054;
          expect(barLocation('trn2', at)).toEqual({
            profile: 'trn2',
            engine: e,
            file,
            offset: 0x1054,
          });
        }
      }
    }
    // between units, past the register files: nothing
    expect(barLocation('trn2', 0x82000000 + 0x38000)).toBeNull();
    expect(barLocation('trn2', 0x10)).toBeNull();
  });
});

describe('nxdma regs read | write | decode by address', () => {
  it('read 0x1084 reads M2S_Q[0].dwrr_cfg_2 (a file offset)', async () => {
    const r = await nxdma('regs', 'read', '0x1084', '--mock', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ file: 'udma_m2s', path: 'M2S_Q[0].dwrr_cfg_2', offset: 0x1084 });
  });

  it('read 0x94101084 with --profile trn2 reads engine 33 M2S_Q[0].dwrr_cfg_2; a contradicting --engine is refused', async () => {
    const r = await nxdma('regs', 'read', '0x94101084', '--mock', '--profile', 'trn2', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ path: 'M2S_Q[0].dwrr_cfg_2', engine: 33 });
    expect((r.json as { via: string }).via).toBe('trn2 BAR0 0x94101084 = udma33 udma_m2s + 0x1084');
    const same = await nxdma('regs', 'read', '0x94101084', '--mock', '--engine', '33', '--json');
    expect(same.code).toBe(0);
    const bad = await nxdma('regs', 'read', '0x94101084', '--mock', '--engine', '3');
    expect(bad.code).toBe(2);
    expect(bad.errs).toMatch(/--engine 3 contradicts the address/);
  });

  it('write by BAR0 address writes that word (dry run shows it), decode by offset and by BAR0 address', async () => {
    const w = await nxdma('regs', 'write', '0x82001084', 'q_qos=5', '--mock', '--json');
    expect(w.code).toBe(0);
    expect(w.json).toMatchObject({ path: 'M2S_Q[0].dwrr_cfg_2', written: 5, after: 5 });
    const d = await nxdma('regs', 'decode', '0x1084', '0x00000007', '--json');
    expect((d.json as RegsValue).fields[0]).toMatchObject({ name: 'q_qos', value: 7 });
    const b = await nxdma('regs', 'decode', '0x82001084', '7', '--profile', 'trn2', '--json');
    expect(b.json).toMatchObject({ path: 'M2S_Q[0].dwrr_cfg_2', engine: 0 });
    const noProfile = await nxdma('regs', 'decode', '0x82001084', '7');
    expect(noProfile.code).toBe(2);
    expect(noProfile.errs).toMatch(/REGISTER_UNKNOWN.*a BAR0 address needs --profile/);
  });

  it('an unaligned address is MISALIGNED, an address of no register is REGISTER_UNKNOWN, udma_s2m:0x... picks the file', async () => {
    const m = await nxdma('regs', 'read', '0x1086', '--mock');
    expect(m.code).toBe(2);
    expect(m.errs).toMatch(/MISALIGNED.*byte 2 of the word at 0x1084/);
    const s2m = regFile('udma_s2m').instances[0];
    const f = await nxdma('regs', 'decode', `udma_s2m:0x${s2m.offset.toString(16)}`, '0', '--json');
    expect(f.json).toMatchObject({ file: 'udma_s2m', path: s2m.path });
  });

  it('a typo names the nearest registers: dwrr_cfg2 -> M2S_Q[0].dwrr_cfg_2', async () => {
    expect(editDistance('dwrr_cfg2', 'dwrr_cfg_2')).toBe(1);
    expect(nearestNames('dwrr_cfg2', ['udma_m2s']).map((n) => n.name)).toEqual(['dwrr_cfg_2']);
    const r = await nxdma('regs', 'read', 'M2S_Q[0].dwrr_cfg2', '--mock', '--json');
    expect(r.code).toBe(2);
    const err = (r.json as { error: { message: string; details: { suggestions: string[] } } })
      .error;
    expect(err.message).toMatch(/did you mean udma_m2s:M2S_Q\[0\]\.dwrr_cfg_2\?/);
    expect(err.details.suggestions).toEqual(['udma_m2s:M2S_Q[0].dwrr_cfg_2']);
  });
});

describe('the docs search reads BAR0 addresses and suggests names', () => {
  const L = loadClientLogic();
  const index = searchIndex(shippedModels(), trn2Unit());

  it('0x82001084 finds udma0 M2S_Q[0].dwrr_cfg_2 and says how it was read', () => {
    const [first] = L.search(index, '0x82001084');
    expect(first).toMatchObject({ file: 'udma_m2s', path: 'M2S_Q[0].dwrr_cfg_2', offset: 0x1084 });
    expect(first.note).toContain('trn2 BAR0 0x82001084 = udma0 udma_m2s + 0x1084');
    const s2m = L.search(
      index,
      '0x' + (registerFileOffset('trn2', 129, 'udma_s2m') + 0x1054).toString(16),
    );
    expect(s2m[0].file).toBe('udma_s2m');
    expect(s2m[0].note).toContain('udma129 udma_s2m + 0x1054');
  });

  it('dwrr_cfg2 finds nothing by name and suggests dwrr_cfg_2', () => {
    const hits = L.search(index, 'dwrr_cfg2');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].suggestion).toBe('dwrr_cfg_2');
    expect(hits[0].note).toMatch(/^did you mean dwrr_cfg_2\?/);
    expect(hits.some((h) => h.path.endsWith('dwrr_cfg_2'))).toBe(true);
    // a name that exists gets no suggestion
    expect(L.search(index, 'dwrr_cfg_2').every((h) => h.suggestion === undefined)).toBe(true);
  });
});
