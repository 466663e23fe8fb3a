import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import {
  ArrayRegisterIO,
  FieldRangeError,
  TracingIO,
  bindRegFile,
  bindDgeHost,
  bindUdmaM2S,
  bindUdmaS2M,
  decodeFields,
  encodeFields,
  mapInstances,
  parseRegFile,
  regFile,
  registerAt,
  toRegFileMap,
  udma_m2s,
  udma_s2m,
  type AnyRegister,
  type RegisterMap,
} from '../../../csr/index.ts';

const m2sModel = regFile('udma_m2s');

function traced(size = 0x20000) {
  const mem = new ArrayRegisterIO(size);
  const io = new TracingIO(mem, { file: 'udma_m2s' });
  return { mem, io, m2s: bindUdmaM2S(io) };
}

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

/** A file with a mixed RW/WO register and a W1C field, for access-kind rules the shipped files lack. */
const mixed = toRegFileMap(
  parseRegFile(
    {
      RegFile: {
        Name: 'mixed',
        Description: '',
        SizeInBytes: 0x10,
        Registers: [
          {
            Name: 'ctl',
            AddressOffset: '0x0',
            Description: '',
            Fields: [
              {
                Name: 'mode',
                Bits: '3:0',
                Access: 'RW',
                ResetValue: '0x5',
                Description: '',
                Provenance: 'seed',
              },
              {
                Name: 'kick',
                Bits: '8:8',
                Access: 'WO',
                ResetValue: 'unknown',
                Description: '',
                Provenance: 'seed',
              },
              {
                Name: 'err',
                Bits: '16:16',
                Access: 'W1C',
                ResetValue: 'unknown',
                Description: '',
                Provenance: 'seed',
              },
              {
                Name: 'busy',
                Bits: '31:31',
                Access: 'RO',
                ResetValue: 'unknown',
                Description: '',
                Provenance: 'seed',
              },
            ],
          },
        ],
      },
    },
    'mixed.json',
  ),
);

