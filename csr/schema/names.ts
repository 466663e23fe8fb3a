/**
 * The names of the three register files nxdma ships (csr/schemas/*.json) and where their schema
 * files are. Nothing here loads or builds a file (files.ts does): a command that only needs the
 * names imports this module alone.
 */
import { fileURLToPath } from 'node:url';

export const REGFILE_NAMES = ['udma_m2s', 'udma_s2m', 'dge_host'] as const;
export type RegFileName = (typeof REGFILE_NAMES)[number];

export function isRegFileName(v: string): v is RegFileName {
  return (REGFILE_NAMES as readonly string[]).includes(v);
}

/** Absolute path of a shipped schema file. */
export function schemaPath(name: RegFileName): string {
  return fileURLToPath(new URL(`../schemas/${name}.json`, import.meta.url));
}

/** How messages name a shipped schema file (relative to the package root). */
export function schemaDisplayPath(name: RegFileName): string {
  return `csr/schemas/${name}.json`;
}
