/**
 * `nxdma regs export`: the register files in the interchange formats firmware and EDA tools read.
 *
 *   nxdma regs export --format svd|ipxact|c-header [--file F...] [--profile trn2 --engine N]
 *                     [--out FILE] [--json]
 *
 * Without --out the export goes to stdout (with --json: inside the JSON document, as `content`).
 * With --out it is written atomically by common/files.ts (a temporary file in the same folder,
 * then a rename): an existing FILE is replaced whole or not at all, a symbolic link or anything
 * but a regular file is refused, and so is a register schema the export is made from.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ExportCounts } from '../../csr/export/common.ts';
import { EXPORT_FORMATS, type ExportFormat } from '../../csr/export/formats.ts';
import { REGFILE_NAMES, schemaPath, type RegFileName } from '../../csr/schema/names.ts';
import { hex } from '../../common/errors.ts';
import type { CliContext } from '../main.ts';
import { badArg } from '../input.ts';
import { uintOption } from '../options.ts';

interface ExportCliOptions {
  format?: string;
  file?: string[];
  profile?: string;
  engine?: string;
  out?: string;
  json?: boolean;
}

/** What `nxdma regs export --json` prints. */
export interface RegsExportJson {
  /** The interchange format (`format` is the version of the JSON document itself). */
  readonly exportFormat: ExportFormat;
  /** The file written, or null when the export is in `content`. */
  readonly out: string | null;
  readonly bytes: number;
  readonly profile: string | null;
  readonly engine: number | null;
  readonly files: readonly { readonly name: string; readonly base: number }[];
  readonly counts: ExportCounts;
  /** The export itself when no --out was given. */
  readonly content?: string;
}

async function run(ctx: CliContext, opts: ExportCliOptions): Promise<void> {
  if (opts.format === undefined) {
    throw badArg('--format', '--format is required', EXPORT_FORMATS.join(' | '));
  }
  const files = opts.file
    ?.flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter(Boolean);
  // the exporters load only when `regs export` runs (the other regs commands start faster)
  const [{ exportRegisters }, { InputSet, writeOutputFile }] = await Promise.all([
    import('../../csr/export/index.ts'),
    import('../../common/files.ts'),
  ]);
  const result = exportRegisters(opts.format, {
    files,
    profile: opts.profile,
    engine: uintOption(opts.engine, '--engine', { what: 'an engine id' }),
  });
  const { target } = result;
  const inputs = new InputSet();
  for (const f of target.files) inputs.add(schemaPath(f.model.name as RegFileName));
  let written: string | null = null;
  if (opts.out !== undefined) {
    writeOutputFile(opts.out, result.content, { inputs, option: '--out' });
    written = resolve(opts.out);
  }
  const bytes = Buffer.byteLength(result.content, 'utf8');
  if (opts.json) {
    const json: RegsExportJson = {
      exportFormat: result.format,
      out: written,
      bytes,
      profile: target.profile?.name ?? null,
      engine: target.engine,
      files: target.files.map((f) => ({ name: f.model.name, base: f.base })),
      counts: result.counts,
      ...(written === null ? { content: result.content } : {}),
    };
    ctx.out.json(json);
    return;
  }
  if (written === null) {
    ctx.out.log(result.content.replace(/\n$/, ''));
    return;
  }
  const c = result.counts;
  const where = target.files.map((f) => `${f.model.name} at ${hex(f.base)}`).join(', ');
  ctx.out.log(
    `nxdma regs export: ${result.format} of ${where}: ${c.registers} registers, ${c.fields} fields ` +
      `(${c.words} words) -> ${opts.out} (${bytes} bytes)`,
  );
}

const HELP = `
Formats:
  svd       CMSIS-SVD 1.3: a peripheral per register file, a cluster per block (repeated
            bundles as dim arrays), registers, fields, access, reset value and mask, enumerated
            values; provenance as a description tag.
  ipxact    IP-XACT IEEE 1685-2014: a component with a memoryMap per register file, an
            addressBlock, a registerFile per block (dim for repeated bundles), registers and
            fields with resets and enumerated values; provenance as a description tag and an
            nxdma vendor extension.
  c-header  C macros: offsets, addresses, field shifts, widths and masks, reset values,
            enumerated values and an _INFERRED flag per register.

Addresses are offsets inside each register file window (base 0) unless --engine is given: then
udma_m2s and udma_s2m sit at that engine's BAR0 addresses in --profile (default trn2), and
dge_host (relative to a DGE core's dram_base, not in BAR0) is left out.

Without --out the export goes to stdout (with --json, in the "content" member). --out writes
the file atomically; a symbolic link, a non-regular file or a register schema is refused.

Example:
  $ nxdma regs export --format svd --out out/nxdma.svd
  $ nxdma regs export --format c-header --profile trn2 --engine 4 --out out/nxdma_trn2_engine4_regs.h
  $ nxdma regs export --format ipxact --file udma_m2s --json`;

/** Adds `export` to the `regs` command. */
export function registerExport(regs: Command, ctx: CliContext): void {
  regs
    .command('export')
    .description('export the register files as CMSIS-SVD, IP-XACT (IEEE 1685-2014) or a C header')
    .option('--format <format>', `output format: ${EXPORT_FORMATS.join(' | ')}`)
    .option(
      '--file <name...>',
      `register files to export: ${REGFILE_NAMES.join(' | ')} (default: all; with --engine: the UDMA files)`,
    )
    .option(
      '--profile <name>',
      'device profile whose BAR0 addresses to use (with --engine; default trn2)',
    )
    .option(
      '--engine <n>',
      'UDMA engine whose BAR0 addresses to use (default: file-relative offsets)',
    )
    .option('--out <file>', 'write the export to this file (atomically) instead of stdout')
    .option('--json', 'machine-readable report (with the export itself when there is no --out)')
    .addHelpText('after', HELP)
    .action((opts: ExportCliOptions) => run(ctx, opts));
}
