/**
 * Field encode/decode: the one home of the rule that turns field values into a register word and
 * back. The accessors, the mock device and the CLI all go through it.
 *
 * Rules:
 * - a field value is an integer in 0..2^width-1, or, for a field with named values (the schema's
 *   EnumeratedValues, `values` in the map), one of those names (`en_dwrr: 'dwrr'`); anything else
 *   throws a FieldRangeError (a RangeError with the stable code OUT_OF_RANGE) naming
 *   `register.field`, the range and the names: never silently truncated;
 * - words are unsigned 32-bit numbers (0..0xffffffff); nothing here splits a word into bytes.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { AccessKind } from '../schema/format.ts';
import type { FieldMap, RegisterMap } from '../schema/map.ts';
import { fieldMax, isReadableAccess, isWritableAccess, type FieldModel } from '../schema/model.ts';

/** A field value outside its field's range: a RangeError with the nxdma error shape. */
export class FieldRangeError extends RangeError {
  readonly code = 'OUT_OF_RANGE' as const;
  readonly details: { where: string; expected: string; actual: unknown };
  constructor(
    where: string,
    max: number,
    width: number,
    actual: unknown,
    names: readonly string[] = [],
  ) {
    const range =
      (max > 255 ? `0..${max} (${hex(max)})` : `0..${max}`) +
      (names.length ? ` or one of ${names.join(' | ')}` : '');
    const shown =
      typeof actual === 'number' || typeof actual === 'bigint'
        ? String(actual)
        : (JSON.stringify(actual) ?? String(actual));
    super(`${where}: ${shown} is not an integer in ${range} (${width}-bit field)`);
    this.name = 'FieldRangeError';
    this.details = { where, expected: `an integer in ${range}`, actual };
  }
}

/** fieldMax of every width 0..32, looked up (a width outside the table is computed). */
const FIELD_MAX: readonly number[] = Array.from({ length: 33 }, (_, w) => fieldMax(w));

/**
 * The value of a field (`lsb`, `width` bits) in a 32-bit word, unsigned. For one-off decodes; the
 * hot paths hold a FieldSpec (the same rule with max and mask computed once).
 */
export function fieldValue(
  word: number,
  f: { readonly lsb: number; readonly width: number },
): number {
  return ((word >>> f.lsb) & (FIELD_MAX[f.width] ?? fieldMax(f.width))) >>> 0;
}

/**
 * `value` (0..2^width - 1, checked by the caller) in the place of a field (`lsb`, `width` bits), the
 * other bits 0, unsigned. For one-off encodes; the hot paths hold a FieldSpec.
 */
export function placeField(
  value: number,
  f: { readonly lsb: number; readonly width: number },
): number {
  return ((value << f.lsb) & (fieldMax(f.width) << f.lsb)) >>> 0;
}

/**
 * A compiled field: everything the hot path needs, in one fixed object shape, and the field's
 * decode (`get`) and encode (`place`). The accessors, the driver's register handles
 * (driver/udma/regs.ts) and the mock engine's field references (mocks/field-ref.ts) are all
 * FieldSpecs.
 */
export class FieldSpec {
  constructor(
    readonly name: string,
    readonly lsb: number,
    readonly width: number,
    /** 2^width - 1. */
    readonly max: number,
    /** max << lsb, unsigned. */
    readonly mask: number,
    readonly access: AccessKind,
    readonly readable: boolean,
    readonly writable: boolean,
    readonly inferred: boolean,
    /** The field's named values (name -> value), or null when it has none. */
    readonly values: { readonly [name: string]: number } | null = null,
  ) {}

  /**
   * The number an update gives this field: an integer in 0..max as it is, a value name as its
   * value. Throws FieldRangeError (naming `where`) for anything else.
   */
  input(x: unknown, where: string): number {
    if (typeof x === 'number' && x >>> 0 === x && x <= this.max) return x;
    if (typeof x === 'string' && this.values !== null && Object.hasOwn(this.values, x)) {
      return this.values[x];
    }
    throw new FieldRangeError(
      where,
      this.max,
      this.width,
      x,
      this.values ? Object.keys(this.values) : [],
    );
  }

