/**
 * The lifetime of one opened device file and of the page-aligned mappings made from it. Nothing
 * here reads or writes device memory: `MmioRegisterIO` (aligned 32-bit words) and `MappedRegion`
 * (bytes, for DMA-visible memory) are the only accessors, and they check every access first.
 */
import { constants as bufferConstants } from 'node:buffer';
import fs from 'node:fs';
import { NxdmaError, hex } from '../../common/errors.ts';
import { errnoName, loadLibc, type Libc, type NativePointer } from './native.ts';

/**
 * Largest window one mapping may expose: ref-napi wraps at most 0x3fffffff bytes of native memory
 * in one Buffer, and the covering pages add up to two pages; 1 GiB - 1 MiB leaves room for pages
 * up to 512 KiB. Larger memory is mapped as several windows.
 */
export const MAX_WINDOW_BYTES = Math.min(bufferConstants.MAX_LENGTH, 0x3ff00000);

/** `path @ 0xoffset+0xsize`, the way messages name a window of a device file. */
export function windowName(path: string, offset: number, size: number): string {
  return `${path} @ ${hex(offset)}+${hex(size)}`;
}

function isNonNegativeInteger(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Checks a requested window (pure; nothing is opened): offset a non-negative multiple of 4, size a
 * positive multiple of 4 no larger than MAX_WINDOW_BYTES.
 * @throws NxdmaError DEVICE_OPEN naming the offending value.
 */
export function checkWindowRequest(
  path: string,
  offset: unknown,
  size: unknown,
  where?: string,
): void {
  const at = where ?? path;
  if (!isNonNegativeInteger(offset)) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `${at}: window offset ${String(offset)} is not a non-negative integer`,
      {
        where: at,
        expected: 'a non-negative integer byte offset, a multiple of 4',
        actual: offset,
      },
    );
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `${at}: window size ${String(size)} is not a positive integer (a size of 0 maps nothing)`,
      { where: at, expected: 'a positive byte count, a multiple of 4', actual: size },
    );
  }
  if (offset % 4 !== 0 || size % 4 !== 0) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `${at}: window ${hex(offset)}+${hex(size)} is not 4-byte aligned (registers are aligned 32-bit words)`,
      { where: at, expected: 'offset and size multiples of 4', actual: { offset, size } },
    );
  }
  if (size > MAX_WINDOW_BYTES) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `${at}: window size ${hex(size)} exceeds ${hex(MAX_WINDOW_BYTES)}`,
      {
        where: at,
        expected: `size <= ${hex(MAX_WINDOW_BYTES)}`,
        actual: size,
      },
    );
  }
  if (offset + size > Number.MAX_SAFE_INTEGER) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `${at}: window end ${offset} + ${size} is not a safe integer`,
      {
        where: at,
        expected: 'offset + size < 2^53',
        actual: { offset, size },
      },
    );
  }
}

function openError(
  path: string,
  what: string,
  errno: string,
  extra: Record<string, unknown> = {},
): NxdmaError {
  const hint =
    errno === 'ENOENT'
      ? 'no such file (for a PCI device use /sys/bus/pci/devices/<bdf>/resource0)'
      : errno === 'EACCES' || errno === 'EPERM'
        ? 'permission denied (map as a user allowed to open the file read-write, or pass readOnly: true)'
        : errno;
  return new NxdmaError('DEVICE_OPEN', `${path}: cannot ${what}: ${hint}`, {
    where: path,
    expected: what === 'map' ? 'a mappable window' : 'an existing device resource file',
    actual: errno,
    errno,
    ...extra,
  });
}

/** Releases mapped pages once the last live view over them has been collected (see Mapping.unmap). */
const scratchReleaser = new FinalizationRegistry<{ libc: Libc; p: NativePointer; length: number }>(
  ({ libc, p, length }) => {
    libc.munmap(p, length);
  },
);

/**
 * One mmap of whole pages, exposing only the requested window. Accessors read `u32` / `bytes`
 * on every access; both become null on unmap, which is how every accessor learns the mapping is
 * gone.
 */
export class Mapping {
  /** The window as aligned 32-bit words (null once unmapped). */
  u32: Uint32Array | null;
  /** The window as bytes (null once unmapped). */
  bytes: Buffer | null;
  private pointer: NativePointer | null;
  private escaped = false;

