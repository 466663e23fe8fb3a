/**
 * Resource budgets of the nxdma command: work a file can ask for that would take hours or
 * gigabytes is refused up front with LIMIT_EXCEEDED, naming the limit, what the input asked for
 * and the option that raises it.
 *
 *   loop iterations of one program (`run`)          1,000,000   --max-iterations <n>
 *   ring memory of one program (`run`)              128 MiB     --max-ring-bytes <n>
 *   register words of one schema file (`docs`)      65,536      --max-register-words <n>
 */
import { NxdmaError } from '../common/errors.ts';
import { uintOption } from './options.ts';

export interface Budget {
  /** What is counted ("loop iterations"). */
  readonly what: string;
  /** The option that raises it ("--max-iterations"). */
  readonly option: string;
  readonly defaultLimit: number;
}

export const LOOP_ITERATIONS: Budget = {
  what: 'loop iterations',
  option: '--max-iterations',
  defaultLimit: 1_000_000,
};

export const RING_BYTES: Budget = {
  what: 'bytes of ring memory',
  option: '--max-ring-bytes',
  defaultLimit: 128 * 2 ** 20,
};

export const REGISTER_WORDS: Budget = {
  what: 'register words (register-array entries and repeated blocks expanded)',
  option: '--max-register-words',
  defaultLimit: 65_536,
};

/** The limit a budget option gives (a positive safe integer), or the default. */
export function budgetLimit(b: Budget, text: string | undefined): number {
  return uintOption(text, b.option, { min: 1 }) ?? b.defaultLimit;
}

/** Throws LIMIT_EXCEEDED when `asked` is past `limit`. */
export function checkBudget(
  b: Budget,
  limit: number,
  asked: number,
  where: string,
  path?: string,
): void {
  if (asked <= limit) return;
  throw new NxdmaError(
    'LIMIT_EXCEEDED',
    `${where} asks for ${asked.toLocaleString('en-US')} ${b.what}, more than the limit of ` +
      `${limit.toLocaleString('en-US')}; raise it with ${b.option} <n> if this is meant`,
    {
      where,
      expected: `at most ${limit} ${b.what} (${b.option})`,
      actual: asked,
      limit,
      option: b.option,
      ...(path ? { path } : {}),
    },
  );
}
