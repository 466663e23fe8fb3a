/**
 * `nxdma regs ...`: the register files (csr/schemas/*.json) from the command line.
 *
 *   nxdma regs list [--file udma_m2s|udma_s2m|dge_host] [--match text] [--inferred] [--json]
 *   nxdma regs read <path> (--mock | --device <file> --profile trn2 --engine N) [--json]
 *   nxdma regs write <path> <field=value...> (--mock | --device ...) [--allow-inferred] [--dry-run]
 *   nxdma regs dump [--file F] [--block B] (--mock | --device ...) [--json]
 *   nxdma regs decode <path> <value> [--json]
 *   nxdma regs export --format svd|ipxact|c-header [...]   (regs-export.ts)
 *
 * `list`: every register word (bundles and register arrays expanded) with its path, absolute
 * offset, access, reset value, provenance and fields. `read`, `write` and `dump` go through the
 * accessor runtime (csr/runtime) to a mock device (mocks/) or a mapped one (driver/mmio);
 * `decode` needs no device. The sub-commands live in regs/ (list.ts; access.ts: read, write, dump;
 * words.ts: path resolution and values; decode.ts; value.ts: the printed word) and are registered
 * here.
 */
import type { Command } from 'commander';
import { REGFILE_NAMES } from '../../csr/schema/names.ts';
import { HARDWARE_CONFIRMATION, confirmationOption, deviceChoiceOptions } from '../options.ts';
import type { CliContext } from '../main.ts';
import { registerExport } from './regs-export.ts';
import type { ListOptions } from './regs/list.ts';
import { decode, type DecodeOptions } from './regs/decode.ts';
import type { DumpOptions, ReadOptions, WriteOptions } from './regs/access.ts';

/** read, write and dump (and the device code behind them) load only when one of them runs. */
const access = () => import('./regs/access.ts');

export type { RegsListEntry } from './regs/list.ts';
export type { RegsFieldValue, RegsValue } from './regs/value.ts';

function deviceOptions(cmd: Command): Command {
  return deviceChoiceOptions(cmd, {
    mock: 'a fresh in-memory mock device (reset values; nothing persists between runs)',
    profile: 'trn2',
  })
    .option('--engine <n>', 'UDMA engine for udma_m2s / udma_s2m', '0')
    .option('--core <n>', 'DGE core for dge_host (mock)', '0')
    .option('--json', 'machine-readable output');
}

const LIST_HELP = `
Example:
  $ nxdma regs list --file udma_m2s --match dwrr_cfg
  $ nxdma regs list --inferred
  $ nxdma regs list --file dge_host --json

With --json the output lists every register word (bundles expanded):
  { format, registers: [{ file, path, offset, access, reset, resetKnown, provenance, inferred,
     incrementTarget?, fields: [{ name, lsb, width, access, reset, resetKnown, provenance }] }] }
  path is block.register ("M2S_rd.desc_pref_cfg_2"), a repeated block carries its index
  ("M2S_Q[3].dwrr_cfg_2"), a register array its entry ("priority_class_map[2]"); offset is the
  absolute byte offset in the file's window.`;

const ACCESS_HELP = `
A path is block.register, block[i].register or register[i] ("M2S_Q[3].dwrr_cfg_2",
"priority_class_map[2]"), optionally prefixed by its file ("udma_s2m:S2M_Q[0].cfg"), or an
address: a byte offset within a register file ("0x1084", "udma_s2m:0x1054") or, read through
--profile, a BAR0 address ("0x82001084" = udma0 udma_m2s + 0x1084: M2S_Q[0].dwrr_cfg_2; the
address names the engine). A path that names no register suggests the nearest names.
Values are 0x... (hex), 0b... (binary) or decimal; a field with named values also takes a name.
--mock starts a fresh mock device each run: it shows reset values and what a write does.`;

