/**
 * Register access of one engine's UDMA unit as the driver does it: every write goes through here
 * so the shadow stays true, and a "current word" comes from the shadow when it is known and from
 * one device read otherwise. RO registers (heads, status) are never shadowed (the engine changes
 * them); WO and INC registers (doorbells, change_state, q_sw_ctrl) read as 0 and are never shadowed.
 */
import type { RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import type { Reg, UdmaFileName } from './regs.ts';
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
  /** MMIO counters of this engine's driver (reads and writes it issued). */
  reads = 0;
  writes = 0;
  /** When set, every write is also appended here (bring-up reports). */
  log: RegisterWrite[] | null = null;

  constructor(engine: number, unit: UdmaUnitIO, shadow: RegisterShadow) {
    this.engine = engine;
    this.unit = unit;
    this.shadow = shadow;
  }

  io(file: UdmaFileName): RegisterIO {
    return file === 'udma_m2s' ? this.unit.m2s : this.unit.s2m;
  }

  write(r: Reg, value: number): void {
    const v = value >>> 0;
    this.io(r.file).write32(r.offset, v);
    this.writes++;
    if (r.model.readable && r.model.writable) this.shadow.set(this.engine, r.file, r.offset, v);
    if (this.log) this.log.push({ file: r.file, path: r.path, offset: r.offset, value: v });
  }

  /** One device read (never the shadow); RW registers update the shadow. */
  read(r: Reg): number {
    const v = this.io(r.file).read32(r.offset) >>> 0;
    this.reads++;
    if (r.model.readable && r.model.writable) this.shadow.set(this.engine, r.file, r.offset, v);
    return v;
  }

  /** The register's current word: from the shadow when known, else one device read. */
  current(r: Reg): number {
    const s = this.shadow.get(this.engine, r.file, r.offset);
    return s === undefined ? this.read(r) : s;
  }
}
