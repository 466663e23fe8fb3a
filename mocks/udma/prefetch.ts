/**
 * The descriptor prefetch of one half of a mock UDMA engine (M2S_rd / S2M_rd, seed 004 §8.2):
 * per queue a FIFO of descriptors fetched from its ring and decoded once (word 0, the buffer
 * address, the ring slot), and the prefetch arbiter that decides which queue's descriptors are
 * fetched next.
 *
 * Per grant the arbiter fetches one burst for one queue (docs/mock-arbitration.md "Prefetch"):
 * - candidates: the queue's prefetch is enabled (M2S en_pref, S2M en_stream), it is not stalled,
 *   it has descriptors handed over and not yet fetched, and its FIFO has room; a queue whose FIFO
 *   holds fewer than `pref_thr` descriptors needs at least `min_burst_below_thr` of them (and the
 *   room), one at or above it `min_burst_above_thr`; when no queue qualifies so, those short of
 *   their minimum burst do (a partial burst beats waiting for descriptors that may never come);
 * - high-priority candidates first (AXI_M2S_MLA.high_priority.enable, M2S only);
 * - then round robin while `pref_force_rr` is 1, else the highest `cfg.AXI_qos` (ties in round
 *   robin);
 * - a burst is at most `max_desc_burst` descriptors (AXI_*.desc_rd_cfg_3), the room, and what was
 *   handed over. It stops before a descriptor with a stale ring id or in unmapped memory; that
 *   error is raised only when the queue needs the descriptor (nothing complete before it).
 *
 * Ready-queue masks (`prefMask`: queues the arbiter may consider) keep a grant O(candidates).
 */
import { LEN_CTRL, bdRingId } from '../../csr/formats/bd.ts';
import { RING_ID_MASK, inFlight, nextRingId } from '../../csr/formats/ring.ts';
import { nextBit } from './arbiter.ts';
import { TWO_POW_32, type HalfState, type UdmaCore } from './core.ts';
import type { HalfConfig } from './config.ts';
import { fault, stall } from './faults.ts';
import { descRegion } from './memory-access.ts';
import type { UdmaHalf } from './types.ts';

// The ring-id field of len_ctrl as plain module constants for the fetch loop (one check per
// descriptor, no call).
const RID_SHIFT = LEN_CTRL.RING_ID_SHIFT;
const RID = RING_ID_MASK;

/** What a fetch attempt found at the queue's next ring slot. */
export const FETCH_OK = 0;
export const FETCH_STALE = 1;
export const FETCH_UNMAPPED = 2;

/** The prefetched descriptors of one half's queues: one growable ring buffer per queue. */
export class DescFifo {
  readonly half: UdmaHalf;
  /** Per queue: word 0 (len_ctrl), buffer address, ring slot of each entry. */
  private w0: Uint32Array[] = [];
  private addr: Float64Array[] = [];
  private slot: Int32Array[] = [];
  /** Index of the first entry and number of entries. */
  readonly first: Int32Array;
  readonly count: Int32Array;
  /** Entries with LAST among those held (TX: complete packets). */
  readonly lasts: Int32Array;
  /** Sum of the entries' buffer sizes (RX: room in bytes). */
  readonly bytes: Float64Array;
  /** Next ring slot to fetch and its ring id. */
  readonly fetchOff: Int32Array;
  readonly fetchRid: Int32Array;
  /** What the last fetch attempt found at fetchOff (FETCH_*). */
  readonly blocked: Uint8Array;

  constructor(half: UdmaHalf, n: number) {
    this.half = half;
    this.first = new Int32Array(n);
    this.count = new Int32Array(n);
    this.lasts = new Int32Array(n);
    this.bytes = new Float64Array(n);
    this.fetchOff = new Int32Array(n);
    this.fetchRid = new Int32Array(n);
    this.blocked = new Uint8Array(n);
    for (let q = 0; q < n; q++) {
      this.w0.push(new Uint32Array(16));
      this.addr.push(new Float64Array(16));
      this.slot.push(new Int32Array(16));
    }
  }

  /** Empties queue q's FIFO; the next fetch reads slot `off` under ring id `rid`. */
  reset(q: number, off: number, rid: number): void {
    this.first[q] = 0;
    this.count[q] = 0;
    this.lasts[q] = 0;
    this.bytes[q] = 0;
    this.fetchOff[q] = off;
    this.fetchRid[q] = rid;
    this.blocked[q] = FETCH_OK;
  }

  /** Entry i (0 = the oldest) of queue q. */
  w0At(q: number, i: number): number {
    const a = this.w0[q];
    return a[(this.first[q] + i) & (a.length - 1)];
  }

  addrAt(q: number, i: number): number {
    const a = this.addr[q];
    return a[(this.first[q] + i) & (a.length - 1)];
  }

  slotAt(q: number, i: number): number {
    const a = this.slot[q];
    return a[(this.first[q] + i) & (a.length - 1)];
  }

  push(q: number, w0: number, addr: number, slot: number, size: number): void {
    let a = this.w0[q];
    if (this.count[q] === a.length) this.grow(q);
    a = this.w0[q];
    const i = (this.first[q] + this.count[q]) & (a.length - 1);
    a[i] = w0;
    this.addr[q][i] = addr;
    this.slot[q][i] = slot;
    this.count[q]++;
    this.bytes[q] += size;
    if ((w0 & LEN_CTRL.LAST) !== 0) this.lasts[q]++;
  }

  /** Empties queue q's entries, keeping where the next fetch reads (the streaming path refills). */
  clearEntries(q: number): void {
    this.first[q] = 0;
    this.count[q] = 0;
    this.lasts[q] = 0;
    this.bytes[q] = 0;
  }

