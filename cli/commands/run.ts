/**
 * `nxdma run <program.json | dir> (--mock | --device <path> --profile trn2
 * --i-understand-this-writes-to-hardware) [--json] [--trace]`: the compile-to-ring flow. Each
 * program is compiled, lowered to descriptor rings, run on the device and every byte it leaves in
 * memory is compared with the reference interpreter. A directory runs every *.json program in it
 * and prints one report per program, then a total.
 *
 * Exit codes: 0 every byte as expected; 1 a mismatch; 2 a bad program, argument or file;
 * 3 a device error.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { isNxdmaError } from '../../common/errors.ts';
import { parseBackendList } from '../../compiler/lower/backend.ts';
import { HARDWARE_CONFIRMATION, deviceChoiceOptions, uintOption } from '../options.ts';
import {
  defaultRingBase,
  prepareCompiled,
  runPrepared,
  totalsOf,
  type FlowReport,
  type PreparedFlow,
} from '../../flow/index.ts';
import { CliExit, EXIT, exitCodeFor } from '../exit.ts';
import { type ErrorJson, errorJson, errorLines } from '../contract.ts';
import { InputSet } from '../../common/files.ts';
import { LOOP_ITERATIONS, RING_BYTES, budgetLimit, checkBudget } from '../budgets.ts';
import { readProgramInput, withLocations } from '../input.ts';
import type { CliContext } from '../main.ts';
import { type Out, paint, table } from '../output.ts';
import { phases } from '../progress.ts';
import { parseProgram } from '../../compiler/ir/to-module.ts';
import { PIPELINE, compile } from '../../compiler/passes/pipeline.ts';
import {
  checkTimelineOption,
  checkTraceJsonOption,
  timelineFileFor,
  writeTimeline,
  writeTraceJson,
} from '../timeline.ts';
import { checkDirectoryRunOutput, loopIterationsOf, programFiles } from './run/inputs.ts';
import { checkDeviceOptions, deviceFor, type RunOptions } from './run/device.ts';
import { formatReport, kib } from './run/report.ts';

/** The confirmation a hardware run needs (the one every writing command takes). */
export { HARDWARE_CONFIRMATION };
export { checkDirectoryRunOutput, loopIterationsOf, programFiles } from './run/inputs.ts';
export { programMemory } from './run/device.ts';
export { formatReport } from './run/report.ts';

const EXAMPLE = `
Example:
  $ nxdma run examples/programs --mock
  $ nxdma run examples/programs/transpose-chain.json --mock --json
  $ nxdma run examples/programs/qos-mix.json --mock --trace
  $ nxdma run examples/programs/qos-mix.json --mock --timeline qos-mix.svg
  $ nxdma run examples/programs/qos-mix.json --mock --trace-json qos-mix.trace.json

With --json a program prints
  { program, passes, queues: [{ name, engine, qid, descriptors, bytes }], bytesMoved,
    verifiedBytes, mismatches, arbitration, lowering, epochs, ... }
and a directory { reports: [...], failures: [{ file, error }], total: { programs, passed, failed,
mismatches, ... } }. --timeline draws which queue moved how many bytes when, coloured by q_qos
(SVG; a directory run writes one file per program: out.svg -> out.<program>.svg).

A mapped device (writes registers and memory of real hardware):
  $ nxdma run prog.json --device /dev/mem --profile trn2 --ring-base 0x80000000 \\
      --memory 0x4000000+0x100000 --memory 0x80000000+0x100000 --${HARDWARE_CONFIRMATION}
The program's regions and the rings must lie inside the DMA-visible memory the profile or --memory
declares (<addr>+<size>[@<file offset>], file offset default: the address); each is mapped from
the device file there. Memory overlapping a register window of the profile is refused.`;