  /** The field's value in `word` (unsigned). */
  get(word: number): number {
    return ((word >>> this.lsb) & this.max) >>> 0;
  }

  /** `value` in the field's place, the other bits 0 (the caller guarantees 0 <= value <= max). */
  place(value: number): number {
    return ((value << this.lsb) & this.mask) >>> 0;
  }
}

/**
 * A FieldSpec for `width` bits at `lsb` with access `access`: the one place where a field's
 * maximum and in-place mask are derived from its position.
 */
export function makeFieldSpec(
  name: string,
  lsb: number,
  width: number,
  access: AccessKind,
  inferred: boolean,
  values: { readonly [name: string]: number } | null = null,
): FieldSpec {
  const max = fieldMax(width);
  return new FieldSpec(
    name,
    lsb,
    width,
    max,
    (max << lsb) >>> 0,
    access,
    isReadableAccess(access),
    isWritableAccess(access),
    inferred,
    values,
  );
}

/** The arguments of `new FieldSpec(...)` for a field of the loaded model. */
export function fieldSpecArgs(f: FieldModel): ConstructorParameters<typeof FieldSpec> {
  return [
    f.name,
    f.lsb,
    f.width,
    f.max,
    f.mask >>> 0,
    f.access,
    f.readable,
    f.writable,
    f.inferred,
    f.enums.length ? Object.fromEntries(f.enums.map((e) => [e.name, e.value])) : null,
  ];
}

/** Prototype for name tables: no inherited names ('constructor', '__proto__' ... are unknown). */
const NO_NAMES: object = Object.freeze(Object.create(null) as object);

/** A compiled register layout, shared by every instance of the register (cached per RegisterMap). */
export class RegisterSpec {
  readonly fields: readonly FieldSpec[];
  /** Fields a read returns (RW, RO, W1C, RC). */
  readonly readFields: readonly FieldSpec[];
  /** Field by name; unknown names (including inherited ones) give undefined. */
  readonly byName: { readonly [name: string]: FieldSpec | undefined };
  readonly access: AccessKind;
  readonly readable: boolean;
  readonly writable: boolean;
  /** Readable and writable: modify (one read, one write) is meaningful. */
  readonly modifiable: boolean;
  readonly reset: number;
  /**
   * Bits whose read value must not be written back: WO and INC fields read as 0, W1C fields would
   * clear themselves. `modify` and `write` put 0 there unless the update names the field.
   */
  readonly volatileMask: number;
  /** What `write` starts from: the reset word without the volatile bits. */
  readonly writeBase: number;
  readonly inferred: boolean;
  readonly addressInferred: boolean;
  /** Scratch: the mask of the fields named by the last `encode` (read right after the call). */
  lastMask = 0;

  constructor(readonly map: RegisterMap) {
    const fields: FieldSpec[] = [];
    const byName = Object.create(NO_NAMES) as Record<string, FieldSpec>;
    let vol = 0;
    for (const [name, f] of Object.entries(map.fields)) {
      const spec = makeFieldSpec(name, f.lsb, f.width, f.access, f.inferred, f.values ?? null);
      fields.push(spec);
      byName[name] = spec;
      if (f.access === 'WO' || f.access === 'INC' || f.access === 'W1C') vol |= spec.mask;
    }
    this.fields = fields;
    this.readFields = fields.filter((f) => f.readable);
    this.byName = byName;
    this.access = map.access;
    this.readable = isReadableAccess(map.access);
    this.writable = isWritableAccess(map.access);
    this.modifiable = this.readable && this.writable;
    this.reset = map.reset >>> 0;
    // A whole-word WO/INC register (no fields) is volatile in every bit.
    if (fields.length === 0 && !this.readable) vol = 0xffffffff;
    this.volatileMask = vol >>> 0;
    this.writeBase = (this.reset & ~vol) >>> 0;
    this.inferred = map.inferred;
    this.addressInferred = map.addressInferred;
  }

