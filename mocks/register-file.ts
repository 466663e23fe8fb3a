/**
 * A register file of the mock device, built from a loaded schema model (csr/schema/model.ts):
 * every offset, field position, access kind, reset value and doorbell target comes from the
 * model; nothing here knows a register by its offset.
 *
 * Semantics, per field access kind:
 * - RW: stores the written bits; reads return them.
 * - RO: writes leave it unchanged; a write to a register with no writable field is counted
 *   (`counters.roWrites`) and logged. The mock itself updates RO words with `poke()`.
 * - WO: not stored; reads return 0. The written value reaches the register's write hook.
 * - INC (doorbell): not stored; reads return 0. The written value is added to the model's
 *   IncrementTarget field (wrapping at the field's width) unless a hook takes over (the UDMA
 *   engine does, to carry the ring id across ring wraps).
 * - W1C: writing 1 clears the bit. RC: a read clears the field after returning it.
 * - Bits outside every field of a register that has fields are reserved: they read 0 and writes
 *   to them are dropped. A register without fields is one whole word of its access kind.
 *
 * An access at an offset no register occupies, a misaligned offset, an offset outside the
 * window or a value that is not a 32-bit integer is never a crash: the access is dropped (a read
 * returns 0), counted in `counters.badAccesses` and logged in `badAccessLog` (the last 256). With
 * `strict: true` it throws a typed NxdmaError instead (MISALIGNED, OUT_OF_WINDOW,
 * REGISTER_UNKNOWN, BAD_ARGUMENT; REGISTER_READ_ONLY for a write to a read-only register).
 * Every access can be traced (`trace`).
 */
import { NxdmaError, hex, type ErrorCode } from '../common/errors.ts';
import type { RegisterIO } from '../csr/io.ts';
import { FieldSpec, fieldSpecArgs } from '../csr/runtime/fields.ts';
import {
  incrementTargetOf,
  type FieldModel,
  type RegFileModel,
  type RegisterInstance,
} from '../csr/schema/model.ts';

export type RegisterAccessOp = 'read' | 'write';

/** Why an access was dropped. */
export type BadAccessReason =
  'unoccupied' | 'misaligned' | 'out-of-window' | 'bad-value' | 'read-only';

/** One traced access. `path` is null for an offset no register occupies. */
export interface RegisterAccessEvent {
  file: string;
  op: RegisterAccessOp;
  offset: number;
  /** The value returned by a read, or the value written. */
  value: number;
  path: string | null;
  /** Set when the access was dropped. */
  dropped?: BadAccessReason;
}

export interface BadAccess {
  file: string;
  op: RegisterAccessOp;
  offset: number;
  value: number;
  reason: BadAccessReason;
  path: string | null;
}

export interface RegisterFileCounters {
  reads: number;
  writes: number;
  /** Writes to a register that has no writable field (ignored). */
  roWrites: number;
  /** Dropped accesses (unoccupied, misaligned, out of window, bad value). RO writes not included. */
  badAccesses: number;
}

export interface MockRegisterFileOptions {
  /** Throw a typed error on a bad access instead of logging it. Default false. */
  strict?: boolean;
  /** Called for every access, in order. */
  trace?: ((ev: RegisterAccessEvent) => void) | null;
  /** Name shown in events (default: the model's name). */
  label?: string;
}

/** Called after a write to a register instance was applied; `value` is the raw written word. */
export type WriteHook = (value: number, inst: RegisterInstance) => void;
/** Supplies the value of a register whose content the mock computes on read. */
export type ReadHook = (inst: RegisterInstance) => number;

const BAD_LOG_LIMIT = 256;

/**
 * Why an access at `offset` of a window of `size` bytes is dropped: outside the window, or not
 * aligned to 4; null when it is a word of the window. (The rule every mock register window uses.)
 */
export function accessProblem(offset: number, size: number): BadAccessReason | null {
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || offset + 4 > size) {
    return 'out-of-window';
  }
  if ((offset & 3) !== 0) return 'misaligned';
  return null;
}

/** True when `value` is a value write32 takes: an integer in int32 or uint32 range. */
export function isWordValue(value: number): boolean {
  return Number.isInteger(value) && value >= -0x80000000 && value <= 0xffffffff;
}

