/**
 * Resolved references to register fields, for the mock engine's hot path: the word index and bit
 * position of a field, taken from the loaded schema model by path ("M2S_Q[3].tdrl.len"). Reading
 * one is a shift and a mask on the register file's word array.
 */
import { NxdmaError } from '../common/errors.ts';
import { findField, getInstance, type RegFileModel } from '../csr/schema/model.ts';

export class FieldRef {
  /** Word index in the register file (byte offset / 4). */
  readonly word: number;
  /** Byte offset of the register. */
  readonly offset: number;
  readonly lsb: number;
  /** Largest value (2^width - 1). */
  readonly max: number;
  /** Bits of the field within the word. */
  readonly mask: number;
  /** "M2S_Q[3].tdrl.len". */
  readonly path: string;

  constructor(offset: number, lsb: number, max: number, mask: number, path: string) {
    this.offset = offset;
    this.word = offset >>> 2;
    this.lsb = lsb;
    this.max = max;
    this.mask = mask >>> 0;
    this.path = path;
  }

  get(words: Uint32Array): number {
    return (words[this.word] >>> this.lsb) & this.max;
  }

  isSet(words: Uint32Array): boolean {
    return (words[this.word] & this.mask) !== 0;
  }

  /** The field's bits of `value` in place (the rest 0). */
  place(value: number): number {
    return ((value << this.lsb) & this.mask) >>> 0;
  }

  /** Replaces the field in the stored word. */
  set(words: Uint32Array, value: number): void {
    const w = this.word;
    words[w] = ((words[w] & ~this.mask) | ((value << this.lsb) & this.mask)) >>> 0;
  }
}

/** The field at `path` ("block[i].register.field"); a schema without it is a programming error. */
export function fieldRef(model: RegFileModel, path: string): FieldRef {
  const f = findField(model, path);
  if (!f) {
    throw new NxdmaError(
      'REGISTER_UNKNOWN',
      `${model.name}: the mock needs field '${path}', which the schema lacks`,
      {
        where: `${model.name}:${path}`,
        expected: 'a field of the loaded schema',
        actual: path,
      },
    );
  }
  return new FieldRef(f.instance.offset, f.field.lsb, f.field.max, f.field.mask, path);
}

/** Byte offset of the register at `path` ("M2S_Q[3].status"). */
export function registerOffset(model: RegFileModel, path: string): number {
  return getInstance(model, path).offset;
}

/** Every field of the register at `path`, as references. */
export function fieldRefs(model: RegFileModel, path: string): FieldRef[] {
  const inst = getInstance(model, path);
  return inst.register.fields.map(
    (f) => new FieldRef(inst.offset, f.lsb, f.max, f.mask, `${path}.${f.name}`),
  );
}

/** The value of an enumerated field value by name, or `fallback` when the schema names none. */
export function enumValue(
  model: RegFileModel,
  path: string,
  name: string,
  fallback: number,
): number {
  const f = findField(model, path);
  const e = f?.field.enums.find((v) => v.name.toLowerCase() === name.toLowerCase());
  return e ? e.value : fallback;
}