describe('register accessors', () => {
  it('modify is exactly one read32 and one write32 of the register word, other fields kept', () => {
    const { mem, io, m2s } = traced();
    mem.write32(0x4084, 0xabcdef00);
    m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 });
    expect(io.log.map((e) => [e.op, e.offset])).toEqual([
      ['read', 0x4084],
      ['write', 0x4084],
    ]);
    expect(mem.read32(0x4084)).toBe(0xabcdef05);
  });

  it('read returns the fields as a fresh object (readonly by type); readField reads one field', () => {
    const { mem, io, m2s } = traced();
    mem.write32(0x304, (1 << 16) | 0x41);
    const v = m2s.M2S_rd.desc_pref_cfg_2.read();
    expect(v).toEqual({ max_desc_per_pkt: 0x41, pref_force_rr: 1 });
    // not frozen (that cost 20-40 ns a read): each read is a new value, so changing one through
    // a cast changes neither the register nor the next read
    (v as { max_desc_per_pkt: number }).max_desc_per_pkt = 7;
    expect(m2s.M2S_rd.desc_pref_cfg_2.read()).toEqual({ max_desc_per_pkt: 0x41, pref_force_rr: 1 });
    expect(mem.read32(0x304)).toBe(0x10041);
    expect(m2s.M2S_rd.desc_pref_cfg_2.readField('pref_force_rr')).toBe(1);
    expect(m2s.M2S_rd.desc_pref_cfg_2.readField('max_desc_per_pkt')).toBe(0x41);
    expect(m2s.M2S_rd.desc_pref_cfg_2.readRaw()).toBe(0x10041);
    expect(io.log.map((e) => [e.op, e.offset])).toEqual(
      Array.from({ length: 5 }, () => ['read', 0x304]),
    );
  });

  it('readField names an unknown or unreadable field before reading: no access at all', () => {
    const mem = new ArrayRegisterIO(0x20000);
    const io = new TracingIO(mem, { file: 'udma_m2s' });
    const typed = bindUdmaM2S(io).M2S_rd.desc_pref_cfg_2 as unknown as AnyRegister;
    const path = registerAt(udma_m2s, io, 'M2S_rd.desc_pref_cfg_2');
    for (const r of [typed, path]) {
      for (const name of ['nope', 'constructor', '__proto__', 'toString']) {
        const e = thrown(() => r.readField(name)) as NxdmaError;
        expect(e.code).toBe('REGISTER_UNKNOWN');
        expect(e.message).toContain(`M2S_rd.desc_pref_cfg_2 has no readable field '${name}'`);
      }
    }
    const ctl = (
      bindRegFile(mixed, new TracingIO(new ArrayRegisterIO(0x10))) as unknown as {
        ctl: AnyRegister;
      }
    ).ctl;
    expect((thrown(() => ctl.readField('kick')) as NxdmaError).code).toBe('REGISTER_WRITE_ONLY');
    expect(io.log).toEqual([]);
  });

  it('a 32-bit field reads back unsigned', () => {
    const d = bindDgeHost(new ArrayRegisterIO(0x40));
    d.priority_class_map[1].write({ bytes_per_packet: 0xfffffff0 });
    expect(d.priority_class_map[1].read().bytes_per_packet).toBe(0xfffffff0);
    expect(d.priority_class_map[1].readRaw()).toBe(0xfffffff0);
  });

  it('write starts from the reset value (svd2rust semantics)', () => {
    const { mem, m2s } = traced();
    mem.write32(0x1020, 0xffffffff);
    m2s.M2S_Q[0].cfg.write({ en_pref: 1, en_scheduling: 1 });
    expect(mem.read32(0x1020)).toBe(0x03030000);
    m2s.M2S_comp.cfg_1c.write({ force_rr: 1 });
    expect(mem.read32(0x400)).toBe(0x01010040 | (1 << 25));
    m2s.M2S_Q[0].tdrtp_inc.write({ val: 3 });
    expect(mem.read32(0x1038)).toBe(3);
  });

  it('a read-only register refuses write, writeRaw and modify, and writes nothing', () => {
    const { io, m2s } = traced();
    const ro = m2s.M2S.state as unknown as {
      write(u: object): void;
      writeRaw(v: number): void;
      modify(u: object): void;
    };
    for (const f of [() => ro.write({}), () => ro.writeRaw(1), () => ro.modify({})]) {
      const e = thrown(f) as NxdmaError;
      expect(e.code).toBe('REGISTER_READ_ONLY');
      expect(e.message).toContain('M2S.state');
    }
    expect(io.log).toEqual([]);
  });

  it('write-only and INC registers are not readable', () => {
    const { io, m2s } = traced();
    const inc = m2s.M2S_Q[2].tdrtp_inc as unknown as {
      read(): unknown;
      readRaw(): number;
      modify(u: object): void;
    };
    expect((thrown(() => inc.read()) as NxdmaError).code).toBe('REGISTER_WRITE_ONLY');
    expect((thrown(() => inc.readRaw()) as NxdmaError).code).toBe('REGISTER_WRITE_ONLY');
    expect((thrown(() => inc.modify({ val: 1 })) as NxdmaError).message).toContain(
      'M2S_Q[2].tdrtp_inc',
    );
    expect(io.log).toEqual([]);
  });

  it('a write-only field is not readable and is written as 0 by modify unless named', () => {
    const mem = new ArrayRegisterIO(0x10);
    const f = bindRegFile(mixed, mem) as unknown as { ctl: AnyRegister };
    mem.write32(0, 0x80010103); // busy, err, kick, mode 3
    expect(f.ctl.read()).toEqual({ mode: 3, err: 1, busy: 1 });
    expect((thrown(() => f.ctl.readField('kick')) as NxdmaError).code).toBe('REGISTER_WRITE_ONLY');
    f.ctl.modify({ mode: 7 });
    // kick (WO) and err (W1C) are written 0: a modify never re-triggers or clears by accident
    expect(mem.read32(0)).toBe(0x80000007);
    f.ctl.modify({ err: 1, kick: 1 });
    expect(mem.read32(0)).toBe(0x80010107);
    f.ctl.write({ kick: 1 });
    expect(mem.read32(0)).toBe(0x105); // reset mode 5, kick 1
    expect((thrown(() => f.ctl.modify({ busy: 0 })) as NxdmaError).code).toBe('REGISTER_READ_ONLY');
  });

  it('a field value that is not an integer within its width throws a RangeError naming register.field and the range', () => {
    const { io, m2s } = traced();
    const r = m2s.M2S_Q[3].dwrr_cfg_2;
    for (const bad of [256, -1, 1.5, Number.NaN, Infinity, '5', null, 2 ** 32]) {
      const e = thrown(() => r.modify({ q_qos: bad as number }));
      expect(e).toBeInstanceOf(RangeError);
      expect(e).toBeInstanceOf(FieldRangeError);
      expect(e.message).toContain('M2S_Q[3].dwrr_cfg_2.q_qos');
      expect(e.message).toContain('0..255');
      expect((e as FieldRangeError).code).toBe('OUT_OF_RANGE');
    }
    const e24 = thrown(() => m2s.M2S_Q[0].tdrtp_inc.write({ val: 0x1000000 }));
    expect(e24.message).toMatch(
      /M2S_Q\[0\]\.tdrtp_inc\.val: 16777216 is not an integer in 0\.\.16777215 \(0xffffff\)/,
    );
    expect(io.log).toEqual([]); // validated before any access
  });

  it('a field with named values takes the name or the number; any other name is a FieldRangeError listing the names', () => {
    const { io, m2s } = traced();
    const r = m2s.M2S_dwrr.cfg_sched;
    r.modify({ en_dwrr: 'dwrr', pkt_mode_en: 'packet' });
    expect(r.read()).toMatchObject({ en_dwrr: 1, pkt_mode_en: 1 });
    r.modify({ en_dwrr: 0 });
    expect(r.read().en_dwrr).toBe(0);
    const writes = io.log.length;
    for (const bad of ['DWRR', 'wrr', 'constructor', 2]) {
      const e = thrown(() => r.modify({ en_dwrr: bad as 'dwrr' }));
      expect(e).toBeInstanceOf(FieldRangeError);
      expect((e as FieldRangeError).code).toBe('OUT_OF_RANGE');
      expect(e.message).toContain('M2S_dwrr.cfg_sched.en_dwrr');
      expect(e.message).toContain('round_robin | dwrr');
    }
    // a name on a field without named values is refused the same way
    expect(thrown(() => m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 'high' as never }))).toBeInstanceOf(
      FieldRangeError,
    );
    expect(io.log.length).toBe(writes); // validated before any access
  });

  it('an unknown field throws REGISTER_UNKNOWN naming the register', () => {
    const { m2s } = traced();
    const e = thrown(() => m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qoss: 5 } as object)) as NxdmaError;
    expect(e.code).toBe('REGISTER_UNKNOWN');
    expect(e.message).toContain('M2S_Q[3].dwrr_cfg_2');
    expect(e.message).toContain('q_qoss');
    const strict = registerAt(udma_m2s, new ArrayRegisterIO(0x20000), 'M2S_Q[3].dwrr_cfg_2');
    const e2 = thrown(() => strict.modify({ q_qos: 1, weight: 2 })) as NxdmaError;
    expect(e2.code).toBe('REGISTER_UNKNOWN');
  });

  it('a bundle or register-array index out of range throws OUT_OF_RANGE', () => {
    const { m2s } = traced();
    for (const f of [
      () => m2s.M2S_Q[16],
      () => m2s.M2S_Q[-1],
      () => m2s.M2S_Q[1.5],
      () => m2s.M2S_Q.at(16),
    ]) {
      const e = thrown(f) as NxdmaError;
      expect(e.code).toBe('OUT_OF_RANGE');
      expect(e.message).toMatch(/M2S_Q\[.*\] is out of range: M2S_Q has 16 entries \(0\.\.15\)/);
    }
    const d = bindDgeHost(new ArrayRegisterIO(0x40));
    expect((thrown(() => d.priority_class_map[4]) as NxdmaError).message).toContain(
      'priority_class_map[4]',
    );
    expect(m2s.M2S_Q.length).toBe(16);
    expect([...m2s.M2S_Q].map((q) => q.cfg.offset)).toEqual(
      Array.from({ length: 16 }, (_, i) => 0x1020 + i * 0x1000),
    );
    expect(m2s.M2S_Q.at(15).cfg.path).toBe('M2S_Q[15].cfg');
  });

  it('binding a window smaller than the register file throws OUT_OF_WINDOW', () => {
    const e = thrown(() => bindUdmaM2S(new ArrayRegisterIO(0x1000))) as NxdmaError;
    expect(e.code).toBe('OUT_OF_WINDOW');
    expect(e.message).toContain('udma_m2s');
  });

  it('raw words: writeRaw takes 0..0xffffffff (or an int32 pattern) and nothing else', () => {
    const { mem, m2s } = traced();
    m2s.M2S_Q[1].desc_pref_cfg.writeRaw(0xdeadbeef);
    expect(mem.read32(0x2000)).toBe(0xdeadbeef);
    m2s.M2S_Q[1].desc_pref_cfg.writeRaw(-1);
    expect(m2s.M2S_Q[1].desc_pref_cfg.readRaw()).toBe(0xffffffff);
    expect(thrown(() => m2s.M2S_Q[1].desc_pref_cfg.writeRaw(2 ** 32))).toBeInstanceOf(RangeError);
    expect(thrown(() => m2s.M2S_Q[1].desc_pref_cfg.writeRaw(0.5))).toBeInstanceOf(RangeError);
  });
});

