/**
 * `npm run gen`: validates the register schemas (csr/schemas/*.json) and writes
 *   - csr/generated/<name>.ts and csr/generated/index.ts (the typed maps), and
 *   - csr/schemas/regfile.schema.json (the format's JSON Schema, for editors).
 * `npm run gen:check` (`--check`) writes nothing and exits 1 when any of them would change (CI
 * drift check). Output is formatted with the repository's prettier settings.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { isNxdmaError } from '../../common/errors.ts';
import { REGFILE_NAMES, regFile, schemaDisplayPath } from '../schema/files.ts';
import { regFileJsonSchema } from '../schema/format.ts';
import { emitIndexModule, emitMapModule } from './emit.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface GeneratedFile {
  /** Path relative to the package root. */
  path: string;
  text: string;
}

async function format(path: string, text: string): Promise<string> {
  const abs = resolve(ROOT, path);
  const options = (await prettier.resolveConfig(abs)) ?? {};
  return prettier.format(text, { ...options, filepath: abs });
}

/** Every generated file with its expected content. */
export async function generate(): Promise<GeneratedFile[]> {
  const out: GeneratedFile[] = [];
  for (const name of REGFILE_NAMES) {
    const model = regFile(name);
    const path = `csr/generated/${name}.ts`;
    out.push({ path, text: await format(path, emitMapModule(model, schemaDisplayPath(name))) });
  }
  out.push({
    path: 'csr/generated/index.ts',
    text: await format('csr/generated/index.ts', emitIndexModule(REGFILE_NAMES)),
  });
  const schemaPath = 'csr/schemas/regfile.schema.json';
  out.push({
    path: schemaPath,
    text: await format(schemaPath, JSON.stringify(regFileJsonSchema(), null, 2)),
  });
  return out;
}

function current(path: string): string | undefined {
  try {
    return readFileSync(resolve(ROOT, path), 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes (or, with check, compares) the generated files. Returns the paths that differ. */
export async function run(check: boolean): Promise<string[]> {
  const files = await generate();
  const stale = files.filter((f) => current(f.path) !== f.text).map((f) => f.path);
  if (!check) {
    for (const f of files) {
      if (!stale.includes(f.path)) continue;
      const abs = resolve(ROOT, f.path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, f.text);
    }
  }
  return stale;
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  try {
    const stale = await run(check);
    if (check) {
      if (stale.length) {
        console.error(
          `gen:check: generated files are out of date (run \`npm run gen\` and commit):\n` +
            stale.map((p) => `  ${p}`).join('\n'),
        );
        return 1;
      }
      console.log('gen:check: generated files are up to date');
      return 0;
    }
    console.log(
      stale.length
        ? `gen: wrote ${stale.map((p) => relative(ROOT, resolve(ROOT, p))).join(', ')}`
        : 'gen: generated files already up to date',
    );
    return 0;
  } catch (e) {
    if (isNxdmaError(e)) {
      console.error(`gen: error [${e.code}]: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