  /** Drops the oldest entry of queue q, whose buffer size was `size`. */
  shift(q: number, size: number): void {
    const a = this.w0[q];
    if ((a[this.first[q]] & LEN_CTRL.LAST) !== 0) this.lasts[q]--;
    this.first[q] = (this.first[q] + 1) & (a.length - 1);
    this.count[q]--;
    this.bytes[q] -= size;
  }

  private grow(q: number): void {
    const n = this.w0[q].length;
    const w0 = new Uint32Array(n * 2);
    const addr = new Float64Array(n * 2);
    const slot = new Int32Array(n * 2);
    for (let i = 0; i < n; i++) {
      w0[i] = this.w0At(q, i);
      addr[i] = this.addrAt(q, i);
      slot[i] = this.slotAt(q, i);
    }
    this.w0[q] = w0;
    this.addr[q] = addr;
    this.slot[q] = slot;
    this.first[q] = 0;
  }
}

/** Descriptors handed over to queue q and not yet fetched. */
export function unfetched(st: HalfState, f: DescFifo, q: number, len: number): number {
  if (len === 0) return 0;
  return inFlight(len, st.tailOff[q], st.tailRid[q], f.fetchOff[q], f.fetchRid[q]);
}

/**
 * The prefetch arbiter of one half. `pick` chooses the queue to fetch for among `mask` (bit q:
 * a candidate) and keeps its round-robin pointer.
 */
export class PrefetchArbiter {
  private last = -1;

  reset(): void {
    this.last = -1;
  }

  forget(q: number): void {
    if (this.last === q) this.last = -1;
  }

  /**
   * `pick` over the one queue q asking (mask 1 << q): whatever the priorities, q is chosen and
   * the round-robin pointer moves to it.
   */
  pickAlone(q: number): number {
    this.last = q;
    return q;
  }

  pick(cfg: HalfConfig, mask: number): number {
    const hp = mask & cfg.highPriority;
    const m = hp !== 0 ? hp : mask;
    let q: number;
    if (cfg.prefForceRR) {
      q = nextBit(m, this.last);
    } else {
      // The highest AXI_qos among the candidates, then round robin among those.
      let best = -1;
      let level = 0;
      for (let b = m; b !== 0; b &= b - 1) {
        const i = 31 - Math.clz32(b & -b);
        const l = cfg.axiQos[i];
        if (best < 0 || l > level) {
          level = l;
          best = 0;
        }
      }
      let top = 0;
      for (let b = m; b !== 0; b &= b - 1) {
        const i = 31 - Math.clz32(b & -b);
        if (cfg.axiQos[i] === level) top |= 1 << i;
      }
      q = nextBit(top, this.last);
    }
    this.last = q;
    return q;
  }
}

/**
 * Fetches up to `n` descriptors of queue q into its FIFO: each is read once, its ring id checked
 * and decoded (word 0, buffer address, slot, buffer size). Stops before a stale or unmapped
 * descriptor and notes which (`blocked`). Returns the descriptors fetched.
 */
export function fetchBurst(
  c: UdmaCore,
  f: DescFifo,
  cfg: HalfConfig,
  q: number,
  n: number,
  tx: boolean,
): number {
  const base = cfg.ringBase[q];
  const len = cfg.ringLen[q];
  let off = f.fetchOff[q];
  let rid = f.fetchRid[q];
  let k = 0;
  f.blocked[q] = FETCH_OK;
  while (k < n) {
    // The run of slots up to the ring's end, read through one region when it lies in one.
    const run = Math.min(n - k, len - off);
    if (run <= 0) break; // a ring shortened under the engine: nothing valid to fetch
    const a0 = base + off * 16;
    const whole = c.mem.find(a0, run * 16);
    let got = 0;
    for (let j = 0; j < run; j++) {
      const a = a0 + j * 16;
      const reg = whole !== undefined ? whole : descRegion(c, a);
      if (reg === undefined) {
        f.blocked[q] = FETCH_UNMAPPED;
        break;
      }
      const dv = reg.dv;
      const p = a - reg.base;
      const w0 = dv.getUint32(p, true);
      if (((w0 >>> RID_SHIFT) & RID) !== rid) {
        f.blocked[q] = FETCH_STALE;
        break;
      }
      const buf = dv.getUint32(p + 8, true) + dv.getUint32(p + 12, true) * TWO_POW_32;
      const size = tx ? c.txLen(w0) : w0 & LEN_CTRL.LEN_MASK || 65536;
      f.push(q, w0, buf, off + j, size);
      got++;
    }
    k += got;
    off += got;
    if (off >= len) {
      off = 0;
      rid = nextRingId(rid);
    }
    if (got < run) break;
  }
  f.fetchOff[q] = off;
  f.fetchRid[q] = rid;
  return k;
}

/**
 * Raises the error the queue's next unfetched descriptor holds (the queue needs it now): a stale
 * ring id stalls the queue, an unmapped descriptor aborts the engine.
 */
export function raiseBlocked(c: UdmaCore, f: DescFifo, cfg: HalfConfig, q: number): void {
  const off = f.fetchOff[q];
  const addr = cfg.ringBase[q] + off * 16;
  if (f.blocked[q] === FETCH_UNMAPPED) {
    fault(c, f.half, q, 'descriptor-fetch', off, addr, 16);
    return;
  }
  const reg = descRegion(c, addr)!;
  const got = bdRingId(reg.dv.getUint32(addr - reg.base, true));
  stall(c, f.half, q, 'ring-id', off, addr, f.fetchRid[q], got);
}
