/**
 * The streaming path of the mock UDMA pipeline: the steps of arbitration.ts for a run of
 * single-descriptor packets, taken without re-deciding what cannot change. It serves exactly the
 * packets, in exactly the order, with exactly the prefetch grants, head pointers, counters,
 * arbiter state (round-robin pointers, DWRR deficits), service-trace entries and cycles the
 * general `step()` produces; it only knows when the general decisions are foregone.
 *
 * When it runs. After a step served a packet on queue p, while
 * - the configuration is decoded, no rate limiter is armed and the engine has at most 31 queues
 *   (the scheduler is asked over the ready mask, in any of its modes: round robin, strict
 *   levels, DWRR);
 * - no completion entry waits and no queue with work updates its completion ring;
 * - every queue with work is a scheduler candidate (enabled, not stalled, not paused, its last
 *   fetch found a valid descriptor) whose head packet is one descriptor whose bytes fit its first
 *   RX buffer, both buffers inside one region each, whose rings each lie inside one region, and
 *   none but p would be granted a descriptor fetch (the prefetch filled them as far as its burst
 *   rules allow).
 * In that state every step is: the look at p's new head packet, p's descriptor fetches (the
 * prefetch arbiters' grants by the burst rules of burstFor; with one queue asking, the prefetch
 * arbiter's order decides nothing), the scheduler's grant (`Arbiter.select` over the candidates,
 * its inputs set as the general step sets them), and the granted packet moved within one region
 * on each side into one RX buffer. Every candidate's head packet was checked when it was looked
 * at, so the path checks each step's conditions before it changes anything (every descriptor the
 * fetches read included) and stops at the first step that does not fit (a packet of several
 * descriptors or RX buffers, a descriptor with a stale ring id, a buffer across a seam or
 * unmapped, an empty FIFO): the general step takes that one from the same state.
 *
 * Each descriptor is read from its ring once, when the prefetch grants it (the same moment the
 * general path fetches it, so a ring rewritten by a copy reads the same), and decoded into a
 * per-queue scratch ring; while the path runs it keeps only each FIFO's count and next fetch slot
 * besides, and writes the FIFO entries (and the head registers) once when it stops.
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import { inFlight, nextRingId } from '../../csr/formats/ring.ts';
import type { MemoryRegion } from '../memory.ts';
import { STAGE_SCHEDULER, W_CANDIDATE, W_OTHER, type ArbitrationPipeline } from './arbitration.ts';
import type { HalfConfig } from './config.ts';
import { TWO_POW_32, advanceSlot, writeHead, type HalfState } from './core.ts';
import { HeldRuns } from './held-runs.ts';
import { copyBytes } from './memory-access.ts';
import { FETCH_OK, type DescFifo } from './prefetch.ts';

const LAST = LEN_CTRL.LAST;
const LEN_MASK = LEN_CTRL.LEN_MASK;
const INT_EN = LEN_CTRL.INT_EN;
const RID_SHIFT = LEN_CTRL.RING_ID_SHIFT;

/** One half as the streaming path sees it: its FIFO, ring state, configuration and rings. */
class StreamHalf {
  readonly tx: boolean;
  readonly f: DescFifo;
  readonly st: HalfState;
  readonly cfg: HalfConfig;
  /** The region holding each queue's ring, and the ring's byte offset in it. */
  readonly reg: (MemoryRegion | undefined)[];
  readonly at: Float64Array;
  /** One step's prefetch grants (first slot, descriptors) and where they leave the fetch. */
  grants = new Int32Array(2 * 65);
  nextOff = 0;
  nextRid = 0;
  nextSeq = 0;
  /**
   * Per queue, its FIFO's descriptors in a ring of `cap` entries (word 0, buffer address), by a
   * running index: the head's is headSeq, the next fetched one's fetchSeq.
   */
  cap = 0;
  w0s = new Uint32Array(0);
  addrs = new Float64Array(0);
  readonly headSeq: Int32Array;
  readonly fetchSeq: Int32Array;

  constructor(tx: boolean, f: DescFifo, st: HalfState, cfg: HalfConfig, n: number) {
    this.tx = tx;
    this.f = f;
    this.st = st;
    this.cfg = cfg;
    this.reg = new Array<MemoryRegion | undefined>(n).fill(undefined);
    this.at = new Float64Array(n);
    this.headSeq = new Int32Array(n);
    this.fetchSeq = new Int32Array(n);
  }

