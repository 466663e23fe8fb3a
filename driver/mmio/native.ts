/**
 * The libc calls the mapped-device back end needs (open, close, mmap, munmap, sysconf), reached
 * over the optional native modules ffi-napi and ref-napi. They are loaded lazily on first use, so
 * a machine without them installs and runs everything else; only opening a mapped device then
 * fails, with DEVICE_UNAVAILABLE and the command that installs them.
 */
import { constants as fsConstants } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import { NxdmaError } from '../../common/errors.ts';

/** The command that installs the optional native modules (quoted in errors and docs). */
export const NATIVE_INSTALL_HINT =
  'npm install ffi-napi@npm:@2060.io/ffi-napi ref-napi@npm:@2060.io/ref-napi';

/** A native pointer as ref-napi represents it: a Buffer whose address is the pointer. */
export type NativePointer = Buffer;

/** The libc surface used by driver/mmio, with the Linux constants it needs. */
export interface Libc {
  readonly pageSize: number;
  readonly O_RDONLY: number;
  readonly O_RDWR: number;
  readonly O_SYNC: number;
  readonly O_CLOEXEC: number;
  readonly PROT_READ: number;
  readonly PROT_WRITE: number;
  readonly MAP_SHARED: number;
  readonly MAP_PRIVATE: number;
  readonly MAP_FIXED: number;
  readonly MAP_ANONYMOUS: number;
  readonly MAP_NORESERVE: number;
  /** libc open(path, flags); -1 on failure (then `errno()`). Never called with O_CREAT. */
  open(path: string, flags: number): number;
  close(fd: number): number;
  /** libc mmap; check the result with `isMapFailed`. */
  mmap(
    addr: NativePointer | null,
    length: number,
    prot: number,
    flags: number,
    fd: number,
    offset: number,
  ): NativePointer;
  munmap(addr: NativePointer, length: number): number;
  /** errno of the calling thread, read right after a failed call. */
  errno(): number;
  /** True when an mmap result is MAP_FAILED ((void *)-1). */
  isMapFailed(p: NativePointer): boolean;
  /** A Buffer of `length` bytes over the memory at `p` (no copy). */
  bytesAt(p: NativePointer, length: number): Buffer;
  /** The pointer as 0x-prefixed hex text (for messages). */
  hexAddress(p: NativePointer): string;
}

/** Only these platforms are supported: the flag values below are the Linux generic ABI. */
const SUPPORTED_ARCHES: ReadonlySet<string> = new Set(['x64', 'arm64']);

// Linux generic ABI (x86-64 and arm64 share these values).
const LINUX = {
  O_CLOEXEC: 0o2000000,
  PROT_READ: 0x1,
  PROT_WRITE: 0x2,
  MAP_SHARED: 0x01,
  MAP_PRIVATE: 0x02,
  MAP_FIXED: 0x10,
  MAP_ANONYMOUS: 0x20,
  MAP_NORESERVE: 0x4000,
  _SC_PAGESIZE: 30,
} as const;

/** Minimal shapes of the two native modules (they ship no types). */
interface RefModule {
  NULL: Buffer;
  reinterpret(buffer: Buffer, size: number, offset?: number): Buffer;
  hexAddress(buffer: Buffer): string;
}
interface FfiModule {
  Library(
    name: string | null,
    functions: Record<string, [string, string[]]>,
  ): Record<string, (...args: unknown[]) => unknown>;
  errno(): number;
}

export type NativeRequire = (id: string) => unknown;

let cached: Libc | undefined;

/**
 * Loads libc over ffi-napi / ref-napi (once; later calls return the same object).
 *
 * @param options.require a replacement module loader; given one, nothing is cached (tests use it
 *   to show what a machine without the native modules sees).
 * @throws NxdmaError DEVICE_UNAVAILABLE when the platform is not Linux x64/arm64 or the native
 *   modules cannot be loaded; the message says how to install them.
 */
export function loadLibc(options: { require?: NativeRequire } = {}): Libc {
  if (options.require === undefined && cached !== undefined) return cached;
  if (process.platform !== 'linux' || !SUPPORTED_ARCHES.has(process.arch)) {
    throw new NxdmaError(
      'DEVICE_UNAVAILABLE',
      `mapped devices are supported on Linux x64 and arm64 only (this is ${process.platform} ${process.arch})`,
      {
        where: 'driver/mmio',
        expected: 'linux x64 or arm64',
        actual: `${process.platform} ${process.arch}`,
      },
    );
  }
  const req: NativeRequire = options.require ?? createRequire(import.meta.url);
  let ffi: FfiModule;
  let ref: RefModule;
  try {
    ffi = req('ffi-napi') as FfiModule;
    ref = req('ref-napi') as RefModule;
  } catch (e) {
    const reason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new NxdmaError(
      'DEVICE_UNAVAILABLE',
      'the mapped-device back end needs the optional native modules ffi-napi and ref-napi, which ' +
        `could not be loaded (${reason}). Install them, with a C++ toolchain (python3, make, g++) ` +
        `present, by running: ${NATIVE_INSTALL_HINT}`,
      {
        where: 'driver/mmio',
        expected: 'ffi-napi and ref-napi installed',
        actual: reason,
        install: NATIVE_INSTALL_HINT,
      },
    );
  }
  const lib = ffi.Library(null, {
    open: ['int', ['string', 'int']],
    close: ['int', ['int']],
    mmap: ['pointer', ['pointer', 'size_t', 'int', 'int', 'int', 'int64']],
    munmap: ['int', ['pointer', 'size_t']],
    sysconf: ['long', ['int']],
  });
  const pageSize = Number(lib.sysconf!(LINUX._SC_PAGESIZE));
  const libc: Libc = {
    pageSize: Number.isInteger(pageSize) && pageSize > 0 ? pageSize : 4096,
    O_RDONLY: fsConstants.O_RDONLY,
    O_RDWR: fsConstants.O_RDWR,
    O_SYNC: fsConstants.O_SYNC,
    O_CLOEXEC: LINUX.O_CLOEXEC,
    PROT_READ: LINUX.PROT_READ,
    PROT_WRITE: LINUX.PROT_WRITE,
    MAP_SHARED: LINUX.MAP_SHARED,
    MAP_PRIVATE: LINUX.MAP_PRIVATE,
    MAP_FIXED: LINUX.MAP_FIXED,
    MAP_ANONYMOUS: LINUX.MAP_ANONYMOUS,
    MAP_NORESERVE: LINUX.MAP_NORESERVE,
    open: (path, flags) => lib.open!(path, flags) as number,
    close: (fd) => lib.close!(fd) as number,
    mmap: (addr, length, prot, flags, fd, offset) =>
      lib.mmap!(addr ?? ref.NULL, length, prot, flags, fd, offset) as NativePointer,
    munmap: (addr, length) => lib.munmap!(addr, length) as number,
    errno: () => ffi.errno(),
    isMapFailed: (p) => ref.hexAddress(p) === 'ffffffffffffffff',
    bytesAt: (p, length) => ref.reinterpret(p, length, 0),
    hexAddress: (p) => '0x' + ref.hexAddress(p),
  };
  if (options.require === undefined) cached = libc;
  return libc;
}

const ERRNO_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(osConstants.errno).map(([name, value]) => [value, name]),
);

/** The symbolic name of an errno value ('ENOENT'), or 'errno <n>'. */
export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}
