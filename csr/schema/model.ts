/**
 * The loaded register-file model: what `loader.ts` builds from a validated csr/schemas/*.json and
 * what every consumer (codegen, the accessor runtime, the mock device, the QoS planner, the docs
 * generator, the CLI) reads. No consumer keeps a second copy of an offset: absolute offsets come
 * from `instances(file)` / `findInstance(file, path)`, field positions from `FieldModel`.
 *
 * The model is deeply frozen.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { AccessKind, Provenance } from './format.ts';

export type { AccessKind, Provenance } from './format.ts';

/** Every register is one aligned 32-bit word; nothing in nxdma splits it. */
export const REGISTER_BYTES = 4;

/** Largest value of a field `width` bits wide (1..32): 2^width - 1. */
export function fieldMax(width: number): number {
  return width >= 32 ? 0xffffffff : 2 ** width - 1;
}

/** Access kinds whose fields can be read back (RO, RW, W1C, RC). WO and INC read as 0. */
export function isReadableAccess(a: AccessKind): boolean {
  return a === 'RW' || a === 'RO' || a === 'W1C' || a === 'RC';
}

/** Access kinds whose fields take a written value (RW, WO, W1C, INC). */
export function isWritableAccess(a: AccessKind): boolean {
  return a === 'RW' || a === 'WO' || a === 'W1C' || a === 'INC';
}

export interface EnumValue {
  readonly name: string;
  readonly value: number;
  readonly description: string;
}

export interface FieldModel {
  readonly name: string;
  /** Least significant bit. */
  readonly lsb: number;
  /** Most significant bit (inclusive). */
  readonly msb: number;
  readonly width: number;
  /** Largest value the field holds: 2^width - 1. */
  readonly max: number;
  /** The field's bits within the word (unsigned): max << lsb. */
  readonly mask: number;
  readonly access: AccessKind;
  readonly readable: boolean;
  readonly writable: boolean;
  /** Reset value of the field (not shifted); 0 when unknown. */
  readonly reset: number;
  /** False when no source states the reset value (then `reset` is 0). */
  readonly resetKnown: boolean;
  readonly provenance: Provenance;
  readonly provenanceNote: string | null;
  /** provenance === 'inferred'. */
  readonly inferred: boolean;
  readonly description: string;
  readonly enums: readonly EnumValue[];
}

export interface RegisterArray {
  /** Number of entries (priority_class_map[4]: 4). */
  readonly size: number;
  /** Bytes between entries. */
  readonly stride: number;
}

/** A doorbell's destination: a write to the INC register adds its value to `register.field`. */
export interface IncrementTarget {
  readonly register: string;
  readonly field: string;
}

export interface RegisterModel {
  readonly name: string;
  /** Name of the enclosing block, or null for a top-level register (dge_host). */
  readonly block: string | null;
  /** Byte offset of entry 0 from the start of the block instance (or of the file when top-level). */
  readonly offset: number;
  /** Set for a register repeated as a table of words (dge_host priority_class_map[4]). */
  readonly array: RegisterArray | null;
  /**
   * Register access, derived from the fields: all fields alike -> that kind; readable and writable
   * fields mixed -> RW; only readable -> RO; only writable -> WO.
   */
  readonly access: AccessKind;
  /** Some field (or the whole word) can be read back. */
  readonly readable: boolean;
  /** Some field (or the whole word) takes a written value. */
  readonly writable: boolean;
  /** Reset word: the fields' reset values in place (unknown resets count as 0). */
  readonly reset: number;
  /** Bits of `reset` that a source states (unsigned). */
  readonly resetKnownMask: number;
  /** Every field's reset value is stated (false for a register without fields unless given). */
  readonly resetKnown: boolean;
  /** Provenance of the register's own placement (name and offset), when the schema states it. */
  readonly ownProvenance: Provenance | null;
  /**
   * One-word summary: 'inferred' when anything about the register is inferred (its block base, its
   * placement or any field); else 'seed' when the seed states any part of it; else 'public'.
   */
  readonly provenance: Provenance;
  /** Every provenance that contributes (block base, placement, fields), in the order seed, public, inferred. */
  readonly sources: readonly Provenance[];
  readonly provenanceNote: string | null;
  /**
   * True when the block base, the register's placement or any field is inferred. Tools refuse to
   * write such a register to real hardware unless the user opts in.
   */
  readonly inferred: boolean;
  /** Why the register is inferred ('block base', 'field AXI_qos', ...); empty when not inferred. */
  readonly inferredReasons: readonly string[];
  /** True when the block base or the register's placement is inferred (its address is a guess). */
  readonly addressInferred: boolean;
  readonly description: string;
  /** Fields in ascending bit order; empty for a whole-word register with no known fields. */
  readonly fields: readonly FieldModel[];
  /** For an INC (doorbell) register: which register field a write adds to. */
  readonly incrementTarget: IncrementTarget | null;
  /** JSON path of the register in its schema file. */
  readonly jsonPath: string;
}

