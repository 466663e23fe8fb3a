/**
 * `nxdma regs read | write | dump`: register access on a device the options name (a fresh mock
 * or a mapped device file, read-only unless the command writes it), through the accessor runtime
 * (csr/runtime), loaded only when a command opens a device (docs/packaging.md, start-up).
 */
import type { Command } from 'commander';
import { NxdmaError, hex } from '../../../common/errors.ts';
import { REGFILE_NAMES, regFile, type RegFileName } from '../../../csr/schema/files.ts';
import type { FieldModel, RegisterInstance } from '../../../csr/schema/model.ts';
import type { Device, RegisterIO } from '../../../csr/io.ts';
import type { AnyRegister } from '../../../csr/runtime/types.ts';
import { getProfile } from '../../../csr/profiles.ts';
import type { UdmaFileName } from '../../../driver/udma/regs.ts';
import { checkDeviceChoice, parseUint, uintOption } from '../../options.ts';
import type { CliContext } from '../../main.ts';
import { badArg } from '../../input.ts';
import { table } from '../../output.ts';
import {
  parseFiles,
  printValue,
  regsValue,
  resolveWord,
  type RegsValue,
  type ResolvedWord,
} from './words.ts';

export interface DeviceCliOptions {
  mock?: boolean;
  device?: string;
  profile: string;
  engine: string;
  core: string;
  json?: boolean;
  /** --i-understand-this-writes-to-hardware (regs write). */
  iUnderstandThisWritesToHardware?: boolean;
}

/** A device opened for one command, with the engine and DGE core it addresses. */
interface Target {
  device: Device;
  engine: number;
  core: number;
  close(): void;
  /** The accessor of a register word over `io` (the accessor runtime, loaded with the device). */
  handle(
    inst: RegisterInstance,
    io: RegisterIO,
    opts: { hardware: boolean; allowInferred?: boolean },
  ): AnyRegister;
}

/** The accessor runtime over the generated maps, loaded by the commands that open a device. */
async function accessorRuntime(): Promise<Target['handle']> {
  const [{ registerAt }, { regFileMaps }] = await Promise.all([
    import('../../../csr/runtime/accessor.ts'),
    import('../../../csr/generated/index.ts'),
  ]);
  return (inst, io, opts) => registerAt(regFileMaps[inst.file as RegFileName], io, inst.path, opts);
}

/**
 * The device the options name: a fresh mock, or a mapped device file, read-only unless the
 * command `writes` (then --device needs the confirmation flag). Validated before opening.
 */
async function openTarget(opts: DeviceCliOptions, writes: boolean): Promise<Target> {
  const engine = uintOption(opts.engine, '--engine', { what: 'an engine id' })!;
  const core = uintOption(opts.core, '--core', { what: 'a DGE core id' })!;
  checkDeviceChoice(opts, writes);
  if (opts.mock) {
    const { MockDevice } = await import('../../../mocks/device.ts');
    const device = new MockDevice({
      profile: opts.profile,
      engines: [engine],
      dgeCores: [{ core }],
    });
    return { device, engine, core, close: () => undefined, handle: await accessorRuntime() };
  }
  getProfile(opts.profile);
  const { openCliDevice } = await import('../../device-open.ts');
  const device = openCliDevice(opts, { engines: [engine], writes });
  return { device, engine, core, close: () => device.dispose(), handle: await accessorRuntime() };
}

function windowOf(t: { device: Device; engine: number; core: number }, file: string): RegisterIO {
  if (file === 'udma_m2s') return t.device.udma(t.engine).m2s;
  if (file === 'udma_s2m') return t.device.udma(t.engine).s2m;
  if (!t.device.dgeCores().includes(t.core)) {
    throw badArg(
      '--core',
      `${t.device.name} maps no DGE core ${t.core}: the dge_host table is reachable on --mock only`,
      `a DGE core of the device (${t.device.dgeCores().join(', ') || 'none'})`,
      t.core,
    );
  }
  return t.device.dgeCore(t.core).dram;
}

function deviceLabel(t: { device: Device; engine: number; core: number }, file: string): string {
  return file === 'dge_host'
    ? `${t.device.name}, DGE core ${t.core}`
    : `${t.device.name}, engine ${t.engine}`;
}

async function withTarget<T>(
  opts: DeviceCliOptions,
  writes: boolean,
  f: (t: Target) => T,
): Promise<T> {
  const t = await openTarget(opts, writes);
  try {
    return f(t);
  } finally {
    t.close();
  }
}

