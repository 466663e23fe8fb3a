/**
 * `nxdma docs`: the register documentation, generated from the register schemas.
 *
 *   nxdma docs [--out DIR] [--format html,md] [--schema FILE...] [--profile NAME|none] [--json]
 *
 * Writes an offline HTML site (DIR/html/index.html: search by path, text or address, a bit-field
 * diagram and an encoder/decoder per register, the known gaps) and the same content as Markdown
 * (DIR/md/, diagrams as SVG files). The output is deterministic; files whose content did not
 * change are left untouched.
 */
import type { Command } from 'commander';
import { NxdmaError } from '../../common/errors.ts';
import {
  DOCS_FORMATS,
  buildDocs,
  parseFormats,
  writeDocs,
  type SearchUnit,
  type WriteReport,
} from '../../csr/docs/index.ts';
import { parseRegFile } from '../../csr/schema/loader.ts';
import { InputSet } from '../../common/files.ts';
import { REGISTER_WORDS, budgetLimit, checkBudget } from '../budgets.ts';
import { readJsonFile, withLocations } from '../input.ts';
import { regFiles } from '../../csr/schema/files.ts';
import type { RegFileModel } from '../../csr/schema/model.ts';
import { getProfile } from '../../csr/profiles.ts';
import type { CliContext } from '../main.ts';
import { phases } from '../progress.ts';

export const DEFAULT_DOCS_OUT = 'docs/site';

interface DocsCliOptions {
  out: string;
  format: string;
  schema?: string[];
  profile: string;
  title?: string;
  json?: boolean;
  maxRegisterWords?: string;
}

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 1;

/**
 * The register words a schema document expands to (register arrays and repeated bundles), read
 * from its JSON before the model is built, with the JSON path of the largest contributor.
 */
export function registerWordsOf(doc: unknown): { words: number; path: string } {
  const rf = (doc as { RegFile?: Record<string, unknown> } | null)?.RegFile;
  let words = 0;
  let most = 0;
  let path = '$.RegFile';
  const regs = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  regs(rf?.Registers).forEach((r, i) => {
    const n = count((r as { ArraySize?: unknown })?.ArraySize);
    words += n;
    if (n > most) [most, path] = [n, `$.RegFile.Registers[${i}].ArraySize`];
  });
  regs(rf?.RegistersBundleArrays).forEach((b, i) => {
    const per = regs((b as { Registers?: unknown })?.Registers).reduce<number>(
      (s, r) => s + count((r as { ArraySize?: unknown })?.ArraySize),
      0,
    );
    const n = per * count((b as { ArraySize?: unknown })?.ArraySize);
    words += n;
    if (n > most) [most, path] = [n, `$.RegFile.RegistersBundleArrays[${i}]`];
  });
  return { words, path };
}

/** Reads one --schema file: a regular file, JSON with line:column errors, within the budget. */
function loadSchema(file: string, limit: number, inputs: InputSet): RegFileModel {
  const input = readJsonFile(
    file,
    'register schema',
    'SCHEMA_INVALID',
    'a register-file JSON (csr/schemas/regfile.schema.json)',
    inputs,
    'SCHEMA_INVALID',
  );
  try {
    const size = registerWordsOf(input.json);
    checkBudget(REGISTER_WORDS, limit, size.words, `${file} ${size.path}`, size.path);
    return parseRegFile(input.json, file);
  } catch (e) {
    throw withLocations(e, input);
  }
}

/** What `nxdma docs --json` prints. */
export interface DocsJson extends WriteReport {
  /** The page to open, relative to `out` (html/index.html), or null without the html format. */
  readonly open: string | null;
}

/** Where the documented files sit in a UDMA unit of the profile (for unit-address search). */
function unitOf(profile: string, files: readonly RegFileModel[]): SearchUnit | null {
  if (profile === 'none') return null;
  const p = getProfile(profile);
  const windows = Object.entries(p.windows)
    .filter(([file]) => files.some((f) => f.name === file))
    .map(([file, w]) => ({ file, offset: w.offset }))
    .sort((a, b) => a.offset - b.offset);
  const groups = p.engineGroups.map((g) => ({
    first: g.first,
    count: g.count,
    base: g.base,
    stride: g.stride,
  }));
  return windows.length ? { name: p.name, windows, groups } : null;
}

