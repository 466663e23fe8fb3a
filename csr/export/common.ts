/**
 * What the register exporters share: the register files to export and where each one sits (its
 * base address), the access kinds in each format's words, and the provenance tag every exported
 * register and field carries.
 *
 * Without an engine every file is exported at base 0 (offsets inside its own window). With a
 * device profile and an engine, the UDMA files (udma_m2s, udma_s2m) sit at that engine's BAR0
 * addresses (csr/profiles.ts); dge_host is not in BAR0 (it is relative to a DGE core's
 * dram_base) and is then left out, or refused when asked for by name.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { REGFILE_NAMES, isRegFileName, regFile, type RegFileName } from '../schema/files.ts';
import type {
  AccessKind,
  FieldModel,
  Provenance,
  RegFileModel,
  RegisterModel,
} from '../schema/model.ts';
import {
  getProfile,
  registerFileOffset,
  unitOffset,
  type DeviceProfile,
  type UdmaRegisterFile,
} from '../profiles.ts';

export { EXPORT_FORMATS, isExportFormat, type ExportFormat } from './formats.ts';

/** The generator's name and version, written into every export. */
export const GENERATOR = { name: 'nxdma', version: '0.1.0' } as const;

export interface ExportOptions {
  /** Register files to export (default: all three, or the UDMA files with an engine). */
  readonly files?: readonly string[];
  /** Device profile (default trn2 when an engine is given). */
  readonly profile?: string;
  /** UDMA engine whose BAR0 addresses the export uses; none: file-relative offsets. */
  readonly engine?: number;
}

/** One register file of an export and its base address. */
export interface ExportFile {
  readonly model: RegFileModel;
  /** Address of offset 0 of the file: 0, or the engine's BAR0 offset of the window. */
  readonly base: number;
  /** What `base` is relative to, in words ("file window", "BAR0 of trn2 engine 4"). */
  readonly baseOf: string;
}

/** What is exported: the files, and the device and engine their addresses belong to. */
export interface ExportTarget {
  readonly files: readonly ExportFile[];
  readonly profile: DeviceProfile | null;
  readonly engine: number | null;
  /** Device name for the export: "nxdma", or "nxdma_trn2_engine4". */
  readonly name: string;
  /** One sentence saying what the addresses are. */
  readonly addressing: string;
}

const UDMA_FILES: readonly UdmaRegisterFile[] = ['udma_m2s', 'udma_s2m'];

function isUdmaFile(name: string): name is UdmaRegisterFile {
  return (UDMA_FILES as readonly string[]).includes(name);
}

/** Validates the options (nothing is exported on a bad one) and resolves files and bases. */
export function exportTarget(opts: ExportOptions = {}): ExportTarget {
  const engine = opts.engine;
  if (engine !== undefined && (!Number.isSafeInteger(engine) || engine < 0)) {
    throw new NxdmaError('BAD_ARGUMENT', `--engine must be an engine id, got ${String(engine)}`, {
      where: '--engine',
      expected: 'a non-negative integer (an engine of the profile)',
      actual: engine,
    });
  }
  if (opts.profile !== undefined && engine === undefined) {
    throw new NxdmaError('BAD_ARGUMENT', '--profile needs --engine: addresses are per engine', {
      where: '--profile',
      expected: '--profile NAME --engine N (or neither, for file-relative offsets)',
      actual: opts.profile,
    });
  }
  const profile = engine === undefined ? null : getProfile(opts.profile ?? 'trn2');
  if (profile && engine !== undefined) unitOffset(profile, engine); // DEVICE_PROFILE when absent
  const asked = opts.files?.length ? [...new Set(opts.files)] : null;
  for (const f of asked ?? []) {
    if (!isRegFileName(f)) {
      throw new NxdmaError('BAD_ARGUMENT', `unknown register file '${f}'`, {
        where: '--file',
        expected: REGFILE_NAMES.join(' | '),
        actual: f,
      });
    }
    if (profile && !isUdmaFile(f)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${f} has no BAR0 address (it is relative to a DGE core's dram_base): export it without --engine`,
        { where: '--file', expected: `with --engine: ${UDMA_FILES.join(' | ')}`, actual: f },
      );
    }
  }
  const names: RegFileName[] =
    (asked as RegFileName[] | null) ?? (profile ? [...UDMA_FILES] : [...REGFILE_NAMES]);
  names.sort((a, b) => REGFILE_NAMES.indexOf(a) - REGFILE_NAMES.indexOf(b));
  const files = names.map((n): ExportFile => {
    const model = regFile(n);
    if (profile && engine !== undefined && isUdmaFile(n)) {
      return {
        model,
        base: registerFileOffset(profile, engine, n),
        baseOf: `BAR0 of ${profile.name} engine ${engine}`,
      };
    }
    return { model, base: 0, baseOf: `the ${n} window` };
  });
  return {
    files,
    profile,
    engine: engine ?? null,
    name: profile ? `${GENERATOR.name}_${profile.name}_engine${engine}` : GENERATOR.name,
    addressing: profile
      ? `Addresses are BAR0 offsets of ${profile.name} engine ${engine} (UDMA unit at ${hex(
          unitOffset(profile, engine!),
        )}).`
      : 'Addresses are byte offsets inside each register file window (base 0); export with an engine for BAR0 addresses.',
  };
}

