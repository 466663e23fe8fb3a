/**
 * Resolved references to register fields, for the mock engine's hot path: the word index and bit
 * position of a field, taken from the loaded schema model by path ("M2S_Q[3].tdrl.len") as the
 * csr resolved-register vocabulary (csr/runtime/resolved.ts). Reading one is a shift and a mask
 * on the register file's word array.
 */
import { resolveField, resolvedFields, type ResolvedField } from '../csr/runtime/resolved.ts';
import { findField, getInstance, type RegFileModel } from '../csr/schema/model.ts';

/**
 * A field of a register file resolved for the engine's hot path: the csr resolved-register
 * vocabulary's field (position, `get` / `place` on a word) plus the word it lives in, read and
 * written in place in the register file's word array (`read`, `bits`, `isSet`, `write`).
 */
export type FieldRef = ResolvedField;

/** The field at `path` ("block[i].register.field"); a schema without it is a programming error. */
export function fieldRef(model: RegFileModel, path: string): FieldRef {
  return resolveField(model, path);
}

/** Byte offset of the register at `path` ("M2S_Q[3].status"). */
export function registerOffset(model: RegFileModel, path: string): number {
  return getInstance(model, path).offset;
}

/** Every field of the register at `path`, as references. */
export function fieldRefs(model: RegFileModel, path: string): FieldRef[] {
  return [...resolvedFields(model, path)];
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
