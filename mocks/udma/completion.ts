/**
 * Consuming a descriptor: the head moves past it, its counters count it, and with
 * comp_cfg.en_comp_ring_update a 16-byte completion entry is written at the queue's completion
 * ring (docs/mock.md "The UDMA engine"). One function per half, one completion writer for both.
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import { TWO_POW_32, advanceHead, advanceSlot, type UdmaCore } from './core.ts';
import { fault } from './faults.ts';
import { descRegion, firstUnmapped } from './memory-access.ts';
import type { UdmaHalf } from './types.ts';

/**
 * Consumes the head descriptor (word 0 `w0`) of queue q on one half after `bytes` moved: the head
 * advances, the counters count it, and a completion entry with word 0 `compWord` is written when
 * the queue's comp_cfg.en_comp_ring_update is set. False on a fault.
 */
function consume(
  c: UdmaCore,
  half: UdmaHalf,
  q: number,
  w0: number,
  bytes: number,
  compWord: number,
  len: number,
): boolean {
  const st = c.stateOf(half);
  const r = c.refsOf(half).q[q];
  const w = c.wordsOf(half);
  const off = advanceHead(st, r, w, q, len);
  st.descs[q]++;
  st.bytes[q] += bytes;
  if ((w0 & LEN_CTRL.INT_EN) !== 0) st.interrupts[q]++;
  return r.compEnable.isSet(w) ? writeCompletion(c, half, q, compWord, off, len) : true;
}

/** Consumes the TX head descriptor: its completion entry echoes its len, first and last. */
export function completeTx(
  c: UdmaCore,
  q: number,
  w0: number,
  bytes: number,
  len: number,
): boolean {
  const word = w0 & (LEN_CTRL.LEN_MASK | LEN_CTRL.FIRST | LEN_CTRL.LAST);
  return consume(c, 'm2s', q, w0, bytes, word, len);
}

/** Consumes the RX head descriptor after `filled` bytes landed in it. False on a fault. */
export function completeRx(
  c: UdmaCore,
  q: number,
  w0: number,
  filled: number,
  first: boolean,
  last: boolean,
  len: number,
): boolean {
  const word =
    (filled & LEN_CTRL.LEN_MASK) | (first ? LEN_CTRL.FIRST : 0) | (last ? LEN_CTRL.LAST : 0);
  return consume(c, 's2m', q, w0, filled, word, len);
}

/**
 * Writes a 16-byte completion entry at the queue's completion head: word 0 = `word0` with the
 * completion ring's id in ring_id[25:24], words 1-3 zero. The completion ring has as many
 * entries as the descriptor ring.
 */
export function writeCompletion(
  c: UdmaCore,
  half: UdmaHalf,
  q: number,
  word0: number,
  desc: number,
  len: number,
): boolean {
  const st = c.stateOf(half);
  const w = c.wordsOf(half);
  const r = c.refsOf(half).q[q];
  const base = r.compLo.bits(w) + r.compHi.read(w) * TWO_POW_32;
  const off = st.compOff[q];
  const addr = base + off * 16;
  const reg = descRegion(c, addr);
  if (reg === undefined) {
    fault(c, half, q, 'completion', desc, firstUnmapped(c.mem, addr, 16), 16);
    return false;
  }
  const p = addr - reg.base;
  const rid = st.compRid[q];
  reg.dv.setUint32(p, (word0 | (rid << LEN_CTRL.RING_ID_SHIFT)) >>> 0, true);
  reg.dv.setUint32(p + 4, 0, true);
  reg.dv.setUint32(p + 8, 0, true);
  reg.dv.setUint32(p + 12, 0, true);
  if (reg === c.seam) c.mem.write(addr, c.seam.bytes); // back across the seam
  advanceSlot(st.compOff, st.compRid, q, len);
  w[r.compHeadOffset.word] =
    r.compHeadOffset.place(st.compOff[q]) | r.compHeadRingId.place(st.compRid[q]);
  return true;
}
