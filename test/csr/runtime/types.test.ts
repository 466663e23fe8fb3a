/**
 * Type-level tests of the generated maps and the accessor types. `npm run typecheck` (tsc) checks
 * every `@ts-expect-error` and `expectTypeOf` here; the closures holding forbidden calls are never
 * run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  ArrayRegisterIO,
  bindDgeHost,
  bindRegFile,
  bindUdmaM2S,
  bindUdmaS2M,
  toRegFileMap,
  regFile,
  registerAt,
  type AnyRegister,
  type FieldUpdate,
  type FieldValues,
  type Indexed,
  type RegFileMap,
} from '../../../csr/index.ts';
import type { udma_m2s } from '../../../csr/generated/udma_m2s.ts';

const m2s = bindUdmaM2S(new ArrayRegisterIO(0x20000));
const s2m = bindUdmaS2M(new ArrayRegisterIO(0x18000));
const dge = bindDgeHost(new ArrayRegisterIO(0x40));

/** A literal map with a mixed RW/WO register, as codegen would write it. */
const mixed = {
  name: 'mixed',
  size: 0x10,
  blocks: {},
  registers: {
    ctl: {
      offset: 0x0,
      count: 1,
      stride: 0x0,
      indexed: false,
      access: 'RW',
      reset: 0x5,
      inferred: false,
      addressInferred: false,
      fields: {
        mode: { lsb: 0, width: 4, access: 'RW', reset: 0x5, inferred: false },
        kick: { lsb: 8, width: 1, access: 'WO', reset: 0x0, inferred: false },
        busy: { lsb: 31, width: 1, access: 'RO', reset: 0x0, inferred: false },
      },
    },
  },
} as const satisfies RegFileMap;

