/**
 * Writes compiler/ir/program.schema.json, the JSON Schema of the program format, from the zod
 * schema (the one source). `--check` exits 1 when the committed file differs from what the schema
 * generates (test/compiler/ir/program.test.ts runs the same comparison).
 *
 *   npx tsx compiler/ir/gen-schema.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { z } from 'zod';
import { PROGRAM_FORMAT, ProgramSchema } from './program.ts';

export const SCHEMA_PATH = fileURLToPath(new URL('./program.schema.json', import.meta.url));

/** The JSON Schema text (input shape: defaults may be omitted), formatted as committed. */
export async function programJsonSchema(): Promise<string> {
  const schema = z.toJSONSchema(ProgramSchema, { io: 'input', target: 'draft-2020-12' });
  const doc = {
    $id: 'https://nxdma.dev/schemas/program.schema.json',
    title: `nxdma program (${PROGRAM_FORMAT})`,
    description:
      'A DMA program for the nxdma compiler front end: memory regions and tensors with addresses, functions, basic blocks and instructions. See docs/program-format.md.',
    ...schema,
  };
  const config = (await resolveConfig(SCHEMA_PATH)) ?? {};
  return format(JSON.stringify(doc), { ...config, parser: 'json' });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await programJsonSchema();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(SCHEMA_PATH, 'utf8');
    } catch {
      // missing counts as different
    }
    if (current !== text) {
      console.error(`${SCHEMA_PATH} is out of date: run npx tsx compiler/ir/gen-schema.ts`);
      process.exit(1);
    }
    console.log(`${SCHEMA_PATH} is up to date`);
  } else {
    writeFileSync(SCHEMA_PATH, text);
    console.log(`wrote ${SCHEMA_PATH}`);
  }
}
