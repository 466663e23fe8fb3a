/**
 * The dge_host table formats (seed 004 §7.2): the host priority-class map (u32 bytes per packet per
 * ISA class 1..4) and the DGE mailbox entry nrtucode_dge_mailbox_t {reserved u8, priority u8,
 * bitmask u16}; and the core kinds and boot state the host API gates on (shared by the driver's
 * gate and the mock core). Offsets, strides, entry counts and field positions come from the dge_host register
 * map generated from csr/schemas/dge_host.json (csr/generated/dge_host.ts); nothing here writes one
 * by hand.
 */
import { NxdmaError } from '../../common/errors.ts';
import { dge_host } from '../generated/dge_host.ts';
import { fieldValue, placeField } from '../runtime/fields.ts';
import { REGISTER_BYTES, fieldMax } from '../schema/model.ts';
import { type ByteView, type DecodeResult, fail, getU32LE, isU32, ok, putU32LE } from './wire.ts';

// --- core kind and boot state -----------------------------------------------------------------

/**
 * nrtucode core kinds (the `*_NX_POOL` coretype values, UDMA-FACTS.md): what a core reports as
 * DgeCoreIO.kind and the host API's core-kind gate reads.
 */
export const DgeCoreKind = {
  SUNDA: 2,
  CAYMAN: 9,
  MARIANA: 17,
  MARIANA_PLUS: 25,
  MAVERICK: 32,
} as const;
export type DgeCoreKindName = keyof typeof DgeCoreKind;

/** boot_state of a core whose host tables may be written (BOOTED_LEGACY). */
export const DGE_BOOTED = 1;

// --- tables ------------------------------------------------------------------------------------

/** One mailbox entry. */
export interface DgeMailbox {
  /** Reserved byte (0 when written by nxdma). */
  reserved: number;
  /** Mailbox priority 0..255: operations with a greater priority value are masked. */
  priority: number;
  /** 16-bit DMA-channel enable mask. */
  bitmask: number;
}

/** The default mailbox {0, 0xFF, 0xFFFF}: never masks anything. */
export const MAILBOX_NEVER_MASKS: Readonly<DgeMailbox> = Object.freeze({
  reserved: 0,
  priority: 0xff,
  bitmask: 0xffff,
});

/** All 16 DMA channels enabled: where every DGE operation's channel mask starts. */
export const ALL_DMA_CHANNELS = 0xffff;

/** A field's position in its 32-bit entry (from the generated map). */
export interface EntryField {
  readonly name: string;
  readonly lsb: number;
  readonly width: number;
  /** Largest value: 2^width - 1. */
  readonly max: number;
}

/** Where a table lives relative to dram_base (from the generated map). */
export interface DgeHostTable {
  /** Register name in dge_host ('priority_class_map', 'mailbox'). */
  readonly name: string;
  /** Byte offset of entry 0 from dram_base. */
  readonly offset: number;
  /** Number of entries. */
  readonly entries: number;
  /** Bytes between entries. */
  readonly stride: number;
  /** Bytes per entry (one register word). */
  readonly entrySize: number;
}

export interface DgeHostLayout {
  readonly priorityClassMap: DgeHostTable & { readonly bytesPerPacket: EntryField };
  readonly mailbox: DgeHostTable & {
    readonly reserved: EntryField;
    readonly priority: EntryField;
    readonly bitmask: EntryField;
  };
}

function field(name: string, f: { readonly lsb: number; readonly width: number }): EntryField {
  return Object.freeze({ name, lsb: f.lsb, width: f.width, max: fieldMax(f.width) });
}

const PCM = dge_host.registers.priority_class_map;
const MB = dge_host.registers.mailbox;

const LAYOUT: DgeHostLayout = Object.freeze({
  priorityClassMap: Object.freeze({
    name: 'priority_class_map',
    offset: PCM.offset,
    entries: PCM.count,
    stride: PCM.stride,
    entrySize: REGISTER_BYTES,
    bytesPerPacket: field('bytes_per_packet', PCM.fields.bytes_per_packet),
  }),
  mailbox: Object.freeze({
    name: 'mailbox',
    offset: MB.offset,
    entries: MB.count,
    stride: MB.stride,
    entrySize: REGISTER_BYTES,
    reserved: field('reserved', MB.fields.reserved),
    priority: field('priority', MB.fields.priority),
    bitmask: field('bitmask', MB.fields.bitmask),
  }),
});