  /** Scratch rings that hold a FIFO of `depth` entries (grown, never shrunk). */
  size(depth: number): void {
    if (this.cap > depth) return;
    let cap = 64;
    while (cap <= depth) cap *= 2;
    this.cap = cap;
    this.w0s = new Uint32Array(this.st.headOff.length * cap);
    this.addrs = new Float64Array(this.st.headOff.length * cap);
    this.grants = new Int32Array(2 * (depth + 1));
  }

  /** Index in w0s / addrs of queue q's entry at running index `seq`. */
  at2(q: number, seq: number): number {
    return q * this.cap + (seq & (this.cap - 1));
  }

  /** Copies queue q's FIFO entries into its scratch ring (the path starts). */
  load(q: number): void {
    const f = this.f;
    const n = f.count[q];
    this.headSeq[q] = 0;
    this.fetchSeq[q] = n;
    for (let i = 0; i < n; i++) {
      const k = this.at2(q, i);
      this.w0s[k] = f.w0At(q, i);
      this.addrs[k] = f.addrAt(q, i);
    }
  }
}

/** The streaming path's view of a pipeline (one per pipeline, reused). */
export class StreamScratch {
  readonly tx: StreamHalf;
  readonly rx: StreamHalf;
  /**
   * Per queue, the regions holding its head packet's source and destination buffers, noted when
   * the head was looked at (the grant then moves it without looking the regions up again).
   */
  readonly srcOf: (MemoryRegion | undefined)[];
  readonly dstOf: (MemoryRegion | undefined)[];
  /** The packets' copies, held back to move runs that continue one another at once. */
  readonly held: HeldRuns;

  constructor(p: ArbitrationPipeline) {
    this.tx = new StreamHalf(true, p.txFifo, p.c.tx, p.m2sCfg, p.c.queues);
    this.rx = new StreamHalf(false, p.rxFifo, p.c.rx, p.s2mCfg, p.c.queues);
    this.srcOf = new Array<MemoryRegion | undefined>(p.c.queues).fill(undefined);
    this.dstOf = new Array<MemoryRegion | undefined>(p.c.queues).fill(undefined);
    this.held = new HeldRuns(p.c.queues);
  }
}

/** True when the pipeline is in the state the streaming path starts from (see the banner). */
function canStream(p: ArbitrationPipeline, last: number, sc: StreamScratch): boolean {
  const c = p.c;
  const m = p.m2sCfg;
  const s = p.s2mCfg;
  if (c.queues > 31 || p.configDirty || m.anyRlArmed || !c.isRunning()) return false;
  if (p.m2sComp.pending !== 0 || p.s2mComp.pending !== 0) return false;
  const work = p.work;
  if (p.cand !== work || (work & (1 << last)) === 0 || (p.stale & work & ~(1 << last)) !== 0)
    return false;
  const tx = c.tx;
  const rx = c.rx;
  const txf = p.txFifo;
  const rxf = p.rxFifo;
  for (let b = work; b !== 0; b &= b - 1) {
    const q = 31 - Math.clz32(b & -b);
    if (q >= c.S.queues || p.headDescs[q] !== 1 || p.why[q] !== W_CANDIDATE) return false;
    if (m.prefEnabled[q] === 0 || m.schedEnabled[q] === 0 || m.paused[q] !== 0) return false;
    if (s.prefEnabled[q] === 0 || tx.stalled[q] !== 0 || rx.stalled[q] !== 0) return false;
    if (m.compEnabled[q] !== 0 || s.compEnabled[q] !== 0) return false;
    if (txf.blocked[q] !== FETCH_OK || rxf.blocked[q] !== FETCH_OK) return false;
    // (an RX FIFO may hold more than the depth after fetching for a large packet)
    if (txf.count[q] > m.fifoDepth || rxf.count[q] > m.fifoDepth) return false;
    // No grant for any queue but `last` (burstFor never < 0 for a candidate).
    if (q !== last && (p.burstFor(txf, tx, m, q, true) > 0 || p.burstFor(rxf, rx, s, q, false) > 0))
      return false;
    if (!ringIn(p, sc.tx, q) || !ringIn(p, sc.rx, q)) return false;
  }
  for (const h of [sc.tx, sc.rx]) {
    h.size(m.fifoDepth);
    for (let b = work; b !== 0; b &= b - 1) h.load(31 - Math.clz32(b & -b));
  }
  // Every candidate's head packet: bytes, one RX buffer holding them, both buffers in a region.
  // (`last`'s new head is looked at by the path's first step)
  for (let b = work & ~(1 << last); b !== 0; b &= b - 1) {
    const q = 31 - Math.clz32(b & -b);
    const len = p.headBytes[q];
    const te = sc.tx.at2(q, 0);
    const re = sc.rx.at2(q, 0);
    if (len === 0 || (sc.rx.w0s[re] & LEN_MASK || 65536) < len) return false;
    const sr = regionOf(p, c.srcRegion, sc.tx.addrs, te, len);
    if (sr === undefined) return false;
    const dr = regionOf(p, c.dstRegion, sc.rx.addrs, re, len);
    if (dr === undefined) return false;
    sc.srcOf[q] = sr;
    sc.dstOf[q] = dr;
  }
  return true;
}

