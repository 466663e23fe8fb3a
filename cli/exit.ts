import { NxdmaError, type ErrorCode } from '../common/errors.ts';

/** Stable exit codes of the nxdma command. */
export const EXIT = {
  OK: 0,
  /** Verification failed (a destination byte or a read-back register differs). */
  VERIFY_FAILED: 1,
  /** A comparing command (`qos diff`) found a difference (opt out: --no-exit-code). */
  DIFFERENCES: 1,
  /** Bad input: a file, a program, a plan, an argument. */
  BAD_INPUT: 2,
  /** The device (mock or mapped) reported an error or could not be opened. */
  DEVICE_ERROR: 3,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  verification failed, or a comparing command (qos diff) found a difference
  2  bad input (file, program, plan or argument)
  3  device error`;

const DEVICE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'DEVICE_OPEN',
  'DEVICE_UNAVAILABLE',
  'ENGINE_ERROR',
  'TIMEOUT',
  'MEMORY_UNMAPPED',
  'QUEUE_STATE',
  'DEVICE_CLOSED',
  'DEVICE_READ_ONLY',
]);

export function exitCodeFor(e: unknown): number {
  if (e instanceof NxdmaError) {
    if (e.code === 'VERIFY_FAILED') return EXIT.VERIFY_FAILED;
    if (DEVICE_CODES.has(e.code)) return EXIT.DEVICE_ERROR;
    return EXIT.BAD_INPUT;
  }
  return EXIT.DEVICE_ERROR;
}

/** Thrown by a command that has already printed its result and wants a given exit code. */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
