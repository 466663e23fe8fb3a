/**
 * The one formatter of generated files: the repository's prettier settings for the file's path,
 * so a generated file is byte for byte what `npm run format` would leave. Used by every producer
 * of a generated file (the register maps and schemas here, the program and QoS plan JSON Schemas)
 * and by scripts/gen.ts, the one generator script.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `text` formatted as the repository formats `path` (relative to the package root). */
export async function formatGenerated(path: string, text: string): Promise<string> {
  const prettier = await import('prettier');
  const abs = resolve(ROOT, path);
  const options = (await prettier.resolveConfig(abs)) ?? {};
  return prettier.format(text, { ...options, filepath: abs });
}
