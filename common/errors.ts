/**
 * The one error type nxdma throws on purpose. Every error carries a stable `code` (for scripts and
 * tests), says what was wrong, where (file, JSON path, instruction id, register path, address) and
 * what was expected. Bad input never changes state: validate first, then write.
 */
/** Every stable error code, grouped as the docs list them (docs/driver.md, docs/cli.md). */
export const ERROR_CODES = [
  // input and schema validation
  'SCHEMA_INVALID',
  'PROGRAM_INVALID',
  'PLAN_INVALID',
  'BAD_ARGUMENT',
  'OUT_OF_RANGE',
  // a resource budget (loop iterations, register-array entries, ring memory) would be exceeded
  'LIMIT_EXCEEDED',
  // register access
  'REGISTER_READ_ONLY',
  'REGISTER_WRITE_ONLY',
  'REGISTER_UNKNOWN',
  'REGISTER_INFERRED',
  'MISALIGNED',
  'OUT_OF_WINDOW',
  // memory and rings
  'MEMORY_UNMAPPED',
  'MEMORY_OVERLAP',
  'RING_INVALID',
  'RING_FULL',
  'QUEUE_STATE',
  'ENGINE_ERROR',
  'TIMEOUT',
  // compiler
  'COMPILE_ERROR',
  'LOWER_ERROR',
  // devices
  'DEVICE_OPEN',
  'DEVICE_UNAVAILABLE',
  'DEVICE_PROFILE',
  // flow
  'VERIFY_FAILED',
  // mapped devices (driver/mmio)
  'DEVICE_CLOSED',
  'DEVICE_READ_ONLY',
  // wire formats (16-byte BDs, 64-byte DGE descriptors, micro-ops, dge_host table entries)
  'DESCRIPTOR_INVALID',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetails {
  /** Where: a file, JSON path, register path, instruction id or address, as text. */
  where?: string;
  /** What was expected there. */
  expected?: string;
  /** What was found instead. */
  actual?: unknown;
  /** Anything else worth carrying to a script (kept JSON-serialisable). */
  [key: string]: unknown;
}

export class NxdmaError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'NxdmaError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function isNxdmaError(e: unknown): e is NxdmaError {
  return e instanceof NxdmaError;
}

/** Formats a byte offset or address the way the docs and the messages do. */
export function hex(value: number | bigint, width = 0): string {
  const s = value.toString(16);
  return '0x' + (width > 0 ? s.padStart(width, '0') : s);
}
