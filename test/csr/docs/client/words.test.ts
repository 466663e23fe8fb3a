/**
 * The page logic for words and fields (csr/docs/client/words.js), evaluated from the very text
 * the pages embed: number parsing and formatting, and field decode/encode agreeing with the runtime
 * codec.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {} from '../../../../common/errors.ts';
import { CLIENT_LOGIC_JS, loadClientLogic, pageScript } from '../../../../csr/docs/client.ts';
import { clientRegister, pageRegisters } from '../../../../csr/docs/data.ts';
import { decodeFields, encodeFields } from '../../../../csr/runtime/index.ts';
import { toRegisterMap } from '../../../../csr/schema/map.ts';
import {} from '../../../../csr/schema/model.ts';
import { shippedModels } from '../helpers.ts';

const L = loadClientLogic();
const models = shippedModels();
const [m2s] = models;

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
