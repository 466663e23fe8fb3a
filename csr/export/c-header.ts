/**
 * A C header (C99 and later, C++ too) of the register files: plain macros, no types.
 *
 * Per file F (upper case: UDMA_M2S): F_BASE (0, or the engine's BAR0 offset of the window) and
 * F_SIZE. Per block B: F_B_BASE (offset of instance 0 in the file) and, for a repeated bundle,
 * F_B_COUNT and F_B_STRIDE. Per register R (P = F_B_R, or F_R at top level):
 *
 *   P_OFFSET       offset inside the block instance (the schema's AddressOffset)
 *   P_COUNT, P_STRIDE          for a register array
 *   P_ADDR, P_ADDR(i), P_ADDR(i, j)   F_BASE + the word's offset in the file (i: block
 *                  instance, j: array entry)
 *   P_RESET_VALUE  reset word (unknown field resets count as 0)
 *   P_RESET_KNOWN  bits of P_RESET_VALUE that a source states
 *   P_INFERRED     1 when anything about the register is inferred (never write it to hardware
 *                  without a reason), else 0
 *
 * Per field D of P (a whole-word register has one field VALUE over bits 31:0): P_D_SHIFT,
 * P_D_WIDTH, P_D_MASK (in place), P_D_RESET (not shifted), and per enumerated value E:
 * P_D_VAL_E. Every register's comment gives its access and its provenance tag.
 *
 * Two schema names that would give the same macro are refused (SCHEMA_INVALID), never emitted.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { BlockModel, RegisterModel } from '../schema/model.ts';
import {
  GENERATOR,
  checkAddress,
  doorbellNote,
  exportFields,
  fieldProvenanceTag,
  registerProvenanceTag,
  type ExportFile,
  type ExportTarget,
} from './common.ts';

/** The macro stem of schema names: upper case, joined with '_'. */
export function macroName(...parts: string[]): string {
  return parts.map((p) => p.toUpperCase()).join('_');
}

/** An unsigned 32-bit C constant: 0x00001084u. */
export function cHex(n: number, width = 0): string {
  return `${hex(checkAddress(n, 'constant'), width)}u`;
}