/** Runs one program file; returns its report (and draws its timeline into `timeline`). */
async function runOne(
  file: string,
  o: RunOptions,
  out: Out,
  inputs: InputSet,
  timeline?: string,
  traceJson?: string,
): Promise<FlowReport> {
  const lowerOpts =
    o.dgeBackends === undefined ? {} : { availability: parseBackendList(o.dgeBackends) };
  const bar = phases({ label: basename(file), stream: out.errStream });
  try {
    bar.phase('parse');
    const input = readProgramInput(file, inputs);
    const loops = loopIterationsOf(input.json);
    try {
      const limit = budgetLimit(LOOP_ITERATIONS, o.maxIterations);
      checkBudget(LOOP_ITERATIONS, limit, loops.total, `${file} ${loops.where}`, loops.where);
    } catch (e) {
      throw withLocations(e, input);
    }
    let p: PreparedFlow;
    try {
      const m = parseProgram(input.json, { file });
      bar.phase('compile', 'passes', PIPELINE.length);
      let passes = 0;
      const compiled = compile(m, { onPass: () => bar.update(++passes, PIPELINE.length) });
      bar.phase('lower');
      p = prepareCompiled(compiled, { file, lower: lowerOpts });
    } catch (e) {
      throw withLocations(e, input);
    }
    checkBudget(RING_BYTES, budgetLimit(RING_BYTES, o.maxRingBytes), p.ringBytes, `${file} rings`);
    const ringBase = uintOption(o.ringBase, '--ring-base') ?? defaultRingBase(p.module);
    const device = deviceFor(o, p, ringBase);
    const report = await runPrepared(p, device, {
      ringBase,
      file,
      seed: uintOption(o.seed, '--seed'),
      qos: o.qos !== false,
      allowInferred: o.allowInferred === true,
      trace: o.trace === true,
      lower: lowerOpts,
      onPhase: (ph) =>
        ph === 'run' ? bar.phase('run', 'DMAs', p.lowered.totals.dmas) : bar.phase(ph),
      onProgress: (done, total) => bar.update(done, total),
    });
    if (timeline !== undefined) {
      writeTimeline(
        timeline,
        device,
        {
          title: `nxdma run ${report.program}: queue service (${report.arbitration.mode === 'qos' ? 'QoS from each queue class' : 'round robin'})`,
          laneName: (engine, qid) =>
            report.queues.find((q) => q.engine === engine && q.qid === qid)?.name,
        },
        inputs,
      );
    }
    if (traceJson !== undefined) {
      writeTraceJson(
        traceJson,
        device,
        {
          title: `nxdma run ${report.program}`,
          laneName: (engine, qid) =>
            report.queues.find((q) => q.engine === engine && q.qid === qid)?.name,
        },
        inputs,
      );
    }
    return report;
  } finally {
    bar.stop();
    void out;
  }
}

