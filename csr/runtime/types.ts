/**
 * Types of the register accessors, computed from a generated map's literal type:
 *   m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 })
 *   m2s.M2S_rd.desc_pref_cfg_2.read().pref_force_rr
 *
 * - RO/RC registers have no write, writeRaw or modify; WO/INC registers have no read, readField,
 *   readRaw or modify (the runtime refuses them too, for untyped callers).
 * - read() returns the readable fields only: a write-only field is not readable.
 * - write/modify take the writable fields only. A field with named values (the schema's
 *   EnumeratedValues) takes one of its names or one of its values (`en_dwrr: 'dwrr'` or
 *   `en_dwrr: 1`; `en_dwrr: 7` does not compile), as svd2rust's variants; any other field takes a
 *   number, range-checked at run time. Untyped callers get the same rules at run time.
 * - repeated blocks and register arrays of a known count have each index as a property:
 *   `M2S_Q[3]` is a block accessor even under `noUncheckedIndexedAccess`; a variable index,
 *   `.at(q)` and iteration are range-checked at run time.
 */
import type { BlockMap, FieldMap, RegFileMap, RegisterMap } from '../schema/map.ts';

export type ReadableAccess = 'RW' | 'RO' | 'W1C' | 'RC';
export type WritableAccess = 'RW' | 'WO' | 'W1C' | 'INC';

type FieldsOf<R extends RegisterMap> = R['fields'];

/** Names of the fields of R that a read returns. */
export type ReadableFieldName<R extends RegisterMap> = {
  [K in keyof FieldsOf<R>]: FieldsOf<R>[K] extends { readonly access: ReadableAccess } ? K : never;
}[keyof FieldsOf<R>] &
  string;

/** Names of the fields of R that a write or modify may set. */
export type WritableFieldName<R extends RegisterMap> = {
  [K in keyof FieldsOf<R>]: FieldsOf<R>[K] extends { readonly access: WritableAccess } ? K : never;
}[keyof FieldsOf<R>] &
  string;

/** What read() returns: the readable fields, a fresh plain object (readonly by type, not frozen). */
export type FieldValues<R extends RegisterMap> = {
  readonly [K in ReadableFieldName<R>]: number;
};

/** The names of a field's values (never when it has none). */
export type FieldValueName<F> = F extends { readonly values: infer V } ? keyof V & string : never;

/**
 * What a field takes in write() and modify(): for a field with named values, one of the names or
 * one of the values; otherwise a number (0..2^width-1, checked at run time).
 */
export type FieldInput<F> = F extends { readonly values: infer V }
  ? (keyof V & string) | V[keyof V]
  : number;

/** What write() and modify() take: any subset of the writable fields. */
export type FieldUpdate<R extends RegisterMap> = {
  [K in WritableFieldName<R>]?: FieldInput<FieldsOf<R>[K]>;
};

/** What every register accessor has. */
export interface RegisterInfo<R extends RegisterMap = RegisterMap> {
  /** Absolute byte offset of the register word in its file's window. */
  readonly offset: number;
  /** "M2S_Q[3].dwrr_cfg_2". */
  readonly path: string;
  /** Reset word. */
  readonly reset: number;
  /** Something about the register is inferred (see RegisterModel.inferred). */
  readonly inferred: boolean;
  /** The register's map (layout constants). */
  readonly map: R;
}

export interface ReadableRegister<R extends RegisterMap> {
  /** One 32-bit read; the readable fields as a fresh object (readonly by type). */
  read(): FieldValues<R>;
  /** One 32-bit read; one field. */
  readField(name: ReadableFieldName<R>): number;
  /** One 32-bit read; the raw word (unsigned). */
  readRaw(): number;
}

export interface WritableRegister<R extends RegisterMap> {
  /**
   * One 32-bit write of the reset word with the named fields replaced (svd2rust semantics): fields
   * not named take their reset value (WO, INC and W1C fields take 0).
   */
  write(update: FieldUpdate<R>): void;
  /** One 32-bit write of a raw word (0..0xffffffff). */
  writeRaw(value: number): void;
}

