/**
 * A mock DGE core: the host-private table window at dram_base (the dge_host register file: the
 * priority-class map at +0x18 and the mailboxes at +0x28, seed 004 §7.2) living in the device's
 * memory, plus the core kind and boot state the host API gates on.
 *
 * The window is memory, not a register file: `dram.read32` / `write32` read and write the four
 * bytes at dramBase + offset, so a bulk write through MemoryIO and a word write through the
 * window see the same bytes. Word accesses are still aligned 32-bit and inside the window (the
 * dge_host schema's SizeInBytes): a bad one is dropped, counted and logged like a register
 * access (or throws with `strict`). At creation the window is filled with the schema's reset
 * image.
 */
import { NxdmaError, hex } from '../common/errors.ts';
import { DGE_BOOTED, DgeCoreKind } from '../csr/formats/dge-host.ts';
import type { DgeCoreIO, RegisterIO } from '../csr/io.ts';
import type { RegFileModel } from '../csr/schema/model.ts';
import { validateDgeDescriptor } from '../csr/formats/dge-desc.ts';
import { executeDirect2D, poolComputes } from './dge-compute.ts';
import type { MockMemory } from './memory.ts';
import {
  accessProblem,
  droppedAccessCode,
  isWordValue,
  logBadAccess,
  type BadAccess,
  type BadAccessReason,
  type RegisterAccessEvent,
  type RegisterFileCounters,
} from './register-file.ts';

/** nrtucode core kinds (UDMA-FACTS.md; csr/formats/dge-host.ts DgeCoreKind). */
export const DGE_CORE_KIND = DgeCoreKind;

/** Boot state in which the host tables may be written (BOOTED_LEGACY). */
export { DGE_BOOTED };

export interface MockDgeCoreSpec {
  core: number;
  /** Default CAYMAN (9), the trn2 kind. */
  kind?: number;
  /** Default 1 (booted). */
  bootState?: number;
  /** Device address of dram_base; must lie in a declared memory region. */
  dramBase: number;
}

/** The dge_host window over memory. */
export class DgeHostWindow implements RegisterIO {
  readonly size: number;
  readonly name: string;
  readonly counters: RegisterFileCounters = { reads: 0, writes: 0, roWrites: 0, badAccesses: 0 };
  readonly badAccessLog: BadAccess[] = [];
  strict: boolean;
  trace: ((ev: RegisterAccessEvent) => void) | null;
  private readonly model: RegFileModel;

  constructor(
    private readonly mem: MockMemory,
    readonly base: number,
    model: RegFileModel,
    name: string,
    opts: { strict?: boolean; trace?: ((ev: RegisterAccessEvent) => void) | null } = {},
  ) {
    this.model = model;
    this.size = model.size;
    this.name = name;
    this.strict = opts.strict ?? false;
    this.trace = opts.trace ?? null;
  }

  private pathAt(offset: number): string | null {
    const inst = this.model.instances.find((i) => i.offset === offset);
    return inst ? inst.path : null;
  }

  private bad(op: 'read' | 'write', offset: number, value: number): BadAccessReason | null {
    let reason = accessProblem(offset, this.size);
    if (reason === null && op === 'write' && !isWordValue(value)) reason = 'bad-value';
    if (reason === null) return null;
    if (this.strict) {
      throw new NxdmaError(
        droppedAccessCode(reason),
        `${this.name}: ${op} at ${String(offset)} rejected (${reason})`,
        {
          where: `${this.name}@${String(offset)}`,
          expected: `an aligned offset inside ${hex(this.size)} bytes`,
          actual: offset,
        },
      );
    }
    this.counters.badAccesses++;
    const b = {
      file: this.name,
      op,
      offset: Number.isFinite(offset) ? offset : -1,
      value: 0,
      reason,
      path: null,
    };
    logBadAccess(this.badAccessLog, b);
    if (this.trace)
      this.trace({ file: this.name, op, offset: b.offset, value: 0, path: null, dropped: reason });
    return reason;
  }

  read32(offset: number): number {
    if (this.bad('read', offset, 0) !== null) return 0;
    this.counters.reads++;
    const v = this.mem.readU32(this.base + offset);
    if (this.trace)
      this.trace({ file: this.name, op: 'read', offset, value: v, path: this.pathAt(offset) });
    return v;
  }

  write32(offset: number, value: number): void {
    if (this.bad('write', offset, value) !== null) return;
    this.counters.writes++;
    const v = value >>> 0;
    if (this.trace)
      this.trace({ file: this.name, op: 'write', offset, value: v, path: this.pathAt(offset) });
    this.mem.writeU32(this.base + offset, v);
  }

