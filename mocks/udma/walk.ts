/**
 * The packet walk of the mock UDMA engine: one descriptor fetch for both rings (`fetchDesc`: the
 * ring-id check, the stall on a stale descriptor, the abort on unmapped memory), the look at a
 * queue's head packet (`scanHead`: its TX descriptors up to LAST, and RX buffers for all its
 * bytes) and the move of a scanned packet (`servePacket`: TX buffers streamed into the RX buffers
 * of the same queue index, a packet always starting in a fresh RX descriptor).
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import type { MemoryRegion } from '../memory.ts';
import {
  PKT_READY,
  PKT_UNKNOWN,
  PKT_WAIT,
  TWO_POW_32,
  pendingOf,
  ringBase,
  type UdmaCore,
} from './core.ts';
import { completeRx, completeTx } from './completion.ts';
import { fault, stall } from './faults.ts';
import { copyBytes, copySpanning, descRegion, firstUnmapped } from './memory-access.ts';
import type { UdmaHalf } from './types.ts';

/**
 * Word 0 of the descriptor at slot `off` of queue q's ring at `base` (TX on M2S, RX on S2M), whose
 * ring id must be `rid`; its region and offset are left in `c.fetched` / `c.fetchedAt`. Returns -1
 * after stalling the queue (stale ring id) or aborting the engine (unmapped descriptor).
 */
export function fetchDesc(
  c: UdmaCore,
  half: UdmaHalf,
  q: number,
  base: number,
  off: number,
  rid: number,
): number {
  const addr = base + off * 16;
  const reg = descRegion(c, addr);
  if (reg === undefined) {
    fault(c, half, q, 'descriptor-fetch', off, addr, 16);
    return -1;
  }
  const w0 = reg.dv.getUint32(addr - reg.base, true);
  const got = (w0 >>> LEN_CTRL.RING_ID_SHIFT) & 3;
  if (got !== rid) {
    stall(c, half, q, 'ring-id', off, addr, rid, got);
    return -1;
  }
  c.fetched = reg;
  c.fetchedAt = addr - reg.base;
  return w0;
}

/**
 * Looks at queue q's head packet: counts its TX descriptors and bytes, checks ring ids, and
 * checks that the RX ring of the same queue can take it. Sets pktState (READY or WAIT); may
 * stall the queue or abort the engine.
 */
export function scanHead(c: UdmaCore, q: number): void {
  const M = c.M;
  const mw = c.mw;
  const tx = c.tx;
  const rx = c.rx;
  c.pktState[q] = PKT_WAIT;
  const r = M.q[q];
  const len = r.len.read(mw);
  const pending = pendingOf(tx, q, len);
  if (pending === 0) return;
  const base = ringBase(r, mw);
  const maxDesc = M.maxDescPerPkt.read(mw) || Infinity;
  let off = tx.headOff[q];
  let rid = tx.headRid[q];
  let bytes = 0;
  let k = 0;
  for (;;) {
    if (k === pending) return; // the packet's LAST descriptor has not been handed over yet
    if (k === maxDesc) {
      stall(c, 'm2s', q, 'packet-too-long', off, base + off * 16, maxDesc, k + 1);
      return;
    }
    const w0 = fetchDesc(c, 'm2s', q, base, off, rid);
    if (w0 < 0) return;
    bytes += c.txLen(w0);
    k++;
    if (++off >= len) {
      off = 0;
      rid = (rid + 1) & 3;
    }
    if ((w0 & LEN_CTRL.LAST) !== 0) break;
  }
  // The RX side must be ready and hold buffers for all of it.
  const sw = c.sw;
  const sr = c.S.q[q];
  if (!sr.enables[0].isSet(sw) || rx.stalled[q] !== 0) return;
  const rlen = sr.len.read(sw);
  const rpending = pendingOf(rx, q, rlen);
  const rbase = ringBase(sr, sw);
  let roff = rx.headOff[q];
  let rrid = rx.headRid[q];
  let room = 0;
  let m = 0;
  do {
    if (m === rpending) return; // not enough RX buffers yet
    const w0 = fetchDesc(c, 's2m', q, rbase, roff, rrid);
    if (w0 < 0) return;
    room += w0 & LEN_CTRL.LEN_MASK || 65536;
    m++;
    if (++roff >= rlen) {
      roff = 0;
      rrid = (rrid + 1) & 3;
    }
  } while (room < bytes);
  c.pktDescs[q] = k;
  c.pktBytes[q] = bytes;
  c.pktState[q] = PKT_READY;
}

