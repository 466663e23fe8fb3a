/**
 * `nxdma qos ...`: QoS plans from the command line (docs/qos.md).
 *
 *   nxdma qos show  <plan.json> [--engine N] [--allow-inferred] [--json]
 *   nxdma qos apply <plan.json> (--mock | --device <path> --profile trn2) [--engine N]
 *                   [--dry-run] [--verify] [--allow-inferred] [--strict] [--json]
 *                   [--save-previous <file>] [--i-understand-this-writes-to-hardware]
 *   nxdma qos restore <snapshot.json> (--mock | --device ...) [--dry-run] [--verify] [--json]
 *   nxdma qos diff  <plan.json> (--mock | --device <path> --profile trn2) [--engine N]
 *                   [--allow-inferred] [--json]
 *
 * A real device is opened only with --device; --dry-run and diff map it read-only, so they cannot
 * write; a writing apply or restore needs the hardware confirmation (cli/device-options.ts).
 * --mock uses a fresh mock device holding the plan's engines.
 */
import type { Command } from 'commander';
import { hex } from '../../common/errors.ts';
import {
  applyQos,
  describeQosPlan,
  diffQos,
  planQos,
  restoreRegisters,
} from '../../driver/qos/index.ts';
import type { CliContext } from '../main.ts';
import { CliExit, EXIT } from '../exit.ts';
import { checkTraceJsonOption } from '../timeline.ts';
import { InputSet } from '../../common/files.ts';
import { badArg } from '../input.ts';
import { table } from '../output.ts';
import { qosShowTimeline, qosShowTraceJson, type QosTimelineOptions } from '../qos-timeline.ts';
import { HARDWARE_CONFIRMATION, deviceChoiceOptions, parseUint } from '../options.ts';
import { checkSnapshotTarget, readSnapshot, writeSnapshot } from '../snapshot-file.ts';
import {
  engineFilter,
  openTarget,
  planEngines,
  readPlan,
  type ApplyOptions,
  type CommonOptions,
  type DiffOptions,
  type RestoreOptions,
} from './qos/target.ts';
import { jsonWrite, printDiff, printTables, printWarnings, printWrites } from './qos/print.ts';

export type { QosJsonWrite } from './qos/print.ts';

// ---------------------------------------------------------------------------------------------

function show(ctx: CliContext, file: string, opts: CommonOptions & QosTimelineOptions): void {
  const inputs = new InputSet();
  const plan = readPlan(file, inputs);
  const engines = engineFilter(plan, opts.engine);
  const program = planQos(plan, { allowInferred: opts.allowInferred, engines });
  if (opts.traceJson !== undefined) checkTraceJsonOption(opts.traceJson, { mock: true, inputs });
  const timeline = qosShowTimeline(plan, file, opts, engines, inputs);
  const traceJson = qosShowTraceJson(plan, file, opts, engines, inputs);
  if (opts.json) {
    ctx.out.json({
      engines: describeQosPlan(plan, engines),
      writes: program.writes.map((w) => ({
        engine: w.engine,
        file: w.file,
        path: w.path,
        offset: w.offset,
        mask: w.mask,
        value: w.value,
        complete: w.complete,
        fields: w.fields.map((f) => ({ name: f.name, value: f.value, origin: f.origin })),
      })),
      skipped: program.skipped.map((w) => ({
        engine: w.engine,
        file: w.file,
        path: w.path,
        offset: w.offset,
      })),
      warnings: program.warnings,
      ...(timeline ? { timeline } : {}),
      ...(traceJson ? { traceJson } : {}),
    });
    return;
  }
  printTables(ctx, describeQosPlan(plan, engines));
  ctx.out.log(
    table(
      ['engine', 'file', 'path', 'offset', 'mask', 'value', 'fields'],
      program.writes.map((w) => [
        w.engine,
        w.file,
        w.path,
        hex(w.offset, 5),
        hex(w.mask, 8),
        hex(w.value, 8),
        w.fields.map((f) => `${f.name}=${f.value}`).join(', ') + (w.complete ? '' : ' (rest kept)'),
      ]),
    ),
  );
  ctx.out.log('');
  ctx.out.log(
    `${program.writes.length} register writes` +
      (program.skipped.length
        ? `; left out (inferred): ${program.skipped.map((w) => `engine ${w.engine} ${w.path}`).join(', ')}`
        : ''),
  );
  printWarnings(ctx, program.warnings);
  if (traceJson) {
    ctx.out.log(
      `trace: ${traceJson.file} (Chrome trace event format, ${traceJson.tracks} queue tracks, ${traceJson.packets} packets; open in Perfetto)`,
    );
  }
  if (timeline) {
    ctx.out.log(
      `timeline: ${timeline.file} (${timeline.lanes} queues, ${timeline.packets} packets served on the mock)`,
    );
  }
}

