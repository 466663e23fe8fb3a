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
 * `decode` needs no device. Each sub-command is one function below, registered on the `regs`
 * command.
 */
import type { Command } from 'commander';
import { NxdmaError, hex } from '../../common/errors.ts';
// Only what `regs list` and `regs decode` need is imported here; the mock, the mapped back end
// and the driver's shadow load when a command opens a device (docs/packaging.md, start-up).
import { fieldValue } from '../../csr/runtime/fields.ts';
import { REGFILE_NAMES, isRegFileName, regFile, type RegFileName } from '../../csr/schema/files.ts';
import {
  findInstance,
  type FieldModel,
  type RegFileModel,
  type RegisterInstance,
} from '../../csr/schema/model.ts';
import type { Device, RegisterIO } from '../../csr/io.ts';
import type { AnyRegister } from '../../csr/runtime/types.ts';
import { getProfile } from '../../csr/profiles.ts';
import type { UdmaFileName } from '../../driver/udma/regs.ts';
import {
  HARDWARE_CONFIRMATION,
  checkDeviceChoice,
  confirmationOption,
  parseUint,
  uintOption,
} from '../options.ts';
import type { CliContext } from '../main.ts';
import { barLocation, nearestNames, wordsAtOffset } from '../address.ts';
import { badArg } from '../input.ts';
import { paint, table } from '../output.ts';
import { registerExport } from './regs-export.ts';

/** One register word as `regs list --json` prints it. */
export interface RegsListEntry {
  file: string;
  path: string;
  /** Absolute byte offset in the file's window. */
  offset: number;
  access: string;
  /** Reset word (unknown field resets count as 0; see resetKnown). */
  reset: number;
  resetKnown: boolean;
  provenance: string;
  inferred: boolean;
  /** For a doorbell (INC): the "register.field" a write adds to. */
  incrementTarget?: string;
  fields: {
    name: string;
    lsb: number;
    width: number;
    access: string;
    reset: number;
    resetKnown: boolean;
    provenance: string;
  }[];
}

function parseFiles(file: string | undefined): RegFileName[] {
  if (file === undefined) return [...REGFILE_NAMES];
  if (!isRegFileName(file)) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `--file must be one of ${REGFILE_NAMES.join(', ')}, got '${file}'`,
      {
        where: '--file',
        expected: REGFILE_NAMES.join(' | '),
        actual: file,
      },
    );
  }
  return [file];
}

export function listEntry(i: RegisterInstance): RegsListEntry {
  const r = i.register;
  const e: RegsListEntry = {
    file: i.file,
    path: i.path,
    offset: i.offset,
    access: r.access,
    reset: r.reset,
    resetKnown: r.resetKnown,
    provenance: r.provenance,
    inferred: r.inferred,
    fields: r.fields.map((f) => ({
      name: f.name,
      lsb: f.lsb,
      width: f.width,
      access: f.access,
      reset: f.reset,
      resetKnown: f.resetKnown,
      provenance: f.provenance,
    })),
  };
  if (r.incrementTarget)
    e.incrementTarget = `${r.incrementTarget.register}.${r.incrementTarget.field}`;
  return e;
}

interface ListOptions {
  file?: string;
  match?: string;
  inferred?: boolean;
  json?: boolean;
}