  /**
   * Encodes the named fields of `update` and returns their bits in place; `lastMask` receives the
   * mask of the named fields. Validates everything before returning (nothing is written here).
   * `where` names the register in messages ("M2S_Q[3].dwrr_cfg_2").
   */
  encode(update: object, where: string): number {
    const table = this.byName;
    let m = 0;
    let v = 0;
    for (const k in update) {
      const x = (update as Record<string, unknown>)[k];
      if (x === undefined) continue;
      const f = table[k];
      if (f === undefined || !f.writable) this.badField(k, where);
      const fs = f as FieldSpec;
      const n =
        typeof x === 'number' && x >>> 0 === x && x <= fs.max ? x : fs.input(x, `${where}.${k}`);
      m |= fs.mask;
      v |= n << fs.lsb;
    }
    this.lastMask = m >>> 0;
    return v >>> 0;
  }

  private badField(name: string, where: string): never {
    const f = this.byName[name];
    if (f) {
      throw new NxdmaError(
        f.access === 'WO' ? 'REGISTER_WRITE_ONLY' : 'REGISTER_READ_ONLY',
        `${where}.${name} is ${f.access}: it cannot be written`,
        {
          where: `${where}.${name}`,
          expected: 'a writable field (RW, WO, W1C, INC)',
          actual: f.access,
        },
      );
    }
    const names = this.fields.filter((x) => x.writable).map((x) => x.name);
    throw new NxdmaError(
      'REGISTER_UNKNOWN',
      `${where} has no writable field '${name}'` +
        (names.length
          ? ` (fields: ${names.join(', ')})`
          : ' (it has no named fields; use writeRaw)'),
      { where, expected: names.length ? names.join(' | ') : 'no field', actual: name },
    );
  }

  /** The readable fields of `word` as a fresh plain object (readonly by type). */
  decode(word: number): Readonly<Record<string, number>> {
    const fs = this.readFields;
    const o: Record<string, number> = {};
    for (let i = 0; i < fs.length; i++) {
      const f = fs[i];
      o[f.name] = f.get(word);
    }
    return o;
  }

  /** The field `name` of `word`; throws when unknown or not readable. */
  field(word: number, name: string, where: string): number {
    const f = this.byName[name];
    if (f === undefined || !f.readable) {
      const names = this.readFields.map((x) => x.name);
      throw new NxdmaError(
        f ? 'REGISTER_WRITE_ONLY' : 'REGISTER_UNKNOWN',
        f
          ? `${where}.${name} is ${f.access}: it cannot be read`
          : `${where} has no readable field '${name}' (fields: ${names.join(', ') || 'none'})`,
        { where: `${where}.${name}`, expected: names.join(' | ') || 'no field', actual: name },
      );
    }
    return f.get(word);
  }
}

const specs = new WeakMap<RegisterMap, RegisterSpec>();

/** The compiled layout of a register map (built once per map object). */
export function registerSpec(map: RegisterMap): RegisterSpec {
  let s = specs.get(map);
  if (!s) {
    s = new RegisterSpec(map);
    specs.set(map, s);
  }
  return s;
}

/**
 * Encodes field values over `base` (default: the register's reset word): named fields replace
 * their bits, the others keep `base`'s. Throws FieldRangeError / NxdmaError before returning.
 */
export function encodeFields(
  reg: RegisterMap,
  values: Readonly<Record<string, number | string | undefined>>,
  base: number = reg.reset,
  where = 'register',
): number {
  const spec = registerSpec(reg);
  const v = spec.encode(values, where);
  return ((base & ~spec.lastMask) | v) >>> 0;
}

/** Every field of `word` (readable or not: this decodes a captured word, it does not read). */
export function decodeFields(reg: RegisterMap, word: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of registerSpec(reg).fields) out[f.name] = f.get(word);
  return out;
}

/** Checks a raw 32-bit word: an integer in 0..0xffffffff (negative int32 bit patterns are accepted). */
export function checkWord(value: unknown, where: string): number {
  if (typeof value !== 'number' || (value >>> 0 !== value && (value | 0) !== value)) {
    throw new FieldRangeError(where, 0xffffffff, 32, value);
  }
  return value >>> 0;
}

/** Field width in bits of a FieldMap (for tools that print "hi:lo"). */
export function fieldBits(f: FieldMap): string {
  return `${f.lsb + f.width - 1}:${f.lsb}`;
}
