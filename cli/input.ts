/**
 * Input helpers shared by the sub-commands: the BAD_ARGUMENT error of a bad option or file, and
 * reading a JSON program file (cannot read: BAD_ARGUMENT; not JSON: PROGRAM_INVALID).
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
