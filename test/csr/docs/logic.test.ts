/**
 * The page logic (csr/docs/client/logic.js), evaluated from the very text the pages embed: number
 * parsing, field decode/encode (pinned to the runtime's encodeFields/decodeFields, the one home of
 * the rule) and search by path, text and address.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hex } from '../../../common/errors.ts';
import { CLIENT_LOGIC_JS, loadClientLogic, pageScript } from '../../../csr/docs/client.ts';
import { clientRegister, pageRegisters, searchIndex } from '../../../csr/docs/data.ts';
import { decodeFields, encodeFields } from '../../../csr/runtime/index.ts';
import { toRegisterMap } from '../../../csr/schema/map.ts';
import { findInstance } from '../../../csr/schema/model.ts';
import { shippedModels, trn2Unit } from './helpers.ts';

const L = loadClientLogic();
const models = shippedModels();
const index = searchIndex(models, trn2Unit());
const [m2s, s2m] = models;

describe('page logic: numbers', () => {
  it('is the text every page embeds', () => {
    expect(pageScript()).toContain(CLIENT_LOGIC_JS.trim());
  });

  it('parses hex, binary, octal and decimal, with underscores; bare digits in the given radix', () => {
    expect(L.parseNumber('0x1084')).toEqual({ value: 0x1084 });
    expect(L.parseNumber(' 0X0000_1084 ')).toEqual({ value: 0x1084 });
    expect(L.parseNumber('0b1010_0101')).toEqual({ value: 0xa5 });
    expect(L.parseNumber('0o17')).toEqual({ value: 15 });
    expect(L.parseNumber('4228')).toEqual({ value: 4228 });
    expect(L.parseNumber('84', 16)).toEqual({ value: 0x84 });
    expect(L.parseNumber('101', 2)).toEqual({ value: 5 });
    for (const bad of ['', '0x', '0xg1', '12a', '-1', '1.5', '0b102', 'ff']) {
      expect(L.parseNumber(bad).error, bad).toBeTruthy();
    }
    expect(L.parseNumber('ff', 16)).toEqual({ value: 255 });
  });

  it('a register word is 0..0xffffffff; a wider value is refused, not truncated', () => {
    expect(L.parseWord('0xffffffff')).toEqual({ value: 0xffffffff });
    expect(L.parseWord('0x100000000').error).toMatch(/32 bits/);
  });

  it('formatNumber output parses back in every radix', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 1, max: 32 }),
        (v, w) => {
          for (const r of [2, 10, 16] as const) {
            const text = L.formatNumber(v, r, w);
            expect(L.parseNumber(text, r)).toEqual({ value: v });
          }
        },
      ),
    );
    expect(L.formatNumber(0x84, 16, 32)).toBe('0x00000084');
    expect(L.formatNumber(5, 2, 8)).toBe('0b00000101');
    expect(L.formatNumber(5, 2, 12)).toBe('0b0000_0000_0101');
  });
});

describe('page logic: field decode/encode agrees with the runtime codec', () => {
  const regs = models.flatMap(pageRegisters).filter((r) => r.fields.length > 0);

  it('decode gives decodeFields for every register and word', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...regs),
        fc.integer({ min: 0, max: 0xffffffff }),
        (reg, word) => {
          const mine = Object.fromEntries(
            L.decode(clientRegister(reg), word).map((d) => [d.name, d.value]),
          );
          expect(mine).toEqual(decodeFields(toRegisterMap(reg), word));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('encode (and withField) give encodeFields for writable fields, over any base word', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...regs.filter((r) => r.fields.some((f) => f.writable))),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (reg, base, raw) => {
          const f = reg.fields.filter((x) => x.writable)[
            raw % reg.fields.filter((x) => x.writable).length
          ];
          const v = raw % (f.max + 1);
          const expected = encodeFields(toRegisterMap(reg), { [f.name]: v }, base);
          expect(L.encode(clientRegister(reg), { [f.name]: v }, base)).toEqual({ value: expected });
          expect(L.withField(base, f, v)).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('encode starts from the reset word and refuses values wider than the field', () => {
    const cfg = clientRegister(m2s.blocks.find((b) => b.name === 'M2S_dwrr')!.registers[0]);
    expect(L.encode(cfg, {})).toEqual({ value: cfg.reset });
    expect(L.encode(cfg, { weight_inc: 4 }).error).toMatch(/weight_inc/);
    expect(L.encode(cfg, { nope: 1 }).error).toMatch(/no field nope/);
  });

  it('parseField takes numbers or enumerated names and refuses what does not fit', () => {
    const reg = clientRegister(m2s.blocks.find((b) => b.name === 'M2S_dwrr')!.registers[0]);
    const en = reg.fields.find((f) => f.name === 'en_dwrr')!;
    const inc = reg.fields.find((f) => f.name === 'inc_factor')!;
    expect(L.parseField(en, 'DWRR')).toEqual({ value: 1 });
    expect(L.parseField(en, 'round_robin')).toEqual({ value: 0 });
    expect(L.parseField(en, '2').error).toMatch(/does not fit 1 bit \(0\.\.1\)/);
    expect(L.parseField(inc, '0xf')).toEqual({ value: 15 });
    expect(L.parseField(inc, 'f', 16)).toEqual({ value: 15 });
    expect(L.parseField(inc, '16').error).toMatch(/0\.\.15/);
    expect(L.enumText(en, 1)).toBe('dwrr');
    expect(L.enumText(inc, 3)).toBe('');
  });
});

describe('page logic: search', () => {
  it('0x1084 finds M2S_Q[0].dwrr_cfg_2 first', () => {
    const [first] = L.search(index, '0x1084');
    expect(first).toMatchObject({
      kind: 'register',
      file: 'udma_m2s',
      path: 'M2S_Q[0].dwrr_cfg_2',
      offset: 0x1084,
      instance: 0,
    });
    expect(L.resultHref(first)).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
  });

  it('every word of every file is found by its address, in the right instance', () => {
    for (const m of models) {
      for (const inst of m.instances) {
        const hits = L.search(index, `${m.name} ${hex(inst.offset)}`);
        expect(hits[0], `${m.name} ${hex(inst.offset)}`).toMatchObject({
          file: m.name,
          path: inst.path,
          offset: inst.offset,
        });
        // Any byte of the word resolves to the word.
        const byte = L.search(index, `${m.name} ${hex(inst.offset + 3)}`)[0];
        expect(byte.path).toBe(inst.path);
        expect(byte.note).toContain('byte 3');
      }
    }
  });

  it('an address inside a repeated block but on no register names the instance and the offset', () => {
    const q = m2s.blocks.find((b) => b.name === 'M2S_Q')!;
    const used = new Set(q.registers.map((r) => r.offset));
    let rel = 0;
    while (used.has(rel)) rel += 4;
    const addr = q.base + 5 * q.stride + rel;
    const hit = L.search(index, `m2s ${hex(addr)}`)[0];
    expect(hit).toMatchObject({ kind: 'block', path: `M2S_Q[5] + ${hex(rel)}`, instance: 5 });
  });

  it('an address inside the UDMA unit resolves to the register file that holds it', () => {
    const unit = trn2Unit();
    const w = unit.windows.find((x) => x.file === 'udma_s2m')!;
    const inst = findInstance(s2m, 'S2M_Q[3].comp_cfg')!;
    const hits = L.search(index, hex(w.offset + inst.offset));
    expect(hits[0]).toMatchObject({
      file: 'udma_s2m',
      path: 'S2M_Q[3].comp_cfg',
      offset: inst.offset,
    });
    expect(hits[0].note).toContain('trn2 unit');
  });

  it('decimal addresses work as well', () => {
    expect(L.search(index, '4228')[0].path).toBe('M2S_Q[0].dwrr_cfg_2');
  });

  it('every word is found by its path, with its offset', () => {
    for (const m of models) {
      for (const inst of m.instances) {
        const hit = L.search(index, `${m.name} ${inst.path}`)[0];
        expect(hit, inst.path).toMatchObject({
          path: inst.path,
          offset: inst.offset,
          file: m.name,
        });
        expect(L.resultHref(hit)).toBe(`${m.name}.html#${inst.path}`);
      }
    }
  });

  it('a path without an index names every instance; an index out of range finds nothing', () => {
    const [hit] = L.search(index, 'dwrr_cfg_2');
    expect(hit).toMatchObject({ path: 'M2S_Q[0..15].dwrr_cfg_2', instance: null, offset: 0x1084 });
    expect(hit.note).toContain('16 instances');
    expect(L.resultHref(hit)).toBe('udma_m2s.html#M2S_Q.dwrr_cfg_2');
    expect(L.search(index, 'M2S_Q[16].dwrr_cfg_2')).toEqual([]);
    expect(L.search(index, 'priority_class_map[4]')).toEqual([]);
  });

  it('prefixes, fields and blocks match while typing', () => {
    const paths = L.search(index, 'M2S_Q[3].dwrr').map((r) => r.path);
    expect(paths.slice(0, 3)).toEqual([
      'M2S_Q[3].dwrr_cfg_1',
      'M2S_Q[3].dwrr_cfg_2',
      'M2S_Q[3].dwrr_cfg_3',
    ]);
    expect(L.search(index, 'dwrr_cfg_2.q_qos')[0]).toMatchObject({
      kind: 'field',
      path: 'M2S_Q[0..15].dwrr_cfg_2.q_qos',
      hash: 'M2S_Q.dwrr_cfg_2.q_qos',
    });
    expect(L.search(index, 'M2S_Q[3]')[0]).toMatchObject({ kind: 'block', path: 'M2S_Q[3]' });
    expect(L.search(index, 'M2S_Q.')[0]).toMatchObject({ kind: 'block' });
  });

  it('q_qos finds the M2S field and the S2M known gap (without an offset)', () => {
    const hits = L.search(index, 'q_qos');
    expect(hits.find((h) => h.kind === 'field')!.path).toBe('M2S_Q[0..15].dwrr_cfg_2.q_qos');
    const gap = hits.find((h) => h.kind === 'gap')!;
    expect(gap).toMatchObject({ file: 'udma_s2m', path: 'S2M_Q.q_qos', offset: null });
    expect(L.resultHref(gap)).toBe('gaps.html#gap-udma_s2m-S2M_Q.q_qos');
  });

  it('words search the descriptions', () => {
    const paths = L.search(index, 'initial deficit').map((h) => h.path);
    expect(paths).toContain('M2S_dwrr.ctrl_deficit_cnt');
    expect(L.search(index, 'doorbell').map((h) => h.path)).toContain('M2S_Q[0..15].tdrtp_inc');
    expect(L.search(index, 'no such words at all')).toEqual([]);
    expect(L.search(index, '   ')).toEqual([]);
  });

  it('a register-file name limits the search to that file', () => {
    const hits = L.search(index, 's2m 0x1054');
    expect(hits.every((h) => h.file === 'udma_s2m')).toBe(true);
    expect(hits[0].path).toBe('S2M_Q[0].comp_cfg');
    expect(L.search(index, 'udma_m2s:cfg').every((h) => h.file === 'udma_m2s')).toBe(true);
  });

  it('results are sorted and limited', () => {
    const all = L.search(index, 'cfg', 1000);
    expect(all.length).toBeGreaterThan(20);
    for (let i = 1; i < all.length; i++)
      expect(all[i - 1].score).toBeGreaterThanOrEqual(all[i].score);
    expect(L.search(index, 'cfg', 5)).toHaveLength(5);
  });
});