/** Notes the region holding queue q's ring on one half; false when no one region holds it. */
function ringIn(p: ArbitrationPipeline, h: StreamHalf, q: number): boolean {
  const len = h.cfg.ringLen[q];
  const base = h.cfg.ringBase[q];
  const reg = len === 0 ? undefined : p.c.mem.find(base, len * 16);
  if (reg === undefined) return false;
  h.reg[q] = reg;
  h.at[q] = base - reg.base;
  return true;
}

/**
 * The grants the prefetch of one half makes for queue q in one step (burstFor's rules, with the
 * FIFO holding what it holds), each descriptor checked: written to `h.grants`. Returns the number
 * of grants, or -1 when a descriptor they would read has a stale ring id or lies past the ring.
 */
function grantsFor(h: StreamHalf, depth: number, q: number): number {
  const { f, st, cfg } = h;
  const g = h.grants;
  const len = cfg.ringLen[q];
  const dv = h.reg[q]!.dv;
  const at = h.at[q];
  const w0s = h.w0s;
  const addrs = h.addrs;
  const tail = st.tailOff[q];
  const tailRid = st.tailRid[q];
  let count = f.count[q];
  let off = f.fetchOff[q];
  let rid = f.fetchRid[q];
  let seq = h.fetchSeq[q];
  let n = 0;
  for (;;) {
    // (room below the least burst: no grant, whatever is handed over)
    const room = depth - count;
    if (room <= 0) break;
    const least = cfg.minBurst(count);
    if (room < least) break;
    const avail = inFlight(len, tail, tailRid, off, rid);
    if (avail === 0) break;
    const k = Math.min(avail, room, cfg.maxBurst);
    if (k < least) break;
    g[2 * n] = off;
    g[2 * n + 1] = k;
    n++;
    count += k;
    for (let j = 0; j < k; j++) {
      if (off >= len) return -1;
      const o = at + off * 16;
      const w0 = dv.getUint32(o, true);
      if (((w0 >>> RID_SHIFT) & 3) !== rid) return -1;
      // Decoded once, into the entry it will be (taken only if the step goes ahead).
      const e = h.at2(q, seq++);
      w0s[e] = w0;
      addrs[e] = dv.getUint32(o + 8, true) + dv.getUint32(o + 12, true) * TWO_POW_32;
      if (++off === len) {
        off = 0;
        rid = nextRingId(rid);
      }
    }
  }
  h.nextOff = off;
  h.nextRid = rid;
  h.nextSeq = seq;
  return n;
}

/** Applies `n` grants of `h.grants` to queue q's FIFO count and next fetch slot (and the log). */
function applyGrants(p: ArbitrationPipeline, h: StreamHalf, q: number, n: number): void {
  const { f, grants: g } = h;
  (h.tx ? p.txPref : p.rxPref).pickAlone(q);
  if (p.c.trace.enabled) {
    const log = p.prefetches;
    if (!log.storing) log.skip(n);
    else
      for (let i = 0; i < n; i++)
        log.record(h.tx ? 'm2s' : 's2m', q, g[2 * i], p.c.cycle, g[2 * i + 1]);
  }
  f.count[q] += h.nextSeq - h.fetchSeq[q];
  h.fetchSeq[q] = h.nextSeq;
  f.fetchOff[q] = h.nextOff;
  f.fetchRid[q] = h.nextRid;
}

