/**
 * Input helpers shared by the sub-commands: the BAD_ARGUMENT error of a bad option or file, number
 * options, and reading a JSON program file (cannot read: BAD_ARGUMENT; not JSON: PROGRAM_INVALID).
 */
import { readFileSync } from 'node:fs';
import { NxdmaError } from '../common/errors.ts';

/** A bad option, argument or file (exit code 2). */
export function badArg(
  where: string,
  message: string,
  expected: string,
  actual?: unknown,
): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', message, { where, expected, actual });
}

/** A number option's text read as 0x... hexadecimal or as Number() reads it (NaN when neither). */
export function numberArg(v: string): number {
  return /^0x[0-9a-f]+$/i.test(v) ? parseInt(v.slice(2), 16) : Number(v);
}

/** The parsed JSON of a program file. */
export function readProgramFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw badArg(
      file,
      `cannot read program file ${file}: ${(e as Error).message}`,
      'a readable JSON program file',
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new NxdmaError('PROGRAM_INVALID', `${file} is not valid JSON: ${(e as Error).message}`, {
      where: file,
      expected: 'a JSON document',
    });
  }
}
