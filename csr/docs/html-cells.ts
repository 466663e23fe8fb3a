/**
 * The cells and tables of a register's section on the HTML pages: provenance and access badges,
 * the reset and address cells, the field and enumerated-value tables. Everything taken from a
 * schema goes through escapeHtml.
 */
import { hex } from '../../common/errors.ts';
import type {
  AccessKind,
  FieldModel,
  Provenance,
  RegFileModel,
  RegisterModel,
} from '../schema/model.ts';
import {
  ACCESS_TITLES,
  PROVENANCE_TITLES,
  bitsText,
  hexWord,
  placement,
  registerAnchor,
  valueText,
} from './data.ts';
import { escapeHtml as e } from './escape.ts';

export function provBadge(p: Provenance): string {
  return `<span class="badge prov-${e(p)}" title="${e(PROVENANCE_TITLES[p])}">${e(p)}</span>`;
}

export function accessBadge(a: AccessKind): string {
  return `<span class="badge acc" title="${e(ACCESS_TITLES[a])}">${e(a)}</span>`;
}

export function code(text: string | number): string {
  return `<code>${e(text)}</code>`;
}

export function resetCell(reg: RegisterModel): string {
  const word = code(hexWord(reg.reset));
  if (reg.fields.length === 0) {
    return reg.resetKnown ? word : `unknown <span class="note">(0 assumed)</span>`;
  }
  if (reg.resetKnown) return word;
  const known = reg.fields.filter((f) => f.resetKnown).map((f) => code(f.name));
  const unknown = reg.fields.filter((f) => !f.resetKnown).map((f) => code(f.name));
  if (known.length === 0) return `unknown <span class="note">(${word} assumed)</span>`;
  return `${word} <span class="note">(stated for ${known.join(', ')}; unknown, shown as 0: ${unknown.join(', ')})</span>`;
}

export function addressCell(file: RegFileModel, reg: RegisterModel): string {
  const p = placement(file, reg);
  if (p.words === 1) return code(hex(p.first));
  const terms: string[] = [code(hex(p.first))];
  if (p.instances > 1) terms.push(`i × ${code(hex(p.blockStride))}`);
  if (p.entries > 1) terms.push(`k × ${code(hex(p.entryStride))}`);
  const ranges: string[] = [];
  if (p.instances > 1) ranges.push(`i = 0..${p.instances - 1}`);
  if (p.entries > 1) ranges.push(`k = 0..${p.entries - 1}`);
  const options = file.instances
    .filter((i) => i.register === reg)
    .map(
      (i) => `<option value="${e(i.path)}" data-offset="${e(hex(i.offset))}">${e(i.path)}</option>`,
    )
    .join('');
  return (
    `${terms.join(' + ')}, ${ranges.join(', ')} <span class="note">(${p.words} words, last ${code(hex(p.last))})</span><br>` +
    `<select class="inst" aria-label="word of ${e(registerAnchor(reg))}">${options}</select> at ` +
    `<code class="abs">${e(hex(p.first))}</code>`
  );
}

export function enumTable(f: FieldModel): string {
  if (f.enums.length === 0) return '';
  return (
    `<table class="enums"><tbody>` +
    f.enums
      .map(
        (v) =>
          `<tr><td>${code(valueText(v.value))}</td><td>${code(v.name)}</td><td>${e(v.description)}</td></tr>`,
      )
      .join('') +
    `</tbody></table>`
  );
}

export function fieldTable(reg: RegisterModel): string {
  if (reg.fields.length === 0) {
    return `<p class="note">No fields known: the register is documented as one 32-bit word.</p>`;
  }
  const anchor = registerAnchor(reg);
  const rows = reg.fields
    .map(
      (f) =>
        `<tr id="${e(`${anchor}.${f.name}`)}" data-field-row="${e(f.name)}"${f.inferred ? ' class="inferred"' : ''}>` +
        `<td class="bits">${e(bitsText(f.msb, f.lsb))}</td><td>${code(f.name)}</td>` +
        `<td>${accessBadge(f.access)}</td>` +
        `<td class="rst">${f.resetKnown ? e(valueText(f.reset)) : '<span class="note">unknown</span>'}</td>` +
        `<td>${provBadge(f.provenance)}</td>` +
        `<td>${e(f.description)}` +
        (f.provenanceNote ? `<div class="note">Source: ${e(f.provenanceNote)}</div>` : '') +
        enumTable(f) +
        `</td></tr>`,
    )
    .join('');
  return (
    `<table class="fields"><thead><tr><th>Bits</th><th>Field</th><th>Access</th><th>Reset</th>` +
    `<th>Source</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}
