/**
 * The streaming path of the mock UDMA pipeline: the steps of arbitration.ts for a run of
 * single-descriptor packets under the round-robin scheduler, taken without re-deciding what cannot
 * change. It serves exactly the packets, in exactly the order, with exactly the prefetch grants,
 * head pointers, counters, service-trace entries and cycles the general `step()` produces; it
 * only knows when the general decisions are foregone.
 *
 * When it runs. After a step served a packet on queue p, while
 * - the configuration is decoded, no rate limiter is armed and the scheduler is round robin over
 *   the ready mask (pref_force_rr, at most 31 queues);
 * - no completion entry waits and no queue with work updates its completion ring;
 * - every queue with work is a scheduler candidate (enabled, not stalled, not paused, its last
 *   fetch found a valid descriptor) whose head packet is one descriptor, and none but p would be
 *   granted a descriptor fetch (the prefetch filled them as far as its burst rules allow).
 * In that state every step is: the look at p's new head packet, p's descriptor fetches (the
 * prefetch arbiters' grants by the burst rules, burstFor and fetchBurst themselves), the
 * round-robin grant to the next candidate, and its packet moved within one region on each side
 * into one RX buffer. The path checks each step's conditions before it changes anything (every
 * descriptor the fetches may read included) and stops at the first step that does not fit (a
 * packet of several descriptors or RX buffers, a descriptor with a stale ring id or across a
 * region seam, a buffer across a seam or unmapped, an empty FIFO): the general step takes that one
 * from the same state.
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import { nextRingId } from '../../csr/formats/ring.ts';
import { nextBit } from './arbiter.ts';
import { STAGE_SCHEDULER, W_CANDIDATE, W_OTHER, type ArbitrationPipeline } from './arbitration.ts';
import { advanceHead } from './core.ts';
import { copyBytes } from './memory-access.ts';
import { FETCH_OK, fetchBurst, unfetched, type DescFifo } from './prefetch.ts';
import type { MemoryRegion } from '../memory.ts';

const LAST = LEN_CTRL.LAST;
const LEN_MASK = LEN_CTRL.LEN_MASK;
const INT_EN = LEN_CTRL.INT_EN;
const RID_SHIFT = LEN_CTRL.RING_ID_SHIFT;

/** True when the pipeline is in the state the streaming path starts from (see the banner). */
function canStream(p: ArbitrationPipeline, last: number): boolean {
  const c = p.c;
  const m = p.m2sCfg;
  const s = p.s2mCfg;
  if (!p.maskOnly || p.configDirty || m.anyRlArmed || !c.isRunning()) return false;
  if (p.m2sComp.pending !== 0 || p.s2mComp.pending !== 0) return false;
  const work = p.work;
  if (p.cand !== work || (work & (1 << last)) === 0 || (p.stale & work & ~(1 << last)) !== 0)
    return false;
  const tx = c.tx;
  const rx = c.rx;
  const txf = p.txFifo;
  const rxf = p.rxFifo;
  const depth = m.fifoDepth;
  for (let b = work; b !== 0; b &= b - 1) {
    const q = 31 - Math.clz32(b & -b);
    if (q >= c.S.queues || p.headDescs[q] !== 1 || p.why[q] !== W_CANDIDATE) return false;
    if (m.prefEnabled[q] === 0 || m.schedEnabled[q] === 0 || m.paused[q] !== 0) return false;
    if (s.prefEnabled[q] === 0 || tx.stalled[q] !== 0 || rx.stalled[q] !== 0) return false;
    if (m.compEnabled[q] !== 0 || s.compEnabled[q] !== 0) return false;
    if (txf.blocked[q] !== FETCH_OK || rxf.blocked[q] !== FETCH_OK) return false;
    // No grant for any queue but `last` (burstFor never < 0 for a candidate).
    if (q !== last && (p.burstFor(txf, tx, m, q, true) > 0 || p.burstFor(rxf, rx, s, q, false) > 0))
      return false;
  }
  return true;
}

/** The region holding [addr, addr + n) (`hint` first), or undefined. */
function regionOf(p: ArbitrationPipeline, hint: MemoryRegion | null, addr: number, n: number) {
  if (hint !== null && addr >= hint.base && addr + n <= hint.end) return hint;
  return p.c.mem.find(addr, n);
}

/**
 * Serves up to `budget` packets on the streaming path, starting right after a step that served a
 * packet on queue `p.lastServed`. Returns the packets served (0 when the state does not allow it);
 * the pipeline is left at the start of a step, as the general path would leave it.
 */
