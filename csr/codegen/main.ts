/**
 * The generated files of csr/: validates the register schemas (csr/schemas/*.json) and gives
 *   - csr/generated/<name>.ts and csr/generated/index.ts (the typed maps), and
 *   - csr/schemas/regfile.schema.json (the format's JSON Schema, for editors),
 * formatted with the repository's prettier settings. `npm run gen` (scripts/gen.ts) writes them
 * with every other generated schema; `npm run gen:check` checks them for drift.
 */
import { REGFILE_NAMES, regFile, schemaDisplayPath } from '../schema/files.ts';
import { regFileJsonSchema } from '../schema/format.ts';
import { emitIndexModule, emitMapModule } from './emit.ts';
import { formatGenerated as format } from './format.ts';

export interface GeneratedFile {
  /** Path relative to the package root. */
  path: string;
  text: string;
}

/** Every generated file of csr/ with its expected content. */
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
