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
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { NxdmaError, hex, isNxdmaError } from '../../common/errors.ts';
import type { Device } from '../../csr/io.ts';
import { parseBackendList } from '../../compiler/lower/backend.ts';
import { checkInsideMemory, getProfile, type MemorySpec } from '../../driver/mmio/index.ts';
import {
  HARDWARE_CONFIRMATION,
  checkDeviceChoice,
  declaredMemory,
  memoryText,
} from '../device-options.ts';
import { openCliDevice } from '../device-open.ts';
import {
  defaultRingBase,
  flowMock,
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
import { badArg, numberArg, readProgramInput, withLocations } from '../input.ts';
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

/** The confirmation a hardware run needs (the one every writing command takes). */
export { HARDWARE_CONFIRMATION };

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

interface RunOptions {
  mock?: boolean;
  device?: string;
  profile?: string;
  json?: boolean;
  trace?: boolean;
  timeline?: string;
  ringBase?: string;
  seed?: string;
  qos?: boolean;
  allowInferred?: boolean;
  iUnderstandThisWritesToHardware?: boolean;
  memory?: string[];
  maxIterations?: string;
  maxRingBytes?: string;
  traceJson?: string;
  dgeBackends?: string;
}

function parseNumber(v: string | undefined, where: string): number | undefined {
  if (v === undefined) return undefined;
  const n = numberArg(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw badArg(
      where,
      `${where} must be a non-negative integer (decimal or 0x...), got ${JSON.stringify(v)}`,
      'an integer',
      v,
    );
  }
  return n;
}

/**
 * The program files a path names: the file, or the *.json entries of a directory (sorted). Every
 * entry that is not a directory is listed, so a FIFO, a device or a dangling link named *.json is
 * reported as a failed program (each is read through readInputText, which refuses them).
 */
export function programFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw badArg(
      path,
      `cannot read ${path}: ${(e as Error).message}`,
      'a program file or a directory of programs',
    );
  }
  if (!st.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(path, f))
    .filter((f) => {
      try {
        return !statSync(f).isDirectory();
      } catch {
        return lstatSync(f).isSymbolicLink(); // a dangling link: reported when it is read
      }
    });
  if (files.length === 0)
    throw badArg(path, `no *.json program in ${path}`, 'a directory holding program files');
  return files;
}

/** The loop iterations a program asks for (the sum over its loop blocks), read from its JSON. */
export function loopIterationsOf(json: unknown): { total: number; where: string } {
  let total = 0;
  let where = '$';
  let most = 0;
  const fns = (json as { functions?: unknown })?.functions;
  if (!Array.isArray(fns)) return { total, where };
  fns.forEach((f, fi) => {
    const blocks = (f as { blocks?: unknown })?.blocks;
    if (!Array.isArray(blocks)) return;
    blocks.forEach((b, bi) => {
      const n = (b as { loop?: { iterations?: unknown } })?.loop?.iterations;
      if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return;
      total += n;
      if (n > most) {
        most = n;
        where = `$.functions[${fi}].blocks[${bi}].loop.iterations`;
      }
    });
  });
  return { total, where };
}

/**
 * For a directory run, refuses an output that would land in the program directory with a .json
 * name: the next run of that directory would take it for a program.
 */
export function checkDirectoryRunOutput(file: string, dir: string, option: string): void {
  if (!file.toLowerCase().endsWith('.json')) return;
  let outDir: string;
  let progDir: string;
  try {
    progDir = realpathSync(dir);
    outDir = realpathSync(dirname(resolve(file)));
  } catch {
    return;
  }
  if (outDir === progDir) {
    throw badArg(
      option,
      `${option} ${file} would put .json files into the program directory ${dir}, which the next run of it would read as programs`,
      'an output path outside the program directory, or a name not ending in .json',
      file,
    );
  }
}

/** Checks the device options before anything is read or opened. */
function checkDeviceOptions(o: RunOptions): void {
  checkDeviceChoice(o, true);
  if (o.device !== undefined) {
    getProfile(o.profile!);
    declaredMemory(o);
  } else if (o.memory !== undefined) {
    throw badArg(
      '--memory',
      '--memory declares memory of --device; the mock lays out its own',
      '--device',
      o.memory,
    );
  }
}

/**
 * The memory windows of one program on --device: each region and the rings, each inside the
 * DMA-visible memory the profile or --memory declares, mapped at the matching file offset.
 * @throws NxdmaError MEMORY_UNMAPPED naming the region and the declared memory.
 */
export function programMemory(o: RunOptions, p: PreparedFlow, ringBase: number): MemorySpec[] {
  const profile = getProfile(o.profile!);
  const declared: (MemorySpec & { name: string })[] = [
    ...(profile.dmaMemory ?? []).map((m) => ({ ...m, name: `profile ${profile.name} ${m.name}` })),
    ...declaredMemory(o).map((m, i) => ({
      ...m,
      name: `--memory ${memoryText(m)}` + (i > 0 ? ` (#${i + 1})` : ''),
    })),
  ];
  const wanted = p.module.regions.map((r) => ({
    name: `region "${r.name}"`,
    address: r.base,
    size: r.size,
  }));
  if (p.ringBytes > 0) wanted.push({ name: 'the rings', address: ringBase, size: p.ringBytes });
  return wanted.map((w) => {
    const d = checkInsideMemory(w, declared) as MemorySpec & { name: string };
    return {
      deviceAddress: w.address,
      fileOffset: d.fileOffset + (w.address - d.deviceAddress),
      size: w.size,
    };
  });
}