export interface BlockModel {
  readonly name: string;
  readonly description: string;
  /** Byte offset of instance 0 in the file. */
  readonly base: number;
  /** Number of instances (M2S_Q: 16; a single block: 1). */
  readonly arraySize: number;
  /** Bytes per instance, also the stride between instances (BundleSizeInBytes). */
  readonly stride: number;
  /** True when paths carry an index (arraySize > 1): "M2S_Q[3]". */
  readonly indexed: boolean;
  /** Provenance of the block base. */
  readonly provenance: Provenance;
  readonly provenanceNote: string | null;
  readonly registers: readonly RegisterModel[];
  readonly jsonPath: string;
}

/** Something a source says exists but does not place (recorded as documentation, never as a register). */
export interface KnownGap {
  readonly name: string;
  readonly block: string | null;
  readonly description: string;
  readonly provenance: Provenance;
}

/** One concrete register word in a file: a register of one block instance (and array entry). */
export interface RegisterInstance {
  /** Register-file name ("udma_m2s"). */
  readonly file: string;
  /** "M2S_rd.desc_pref_cfg_2", "M2S_Q[3].dwrr_cfg_2", "priority_class_map[2]". */
  readonly path: string;
  readonly block: BlockModel | null;
  /** Index of the block instance, null for a single block or a top-level register. */
  readonly blockIndex: number | null;
  readonly register: RegisterModel;
  /** Index within a register array, null otherwise. */
  readonly index: number | null;
  /** Absolute byte offset in the file's window. */
  readonly offset: number;
}

export interface RegFileModel {
  /** "udma_m2s", "udma_s2m", "dge_host". */
  readonly name: string;
  readonly description: string;
  /** Window size in bytes (udma_m2s 0x20000). */
  readonly size: number;
  /** The schema file it was loaded from (as given to the loader). */
  readonly source: string;
  /** Blocks in ascending base order. */
  readonly blocks: readonly BlockModel[];
  /** Top-level registers (outside any block), ascending offset. */
  readonly registers: readonly RegisterModel[];
  readonly knownGaps: readonly KnownGap[];
  /** Every register instance, ascending absolute offset. */
  readonly instances: readonly RegisterInstance[];
}

/** The block part of a path: "M2S_rd" for a single block, "M2S_Q[3]" for an indexed one. */
export function blockPath(block: BlockModel, index: number): string {
  return block.indexed ? `${block.name}[${index}]` : block.name;
}

/** The register part of a path: "dwrr_cfg_2", or "priority_class_map[2]" for a register array. */
export function registerPath(reg: RegisterModel, index: number): string {
  return reg.array ? `${reg.name}[${index}]` : reg.name;
}

/** Absolute offset of a register of block instance `blockIndex`, array entry `index`. */
export function absoluteOffset(
  block: BlockModel | null,
  blockIndex: number,
  reg: RegisterModel,
  index: number,
): number {
  const base = block ? block.base + blockIndex * block.stride : 0;
  return base + reg.offset + (reg.array ? index * reg.array.stride : 0);
}

/** Every register instance of the file (bundles and register arrays expanded), ascending offset. */
export function instances(file: RegFileModel): readonly RegisterInstance[] {
  return file.instances;
}

const byPath = new WeakMap<RegFileModel, Map<string, RegisterInstance>>();
const byOffset = new WeakMap<RegFileModel, Map<number, RegisterInstance>>();

function pathIndex(file: RegFileModel): Map<string, RegisterInstance> {
  let m = byPath.get(file);
  if (!m) {
    m = new Map(file.instances.map((i) => [i.path, i]));
    byPath.set(file, m);
  }
  return m;
}

/** The instance at `path` ("M2S_Q[3].dwrr_cfg_2"), or undefined. */
export function findInstance(file: RegFileModel, path: string): RegisterInstance | undefined {
  return pathIndex(file).get(path);
}

