/** The accessor runtime: bind maps to a RegisterIO; plain, tracing and shadowing RegisterIOs. */
export { bindRegFile, registerAt, makeIndexed, RegisterHandle } from './accessor.ts';
export type { BindOptions, HandleOptions } from './accessor.ts';
export {
  FieldRangeError,
  FieldSpec,
  checkWord,
  decodeFields,
  encodeFields,
  fieldBits,
  fieldSpecArgs,
  fieldValue,
  placeField,
  registerSpec,
} from './fields.ts';
export { ArrayRegisterIO, PLAIN_WORDS, plainWords, resetImage } from './memory.ts';
export { ShadowIO } from './shadow.ts';
export type { ShadowPolicy, ShadowStats } from './shadow.ts';
export { TracingIO, formatTrace } from './tracing.ts';
export type { TraceEntry, TracingOptions } from './tracing.ts';
export type * from './types.ts';