export function register(program: Command, ctx: CliContext): void {
  deviceChoiceOptions(
    program
      .command('run')
      .description(
        'compile a program (or every program of a directory), run it through descriptor rings and verify every byte',
      )
      .argument('<program>', 'a program file (JSON) or a directory of them'),
    { mock: 'run on a mock device laid out for the program' },
  )
    .option(`--${HARDWARE_CONFIRMATION}`, 'confirm that --device may write the hardware')
    .option(
      '--memory <addr+size[@offset]>',
      'DMA-visible memory of --device: device address + size, at that file offset (default: the address); repeatable',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option(
      '--ring-base <addr>',
      'device address of the rings (default: the first 1 MiB boundary past the regions)',
    )
    .option('--seed <n>', 'seed of the initial memory fill (default 1)')
    .option(
      '--no-qos',
      'leave the arbiters in round robin (do not program each queue from its class)',
    )
    .option('--allow-inferred', 'also write registers that hold inferred facts')
    .option(
      '--dge-backends <list>',
      "the DGE backends the core offers: pool, rtl, software (comma list) or none (default: the ArchLevel's table, docs/lowering.md)",
    )
    .option('--json', 'print the report(s) as JSON')
    .option('--trace', 'add the micro-op streams, descriptors and packets served')
    .option(
      '--timeline <file>',
      'draw the mock queue service over time as SVG (a directory run: one file per program)',
    )
    .option(
      '--trace-json <file>',
      'write the mock queue service as a Chrome trace (Perfetto, chrome://tracing; a directory run: one file per program)',
    )
    .option(
      `${LOOP_ITERATIONS.option} <n>`,
      `refuse a program whose loops run more iterations than this (default ${LOOP_ITERATIONS.defaultLimit})`,
    )
    .option(
      `${RING_BYTES.option} <n>`,
      `refuse a program whose rings need more memory than this (default ${RING_BYTES.defaultLimit})`,
    )
    .addHelpText('after', EXAMPLE)
    .action(async (path: string, o: RunOptions) => {
      const out = ctx.out;
      checkDeviceOptions(o);
      if (o.dgeBackends !== undefined) parseBackendList(o.dgeBackends);
      uintOption(o.ringBase, '--ring-base');
      uintOption(o.seed, '--seed');
      checkTimelineOption(o.timeline, { mock: o.mock === true });
      checkTraceJsonOption(o.traceJson, { mock: o.mock === true });
      budgetLimit(LOOP_ITERATIONS, o.maxIterations);
      budgetLimit(RING_BYTES, o.maxRingBytes);
      const files = programFiles(path);
      const single = files.length === 1 && !statSync(path).isDirectory();
      // every program is an input: no output of this run may overwrite one
      const inputs = new InputSet();
      for (const f of files) {
        try {
          inputs.add(f);
        } catch {
          // unreadable: reported when the program is read
        }
      }
      if (o.timeline !== undefined) {
        for (const f of files) {
          const tl = timelineFileFor(o.timeline, f, single);
          if (!single) checkDirectoryRunOutput(tl, path, '--timeline');
          checkTimelineOption(tl, { mock: true, inputs });
        }
      }
      if (o.traceJson !== undefined) {
        for (const f of files) {
          const tj = timelineFileFor(o.traceJson, f, single);
          if (!single) checkDirectoryRunOutput(tj, path, '--trace-json');
          checkTraceJsonOption(tj, { mock: true, inputs });
        }
      }
      const reports: FlowReport[] = [];
      const failures: { file: string; error: ErrorJson }[] = [];
      let code: number = EXIT.OK;
      for (const file of files) {
        try {
          const tl =
            o.timeline === undefined ? undefined : timelineFileFor(o.timeline, file, single);
          const tj =
            o.traceJson === undefined ? undefined : timelineFileFor(o.traceJson, file, single);
          const r = await runOne(file, o, out, inputs, tl, tj);
          reports.push(r);
          if (!o.json) {
            for (const line of formatReport(out, r)) out.log(line);
            if (tl !== undefined) out.log(`  timeline: ${tl}`);
            if (tj !== undefined) out.log(`  trace (Chrome trace event format, Perfetto): ${tj}`);
            out.log('');
          }
        } catch (e) {
          if (single) throw e;
          const c = exitCodeFor(e);
          if (c > code) code = c;
          failures.push({ file, error: errorJson(e) });
          if (!o.json) {
            for (const l of errorLines(e)) out.err(isNxdmaError(e) ? l : `${l} (${file})`);
            out.log('');
          }
        }
      }
      // a program that could not run counts as a program, and as a failed one
      const ran = totalsOf(reports);
      const total = {
        ...ran,
        programs: ran.programs + failures.length,
        failed: ran.failed + failures.length,
        invalid: failures.length,
      };
      if (total.mismatches > 0 && code === EXIT.OK) code = EXIT.VERIFY_FAILED;
      if (o.json) {
        out.json(single ? reports[0] : { reports, failures, total });
      } else if (!single) {
        const verdict = total.failed === 0 ? paint(out, 32, 'OK') : paint(out, 31, 'FAILED');
        out.log(
          `total: ${total.programs} programs, ${total.passed} passed, ${total.failed} failed ` +
            `(${ran.failed} with mismatches, ${failures.length} not run)` +
            `; ${kib(total.bytesMoved)} moved, ${total.verifiedBytes} destination bytes verified, ` +
            `${total.mismatches} mismatches ${verdict}`,
        );
      }
      if (code !== EXIT.OK) throw new CliExit(code);
    });
}
