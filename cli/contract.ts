/**
 * The contract of the nxdma command that scripts rely on (docs/cli.md, Conventions):
 *
 * - with --json, stdout holds exactly one JSON document, for a success and for every error; each
 *   document carries `format` (JSON_FORMAT), and an error document is
 *   `{ format, error: { code, message, where, expected, actual?, details } }`;
 * - a human error is one line `nxdma: error [CODE]: message`, then `  expected: ...` when the
 *   error says what was expected.
 */
import { NxdmaError } from '../common/errors.ts';
import type { Out } from './output.ts';

/** The version of every JSON document the command prints. */
export const JSON_FORMAT = 'nxdma.cli/1';

/** The one prefix of every error line. */
export const ERROR_PREFIX = 'nxdma: error';

/** An error as the JSON documents carry it. */
export interface ErrorJson {
  code: string;
  message: string;
  where: string | null;
  expected: string | null;
  actual?: unknown;
  details: Record<string, unknown>;
}

function plain(v: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(v ?? null));
  } catch {
    return String(v);
  }
}

/** The JSON form of any error (an NxdmaError keeps its code; anything else is INTERNAL). */
export function errorJson(e: unknown): ErrorJson {
  if (e instanceof NxdmaError) {
    const d = e.details;
    const out: ErrorJson = {
      code: e.code,
      message: e.message,
      where: typeof d.where === 'string' ? d.where : null,
      expected: typeof d.expected === 'string' ? d.expected : null,
      details: plain(d) as Record<string, unknown>,
    };
    if (d.actual !== undefined) out.actual = plain(d.actual);
    return out;
  }
  return {
    code: 'INTERNAL',
    message: String((e as Error)?.message ?? e),
    where: null,
    expected: null,
    details: {},
  };
}

/** The lines of a human error: one prefix, the message, then what was expected. */
export function errorLines(e: unknown): string[] {
  if (e instanceof NxdmaError) {
    const lines = [`${ERROR_PREFIX} [${e.code}]: ${e.message}`];
    const exp = e.details.expected;
    if (typeof exp === 'string' && exp !== '' && !e.message.includes(`expected ${exp}`)) {
      lines.push(`  expected: ${exp}`);
    }
    return lines;
  }
  return [`${ERROR_PREFIX} [INTERNAL]: ${(e as Error)?.stack ?? String(e)}`];
}

/** True when the arguments ask for --json (before a `--`). */
export function jsonRequested(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

/** A document with `format` first (objects); anything else is wrapped as `{ format, value }`. */
export function withFormat(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { format: _f, ...rest } = value as Record<string, unknown>;
    void _f;
    return { format: JSON_FORMAT, ...rest };
  }
  return { format: JSON_FORMAT, value };
}

/** An Out whose json() stamps `format` and remembers that a document was printed. */
export function contractOut(out: Out): Out & { readonly printed: boolean } {
  let printed = false;
  return {
    get color() {
      return out.color;
    },
    get tty() {
      return out.tty;
    },
    get errTty() {
      return out.errTty;
    },
    get errStream() {
      return out.errStream;
    },
    get printed() {
      return printed;
    },
    log: (l) => out.log(l),
    err: (l) => out.err(l),
    json: (v) => {
      printed = true;
      out.json(withFormat(v));
    },
  };
}

/**
 * Reports an error that ended a command: the human lines on stderr and, with --json when no
 * document was printed yet, the error document on stdout.
 */
export function reportError(
  out: Out & { readonly printed: boolean },
  e: unknown,
  json: boolean,
): void {
  for (const l of errorLines(e)) out.err(l);
  if (json && !out.printed) out.json({ error: errorJson(e) });
}
