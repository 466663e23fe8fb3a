/**
 * The UDMA registers and fields the driver uses, resolved by path from the loaded register models
 * (csr/schemas/udma_m2s.json, udma_s2m.json). Only names appear here: every offset, bit position,
 * reset value and provenance comes from the model, and words are encoded by the csr runtime's
 * `encodeFields` (the one home of the field-encoding rule).
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import { FieldSpec, encodeFields, fieldSpecArgs } from '../../csr/runtime/fields.ts';
import { regFile } from '../../csr/schema/files.ts';
import { registerMapOf, type RegisterMap } from '../../csr/schema/map.ts';
import {
  getBlock,
  getInstance,
  type FieldModel,
  type RegFileModel,
  type RegisterInstance,
  type RegisterModel,
} from '../../csr/schema/model.ts';

/** The two register files of a UDMA unit. */
export type UdmaFileName = 'udma_m2s' | 'udma_s2m';

export const UDMA_FILES: readonly UdmaFileName[] = ['udma_m2s', 'udma_s2m'];

/** One register word of a UDMA file. */
export class Reg {
  readonly file: UdmaFileName;
  /** "M2S_Q[3].dwrr_cfg_2", as `nxdma regs list` prints it. */
  readonly path: string;
  /** Byte offset in the file's window. */
  readonly offset: number;
  readonly instance: RegisterInstance;
  readonly model: RegisterModel;
  readonly map: RegisterMap;
  /** Reset word. */
  readonly reset: number;
  /** Bits of every field (the whole word for a register without fields). */
  readonly fieldMask: number;
  /** Bits that read back (readable fields). */
  readonly readMask: number;

  constructor(file: UdmaFileName, instance: RegisterInstance) {
    this.file = file;
    this.instance = instance;
    this.path = instance.path;
    this.offset = instance.offset;
    this.model = instance.register;
    this.map = registerMapOf(instance.register);
    this.reset = instance.register.reset >>> 0;
    let all = 0;
    let readable = 0;
    for (const f of this.model.fields) {
      all |= f.mask;
      if (f.readable) readable |= f.mask;
    }
    if (this.model.fields.length === 0) {
      all = 0xffffffff;
      readable = this.model.readable ? 0xffffffff : 0;
    }
    this.fieldMask = all >>> 0;
    this.readMask = readable >>> 0;
  }

  /**
   * The word with the named fields replaced over `base` (default: the reset word). Throws before
   * returning when a value does not fit its field.
   */
  encode(values: Readonly<Record<string, number | undefined>>, base: number = this.reset): number {
    return encodeFields(this.map, values, base, this.path);
  }

  /** The field `name`, or a REGISTER_UNKNOWN error naming the register. */
  field(name: string): Field {
    const f = this.model.fields.find((x) => x.name === name);
    if (!f) {
      throw new NxdmaError(
        'REGISTER_UNKNOWN',
        `${this.file}: ${this.path} has no field '${name}'`,
        {
          where: `${this.file}:${this.path}`,
          expected: this.model.fields.map((x) => x.name).join(' | ') || 'no field',
          actual: name,
        },
      );
    }
    return new Field(this, f);
  }
}

/**
 * One field of a register word: the csr runtime's FieldSpec (position, `get`, `place`) with the
 * register it belongs to.
 */
export class Field extends FieldSpec {
  readonly reg: Reg;
  readonly model: FieldModel;

  constructor(reg: Reg, model: FieldModel) {
    super(...fieldSpecArgs(model));
    this.reg = reg;
    this.model = model;
  }

  /** "M2S_Q[3].dwrr_cfg_2.q_qos". */
  get path(): string {
    return `${this.reg.path}.${this.name}`;
  }
}

/** The loaded model of a UDMA file. */
export function udmaModel(file: UdmaFileName): RegFileModel {
  return regFile(file);
}

/** The window of `file` in a UDMA unit (m2s or s2m). */
export function unitWindow(unit: UdmaUnitIO, file: UdmaFileName): RegisterIO {
  return file === 'udma_m2s' ? unit.m2s : unit.s2m;
}

/** Throws OUT_OF_WINDOW unless both windows of engine `engine`'s unit hold their register file. */
export function checkUnitWindows(unit: UdmaUnitIO, engine: number): void {
  for (const f of UDMA_FILES) {
    const io = unitWindow(unit, f);
    const need = udmaModel(f).size;
    if (!(io.size >= need)) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `udma${engine}: the ${f} window is ${hex(io.size)} bytes, the register file needs ${hex(need)}`,
        {
          where: `udma${engine}.${f}`,
          expected: `a window of at least ${hex(need)} bytes`,
          actual: io.size,
        },
      );
    }
  }
}

/** The register at `path` of `file`; a schema without it is a programming error (REGISTER_UNKNOWN). */
export function reg(file: UdmaFileName, path: string): Reg {
  return new Reg(file, getInstance(regFile(file), path));
}

/** The field at "register-path.field" of `file`. */
export function field(file: UdmaFileName, path: string): Field {
  const dot = path.lastIndexOf('.');
  return reg(file, path.slice(0, dot)).field(path.slice(dot + 1));
}

/** Number of queues of a UDMA half: the instance count of its queue bundle (M2S_Q / S2M_Q). */
export function queueCount(file: UdmaFileName): number {
  return getBlock(regFile(file), file === 'udma_m2s' ? 'M2S_Q' : 'S2M_Q').arraySize;
}

/**
 * Why writing `names` (the fields a write sets on purpose) to `r` puts an inferred fact on the
 * device: the register's address is inferred, or a named field is. Empty when the write rests on
 * stated facts only (the other bits keep their reset or current value). The same rule as the csr
 * runtime's hardware guard for `modify`.
 */
export function inferredWrite(r: Reg, names: readonly string[]): string[] {
  const out: string[] = [];
  if (r.model.addressInferred) out.push('its address (block base or offset)');
  for (const n of names) {
    const f = r.model.fields.find((x) => x.name === n);
    if (f?.inferred) out.push(`field ${n}`);
  }
  return out;
}
