/**
 * TracingIO: a RegisterIO that records every access it forwards, in order, for dry runs and tests.
 * Several TracingIOs may share one log (one dry run over udma_m2s and udma_s2m reads as a single
 * ordered list); each entry carries its file's name.
 */
import { hex } from '../../common/errors.ts';
import type { RegisterIO } from '../io.ts';
import { ArrayRegisterIO } from './memory.ts';
import { describeOffset, type RegFileModel } from '../schema/model.ts';

export interface TraceEntry {
  /** Position in the log (0-based), across every TracingIO sharing it. */
  readonly seq: number;
  /** Register-file name given to the TracingIO ("udma_m2s"), or "" when none. */
  readonly file: string;
  readonly op: 'read' | 'write';
  /** Byte offset in the window. */
  readonly offset: number;
  /** The word read or written (unsigned). */
  readonly value: number;
}

export interface TracingOptions {
  /** Register-file name stored in each entry (and used by format()). */
  file?: string;
  /** A log to append to, shared with other TracingIOs. Default: a new one. */
  log?: TraceEntry[];
}

export class TracingIO implements RegisterIO {
  readonly size: number;
  readonly log: TraceEntry[];
  readonly file: string;

  constructor(
    readonly inner: RegisterIO,
    opts: TracingOptions = {},
  ) {
    this.size = inner.size;
    this.log = opts.log ?? [];
    this.file = opts.file ?? '';
  }

  /**
   * A dry-run window for `file`: a TracingIO over plain memory holding the file's reset values
   * (no access semantics; see ArrayRegisterIO).
   */
  static dryRun(file: RegFileModel, log?: TraceEntry[]): TracingIO {
    return new TracingIO(ArrayRegisterIO.withResetValues(file), { file: file.name, log });
  }

  /** Accesses are recorded after they succeed: a rejected access leaves no entry. */
  read32(offset: number): number {
    const value = this.inner.read32(offset) >>> 0;
    this.log.push({ seq: this.log.length, file: this.file, op: 'read', offset, value });
    return value;
  }

  write32(offset: number, value: number): void {
    this.inner.write32(offset, value);
    this.log.push({
      seq: this.log.length,
      file: this.file,
      op: 'write',
      offset,
      value: value >>> 0,
    });
  }

  /** This IO's entries (the shared log may hold other files' entries too). */
  entries(): TraceEntry[] {
    return this.log.filter((e) => e.file === this.file);
  }

  /** This IO's writes, in order. */
  writes(): TraceEntry[] {
    return this.entries().filter((e) => e.op === 'write');
  }

  /** Empties the whole shared log. */
  clear(): void {
    this.log.length = 0;
  }
}

/**
 * One line per entry: "write udma_m2s M2S_Q[3].dwrr_cfg_2 @0x4084 = 0x00000005". Offsets are
 * named from `files` (by file name) when given.
 */
export function formatTrace(
  entries: readonly TraceEntry[],
  files: readonly RegFileModel[] = [],
): string[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  return entries.map((e) => {
    const f = byName.get(e.file);
    const name = f ? describeOffset(f, e.offset) : hex(e.offset);
    const at = name === hex(e.offset) ? name : `${name} @${hex(e.offset)}`;
    const op = e.op === 'read' ? 'read ' : 'write';
    return `${op} ${e.file ? e.file + ' ' : ''}${at} ${e.op === 'read' ? '->' : '='} ${hex(e.value, 8)}`;
  });
}