/** The NxdmaError code a strict window throws for a dropped access. */
export function droppedAccessCode(reason: BadAccessReason): ErrorCode {
  return reason === 'misaligned'
    ? 'MISALIGNED'
    : reason === 'out-of-window'
      ? 'OUT_OF_WINDOW'
      : reason === 'unoccupied'
        ? 'REGISTER_UNKNOWN'
        : 'BAD_ARGUMENT';
}

/** Appends to a bad-access log that keeps the last 256 entries. */
export function logBadAccess(log: BadAccess[], b: BadAccess): void {
  if (log.length >= BAD_LOG_LIMIT) log.shift();
  log.push(b);
}

/** Per-model tables shared by every register file built from the same model. */
interface Layout {
  model: RegFileModel;
  words: number;
  /** Word index -> instance index, -1 when unoccupied. */
  slot: Int32Array;
  inst: readonly RegisterInstance[];
  /** Bits a write stores (RW). */
  rwMask: Uint32Array;
  /** Bits a write of 1 clears (W1C). */
  w1cMask: Uint32Array;
  /** Bits a read clears (RC). */
  rcMask: Uint32Array;
  /** Bits that read back (RW, RO, W1C, RC). */
  readMask: Uint32Array;
  /** Reset word (readable bits only). */
  reset: Uint32Array;
  /** 1 when the register takes no written value at all. */
  readOnly: Uint8Array;
  /** For INC registers: the target instance index and field (else -1 / null). */
  incTarget: Int32Array;
  incField: (FieldSpec | null)[];
  incSource: (FieldSpec | null)[];
}

const layouts = new WeakMap<RegFileModel, Layout>();

function maskOf(fields: readonly FieldModel[], pred: (f: FieldModel) => boolean): number {
  let m = 0;
  for (const f of fields) if (pred(f)) m |= f.mask;
  return m >>> 0;
}

function layoutOf(model: RegFileModel): Layout {
  const cached = layouts.get(model);
  if (cached) return cached;
  const words = model.size >>> 2;
  const n = model.instances.length;
  const slot = new Int32Array(words).fill(-1);
  const rwMask = new Uint32Array(n);
  const w1cMask = new Uint32Array(n);
  const rcMask = new Uint32Array(n);
  const readMask = new Uint32Array(n);
  const reset = new Uint32Array(n);
  const readOnly = new Uint8Array(n);
  const incTarget = new Int32Array(n).fill(-1);
  const incField: (FieldSpec | null)[] = new Array<FieldSpec | null>(n).fill(null);
  const incSource: (FieldSpec | null)[] = new Array<FieldSpec | null>(n).fill(null);
  const index = new Map<RegisterInstance, number>();
  model.instances.forEach((inst, i) => {
    index.set(inst, i);
    slot[inst.offset >>> 2] = i;
    const reg = inst.register;
    if (reg.fields.length === 0) {
      const a = reg.access;
      rwMask[i] = a === 'RW' ? 0xffffffff : 0;
      w1cMask[i] = a === 'W1C' ? 0xffffffff : 0;
      rcMask[i] = a === 'RC' ? 0xffffffff : 0;
      readMask[i] = reg.readable ? 0xffffffff : 0;
    } else {
      rwMask[i] = maskOf(reg.fields, (f) => f.access === 'RW');
      w1cMask[i] = maskOf(reg.fields, (f) => f.access === 'W1C');
      rcMask[i] = maskOf(reg.fields, (f) => f.access === 'RC');
      readMask[i] = maskOf(reg.fields, (f) => f.readable);
    }
    reset[i] = (reg.reset & readMask[i]) >>> 0;
    readOnly[i] = reg.writable ? 0 : 1;
  });
  model.instances.forEach((inst, i) => {
    if (!inst.register.incrementTarget) return;
    const t = incrementTargetOf(model, inst);
    if (!t) return;
    incTarget[i] = index.get(t.instance) ?? -1;
    incField[i] = new FieldSpec(...fieldSpecArgs(t.field));
    const src = inst.register.fields.find((f) => f.access === 'INC');
    incSource[i] = src ? new FieldSpec(...fieldSpecArgs(src)) : null;
  });
  const layout: Layout = {
    model,
    words,
    slot,
    inst: model.instances,
    rwMask,
    w1cMask,
    rcMask,
    readMask,
    reset,
    readOnly,
    incTarget,
    incField,
    incSource,
  };
  layouts.set(model, layout);
  return layout;
}

