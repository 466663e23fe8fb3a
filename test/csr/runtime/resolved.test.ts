import { describe, expect, it } from 'vitest';
import type { NxdmaError } from '../../../common/errors.ts';
import { FieldSpec, makeFieldSpec } from '../../../csr/runtime/fields.ts';
import {
  ResolvedField,
  ResolvedRegister,
  resolveField,
  resolveRegister,
  resolvedFields,
} from '../../../csr/runtime/resolved.ts';
import { regFile } from '../../../csr/schema/files.ts';
import { getField, getInstance } from '../../../csr/schema/model.ts';
import { field, reg } from '../../../driver/udma/regs.ts';

const m2s = regFile('udma_m2s');

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as NxdmaError).code;
  }
  return undefined;
}

describe('the resolved-register vocabulary', () => {
  it('a resolved register carries the model instance: offset, word, reset, masks', () => {
    const r = resolveRegister(m2s, 'M2S_Q[3].dwrr_cfg_2');
    const inst = getInstance(m2s, 'M2S_Q[3].dwrr_cfg_2');
    expect(r.file).toBe('udma_m2s');
    expect(r.path).toBe('M2S_Q[3].dwrr_cfg_2');
    expect(r.offset).toBe(inst.offset);
    expect(r.word).toBe(inst.offset / 4);
    expect(r.reset).toBe(inst.register.reset >>> 0);
    expect(r.fieldMask).toBe(inst.register.fields.reduce((m, f) => (m | f.mask) >>> 0, 0));
    expect(r.fields.map((f) => f.name)).toEqual(inst.register.fields.map((f) => f.name));
  });

  it('resolving the same path twice gives the same object; the driver holds the same vocabulary', () => {
    const a = resolveRegister(m2s, 'M2S_dwrr.cfg_sched');
    expect(resolveRegister(m2s, 'M2S_dwrr.cfg_sched')).toBe(a);
    expect(reg('udma_m2s', 'M2S_dwrr.cfg_sched')).toBe(a);
    expect(a).toBeInstanceOf(ResolvedRegister);
    const f = field('udma_m2s', 'M2S_dwrr.cfg_sched.inc_factor');
    expect(f).toBeInstanceOf(ResolvedField);
    expect(f).toBeInstanceOf(FieldSpec);
    expect(resolveField(m2s, 'M2S_dwrr.cfg_sched.inc_factor')).toBe(f);
    expect(resolvedFields(m2s, 'M2S_dwrr.cfg_sched')).toBe(a.fields);
  });

  it('a resolved field has the model field position and its full path', () => {
    const f = resolveField(m2s, 'M2S_Q[3].dwrr_cfg_2.q_qos');
    const m = getField(m2s, 'M2S_Q[3].dwrr_cfg_2.q_qos');
    expect(f.path).toBe('M2S_Q[3].dwrr_cfg_2.q_qos');
    expect([f.lsb, f.width, f.max, f.mask]).toEqual([
      m.field.lsb,
      m.field.width,
      m.field.max,
      m.field.mask >>> 0,
    ]);
    expect(f.offset).toBe(m.instance.offset);
    expect(f.reg.path).toBe('M2S_Q[3].dwrr_cfg_2');
  });

  it('unknown registers and fields are REGISTER_UNKNOWN errors', () => {
    expect(codeOf(() => resolveRegister(m2s, 'M2S_Q[3].nope'))).toBe('REGISTER_UNKNOWN');
    expect(codeOf(() => resolveField(m2s, 'M2S_Q[3].dwrr_cfg_2.nope'))).toBe('REGISTER_UNKNOWN');
    expect(codeOf(() => resolveRegister(m2s, 'M2S_dwrr.cfg_sched').field('x'))).toBe(
      'REGISTER_UNKNOWN',
    );
  });

  it('read / write / bits / isSet act on the field in a word array and nothing else', () => {
    const f = resolveField(m2s, 'M2S_dwrr.cfg_sched.inc_factor');
    const words = new Uint32Array(m2s.size / 4).fill(0xffffffff);
    f.write(words, 5);
    expect(f.read(words)).toBe(5);
    expect(words[f.word]).toBe(((0xffffffff & ~f.mask) | (5 << f.lsb)) >>> 0);
    expect(f.bits(words)).toBe((5 << f.lsb) >>> 0);
    f.write(words, 0);
    expect(f.isSet(words)).toBe(false);
    expect(words.filter((w) => w !== 0xffffffff).length).toBe(1);
  });

  it('bit(i) of a bitmask field is a one-bit FieldSpec inside the field; outside it is refused', () => {
    const en = resolveField(m2s, 'AXI_M2S_MLA.high_priority.enable');
    const b3 = en.bit(3);
    expect([b3.name, b3.lsb, b3.width, b3.max, b3.mask]).toEqual([
      'enable[3]',
      en.lsb + 3,
      1,
      1,
      (1 << (en.lsb + 3)) >>> 0,
    ]);
    expect(b3.place(1)).toBe((1 << (en.lsb + 3)) >>> 0);
    expect(b3.inferred).toBe(en.inferred);
    expect(codeOf(() => en.bit(en.width))).toBe('REGISTER_UNKNOWN');
    expect(codeOf(() => en.bit(-1))).toBe('REGISTER_UNKNOWN');
  });

  it('makeFieldSpec derives max and mask from the position (the one placement rule)', () => {
    const s = makeFieldSpec('x', 4, 3, 'RW', false);
    expect([s.max, s.mask, s.readable, s.writable]).toEqual([7, 0x70, true, true]);
    expect(s.place(5)).toBe(0x50);
    expect(s.get(0x5f)).toBe(5);
    const w = makeFieldSpec('all', 0, 32, 'RO', false);
    expect([w.max, w.mask, w.writable]).toEqual([0xffffffff, 0xffffffff, false]);
  });

  it('inferredWrite names the inferred address and the inferred fields written', () => {
    const hp = resolveRegister(m2s, 'AXI_M2S_MLA.high_priority');
    expect(hp.addressInferred).toBe(true);
    expect(hp.inferredWrite(['enable'])[0]).toBe('its address (block base or offset)');
    const sched = resolveRegister(m2s, 'M2S_dwrr.cfg_sched');
    const inferredFields = sched.fields.filter((f) => f.inferred).map((f) => f.name);
    expect(sched.inferredWrite(sched.fields.map((f) => f.name))).toEqual([
      ...(sched.addressInferred ? ['its address (block base or offset)'] : []),
      ...inferredFields.map((n) => `field ${n}`),
    ]);
  });
});