describe('accessor types', () => {
  it('writing a read-only register is a type error', () => {
    expectTypeOf(m2s.M2S.state).not.toHaveProperty('write');
    expectTypeOf(m2s.M2S.state).not.toHaveProperty('modify');
    expectTypeOf(m2s.M2S.state).not.toHaveProperty('writeRaw');
    expectTypeOf(m2s.M2S_Q[0].tdrtp).not.toHaveProperty('modify');
    expectTypeOf(m2s.M2S.state.read().desc_pref).toEqualTypeOf<number>();
    void (() => {
      // @ts-expect-error M2S.state is RO
      m2s.M2S.state.write({ comp_ctrl: 1 });
      // @ts-expect-error M2S_Q[q].tdrtp is RO
      m2s.M2S_Q[1].tdrtp.modify({ offset: 1 });
      // @ts-expect-error M2S_Q[q].status is RO (whole word)
      m2s.M2S_Q[1].status.writeRaw(0);
    });
  });

  it('an unknown field is a type error', () => {
    void (() => {
      // @ts-expect-error no field q_qoss
      m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qoss: 5 });
      // @ts-expect-error weight lives in dwrr_cfg_3
      m2s.M2S_Q[3].dwrr_cfg_2.write({ weight: 5 });
      // @ts-expect-error no field on read
      void m2s.M2S_rd.desc_pref_cfg_2.read().force_rr;
      // @ts-expect-error S2M has no DWRR registers
      void s2m.S2M_Q[0].dwrr_cfg_2;
      // @ts-expect-error no such block
      void m2s.S2M_Q;
    });
  });

  it('a wrong value type is a type error', () => {
    void (() => {
      // @ts-expect-error a string is not a field value
      m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: '5' });
      // @ts-expect-error a boolean is not a field value
      m2s.M2S_rd.desc_pref_cfg_2.modify({ pref_force_rr: true });
      // @ts-expect-error a bigint is not a raw word
      m2s.M2S_Q[3].desc_pref_cfg.writeRaw(1n);
    });
  });

  it('write-only and INC registers cannot be read; write-only fields are not readable', () => {
    expectTypeOf(m2s.M2S_Q[0].tdrtp_inc).not.toHaveProperty('read');
    expectTypeOf(m2s.M2S_Q[0].tdrtp_inc).not.toHaveProperty('modify');
    expectTypeOf(m2s.M2S_Q[0].tdrtp_inc.write).parameter(0).toEqualTypeOf<{ val?: number }>();
    expectTypeOf(m2s.M2S.change_state).not.toHaveProperty('readRaw');
    const f = bindRegFile(mixed, new ArrayRegisterIO(0x10));
    expectTypeOf(f.ctl.read()).toEqualTypeOf<{ readonly mode: number; readonly busy: number }>();
    expectTypeOf(f.ctl.modify).parameter(0).toEqualTypeOf<{ mode?: number; kick?: number }>();
    void (() => {
      // @ts-expect-error kick is WO: not readable
      f.ctl.readField('kick');
      // @ts-expect-error busy is RO: not writable
      f.ctl.modify({ busy: 1 });
    });
  });

  it('read returns the readable fields, readonly numbers; updates take any subset', () => {
    expectTypeOf(m2s.M2S_rd.desc_pref_cfg_2.read()).toEqualTypeOf<{
      readonly max_desc_per_pkt: number;
      readonly pref_force_rr: number;
    }>();
    void (() => {
      // @ts-expect-error a read value is immutable by type
      m2s.M2S_rd.desc_pref_cfg_2.read().pref_force_rr = 1;
    });
    expectTypeOf<
      FieldValues<udma_m2s['blocks']['M2S_Q']['registers']['dwrr_cfg_2']>
    >().toEqualTypeOf<{
      readonly q_qos: number;
    }>();
    expectTypeOf<
      FieldUpdate<udma_m2s['blocks']['M2S_dwrr']['registers']['cfg_sched']>
    >().toEqualTypeOf<{
      en_dwrr?: 'round_robin' | 'dwrr' | 0 | 1;
      pkt_mode_en?: 'byte' | 'packet' | 0 | 1;
      weight_inc?: number;
      inc_factor?: number;
    }>();
    expectTypeOf(m2s.M2S_Q[0].cfg.offset).toEqualTypeOf<number>();
  });

  it('repeated blocks and register arrays are indexed; single blocks are not', () => {
    expectTypeOf(m2s.M2S_Q).toMatchTypeOf<Indexed<unknown>>();
    expectTypeOf(m2s.M2S_rd).not.toHaveProperty('length');
    expectTypeOf(dge.priority_class_map).toMatchTypeOf<Indexed<unknown>>();
    expectTypeOf(dge.priority_class_map[2].write)
      .parameter(0)
      .toEqualTypeOf<{ bytes_per_packet?: number }>();
    expectTypeOf(dge.mailbox[0].read()).toEqualTypeOf<{
      readonly reserved: number;
      readonly priority: number;
      readonly bitmask: number;
    }>();
  });

  it('a field with named values takes a name or one of its values (svd2rust variants)', () => {
    m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 'dwrr', pkt_mode_en: 'packet' });
    m2s.M2S_dwrr.cfg_sched.write({ en_dwrr: 1, inc_factor: 7 });
    void (() => {
      // @ts-expect-error en_dwrr is 1 bit: 7 is none of its values
      m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 7 });
      // @ts-expect-error no value named 'wrr'
      m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 'wrr' });
      // @ts-expect-error a field without named values takes numbers only
      m2s.M2S_dwrr.cfg_sched.modify({ inc_factor: 'seven' });
    });
  });

  it('indices of a repeated block of known count need no undefined check', () => {
    expectTypeOf(m2s.M2S_Q[15].dwrr_cfg_2.readRaw).toEqualTypeOf<() => number>();
    expectTypeOf(m2s.M2S_Q).toHaveProperty('length').toEqualTypeOf<16>();
    expectTypeOf(dge.priority_class_map[3].readRaw).toEqualTypeOf<() => number>();
  });

  it('a map built at run time gives an untyped record (use registerAt)', () => {
    const dyn = bindRegFile(toRegFileMap(regFile('udma_m2s')), new ArrayRegisterIO(0x20000));
    expectTypeOf(dyn).toEqualTypeOf<{ readonly [name: string]: unknown }>();
    expectTypeOf(
      registerAt(toRegFileMap(regFile('udma_m2s')), new ArrayRegisterIO(0x20000), 'M2S_Q[3].cfg'),
    ).toMatchTypeOf<AnyRegister>();
  });
});