/** The dge_host table layout (offsets 0x18 / 0x28, strides, counts, field positions). */
export function dgeHostLayout(): DgeHostLayout {
  return LAYOUT;
}

/** Device address of priority-class map entry `index` of a core at `dramBase`. */
export function priorityClassMapAddress(dramBase: number, index = 0): number {
  const t = dgeHostLayout().priorityClassMap;
  return dramBase + t.offset + index * t.stride;
}

/** Device address of mailbox `index` of a core at `dramBase`. */
export function mailboxAddress(dramBase: number, index = 0): number {
  const t = dgeHostLayout().mailbox;
  return dramBase + t.offset + index * t.stride;
}

// --- mailbox entry ---------------------------------------------------------------------------

function checkField(f: EntryField, v: unknown, where: string): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > f.max) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: expected an integer 0..${f.max}, got ${String(v)}`,
      {
        where,
        expected: `0..${f.max}`,
        actual: typeof v === 'number' ? v : String(v),
      },
    );
  }
}

/** Validates a mailbox entry (BAD_ARGUMENT naming the field). */
export function checkMailbox(m: DgeMailbox, where = 'mailbox'): void {
  if (typeof m !== 'object' || m === null) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: expected a mailbox { reserved, priority, bitmask }`,
      {
        where,
        expected: '{ reserved: u8, priority: u8, bitmask: u16 }',
        actual: String(m),
      },
    );
  }
  const l = dgeHostLayout().mailbox;
  checkField(l.reserved, m.reserved ?? 0, `${where}.reserved`);
  checkField(l.priority, m.priority, `${where}.priority`);
  checkField(l.bitmask, m.bitmask, `${where}.bitmask`);
}

/** The 32-bit word of a mailbox entry: reserved[7:0] | priority[15:8] | bitmask[31:16]. */
export function packMailbox(m: DgeMailbox): number {
  checkMailbox(m);
  const l = dgeHostLayout().mailbox;
  return (
    (placeField(m.reserved ?? 0, l.reserved) |
      placeField(m.priority, l.priority) |
      placeField(m.bitmask, l.bitmask)) >>>
    0
  );
}

/** The mailbox entry of a 32-bit word. */
export function unpackMailbox(word: number): DgeMailbox {
  if (!isU32(word)) {
    throw new NxdmaError('BAD_ARGUMENT', `mailbox word: expected a u32, got ${String(word)}`, {
      where: 'mailbox word',
      expected: 'a u32',
      actual: word,
    });
  }
  const l = dgeHostLayout().mailbox;
  return {
    reserved: fieldValue(word, l.reserved),
    priority: fieldValue(word, l.priority),
    bitmask: fieldValue(word, l.bitmask),
  };
}

