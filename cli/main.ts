import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import { NxdmaError } from '../common/errors.ts';
import { CliExit, EXIT, EXIT_CODES_HELP, exitCodeFor } from './exit.ts';
import { makeOut, type Out } from './output.ts';
import { ERROR_PREFIX, contractOut, errorJson, jsonRequested, reportError } from './contract.ts';
import { commands } from './commands/index.ts';
import { applyDeviceEnv } from './env-defaults.ts';
import { VERSION } from './version.ts';

// commander is CommonJS. Required directly, not through its ESM wrapper: importing the wrapper
// makes Node scan commander's CommonJS source for export names, ~6 ms of every command's start-up.
const { Command, CommanderError } = createRequire(import.meta.url)('commander') as typeof Commander;

export interface CliContext {
  out: Out;
}

const ROOT_HELP = `
Example:
  $ nxdma run examples/programs --mock
  $ nxdma compile examples/programs/qos-mix.json
  $ nxdma qos show examples/qos-plan.json
  $ nxdma regs read M2S_rd.desc_pref_cfg_2 --mock --json
  $ nxdma docs --out docs/site

Every command that reports takes --json. Output is plain (no colour) when stdout is not a
terminal or NO_COLOR is set (FORCE_COLOR forces colour on, FORCE_COLOR=0 off); progress appears
on stderr of a terminal only. NXDMA_DEVICE and NXDMA_PROFILE are the defaults of --device and
--profile (an option given, or --mock, wins). docs/cli.md
describes every command.`;

/**
 * Builds the nxdma command tree. Each sub-command lives in its own file under cli/commands/;
 * `only` names the one to load in full (the others are listed by name and summary, unloaded);
 * without it every sub-command is loaded.
 */
export async function buildProgram(ctx: CliContext, only?: string): Promise<Commander.Command> {
  const program = new Command('nxdma')
    .description(
      'nxdma: typed UDMA/DGE registers, QoS programming, a DMA compiler and a faithful mock device',
    )
    .version(VERSION)
    .addHelpText('after', ROOT_HELP)
    // every command's help ends with the exit codes (this command and all sub-commands)
    .addHelpText('afterAll', `\n${EXIT_CODES_HELP}`)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.out.log(s.replace(/\n$/, '')),
      writeErr: (s) => ctx.out.err(s.replace(/\n$/, '')),
      // commander's own errors (unknown option, missing argument) take the one error prefix
      outputError: (s, write) =>
        write(`${ERROR_PREFIX} [BAD_ARGUMENT]: ${s.replace(/^error: /, '')}`),
    });
  program.hook('preAction', (_root, action) => applyDeviceEnv(action));
  for (const entry of commands) {
    if (only === undefined || entry.name === only) {
      const { register } = await entry.load();
      register(program, ctx);
    } else {
      program.command(entry.name).description(entry.summary);
    }
  }
  return program;
}

/**
 * The sub-command argv names (`nxdma regs decode ...` -> 'regs', `nxdma help qos` -> 'qos'), or
 * '' when there is none (`nxdma --help`, `nxdma --version`): the root takes no option values.
 */
export function subcommandOf(argv: string[]): string {
  const args = argv.slice(2);
  const i = args.findIndex((a) => !a.startsWith('-'));
  if (i < 0) return '';
  if (args[i] === 'help') return args.slice(i + 1).find((a) => !a.startsWith('-')) ?? '';
  return args[i];
}

/** Runs the CLI on argv (as process.argv: node, script, ...args) and returns the exit code. */
export async function main(argv: string[], raw: Out = makeOut()): Promise<number> {
  const out = contractOut(raw);
  const json = jsonRequested(argv.slice(2));
  const ctx: CliContext = { out };
  try {
    const program = await buildProgram(ctx, subcommandOf(argv));
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.OK;
      if (e.code === 'commander.help') return EXIT.OK;
      if (json && !out.printed) {
        const err = new NxdmaError('BAD_ARGUMENT', e.message.replace(/^error: /, ''), {
          where: 'arguments',
          expected: 'the options and arguments of nxdma <command> --help',
          actual: e.code,
        });
        out.json({ error: errorJson(err) });
      }
      return EXIT.BAD_INPUT;
    }
    if (e instanceof CliExit) return e.exitCode;
    const code = exitCodeFor(e);
    reportError(out, e, json);
    return code;
  }
}