export class MockRegisterFile implements RegisterIO {
  readonly model: RegFileModel;
  readonly name: string;
  readonly size: number;
  /**
   * The readable content of every register word, indexed by offset / 4 (WO and INC words hold 0).
   * The mock's engine reads configuration from here and updates RO words with `poke()`.
   */
  readonly words: Uint32Array;
  readonly counters: RegisterFileCounters = { reads: 0, writes: 0, roWrites: 0, badAccesses: 0 };
  /** The last 256 dropped accesses (and ignored RO writes), oldest first. */
  readonly badAccessLog: BadAccess[] = [];
  strict: boolean;
  trace: ((ev: RegisterAccessEvent) => void) | null;
  /** Called before every read of a register (the device uses it to let its engines catch up). */
  beforeRead: ((offset: number) => void) | null = null;
  /** Called after every applied write, before the register's own hook. */
  afterWrite: ((inst: RegisterInstance) => void) | null = null;
  private readonly layout: Layout;
  private readonly writeHooks: (WriteHook | undefined)[];
  private readonly readHooks: (ReadHook | undefined)[];

  constructor(model: RegFileModel, opts: MockRegisterFileOptions = {}) {
    this.model = model;
    this.layout = layoutOf(model);
    this.name = opts.label ?? model.name;
    this.size = model.size;
    this.words = new Uint32Array(this.layout.words);
    this.strict = opts.strict ?? false;
    this.trace = opts.trace ?? null;
    this.writeHooks = new Array<WriteHook | undefined>(this.layout.inst.length);
    this.readHooks = new Array<ReadHook | undefined>(this.layout.inst.length);
    this.reset();
  }

  /** Every register back to its schema reset value. */
  reset(): void {
    const { inst, reset } = this.layout;
    this.words.fill(0);
    for (let i = 0; i < inst.length; i++) this.words[inst[i].offset >>> 2] = reset[i];
  }

  /** The schema reset value of the register at `offset` as a read returns it (0 for WO / INC). */
  resetValue(offset: number): number {
    const i = this.instanceIndex(offset);
    return i < 0 ? 0 : this.layout.reset[i];
  }

  /** The register instance at `offset`, or undefined. */
  instanceAt(offset: number): RegisterInstance | undefined {
    const i = this.instanceIndex(offset);
    return i < 0 ? undefined : this.layout.inst[i];
  }

