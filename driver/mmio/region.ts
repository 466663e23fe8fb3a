/**
 * openRegion: one window of a device file (a PCI BAR's resource file, /dev/mem, a UIO map),
 * mapped into the process. Registers are read and written as aligned 32-bit words only (through
 * `read32` / `write32` or the sub-windows `registers()` gives); `readBytes` / `writeBytes` are for
 * DMA-visible memory windows, which are memory, not registers.
 */
import { safetyFlag } from '../../common/flags.ts';
import type { RegisterIO } from '../../csr/io.ts';
import { NxdmaError, hex } from '../../common/errors.ts';
import {
  DeviceFile,
  checkWindowRequest,
  closedError,
  windowName,
  type Mapping,
} from './mapping.ts';
import { MmioRegisterIO } from './register-io.ts';

export interface OpenRegionOptions {
  /** Byte offset of the window in the file (multiple of 4; need not be page aligned). */
  offset: number;
  /** Window size in bytes (positive multiple of 4). */
  size: number;
  /** Open O_RDONLY and map PROT_READ; every write is then refused with DEVICE_READ_ONLY. */
  readOnly?: boolean;
}

/** One mapped window of a device file. Dispose it (or use `using`) to unmap and close. */
export class MappedRegion implements RegisterIO, Disposable {
  /** Path of the device file. */
  readonly path: string;
  /** Byte offset of the window in the file. */
  readonly offset: number;
  /** Window size in bytes. */
  readonly size: number;
  readonly readOnly: boolean;
  /** How messages name this window: `path @ 0xoffset+0xsize`. */
  readonly where: string;
  /** @internal The mapping behind this window (accessors read it on every access). */
  readonly mapping: Mapping;
  private readonly file: DeviceFile;
  private readonly ownsFile: boolean;
  private readonly words: MmioRegisterIO;

  /** @internal Use `openRegion` (or `openDevice`). */
  constructor(file: DeviceFile, mapping: Mapping, ownsFile: boolean) {
    this.file = file;
    this.mapping = mapping;
    this.ownsFile = ownsFile;
    this.path = file.path;
    this.offset = mapping.fileOffset;
    this.size = mapping.size;
    this.readOnly = mapping.readOnly;
    this.where = mapping.where;
    this.words = new MmioRegisterIO(this, { name: this.where });
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.mapping.closed;
  }

  /** One aligned 32-bit load at a byte offset of the window. */
  read32(offset: number): number {
    return this.words.read32(offset);
  }

  /** One aligned 32-bit store at a byte offset of the window. */
  write32(offset: number, value: number): void {
    this.words.write32(offset, value);
  }

  /** A RegisterIO over [offset, offset + size) of this window (offsets then relative to it). */
  registers(offset: number, size: number, name?: string): MmioRegisterIO {
    return new MmioRegisterIO(this, {
      offset,
      size,
      name: name ?? `${this.where} [${hex(offset)}+${hex(size)}]`,
    });
  }

  /** Copies the bytes at [offset, offset + dst.length) of the window into `dst` (memory, not registers). */
  readBytes(offset: number, dst: Uint8Array): void {
    const bytes = this.checkBytes('readBytes', offset, dst);
    dst.set(bytes.subarray(offset, offset + dst.length));
  }

  /** Copies `src` to [offset, offset + src.length) of the window (memory, not registers). */
  writeBytes(offset: number, src: Uint8Array): void {
    if (this.readOnly && !this.mapping.closed) {
      throw new NxdmaError(
        'DEVICE_READ_ONLY',
        `${this.where}: writeBytes refused: the device is mapped read-only`,
        {
          where: this.where,
          expected: 'a device opened read-write',
          actual: 'readOnly',
        },
      );
    }
    const bytes = this.checkBytes('writeBytes', offset, src);
    bytes.set(src, offset);
  }

  /**
   * A live view of [offset, offset + length) of the window, for DMA-visible memory. Writes through
   * it land in the device. After dispose the view no longer reaches the device (its pages are
   * replaced by private anonymous memory), so a stale view is harmless. Refused (DEVICE_READ_ONLY)
   * on a read-only mapping, where a store through the view would fault.
   */
  view(offset: number, length: number): Uint8Array {
    if (this.mapping.closed) throw closedError(this.where);
    if (this.readOnly) {
      throw new NxdmaError(
        'DEVICE_READ_ONLY',
        `${this.where}: no writable view of a read-only mapping`,
        {
          where: this.where,
          expected: 'a device opened read-write',
          actual: 'readOnly',
        },
      );
    }
    this.checkRange('view', offset, length);
    return this.mapping.liveBytes(offset, offset + length);
  }

  /** Unmaps the window and closes the file (when this region owns it). Safe to call twice. */
  dispose(): void {
    if (this.ownsFile) this.file.close();
    else this.file.unmap(this.mapping);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  private checkBytes(op: string, offset: number, data: Uint8Array): Buffer {
    const bytes = this.mapping.bytes;
    if (bytes === null) throw closedError(this.where);
    if (!(data instanceof Uint8Array)) {
      throw new NxdmaError('BAD_ARGUMENT', `${this.where}: ${op} needs a Uint8Array`, {
        where: this.where,
        expected: 'Uint8Array',
        actual: typeof data,
      });
    }
    this.checkRange(op, offset, data.length);
    return bytes;
  }

  private checkRange(op: string, offset: number, length: number): void {
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      offset < 0 ||
      length < 0 ||
      offset + length > this.size
    ) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${this.where}: ${op} of ${String(length)} bytes at ${String(offset)} is outside the window [0, ${hex(this.size)})`,
        {
          where: this.where,
          expected: `a range inside [0, ${hex(this.size)})`,
          actual: { offset, length },
        },
      );
    }
  }
}

/**
 * Maps the window [offset, offset + size) of the file at `path`.
 *
 * Opens it with libc open(O_RDWR | O_SYNC) (O_RDONLY | O_SYNC when `readOnly`), maps the covering
 * whole pages MAP_SHARED (PROT_READ | PROT_WRITE, or PROT_READ), and exposes only the window.
 *
 * @throws NxdmaError DEVICE_OPEN: empty or non-string path, missing file, permission denied
 *   (including a read-write open of a file whose mode has no write bit, even for root), not a
 *   regular file or character device, size 0, offset or size not a multiple of 4, window beyond
 *   the end of a regular file, mmap refused.
 * @throws NxdmaError DEVICE_UNAVAILABLE: ffi-napi / ref-napi missing, or not Linux x64/arm64.
 */
export function openRegion(path: string, options: OpenRegionOptions): MappedRegion {
  const { offset, size } = options ?? ({} as OpenRegionOptions);
  const readOnly = safetyFlag(options?.readOnly, 'openRegion.readOnly');
  checkWindowRequest(path, offset, size);
  const file = DeviceFile.open(path, readOnly);
  try {
    const mapping = file.map(offset, size, windowName(path, offset, size));
    return new MappedRegion(file, mapping, true);
  } catch (e) {
    file.close();
    throw e;
  }
}