/** How an access kind reads in CMSIS-SVD and IP-XACT (the same words in both). */
export interface AccessWords {
  readonly access: 'read-write' | 'read-only' | 'write-only';
  /** Write side effect: W1C clears the bits written 1, INC adds the written value elsewhere. */
  readonly modifiedWriteValue: 'oneToClear' | 'modify' | null;
  /** Read side effect: RC clears on read. */
  readonly readAction: 'clear' | null;
}

const ACCESS: Record<AccessKind, AccessWords> = {
  RW: { access: 'read-write', modifiedWriteValue: null, readAction: null },
  RO: { access: 'read-only', modifiedWriteValue: null, readAction: null },
  WO: { access: 'write-only', modifiedWriteValue: null, readAction: null },
  W1C: { access: 'read-write', modifiedWriteValue: 'oneToClear', readAction: null },
  RC: { access: 'read-only', modifiedWriteValue: null, readAction: 'clear' },
  INC: { access: 'write-only', modifiedWriteValue: 'modify', readAction: null },
};

export function accessWords(a: AccessKind): AccessWords {
  return ACCESS[a];
}

/**
 * The fields an export lists for a register: its own, or for a whole-word register without
 * known fields one field `value` over bits 31:0 with the register's access and reset (IP-XACT
 * requires a field; the other formats list it too, so that every format says the same).
 */
export function exportFields(reg: RegisterModel): readonly FieldModel[] {
  if (reg.fields.length) return reg.fields;
  return [
    {
      name: 'value',
      lsb: 0,
      msb: 31,
      width: 32,
      max: 0xffffffff,
      mask: 0xffffffff,
      access: reg.access,
      readable: reg.readable,
      writable: reg.writable,
      reset: reg.reset,
      resetKnown: reg.resetKnown,
      provenance: reg.provenance,
      provenanceNote: reg.provenanceNote,
      inferred: reg.inferred,
      description: 'The whole word (no fields are known).',
      enums: [],
    },
  ];
}

function note(n: string | null): string {
  return n ? `: ${n}` : '';
}

/**
 * The provenance of a register as a description tag: "[provenance: seed]",
 * "[provenance: inferred (block base, field AXI_qos): <note>]". Every format carries it.
 */
export function registerProvenanceTag(reg: RegisterModel): string {
  const why = reg.inferred ? ` (${reg.inferredReasons.join(', ')})` : '';
  return `[provenance: ${reg.provenance}${why}${note(reg.provenanceNote)}]`;
}

export function fieldProvenanceTag(f: FieldModel): string {
  return `[provenance: ${f.provenance}${note(f.provenanceNote)}]`;
}

export function blockProvenanceTag(p: Provenance, n: string | null): string {
  return `[provenance: ${p}${note(n)}]`;
}

/** A description followed by its provenance tag. */
export function withTag(description: string, tag: string): string {
  const d = description.trim();
  return d ? `${d} ${tag}` : tag;
}

/** For a doorbell register: the sentence saying where a write goes. */
export function doorbellNote(reg: RegisterModel): string | null {
  const t = reg.incrementTarget;
  return t ? `A write adds its value to ${t.register}.${t.field}.` : null;
}

/** Refuses an address an export cannot write as a 32-bit value. */
export function checkAddress(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffffffff) {
    throw new NxdmaError('OUT_OF_RANGE', `${what}: address ${String(value)} is not 32-bit`, {
      where: what,
      expected: '0..0xffffffff',
      actual: value,
    });
  }
  return value;
}

/** Register and field counts of an export (every definition once, repeated bundles once). */
export interface ExportCounts {
  readonly registerFiles: number;
  readonly registers: number;
  readonly fields: number;
  /** Register words the definitions expand to (bundles and arrays expanded). */
  readonly words: number;
}

export function countsOf(target: ExportTarget): ExportCounts {
  let registers = 0;
  let fields = 0;
  let words = 0;
  for (const { model } of target.files) {
    const regs = [...model.blocks.flatMap((b) => b.registers), ...model.registers];
    registers += regs.length;
    fields += regs.reduce((n, r) => n + exportFields(r).length, 0);
    words += model.instances.length;
  }
  return { registerFiles: target.files.length, registers, fields, words };
}
