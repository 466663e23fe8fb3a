/**
 * The DGE host-private API over a Device (seed 004 §7.2, UDMA-FACTS "Host-side DGE and runtime
 * facts"): the priority-class map at dram_base + 0x18 and the mailboxes at dram_base + 0x28 (both
 * offsets from the dge_host schema, via csr/formats/dge-host.ts).
 *
 * Gates and result codes follow nrtucode_core_dge_set_priority_class_map in order:
 *   core absent                -> NxdmaError BAD_ARGUMENT (the binary aborts)
 *   boot_state != 1            -> NRTUCODE_RESULT.INVALID (8)
 *   core kind outside the mask -> NRTUCODE_RESULT.INVALID (8)
 *   classes absent             -> NxdmaError BAD_ARGUMENT (the binary aborts)
 *   n > 4                      -> NRTUCODE_RESULT.INVALID (8)
 *   otherwise one bulk write of n*4 bytes at dram_base + 0x18 -> NRTUCODE_RESULT.OK (0)
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { isBulkWindow, type DgeCoreIO, type Device } from '../../csr/io.ts';
import {
  DGE_BOOTED,
  type DgeMailbox,
  checkMailbox,
  decodeMailboxes,
  decodePriorityClassMap,
  dgeHostLayout,
  encodeMailboxes,
  encodePriorityClassMap,
  mailboxAddress,
  priorityClassMapAddress,
} from '../../csr/formats/dge-host.ts';
import { DEFAULT_DGE_BUILD, type DgeBuild, NX_POOL_KIND_MASK, isNxPoolKind } from './core-kinds.ts';

/** nrtucode_result_t values the host API returns. */
export const NRTUCODE_RESULT = {
  /** The table was written. */
  OK: 0,
  /** Refused: core not booted, core kind outside the build mask, or too many entries. */
  INVALID: 8,
} as const;
export type NrtucodeResult = (typeof NRTUCODE_RESULT)[keyof typeof NRTUCODE_RESULT];

/** boot_state of a core whose host tables may be written (BOOTED_LEGACY): csr/formats/dge-host.ts. */
export { DGE_BOOTED };

/** The most priority-class map entries a host may write (ISA classes 1..4; `cmp rdx, 4`). */
export const MAX_PRIORITY_CLASS_MAP_ENTRIES = 4;

/** The most mailboxes a core has (the dge_host mailbox table's entries, 4). */
export const MAX_DGE_MAILBOXES = dgeHostLayout().mailbox.entries;

export interface DgeHostOptions {
  /** Which library's core-kind gate to apply (default 'customop': {2, 9, 17, 25}). */
  build?: DgeBuild;
}

/** A core given by number (looked up on the device) or as its DgeCoreIO. */
export type DgeCoreRef = number | DgeCoreIO;

function resolveCore(
  device: Device,
  core: DgeCoreRef | null | undefined,
  where: string,
): DgeCoreIO {
  if (device === null || device === undefined) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: no device given`, {
      where: `${where}.device`,
      expected: 'a Device',
      actual: String(device),
    });
  }
  if (core === null || core === undefined) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: no DGE core given (the host library aborts on a null core)`,
      {
        where: `${where}.core`,
        expected: 'a core number or DgeCoreIO',
        actual: String(core),
      },
    );
  }
  if (typeof core === 'number') return device.dgeCore(core);
  if (typeof core !== 'object' || typeof core.dramBase !== 'number') {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: not a DGE core: ${String(core)}`, {
      where: `${where}.core`,
      expected: 'a core number or DgeCoreIO',
      actual: String(core),
    });
  }
  return core;
}

function buildOf(opts: DgeHostOptions | undefined, where: string): DgeBuild {
  const build = opts?.build ?? DEFAULT_DGE_BUILD;
  if (!Object.prototype.hasOwnProperty.call(NX_POOL_KIND_MASK, build)) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: unknown build ${JSON.stringify(build)}`, {
      where: `${where}.build`,
      expected: 'customop | internal',
      actual: String(build),
    });
  }
  return build;
}