export interface ModifiableRegister<R extends RegisterMap> {
  /**
   * Exactly one 32-bit read and one 32-bit write: the named fields replaced, the others kept (WO,
   * INC and W1C fields written as 0 unless named). Validates before reading.
   */
  modify(update: FieldUpdate<R>): void;
}

/**
 * The accessor of one register word, shaped by the register's access kind. A map without literal
 * types (built at run time with toRegFileMap) gives the untyped AnyRegister.
 */
export type RegisterAccessor<R extends RegisterMap> = string extends keyof R['fields']
  ? AnyRegister
  : R['access'] extends 'RO' | 'RC'
    ? RegisterInfo<R> & ReadableRegister<R>
    : R['access'] extends 'WO' | 'INC'
      ? RegisterInfo<R> & WritableRegister<R>
      : RegisterInfo<R> & ReadableRegister<R> & WritableRegister<R> & ModifiableRegister<R>;

/** Instances of a repeated block or register; an index out of range throws NxdmaError OUT_OF_RANGE. */
export interface Indexed<T> extends Iterable<T> {
  readonly [index: number]: T;
  readonly length: number;
  /** Same as [index], with the same range check. */
  at(index: number): T;
}

/** 0 | 1 | ... | N-1 (N up to a few hundred). */
type IndexUnion<N extends number, Acc extends number[] = []> = Acc['length'] extends N
  ? Acc[number]
  : IndexUnion<N, [...Acc, Acc['length']]>;

/**
 * `Indexed<T>` of a known count: each index 0..N-1 is a property of type T, so `M2S_Q[3]` needs
 * no undefined check under `noUncheckedIndexedAccess` (any other index goes through the index
 * signature: `T | undefined` there, range-checked at run time). A count the type does not know
 * gives the plain Indexed<T>.
 */
export type IndexedOf<T, N extends number> = number extends N
  ? Indexed<T>
  : Indexed<T> & { readonly [K in IndexUnion<N>]: T } & { readonly length: N };

/** A register, or the entries of a register array (dge_host priority_class_map[4]). */
export type RegisterSlot<R extends RegisterMap> = boolean extends R['indexed']
  ? AnyRegister | Indexed<AnyRegister>
  : R['indexed'] extends true
    ? IndexedOf<RegisterAccessor<R>, R['count']>
    : RegisterAccessor<R>;

/** The registers of one block instance. */
export type BlockAccessor<B extends BlockMap> = {
  readonly [K in keyof B['registers']]: RegisterSlot<B['registers'][K]>;
};

/** A block, or the instances of a repeated block (M2S_Q[16]). */
export type BlockSlot<B extends BlockMap> = boolean extends B['indexed']
  ? BlockAccessor<B> | Indexed<BlockAccessor<B>>
  : B['indexed'] extends true
    ? IndexedOf<BlockAccessor<B>, B['count']>
    : BlockAccessor<B>;

/**
 * A whole register file bound to a RegisterIO: blocks and top-level registers by name. A map
 * without literal types (built at run time) gives an untyped record: use registerAt(map, io, path)
 * for those.
 */
export type RegFileAccessor<M extends RegFileMap> = string extends keyof M['blocks']
  ? { readonly [name: string]: unknown }
  : TypedRegFileAccessor<M>;

type TypedRegFileAccessor<M extends RegFileMap> = {
  readonly [K in keyof M['blocks']]: BlockSlot<M['blocks'][K]>;
} & {
  readonly [K in keyof M['registers']]: RegisterSlot<M['registers'][K]>;
};

/** An untyped register accessor (path-based tools): every method, access checked at run time. */
export interface AnyRegister extends RegisterInfo<RegisterMap> {
  readonly access: RegisterMap['access'];
  read(): Readonly<Record<string, number>>;
  readField(name: string): number;
  readRaw(): number;
  write(update: Readonly<Record<string, number | string | undefined>>): void;
  writeRaw(value: number): void;
  modify(update: Readonly<Record<string, number | string | undefined>>): void;
}

export type { BlockMap, FieldMap, RegFileMap, RegisterMap };
