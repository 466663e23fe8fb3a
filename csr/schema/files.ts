/**
 * The three register files nxdma ships (csr/schemas/*.json) and a cached loader for them.
 */
import { fileURLToPath } from 'node:url';
import { NxdmaError } from '../../common/errors.ts';
import { loadRegFile } from './loader.ts';
import type { RegFileModel } from './model.ts';

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

const cache = new Map<RegFileName, RegFileModel>();

/** The loaded, validated and frozen model of one shipped register file (loaded once). */
export function regFile(name: RegFileName): RegFileModel {
  if (!isRegFileName(name)) {
    throw new NxdmaError('BAD_ARGUMENT', `unknown register file '${String(name)}'`, {
      where: 'register file',
      expected: REGFILE_NAMES.join(' | '),
      actual: name,
    });
  }
  let m = cache.get(name);
  if (!m) {
    m = loadRegFile(schemaPath(name), schemaDisplayPath(name));
    cache.set(name, m);
  }
  return m;
}

/** All three shipped register files, keyed by name. */
export function regFiles(): Record<RegFileName, RegFileModel> {
  return {
    udma_m2s: regFile('udma_m2s'),
    udma_s2m: regFile('udma_s2m'),
    dge_host: regFile('dge_host'),
  };
}
