/**
 * Options that guard safety (readOnly, dryRun, allowInferred, verify, a hardware confirmation)
 * take real booleans only. A string such as 'false' or 'yes' is truthy in JavaScript, so reading
 * such an option loosely fails in the unsafe direction; these helpers refuse anything but
 * `true`, `false` or an absent option with a typed error instead.
 */
import { NxdmaError } from './errors.ts';

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `${typeof value} ${String(value)}`;
}

/**
 * The boolean safety option `value` named `where` ("openDevice.readOnly"): `fallback` when it is
 * undefined, the value itself when it is `true` or `false`.
 * @throws NxdmaError BAD_ARGUMENT for anything else (null, strings, numbers, objects).
 */
export function safetyFlag(value: unknown, where: string, fallback = false): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === false) return value;
  throw new NxdmaError(
    'BAD_ARGUMENT',
    `${where} must be true or false, got ${describe(value)} (safety options take booleans only)`,
    { where, expected: 'a boolean (true or false), or the option left out', actual: value },
  );
}

/**
 * Checks every named safety option of an options object (absent options are fine) and returns
 * nothing; use it where options are passed on to several layers. `opts` that is not an object
 * (other than undefined) is a BAD_ARGUMENT error naming `where`.
 */
export function checkSafetyFlags(opts: unknown, names: readonly string[], where: string): void {
  if (opts === undefined) return;
  if (opts === null || typeof opts !== 'object') {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: options must be an object, got ${describe(opts)}`,
      {
        where,
        expected: 'an options object (or nothing)',
        actual: opts,
      },
    );
  }
  for (const n of names) {
    const v = (opts as Record<string, unknown>)[n];
    if (v !== undefined && v !== true && v !== false) safetyFlag(v, `${where}.${n}`);
  }
}