  constructor(
    private readonly libc: Libc,
    pointer: NativePointer,
    private readonly mapLength: number,
    pageDelta: number,
    /** File offset of the window's first byte. */
    readonly fileOffset: number,
    /** Window size in bytes. */
    readonly size: number,
    readonly readOnly: boolean,
    /** Name of the window for messages. */
    readonly where: string,
  ) {
    this.pointer = pointer;
    const all = libc.bytesAt(pointer, mapLength);
    this.bytes = all.subarray(pageDelta, pageDelta + size);
    this.u32 = new Uint32Array(all.buffer, all.byteOffset + pageDelta, size / 4);
  }

  get closed(): boolean {
    return this.u32 === null;
  }

  /**
   * A live byte view that will be handed to a caller. The mapping remembers that such a view
   * escaped, so that unmapping can keep its addresses harmless (see `unmap`).
   */
  liveBytes(start: number, end: number): Buffer {
    if (this.bytes === null) throw closedError(this.where);
    this.escaped = true;
    return this.bytes.subarray(start, end);
  }

  /**
   * Unmaps the pages (idempotent). When a live view was handed out, the device pages are first
   * replaced in place by private anonymous pages (mmap MAP_FIXED), so a stale view can never reach
   * the device or whatever the kernel maps at that address next; those pages are released once the
   * last view is garbage-collected.
   */
  unmap(): void {
    const p = this.pointer;
    if (p === null) return;
    const bytes = this.bytes;
    this.pointer = null;
    this.u32 = null;
    this.bytes = null;
    const { libc } = this;
    if (this.escaped && bytes !== null) {
      const scratch = libc.mmap(
        p,
        this.mapLength,
        libc.PROT_READ | libc.PROT_WRITE,
        libc.MAP_PRIVATE | libc.MAP_ANONYMOUS | libc.MAP_FIXED | libc.MAP_NORESERVE,
        -1,
        0,
      );
      if (!libc.isMapFailed(scratch)) {
        scratchReleaser.register(bytes.buffer, { libc, p, length: this.mapLength });
        return;
      }
    }
    libc.munmap(p, this.mapLength);
  }
}

export function closedError(where: string): NxdmaError {
  return new NxdmaError('DEVICE_CLOSED', `${where}: the mapping has been disposed`, {
    where,
    expected: 'an open mapping',
    actual: 'disposed',
  });
}

/**
 * One opened device file (a PCI resource file, /dev/mem, a UIO device, or a plain file standing in
 * for one). Opened with libc open(O_RDWR | O_SYNC), or O_RDONLY | O_SYNC when read-only.
 */
export class DeviceFile {
  private fd: number;
  private readonly mappings = new Set<Mapping>();

  private constructor(
    private readonly libc: Libc,
    fd: number,
    readonly path: string,
    readonly readOnly: boolean,
    /** The file's size in bytes when it is knowable (regular files), else undefined. */
    readonly knownSize: number | undefined,
  ) {
    this.fd = fd;
  }

  /**
   * Stats then opens `path`. Refuses (DEVICE_OPEN) a missing file, a file that is neither regular
   * nor a character device, a read-write open of a file no one may write (mode without any w bit,
   * refused even for root), and whatever libc open refuses (errno named).
   * @throws NxdmaError DEVICE_UNAVAILABLE when the native modules are missing.
   */
  static open(path: string, readOnly: boolean): DeviceFile {
    if (typeof path !== 'string' || path.length === 0) {
      throw new NxdmaError(
        'DEVICE_OPEN',
        `device path ${JSON.stringify(path)} is not a non-empty string`,
        {
          where: 'path',
          expected: 'a path to a device resource file',
          actual: path,
        },
      );
    }
    const libc = loadLibc();
    let st: fs.Stats;
    try {
      st = fs.statSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'stat failed';
      throw openError(path, 'open', code);
    }
    if (!st.isFile() && !st.isCharacterDevice()) {
      throw new NxdmaError('DEVICE_OPEN', `${path}: not a regular file or character device`, {
        where: path,
        expected: 'a PCI resource file, /dev/mem, a UIO device or a regular file',
        actual: st.isDirectory()
          ? 'directory'
          : st.isBlockDevice()
            ? 'block device'
            : 'special file',
      });
    }
    if (!readOnly && (st.mode & 0o222) === 0) {
      throw new NxdmaError(
        'DEVICE_OPEN',
        `${path}: permission denied: the file is read-only (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); ` +
          'open it with readOnly: true to read it',
        {
          where: path,
          expected: 'a writable file (or readOnly: true)',
          actual: `mode ${(st.mode & 0o777).toString(8)}`,
          errno: 'EACCES',
        },
      );
    }
    // sysfs attributes may report size 0 when the size is not known; character devices have none.
    let knownSize: number | undefined = st.isFile() ? st.size : undefined;
    if (knownSize === 0 && isUnderSysfs(path)) knownSize = undefined;
    const flags = (readOnly ? libc.O_RDONLY : libc.O_RDWR) | libc.O_SYNC | libc.O_CLOEXEC;
    const fd = libc.open(path, flags);
    if (fd < 0)
      throw openError(
        path,
        readOnly ? 'open read-only' : 'open read-write',
        errnoName(libc.errno()),
      );
    return new DeviceFile(libc, fd, path, readOnly, knownSize);
  }

