/**
 * The thin register map: the part of the model the accessor runtime needs, as plain constants.
 * `npm run gen` writes one `as const` map per register file under csr/generated/ (so accessors are
 * typed by field name and access kind); `toRegFileMap(model)` builds the same shape at run time
 * from a loaded model (used by the generator itself and by path-based tools such as the CLI).
 *
 * Offsets in a map are the model's offsets (block base + instance * stride + register offset +
 * entry * register stride); nothing here is written by hand.
 */
import type { AccessKind, RegFileModel, RegisterModel } from './model.ts';

export interface FieldMap {
  /** Least significant bit. */
  readonly lsb: number;
  readonly width: number;
  readonly access: AccessKind;
  /** Reset value of the field (not shifted); 0 when unknown. */
  readonly reset: number;
  /** The field's provenance is 'inferred'. */
  readonly inferred: boolean;
  /** Named values (the schema's EnumeratedValues): name -> value. Absent when there are none. */
  readonly values?: { readonly [name: string]: number };
}

export interface RegisterMap {
  /** Byte offset of entry 0 within the block instance (or the file, for top-level registers). */
  readonly offset: number;
  /** Entries of a register array; 1 otherwise. */
  readonly count: number;
  /** Bytes between register-array entries; 0 when not an array. */
  readonly stride: number;
  /** True for a register array (paths and accessors take an index: priority_class_map[2]). */
  readonly indexed: boolean;
  readonly access: AccessKind;
  /** Reset word (fields' reset values in place). */
  readonly reset: number;
  /** Anything about the register is inferred (block base, placement or a field). */
  readonly inferred: boolean;
  /** The register's address itself is inferred (its block base or its offset). */
  readonly addressInferred: boolean;
  readonly fields: { readonly [name: string]: FieldMap };
}

export interface BlockMap {
  /** Byte offset of instance 0 in the file. */
  readonly base: number;
  /** Number of instances. */
  readonly count: number;
  /** Bytes between instances (BundleSizeInBytes). */
  readonly stride: number;
  /** True when the block is repeated (count > 1): accessors and paths take an index (M2S_Q[3]). */
  readonly indexed: boolean;
  readonly registers: { readonly [name: string]: RegisterMap };
}

export interface RegFileMap {
  readonly name: string;
  /** Window size in bytes. */
  readonly size: number;
  readonly blocks: { readonly [name: string]: BlockMap };
  /** Top-level registers (outside any block). */
  readonly registers: { readonly [name: string]: RegisterMap };
}

/** The map of one register of the model. */
export function toRegisterMap(r: RegisterModel): RegisterMap {
  const fields: Record<string, FieldMap> = {};
  for (const f of r.fields) {
    fields[f.name] = {
      lsb: f.lsb,
      width: f.width,
      access: f.access,
      reset: f.reset,
      inferred: f.inferred,
      ...(f.enums.length
        ? { values: Object.fromEntries(f.enums.map((e) => [e.name, e.value])) }
        : {}),
    };
  }
  return {
    offset: r.offset,
    count: r.array ? r.array.size : 1,
    stride: r.array ? r.array.stride : 0,
    indexed: r.array !== null,
    access: r.access,
    reset: r.reset,
    inferred: r.inferred,
    addressInferred: r.addressInferred,
    fields,
  };
}

const registerMaps = new WeakMap<RegisterModel, RegisterMap>();

/**
 * The map of one register of the model, built once per model object (so the accessor runtime's
 * per-map caches hit on every use).
 */
export function registerMapOf(r: RegisterModel): RegisterMap {
  let m = registerMaps.get(r);
  if (!m) {
    m = toRegisterMap(r);
    registerMaps.set(r, m);
  }
  return m;
}

/** The thin map of a loaded register file (the same shape `npm run gen` writes). */
export function toRegFileMap(file: RegFileModel): RegFileMap {
  const blocks: Record<string, BlockMap> = {};
  for (const b of file.blocks) {
    const registers: Record<string, RegisterMap> = {};
    for (const r of b.registers) registers[r.name] = toRegisterMap(r);
    blocks[b.name] = {
      base: b.base,
      count: b.arraySize,
      stride: b.stride,
      indexed: b.indexed,
      registers,
    };
  }
  const registers: Record<string, RegisterMap> = {};
  for (const r of file.registers) registers[r.name] = toRegisterMap(r);
  return { name: file.name, size: file.size, blocks, registers };
}

/** One register word of a map, with its path and absolute offset. */
export interface MapInstance {
  readonly path: string;
  readonly offset: number;
  readonly register: RegisterMap;
}

/** Every register word of a map (bundles and register arrays expanded), ascending offset. */
export function mapInstances(map: RegFileMap): MapInstance[] {
  const out: MapInstance[] = [];
  const regs = (prefix: string, base: number, rs: RegFileMap['registers']) => {
    for (const [name, r] of Object.entries(rs)) {
      for (let k = 0; k < r.count; k++) {
        out.push({
          path: prefix + (r.indexed ? `${name}[${k}]` : name),
          offset: base + r.offset + k * r.stride,
          register: r,
        });
      }
    }
  };
  for (const [name, b] of Object.entries(map.blocks)) {
    for (let i = 0; i < b.count; i++) {
      regs(b.indexed ? `${name}[${i}].` : `${name}.`, b.base + i * b.stride, b.registers);
    }
  }
  regs('', 0, map.registers);
  return out.sort((a, b) => a.offset - b.offset);
}

const byPath = new WeakMap<RegFileMap, Map<string, MapInstance>>();

/** The register word of `map` at `path` ("M2S_Q[3].dwrr_cfg_2"), or undefined (indexed once per map). */
export function mapInstanceAt(map: RegFileMap, path: string): MapInstance | undefined {
  let t = byPath.get(map);
  if (t === undefined) {
    t = new Map(mapInstances(map).map((i) => [i.path, i]));
    byPath.set(map, t);
  }
  return t.get(path);
}
