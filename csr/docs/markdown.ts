/**
 * The Markdown edition: the same content as the HTML site (index, one file per register file,
 * known gaps) as tables, with each register's bit-field diagram written as an SVG file under
 * svg/<register file>/ and linked. Schema text goes through escapeMarkdown (HTML-escaped, Markdown
 * syntax backslash-escaped) and names through markdownCode.
 */
import { hex } from '../../common/errors.ts';
import type { BlockModel, Provenance, RegFileModel, RegisterModel } from '../schema/model.ts';
import {
  ACCESS_TITLES,
  bitsText,
  blockAnchor,
  gapAnchor,
  hexWord,
  mdPage,
  pageRegisters,
  placement,
  registerAnchor,
  svgPath,
  valueText,
} from './data.ts';
import { registerDiagram } from './diagram.ts';
import { escapeHtml, escapeMarkdown as m, markdownCode as c } from './escape.ts';
import { gapsSummary, type DocsSite } from './site.ts';

function prov(p: Provenance): string {
  return p === 'inferred' ? '**inferred**' : p;
}

function anchorTag(id: string): string {
  return `<a id="${escapeHtml(id)}"></a>`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '_None._\n';
  return (
    `| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n` +
    rows.map((r) => `| ${r.map((x) => (x === '' ? ' ' : x)).join(' | ')} |`).join('\n') +
    '\n'
  );
}

function blockName(b: BlockModel): string {
  return b.indexed ? `${b.name}[${b.arraySize}]` : b.name;
}

function legend(): string {
  return (
    'Provenance: `seed` stated in the seed schema; `public` stated in the public Linux driver; ' +
    '**inferred** our reading by analogy, unverified (tools never write it to hardware without an ' +
    'explicit opt-in).\n'
  );
}

function renderIndex(site: DocsSite): string {
  const k = site.counts;
  const out: string[] = [
    `# ${m(site.title)}\n`,
    `${k.registerFiles} register files, ${k.blocks} blocks, ${k.registers} registers (${k.words} words), ` +
      `${k.fields} fields. Offsets are bytes from the start of each register file's window.\n`,
    legend(),
  ];
  for (const f of site.files) {
    const page = mdPage(f);
    out.push(`## [${m(f.name)}](${page})\n`, `${m(f.description)}\n`);
    out.push(
      `Window ${c(hex(f.size))} bytes · ${f.blocks.length} blocks · ${pageRegisters(f).length} registers · ` +
        `${f.instances.length} words · from ${c(f.source)}\n`,
    );
    if (f.blocks.length) {
      out.push(
        table(
          ['Block', 'Base', 'Instances', 'Last byte', 'Registers', 'Base source', 'Description'],
          f.blocks.map((b) => [
            `[${c(blockName(b))}](${page}#${blockAnchor(b)})`,
            c(hex(b.base)),
            b.indexed ? `${b.arraySize} × ${c(hex(b.stride))}` : '1',
            c(hex(b.base + b.arraySize * b.stride - 1)),
            String(b.registers.length),
            prov(b.provenance),
            m(b.description),
          ]),
        ),
      );
    }
    if (f.registers.length) {
      out.push(
        table(
          ['Register', 'Offset', 'Entries', 'Access', 'Source', 'Description'],
          f.registers.map((r) => [
            `[${c(r.name)}](${page}#${registerAnchor(r)})`,
            c(hex(r.offset)),
            r.array ? `${r.array.size} × ${c(hex(r.array.stride))}` : '1',
            r.access,
            prov(r.provenance),
            m(r.description),
          ]),
        ),
      );
    }
  }
  if (site.unit) {
    out.push(
      `## UDMA unit layout (${m(site.unit.name)})\n`,
      table(
        ['Register file', 'Offset in the unit'],
        site.unit.windows.map((w) => [c(w.file), c(hex(w.offset))]),
      ),
    );
  }
  const g = site.gaps;
  out.push(`## [Known gaps](gaps.md)\n`, `${m(gapsSummary(g))}\n`);
  return out.join('\n');
}

function resetText(reg: RegisterModel): string {
  const word = c(hexWord(reg.reset));
  if (reg.fields.length === 0) return reg.resetKnown ? word : 'unknown (0 assumed)';
  if (reg.resetKnown) return word;
  const known = reg.fields.filter((f) => f.resetKnown).map((f) => c(f.name));
  const unknown = reg.fields.filter((f) => !f.resetKnown).map((f) => c(f.name));
  if (known.length === 0) return `unknown (${word} assumed)`;
  return `${word} (stated for ${known.join(', ')}; unknown, shown as 0: ${unknown.join(', ')})`;
}

