/**
 * The generic accessor runtime: binds a register map (generated under csr/generated/, or built
 * from a loaded model with `toRegFileMap`) to a RegisterIO.
 *
 *   const m2s = bindRegFile(udma_m2s, io);
 *   m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 });          // one read32, one write32
 *   m2s.M2S_rd.desc_pref_cfg_2.read().pref_force_rr;        // one read32
 *
 * Every access is one aligned 32-bit read32 or write32 at the register's absolute offset; nothing
 * splits a word. Values are validated before any access, so a rejected update changes nothing.
 * Accessor objects are built once at bind time; readField/readRaw/modify/write allocate nothing,
 * read() one plain object (readonly by type, not frozen).
 */
import { checkSafetyFlags } from '../../common/flags.ts';
import { NxdmaError, hex } from '../../common/errors.ts';
import type { RegisterIO } from '../io.ts';
import { mapInstanceAt, type RegFileMap, type RegisterMap } from '../schema/map.ts';
import { compiledOps } from './compile.ts';
import {
  FieldRangeError,
  checkWord,
  registerSpec,
  type FieldSpec,
  type RegisterSpec,
} from './fields.ts';
import { plainWords } from './memory.ts';
import type { AnyRegister, Indexed, RegFileAccessor } from './types.ts';

export interface BindOptions {
  /**
   * The RegisterIO reaches real hardware. Writes to inferred registers are then refused with
   * NxdmaError REGISTER_INFERRED unless `allowInferred` is set (spec/REGISTERS.md: inferred facts
   * are never written to hardware without an explicit opt-in). Default false.
   */
  hardware?: boolean;
  /** The user opted in to writing inferred registers on hardware. Default false. */
  allowInferred?: boolean;
}

/** How a RegisterHandle checks its updates. */
export interface HandleOptions {
  /** Refuse writes of inferred facts (hardware without opt-in). */
  guardInferred?: boolean;
  /**
   * Check every key of every update (the generic path). Path-based accessors set it; the typed
   * tree leaves it off and relies on TypeScript for unknown keys (see compile.ts).
   */
  strict?: boolean;
}

/**
 * One register word bound to an IO. The typed views (RegisterAccessor<R>) hide the methods the
 * access kind forbids; this class also refuses them at run time for untyped callers.
 *
 * read/write/modify are own properties: specialised functions (compile.ts) when possible, else
 * the generic implementations below; both behave the same.
 */
export class RegisterHandle implements AnyRegister {
  readonly offset: number;
  readonly path: string;
  readonly map: RegisterMap;
  readonly reset: number;
  readonly inferred: boolean;
  readonly access: RegisterMap['access'];
  readonly read: () => Readonly<Record<string, number>>;
  readonly readField: (name: string) => number;
  readonly write: (update: Readonly<Record<string, number | string | undefined>>) => void;
  readonly modify: (update: Readonly<Record<string, number | string | undefined>>) => void;
  private readonly io: RegisterIO;
  private readonly spec: RegisterSpec;
  private readonly guard: boolean;

