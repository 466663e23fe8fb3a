/** Checks on the typed errors a call throws, shared by the suites. */
import { expect } from 'vitest';
import { NxdmaError, type ErrorCode } from '../../common/errors.ts';

/** Runs `fn`, expects an NxdmaError with `code`, returns it. */
export function expectCode(fn: () => unknown, code: ErrorCode): NxdmaError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected NxdmaError ${code}`).toBeInstanceOf(NxdmaError);
  expect((caught as NxdmaError).code, (caught as Error).message).toBe(code);
  return caught as NxdmaError;
}

/** Awaits `p`, expects it to reject with an NxdmaError with `code`, returns it. */
export async function expectReject(p: Promise<unknown>, code: ErrorCode): Promise<NxdmaError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected NxdmaError ${code}`).toBeInstanceOf(NxdmaError);
  expect((caught as NxdmaError).code, (caught as Error).message).toBe(code);
  return caught as NxdmaError;
}

/** The NxdmaError `fn` throws (expects it to throw one). */
export function thrown(fn: () => unknown): NxdmaError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(NxdmaError);
    return e as NxdmaError;
  }
  throw new Error('expected a throw');
}

/** The code of the NxdmaError `fn` throws, 'untyped: ...' for another throw, 'none' for none. */
export function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof NxdmaError ? e.code : `untyped: ${String(e)}`;
  }
  return 'none';
}