describe('inferred registers on hardware (spec/REGISTERS.md provenance rule)', () => {
  it('are refused without an opt-in, and nothing is written', () => {
    const mem = new TracingIO(new ArrayRegisterIO(0x20000));
    const hw = bindUdmaM2S(mem, { hardware: true });
    const e = thrown(() => hw.AXI_M2S_MLA.high_priority.write({ enable: 1 })) as NxdmaError;
    expect(e.code).toBe('REGISTER_INFERRED');
    expect(e.message).toContain('AXI_M2S_MLA.high_priority');
    expect(e.message).toMatch(/address/);
    expect(
      (thrown(() => hw.AXI_M2S_MLA.high_priority.modify({ enable: 1 })) as NxdmaError).code,
    ).toBe('REGISTER_INFERRED');
    expect(
      (thrown(() => hw.AXI_M2S.data_rd_cfg.modify({ burst: 8 })) as NxdmaError).message,
    ).toContain('field burst');
    expect(mem.writes()).toEqual([]);
    // stated fields of a register with an inferred neighbour may be modified (the rest is written back as read)
    hw.AXI_M2S.data_rd_cfg.modify({ always_break_on_max_boundary: 1 });
    hw.M2S_Q[0].dwrr_cfg_2.modify({ q_qos: 3 });
    expect(mem.writes().map((w) => w.offset)).toEqual([0x118, 0x1084]);
  });

  it('S2M_Q.cfg: en_stream may be modified on hardware, AXI_qos (inferred by analogy) may not', () => {
    const hw = bindUdmaS2M(new ArrayRegisterIO(0x18000), { hardware: true });
    hw.S2M_Q[4].cfg.modify({ en_stream: 1 });
    expect(hw.S2M_Q[4].cfg.read().en_stream).toBe(1);
    expect((thrown(() => hw.S2M_Q[4].cfg.modify({ AXI_qos: 2 })) as NxdmaError).code).toBe(
      'REGISTER_INFERRED',
    );
    expect((thrown(() => hw.S2M_Q[4].cfg.write({ en_stream: 1 })) as NxdmaError).code).toBe(
      'REGISTER_INFERRED',
    );
  });

  it('are written with allowInferred, and always off hardware', () => {
    for (const opts of [{ hardware: true, allowInferred: true }, {}]) {
      const mem = new ArrayRegisterIO(0x20000);
      bindUdmaM2S(mem, opts).AXI_M2S_MLA.high_priority.write({ enable: 0x8001 });
      expect(mem.read32(0x8)).toBe(0x8001);
    }
  });
});