/**
 * Moves queue q's head packet (scanned READY). Stops at the first fault, with every byte before
 * it landed and none after. Returns the bytes moved, or -1 when it stopped on a fault or stall.
 */
export function servePacket(c: UdmaCore, q: number): number {
  const M = c.M;
  const S = c.S;
  const mw = c.mw;
  const sw = c.sw;
  const tx = c.tx;
  const rx = c.rx;
  const mem = c.mem;
  const r = M.q[q];
  const sr = S.q[q];
  const tlen = r.len.read(mw);
  const rlen = sr.len.read(sw);
  const tbase = ringBase(r, mw);
  const rbase = ringBase(sr, sw);
  const nTx = c.pktDescs[q];
  c.pktState[q] = PKT_UNKNOWN;

  let rxLoaded = false;
  let rxBuf = 0;
  let rxCap = 0;
  let rxFill = 0;
  let rxFirst = true;
  let rxW0 = 0;
  let moved = 0;
  for (let i = 0; i < nTx; i++) {
    const off = tx.headOff[q];
    // Rewritten under the engine since the scan: the ring-id check stalls the queue.
    const w0 = fetchDesc(c, 'm2s', q, tbase, off, tx.headRid[q]);
    if (w0 < 0) return -1;
    const dv = c.fetched!.dv;
    const dp = c.fetchedAt;
    const l = c.txLen(w0);
    const src = dv.getUint32(dp + 8, true) + dv.getUint32(dp + 12, true) * TWO_POW_32;
    let sreg: MemoryRegion | undefined;
    if (l > 0) {
      sreg = mem.find(src, l);
      // a buffer across the seam of two adjacent regions is mapped: copied piece by piece
      if (sreg === undefined && mem.firstUnmapped(src, l) >= 0) {
        fault(c, 'm2s', q, 'data', off, firstUnmapped(mem, src, l), l);
        return -1;
      }
    }
    let so = src - (sreg === undefined ? 0 : sreg.base);
    let sa = src;
    let remaining = l;
    while (remaining > 0) {
      if (!rxLoaded) {
        rxW0 = fetchDesc(c, 's2m', q, rbase, rx.headOff[q], rx.headRid[q]);
        if (rxW0 < 0) return -1;
        const rdv = c.fetched!.dv;
        const rp = c.fetchedAt;
        rxCap = rxW0 & LEN_CTRL.LEN_MASK || 65536;
        rxBuf = rdv.getUint32(rp + 8, true) + rdv.getUint32(rp + 12, true) * TWO_POW_32;
        rxFill = 0;
        rxLoaded = true;
      }
      const k = Math.min(remaining, rxCap - rxFill);
      const dst = rxBuf + rxFill;
      const dreg = mem.find(dst, k);
      if (dreg !== undefined && sreg !== undefined) {
        copyBytes(sreg, so, dreg, dst - dreg.base, k);
      } else if (mem.firstUnmapped(dst, k) < 0) {
        copySpanning(mem, sa, dst, k);
      } else {
        fault(c, 's2m', q, 'data', rx.headOff[q], firstUnmapped(mem, dst, k), k);
        return -1;
      }
      so += k;
      sa += k;
      remaining -= k;
      rxFill += k;
      moved += k;
      if (rxFill === rxCap && (remaining > 0 || i < nTx - 1)) {
        if (!completeRx(c, q, rxW0, rxFill, rxFirst, false, rlen)) return -1;
        rxFirst = false;
        rxLoaded = false;
      }
    }
    if (!completeTx(c, q, w0, l, tlen)) return -1;
  }
  // Packet end: the current RX descriptor closes the packet (a packet of 0 bytes still takes one).
  if (!rxLoaded) {
    const raddr = rbase + rx.headOff[q] * 16;
    const rreg = descRegion(c, raddr)!;
    rxW0 = rreg.dv.getUint32(raddr - rreg.base, true);
    rxFill = 0;
  }
  if (!completeRx(c, q, rxW0, rxFill, rxFirst, true, rlen)) return -1;
  tx.packets[q]++;
  rx.packets[q]++;
  return moved;
}
