/**
 * RegisterIO over a mapped window: the only code in nxdma that touches device registers.
 *
 * Every access is exactly one aligned 32-bit `Atomics.load` / `Atomics.store` on a `Uint32Array`
 * view of the mapping: never split into bytes, never merged, never elided. Every access is checked
 * first (open, writable, offset an integer multiple of 4 inside the window, value a 32-bit
 * integer); a rejected access touches no memory.
 */
import type { RegisterIO } from '../../csr/io.ts';
import { NxdmaError, hex } from '../../common/errors.ts';
import { closedError, type Mapping } from './mapping.ts';
import type { MappedRegion } from './region.ts';

/** A sub-window of a mapped region: byte offset inside the region, size, and a name for messages. */
export interface RegisterWindow {
  /** Byte offset of the window inside the region (multiple of 4). Default 0. */
  offset?: number;
  /** Window size in bytes (multiple of 4). Default: the rest of the region. */
  size?: number;
  /** Name used in error messages, for example 'engine 3 udma_m2s'. */
  name?: string;
}

export class MmioRegisterIO implements RegisterIO {
  readonly size: number;
  /** Byte offset of this window inside its region. */
  readonly offset: number;
  /** Name used in error messages. */
  readonly name: string;
  private readonly mapping: Mapping;
  private readonly baseWord: number;
  private readonly lastOffset: number;
  private readonly readOnly: boolean;