  private instanceIndex(offset: number): number {
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.size || (offset & 3) !== 0)
      return -1;
    return this.layout.slot[offset >>> 2];
  }

  /** Installs the hook called after each write to the register at `offset`. */
  onWrite(offset: number, hook: WriteHook): void {
    this.writeHooks[this.requireInstance(offset)] = hook;
  }

  /** Makes reads of the register at `offset` return what `hook` computes. */
  onRead(offset: number, hook: ReadHook): void {
    this.readHooks[this.requireInstance(offset)] = hook;
  }

  private requireInstance(offset: number): number {
    const i = this.instanceIndex(offset);
    if (i < 0) {
      throw new NxdmaError('REGISTER_UNKNOWN', `${this.name}: no register at ${hex(offset)}`, {
        where: `${this.name}@${hex(offset)}`,
        expected: 'the offset of a register of the schema',
        actual: offset,
      });
    }
    return i;
  }

  /** The stored word at `offset`, bypassing access semantics and hooks (no trace). */
  peek(offset: number): number {
    return this.words[offset >>> 2];
  }

  /** Sets the stored word at `offset`, bypassing access semantics and hooks (no trace). */
  poke(offset: number, value: number): void {
    this.words[offset >>> 2] = value >>> 0;
  }

  read32(offset: number): number {
    const bad = accessProblem(offset, this.size);
    if (bad !== null) {
      this.drop('read', offset, 0, bad);
      return 0;
    }
    const i = this.layout.slot[offset >>> 2];
    if (i < 0) {
      this.drop('read', offset, 0, 'unoccupied');
      return 0;
    }
    if (this.beforeRead !== null) this.beforeRead(offset);
    this.counters.reads++;
    const hook = this.readHooks[i];
    let v: number;
    if (hook !== undefined) {
      v = (hook(this.layout.inst[i]) & this.layout.readMask[i]) >>> 0;
    } else {
      const w = offset >>> 2;
      v = this.words[w] & this.layout.readMask[i];
      const rc = this.layout.rcMask[i];
      if (rc !== 0) this.words[w] = (this.words[w] & ~rc) >>> 0;
      v >>>= 0;
    }
    if (this.trace !== null) {
      this.trace({ file: this.name, op: 'read', offset, value: v, path: this.layout.inst[i].path });
    }
    return v;
  }

  write32(offset: number, value: number): void {
    let bad = accessProblem(offset, this.size);
    if (bad === null && !isWordValue(value)) bad = 'bad-value';
    if (bad !== null) {
      this.drop(
        'write',
        offset,
        typeof value === 'number' && Number.isFinite(value) ? value : 0,
        bad,
      );
      return;
    }
    const i = this.layout.slot[offset >>> 2];
    if (i < 0) {
      this.drop('write', offset, value >>> 0, 'unoccupied');
      return;
    }
    const L = this.layout;
    const v = value >>> 0;
    const inst = L.inst[i];
    this.counters.writes++;
    if (L.readOnly[i] === 1) {
      if (this.strict) {
        throw new NxdmaError('REGISTER_READ_ONLY', `${this.name}: ${inst.path} is read-only`, {
          where: `${this.name}:${inst.path}`,
          expected: 'a register with a writable field',
          actual: hex(v, 8),
        });
      }
      this.counters.roWrites++;
      this.log({
        file: this.name,
        op: 'write',
        offset,
        value: v,
        reason: 'read-only',
        path: inst.path,
      });
      if (this.trace !== null) {
        this.trace({
          file: this.name,
          op: 'write',
          offset,
          value: v,
          path: inst.path,
          dropped: 'read-only',
        });
      }
      return;
    }
    if (this.trace !== null)
      this.trace({ file: this.name, op: 'write', offset, value: v, path: inst.path });
    const w = offset >>> 2;
    const old = this.words[w];
    let next = (old & ~L.rwMask[i]) | (v & L.rwMask[i]);
    if (L.w1cMask[i] !== 0) next &= ~(v & L.w1cMask[i]);
    this.words[w] = next >>> 0;
    if (this.afterWrite !== null) this.afterWrite(inst);
    const hook = this.writeHooks[i];
    if (hook !== undefined) {
      hook(v, inst);
    } else if (L.incTarget[i] >= 0) {
      // Default doorbell: add the INC field's value to the target field, wrapping at its width.
      const src = L.incSource[i];
      const f = L.incField[i]!;
      const add = src ? src.get(v) : v;
      const tw = L.inst[L.incTarget[i]].offset >>> 2;
      const sum = (f.get(this.words[tw]) + add) % (f.max + 1);
      this.words[tw] = ((this.words[tw] & ~f.mask) | f.place(sum)) >>> 0;
    }
  }

  private drop(op: RegisterAccessOp, offset: number, value: number, reason: BadAccessReason): void {
    const off = typeof offset === 'number' && Number.isFinite(offset) ? offset : -1;
    if (this.strict) {
      throw new NxdmaError(
        droppedAccessCode(reason),
        `${this.name}: ${op} at ${hex(Math.max(off, 0))} rejected (${reason})`,
        {
          where: `${this.name}@${String(offset)}`,
          expected:
            reason === 'bad-value'
              ? 'a 32-bit integer value'
              : `an aligned offset of a register inside the ${hex(this.size)}-byte window`,
          actual: reason === 'bad-value' ? value : offset,
        },
      );
    }
    this.counters.badAccesses++;
    this.log({ file: this.name, op, offset: off, value: value >>> 0, reason, path: null });
    if (this.trace !== null) {
      this.trace({
        file: this.name,
        op,
        offset: off,
        value: value >>> 0,
        path: null,
        dropped: reason,
      });
    }
  }

  private log(b: BadAccess): void {
    logBadAccess(this.badAccessLog, b);
  }
}