function run(ctx: CliContext, opts: DocsCliOptions): void {
  // Validate everything before writing anything.
  const formats = parseFormats(opts.format);
  if (opts.out.trim() === '') {
    throw new NxdmaError('BAD_ARGUMENT', '--out must name a directory', {
      where: '--out',
      expected: 'a directory path',
      actual: opts.out,
    });
  }
  const limit = budgetLimit(REGISTER_WORDS, opts.maxRegisterWords);
  const inputs = new InputSet();
  const bar = phases({ label: 'docs', stream: ctx.out.errStream });
  let report: WriteReport;
  try {
    bar.phase('parse', 'schemas', opts.schema?.length ?? 1);
    const files = opts.schema?.length
      ? opts.schema.map((p, i) => {
          const m = loadSchema(p, limit, inputs);
          bar.update(i + 1, opts.schema!.length);
          return m;
        })
      : Object.values(regFiles());
    const unit = unitOf(opts.profile, files);
    // the whole site is rendered in memory before anything is written
    bar.phase('render');
    const build = buildDocs(files, { formats, unit, title: opts.title });
    bar.phase('write', 'files', build.files.length);
    report = writeDocs(build, opts.out, { inputs });
  } finally {
    bar.stop();
  }
  const open = formats.includes('html') ? 'html/index.html' : null;
  if (opts.json) {
    const json: DocsJson = { ...report, open };
    ctx.out.json(json);
    return;
  }
  const c = report.counts;
  ctx.out.log(
    `nxdma docs: ${report.files.length} files in ${report.out} (${report.written} written, ` +
      `${report.unchanged} unchanged)`,
  );
  ctx.out.log(
    `  ${c.registerFiles} register files, ${c.blocks} blocks, ${c.registers} registers ` +
      `(${c.words} words), ${c.fields} fields; known gaps: ${c.unplaced} unplaced, ` +
      `${c.inferredRegisters} registers with something inferred`,
  );
  for (const f of formats) {
    const n = report.files.filter((x) => x.format === f);
    const diagrams = n.filter((x) => x.kind === 'diagram').length;
    ctx.out.log(
      `  ${f}: ${n.length - diagrams} pages${diagrams ? `, ${diagrams} diagrams` : ''} in ${f}/`,
    );
  }
  if (report.stale.length) {
    ctx.out.log(
      `  not produced by this build (left in place): ${report.stale.slice(0, 8).join(', ')}` +
        (report.stale.length > 8 ? `, ... (${report.stale.length})` : ''),
    );
  }
  if (open) ctx.out.log(`Open ${report.out}/${open} in a browser (works offline).`);
}

const HELP = `
Example:
  $ nxdma docs
  $ nxdma docs --out site --format html
  $ nxdma docs --format md --json

Writes DIR/html/ (index.html, one page per register file, gaps.html; each page self-contained:
search by path, text or address such as 0x1084, a bit-field diagram and an encoder/decoder per
register) and DIR/md/ (the same content as Markdown, diagrams as svg/<file>/<register>.svg).
The same schemas give byte-identical files; unchanged files are not rewritten.

With --json: { out, formats, files: [{ path, format, kind, bytes, changed }], written,
unchanged, stale, counts: { registerFiles, blocks, registers, words, fields, enumeratedValues,
unplaced, inferredRegisters, inferredFields }, open }.`;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('docs')
    .description('generate the register documentation: offline HTML site and Markdown')
    .option('--out <dir>', 'output directory', DEFAULT_DOCS_OUT)
    .option('--format <list>', `comma-separated formats: ${DOCS_FORMATS.join(',')}`, 'html,md')
    .option(
      '--schema <file...>',
      'document these register schema files instead of the shipped csr/schemas/*.json',
    )
    .option(
      '--profile <name>',
      "device profile whose UDMA unit layout the address search also reads ('none': off)",
      'trn2',
    )
    .option('--title <text>', 'heading of the site (default "nxdma registers")')
    .option(
      `${REGISTER_WORDS.option} <n>`,
      `refuse a --schema file that expands to more register words than this (default ${REGISTER_WORDS.defaultLimit})`,
    )
    .option('--json', 'machine-readable report of the files written')
    .addHelpText('after', HELP)
    .action((opts: DocsCliOptions) => run(ctx, opts));
}
