/**
 * The text of compiler/ir/program.schema.json, the JSON Schema of the program format, from the
 * zod schema (the one source). `npm run gen` (scripts/gen.ts) writes it, `npm run gen:check` and
 * test/compiler/ir/program.test.ts check the committed file against it.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { formatGenerated } from '../../csr/codegen/format.ts';
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
  return formatGenerated('compiler/ir/program.schema.json', JSON.stringify(doc));
}
