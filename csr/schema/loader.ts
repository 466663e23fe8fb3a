/**
 * Loads a register-file schema (csr/schemas/*.json) into the frozen model of `model.ts`.
 *
 * Validation is complete before anything is built: the zod format first (shape, names, access
 * kinds, bit syntax, this file), then the structural rules of `builder.ts`. Every problem is
 * reported with the file, the JSON path, the register path and what was expected; all problems of
 * a file are reported in one NxdmaError SCHEMA_INVALID (details.issues lists them).
 */
import { readFileSync } from 'node:fs';
import { NxdmaError } from '../../common/errors.ts';
import { RegFileDocumentSchema, type RegFileJson } from './format.ts';
import { valueAt, zodIssues, type PathSeg } from '../../common/zod-issues.ts';
import { buildRegFile, fail, type SchemaIssue } from './builder.ts';
import type { RegFileModel } from './model.ts';

export {
  buildRegFile,
  deriveAccess,
  jsonPath,
  parseNumberLike,
  type SchemaIssue,
} from './builder.ts';

/** The register-file format, as zod issues name it. */
const REGFILE_FORMAT = {
  name: 'the register-file format',
  schema: 'csr/schemas/regfile.schema.json',
};

/** Best-effort domain path for a JSON path (bundle.register.field names found along it). */
function domainWhere(root: unknown, segs: readonly PathSeg[]): string | null {
  const names: string[] = [];
  for (let i = 1; i <= segs.length; i++) {
    const key = segs[i - 2];
    if (
      typeof segs[i - 1] === 'number' &&
      (key === 'RegistersBundleArrays' || key === 'Registers' || key === 'Fields')
    ) {
      const n = (valueAt(root, segs.slice(0, i)) as { Name?: unknown } | undefined)?.Name;
      if (typeof n === 'string') names.push(n);
    }
  }
  return names.length ? names.join('.') : null;
}

/** Validates a parsed JSON document against the zod format only. */
function checkFormat(file: string, doc: unknown): RegFileJson {
  const r = RegFileDocumentSchema.safeParse(doc);
  if (r.success) return r.data;
  const issues: SchemaIssue[] = zodIssues(r.error, doc, REGFILE_FORMAT).map((i) => ({
    path: i.path,
    where: domainWhere(doc, i.segments),
    message: i.keys.length > 0 ? `${i.message} (${i.keys.join(', ')})` : i.message,
    expected: i.expected,
    actual: i.actual,
  }));
  fail(file, issues);
}

/**
 * Validates and builds a model from an already parsed JSON document. `source` names the file in
 * messages. Throws NxdmaError SCHEMA_INVALID listing every problem.
 */
export function parseRegFile(doc: unknown, source: string): RegFileModel {
  const json = checkFormat(source, doc);
  return buildRegFile(json, source);
}

/**
 * Reads, validates and builds the model of one schema file. `source` is how messages name the file
 * (defaults to `path`).
 */
export function loadRegFile(path: string, source: string = path): RegFileModel {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new NxdmaError(
      'SCHEMA_INVALID',
      `${source}: cannot read the schema: ${(e as Error).message}`,
      {
        where: source,
        expected: 'a readable register-file JSON',
      },
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new NxdmaError(
      'SCHEMA_INVALID',
      `${source}: $: not valid JSON: ${(e as Error).message}`,
      {
        where: `${source}:$`,
        expected: 'a JSON document',
      },
    );
  }
  return parseRegFile(doc, source);
}