  get closed(): boolean {
    return this.fd < 0;
  }

  /** Page size used to align mappings. */
  get pageSize(): number {
    return this.libc.pageSize;
  }

  /**
   * Checks a window against the file (pure): request shape, then the file's size when known.
   * @throws NxdmaError DEVICE_OPEN
   */
  checkWindow(offset: number, size: number, where?: string): void {
    checkWindowRequest(this.path, offset, size, where);
    if (this.knownSize !== undefined && offset + size > this.knownSize) {
      const at = where ?? this.path;
      throw new NxdmaError(
        'DEVICE_OPEN',
        `${at}: window ${hex(offset)}+${hex(size)} extends beyond the end of ${this.path} (size ${hex(this.knownSize)})`,
        {
          where: at,
          expected: `offset + size <= ${hex(this.knownSize)}`,
          actual: { offset, size, fileSize: this.knownSize },
        },
      );
    }
  }

  /**
   * Maps [offset, offset + size) of the file: MAP_SHARED over the covering whole pages, PROT_READ |
   * PROT_WRITE (PROT_READ when read-only).
   * @throws NxdmaError DEVICE_OPEN (bad window, beyond the file, mmap refused), DEVICE_CLOSED
   */
  map(offset: number, size: number, where?: string): Mapping {
    const at = where ?? windowName(this.path, offset, size);
    if (this.closed) throw closedError(at);
    this.checkWindow(offset, size, at);
    const page = this.libc.pageSize;
    const pageStart = offset - (offset % page);
    const pageDelta = offset - pageStart;
    const mapLength = Math.ceil((pageDelta + size) / page) * page;
    const { libc } = this;
    const prot = this.readOnly ? libc.PROT_READ : libc.PROT_READ | libc.PROT_WRITE;
    const p = libc.mmap(null, mapLength, prot, libc.MAP_SHARED, this.fd, pageStart);
    if (libc.isMapFailed(p)) {
      throw openError(this.path, 'map', errnoName(libc.errno()), {
        offset,
        size,
        pageStart,
        mapLength,
      });
    }
    let m: Mapping;
    try {
      m = new Mapping(libc, p, mapLength, pageDelta, offset, size, this.readOnly, at);
    } catch (e) {
      libc.munmap(p, mapLength);
      throw new NxdmaError(
        'DEVICE_OPEN',
        `${at}: cannot wrap the mapping: ${(e as Error).message}`,
        {
          where: at,
          expected: `a window of at most ${hex(MAX_WINDOW_BYTES)} bytes`,
          actual: { offset, size, mapLength },
        },
      );
    }
    this.mappings.add(m);
    return m;
  }

  /** Unmaps one mapping made from this file (idempotent). */
  unmap(m: Mapping): void {
    m.unmap();
    this.mappings.delete(m);
  }

  /** Unmaps every mapping made from this file, then closes it (idempotent). */
  close(): void {
    for (const m of this.mappings) m.unmap();
    this.mappings.clear();
    if (this.fd >= 0) {
      this.libc.close(this.fd);
      this.fd = -1;
    }
  }
}

function isUnderSysfs(path: string): boolean {
  try {
    return fs.realpathSync(path).startsWith('/sys/');
  } catch {
    return path.startsWith('/sys/');
  }
}