/** Text safe inside a C block comment (no comment end, no line break, ASCII or UTF-8 kept). */
function commentText(s: string): string {
  return s.replace(/\*\//g, '* /').replace(/\/\*/g, '/ *').replace(/\s+/g, ' ').trim();
}

class Lines {
  readonly out: string[] = [];
  private readonly defined = new Map<string, string>();

  define(name: string, value: string, where: string, comment?: string): void {
    const id = name.replace(/\(.*$/, '');
    const before = this.defined.get(id);
    if (before !== undefined) {
      throw new NxdmaError(
        'SCHEMA_INVALID',
        `C header: ${where} and ${before} both give the macro ${id}`,
        { where, expected: 'schema names whose C macros differ', actual: id },
      );
    }
    this.defined.set(id, where);
    const c = comment ? ` /* ${commentText(comment)} */` : '';
    this.out.push(`#define ${name} ${value}${c}`);
  }

  comment(text: string): void {
    this.out.push(`/* ${commentText(text)} */`);
  }

  blank(): void {
    this.out.push('');
  }
}

function registerMacros(
  l: Lines,
  f: ExportFile,
  block: BlockModel | null,
  reg: RegisterModel,
): void {
  const file = f.model.name;
  const fm = macroName(file);
  const p = block ? macroName(file, block.name, reg.name) : macroName(file, reg.name);
  const where = `${file}:${block ? block.name + '.' : ''}${reg.name}`;
  const door = doorbellNote(reg);
  l.comment(
    `${block ? block.name + (block.indexed ? `[${block.arraySize}]` : '') + '.' : ''}${reg.name}` +
      `${reg.array ? `[${reg.array.size}]` : ''} (${reg.access}) ${reg.description}` +
      `${door ? ' ' + door : ''} ${registerProvenanceTag(reg)}`,
  );
  l.define(`${p}_OFFSET`, cHex(reg.offset), where);
  if (reg.array) {
    l.define(`${p}_COUNT`, `${reg.array.size}u`, where);
    l.define(`${p}_STRIDE`, cHex(reg.array.stride), where);
  }
  const blockBase = block ? `${macroName(file, block.name)}_BASE` : null;
  const terms = [`${fm}_BASE`];
  if (blockBase) terms.push(blockBase);
  const params: string[] = [];
  if (block?.indexed) {
    params.push('i');
    terms.push(`(i) * ${macroName(file, block.name)}_STRIDE`);
  }
  terms.push(`${p}_OFFSET`);
  if (reg.array) {
    params.push('j');
    terms.push(`(j) * ${p}_STRIDE`);
  }
  l.define(
    params.length ? `${p}_ADDR(${params.join(', ')})` : `${p}_ADDR`,
    `(${terms.join(' + ')})`,
    `${where} address`,
  );
  l.define(`${p}_RESET_VALUE`, cHex(reg.reset, 8), where);
  l.define(`${p}_RESET_KNOWN`, cHex(reg.resetKnownMask, 8), where);
  l.define(`${p}_INFERRED`, reg.inferred ? '1' : '0', where);
  for (const fd of exportFields(reg)) {
    const d = `${p}_${macroName(fd.name)}`;
    const fw = `${where}.${fd.name}`;
    l.define(
      `${d}_SHIFT`,
      `${fd.lsb}u`,
      fw,
      `bits ${fd.msb}:${fd.lsb} ${fd.access}${fd.resetKnown ? '' : ', reset unknown'} ${fieldProvenanceTag(fd)}`,
    );
    l.define(`${d}_WIDTH`, `${fd.width}u`, fw);
    l.define(`${d}_MASK`, cHex(fd.mask, 8), fw);
    l.define(`${d}_RESET`, cHex(fd.reset), fw);
    for (const e of fd.enums) {
      l.define(`${d}_VAL_${macroName(e.name)}`, cHex(e.value), `${fw}=${e.name}`, e.description);
    }
  }
  l.blank();
}

export function exportCHeader(target: ExportTarget): string {
  const l = new Lines();
  const guard = `${macroName(target.name)}_REGS_H`;
  l.comment(
    `Register map of ${target.files.map((f) => f.model.name).join(', ')}. Generated by ` +
      `${GENERATOR.name} ${GENERATOR.version} (nxdma regs export --format c-header) from the ` +
      `register schemas; do not edit. ${target.addressing}`,
  );
  l.out.push(`#ifndef ${guard}`, `#define ${guard}`, '');
  for (const f of target.files) {
    const m = f.model;
    const fm = macroName(m.name);
    l.comment(`${m.name}: ${m.description} (schema ${m.source}; base: ${f.baseOf})`);
    l.define(`${fm}_BASE`, cHex(f.base, 8), m.name);
    l.define(`${fm}_SIZE`, cHex(m.size, 8), m.name);
    l.blank();
    for (const b of m.blocks) {
      const bm = macroName(m.name, b.name);
      l.comment(
        `block ${b.name}${b.indexed ? `[${b.arraySize}]` : ''}: ${b.description} ` +
          `[provenance: ${b.provenance}${b.provenanceNote ? ': ' + b.provenanceNote : ''}]`,
      );
      l.define(`${bm}_BASE`, cHex(b.base), `${m.name}:${b.name}`);
      if (b.indexed) {
        l.define(`${bm}_COUNT`, `${b.arraySize}u`, `${m.name}:${b.name}`);
        l.define(`${bm}_STRIDE`, cHex(b.stride), `${m.name}:${b.name}`);
      }
      l.blank();
      for (const r of b.registers) registerMacros(l, f, b, r);
    }
    for (const r of m.registers) registerMacros(l, f, null, r);
  }
  l.out.push(`#endif /* ${guard} */`);
  return l.out.join('\n') + '\n';
}
