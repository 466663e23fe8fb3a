/**
 * Loads a register-file schema (csr/schemas/*.json) into the frozen model of `model.ts`.
 *
 * Validation is complete before anything is built: the zod format first (shape, names, access
 * kinds, bit syntax, this file), then the structural rules of `builder.ts`. Every problem is
 * reported with the file, the JSON path, the register path and what was expected; all problems of
 * a file are reported in one NxdmaError SCHEMA_INVALID (details.issues lists them).
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { NxdmaError } from '../../common/errors.ts';
import { RegFileDocumentSchema, type RegFileJson } from './format.ts';
import { buildRegFile, fail, jsonPath, type PathSeg, type SchemaIssue } from './builder.ts';
import type { RegFileModel } from './model.ts';

export {
  buildRegFile,
  deriveAccess,
  jsonPath,
  parseNumberLike,
  type SchemaIssue,
} from './builder.ts';

function zodExpected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return 'only the keys of the register-file format (see csr/schemas/regfile.schema.json)';
    case 'invalid_type':
      return `a value of type ${issue.expected}`;
    case 'invalid_format':
      return issue.format === 'regex' ? `a string matching ${issue.pattern}` : issue.format;
    case 'too_small':
      return `at least ${issue.minimum}`;
    case 'too_big':
      return `at most ${issue.maximum}`;
    default:
      return 'a value of the register-file format';
  }
}

function getAt(root: unknown, segs: readonly PathSeg[]): unknown {
  let v: unknown = root;
  for (const s of segs) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[s];
  }
  return v;
}

/** Best-effort domain path for a JSON path (bundle.register.field names found along it). */
function domainWhere(root: unknown, segs: readonly PathSeg[]): string | null {
  const names: string[] = [];
  for (let i = 1; i <= segs.length; i++) {
    const key = segs[i - 2];
    if (
      typeof segs[i - 1] === 'number' &&
      (key === 'RegistersBundleArrays' || key === 'Registers' || key === 'Fields')
    ) {
      const n = (getAt(root, segs.slice(0, i)) as { Name?: unknown } | undefined)?.Name;
      if (typeof n === 'string') names.push(n);
    }
  }
  return names.length ? names.join('.') : null;
}

/** Validates a parsed JSON document against the zod format only. */
function checkFormat(file: string, doc: unknown): RegFileJson {
  const r = RegFileDocumentSchema.safeParse(doc);
  if (r.success) return r.data;
  const issues: SchemaIssue[] = r.error.issues.map((iss) => {
    const segs = iss.path.filter((p): p is PathSeg => typeof p !== 'symbol');
    const keys = iss.code === 'unrecognized_keys' ? ` (${iss.keys.join(', ')})` : '';
    const actual = iss.code === 'unrecognized_keys' ? iss.keys : getAt(doc, segs);
    return {
      path: jsonPath(segs),
      where: domainWhere(doc, segs),
      message: iss.message + keys,
      expected: zodExpected(iss),
      actual,
    };
  });
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