  constructor(
    io: RegisterIO,
    map: RegisterMap,
    offset: number,
    path: string,
    opts: HandleOptions = {},
  ) {
    if (offset >>> 0 !== offset || offset % 4 !== 0 || offset + 4 > io.size) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${path}: offset ${hex(offset)} is not an aligned word inside the ${hex(io.size)}-byte window`,
        { where: path, expected: `a multiple of 4 below ${hex(io.size)}`, actual: offset },
      );
    }
    this.io = io;
    this.map = map;
    this.spec = registerSpec(map);
    this.offset = offset;
    this.path = path;
    this.reset = this.spec.reset;
    this.inferred = map.inferred;
    this.access = map.access;
    this.guard = Boolean(opts.guardInferred) && map.inferred;
    const fast = compiledOps(this.spec, io, offset, plainWords(io), this);
    // Reads are the same whatever the options; the checked write paths stay generic.
    const generic = opts.strict || this.guard;
    this.read = fast?.read ?? this.genericRead;
    this.readField = fast?.readField ?? this.genericReadField;
    this.write = (!generic && fast?.write) || this.genericWrite;
    this.modify = (!generic && fast?.modify) || this.genericModify;
  }

  readRaw(): number {
    if (!this.spec.readable) this.refuse('read');
    return this.io.read32(this.offset) >>> 0;
  }

  writeRaw(value: number): void {
    if (!this.spec.writable) this.refuse('write');
    const w = checkWord(value, this.path);
    if (this.guard) this.checkInferred(undefined, true);
    this.io.write32(this.offset, w);
  }

  private readonly genericRead = (): Readonly<Record<string, number>> => {
    return this.spec.decode(this.readRaw());
  };

  /** The name is checked before the word is read (an RC register clears on read). */
  private readonly genericReadField = (name: string): number => {
    if (!this.spec.readable) this.refuse('read');
    const f = this.spec.byName[name];
    if (f === undefined || !f.readable) this.notReadable(name);
    return f.get(this.io.read32(this.offset) >>> 0);
  };

  private readonly genericWrite = (
    update: Readonly<Record<string, number | string | undefined>>,
  ): void => {
    const spec = this.spec;
    if (!spec.writable) this.refuse('write');
    const v = spec.encode(update, this.path);
    const m = spec.lastMask;
    if (this.guard) this.checkInferred(update, true);
    this.io.write32(this.offset, ((spec.writeBase & ~m) | v) >>> 0);
  };

  private readonly genericModify = (
    update: Readonly<Record<string, number | string | undefined>>,
  ): void => {
    const spec = this.spec;
    if (!spec.modifiable) this.refuse('modify');
    const v = spec.encode(update, this.path);
    const keep = ~(spec.lastMask | spec.volatileMask);
    if (this.guard) this.checkInferred(update, false);
    const io = this.io;
    const off = this.offset;
    io.write32(off, ((io.read32(off) & keep) | v) >>> 0);
  };

  /** CompiledErrors: a value that is not a plain in-range number (a value name, or an error). */
  input(field: string, value: unknown): number {
    const f = this.spec.byName[field] as FieldSpec;
    return f.input(value, `${this.path}.${field}`);
  }

  /** CompiledErrors: a read-only field named in an update. */
  notWritable(field: string): never {
    this.spec.encode({ [field]: 0 }, this.path);
    throw new Error('unreachable');
  }

  /** CompiledErrors: no writable field named; anything else named is an error. */
  noField(update: object): void {
    this.spec.encode(update, this.path);
  }

  /** CompiledErrors and readField: not a readable field of this register (nothing is read). */
  notReadable(field: unknown): never {
    this.spec.field(0, String(field), this.path);
    throw new Error('unreachable');
  }

  private refuse(what: 'read' | 'write' | 'modify'): never {
    const a = this.spec.access;
    const ro = what !== 'read';
    throw new NxdmaError(
      ro && !this.spec.writable ? 'REGISTER_READ_ONLY' : 'REGISTER_WRITE_ONLY',
      `${this.path} is ${a}: it cannot be ${what === 'modify' ? 'modified (read-modify-write)' : what === 'read' ? 'read' : 'written'}`,
      {
        where: this.path,
        expected:
          what === 'read'
            ? 'a readable register (RW, RO, W1C, RC)'
            : what === 'write'
              ? 'a writable register (RW, WO, W1C, INC)'
              : 'a readable and writable register (RW, W1C)',
        actual: a,
      },
    );
  }

  /**
   * Hardware without opt-in: a write or writeRaw of an inferred register is refused (it sets every
   * bit, inferred ones included); a modify is refused when the register's address is inferred or
   * the update names an inferred field (the other bits are written back as read).
   */
  private checkInferred(update: object | undefined, whole: boolean): void {
    const reasons: string[] = [];
    if (this.map.addressInferred) reasons.push('its address (block base or offset)');
    for (const [name, f] of Object.entries(this.map.fields)) {
      if (!f.inferred) continue;
      if (whole || (update && (update as Record<string, unknown>)[name] !== undefined)) {
        reasons.push(`field ${name}`);
      }
    }
    if (reasons.length === 0) return;
    throw new NxdmaError(
      'REGISTER_INFERRED',
      `${this.path}: refusing to write to hardware: ${reasons.join(', ')} ` +
        `${reasons.length > 1 ? 'are' : 'is'} inferred (no source states it); opt in with allowInferred to write it`,
      {
        where: this.path,
        expected: 'a register whose written bits a source states, or allowInferred',
        actual: reasons,
      },
    );
  }
}

/** "16" is canonical numeric; "3" too; "03", "x", "then" are not. */
function isNumericKey(key: string): boolean {
  return String(Number(key)) === key || key === '-0';
}

const indexedMethods = {
  at(this: { readonly length: number; readonly [i: number]: unknown }, index: number): unknown {
    return this[index];
  },
  *[Symbol.iterator](this: { readonly length: number; readonly [i: number]: unknown }) {
    for (let i = 0; i < this.length; i++) yield this[i];
  },
};

/**
 * A frozen array of `items` whose out-of-range numeric indexes throw NxdmaError OUT_OF_RANGE.
 * In-range indexes are the array's own elements (an ordinary fast element load); only a miss
 * walks up to the prototype, a Proxy that throws for numeric keys and serves `at` and iteration.
 */
export function makeIndexed<T>(items: readonly T[], name: string): Indexed<T> {
  const n = items.length;
  const proto = new Proxy(indexedMethods, {
    get(target, key, receiver) {
      if (typeof key === 'string' && isNumericKey(key)) {
        throw new NxdmaError(
          'OUT_OF_RANGE',
          `${name}[${key}] is out of range: ${name} has ${n} entries (0..${n - 1})`,
          { where: `${name}[${key}]`, expected: `an index in 0..${n - 1}`, actual: key },
        );
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const arr = items.slice();
  Object.setPrototypeOf(arr, proto);
  return Object.freeze(arr) as unknown as Indexed<T>;
}

function registerSlot(
  io: RegisterIO,
  name: string,
  r: RegisterMap,
  base: number,
  prefix: string,
  guard: boolean,
): unknown {
  if (!r.indexed)
    return new RegisterHandle(io, r, base + r.offset, prefix + name, { guardInferred: guard });
  const items: RegisterHandle[] = [];
  for (let k = 0; k < r.count; k++) {
    items.push(
      new RegisterHandle(io, r, base + r.offset + k * r.stride, `${prefix}${name}[${k}]`, {
        guardInferred: guard,
      }),
    );
  }
  return makeIndexed(items, prefix + name);
}

/**
 * Builds a frozen object from entries. Object.fromEntries keeps the object in fast-properties mode
 * (adding a few dozen keys one by one would turn it into a slow dictionary object).
 */
function frozenRecord(entries: [string, unknown][]): Record<string, unknown> {
  return Object.freeze(Object.fromEntries(entries));
}

function blockInstance(
  io: RegisterIO,
  regs: RegFileMap['registers'],
  base: number,
  prefix: string,
  guard: boolean,
): Record<string, unknown> {
  return frozenRecord(
    Object.entries(regs).map(([name, r]) => [name, registerSlot(io, name, r, base, prefix, guard)]),
  );
}

function checkWindow(map: RegFileMap, io: RegisterIO): void {
  if (!(io.size >= map.size)) {
    throw new NxdmaError(
      'OUT_OF_WINDOW',
      `${map.name}: the RegisterIO window (${hex(io.size)} bytes) is smaller than the register file (${hex(map.size)} bytes)`,
      { where: map.name, expected: `a window of at least ${hex(map.size)} bytes`, actual: io.size },
    );
  }
}

/**
 * Whether writes of inferred facts are refused: on hardware without the opt-in. Both options take
 * real booleans only (a string such as 'false' is a BAD_ARGUMENT error, never an opt-in).
 */
function inferredGuard(opts: BindOptions): boolean {
  checkSafetyFlags(opts, ['hardware', 'allowInferred'], 'register binding options');
  return opts.hardware === true && opts.allowInferred !== true;
}

/**
 * Binds a register map to a RegisterIO: the typed accessor tree of the whole file. Builds every
 * accessor object once (a few hundred for udma_m2s); keep the result and reuse it.
 */
export function bindRegFile<M extends RegFileMap>(
  map: M,
  io: RegisterIO,
  opts: BindOptions = {},
): RegFileAccessor<M> {
  checkWindow(map, io);
  const guard = inferredGuard(opts);
  const entries: [string, unknown][] = [];
  for (const [name, b] of Object.entries(map.blocks)) {
    if (!b.indexed) {
      entries.push([name, blockInstance(io, b.registers, b.base, `${name}.`, guard)]);
      continue;
    }
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < b.count; i++) {
      items.push(blockInstance(io, b.registers, b.base + i * b.stride, `${name}[${i}].`, guard));
    }
    entries.push([name, makeIndexed(items, name)]);
  }
  for (const [name, r] of Object.entries(map.registers)) {
    entries.push([name, registerSlot(io, name, r, 0, '', guard)]);
  }
  return frozenRecord(entries) as RegFileAccessor<M>;
}

/**
 * The untyped accessor of the register at `path` ("M2S_Q[3].dwrr_cfg_2", "priority_class_map[2]"),
 * for path-driven tools (CLI, plans). Throws NxdmaError REGISTER_UNKNOWN for an unknown path.
 */
export function registerAt(
  map: RegFileMap,
  io: RegisterIO,
  path: string,
  opts: BindOptions = {},
): RegisterHandle {
  checkWindow(map, io);
  const inst = mapInstanceAt(map, path);
  if (!inst) {
    throw new NxdmaError('REGISTER_UNKNOWN', `${map.name}: no register at path '${path}'`, {
      where: `${map.name}:${path}`,
      expected: 'block.register, block[i].register or register[i] (see nxdma regs list)',
      actual: path,
    });
  }
  const guard = inferredGuard(opts);
  return new RegisterHandle(io, inst.register, inst.offset, inst.path, {
    guardInferred: guard,
    strict: true,
  });
}
