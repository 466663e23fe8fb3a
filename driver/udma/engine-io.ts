/**
 * Register access of one engine's UDMA unit as the driver does it: configuration writes and
 * "current word" reads go through the engine's shadowed windows (RegisterShadow, csr ShadowIO), so
 * the shadow stays true and a known word costs no device read. RO registers (heads, status) and
 * WO / INC registers (doorbells, change_state, q_sw_ctrl) are never shadowed.
 */
import type { RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import type { ShadowIO } from '../../csr/runtime/shadow.ts';
import { unitWindow, type Reg, type UdmaFileName } from './regs.ts';
import type { RegisterShadow } from './shadow.ts';

/** One register write the driver performed. */
export interface RegisterWrite {
  file: UdmaFileName;
  path: string;
  offset: number;
  value: number;
}

export class EngineIO {
  readonly engine: number;
  readonly unit: UdmaUnitIO;
  readonly shadow: RegisterShadow;
  /** MMIO counters of this engine's driver (device reads and writes it issued). */
  reads = 0;
  writes = 0;
  /** When set, every write is also appended here (bring-up reports). */
  log: RegisterWrite[] | null = null;
  private readonly m2s: ShadowIO;
  private readonly s2m: ShadowIO;

  constructor(engine: number, unit: UdmaUnitIO, shadow: RegisterShadow) {
    this.engine = engine;
    this.unit = unit;
    this.shadow = shadow;
    this.m2s = shadow.bind(engine, 'udma_m2s', unit.m2s);
    this.s2m = shadow.bind(engine, 'udma_s2m', unit.s2m);
  }

  /** The device window of `file` (no shadow). */
  io(file: UdmaFileName): RegisterIO {
    return unitWindow(this.unit, file);
  }

  private window(file: UdmaFileName): ShadowIO {
    return file === 'udma_m2s' ? this.m2s : this.s2m;
  }

  write(r: Reg, value: number): void {
    const v = value >>> 0;
    this.window(r.file).write32(r.offset, v);
    this.writes++;
    if (this.log) this.log.push({ file: r.file, path: r.path, offset: r.offset, value: v });
  }

  /** One device read (never the shadow); the shadow learns the word. */
  read(r: Reg): number {
    const w = this.window(r.file);
    const v = w.inner.read32(r.offset) >>> 0;
    this.reads++;
    w.assume(r.offset, v);
    return v;
  }

  /** The register's current word: from the shadow when known, else one device read. */
  current(r: Reg): number {
    const known = this.window(r.file).peek(r.offset);
    return known === undefined ? this.read(r) : known;
  }
}
