/**
 * The per-queue ring registers of both halves, resolved once per queue index from the schema
 * (tdr* on M2S, rdr* on S2M). Nothing here holds an offset of its own.
 */
import type { UdmaUnitIO } from '../../csr/io.ts';
import { field, reg, type Field, type Reg, type UdmaFileName } from './regs.ts';

/** The ring registers of one queue on one half. */
export interface HalfQueueRegs {
  file: UdmaFileName;
  cfg: Reg;
  /** Enable bits set on top of the cfg reset value (M2S: en_pref, en_scheduling; S2M: en_stream). */
  enables: Field[];
  /** Their union. */
  enableMask: number;
  status: Reg;
  swCtrl: Reg;
  rstQ: Field;
  baseLo: Field;
  baseHi: Field;
  len: Field;
  headOffset: Field;
  headRingId: Field;
  /** The doorbell (tdrtp_inc / rdrtp_inc). */
  doorbell: Field;
  /** Its register's byte offset in the half's window (read once per doorbell). */
  doorbellOffset: number;
  compCfg: Reg;
}

export interface QueueRegs {
  queue: number;
  m2s: HalfQueueRegs;
  s2m: HalfQueueRegs;
}

function half(file: UdmaFileName, q: number): HalfQueueRegs {
  const Q = file === 'udma_m2s' ? `M2S_Q[${q}]` : `S2M_Q[${q}]`;
  const p = file === 'udma_m2s' ? 't' : 'r';
  const cfg = reg(file, `${Q}.cfg`);
  const enables =
    file === 'udma_m2s'
      ? [cfg.field('en_pref'), cfg.field('en_scheduling')]
      : [cfg.field('en_stream')];
  const doorbell = field(file, `${Q}.${p}drtp_inc.val`);
  return {
    file,
    cfg,
    enables,
    enableMask: enables.reduce((m, f) => (m | f.mask) >>> 0, 0),
    status: reg(file, `${Q}.status`),
    swCtrl: reg(file, `${Q}.q_sw_ctrl`),
    rstQ: field(file, `${Q}.q_sw_ctrl.rst_q`),
    baseLo: field(file, `${Q}.${p}drbp_low.addr`),
    baseHi: field(file, `${Q}.${p}drbp_high.addr`),
    len: field(file, `${Q}.${p}drl.len`),
    headOffset: field(file, `${Q}.${p}drhp.offset`),
    headRingId: field(file, `${Q}.${p}drhp.ring_id`),
    doorbell,
    doorbellOffset: doorbell.reg.offset,
    compCfg: reg(file, `${Q}.comp_cfg`),
  };
}

/**
 * Hands `n` written RX descriptors and `ntx` (default `n`) TX descriptors of a queue to the engine:
 * the RX (S2M) doorbell first, then the TX (M2S) one, so the destination side is ready before any
 * source data moves.
 */
export function ringDoorbells(unit: UdmaUnitIO, regs: QueueRegs, n: number, ntx = n): void {
  const rx = regs.s2m;
  const tx = regs.m2s;
  unit.s2m.write32(rx.doorbellOffset, rx.doorbell.place(n));
  unit.m2s.write32(tx.doorbellOffset, tx.doorbell.place(ntx));
}

const cache = new Map<number, QueueRegs>();

/** The ring registers of queue `q` (0-based) on both halves (cached per queue index). */
export function queueRegs(q: number): QueueRegs {
  let r = cache.get(q);
  if (!r) {
    r = { queue: q, m2s: half('udma_m2s', q), s2m: half('udma_s2m', q) };
    cache.set(q, r);
  }
  return r;
}
