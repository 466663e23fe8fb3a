/**
 * Programming one half of a copy queue (UDMA-FACTS.md "Rings"; the public driver's queue-init
 * sequence): cfg without the enable bits, q_sw_ctrl.rst_q, the scrub of stale descriptors while
 * the half is stopped and reset, ring base (low, high), ring length, comp_cfg = 0 (no completion
 * ring: completion is read from the heads), then cfg with the enable bits; and the enable bits
 * alone (pause / resume).
 */
import { BD_SIZE } from '../../csr/formats/bd.ts';
import type { MemoryIO } from '../../csr/io.ts';
import type { EngineIO } from './engine-io.ts';
import type { HalfQueueRegs } from './queue-regs.ts';
import { zeroMemory, type RingSpec } from './ring.ts';

/** A byte range of ring memory: [base, end). */
export interface ByteRange {
  base: number;
  end: number;
}

/**
 * The queue-init sequence on one half, onto `ring`. Every byte of `stale` (descriptor slots the
 * driver wrote since the last reset) inside the new ring is zeroed after rst_q, before the ring
 * registers are written; the enable bits are set again only when `enable`.
 */
export function programHalf(
  eio: EngineIO,
  memory: MemoryIO,
  h: HalfQueueRegs,
  ring: RingSpec,
  enable: boolean,
  stale: readonly ByteRange[],
): void {
  const cfg = eio.current(h.cfg);
  eio.write(h.cfg, (cfg & ~h.enableMask) >>> 0);
  eio.write(h.swCtrl, h.swCtrl.encode({ [h.rstQ.name]: 1 }, 0));
  // The half is stopped and reset: scrub what it will fetch again.
  const end = ring.base + ring.size * BD_SIZE;
  for (const r of stale) {
    const lo = Math.max(r.base, ring.base);
    const hi = Math.min(r.end, end);
    if (hi > lo) zeroMemory(memory, lo, hi - lo);
  }
  const lo = ring.base % 2 ** 32;
  const hi = Math.floor(ring.base / 2 ** 32);
  eio.write(h.baseLo.reg, h.baseLo.reg.encode({ [h.baseLo.name]: lo >>> h.baseLo.lsb }));
  eio.write(h.baseHi.reg, h.baseHi.reg.encode({ [h.baseHi.name]: hi }));
  eio.write(h.len.reg, h.len.reg.encode({ [h.len.name]: ring.size }));
  eio.write(h.compCfg, 0);
  if (enable) eio.write(h.cfg, (cfg | h.enableMask) >>> 0);
}

/** Sets or clears a half's enable bits in one write (the cfg word comes from the shadow). */
export function setEnabled(eio: EngineIO, h: HalfQueueRegs, on: boolean): void {
  const cfg = eio.current(h.cfg);
  eio.write(h.cfg, (on ? cfg | h.enableMask : cfg & ~h.enableMask) >>> 0);
}
