/**
 * The resolved-register vocabulary: a register word or a field of a loaded register-file model,
 * resolved once by path ("M2S_Q[3].dwrr_cfg_2", "M2S_Q[3].dwrr_cfg_2.q_qos") to its byte offset,
 * word index, bit position, reset word and provenance. The driver (driver/udma/regs.ts, the QoS
 * planner) and the mock engine hold these instead of paths: every offset and bit position comes
 * from the model, and a field's bits are placed and extracted by its FieldSpec (csr/runtime/
 * fields.ts, the one home of the field encode/decode and placement rule).
 *
 *   const r = resolveRegister(regFile('udma_m2s'), 'M2S_Q[3].dwrr_cfg_2');
 *   r.encode({ q_qos: 5 });                      // the word over the reset value
 *   const q = r.field('q_qos');                  // q.get(word), q.place(5), q.read(words)
 *   r.field('enable').bit(3);                    // bit 3 of a per-queue bitmask, as a FieldSpec
 *
 * Resolved objects are immutable and cached per model and path: resolving the same path twice
 * gives the same object.
 */
import { NxdmaError } from '../../common/errors.ts';
import { registerMapOf, type RegisterMap } from '../schema/map.ts';
import {
  getField,
  getInstance,
  type FieldModel,
  type RegFileModel,
  type RegisterInstance,
  type RegisterModel,
} from '../schema/model.ts';
import { FieldSpec, encodeFields, fieldSpecArgs, makeFieldSpec } from './fields.ts';

/** One register word of a register file, resolved. `F` names the file ("udma_m2s"). */
export class ResolvedRegister<F extends string = string> {
  /** Register-file name. */
  readonly file: F;
  /** "M2S_Q[3].dwrr_cfg_2", as `nxdma regs list` prints it. */
  readonly path: string;
  /** Byte offset in the file's window. */
  readonly offset: number;
  /** Word index in the file's window (offset / 4). */
  readonly word: number;
  readonly instance: RegisterInstance;
  readonly model: RegisterModel;
  readonly map: RegisterMap;
  /** Reset word. */
  readonly reset: number;
  /** Bits of every field (the whole word for a register without fields). */
  readonly fieldMask: number;
  /** Bits that read back (readable fields). */
  readonly readMask: number;
  /** The register's address (block base or offset) is inferred. */
  readonly addressInferred: boolean;
  /** Its fields, in schema order. */
  readonly fields: readonly ResolvedField<F>[];

  constructor(file: F, instance: RegisterInstance) {
    this.file = file;
    this.instance = instance;
    this.path = instance.path;
    this.offset = instance.offset;
    this.word = instance.offset >>> 2;
    this.model = instance.register;
    this.map = registerMapOf(instance.register);
    this.reset = instance.register.reset >>> 0;
    this.addressInferred = instance.register.addressInferred;
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
    this.fields = this.model.fields.map((f) => new ResolvedField(this, f));
  }

  /**
   * The word with the named fields replaced over `base` (default: the reset word). Throws before
   * returning when a value does not fit its field.
   */
  encode(values: Readonly<Record<string, number | undefined>>, base: number = this.reset): number {
    return encodeFields(this.map, values, base, this.path);
  }

  /** The field `name`, or undefined. */
  findField(name: string): ResolvedField<F> | undefined {
    const fs = this.fields;
    for (let i = 0; i < fs.length; i++) if (fs[i].name === name) return fs[i];
    return undefined;
  }

  /** The field `name`, or a REGISTER_UNKNOWN error naming the register. */
  field(name: string): ResolvedField<F> {
    const f = this.findField(name);
    if (f) return f;
    throw new NxdmaError('REGISTER_UNKNOWN', `${this.file}: ${this.path} has no field '${name}'`, {
      where: `${this.file}:${this.path}`,
      expected: this.model.fields.map((x) => x.name).join(' | ') || 'no field',
      actual: name,
    });
  }

  /**
   * Why writing `names` (the fields a write sets on purpose) to this register puts an inferred
   * fact on the device: the register's address is inferred, or a named field is. Empty when the
   * write rests on stated facts only (the other bits keep their reset or current value). The same
   * rule as the accessor runtime's hardware guard for `modify`.
   */
  inferredWrite(names: Iterable<string>): string[] {
    const out: string[] = [];
    if (this.addressInferred) out.push('its address (block base or offset)');
    for (const n of names) {
      if (this.findField(n)?.inferred) out.push(`field ${n}`);
    }
    return out;
  }
}