export function register(program: Command, ctx: CliContext): void {
  const regs = program
    .command('regs')
    .description('the UDMA / DGE register files: inventory (and register access)')
    .addHelpText('after', `\nExample:\n  $ nxdma regs list --file udma_m2s`);

  regs
    .command('list')
    .description('list every register word: path, offset, access, reset, provenance, fields')
    .option('--file <name>', `one register file: ${REGFILE_NAMES.join(' | ')} (default: all)`)
    .option('--match <text>', 'only paths containing text (case-insensitive)')
    .option('--inferred', 'only registers with something inferred')
    .option('--json', 'machine-readable output')
    .addHelpText('after', LIST_HELP)
    .action((opts: ListOptions) => import('./regs/list.ts').then((m) => m.list(ctx, opts)));

  deviceOptions(
    regs
      .command('read')
      .description('read one register word and decode its fields')
      .argument('<path>', 'register path, e.g. M2S_Q[3].dwrr_cfg_2')
      .option(
        '--file <name>',
        `register file: ${REGFILE_NAMES.join(' | ')} (default: found by path)`,
      ),
  )
    .addHelpText(
      'after',
      `\nExample:\n  $ nxdma regs read M2S_rd.desc_pref_cfg_2 --mock\n  $ nxdma regs read 0x82001084 --mock --profile trn2\n  $ nxdma regs read M2S_Q[3].dwrr_cfg_2 --device /sys/bus/pci/devices/0000:10:1c.0/resource0 --profile trn2 --engine 4 --json\n${ACCESS_HELP}`,
    )
    .action((path: string, opts: ReadOptions, cmd: Command) =>
      access().then((a) => a.read(ctx, path, opts, a.engineGiven(cmd))),
    );

  confirmationOption(
    deviceOptions(
      regs
        .command('write')
        .description(
          'write fields of one register (read-modify-write when readable), then read back',
        )
        .argument('<path>', 'register path, e.g. M2S_Q[3].dwrr_cfg_2')
        .argument('<field=value...>', 'fields to set, e.g. q_qos=5 (others keep their value)')
        .option(
          '--file <name>',
          `register file: ${REGFILE_NAMES.join(' | ')} (default: found by path)`,
        )
        .option(
          '--allow-inferred',
          'write a register that is (partly) inferred, which no source states',
        )
        .option(
          '--dry-run',
          'show the word that would be written; write nothing (device mapped read-only)',
        ),
    ),
  )
    .addHelpText(
      'after',
      `\nExample:\n  $ nxdma regs write M2S_Q[3].dwrr_cfg_2 q_qos=5 --mock\n  $ nxdma regs write M2S_dwrr.cfg_sched en_dwrr=dwrr inc_factor=7 --mock --dry-run --json\n\nRead-only fields are refused (REGISTER_READ_ONLY); a register with anything inferred is\nrefused without --allow-inferred (REGISTER_INFERRED). Nothing is written when an argument is bad.\nOn --device a write needs --${HARDWARE_CONFIRMATION}; --dry-run maps the device read-only.\n${ACCESS_HELP}`,
    )
    .action((path: string, assignments: string[], opts: WriteOptions, cmd: Command) =>
      access().then((a) => a.write(ctx, path, assignments, opts, a.engineGiven(cmd))),
    );

  deviceOptions(
    regs
      .command('dump')
      .description('read every register word (of a block) and decode every field')
      .option(
        '--file <name>',
        `register file: ${REGFILE_NAMES.join(' | ')} (default: all the device maps)`,
      )
      .option('--block <name>', 'only this block, e.g. M2S_Q or M2S_dwrr'),
  )
    .addHelpText(
      'after',
      `\nExample:\n  $ nxdma regs dump --mock --block M2S_dwrr\n  $ nxdma regs dump --mock --file udma_s2m --json\n${ACCESS_HELP}`,
    )
    .action((opts: DumpOptions) => access().then((a) => a.dump(ctx, opts)));

  regs
    .command('decode')
    .description('decode a raw value of a register into its fields (no device)')
    .argument('<path>', 'register path, e.g. M2S_dwrr.cfg_sched')
    .argument('<value>', 'the 32-bit value: 0x..., 0b... or decimal')
    .option('--file <name>', `register file: ${REGFILE_NAMES.join(' | ')} (default: found by path)`)
    .option('--profile <name>', 'device profile that reads a BAR0 address given as <path> (trn2)')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `\nExample:\n  $ nxdma regs decode M2S_dwrr.cfg_sched 0x00070211\n  $ nxdma regs decode udma_s2m:S2M_Q[0].cfg 0x03020000 --json\n  $ nxdma regs decode 0x1084 0x00000004\n  $ nxdma regs decode 0x82001084 0x00000004 --profile trn2\n${ACCESS_HELP}`,
    )
    .action((path: string, value: string, opts: DecodeOptions) => decode(ctx, path, value, opts));

  registerExport(regs, ctx);
}
