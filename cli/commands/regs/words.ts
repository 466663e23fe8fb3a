/**
 * The register words `nxdma regs` names: a path, a file offset or a BAR0 address resolved to one
 * register word of the schema model (`resolveWord`, with the errors and suggestions of a name that
 * is not one) and a word's fields decoded (`regsValue`, printed by value.ts). `regs decode` reads
 * most paths from the generated typed maps (decode.ts) and comes here for the rest.
 */
import { NxdmaError, hex } from '../../../common/errors.ts';
import {
  REGFILE_NAMES,
  isRegFileName,
  regFile,
  type RegFileName,
} from '../../../csr/schema/files.ts';
import {
  findInstance,
  type RegFileModel,
  type RegisterInstance,
} from '../../../csr/schema/model.ts';
import { parseUint } from '../../options.ts';
import { regFileMaps } from '../../../csr/generated/index.ts';
import { barLocation, nearestNames, wordsAtOffset } from '../../address.ts';
import { badArg } from '../../input.ts';
import type { CliContext } from '../../main.ts';
import { fieldOfWord, printValue, type RegsFieldValue, type RegsValue } from './value.ts';

export { printValue, type RegsFieldValue, type RegsValue } from './value.ts';

export function parseFiles(file: string | undefined): RegFileName[] {
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

/** A register word a command line named: by path, by file offset or by BAR0 address. */
export interface ResolvedWord {
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
export function resolveWord(spec: string, file?: string, profile?: string): ResolvedWord {
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
  // Only a file whose typed map has the path's first block or register can hold it: the others
  // are not built (the map is loaded anyway). Nothing found: every file is searched below.
  const head = path.split('.')[0].replace(/\[.*$/, '');
  const hits = names
    .filter(
      (n) =>
        Object.hasOwn(regFileMaps[n].blocks, head) || Object.hasOwn(regFileMaps[n].registers, head),
    )
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
  return inst.register.fields.map((f) =>
    fieldOfWord(f, word, (v) => f.enums.find((x) => x.value === v)?.name),
  );
}

export function regsValue(inst: RegisterInstance, word: number | null): RegsValue {
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

/** `regs decode` for any word resolveWord names (decode.ts reads most paths without it). */
export function decode(
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