/** Writes queue q's FIFO entries from its scratch ring (the path stops). */
function refill(h: StreamHalf, q: number, zeroIs64k: boolean): void {
  const { f, st, cfg, tx } = h;
  const len = cfg.ringLen[q];
  const n = f.count[q];
  f.clearEntries(q);
  let slot = st.headOff[q];
  for (let i = 0; i < n; i++) {
    const e = h.at2(q, h.headSeq[q] + i);
    const w0 = h.w0s[e];
    f.push(q, w0, h.addrs[e], slot, w0 & LEN_MASK || (tx && !zeroIs64k ? 0 : 65536));
    if (++slot === len) slot = 0;
  }
}

/**
 * The region holding [addr, addr + n) (`hint` first), or undefined; addr is addrs[e] (read here,
 * so that no address is boxed to be passed when the call is not inlined).
 */
function regionOf(
  p: ArbitrationPipeline,
  hint: MemoryRegion | null,
  addrs: Float64Array,
  e: number,
  n: number,
) {
  const addr = addrs[e];
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
  if (q < 0 || budget <= 0) return 0;
  const sc = (p.streamScratch ??= new StreamScratch(p));
  if (!canStream(p, q, sc)) return 0;
  const c = p.c;
  const m = p.m2sCfg;
  const s = p.s2mCfg;
  const tx = c.tx;
  const rx = c.rx;
  const txf = p.txFifo;
  const rxf = p.rxFifo;
  const arb = p.arbiter;
  const depth = m.fifoDepth;
  const zeroIs64k = c.M.encode64k.isSet(c.mw);
  // (a trace that stores nothing only counts: its entries are counted when the path stops; one
  // that stores may reach its limit on the way, which record() then counts)
  const storing = c.trace.storing;
  let skipped = 0;
  // The scratch rings (both halves have the same geometry; sized by canStream).
  const cap = sc.tx.cap;
  const mask = cap - 1;
  const tw0s = sc.tx.w0s;
  const rw0s = sc.rx.w0s;
  const taddrs = sc.tx.addrs;
  const raddrs = sc.rx.addrs;
  const tSeq = sc.tx.headSeq;
  const rSeq = sc.rx.headSeq;
  const maskOnly = p.maskOnly;
  const srcOf = sc.srcOf;
  const dstOf = sc.dstOf;
  // (the copies held back where no two regions alias and the rings lie in at most two regions)
  const held = sc.held;
  const hold = held.usable(c.mem.regions(), [...sc.tx.reg, ...sc.rx.reg]);
  let sReg = c.srcRegion;
  let dReg = c.dstRegion;
  let servedQueues = 0;
  let touched = 1 << q;
  let served = 0;
  try {
    while (served < budget) {
      const bit = 1 << q;
      // -- Everything this step needs, checked before anything changes. --
      // The look at q's new head packet (classify): drained, or one descriptor whose bytes fit one
      // RX buffer, both buffers inside a region (every other candidate's head was checked so).
      const drained = tx.tailOff[q] === tx.headOff[q] && tx.tailRid[q] === tx.headRid[q];
      let len = 0;
      if (!drained) {
        if (txf.count[q] === 0 || rxf.count[q] === 0) break;
        const te = q * cap + (tSeq[q] & mask);
        const re = q * cap + (rSeq[q] & mask);
        const w0 = tw0s[te];
        if ((w0 & LAST) === 0) break;
        len = w0 & LEN_MASK || (zeroIs64k ? 65536 : 0);
        if (len === 0) break;
        if ((rw0s[re] & LEN_MASK || 65536) < len) break; // (its FIFO's RX bytes then cover it)
        const qsr = regionOf(p, sReg, taddrs, te, len);
        if (qsr === undefined) break;
        const qdr = regionOf(p, dReg, raddrs, re, len);
        if (qdr === undefined) break;
        srcOf[q] = qsr;
        dstOf[q] = qdr;
      }
      const cand = drained ? p.cand & ~bit : p.cand;
      if (cand === 0) break;
      // q's fetches, as the prefetch will grant them, every descriptor they read valid.
      let txGrants = 0;
      let rxGrants = 0;
      if (!drained) {
        // (most steps: the room is below the least burst, no grant)
        const tc = txf.count[q];
        const rc = rxf.count[q];
        txGrants = depth - tc >= m.minBurst(tc) ? grantsFor(sc.tx, depth, q) : 0;
        if (txGrants < 0) break;
        rxGrants = depth - rc >= s.minBurst(rc) ? grantsFor(sc.rx, depth, q) : 0;
        if (rxGrants < 0) break;
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
        p.headBytes[q] = len;
      }
      // The TX prefetch, then the RX prefetch: only q may be granted.
      if ((p.work & p.txCheck) !== 0) {
        if (txGrants > 0) {
          applyGrants(p, sc.tx, q, txGrants);
          p.rxCheck |= bit; // a candidate fetched for: its head packet stands
          touched |= bit;
        }
        p.txCheck = txGrants > 0 ? bit : 0;
      }
      if ((p.work & p.rxCheck) !== 0) {
        if (rxGrants > 0) {
          applyGrants(p, sc.rx, q, rxGrants);
          touched |= bit;
        }
        p.rxCheck = rxGrants > 0 ? bit : 0;
      }
      // The scheduler's grant (its inputs as the general step sets them) and the packet walk
      // (walk.ts for one descriptor on each side).
      if (!maskOnly) {
        p.setReady(cand);
        if (!drained) arb.cost[q] = len;
      }
      const n = maskOnly ? arb.selectRoundRobin(cand) : arb.select(p.mode, cand);
      const nLen = p.headBytes[n];
      const te = n * cap + (tSeq[n] & mask);
      const re = n * cap + (rSeq[n] & mask);
      const txW0 = tw0s[te];
      const rxW0 = rw0s[re];
      // (noted when n's head was looked at, which for q was this step)
      const nsr = srcOf[n]!;
      const ndr = dstOf[n]!;
      c.srcRegion = sReg = nsr;
      c.dstRegion = dReg = ndr;
      if (hold) held.copy(n, nsr, taddrs[te] - nsr.base, ndr, raddrs[re] - ndr.base, nLen);
      else copyBytes(nsr, taddrs[te] - nsr.base, ndr, raddrs[re] - ndr.base, nLen);
      txf.count[n]--;
      tSeq[n]++;
      advanceSlot(tx.headOff, tx.headRid, n, m.ringLen[n]);
      tx.descs[n]++;
      tx.bytes[n] += nLen;
      if ((txW0 & INT_EN) !== 0) tx.interrupts[n]++;
      rxf.count[n]--;
      rSeq[n]++;
      advanceSlot(rx.headOff, rx.headRid, n, s.ringLen[n]);
      rx.descs[n]++;
      rx.bytes[n] += nLen;
      if ((rxW0 & INT_EN) !== 0) rx.interrupts[n]++;
      tx.packets[n]++;
      rx.packets[n]++;
      const start = c.cycle;
      c.cycle += 1 + c.byteCycles(nLen);
      c.packetsServed++;
      if (storing) c.trace.record(c.engine, n, nLen, 1, start, c.cycle, m.qQos[n], STAGE_SCHEDULER);
      else skipped++;
      const nb = 1 << n;
      p.stale |= nb;
      p.txCheck |= nb;
      p.rxCheck |= nb;
      p.lastServed = n;
      servedQueues |= nb;
      touched |= nb;
      served++;
      q = n;
    }
  } finally {
    // every packet's bytes in place before anyone looks at memory
    if (hold) held.flush();
  }
  // The FIFO entries and the head registers, as the general path keeps them.
  for (let b = touched; b !== 0; b &= b - 1) {
    const i = 31 - Math.clz32(b & -b);
    refill(sc.tx, i, zeroIs64k);
    refill(sc.rx, i, zeroIs64k);
  }
  for (let b = servedQueues; b !== 0; b &= b - 1) {
    const i = 31 - Math.clz32(b & -b);
    writeHead(tx, c.M.q[i], c.mw, i);
    writeHead(rx, c.S.q[i], c.sw, i);
  }
  if (skipped > 0) c.trace.skip(skipped);
  p.streamed += served;
  return served;
}