  /** Bulk copy out of the window (BulkWindowIO): one memory read; the range is checked first. */
  readBytes(offset: number, dst: Uint8Array): void {
    this.checkBulk(offset, dst.length);
    this.counters.reads++;
    this.mem.read(this.base + offset, dst);
  }

  /** Bulk copy into the window (BulkWindowIO): one memory write; the range is checked first. */
  writeBytes(offset: number, src: Uint8Array): void {
    this.checkBulk(offset, src.length);
    this.counters.writes++;
    this.mem.write(this.base + offset, src);
  }

  private checkBulk(offset: number, length: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + length > this.size) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `${this.name}: ${length} bytes at ${String(offset)} do not lie inside the window`,
        {
          where: `${this.name}@${String(offset)}`,
          expected: `a range inside ${hex(this.size)} bytes`,
          actual: offset,
        },
      );
    }
  }
}

export class MockDgeCore implements DgeCoreIO {
  readonly core: number;
  readonly dram: DgeHostWindow;
  readonly dramBase: number;
  kind: number;
  bootState: number;
  /** DIRECT2D descriptors executed and elements they moved (executeDescriptor). */
  readonly executed = { descriptors: 0, elements: 0 };
  private readonly mem: MockMemory;

  constructor(
    spec: MockDgeCoreSpec,
    mem: MockMemory,
    model: RegFileModel,
    opts: { strict?: boolean; trace?: ((ev: RegisterAccessEvent) => void) | null } = {},
  ) {
    const where = `dge core ${String(spec.core)}`;
    if (!Number.isSafeInteger(spec.core) || spec.core < 0) {
      throw new NxdmaError('BAD_ARGUMENT', `${where}: core id must be a non-negative integer`, {
        where,
        expected: 'integer >= 0',
        actual: spec.core,
      });
    }
    for (const [k, v] of [
      ['kind', spec.kind],
      ['bootState', spec.bootState],
    ] as const) {
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) {
        throw new NxdmaError('BAD_ARGUMENT', `${where}: ${k} must be a non-negative integer`, {
          where: `${where}.${k}`,
          expected: 'integer >= 0',
          actual: v,
        });
      }
    }
    if (
      !Number.isSafeInteger(spec.dramBase) ||
      spec.dramBase < 0 ||
      mem.find(spec.dramBase, model.size) === undefined
    ) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `${where}: the dge_host window [${hex(spec.dramBase)}, +${hex(model.size)}) is not inside one memory region`,
        {
          where: `${where}.dramBase`,
          expected: `inside one of: ${mem.describe()}`,
          actual: spec.dramBase,
        },
      );
    }
    this.mem = mem;
    this.core = spec.core;
    this.kind = spec.kind ?? DGE_CORE_KIND.CAYMAN;
    this.bootState = spec.bootState ?? DGE_BOOTED;
    this.dramBase = spec.dramBase;
    this.dram = new DgeHostWindow(mem, spec.dramBase, model, `dge${spec.core}.dge_host`, opts);
    // The firmware's view at boot: the schema's reset image.
    for (const inst of model.instances)
      mem.writeU32(spec.dramBase + inst.offset, inst.register.reset);
  }

  /**
   * The Pool backend's DIRECT2D engine: executes one 64-byte DIRECT2D descriptor on device memory,
   * its compute_op included (seed 004 §4.1: "a Pool descriptor can do B op= A in transfer";
   * mocks/dge-compute.ts has the element arithmetic). Only DIRECT2D is executed here: the other
   * descriptor kinds have no compute_op and reach the rings as BDs. A descriptor that is not a
   * valid DIRECT2D, or whose compute_op the Pool core does not compute, throws BAD_ARGUMENT before
   * any byte is written.
   */
  executeDescriptor(desc: Uint8Array): void {
    const r = validateDgeDescriptor(desc, 0);
    if (!r.ok || r.value.kind !== 'DIRECT2D') {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `dge core ${this.core}: the Pool core executes DIRECT2D descriptors (${r.ok ? `got ${r.value.kind}` : r.error.message})`,
        {
          where: `dge${this.core}.executeDescriptor`,
          expected: 'a valid 64-byte DIRECT2D',
          actual: r.ok ? r.value.kind : null,
        },
      );
    }
    const d = r.value;
    if (!poolComputes(d.dtype, d.compute_op)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `dge core ${this.core}: compute_op ${d.compute_op} on dtype ${d.dtype} is not computed by the Pool core`,
        {
          where: `dge${this.core}.executeDescriptor`,
          expected: 'ADD/MULTIPLY/MAX/MIN on UINT8..FP32',
          actual: d.dtype,
        },
      );
    }
    this.executed.elements += executeDirect2D(this.mem, d);
    this.executed.descriptors++;
  }
}