/** The instance at `path`; throws NxdmaError REGISTER_UNKNOWN naming the file and close matches. */
export function getInstance(file: RegFileModel, path: string): RegisterInstance {
  const i = findInstance(file, path);
  if (i) return i;
  const stem = path.replace(/\[\d*\]?/g, '').toLowerCase();
  const last = stem.split('.').pop() ?? stem;
  const near = file.instances
    .filter((x) => x.register.name.toLowerCase() === last || x.path.toLowerCase().includes(stem))
    .slice(0, 4)
    .map((x) => x.path);
  throw new NxdmaError(
    'REGISTER_UNKNOWN',
    `${file.name}: no register at path '${path}'` +
      (near.length ? ` (did you mean ${near.join(', ')}?)` : ''),
    {
      where: `${file.name}:${path}`,
      expected: 'block.register, block[i].register or register[i] (see nxdma regs list)',
      actual: path,
    },
  );
}

/** The instance whose word is at absolute byte `offset`, or undefined. */
export function instanceAt(file: RegFileModel, offset: number): RegisterInstance | undefined {
  let m = byOffset.get(file);
  if (!m) {
    m = new Map(file.instances.map((i) => [i.offset, i]));
    byOffset.set(file, m);
  }
  return m.get(offset);
}

/** "M2S_Q[3].dwrr_cfg_2" when the offset is a register, else the hex offset. */
export function describeOffset(file: RegFileModel, offset: number): string {
  return instanceAt(file, offset)?.path ?? hex(offset);
}

/** A field of a register instance addressed as "M2S_Q[3].dwrr_cfg_2.q_qos". */
export interface FieldInstance {
  readonly instance: RegisterInstance;
  readonly field: FieldModel;
  /** "M2S_Q[3].dwrr_cfg_2.q_qos". */
  readonly path: string;
}

/** Resolves "register-path.field"; undefined when either part is unknown. */
export function findField(file: RegFileModel, path: string): FieldInstance | undefined {
  const dot = path.lastIndexOf('.');
  if (dot < 0) return undefined;
  const inst = findInstance(file, path.slice(0, dot));
  const name = path.slice(dot + 1);
  const field = inst?.register.fields.find((f) => f.name === name);
  return inst && field ? { instance: inst, field, path } : undefined;
}

/** The field at "register-path.field"; throws NxdmaError REGISTER_UNKNOWN naming the file. */
export function getField(file: RegFileModel, path: string): FieldInstance {
  const f = findField(file, path);
  if (f) return f;
  const dot = path.lastIndexOf('.');
  const inst = dot < 0 ? undefined : findInstance(file, path.slice(0, dot));
  throw new NxdmaError('REGISTER_UNKNOWN', `${file.name}: no field at path '${path}'`, {
    where: `${file.name}:${path}`,
    expected: inst
      ? inst.register.fields.map((x) => `${inst.path}.${x.name}`).join(' | ') || 'no field'
      : 'block.register.field (see nxdma regs list)',
    actual: path,
  });
}

/** A block by name, or undefined. */
export function findBlock(file: RegFileModel, name: string): BlockModel | undefined {
  return file.blocks.find((b) => b.name === name);
}

/** The block `name`; throws NxdmaError REGISTER_UNKNOWN naming the file's blocks. */
export function getBlock(file: RegFileModel, name: string): BlockModel {
  const b = findBlock(file, name);
  if (b) return b;
  throw new NxdmaError('REGISTER_UNKNOWN', `${file.name}: no block '${name}'`, {
    where: file.name,
    expected: `a ${name} block`,
    actual: file.blocks.map((x) => x.name),
  });
}

/** A register by block name (null for top-level) and register name, or undefined. */
export function findRegister(
  file: RegFileModel,
  block: string | null,
  name: string,
): RegisterModel | undefined {
  const regs = block === null ? file.registers : findBlock(file, block)?.registers;
  return regs?.find((r) => r.name === name);
}

/** Every register of the file (block registers then top-level), one per definition, not per instance. */
export function allRegisters(file: RegFileModel): RegisterModel[] {
  return [...file.blocks.flatMap((b) => b.registers), ...file.registers];
}

/** A field of a register by name, or undefined. */
export function fieldOf(reg: RegisterModel, name: string): FieldModel | undefined {
  return reg.fields.find((f) => f.name === name);
}

/**
 * For an INC register instance: the instance its write adds to (same block instance). The mock
 * implements doorbells with it: `target.offset`, `target.field`.
 */
export function incrementTargetOf(
  file: RegFileModel,
  inst: RegisterInstance,
): { instance: RegisterInstance; field: FieldModel } | undefined {
  const t = inst.register.incrementTarget;
  if (!t) return undefined;
  const prefix = inst.block ? blockPath(inst.block, inst.blockIndex ?? 0) + '.' : '';
  const target = findInstance(file, prefix + t.register);
  const field = target && fieldOf(target.register, t.field);
  return target && field ? { instance: target, field } : undefined;
}