/**
 * One field of a resolved register: its FieldSpec (position, `get` / `place` on a word) with the
 * register it belongs to, and in-place access to a file's word array (the mock's register files).
 */
export class ResolvedField<F extends string = string> extends FieldSpec {
  readonly reg: ResolvedRegister<F>;
  readonly model: FieldModel;
  /** "M2S_Q[3].dwrr_cfg_2.q_qos". */
  readonly path: string;
  /** Byte offset of the register. */
  readonly offset: number;
  /** Word index of the register in the file (byte offset / 4). */
  readonly word: number;

  constructor(reg: ResolvedRegister<F>, model: FieldModel) {
    super(...fieldSpecArgs(model));
    this.reg = reg;
    this.model = model;
    this.path = `${reg.path}.${model.name}`;
    this.offset = reg.offset;
    this.word = reg.word;
  }

  /**
   * Bits `bit` .. `bit + width - 1` of this field (a queue's bit of a per-queue bitmask) as a
   * FieldSpec named "name[bit]" with this field's access and provenance. Throws REGISTER_UNKNOWN
   * when the part does not lie inside the field.
   */
  bit(bit: number, width = 1): FieldSpec {
    if (
      !Number.isInteger(bit) ||
      !Number.isInteger(width) ||
      bit < 0 ||
      width < 1 ||
      bit + width > this.width
    ) {
      throw new NxdmaError('REGISTER_UNKNOWN', `${this.path} has no bit ${String(bit)}`, {
        where: this.path,
        expected: `bits 0..${this.width - 1}`,
        actual: bit,
      });
    }
    return makeFieldSpec(`${this.name}[${bit}]`, this.lsb + bit, width, this.access, this.inferred);
  }

  /** The field's value in the stored word, unsigned (`get(words[word])` inlined: hot path). */
  read(words: Uint32Array): number {
    return ((words[this.word] >>> this.lsb) & this.max) >>> 0;
  }

  /** The field's bits in place in the stored word, the other bits 0 (unsigned). */
  bits(words: Uint32Array): number {
    return (words[this.word] & this.mask) >>> 0;
  }

  isSet(words: Uint32Array): boolean {
    return (words[this.word] & this.mask) !== 0;
  }

  /** Replaces the field in the stored word. */
  write(words: Uint32Array, value: number): void {
    const w = this.word;
    words[w] = ((words[w] & ~this.mask) | this.place(value)) >>> 0;
  }
}

const cache = new WeakMap<RegFileModel, Map<string, ResolvedRegister>>();

/**
 * The register at `path` of `model`, resolved (cached); a path the model lacks is a
 * REGISTER_UNKNOWN error naming the file and close matches.
 */
export function resolveRegister<F extends string = string>(
  model: RegFileModel,
  path: string,
): ResolvedRegister<F> {
  let m = cache.get(model);
  if (!m) {
    m = new Map();
    cache.set(model, m);
  }
  let r = m.get(path);
  if (!r) {
    r = new ResolvedRegister(model.name, getInstance(model, path)) as ResolvedRegister;
    m.set(path, r);
  }
  return r as ResolvedRegister<F>;
}

/** The field at "register-path.field" of `model`, resolved; REGISTER_UNKNOWN when absent. */
export function resolveField<F extends string = string>(
  model: RegFileModel,
  path: string,
): ResolvedField<F> {
  const dot = path.lastIndexOf('.');
  const r = dot < 0 ? undefined : cache.get(model)?.get(path.slice(0, dot));
  const f = r?.findField(path.slice(dot + 1));
  if (f) return f as ResolvedField<F>;
  // getField names the file and the fields of the register when the path is wrong.
  const fi = getField(model, path);
  return resolveRegister<F>(model, fi.instance.path).field(fi.field.name);
}

/** Every field of the register at `path`, resolved. */
export function resolvedFields<F extends string = string>(
  model: RegFileModel,
  path: string,
): readonly ResolvedField<F>[] {
  return resolveRegister<F>(model, path).fields;
}