/** The device of one program: a mock laid out for it, or the mapped device. */
function deviceFor(o: RunOptions, p: PreparedFlow, ringBase: number): Device {
  if (o.mock) return flowMock(p, ringBase);
  return openCliDevice(o, {
    engines: [...new Set(p.active.map((a) => a.engine))],
    memory: programMemory(o, p, ringBase),
    writes: true,
  });
}

function kib(n: number): string {
  return n >= 1024 * 1024
    ? `${(n / 1048576).toFixed(1)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${n} B`;
}

/** The readable report of one program. */
export function formatReport(out: Out, r: FlowReport): string[] {
  const lines: string[] = [];
  const ok = r.mismatches === 0;
  lines.push(`${paint(out, 1, r.program)}${r.file ? ` (${r.file})` : ''} on ${r.device}`);
  const l = r.lowering;
  const bk = Object.entries(l.byBackend)
    .filter(([, n]) => n > 0)
    .map(([b, n]) => `${b} ${n}`)
    .join(', ');
  lines.push(
    `  compiled in ${r.passes.length} passes; lowered ${l.dmas} DMAs (${l.executed} executed; backends: ${bk || 'none'}) ` +
      `to ${l.dgeDescriptors} DGE descriptors and ${l.descriptors} ring descriptor pairs`,
  );
  lines.push('');
  lines.push(
    table(
      ['queue', 'engine', 'qid', 'qos', 'dmas', 'descriptors', 'bytes'],
      r.queues.map((q) => [q.name, q.engine, q.qid, q.qos, q.dmas, q.descriptors, q.bytes]),
    )
      .split('\n')
      .map((s) => '  ' + s)
      .join('\n'),
  );
  lines.push('');
  const a = r.arbitration;
  if (a.observed && a.queues.length > 0) {
    lines.push(
      `  arbitration (${a.mode === 'qos' ? 'QoS: strict levels + DWRR from each class' : 'round robin'}), ${r.epochs} epoch(s):`,
    );
    for (const q of a.queues) {
      lines.push(
        `    udma${q.engine} q${q.qid} ${q.name}: ${q.packets} packets, ${kib(q.bytes)}` +
          (q.firstCycle !== null ? `, cycles ${q.firstCycle}..${q.lastCycle}` : '') +
          (q.qQos !== null ? `, q_qos ${q.qQos}` : ''),
      );
    }
  }
  for (const w of a.warnings) lines.push(`  note: ${w}`);
  const verdict = ok ? paint(out, 32, 'OK') : paint(out, 31, 'MISMATCH');
  lines.push(
    `  moved ${kib(r.bytesMoved)}; verified ${r.verifiedBytes} destination bytes (${r.checkedBytes} bytes compared): ` +
      `${r.mismatches} mismatches ${verdict}  [${r.elapsedMs} ms]`,
  );
  for (const s of r.mismatchSamples.slice(0, 8)) {
    lines.push(
      `    ${s.address} (${s.region}${s.tensor ? `, tensor ${s.tensor}` : ''}${s.destination ? '' : ', not a destination'}): expected ${hex(s.expected, 2)}, got ${hex(s.actual, 2)}`,
    );
  }
  if (r.trace) {
    lines.push('');
    lines.push('  trace: lowering');
    for (const d of r.trace.dmas) {
      lines.push(
        `    ${d.dma} on ${d.queue}: backend ${d.backend}, priority_class ${d.priorityClass}, ${d.descriptors} descriptor pairs`,
      );
      for (const s of d.streams) {
        for (const op of s.microOps) lines.push(`      S: ${op}`);
        lines.push(`      -> ${s.descriptors.join(', ')}`);
      }
    }
    lines.push('  trace: packets served (engine queue bytes descriptors cycles q_qos)');
    for (const e of r.trace.service.slice(0, 200)) {
      lines.push(
        `    #${e.order} udma${e.engine} q${e.queue} ${e.bytes} B ${e.descriptors} desc ${e.startCycle}..${e.endCycle} q_qos ${e.qQos}`,
      );
    }
    if (r.trace.service.length > 200) lines.push(`    ... ${r.trace.service.length - 200} more`);
  }
  return lines;
}

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
    const ringBase = parseNumber(o.ringBase, '--ring-base') ?? defaultRingBase(p.module);
    const device = deviceFor(o, p, ringBase);
    const report = await runPrepared(p, device, {
      ringBase,
      file,
      seed: parseNumber(o.seed, '--seed'),
      qos: o.qos !== false,
      allowInferred: o.allowInferred === true,
      trace: o.trace === true,
      lower: lowerOpts,
      onPhase: (ph) =>
        ph === 'run' ? bar.phase('run', 'DMAs', p.lowered.dmas.length) : bar.phase(ph),
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
  program
    .command('run')
    .description(
      'compile a program (or every program of a directory), run it through descriptor rings and verify every byte',
    )
    .argument('<program>', 'a program file (JSON) or a directory of them')
    .option('--mock', 'run on a mock device laid out for the program')
    .option('--device <path>', 'the device file to map (BAR0 resource file, /dev/mem, UIO map)')
    .option('--profile <name>', 'device profile of --device (trn2)')
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
      parseNumber(o.ringBase, '--ring-base');
      parseNumber(o.seed, '--seed');
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