function list(ctx: CliContext, opts: ListOptions): void {
  const files = parseFiles(opts.file).map((n) => regFile(n));
  const keep = (i: RegisterInstance) =>
    (!opts.match || i.path.toLowerCase().includes(opts.match.toLowerCase())) &&
    (!opts.inferred || i.register.inferred);
  const rows = files.flatMap((f) => f.instances.filter(keep));
  if (opts.json) {
    ctx.out.json({ registers: rows.map(listEntry) });
    return;
  }
  const out = ctx.out;
  out.log(
    table(
      ['file', 'path', 'offset', 'access', 'reset', 'provenance', 'fields'],
      rows.map((i) => {
        const r = i.register;
        const fields = r.fields.length
          ? r.fields
              .map(
                (f) =>
                  `${f.name}[${f.width > 1 ? `${f.msb}:` : ''}${f.lsb}]${f.inferred ? '*' : ''}`,
              )
              .join(' ')
          : '(whole word)';
        const prov = r.inferred ? paint(out, 33, 'inferred') : r.provenance;
        return [
          i.file,
          i.path,
          hex(i.offset, 5),
          r.incrementTarget ? `INC>${r.incrementTarget.register}` : r.access,
          hex(r.reset, 8) + (r.resetKnown ? '' : '?'),
          prov,
          fields,
        ];
      }),
    ),
  );
  out.log('');
  out.log(
    "reset ending in '?': not every field's reset is known (unknown counts as 0); field*: inferred",
  );
  for (const f of files) {
    const inferred = f.instances.filter((i) => i.register.inferred).length;
    out.log(
      `${f.name}: window ${hex(f.size)} bytes, ${f.instances.length} register words` +
        (inferred ? ` (${inferred} inferred: not written to hardware without an opt-in)` : ''),
    );
    for (const g of f.knownGaps) {
      out.log(
        `  known gap: ${g.block ? `${g.block}.` : ''}${g.name} (${g.provenance}): ${g.description}`,
      );
    }
  }
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

// ---- register access: read, write, dump, decode -------------------------------------------------

/** One decoded field as `regs read/write/dump/decode --json` print it. */
export interface RegsFieldValue {
  name: string;
  /** "hi:lo". */
  bits: string;
  access: string;
  value: number;
  /** The enumerated name of the value, when the field has names and the value is one. */
  enum?: string;
  inferred: boolean;
}

/** One register word and its value as `regs read/dump/decode --json` print it. */
export interface RegsValue {
  file: string;
  path: string;
  offset: number;
  access: string;
  inferred: boolean;
  /** The word; null when the register cannot be read (WO, INC). */
  value: number | null;
  fields: RegsFieldValue[];
}

interface DeviceCliOptions {
  mock?: boolean;
  device?: string;
  profile: string;
  engine: string;
  core: string;
  json?: boolean;
  /** --i-understand-this-writes-to-hardware (regs write). */
  iUnderstandThisWritesToHardware?: boolean;
}

/** A register word a command line named: by path, by file offset or by BAR0 address. */
interface ResolvedWord {
  model: RegFileModel;
  inst: RegisterInstance;
  /** The engine a BAR0 address names. */
  engine?: number;
  /** How an address was read ("trn2 BAR0 0x82001084 = udma0 udma_m2s + 0x1084"). */
  via?: string;
}

/**
 * The register word a path or an address names: "M2S_Q[3].dwrr_cfg_2" (searched in every register
 * file; the paths of the three files do not collide), "udma_s2m:S2M_Q[0].cfg", a path with --file;
 * a byte offset within a register file ("0x1084", "udma_s2m:0x1054"); with `profile`, a BAR0
 * address past every register file ("0x82001084": engine, file and offset from the profile).
 */
function resolveWord(spec: string, file?: string, profile?: string): ResolvedWord {
  let path = spec;
  let names = parseFiles(file);
  const colon = spec.indexOf(':');
  if (colon > 0) {
    names = parseFiles(spec.slice(0, colon));
    path = spec.slice(colon + 1);
  }
  const addr = parseUint(path);
  if (addr !== undefined) {
    const largest = Math.max(...names.map((n) => regFile(n).size));
    if (addr < largest || profile === undefined) {
      const hits = wordsAtOffset(names, addr, spec);
      if (hits.length > 1) {
        throw badArg(
          'path',
          `offset ${hex(addr)} names a register in ${hits.map((h) => `${h.model.name} (${h.inst.path})`).join(' and ')}; say which`,
          `file:offset (${hits.map((h) => `${h.model.name}:${hex(addr)}`).join(', ')}) or --file`,
          spec,
        );
      }
      return hits[0];
    }
    const loc = barLocation(profile, addr);
    if (loc === null || !names.includes(loc.file)) {
      throw new NxdmaError(
        'REGISTER_UNKNOWN',
        `${hex(addr)} is not in a UDMA register file (${names.join(', ')}) of profile ${profile}`,
        {
          where: spec,
          expected: `a file offset (below ${hex(largest)}) or a BAR0 address of a register of ${profile}`,
          actual: hex(addr),
        },
      );
    }
    const [hit] = wordsAtOffset([loc.file], loc.offset, spec);
    return {
      ...hit,
      engine: loc.engine,
      via: `${loc.profile} BAR0 ${hex(addr)} = udma${loc.engine} ${loc.file} + ${hex(loc.offset)}`,
    };
  }
  const hits = names
    .map((n) => regFile(n))
    .map((model) => ({ model, inst: findInstance(model, path) }))
    .filter((h): h is { model: RegFileModel; inst: RegisterInstance } => h.inst !== undefined);
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) {
    throw badArg(
      'path',
      `'${path}' names a register in ${hits.map((h) => h.model.name).join(' and ')}; say which`,
      `file:path (${hits.map((h) => `${h.model.name}:${path}`).join(', ')}) or --file`,
      spec,
    );
  }
  const stem = (path.split('.').pop() ?? path).replace(/\[\d*\]?/g, '').toLowerCase();
  let near = names
    .flatMap((n) => regFile(n).instances)
    .filter((i) => i.register.name.toLowerCase() === stem && !i.blockIndex && !i.index)
    .slice(0, 4)
    .map((i) => `${i.file}:${i.path}`);
  if (near.length === 0) {
    // a typo: the nearest register names, in the path as written
    const raw = path.split('.').pop() ?? path;
    const bare = raw.replace(/\[\d*\]?$/, '');
    near = nearestNames(bare, names).map(
      (n) => `${n.file}:${path.slice(0, path.length - raw.length)}${raw.replace(bare, n.name)}`,
    );
  }
  throw new NxdmaError(
    'REGISTER_UNKNOWN',
    `no register at path '${path}' in ${names.join(', ')}` +
      (near.length ? ` (did you mean ${near.join(', ')}?)` : ''),
    {
      where: spec,
      expected:
        'block.register, block[i].register, register[i], a file offset (0x1084) or, with --profile, a BAR0 address (see nxdma regs list)',
      actual: path,
      ...(near.length ? { suggestions: near } : {}),
    },
  );
}