function handleFor(t: Target, inst: RegisterInstance, allowInferred = false) {
  return t.handle(inst, windowOf(t, inst.file), { hardware: t.device.isHardware, allowInferred });
}

export interface ReadOptions extends DeviceCliOptions {
  file?: string;
}

/**
 * The options with the engine a BAR0 address named (an explicit, different --engine is refused).
 */
function engineFrom<T extends DeviceCliOptions>(opts: T, r: ResolvedWord, engineGiven: boolean): T {
  if (r.engine === undefined) return opts;
  if (engineGiven && parseUint(opts.engine) !== r.engine) {
    throw badArg(
      '--engine',
      `--engine ${opts.engine} contradicts the address (${r.via})`,
      `--engine ${r.engine}, or no --engine`,
      opts.engine,
    );
  }
  return { ...opts, engine: String(r.engine) };
}

/** True when the user gave --engine (not its default). */
export function engineGiven(cmd: Command | undefined): boolean {
  return cmd?.getOptionValueSource('engine') === 'cli';
}

export async function read(
  ctx: CliContext,
  path: string,
  opts: ReadOptions,
  given = false,
): Promise<void> {
  const r = resolveWord(path, opts.file, opts.profile);
  const { inst } = r;
  await withTarget(engineFrom(opts, r, given), false, (t) => {
    const h = handleFor(t, inst);
    const v = regsValue(inst, h.readRaw());
    if (opts.json)
      ctx.out.json({
        ...v,
        device: t.device.name,
        engine: t.engine,
        ...(r.via ? { via: r.via } : {}),
      });
    else {
      if (r.via) ctx.out.log(r.via);
      printValue(ctx, v, `  (${deviceLabel(t, inst.file)})`);
    }
  });
}

/** Forwards reads; records the last word written and forwards writes unless told not to. */
class WriteCapture implements RegisterIO {
  readonly size: number;
  written: number | null = null;
  constructor(
    private readonly inner: RegisterIO,
    private readonly forward: boolean,
  ) {
    this.size = inner.size;
  }
  read32(offset: number): number {
    return this.inner.read32(offset);
  }
  write32(offset: number, value: number): void {
    if (this.forward) this.inner.write32(offset, value);
    this.written = value >>> 0;
  }
}

export interface WriteOptions extends DeviceCliOptions {
  file?: string;
  allowInferred?: boolean;
  dryRun?: boolean;
}

/** Parses "field=value" arguments against the register: every field writable, every value in range. */
function parseAssignments(inst: RegisterInstance, args: readonly string[]): Record<string, number> {
  const reg = inst.register;
  const out: Record<string, number> = {};
  if (args.length === 0) {
    throw badArg(
      'field=value',
      `nothing to write to ${inst.path}`,
      'one or more field=value',
      args,
    );
  }
  for (const a of args) {
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : '';
    const text = eq > 0 ? a.slice(eq + 1) : '';
    const f: FieldModel | undefined = reg.fields.find((x) => x.name === name);
    if (!f) {
      const names = reg.fields.filter((x) => x.writable).map((x) => x.name);
      throw new NxdmaError(
        eq > 0 ? 'REGISTER_UNKNOWN' : 'BAD_ARGUMENT',
        eq > 0
          ? `${inst.path} has no field '${name}'` +
              (names.length
                ? ` (writable fields: ${names.join(', ')})`
                : ' (it has no named fields)')
          : `'${a}' is not field=value`,
        { where: `${inst.path}.${name}`, expected: names.join(' | ') || 'no field', actual: a },
      );
    }
    if (!f.writable) {
      throw new NxdmaError(
        'REGISTER_READ_ONLY',
        `${inst.path}.${f.name} is ${f.access}: it cannot be written`,
        {
          where: `${inst.path}.${f.name}`,
          expected: 'a writable field (RW, WO, W1C, INC)',
          actual: f.access,
        },
      );
    }
    const byName = f.enums.find((x) => x.name.toLowerCase() === text.trim().toLowerCase());
    const v = byName ? byName.value : parseUint(text);
    if (v === undefined || v > f.max) {
      throw new NxdmaError(
        'OUT_OF_RANGE',
        `${inst.path}.${f.name}: '${text}' is not ${f.enums.length ? 'a value name or ' : ''}an integer in 0..${f.max} (${f.width}-bit field)`,
        {
          where: `${inst.path}.${f.name}`,
          expected:
            `0..${f.max}` + (f.enums.length ? ` or ${f.enums.map((x) => x.name).join(' | ')}` : ''),
          actual: text,
        },
      );
    }
    out[f.name] = v;
  }
  return out;
}

