/**
 * `npm run gen`: the one generator of every generated file in the repository, formatted with the
 * repository's prettier settings:
 *   - csr/generated/*.ts, the typed register maps, and csr/schemas/regfile.schema.json (csr/codegen);
 *   - compiler/ir/program.schema.json, the program format's JSON Schema (compiler/ir/gen-schema.ts);
 *   - driver/qos/plan.schema.json, the QoS plan format's JSON Schema (driver/qos/gen-plan-schema.ts).
 * `npm run gen:check` (`--check`) writes nothing and exits 1 when any of them would change (the CI
 * drift check, part of `npm test`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNxdmaError } from '../common/errors.ts';
import { ROOT } from '../csr/codegen/format.ts';
import { generate as csrFiles, type GeneratedFile } from '../csr/codegen/main.ts';
import { programJsonSchema } from '../compiler/ir/gen-schema.ts';
import { planSchemaText } from '../driver/qos/gen-plan-schema.ts';

/** Every generated file with its expected content, paths relative to the package root. */
export async function generate(): Promise<GeneratedFile[]> {
  return [
    ...(await csrFiles()),
    { path: 'compiler/ir/program.schema.json', text: await programJsonSchema() },
    { path: 'driver/qos/plan.schema.json', text: await planSchemaText() },
  ];
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
      stale.length ? `gen: wrote ${stale.join(', ')}` : 'gen: generated files already up to date',
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