function apply(ctx: CliContext, file: string, opts: ApplyOptions): void {
  const plan = readPlan(file);
  const engines = engineFilter(plan, opts.engine);
  // Validate everything the device is not needed for before opening it.
  planQos(plan, { allowInferred: opts.allowInferred, strict: opts.strict, engines });
  const dryRun = opts.dryRun === true;
  const save = opts.savePrevious;
  if (save !== undefined) checkSnapshotTarget(save, [file]);
  const { dev, close } = openTarget(opts, planEngines(plan, engines), !dryRun);
  try {
    const r = applyQos(dev, plan, {
      dryRun,
      verify: opts.verify === true,
      allowInferred: opts.allowInferred === true,
      strict: opts.strict === true,
      engines,
      reportOld: true,
      savePrevious: save !== undefined,
      // Saved before the first register write: if the file cannot be written, nothing is.
      onPrevious: (snap) => writeSnapshot(save!, snap, [file]),
    });
    const previous =
      save === undefined
        ? undefined
        : { file: save, registers: r.previous!.registers.length, saved: !dryRun };
    if (opts.json) {
      ctx.out.json({
        writes: r.writes.map(jsonWrite),
        warnings: r.warnings,
        ...(previous ? { previous } : {}),
      });
      return;
    }
    printTables(ctx, describeQosPlan(plan, engines));
    printWrites(ctx, r.writes, dryRun ? 'would write (dry run):' : 'written:');
    const what = dryRun ? 'dry run: nothing written' : `${r.io.writes} registers written`;
    ctx.out.log(
      `${dev.name}: ${what}; ${r.unchanged.length} already held their value; ${r.io.reads} reads` +
        (r.verified ? `; verified (${r.io.verifyReads} read back)` : '') +
        (r.skipped.length
          ? `; left out (inferred): ${r.skipped.map((w) => `engine ${w.engine} ${w.path}`).join(', ')}`
          : ''),
    );
    if (previous) {
      ctx.out.log(
        dryRun
          ? `would save the ${previous.registers} previous register words to ${save} (dry run: not saved)`
          : `saved the ${previous.registers} previous register words to ${save} (undo: nxdma qos restore ${save} ...)`,
      );
    }
    printWarnings(ctx, r.warnings);
  } finally {
    close();
  }
}

function restore(ctx: CliContext, file: string, opts: RestoreOptions): void {
  const all = readSnapshot(file);
  const dryRun = opts.dryRun === true;
  const saved = [...new Set(all.registers.map((r) => r.engine))].sort((a, b) => a - b);
  let snap = all;
  if (opts.engine !== undefined) {
    const n = parseUint(opts.engine);
    if (n === undefined || !saved.includes(n)) {
      throw badArg(
        '--engine',
        `--engine ${opts.engine} is not an engine of the snapshot (${saved.join(', ') || 'none'})`,
        saved.join(' | ') || 'an engine of the snapshot',
        opts.engine,
      );
    }
    snap = { ...all, registers: all.registers.filter((r) => r.engine === n) };
  }
  const engines = [...new Set(snap.registers.map((r) => r.engine))];
  const { dev, close } = openTarget(opts, engines, !dryRun);
  try {
    const r = restoreRegisters(dev, snap, {
      dryRun,
      verify: opts.verify === true,
      allowInferred: opts.allowInferred === true,
    });
    if (opts.json) {
      ctx.out.json({
        writes: r.writes.map((w) => ({
          engine: w.engine,
          file: w.file,
          path: w.path,
          offset: w.offset,
          old: w.old,
          new: w.new,
        })),
        unchanged: r.unchanged.length,
        dryRun,
        verified: r.verified,
      });
      return;
    }
    printWrites(
      ctx,
      r.writes.map((w) => ({
        ...w,
        fields: w.fields.map((f) => ({ ...f, origin: 'explicit' as const })),
      })),
      dryRun ? 'would restore (dry run):' : 'restored:',
    );
    ctx.out.log(
      `${dev.name}: ${dryRun ? 'dry run: nothing written' : `${r.io.writes} registers restored`}; ` +
        `${r.unchanged.length} already held their saved value; ${r.io.reads} reads` +
        (r.verified ? `; verified (${r.io.verifyReads} read back)` : ''),
    );
  } finally {
    close();
  }
}