function addressText(file: RegFileModel, reg: RegisterModel): string {
  const p = placement(file, reg);
  if (p.words === 1) return c(hex(p.first));
  const terms = [c(hex(p.first))];
  const ranges: string[] = [];
  if (p.instances > 1) {
    terms.push(`i × ${c(hex(p.blockStride))}`);
    ranges.push(`i = 0..${p.instances - 1}`);
  }
  if (p.entries > 1) {
    terms.push(`k × ${c(hex(p.entryStride))}`);
    ranges.push(`k = 0..${p.entries - 1}`);
  }
  return `${terms.join(' + ')}, ${ranges.join(', ')} (${p.words} words, last ${c(hex(p.last))})`;
}

function registerSection(file: RegFileModel, reg: RegisterModel): string {
  const anchor = registerAnchor(reg);
  const block = reg.block === null ? null : file.blocks.find((b) => b.name === reg.block);
  const props: string[][] = [
    [
      'Offset',
      `${c(hex(reg.offset))} in ${block ? c(block.name) : 'the window'}` +
        (reg.array ? `, ${reg.array.size} entries × ${c(hex(reg.array.stride))}` : ''),
    ],
    ['Address', addressText(file, reg)],
    ['Access', `${reg.access} (${m(ACCESS_TITLES[reg.access])})`],
    ['Reset', resetText(reg)],
    [
      'Provenance',
      reg.sources.map(prov).join(', ') +
        (reg.ownProvenance && reg.sources.length > 1
          ? `; placement: ${prov(reg.ownProvenance)}`
          : '') +
        (reg.provenanceNote ? `. ${m(reg.provenanceNote)}` : '') +
        (block?.provenanceNote ? ` Block base: ${m(block.provenanceNote)}` : ''),
    ],
  ];
  if (reg.inferred) {
    props.push([
      'Inferred',
      `${reg.inferredReasons.map((x) => m(x)).join(', ')} (unverified: not written to hardware without an explicit opt-in)`,
    ]);
  }
  if (reg.incrementTarget) {
    const t = reg.incrementTarget;
    const target = reg.block === null ? t.register : `${reg.block}.${t.register}`;
    props.push([
      'Doorbell',
      `a write adds its value to [${c(`${t.register}.${t.field}`)}](#${target})`,
    ]);
  }
  const out: string[] = [
    `${anchorTag(anchor)}\n### ${c(anchor)}\n`,
    `${m(reg.description)}\n`,
    table(['Property', 'Value'], props),
    `![${m(`${anchor} bit fields`)}](${svgPath(file, reg)})\n`,
  ];
  if (reg.fields.length === 0) {
    out.push('No fields known: the register is documented as one 32-bit word.\n');
  } else {
    out.push(
      table(
        ['Bits', 'Field', 'Access', 'Reset', 'Source', 'Description'],
        reg.fields.map((f) => [
          bitsText(f.msb, f.lsb),
          `${anchorTag(`${anchor}.${f.name}`)}${c(f.name)}`,
          f.access,
          f.resetKnown ? c(valueText(f.reset)) : 'unknown',
          prov(f.provenance),
          m(f.description) + (f.provenanceNote ? ` (Source: ${m(f.provenanceNote)})` : ''),
        ]),
      ),
    );
    const enums = reg.fields.flatMap((f) =>
      f.enums.map((v) => [c(f.name), c(valueText(v.value)), c(v.name), m(v.description)]),
    );
    if (enums.length) {
      out.push('Enumerated values:\n', table(['Field', 'Value', 'Name', 'Description'], enums));
    }
  }
  return out.join('\n');
}