describe('the specialised and the generic paths agree (nothing ever splits a word)', () => {
  const writable = mapInstances(udma_m2s).filter(
    (i) => i.register.access === 'RW' && Object.keys(i.register.fields).length,
  );

  function updateFor(r: RegisterMap) {
    const entries = Object.entries(r.fields).map(([name, f]) => [
      name,
      fc.option(fc.integer({ min: 0, max: f.width >= 32 ? 0xffffffff : 2 ** f.width - 1 }), {
        nil: undefined,
      }),
    ]);
    return fc.record(
      Object.fromEntries(entries) as Record<string, fc.Arbitrary<number | undefined>>,
    );
  }

  it('modify and write give the same words and the same single aligned accesses', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...writable)
          .chain((inst) =>
            fc.tuple(
              fc.constant(inst),
              fc.nat({ max: 0xffffffff }),
              updateFor(inst.register),
              fc.boolean(),
            ),
          ),
        ([inst, initial, update, useWrite]) => {
          const a = new TracingIO(new ArrayRegisterIO(0x20000));
          const b = new TracingIO(new ArrayRegisterIO(0x20000));
          a.inner.write32(inst.offset, initial);
          b.inner.write32(inst.offset, initial);
          const typed = registerAt(udma_m2s, a, inst.path, {}); // strict (generic) path
          const fast = bindUdmaM2S(b) as unknown as Record<string, unknown>;
          const handle = inst.path.split('.').reduce<unknown>((o, part) => {
            const m = /^(\w+)(?:\[(\d+)\])?$/.exec(part)!;
            const v = (o as Record<string, unknown>)[m[1]];
            return m[2] === undefined ? v : (v as unknown[])[Number(m[2])];
          }, fast) as { modify(u: object): void; write(u: object): void };
          if (useWrite) {
            typed.write(update);
            handle.write(update);
          } else {
            typed.modify(update);
            handle.modify(update);
          }
          expect(b.log.map((e) => [e.op, e.offset, e.value])).toEqual(
            a.log.map((e) => [e.op, e.offset, e.value]),
          );
          expect(a.log.every((e) => e.offset === inst.offset)).toBe(true);
          const expected = encodeFields(
            inst.register,
            update,
            useWrite ? inst.register.reset : initial >>> 0,
          );
          expect(a.inner.read32(inst.offset)).toBe(expected);
          const dec = decodeFields(inst.register, expected);
          for (const [k, v] of Object.entries(update)) if (v !== undefined) expect(dec[k]).toBe(v);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads agree with decodeFields for every readable register of udma_s2m', () => {
    const mem = new ArrayRegisterIO(0x18000);
    const model = regFile('udma_s2m');
    for (const inst of model.instances) mem.write32(inst.offset, (inst.offset * 0x9e3779b1) >>> 0);
    for (const inst of mapInstances(udma_s2m)) {
      if (!['RW', 'RO'].includes(inst.register.access)) continue;
      const h = registerAt(udma_s2m, mem, inst.path);
      const all = decodeFields(inst.register, mem.read32(inst.offset));
      expect(h.read()).toEqual(all);
      for (const [name, value] of Object.entries(all)) expect(h.readField(name)).toBe(value);
    }
  });
});

describe('the loaded model drives a dynamic accessor too', () => {
  it('registerAt(toRegFileMap(model)) addresses the same words as the generated map', () => {
    const mem = new ArrayRegisterIO(0x20000);
    registerAt(toRegFileMap(m2sModel), mem, 'M2S_Q[7].dwrr_cfg_2').modify({ q_qos: 9 });
    expect(bindUdmaM2S(mem).M2S_Q[7].dwrr_cfg_2.read().q_qos).toBe(9);
    expect((thrown(() => registerAt(udma_m2s, mem, 'M2S_Q[16].cfg')) as NxdmaError).code).toBe(
      'REGISTER_UNKNOWN',
    );
  });
});