function diff(ctx: CliContext, file: string, opts: DiffOptions): void {
  const plan = readPlan(file);
  const engines = engineFilter(plan, opts.engine);
  const { dev, close } = openTarget(opts, planEngines(plan, engines), false);
  let differ = 0;
  try {
    const d = diffQos(dev, plan, { allowInferred: opts.allowInferred, engines });
    if (opts.json) {
      ctx.out.json({
        fields: d.fields,
        writes: d.writes.map(jsonWrite),
        differences: d.differences,
        notRead: d.notRead,
        warnings: d.warnings,
      });
      differ = d.differences;
    } else {
      printDiff(ctx, plan, engines, dev, d);
      differ = d.differences;
    }
  } finally {
    close();
  }
  // like `git diff --exit-code`: a difference is exit 1, so a pipeline can gate on drift
  if (differ > 0 && opts.exitCode !== false) throw new CliExit(EXIT.DIFFERENCES);
}

// ---------------------------------------------------------------------------------------------

const APPLY_HELP = `
Example:
  $ nxdma qos apply examples/qos-plan.json --mock
  $ nxdma qos apply plan.json --device /sys/bus/pci/devices/0000:10:1c.0/resource0 --profile trn2 --dry-run
  $ nxdma qos apply plan.json --device /dev/uio0 --profile trn2 --engine 3 --verify --json --${HARDWARE_CONFIRMATION}

With --json the output is
  { "writes": [{ "engine", "file", "path", "offset", "old", "new" }], "warnings": [{ "code", "engine", "message" }] }
where offset is the byte offset within its register file (udma_m2s, udma_s2m) and path is as in
'nxdma regs list'. --dry-run maps the device read-only and writes nothing; otherwise --device needs
--${HARDWARE_CONFIRMATION}. --save-previous FILE saves the current word of every register about
to change before the first write (a new file, written atomically; undo: nxdma qos restore FILE).
Registers whose facts are inferred are written only with --allow-inferred (docs/qos.md).`;

const RESTORE_HELP = `
Example:
  $ nxdma qos apply plan.json --device bar0 --profile trn2 --save-previous prev.json --${HARDWARE_CONFIRMATION}
  $ nxdma qos restore prev.json --device bar0 --profile trn2 --dry-run --json
  $ nxdma qos restore prev.json --device bar0 --profile trn2 --verify --${HARDWARE_CONFIRMATION}

Reads each saved register once and writes back the saved word where it differs, last saved first.
--dry-run maps the device read-only and prints current and saved words (a diff). Only plain
read-write registers can be restored; inferred ones need --allow-inferred. With --json:
  { "writes": [{ "engine", "file", "path", "offset", "old", "new" }], "unchanged", "dryRun", "verified" }`;

const DIFF_HELP = `
Example:
  $ nxdma qos diff examples/qos-plan.json --mock --no-exit-code
  $ nxdma qos diff examples/qos-plan.json --mock --no-exit-code --json
  $ nxdma qos diff plan.json --device /dev/uio0 --profile trn2 --json

Reads every register the plan touches once (the device is mapped read-only) and prints each
planned field with its current and planned value. Exits 1 when any planned field differs (as
git diff --exit-code does), so a pipeline can gate on drift:
  $ nxdma qos diff plan.json --device /dev/uio0 --profile trn2 || exit 1
--no-exit-code exits 0 whatever the differences. With --json:
  { "fields": [{ "engine", "file", "path", "offset", "field", "current", "planned", "differs", ... }],
    "writes": [{ "engine", "file", "path", "offset", "old", "new" }], "differences", "notRead", "warnings" }`;