export function streamPackets(p: ArbitrationPipeline, budget: number): number {
  let q = p.lastServed;
  if (q < 0 || budget <= 0 || !canStream(p, q)) return 0;
  const c = p.c;
  const m = p.m2sCfg;
  const s = p.s2mCfg;
  const tx = c.tx;
  const rx = c.rx;
  const txf = p.txFifo;
  const rxf = p.rxFifo;
  const mw = c.mw;
  const sw = c.sw;
  const M = c.M;
  const S = c.S;
  const mem = c.mem;
  const arb = p.arbiter;
  const depth = m.fifoDepth;
  const log = c.trace.enabled;
  const zeroIs64k = M.encode64k.isSet(mw);
  let sReg = c.srcRegion;
  let dReg = c.dstRegion;
  let served = 0;
  while (served < budget) {
    const bit = 1 << q;
    // -- Everything this step needs, checked before anything changes. --
    // The look at q's new head packet (classify): drained, or one descriptor with its RX buffer.
    const drained = tx.tailOff[q] === tx.headOff[q] && tx.tailRid[q] === tx.headRid[q];
    let len = 0;
    if (!drained) {
      if (txf.count[q] === 0 || rxf.count[q] === 0) break;
      const w0 = txf.w0At(q, 0);
      if ((w0 & LAST) === 0) break;
      len = w0 & LEN_MASK || (zeroIs64k ? 65536 : 0);
      if (len === 0 || rxf.bytes[q] < len) break;
    }
    const cand = drained ? p.cand & ~bit : p.cand;
    if (cand === 0) break;
    // The grant and its packet: one TX descriptor into one RX buffer, each inside one region.
    const n = nextBit(cand, arb.lastRoundRobin);
    const nLen = n === q ? len : p.headBytes[n];
    if (nLen === 0) break;
    const rxW0 = rxf.w0At(n, 0);
    const cap = rxW0 & LEN_MASK || 65536;
    if (cap < nLen) break;
    const src = txf.addrAt(n, 0);
    const dst = rxf.addrAt(n, 0);
    const sr = regionOf(p, sReg, src, nLen);
    if (sr === undefined) break;
    const dr = regionOf(p, dReg, dst, nLen);
    if (dr === undefined) break;
    // q's fetches (as the prefetch will grant them): every descriptor they may read is valid.
    let txFirst = 0;
    let rxFirst = 0;
    if (!drained) {
      p.headBytes[q] = len; // what the look at q sets first (the RX burst rules read it)
      txFirst = p.burstFor(txf, tx, m, q, true);
      if (txFirst > 0) {
        const k = Math.min(unfetched(tx, txf, q, m.ringLen[q]), depth - txf.count[q]);
        if (!fetchable(p, txf, m.ringBase[q], m.ringLen[q], q, k)) break;
      }
      rxFirst = p.burstFor(rxf, rx, s, q, false);
      if (rxFirst > 0) {
        const k = Math.min(unfetched(rx, rxf, q, s.ringLen[q]), depth - rxf.count[q]);
        if (!fetchable(p, rxf, s.ringBase[q], s.ringLen[q], q, k)) break;
      }
    }
    // -- The step. --
    // classify: q's head packet.
    p.stale = 0;
    p.rxCheck |= bit;
    if (drained) {
      p.work &= ~bit;
      p.cand = cand;
      p.why[q] = W_OTHER;
      p.headBytes[q] = 0;
    } else {
      p.headDescs[q] = 1;
    }
    // The TX prefetch, then the RX prefetch: only q may be granted.
    if ((p.work & p.txCheck) !== 0) {
      let fetched = 0;
      for (let k = txFirst; k > 0; k = p.burstFor(txf, tx, m, q, true)) {
        p.txPref.pick(m, bit);
        const first = txf.fetchOff[q];
        fetchBurst(c, txf, m, q, k, true);
        if (log) p.prefetches.record('m2s', q, first, c.cycle, k);
        fetched = bit;
      }
      if (fetched !== 0) p.rxCheck |= bit; // a candidate fetched for: its head packet stands
      p.txCheck = fetched;
    }
    if ((p.work & p.rxCheck) !== 0) {
      let fetched = 0;
      for (let k = rxFirst; k > 0; k = p.burstFor(rxf, rx, s, q, false)) {
        p.rxPref.pick(s, bit);
        const first = rxf.fetchOff[q];
        fetchBurst(c, rxf, s, q, k, false);
        if (log) p.prefetches.record('s2m', q, first, c.cycle, k);
        fetched = bit;
      }
      p.rxCheck = fetched;
    }
    // The scheduler's grant and the packet walk (walk.ts for one descriptor on each side).
    arb.select(p.mode, cand);
    const txW = txf.w0At(n, 0);
    c.srcRegion = sReg = sr;
    c.dstRegion = dReg = dr;
    copyBytes(sr, src - sr.base, dr, dst - dr.base, nLen);
    txf.shift(n, nLen);
    advanceHead(tx, M.q[n], mw, n, m.ringLen[n]);
    tx.descs[n]++;
    tx.bytes[n] += nLen;
    if ((txW & INT_EN) !== 0) tx.interrupts[n]++;
    rxf.shift(n, cap);
    advanceHead(rx, S.q[n], sw, n, s.ringLen[n]);
    rx.descs[n]++;
    rx.bytes[n] += nLen;
    if ((rxW0 & INT_EN) !== 0) rx.interrupts[n]++;
    tx.packets[n]++;
    rx.packets[n]++;
    const start = c.cycle;
    c.cycle += 1 + Math.ceil(nLen / c.bytesPerCycle);
    c.packetsServed++;
    c.trace.record(c.engine, n, nLen, 1, start, c.cycle, m.qQos[n], STAGE_SCHEDULER);
    const nb = 1 << n;
    p.stale |= nb;
    p.txCheck |= nb;
    p.rxCheck |= nb;
    p.lastServed = n;
    served++;
    q = n;
  }
  p.streamed += served;
  return served;
}

/**
 * True when the next `k` descriptors of queue q's ring (from the FIFO's next fetch slot) each lie
 * in one region and carry the ring id the fetch expects: a fetch of them stops at none.
 */
function fetchable(
  p: ArbitrationPipeline,
  f: DescFifo,
  base: number,
  len: number,
  q: number,
  k: number,
): boolean {
  const mem = p.c.mem;
  let off = f.fetchOff[q];
  let rid = f.fetchRid[q];
  for (let i = 0; i < k; i++) {
    if (off >= len) return false;
    const a = base + off * 16;
    const reg = mem.find(a, 16);
    if (reg === undefined || ((reg.dv.getUint32(a - reg.base, true) >>> RID_SHIFT) & 3) !== rid)
      return false;
    if (++off === len) {
      off = 0;
      rid = nextRingId(rid);
    }
  }
  return true;
}
