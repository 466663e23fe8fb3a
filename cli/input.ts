/**
 * Input helpers shared by the sub-commands: the BAD_ARGUMENT error of a bad option or file, and
 * reading a JSON input file (not a regular file or unreadable: BAD_ARGUMENT; not
 * JSON: the document's own code, PROGRAM_INVALID or PLAN_INVALID, naming line:column).
 */
import { createRequire } from 'node:module';
import type { ParseError } from 'jsonc-parser';
import { NxdmaError, type ErrorCode } from '../common/errors.ts';
import { type InputSet, readInputText } from '../common/files.ts';

type JsoncParser = typeof import('jsonc-parser');
let jsoncModule: JsoncParser | undefined;

/**
 * jsonc-parser, loaded the first time an input file is located (only when a file has an error):
 * the commands that never read a JSON input do not pay for it.
 */
function jsonc(): JsoncParser {
  return (jsoncModule ??= createRequire(import.meta.url)('jsonc-parser') as JsoncParser);
}

/** A bad option, argument or file (exit code 2). */
export function badArg(
  where: string,
  message: string,
  expected: string,
  actual?: unknown,
): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', message, { where, expected, actual });
}

/** 1-based line and column of a character offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

const SYNTAX_WORDS: Record<string, string> = {
  InvalidSymbol: 'an invalid character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a property name was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: "a ':' was expected",
  CommaExpected: "a ',' was expected",
  CloseBraceExpected: "a '}' was expected",
  CloseBracketExpected: "a ']' was expected",
  EndOfFileExpected: 'the end of the document was expected',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'an unterminated comment',
  UnexpectedEndOfString: 'an unterminated string',
  UnexpectedEndOfNumber: 'an unterminated number',
  InvalidUnicode: 'an invalid \\u escape',
  InvalidEscapeCharacter: 'an invalid escape character',
  InvalidCharacter: 'a control character inside a string',
};

/** The first syntax error of a JSON text, located (jsonc-parser in strict JSON mode). */
function firstSyntaxError(text: string): { line: number; column: number; what: string } | null {
  const errors: ParseError[] = [];
  jsonc().parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length === 0) return null;
  const e = errors[0];
  const name = jsonc().printParseErrorCode(e.error);
  return { ...lineColumn(text, e.offset), what: SYNTAX_WORDS[name] ?? name };
}

/** A JSON text and the value it holds. */
export interface JsonInput {
  file: string;
  text: string;
  json: unknown;
}

/**
 * Reads and parses a JSON input file. A syntax error names its line:column.
 * @throws NxdmaError BAD_ARGUMENT (not a readable regular file) or `code` (not JSON).
 */
export function readJsonFile(
  file: string,
  what: string,
  code: ErrorCode,
  expected: string,
  inputs?: InputSet,
  readCode: ErrorCode = 'BAD_ARGUMENT',
): JsonInput {
  const text = readInputText(file, what, inputs, readCode);
  try {
    return { file, text, json: JSON.parse(text) };
  } catch (e) {
    const at = firstSyntaxError(text);
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    throw new NxdmaError(
      code,
      at
        ? `${where}: ${file} is not valid JSON: ${at.what} (line ${at.line}, column ${at.column})`
        : `${file} is not valid JSON: ${(e as Error).message}`,
      {
        where,
        expected,
        actual: (e as Error).message,
        ...(at ? { line: at.line, column: at.column } : {}),
      },
    );
  }
}

/**
 * Reads a JSON document and checks it with `parse` (which throws NxdmaErrors naming JSON paths);
 * an error is given the line:column of its path in the file.
 * @throws NxdmaError as readJsonFile, or what `parse` throws
 */
export function readJsonDocument<T>(
  file: string,
  what: string,
  code: ErrorCode,
  expected: string,
  parse: (json: unknown, file: string) => T,
  inputs?: InputSet,
): T {
  const input = readJsonFile(file, what, code, expected, inputs);
  try {
    return parse(input.json, file);
  } catch (e) {
    throw withLocations(e, input);
  }
}

/** Splits a JSON path "$.functions[0].blocks[1].name" into its keys and indices. */
export function pathSegments(text: string): (string | number)[] | null {
  const path = text.startsWith('$') ? text : /^[A-Za-z_]/.test(text) ? `$.${text}` : null;
  if (path === null) return null;
  const segs: (string | number)[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/gy;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (!m) return null;
    if (m[1] !== undefined) segs.push(m[1]);
    else if (m[2] !== undefined) segs.push(Number(m[2]));
    else segs.push(JSON.parse(`"${m[3]}"`) as string);
  }
  return segs;
}

/** The line:column of the value at a JSON path of `input` (the nearest enclosing value found). */
export function locate(input: JsonInput, path: string): { line: number; column: number } | null {
  const segs = pathSegments(path);
  if (!segs) return null;
  const tree = jsonc().parseTree(input.text);
  if (!tree) return null;
  for (let n = segs.length; n >= 0; n--) {
    const node = jsonc().findNodeAtLocation(tree, segs.slice(0, n));
    if (node) {
      // a property's key is where the eye goes: point at it when the node is a property value
      const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
      return lineColumn(input.text, at);
    }
  }
  return null;
}

/**
 * Adds line:column to an NxdmaError about the document of `input`: each issue with a JSON path
 * gets `line` and `column`, and `where` becomes file:line:column of the first issue.
 */
export function withLocations(e: unknown, input: JsonInput): unknown {
  if (!(e instanceof NxdmaError)) return e;
  const issues = e.details.issues;
  const firstPath =
    Array.isArray(issues) && issues.length > 0 && typeof issues[0]?.path === 'string'
      ? (issues[0].path as string)
      : typeof e.details.path === 'string'
        ? e.details.path
        : null;
  if (firstPath === null) return e;
  if (Array.isArray(issues)) {
    for (const i of issues as { path?: unknown; line?: number; column?: number }[]) {
      if (typeof i?.path !== 'string') continue;
      const at = locate(input, i.path);
      if (at) Object.assign(i, at);
    }
  }
  const at = locate(input, firstPath);
  if (!at) return e;
  const where = `${input.file}:${at.line}:${at.column}`;
  const message = e.message.startsWith(where) ? e.message : `${where}: ${e.message}`;
  const out = new NxdmaError(e.code, message, {
    ...e.details,
    where,
    line: at.line,
    column: at.column,
  });
  return out;
}

/** The parsed JSON of a program file. */
export function readProgramFile(file: string, inputs?: InputSet): unknown {
  return readProgramInput(file, inputs).json;
}

/** A program file: its text and JSON. */
export function readProgramInput(file: string, inputs?: InputSet): JsonInput {
  return readJsonFile(
    file,
    'program',
    'PROGRAM_INVALID',
    'a JSON program (docs/program-format.md)',
    inputs,
  );
}