const SHOW_HELP = `
Example:
  $ nxdma qos show examples/qos-plan.json
  $ nxdma qos show examples/qos-plan.json --engine 0 --json
  $ nxdma qos show examples/qos-plan.json --timeline qos.svg
  $ nxdma qos show examples/qos-plan.json --trace-json qos.trace.json

The plan as a table per engine (class, priority_class, AXI_qos, q_qos, weight, HP, rate limits,
arbiter modes) and the register writes it makes (mask and value). Needs no device.`;

export function register(program: Command, ctx: CliContext): void {
  const qos = program
    .command('qos')
    .description('QoS plans: show, apply to a device, diff against a device')
    .addHelpText(
      'after',
      `\nExample:\n  $ nxdma qos apply examples/qos-plan.json --mock --dry-run`,
    );

  const deviceOptions = (c: Command): Command =>
    deviceChoiceOptions(c, { mock: 'use a fresh mock device holding the plan engines' })
      .option('--engine <n>', 'only this engine of the plan')
      .option('--allow-inferred', 'also write (or read) registers whose facts are inferred')
      .option('--json', 'machine-readable output');

  qos
    .command('show')
    .description('print a plan as a table per engine and the register writes it makes')
    .argument('<plan>', 'QoS plan (JSON)')
    .option('--engine <n>', 'only this engine of the plan')
    .option('--allow-inferred', 'include registers whose facts are inferred')
    .option('--json', 'machine-readable output')
    .option(
      '--timeline <file>',
      'run the plan on a mock with every queue backlogged; draw it (SVG)',
    )
    .option(
      '--trace-json <file>',
      'run the plan as for --timeline; write the service trace as a Chrome trace (Perfetto)',
    )
    .option('--timeline-packets <n>', 'copies queued per queue for --timeline (default 64)')
    .option('--timeline-bytes <n>', 'bytes per copy for --timeline (default 4096)')
    .addHelpText('after', SHOW_HELP)
    .action((file: string, opts: CommonOptions) => show(ctx, file, opts));

  deviceOptions(
    qos
      .command('apply')
      .description('program a plan: one write per register, reads only where needed')
      .argument('<plan>', 'QoS plan (JSON)'),
  )
    .option('--dry-run', 'compute and print the writes; write nothing (device mapped read-only)')
    .option('--verify', 'read every written register back (exit 1 when one differs)')
    .option('--strict', 'treat warnings (arbiters left in round robin, left-out HP bits) as errors')
    .option(
      '--save-previous <file>',
      'before writing, save the current word of every register about to change (undo with qos restore)',
    )
    .option(
      `--${HARDWARE_CONFIRMATION}`,
      'confirm that --device may be written (not needed with --dry-run)',
    )
    .addHelpText('after', APPLY_HELP)
    .action((file: string, opts: ApplyOptions) => apply(ctx, file, opts));

  deviceOptions(
    qos
      .command('restore')
      .description('write back the register words a qos apply --save-previous saved')
      .argument('<snapshot>', 'the file qos apply --save-previous wrote'),
  )
    .option('--dry-run', 'print what would be restored (current and saved words); write nothing')
    .option('--verify', 'read every restored register back (exit 1 when one differs)')
    .option(
      `--${HARDWARE_CONFIRMATION}`,
      'confirm that --device may be written (not needed with --dry-run)',
    )
    .addHelpText('after', RESTORE_HELP)
    .action((file: string, opts: RestoreOptions) => restore(ctx, file, opts));

  deviceOptions(
    qos
      .command('diff')
      .description('compare a device with a plan, field by field (writes nothing)')
      .argument('<plan>', 'QoS plan (JSON)'),
  )
    .option('--no-exit-code', 'exit 0 even when fields differ (default: exit 1 on a difference)')
    .addHelpText('after', DIFF_HELP)
    .action((file: string, opts: DiffOptions) => diff(ctx, file, opts));
}
