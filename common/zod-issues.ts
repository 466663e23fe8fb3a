/**
 * zod issues as nxdma reports them: one spelling of a JSON path, one reading of what an issue
 * expected and of the value it found. The formats validated with zod (programs, register-file
 * schemas, QoS plans) each turn these into their own NxdmaError (PROGRAM_INVALID, SCHEMA_INVALID,
 * PLAN_INVALID) with their own wording; the mapping from a zod issue is this one.
 */
import type { z } from 'zod';

/** One step of a JSON path: an object key or an array index. */
export type PathSeg = string | number;

/** A zod issue, read. */
export interface InputIssue {
  /** The path as steps (symbols, which JSON has not, left out). */
  readonly segments: PathSeg[];
  /** The path as a JSON path: `$.functions[0].blocks[1]`, `$["odd key"]`. */
  readonly path: string;
  /** zod's message. */
  readonly message: string;
  /** The keys an `unrecognized_keys` issue names (empty for the other issues). */
  readonly keys: string[];
  /** What was expected, in words (see zodExpected). */
  readonly expected: string;
  /** The value found at the path (the unknown keys for an `unrecognized_keys` issue). */
  readonly actual: unknown;
}

/** A JSON path: `$`, then `.key` for identifier keys, `["key"]` for the others, `[i]` for indices. */
export function jsonPath(segs: readonly PathSeg[]): string {
  let s = '$';
  for (const p of segs) {
    if (typeof p === 'number') s += `[${p}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p)) s += `.${p}`;
    else s += `[${JSON.stringify(p)}]`;
  }
  return s;
}

/** The value at `segs` inside `root`, or undefined when the path leaves the document. */
export function valueAt(root: unknown, segs: readonly PathSeg[]): unknown {
  let v: unknown = root;
  for (const s of segs) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[s];
  }
  return v;
}

/** The document kind an issue is in: its name and where its JSON Schema is. */
export interface InputFormat {
  /** `the register-file format`. */
  readonly name: string;
  /** `csr/schemas/regfile.schema.json`. */
  readonly schema: string;
}

/** What a zod issue expected, in words (naming the format where zod gives no value). */
export function zodExpected(issue: z.core.$ZodIssue, format: InputFormat): string {
  switch (issue.code) {
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `only the keys of ${format.name} (see ${format.schema})`;
    case 'invalid_type':
      return `a value of type ${issue.expected}`;
    case 'invalid_format':
      return issue.format === 'regex' ? `a string matching ${issue.pattern}` : issue.format;
    case 'too_small':
      return `at least ${issue.minimum}`;
    case 'too_big':
      return `at most ${issue.maximum}`;
    default:
      return `a value of ${format.name}`;
  }
}

/** The issues of a failed zod parse of `input` (a document of `format`), read. */
export function zodIssues(error: z.ZodError, input: unknown, format: InputFormat): InputIssue[] {
  return error.issues.map((iss) => {
    const segments = iss.path.filter((p): p is PathSeg => typeof p !== 'symbol');
    const keys = iss.code === 'unrecognized_keys' ? iss.keys : [];
    return {
      segments,
      path: jsonPath(segments),
      message: iss.message,
      keys,
      expected: zodExpected(iss, format),
      actual: iss.code === 'unrecognized_keys' ? keys : valueAt(input, segments),
    };
  });
}
