/**
 * `nxdma regs decode <path> <value>`: a raw 32-bit word of a register decoded into its fields, no
 * device. A path that names a register of one shipped file (block.register, block[i].register,
 * register[i], with its file prefix or found by name) is read from the generated typed map of that
 * file (csr/generated), which is made from the same schema as the loader's model: the command then
 * neither loads nor builds a schema. Anything else (an address, a name in two files or in none,
 * a bad --file) goes through resolveWord (words.ts), loaded only then, which decodes the same
 * register the same way and reports what is wrong (test/cli/regs-decode.test.ts compares the two
 * on every register word of the three files).
 */
import { regFileMaps } from '../../../csr/generated/index.ts';
import { mapInstanceAt, type MapInstance } from '../../../csr/schema/map.ts';
import { REGFILE_NAMES, isRegFileName, type RegFileName } from '../../../csr/schema/names.ts';
import type { CliContext } from '../../main.ts';
import { parseUint } from '../../options.ts';
import { fieldOfWord, printValue, type RegsValue } from './value.ts';

export interface DecodeOptions {
  file?: string;
  json?: boolean;
  profile?: string;
}

/**
 * The word `spec` names when it is a path of exactly one of the files it may be in, decoded as
 * `word`; undefined for anything resolveWord has to read (or to refuse).
 */
export function decodeFromMaps(
  spec: string,
  word: number,
  file: string | undefined,
): RegsValue | undefined {
  let path = spec;
  let files = file;
  const colon = spec.indexOf(':');
  if (colon > 0) {
    files = spec.slice(0, colon);
    path = spec.slice(colon + 1);
  }
  if (files !== undefined && !isRegFileName(files)) return undefined;
  if (parseUint(path) !== undefined) return undefined;
  const names: readonly RegFileName[] = files === undefined ? REGFILE_NAMES : [files];
  let hit: MapInstance | undefined;
  let hitFile: RegFileName | undefined;
  for (const n of names) {
    const i = mapInstanceAt(regFileMaps[n], path);
    if (i === undefined) continue;
    if (hit !== undefined) return undefined; // in two files: resolveWord says which
    hit = i;
    hitFile = n;
  }
  if (hit === undefined) return undefined;
  const r = hit.register;
  return {
    file: hitFile!,
    path: hit.path,
    offset: hit.offset,
    access: r.access,
    inferred: r.inferred,
    value: word,
    fields: Object.entries(r.fields)
      .sort((a, b) => a[1].lsb - b[1].lsb)
      .map(([name, f]) =>
        fieldOfWord({ name, ...f }, word, (v) => {
          if (f.values === undefined) return undefined;
          for (const k in f.values) if (f.values[k] === v) return k;
          return undefined;
        }),
      ),
  };
}

export async function decode(
  ctx: CliContext,
  path: string,
  value: string,
  opts: DecodeOptions,
): Promise<void> {
  const word = parseUint(value);
  const v =
    word !== undefined && word <= 0xffffffff ? decodeFromMaps(path, word, opts.file) : undefined;
  if (v === undefined) return (await import('./words.ts')).decode(ctx, path, value, opts);
  if (opts.json) ctx.out.json(v);
  else printValue(ctx, v);
}