/**
 * Checks that `length` bytes at `offset` of the core's dge_host window are whole words inside it
 * (before any access, so a refused table changes nothing).
 */
function checkTableRange(c: DgeCoreIO, offset: number, length: number, where: string): void {
  if (offset % 4 !== 0 || length % 4 !== 0 || offset < 0 || offset + length > c.dram.size) {
    throw new NxdmaError(
      'OUT_OF_WINDOW',
      `${where}: ${length} bytes at dge_host + ${hex(offset)} do not lie in whole words inside DGE core ${c.core}'s window (${hex(c.dram.size)} bytes)`,
      {
        where: `${where} DGE core ${c.core} dge_host @ ${hex(offset)}`,
        expected: `whole aligned words inside [0, ${hex(c.dram.size)})`,
        actual: { offset, length },
      },
    );
  }
}

/**
 * Writes a host table through the core's own dge_host window: one bulk copy when the window offers
 * it (BulkWindowIO), else aligned 32-bit words, little-endian as in memory. On the mock the window is the memory at dram_base, on a mapped device it is the
 * core's mapped window (from `barOffset`, or carved out of a memory window).
 */
function writeTable(c: DgeCoreIO, offset: number, bytes: Uint8Array, where: string): void {
  checkTableRange(c, offset, bytes.length, where);
  if (isBulkWindow(c.dram)) return c.dram.writeBytes(offset, bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < bytes.length; i += 4) c.dram.write32(offset + i, view.getUint32(i, true));
}

/** Reads a host table through the core's dge_host window into `dst` (whole words). */
function readTable(c: DgeCoreIO, offset: number, dst: Uint8Array, where: string): void {
  checkTableRange(c, offset, dst.length, where);
  if (isBulkWindow(c.dram)) return c.dram.readBytes(offset, dst);
  const view = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  for (let i = 0; i < dst.length; i += 4) view.setUint32(i, c.dram.read32(offset + i) >>> 0, true);
}

/** The boot-state and core-kind gates shared by every host-table write. */
function gate(core: DgeCoreIO, build: DgeBuild): boolean {
  return core.bootState === DGE_BOOTED && isNxPoolKind(core.kind, build);
}

/**
 * nrtucode_core_dge_set_priority_class_map: writes `classes` (u32 preferred bytes per packet for
 * ISA classes 1..n) as one bulk n*4-byte write at dram_base + 0x18. Returns NRTUCODE_RESULT.OK or
 * NRTUCODE_RESULT.INVALID (gates in the binary's order, see the file comment). A class value that
 * is not a u32 is a BAD_ARGUMENT error (checked after the gates, before the write). n = 0 passes
 * the gates and writes nothing.
 */
export function setPriorityClassMap(
  device: Device,
  core: DgeCoreRef | null | undefined,
  classes: ArrayLike<number> | null | undefined,
  opts?: DgeHostOptions,
): NrtucodeResult {
  const where = 'setPriorityClassMap';
  const c = resolveCore(device, core, where);
  const build = buildOf(opts, where);
  if (c.bootState !== DGE_BOOTED) return NRTUCODE_RESULT.INVALID;
  if (!isNxPoolKind(c.kind, build)) return NRTUCODE_RESULT.INVALID;
  if (classes === null || classes === undefined) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: no priority classes given (the host library aborts on null)`,
      {
        where: `${where}.classes`,
        expected: 'an array of at most 4 u32 values',
        actual: String(classes),
      },
    );
  }
  if (typeof classes !== 'object' || typeof classes.length !== 'number') {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: classes must be an array of u32 values`, {
      where: `${where}.classes`,
      expected: 'an array of at most 4 u32 values',
      actual: String(classes),
    });
  }
  if (classes.length > MAX_PRIORITY_CLASS_MAP_ENTRIES) return NRTUCODE_RESULT.INVALID;
  const bytes = encodePriorityClassMap(classes);
  if (bytes.length > 0) writeTable(c, dgeHostLayout().priorityClassMap.offset, bytes, where);
  return NRTUCODE_RESULT.OK;
}