function renderFile(site: DocsSite, file: RegFileModel): string {
  const out: string[] = [
    `# ${m(file.name)}\n`,
    `${m(file.description)}\n`,
    `Window ${c(hex(file.size))} bytes (${file.size}) · ${file.blocks.length} blocks · ` +
      `${pageRegisters(file).length} registers · ${file.instances.length} words · from ${c(file.source)}. ` +
      `[Index](index.md) · [Known gaps](gaps.md)\n`,
    legend(),
  ];
  const toc = [
    ...file.blocks.map(
      (b) =>
        `- [${c(blockName(b))}](#${blockAnchor(b)}): ` +
        b.registers.map((r) => `[${c(r.name)}](#${registerAnchor(r)})`).join(', '),
    ),
    ...(file.registers.length
      ? [
          `- [Registers](#registers): ` +
            file.registers.map((r) => `[${c(r.name)}](#${registerAnchor(r)})`).join(', '),
        ]
      : []),
  ];
  out.push(toc.join('\n') + '\n');
  for (const b of file.blocks) {
    const end = b.base + b.arraySize * b.stride - 1;
    out.push(
      `${anchorTag(blockAnchor(b))}\n## Block ${c(blockName(b))}\n`,
      `${m(b.description)}\n`,
      `Base ${c(hex(b.base))}` +
        (b.indexed
          ? `, ${b.arraySize} instances, stride ${c(hex(b.stride))} (${c(hex(b.base))} … ${c(hex(end))})`
          : ` … ${c(hex(end))}`) +
        `; base source: ${prov(b.provenance)}` +
        (b.provenanceNote ? ` (${m(b.provenanceNote)})` : '') +
        '\n',
    );
    for (const r of b.registers) out.push(registerSection(file, r));
  }
  if (file.registers.length) {
    out.push(`${anchorTag('registers')}\n## Registers\n`);
    for (const r of file.registers) out.push(registerSection(file, r));
  }
  return out.join('\n');
}

function regLink(file: RegFileModel, reg: RegisterModel, field?: string): string {
  const a = registerAnchor(reg) + (field ? `.${field}` : '');
  return `[${c(`${file.name}:${a}`)}](${mdPage(file)}#${a})`;
}

function renderGaps(site: DocsSite): string {
  const g = site.gaps;
  return [
    `# Known gaps\n`,
    'What the register map does not know for sure: registers a source says exist but does not ' +
      'place, addresses and fields that are our own reading by analogy (tools refuse to write them ' +
      'to real hardware without an explicit opt-in), registers with no known fields and reset ' +
      'values no source states. [Index](index.md)\n',
    `## Known to exist, no known offset\n`,
    table(
      ['Register file', 'Block', 'Name', 'Source', 'What is known'],
      g.unplaced.map((u) => [
        `${anchorTag(gapAnchor(u.file, u.gap.block, u.gap.name))}[${c(u.file.name)}](${mdPage(u.file)})`,
        u.gap.block === null ? '' : c(u.gap.block),
        c(u.gap.name),
        prov(u.gap.provenance),
        m(u.gap.description),
      ]),
    ),
    `## Registers with something inferred\n`,
    table(
      ['Register', 'Address', 'What is inferred', 'Notes'],
      g.inferredRegisters.map(({ file, reg }) => [
        regLink(file, reg),
        c(hex(placement(file, reg).first)) + (reg.addressInferred ? ' (address inferred)' : ''),
        reg.inferredReasons.map((x) => m(x)).join(', '),
        [
          reg.provenanceNote,
          reg.block === null ? null : file.blocks.find((b) => b.name === reg.block)?.provenanceNote,
        ]
          .filter((x): x is string => Boolean(x))
          .map((x) => m(x))
          .join(' '),
      ]),
    ),
    `## Inferred fields\n`,
    table(
      ['Field', 'Bits', 'Description', 'What the sources state'],
      g.inferredFields.map(({ file, reg, field }) => [
        regLink(file, reg, field.name),
        bitsText(field.msb, field.lsb),
        m(field.description),
        m(field.provenanceNote ?? ''),
      ]),
    ),
    `## Registers without known fields\n`,
    table(
      ['Register', 'Access', 'Source', 'Description'],
      g.wholeWord.map(({ file, reg }) => [
        regLink(file, reg),
        reg.access,
        prov(reg.provenance),
        m(reg.description),
      ]),
    ),
    `## Reset values no source states\n`,
    table(
      ['Register', 'Fields with an unknown reset (shown as 0)'],
      g.resetUnknown.map(({ file, reg, fields }) => [
        regLink(file, reg),
        fields.length ? fields.map((f) => c(f.name)).join(', ') : 'the whole word',
      ]),
    ),
  ].join('\n');
}

/** Every Markdown file and diagram: [relative path, content], in a fixed order. */
export function renderMarkdown(site: DocsSite): [string, string][] {
  const out: [string, string][] = [['index.md', renderIndex(site)]];
  for (const f of site.files) {
    out.push([mdPage(f), renderFile(site, f)]);
    for (const r of pageRegisters(f)) {
      out.push([svgPath(f, r), registerDiagram(r, `${registerAnchor(r)} bit fields`) + '\n']);
    }
  }
  out.push(['gaps.md', renderGaps(site)]);
  return out;
}
