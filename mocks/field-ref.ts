/**
 * Resolved references to register fields, for the mock engine's hot path: the word index and bit
 * position of a field, taken from the loaded schema model by path ("M2S_Q[3].tdrl.len"). Reading
 * one is a shift and a mask on the register file's word array.
 */
import { FieldSpec, fieldSpecArgs } from '../csr/runtime/fields.ts';
import {
  findField,
  getField,
  getInstance,
  type FieldModel,
  type RegFileModel,
} from '../csr/schema/model.ts';

/**
 * A field of a register file resolved for the engine's hot path: the csr runtime's FieldSpec
 * (position, `get` / `place` on a word) plus the word it lives in, read and written in place in
 * the register file's word array.
 */
export class FieldRef extends FieldSpec {
  /** Word index in the register file (byte offset / 4). */
  readonly word: number;
  /** Byte offset of the register. */
  readonly offset: number;
  /** "M2S_Q[3].tdrl.len". */
  readonly path: string;

  constructor(offset: number, field: FieldModel, path: string) {
    super(...fieldSpecArgs(field));
    this.offset = offset;
    this.word = offset >>> 2;
    this.path = path;
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

/** The field at `path` ("block[i].register.field"); a schema without it is a programming error. */
export function fieldRef(model: RegFileModel, path: string): FieldRef {
  const f = getField(model, path);
  return new FieldRef(f.instance.offset, f.field, path);
}

/** Byte offset of the register at `path` ("M2S_Q[3].status"). */
export function registerOffset(model: RegFileModel, path: string): number {
  return getInstance(model, path).offset;
}

/** Every field of the register at `path`, as references. */
export function fieldRefs(model: RegFileModel, path: string): FieldRef[] {
  const inst = getInstance(model, path);
  return inst.register.fields.map((f) => new FieldRef(inst.offset, f, `${path}.${f.name}`));
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
