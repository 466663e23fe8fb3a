/**
 * One fuzz configuration for the property suites (docs/testing.md): a fixed seed per property, a
 * bounded number of runs in `npm test`, and a larger count when NXDMA_FUZZ_RUNS is set (the same
 * variable test/mocks/udma/engine-fuzz.test.ts and test/driver/mmio/region.property.test.ts read).
 *
 *   fc.assert(fc.property(arb, check), fuzz(0x5c4e3a, 100));
 *
 * Also the checks every suite repeats: "only NxdmaError escapes" and deep snapshots of state.
 */
import { expect } from 'vitest';
import { NxdmaError, type ErrorCode } from '../../common/errors.ts';

/** The environment variable that raises every property's run count (one number for all). */
export const FUZZ_RUNS_ENV = 'NXDMA_FUZZ_RUNS';

/** The run count NXDMA_FUZZ_RUNS asks for, or null when unset (an invalid value is an error). */
export function requestedRuns(): number | null {
  const raw = process.env[FUZZ_RUNS_ENV];
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new Error(`${FUZZ_RUNS_ENV}=${raw}: expected a positive integer`);
  }
  return n;
}

/**
 * Runs for one property: `ciRuns` by default; NXDMA_FUZZ_RUNS when set. `costly` properties (a
 * whole device per run) are capped at `cap` runs even then, so that one variable can be set for
 * every suite without one of them running for hours.
 */
export function fuzzRuns(ciRuns: number, cap = Infinity): number {
  const asked = requestedRuns();
  return asked === null ? ciRuns : Math.min(asked, cap);
}

/** fast-check parameters: the fixed seed and the bounded run count (see fuzzRuns). */
export function fuzz(
  seed: number,
  ciRuns: number,
  cap = Infinity,
): { seed: number; numRuns: number } {
  return { seed, numRuns: fuzzRuns(ciRuns, cap) };
}

/** What a call did: returned a value, or threw an NxdmaError (anything else is rethrown). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: NxdmaError };

/**
 * Calls `fn`; an NxdmaError becomes `{ ok: false, error }`, any other throw fails the property (it
 * is rethrown with the input that caused it in the message).
 */
export function outcome<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof NxdmaError) return { ok: false, error: e };
    throw new Error(`an error other than NxdmaError escaped: ${String(e)}`, { cause: e });
  }
}

/** Awaiting version of `outcome`. */
export async function outcomeAsync<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (e instanceof NxdmaError) return { ok: false, error: e };
    throw new Error(`an error other than NxdmaError escaped: ${String(e)}`, { cause: e });
  }
}

/** Expects `fn` to throw an NxdmaError with one of `codes`; returns it. */
export function expectNxdma(fn: () => unknown, ...codes: ErrorCode[]): NxdmaError {
  const r = outcome(fn);
  expect(r.ok, 'expected an NxdmaError').toBe(false);
  const e = (r as { ok: false; error: NxdmaError }).error;
  if (codes.length > 0) expect(codes, e.message).toContain(e.code);
  expectWellFormed(e);
  return e;
}

/** Awaiting version of `expectNxdma`. */
export async function expectNxdmaAsync(
  p: Promise<unknown>,
  ...codes: ErrorCode[]
): Promise<NxdmaError> {
  const r = await outcomeAsync(() => p);
  expect(r.ok, 'expected an NxdmaError').toBe(false);
  const e = (r as { ok: false; error: NxdmaError }).error;
  if (codes.length > 0) expect(codes, e.message).toContain(e.code);
  expectWellFormed(e);
  return e;
}

/**
 * An NxdmaError as the standards ask: a stable code, a message, details naming where, and details
 * that survive JSON (scripts read them).
 */
export function expectWellFormed(e: NxdmaError): void {
  expect(e).toBeInstanceOf(NxdmaError);
  expect(typeof e.code).toBe('string');
  expect(e.message.length).toBeGreaterThan(0);
  expect(() => JSON.stringify(e.toJSON())).not.toThrow();
}

/** A deep copy of plain JSON-like data (structuredClone keeps undefined, -0, NaN and sparse holes). */
export function snapshot<T>(v: T): T {
  return structuredClone(v);
}

/**
 * Deep equality of data as a parser sees it: the same own enumerable keys (including ones named
 * `constructor` or `__proto__`) holding equal values, arrays as arrays, numbers by Object.is (NaN
 * equals NaN, -0 differs from 0). Prototypes are not compared (a null-prototype object and its
 * structuredClone are the same data).
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/** Expects `value` to be the same data as the snapshot taken before a call (see sameData). */
export function expectUnchanged(value: unknown, before: unknown, what = 'the input'): void {
  expect(sameData(value, before), `${what} was changed`).toBe(true);
}
