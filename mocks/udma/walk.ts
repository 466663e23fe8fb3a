/**
 * The packet walk of the mock UDMA engine: the move of a granted packet from the descriptors the
 * prefetch decoded (prefetch.ts), TX buffers streamed into the RX buffers of the same queue index
 * (one walk over both FIFOs), each descriptor consumed through completion.ts.
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import type { MemoryRegion } from '../memory.ts';
import type { UdmaCore } from './core.ts';
import { completeRx, completeTx, type CompletionSide } from './completion.ts';
import { fault } from './faults.ts';
import { copyBytes, copySpanning, firstUnmapped } from './memory-access.ts';
import type { DescFifo } from './prefetch.ts';

/**
 * Moves queue q's head packet: its `nTx` TX descriptors are the first entries of the TX FIFO,
 * and the RX FIFO holds buffers for all its bytes (the pipeline checked both). The bytes stream
 * into the RX buffers, a packet always starting in a fresh RX descriptor and closing the one it
 * ends in. Stops at the first fault, with every byte before it landed and none after. Returns the
 * bytes moved, or -1 when it stopped on a fault.
 */
export function servePacket(
  c: UdmaCore,
  q: number,
  nTx: number,
  txf: DescFifo,
  rxf: DescFifo,
  m2sSide: CompletionSide,
  s2mSide: CompletionSide,
): number {
  const mw = c.mw;
  const sw = c.sw;
  const tx = c.tx;
  const rx = c.rx;
  const mem = c.mem;
  const tlen = c.M.q[q].len.read(mw);
  const rlen = c.S.q[q].len.read(sw);
  let sLast = c.srcRegion;
  let dLast = c.dstRegion;
  let rxLoaded = false;
  let rxBuf = 0;
  let rxCap = 0;
  let rxFill = 0;
  let rxFirst = true;
  let rxW0 = 0;
  let moved = 0;
  for (let i = 0; i < nTx; i++) {
    const off = tx.headOff[q];
    const w0 = txf.w0At(q, 0);
    const src = txf.addrAt(q, 0);
    const l = c.txLen(w0);
    let sreg: MemoryRegion | undefined;
    if (l > 0) {
      sreg = sLast !== null && src >= sLast.base && src + l <= sLast.end ? sLast : mem.find(src, l);
      if (sreg !== undefined) sLast = sreg;
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
        rxW0 = rxf.w0At(q, 0);
        rxBuf = rxf.addrAt(q, 0);
        rxCap = rxW0 & LEN_CTRL.LEN_MASK || 65536;
        rxFill = 0;
        rxLoaded = true;
      }
      const k = Math.min(remaining, rxCap - rxFill);
      const dst = rxBuf + rxFill;
      const dreg =
        dLast !== null && dst >= dLast.base && dst + k <= dLast.end ? dLast : mem.find(dst, k);
      if (dreg !== undefined) dLast = dreg;
      c.srcRegion = sLast;
      c.dstRegion = dLast;
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
        rxf.shift(q, rxCap);
        if (!completeRx(c, s2mSide, q, rxW0, rxFill, rxFirst, false, rlen)) return -1;
        rxFirst = false;
        rxLoaded = false;
      }
    }
    txf.shift(q, l);
    if (!completeTx(c, m2sSide, q, w0, l, tlen)) return -1;
  }
  // Packet end: the current RX descriptor closes the packet (a packet of 0 bytes still takes one).
  if (!rxLoaded) {
    rxW0 = rxf.w0At(q, 0);
    rxCap = rxW0 & LEN_CTRL.LEN_MASK || 65536;
    rxFill = 0;
  }
  rxf.shift(q, rxCap);
  if (!completeRx(c, s2mSide, q, rxW0, rxFill, rxFirst, true, rlen)) return -1;
  tx.packets[q]++;
  rx.packets[q]++;
  return moved;
}