  /**
   * @throws NxdmaError MISALIGNED / OUT_OF_WINDOW when the window is not 4-byte aligned or does not
   *   lie inside the region; DEVICE_CLOSED when the region is disposed.
   */
  constructor(region: MappedRegion, window: RegisterWindow = {}) {
    const mapping = region.mapping;
    const offset = window.offset ?? 0;
    const size = window.size ?? region.size - offset;
    const name = window.name ?? region.where;
    if (mapping.closed) throw closedError(name);
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(size) ||
      offset % 4 !== 0 ||
      size % 4 !== 0
    ) {
      throw new NxdmaError(
        'MISALIGNED',
        `${name}: register window ${String(offset)}+${String(size)} is not 4-byte aligned`,
        {
          where: name,
          expected: 'offset and size integer multiples of 4',
          actual: { offset, size },
        },
      );
    }
    if (offset < 0 || size <= 0 || offset + size > region.size) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${name}: register window ${hex(Math.max(offset, 0))}+${hex(Math.max(size, 0))} does not lie inside ${region.where} (size ${hex(region.size)})`,
        {
          where: name,
          expected: `a non-empty window inside [0, ${hex(region.size)})`,
          actual: { offset, size },
        },
      );
    }
    this.mapping = mapping;
    this.offset = offset;
    this.size = size;
    this.name = name;
    this.baseWord = offset / 4;
    this.lastOffset = size - 4;
    this.readOnly = mapping.readOnly;
  }

  /** True once the region this window belongs to has been disposed. */
  get disposed(): boolean {
    return this.mapping.closed;
  }

  /** One aligned 32-bit load. */
  read32(offset: number): number {
    const u32 = this.mapping.u32;
    if (u32 === null) throw closedError(this.name);
    const o = offset >>> 0;
    if (o !== offset || (o & 3) !== 0 || o > this.lastOffset) this.reject('read32', offset);
    return Atomics.load(u32, this.baseWord + (o >>> 2));
  }

  /**
   * One aligned 32-bit store. `value` is a 32-bit integer: 0..0xFFFFFFFF, or a negative int32
   * (what JavaScript bit operations produce), stored as its two's complement.
   */
  write32(offset: number, value: number): void {
    const u32 = this.mapping.u32;
    if (u32 === null) throw closedError(this.name);
    if (this.readOnly) {
      throw new NxdmaError(
        'DEVICE_READ_ONLY',
        `${this.name}: write32 at ${hexOrText(offset)} refused: the device is mapped read-only`,
        {
          where: this.name,
          expected: 'a device opened read-write',
          actual: 'readOnly',
          offset,
        },
      );
    }
    const o = offset >>> 0;
    if (o !== offset || (o & 3) !== 0 || o > this.lastOffset) this.reject('write32', offset);
    if (typeof value !== 'number' || (value >>> 0 !== value && (value | 0) !== value)) {
      throw new NxdmaError(
        'OUT_OF_RANGE',
        `${this.name}: write32 at ${hex(o)}: value ${typeof value === 'bigint' ? `${String(value)}n (a BigInt)` : String(value)} is not a 32-bit integer`,
        {
          where: `${this.name} @ ${hex(o)}`,
          expected: 'a number, an integer in [-2^31, 2^32)',
          actual: typeof value === 'number' ? value : `${typeof value} ${String(value)}`,
        },
      );
    }
    Atomics.store(u32, this.baseWord + (o >>> 2), value);
  }

  /**
   * Bulk copy out of the window (BulkWindowIO), for register-like tables in device memory (a DGE
   * core's host tables): the whole range is checked first.
   */
  readBytes(offset: number, dst: Uint8Array): void {
    const bytes = this.bulk('readBytes', offset, dst, false);
    bytes.copy(dst, 0, this.offset + offset, this.offset + offset + dst.length);
  }

  /** Bulk copy into the window (BulkWindowIO); refused whole when read-only or out of window. */
  writeBytes(offset: number, src: Uint8Array): void {
    const bytes = this.bulk('writeBytes', offset, src, true);
    bytes.set(src, this.offset + offset);
  }

  private bulk(op: string, offset: number, data: Uint8Array, writing: boolean): Buffer {
    const bytes = this.mapping.bytes;
    if (bytes === null) throw closedError(this.name);
    if (!(data instanceof Uint8Array)) {
      throw new NxdmaError('BAD_ARGUMENT', `${this.name}: ${op} needs a Uint8Array`, {
        where: `${this.name} ${op}`,
        expected: 'Uint8Array',
        actual: typeof data,
      });
    }
    if (writing && this.readOnly) {
      throw new NxdmaError(
        'DEVICE_READ_ONLY',
        `${this.name}: ${op} at ${hexOrText(offset)} refused: the device is mapped read-only`,
        { where: this.name, expected: 'a device opened read-write', actual: 'readOnly', offset },
      );
    }
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + data.length > this.size) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${this.name}: ${op} of ${data.length} bytes at ${hexOrText(offset)} is outside the window [0, ${hex(this.size)})`,
        {
          where: `${this.name} @ ${hexOrText(offset)}`,
          expected: `a range inside [0, ${hex(this.size)})`,
          actual: { offset, length: data.length },
        },
      );
    }
    return bytes;
  }

  private reject(op: string, offset: number): never {
    const where = `${this.name} @ ${hexOrText(offset)}`;
    if (typeof offset === 'number' && Number.isFinite(offset) && !Number.isInteger(offset)) {
      throw new NxdmaError(
        'MISALIGNED',
        `${this.name}: ${op} offset ${offset} is not an integer multiple of 4`,
        {
          where,
          expected: 'an integer multiple of 4',
          actual: offset,
        },
      );
    }
    if (typeof offset !== 'number' || !(offset >= 0) || offset + 4 > this.size) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${this.name}: ${op} offset ${hexOrText(offset)} is outside the window [0, ${hex(this.size)})`,
        { where, expected: `0 <= offset <= ${hex(this.lastOffset)}`, actual: offset },
      );
    }
    throw new NxdmaError(
      'MISALIGNED',
      `${this.name}: ${op} offset ${hex(offset)} is not a multiple of 4`,
      {
        where,
        expected: 'an offset that is a multiple of 4 (aligned 32-bit access)',
        actual: offset,
      },
    );
  }
}

function hexOrText(n: unknown): string {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? hex(n) : String(n);
}
