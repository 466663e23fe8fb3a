/**
 * Writes driver/qos/plan.schema.json, the JSON Schema of the QoS plan format, from its zod schema
 * (driver/qos/plan.ts), formatted as the repository formats JSON. A test checks the committed file
 * against this output.
 *
 *   npx tsx driver/qos/gen-plan-schema.ts          # write
 *   npx tsx driver/qos/gen-plan-schema.ts --check  # exit 1 when the file is stale
 */
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { qosPlanJsonSchema } from './plan.ts';

export const PLAN_SCHEMA_PATH = fileURLToPath(new URL('./plan.schema.json', import.meta.url));

/** The file's exact content. */
export async function planSchemaText(): Promise<string> {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(PLAN_SCHEMA_PATH)) ?? {};
  return prettier.format(JSON.stringify(qosPlanJsonSchema(), null, 2), {
    ...config,
    parser: 'json',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = await planSchemaText();
  if (process.argv.includes('--check')) {
    const cur = fs.existsSync(PLAN_SCHEMA_PATH) ? fs.readFileSync(PLAN_SCHEMA_PATH, 'utf8') : '';
    if (cur !== text) {
      process.stderr.write(
        `${PLAN_SCHEMA_PATH} is stale: run npx tsx driver/qos/gen-plan-schema.ts\n`,
      );
      process.exit(1);
    }
  } else {
    fs.writeFileSync(PLAN_SCHEMA_PATH, text);
    process.stdout.write(`wrote ${PLAN_SCHEMA_PATH}\n`);
  }
}
