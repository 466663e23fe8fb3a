/**
 * `nxdma compile <program.json> [--arch N] [--json]`: runs the compiler front end on a program
 * file and prints the bound IR (routes, trigger engines, queues, inserted queue switches, pass
 * counters). Exit code 2 on a program or compile error.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { NxdmaError } from '../../common/errors.ts';
import { CompileError } from '../../compiler/errors.ts';
import { ARCH_CODENAMES } from '../../compiler/ir/enums.ts';
import { parseProgram } from '../../compiler/ir/to-module.ts';
import type { Module } from '../../compiler/ir/module.ts';
import { PIPELINE, compile, type CompileFailure } from '../../compiler/passes/pipeline.ts';
import { type CompileJson, compileJson } from '../../compiler/report.ts';
import { CliExit, EXIT } from '../exit.ts';
import { ERROR_PREFIX, errorJson, errorLines } from '../contract.ts';
import { readProgramInput, withLocations } from '../input.ts';
import { parseUint } from '../options.ts';
import type { CliContext } from '../main.ts';
import { type Out, table } from '../output.ts';
import { phases } from '../progress.ts';

const EXAMPLE = `
Example:
  $ nxdma compile examples/programs/tiled-load-save.json
  $ nxdma compile examples/programs/transpose-chain.json --arch 50 --json

With --json the output is
  { arch, instructions: [{ id, op, engine, subId, dgeType, eligible, queue, queueType, deps }],
    queues: [{ name, type, engine, instructions }], inserted: [{ id, op, block, queue }],
    passes: [{ name, counters }], errors: [] }`;

function parseArch(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = parseUint(v);
  if (n === undefined || !(n in ARCH_CODENAMES)) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `--arch must be one of 10, 20, 30, 40, 50, got ${JSON.stringify(v)}`,
      {
        where: '--arch',
        expected: '10 | 20 | 30 | 40 | 50',
        actual: v,
      },
    );
  }
  return n;
}

function printSummary(out: Out, file: string, m: Module, json: CompileJson): void {
  const dmas = json.instructions.filter((i) => i.dgeType !== null);
  out.log(
    `${file}: program "${m.name}", ArchLevel ${m.arch} (${ARCH_CODENAMES[m.arch]}), ${json.instructions.length} instructions, ${dmas.length} DMAs`,
  );
  out.log('');
  out.log('passes');
  out.log(
    table(
      ['order', 'pass', 'counters'],
      json.passes.map((p) => [
        p.order ?? 'verify',
        p.name,
        Object.entries(p.counters)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      ]),
    ),
  );
  out.log('');
  out.log(`queues (${json.queues.length})`);
  out.log(
    table(
      ['#', 'name', 'type', 'engine', 'qos', 'DMAs', 'instances'],
      json.queues.map((q) => [
        q.index,
        q.name,
        q.type,
        `${q.engine}#${q.subId}`,
        q.qos,
        q.instructions,
        q.instances,
      ]),
    ),
  );
  out.log('');
  out.log(`inserted: ${json.inserted.length} SwitchQueueInstance`);
  if (dmas.length > 0 && dmas.length <= 60) {
    out.log('');
    out.log('DMAs');
    out.log(
      table(
        ['id', 'name', 'op', 'engine', 'dgeType', 'eligible', 'queue', 'deps'],
        dmas.map((i) => [
          i.id,
          i.name ?? '',
          i.op,
          `${i.engine}#${i.subId}`,
          i.dgeType ?? '',
          i.eligible.join(',') || '-',
          i.queue ?? '',
          i.deps.map((d) => `${d.kind}:${d.on}`).join(' '),
        ]),
      ),
    );
  } else if (dmas.length > 60) {
    out.log(`(${dmas.length} DMAs: use --json for the per-instruction binding)`);
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('compile')
    .description(
      'compile a DMA program: bind every DMA to a DGE route, trigger engine, queue and order',
    )
    .argument('<program.json>', 'program file (docs/program-format.md)')
    .option('--arch <N>', 'override the program ArchLevel (10, 20, 30, 40, 50)')
    .option('--json', 'print the bound IR as JSON')
    .addHelpText('after', EXAMPLE)
    .action((file: string, opts: { arch?: string; json?: boolean }) => {
      const { out } = ctx;
      const arch = parseArch(opts.arch);
      let m: Module;
      const bar = phases({ label: basename(file), stream: out.errStream });
      try {
        bar.phase('parse');
        const input = readProgramInput(file);
        try {
          m = parseProgram(input.json, { arch, file });
        } catch (e) {
          throw withLocations(e, input);
        }
      } catch (e) {
        bar.stop();
        if (opts.json && e instanceof NxdmaError) {
          out.json({
            arch: arch ?? null,
            instructions: [],
            queues: [],
            inserted: [],
            passes: [],
            errors: [errorJson(e)],
          });
          throw new CliExit(EXIT.BAD_INPUT);
        }
        throw e;
      }
      bar.phase('compile', 'passes', PIPELINE.length);
      let passesRun = 0;
      try {
        const r = compile(m, { onPass: () => bar.update(++passesRun, PIPELINE.length) });
        bar.stop();
        const json = compileJson(m, r.passes);
        if (opts.json) out.json(json);
        else printSummary(out, file, m, json);
      } catch (e) {
        bar.stop();
        if (!(e instanceof CompileError)) throw e;
        const failure = e as CompileFailure;
        const json = compileJson(m, failure.passes ?? [], failure.errors);
        if (opts.json) {
          out.json(json);
        } else {
          for (const err of failure.errors) {
            const [first, ...rest] = errorLines(err);
            out.err(first.replace(`[${err.code}]: `, `[${err.code}]: [${err.subCode}] `));
            for (const l of rest) out.err(l);
          }
          out.err(
            `${ERROR_PREFIX} [${failure.code}]: ${failure.errors.length} error(s) in pass ${failure.pass}`,
          );
        }
        throw new CliExit(EXIT.BAD_INPUT);
      }
    });
}
