/**
 * The three register files nxdma ships (csr/schemas/*.json) and a cached loader for them.
 *
 * The shipped files are part of the package: the build (scripts/build.mjs) and the test suite
 * (test/csr/schemas.test.ts) run each through the full loader, zod format included. Here they are
 * built with the structural rules only (`builder.ts`), so that reading a register does not load
 * zod. Any other schema file goes through `loadRegFile`.
 */
import { readFileSync } from 'node:fs';
import { NxdmaError } from '../../common/errors.ts';
import { buildRegFile } from './builder.ts';
import type { RegFileJson } from './format.ts';
import type { RegFileModel } from './model.ts';
import {
  REGFILE_NAMES,
  isRegFileName,
  schemaDisplayPath,
  schemaPath,
  type RegFileName,
} from './names.ts';

export { REGFILE_NAMES, isRegFileName, schemaDisplayPath, schemaPath, type RegFileName };

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
    const json = JSON.parse(readFileSync(schemaPath(name), 'utf8')) as RegFileJson;
    m = buildRegFile(json, schemaDisplayPath(name));
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