/** Reads the first `count` (default all four) priority-class map entries of a core. */
export function readPriorityClassMap(
  device: Device,
  core: DgeCoreRef,
  count: number = MAX_PRIORITY_CLASS_MAP_ENTRIES,
): number[] {
  const c = resolveCore(device, core, 'readPriorityClassMap');
  const t = dgeHostLayout().priorityClassMap;
  checkCount(count, t.entries, 'readPriorityClassMap.count');
  const buf = new Uint8Array(count * t.stride);
  if (count > 0) readTable(c, t.offset, buf, 'readPriorityClassMap');
  return decodePriorityClassMap(buf);
}

function checkCount(count: number, max: number, where: string): void {
  if (!Number.isInteger(count) || count < 0 || count > max) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: expected an integer 0..${max}, got ${String(count)}`,
      {
        where,
        expected: `0..${max}`,
        actual: count,
      },
    );
  }
}

/** Reads the first `count` (default all four) mailboxes of a core at dram_base + 0x28 + 4*i. */
export function readMailboxes(
  device: Device,
  core: DgeCoreRef,
  count: number = MAX_DGE_MAILBOXES,
): DgeMailbox[] {
  const c = resolveCore(device, core, 'readMailboxes');
  const t = dgeHostLayout().mailbox;
  checkCount(count, t.entries, 'readMailboxes.count');
  if (count === 0) return [];
  const buf = new Uint8Array((count - 1) * t.stride + t.entrySize);
  readTable(c, t.offset, buf, 'readMailboxes');
  return decodeMailboxes(buf, count);
}

/**
 * Writes mailboxes 0..n-1 (n <= 4) of a core as one bulk write at dram_base + 0x28. The seed gives
 * only the mailbox address; nxdma applies the same boot-state and core-kind gates and result codes
 * as setPriorityClassMap (more than four entries -> INVALID). Invalid entry fields are BAD_ARGUMENT
 * errors; nothing is written then.
 */
export function writeMailboxes(
  device: Device,
  core: DgeCoreRef | null | undefined,
  entries: readonly DgeMailbox[] | null | undefined,
  opts?: DgeHostOptions,
): NrtucodeResult {
  const where = 'writeMailboxes';
  const c = resolveCore(device, core, where);
  const build = buildOf(opts, where);
  if (!gate(c, build)) return NRTUCODE_RESULT.INVALID;
  if (!Array.isArray(entries)) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: expected an array of mailboxes`, {
      where: `${where}.entries`,
      expected: 'an array of at most 4 { reserved, priority, bitmask }',
      actual: String(entries),
    });
  }
  if (entries.length > dgeHostLayout().mailbox.entries) return NRTUCODE_RESULT.INVALID;
  const bytes = encodeMailboxes(entries);
  if (bytes.length > 0) writeTable(c, dgeHostLayout().mailbox.offset, bytes, where);
  return NRTUCODE_RESULT.OK;
}

/** Writes mailbox `index` (0..3) of a core; same gates as writeMailboxes (index > 3 -> INVALID). */
export function writeMailbox(
  device: Device,
  core: DgeCoreRef | null | undefined,
  index: number,
  entry: DgeMailbox,
  opts?: DgeHostOptions,
): NrtucodeResult {
  const where = 'writeMailbox';
  const c = resolveCore(device, core, where);
  const build = buildOf(opts, where);
  if (!gate(c, build)) return NRTUCODE_RESULT.INVALID;
  if (!Number.isInteger(index) || index < 0) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: index must be a non-negative integer, got ${String(index)}`,
      {
        where: `${where}.index`,
        expected: '0..3',
        actual: index,
      },
    );
  }
  if (index >= dgeHostLayout().mailbox.entries) return NRTUCODE_RESULT.INVALID;
  checkMailbox(entry, `${where}.entry`);
  const t = dgeHostLayout().mailbox;
  writeTable(c, t.offset + index * t.stride, encodeMailboxes([entry]), where);
  return NRTUCODE_RESULT.OK;
}