function u8view(v: ByteView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function spanCheck(v: ByteView, off: number, size: number, where: string): NxdmaError | undefined {
  if (!Number.isInteger(off) || off < 0 || off + size > v.byteLength) {
    return new NxdmaError(
      'OUT_OF_RANGE',
      `${where}: ${size} bytes at byte offset ${String(off)} do not fit a ${v.byteLength}-byte view`,
      { where, expected: `0 <= offset <= ${v.byteLength - size}`, actual: off },
    );
  }
  return undefined;
}

/** Writes one mailbox entry (4 bytes, little-endian) at `byteOffset`. */
export function encodeMailbox(dst: ByteView, byteOffset: number, m: DgeMailbox): void {
  const w = packMailbox(m);
  const e = spanCheck(dst, byteOffset, REGISTER_BYTES, 'mailbox');
  if (e) throw e;
  putU32LE(u8view(dst), byteOffset, w);
}

/** Reads one mailbox entry at `byteOffset`. */
export function decodeMailbox(src: ByteView, byteOffset = 0): DgeMailbox {
  const e = spanCheck(src, byteOffset, REGISTER_BYTES, 'mailbox');
  if (e) throw e;
  return unpackMailbox(getU32LE(u8view(src), byteOffset));
}

/**
 * Validating decode of a mailbox entry: every 4-byte pattern is a well-formed entry; nxdma writes
 * reserved = 0, so a non-zero reserved byte is reported as DESCRIPTOR_INVALID.
 */
export function validateMailbox(src: ByteView, byteOffset = 0): DecodeResult<DgeMailbox> {
  const e = spanCheck(src, byteOffset, REGISTER_BYTES, 'mailbox');
  if (e) return fail(e);
  const m = unpackMailbox(getU32LE(u8view(src), byteOffset));
  if (m.reserved !== 0) {
    return fail(
      new NxdmaError(
        'DESCRIPTOR_INVALID',
        `mailbox@${byteOffset}.reserved: expected 0, got ${m.reserved}`,
        {
          where: `mailbox@${byteOffset}.reserved`,
          expected: '0',
          actual: m.reserved,
        },
      ),
    );
  }
  return ok(m);
}

/** Bytes of `entries` consecutive mailboxes (entry i at i * stride). At most the schema's count. */
export function encodeMailboxes(entries: readonly DgeMailbox[]): Uint8Array {
  const t = dgeHostLayout().mailbox;
  if (!Array.isArray(entries) || entries.length > t.entries) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `mailboxes: expected at most ${t.entries} entries, got ${Array.isArray(entries) ? entries.length : String(entries)}`,
      {
        where: 'mailboxes',
        expected: `0..${t.entries} entries`,
        actual: Array.isArray(entries) ? entries.length : String(entries),
      },
    );
  }
  entries.forEach((m, i) => checkMailbox(m, `mailboxes[${i}]`));
  const out = new Uint8Array(
    entries.length === 0 ? 0 : (entries.length - 1) * t.stride + t.entrySize,
  );
  entries.forEach((m, i) => putU32LE(out, i * t.stride, packMailbox(m)));
  return out;
}

/** Decodes `count` consecutive mailboxes from `src`. */
export function decodeMailboxes(src: ByteView, count: number, byteOffset = 0): DgeMailbox[] {
  const t = dgeHostLayout().mailbox;
  const out: DgeMailbox[] = [];
  for (let i = 0; i < count; i++) out.push(decodeMailbox(src, byteOffset + i * t.stride));
  return out;
}

// --- priority-class map ------------------------------------------------------------------------

/**
 * Bytes of a priority-class map of n entries (entry i = ISA class i + 1, u32 little-endian bytes
 * per packet), as the one bulk n*4-byte write sends them. Validates each entry is a u32; the
 * n <= 4 rule is the driver's gate (it returns a result code), not checked here.
 */
export function encodePriorityClassMap(classes: ArrayLike<number>): Uint8Array {
  const t = dgeHostLayout().priorityClassMap;
  const f = t.bytesPerPacket;
  const n = classes.length;
  for (let i = 0; i < n; i++) checkField(f, classes[i], `priority_class_map[${i}].${f.name}`);
  const out = new Uint8Array(n === 0 ? 0 : (n - 1) * t.stride + t.entrySize);
  for (let i = 0; i < n; i++) putU32LE(out, i * t.stride, classes[i]);
  return out;
}

/** Entries of a priority-class map from its bytes (length a multiple of the entry stride). */
export function decodePriorityClassMap(src: ByteView): number[] {
  const t = dgeHostLayout().priorityClassMap;
  if (src.byteLength % t.stride !== 0) {
    throw new NxdmaError(
      'OUT_OF_RANGE',
      `priority_class_map: ${src.byteLength} bytes is not a whole number of entries`,
      {
        where: 'priority_class_map',
        expected: `a multiple of ${t.stride} bytes`,
        actual: src.byteLength,
      },
    );
  }
  const b = u8view(src);
  const out: number[] = [];
  for (let o = 0; o < b.byteLength; o += t.stride) out.push(getU32LE(b, o));
  return out;
}
