/**
 * The text of driver/qos/plan.schema.json, the JSON Schema of the QoS plan format, from its zod
 * schema (driver/qos/plan.ts), formatted as the repository formats JSON. `npm run gen`
 * (scripts/gen.ts) writes it; `npm run gen:check` and a test check the committed file.
 */
import { fileURLToPath } from 'node:url';
import { formatGenerated } from '../../csr/codegen/format.ts';
import { qosPlanJsonSchema } from './plan.ts';

export const PLAN_SCHEMA_PATH = fileURLToPath(new URL('./plan.schema.json', import.meta.url));

/** The file's exact content. */
export async function planSchemaText(): Promise<string> {
  return formatGenerated(
    'driver/qos/plan.schema.json',
    JSON.stringify(qosPlanJsonSchema(), null, 2),
  );
}
