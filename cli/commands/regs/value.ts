/**
 * A register word and its decoded fields as `nxdma regs read/write/dump/decode` print them: the
 * record (`RegsValue`, what --json prints), the one rule that decodes a field of a word
 * (`fieldOfWord`) and the text form (`printValue`). Both ways of finding a register (the schema
 * model, words.ts; the generated typed map, decode.ts) describe its words through here.
 */
import { hex } from '../../../common/errors.ts';
import { fieldValue } from '../../../csr/runtime/fields.ts';
import type { CliContext } from '../../main.ts';

/** One decoded field as `regs read/write/dump/decode --json` print it. */
export interface RegsFieldValue {
  name: string;
  /** "hi:lo". */
  bits: string;
  access: string;
  value: number;
  /** The enumerated name of the value, when the field has names and the value is one. */
  enum?: string;
  inferred: boolean;
}

/** One register word and its value as `regs read/dump/decode --json` print it. */
export interface RegsValue {
  file: string;
  path: string;
  offset: number;
  access: string;
  inferred: boolean;
  /** The word; null when the register cannot be read (WO, INC). */
  value: number | null;
  fields: RegsFieldValue[];
}

/**
 * Field `f` of `word`; `enumName` gives the field's name for a value (undefined when it has none
 * or the value is not one).
 */
export function fieldOfWord(
  f: { name: string; lsb: number; width: number; access: string; inferred: boolean },
  word: number,
  enumName: (value: number) => string | undefined,
): RegsFieldValue {
  const value = fieldValue(word, f);
  const out: RegsFieldValue = {
    name: f.name,
    bits: `${f.lsb + f.width - 1}:${f.lsb}`,
    access: f.access,
    value,
    inferred: f.inferred,
  };
  const e = enumName(value);
  if (e !== undefined) out.enum = e;
  return out;
}

export function printValue(ctx: CliContext, v: RegsValue, suffix = ''): void {
  const word = v.value === null ? `(${v.access}: not readable)` : hex(v.value, 8);
  ctx.out.log(`${v.file} ${v.path} @ ${hex(v.offset)} = ${word}${suffix}`);
  for (const f of v.fields) {
    ctx.out.log(
      `  ${f.name.padEnd(28)} [${f.bits.padStart(5)}] = ${String(f.value).padStart(10)}  ${hex(f.value)}` +
        (f.enum ? `  ${f.enum}` : '') +
        (f.inferred ? '  (inferred)' : ''),
    );
  }
}