export async function write(
  ctx: CliContext,
  path: string,
  assignments: string[],
  options: WriteOptions,
  given = false,
): Promise<void> {
  const r = resolveWord(path, options.file, options.profile);
  const { inst } = r;
  const opts = engineFrom(options, r, given);
  const update = parseAssignments(inst, assignments);
  const reg = inst.register;
  if (reg.inferred && !opts.allowInferred) {
    throw new NxdmaError(
      'REGISTER_INFERRED',
      `${inst.file}:${inst.path} is inferred (${reg.inferredReasons.join(', ')}): no source states it; ` +
        'pass --allow-inferred to write it anyway',
      {
        where: `${inst.file}:${inst.path}`,
        expected: 'a register no part of which is inferred, or --allow-inferred',
        actual: reg.inferredReasons,
      },
    );
  }
  const { deviceShadow } = await import('../../../driver/udma/shadow.ts');
  await withTarget(opts, opts.dryRun !== true, (t) => {
    // The runtime decides the word (modify: read, fields replaced; write: from the reset word);
    // the capture records it, and forwards it unless this is a dry run. A UDMA register is written
    // through the device's register shadow, so the shadow stays true.
    const raw = windowOf(t, inst.file);
    const io =
      inst.file === 'dge_host'
        ? raw
        : deviceShadow(t.device).bind(t.engine, inst.file as UdmaFileName, raw);
    const cap = new WriteCapture(io, !opts.dryRun);
    const h = t.handle(inst, cap, {
      hardware: t.device.isHardware,
      allowInferred: opts.allowInferred,
    });
    const before = reg.readable ? h.readRaw() : null;
    if (reg.readable) h.modify(update);
    else h.write(update);
    const word = cap.written ?? 0;
    const after = !opts.dryRun && reg.readable ? h.readRaw() : null;
    const json = {
      ...regsValue(inst, after ?? word),
      device: t.device.name,
      engine: t.engine,
      dryRun: Boolean(opts.dryRun),
      update,
      before,
      written: word,
      after,
    };
    if (opts.json) {
      ctx.out.json(json);
      return;
    }
    ctx.out.log(
      `${opts.dryRun ? 'would write' : 'wrote'} ${hex(word, 8)} to ${inst.file} ${inst.path} @ ${hex(inst.offset)}` +
        ` (${deviceLabel(t, inst.file)})` +
        (before === null ? '' : `; was ${hex(before, 8)}`) +
        (after === null ? '' : `; reads back ${hex(after, 8)}`),
    );
    printValue(ctx, regsValue(inst, after ?? word));
  });
}

export interface DumpOptions extends DeviceCliOptions {
  file?: string;
  block?: string;
}

export async function dump(ctx: CliContext, opts: DumpOptions): Promise<void> {
  let files = opts.file
    ? parseFiles(opts.file)
    : opts.mock
      ? [...REGFILE_NAMES]
      : ['udma_m2s' as const, 'udma_s2m' as const];
  if (opts.block !== undefined) {
    const with_ = files.filter((n) => regFile(n).blocks.some((b) => b.name === opts.block));
    if (with_.length === 0) {
      const blocks = files.flatMap((n) => regFile(n).blocks.map((b) => b.name));
      throw badArg(
        '--block',
        `no block '${opts.block}' in ${files.join(', ')}`,
        blocks.join(' | '),
        opts.block,
      );
    }
    files = with_;
  }
  await withTarget(opts, false, (t) => {
    const out: (RegsValue & { device: string })[] = [];
    for (const n of files) {
      const model = regFile(n);
      for (const inst of model.instances) {
        if (opts.block !== undefined && inst.block?.name !== opts.block) continue;
        const word = inst.register.readable ? handleFor(t, inst).readRaw() : null;
        out.push({ ...regsValue(inst, word), device: deviceLabel(t, n) });
      }
    }
    if (opts.json) {
      ctx.out.json({ registers: out });
      return;
    }
    for (const v of out) printValue(ctx, v);
    ctx.out.log('');
    ctx.out.log(`${out.length} register words of ${files.join(', ')} (${t.device.name})`);
  });
}