function fieldValues(inst: RegisterInstance, word: number): RegsFieldValue[] {
  return inst.register.fields.map((f) => {
    const value = fieldValue(word, f);
    const e = f.enums.find((x) => x.value === value);
    const out: RegsFieldValue = {
      name: f.name,
      bits: `${f.msb}:${f.lsb}`,
      access: f.access,
      value,
      inferred: f.inferred,
    };
    if (e) out.enum = e.name;
    return out;
  });
}

function regsValue(inst: RegisterInstance, word: number | null): RegsValue {
  return {
    file: inst.file,
    path: inst.path,
    offset: inst.offset,
    access: inst.register.access,
    inferred: inst.register.inferred,
    value: word,
    fields: word === null ? [] : fieldValues(inst, word),
  };
}

function printValue(ctx: CliContext, v: RegsValue, suffix = ''): void {
  const word = v.value === null ? `(${v.access}: not readable)` : hex(v.value, 8);
  ctx.out.log(`${v.file} ${v.path} @ ${hex(v.offset)} = ${word}${suffix}`);
  for (const f of v.fields) {
    ctx.out.log(
      `  ${f.name.padEnd(28)} [${f.bits.padStart(5)}] = ${String(f.value).padStart(10)}  ${hex(f.value)}` +
        (f.enum ? `  ${f.enum}` : '') +
        (f.inferred ? '  (inferred)' : ''),
    );
  }
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
    import('../../csr/runtime/accessor.ts'),
    import('../../csr/generated/index.ts'),
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
    const { MockDevice } = await import('../../mocks/device.ts');
    const device = new MockDevice({
      profile: opts.profile,
      engines: [engine],
      dgeCores: [{ core }],
    });
    return { device, engine, core, close: () => undefined, handle: await accessorRuntime() };
  }
  getProfile(opts.profile);
  const { openCliDevice } = await import('../device-open.ts');
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

interface ReadOptions extends DeviceCliOptions {
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
function engineGiven(cmd: Command | undefined): boolean {
  return cmd?.getOptionValueSource('engine') === 'cli';
}

async function read(
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

interface WriteOptions extends DeviceCliOptions {
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

async function write(
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
  const { deviceShadow } = await import('../../driver/udma/shadow.ts');
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

interface DumpOptions extends DeviceCliOptions {
  file?: string;
  block?: string;
}

async function dump(ctx: CliContext, opts: DumpOptions): Promise<void> {
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

function decode(
  ctx: CliContext,
  path: string,
  value: string,
  opts: { file?: string; json?: boolean; profile?: string },
): void {
  const r = resolveWord(path, opts.file, opts.profile);
  const { inst } = r;
  const word = parseUint(value);
  if (word === undefined || word > 0xffffffff) {
    throw badArg(
      'value',
      `'${value}' is not a 32-bit value`,
      '0..0xffffffff (0x..., 0b... or decimal)',
      value,
    );
  }
  const v = regsValue(inst, word);
  if (opts.json)
    ctx.out.json({ ...v, ...(r.engine !== undefined ? { engine: r.engine, via: r.via } : {}) });
  else {
    if (r.via) ctx.out.log(r.via);
    printValue(ctx, v);
  }
}

function deviceOptions(cmd: Command): Command {
  return cmd
    .option('--mock', 'a fresh in-memory mock device (reset values; nothing persists between runs)')
    .option('--device <file>', 'a mapped device: the BAR0 file (resource0, /dev/mem, a UIO device)')
    .option('--profile <name>', 'device profile', 'trn2')
    .option('--engine <n>', 'UDMA engine for udma_m2s / udma_s2m', '0')
    .option('--core <n>', 'DGE core for dge_host (mock)', '0')
    .option('--json', 'machine-readable output');
}

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
    .action((opts: ListOptions) => list(ctx, opts));

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
      read(ctx, path, opts, engineGiven(cmd)),
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
      write(ctx, path, assignments, opts, engineGiven(cmd)),
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
    .action((opts: DumpOptions) => dump(ctx, opts));

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
    .action(
      (path: string, value: string, opts: { file?: string; json?: boolean; profile?: string }) =>
        decode(ctx, path, value, opts),
    );

  registerExport(regs, ctx);
}
