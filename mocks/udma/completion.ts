/**
 * Consuming a descriptor and the completion arbiter of one mock UDMA engine (M2S_comp /
 * S2M_comp, seed 004 §8.3; docs/mock-arbitration.md "Completion").
 *
 * A consumed descriptor moves the head and the counters at once. Its 16-byte completion entry
 * (when the queue's comp_cfg.en_comp_ring_update is set) gets its slot in the completion ring at
 * once (an unmapped slot aborts the engine then, with the head stopped at that descriptor), but is
 * written later, coalesced: it waits in the queue's completion FIFO until
 * - the queue's FIFO holds comp_fifo_depth entries, or the half's unacknowledged entries reach
 *   unack_fifo_depth (M2S_comp.cfg_1c), or
 * - the oldest waiting entry has waited cfg_coal.timer engine cycles, or
 * - the engine has nothing else to do (it does not wait the timer out on an idle engine),
 * and then every waiting entry of the half is written in the order the completion arbiter
 * grants: QoS by the queue's cfg.AXI_qos (highest first, ties in round robin) unless force_rr,
 * round robin with force_rr; with q_promotion the queue being written keeps the grant while it
 * has entries and its FIFO has at least q_free_min free entries. A queue with
 * comp_cfg.dis_comp_coal set has its entries written at once. Each write is logged in the
 * engine's completion log (CompletionLog) with the cycle it happened at.
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import { TWO_POW_32, advanceHead, advanceSlot, type HalfState, type UdmaCore } from './core.ts';
import type { HalfRefs } from './refs.ts';
import type { HalfConfig } from './config.ts';
import { fault } from './faults.ts';
import { descRegion, firstUnmapped } from './memory-access.ts';
import { nextBit } from './arbiter.ts';
import { DescFifo } from './prefetch.ts';
import type { UdmaHalf } from './types.ts';

/** One entry of an engine event log (a completion write or a prefetch grant). */
export interface CompletionLogEntry {
  half: UdmaHalf;
  queue: number;
  /** Ring slot: the completion entry written, or the first descriptor fetched. */
  slot: number;
  /** Engine cycle of the event. */
  cycle: number;
  /** Entries concerned (1 for a completion write; the burst for a prefetch grant). */
  count: number;
}

/**
 * Events of one engine in the order they happened (column-wise, bounded): completion writes
 * (`MockUdmaUnit.completions`) and prefetch grants (`MockUdmaUnit.prefetches`). A log follows the
 * device's service trace: it records while the trace is enabled, and keeps at most the trace's
 * `limit` entries (a device built with `serviceTrace: { limit: 0 }` keeps none), counting the
 * rest in `dropped`.
 */
export class CompletionLog {
  dropped = 0;
  private readonly trace: { readonly enabled: boolean; readonly limit: number };
  private n = 0;
  private half = new Uint8Array(1024);
  private queue = new Uint8Array(1024);
  private slot = new Int32Array(1024);
  private cycle = new Float64Array(1024);
  private count = new Uint16Array(1024);

  /** `trace`: the service trace whose setting and limit the log follows. */
  constructor(trace: { readonly enabled: boolean; readonly limit: number }) {
    this.trace = trace;
  }

  /** Largest number of entries kept (the service trace's). */
  get limit(): number {
    return this.trace.limit;
  }

  /** True when `record` stores an entry now (the trace enabled, the log below the limit). */
  get storing(): boolean {
    return this.trace.enabled && this.n < this.trace.limit;
  }

  /** What `n` calls of `record` do while it stores nothing (`storing` false). */
  skip(n: number): void {
    this.dropped += n;
  }

  get length(): number {
    return this.n;
  }

  record(half: UdmaHalf, queue: number, slot: number, cycle: number, count = 1): void {
    if (!this.storing) {
      this.dropped++;
      return;
    }
    if (this.n === this.half.length) {
      const k = this.n * 2;
      const g = <T extends Uint8Array | Uint16Array | Int32Array | Float64Array>(a: T, b: T): T => {
        b.set(a as never);
        return b;
      };
      this.half = g(this.half, new Uint8Array(k));
      this.queue = g(this.queue, new Uint8Array(k));
      this.slot = g(this.slot, new Int32Array(k));
      this.cycle = g(this.cycle, new Float64Array(k));
      this.count = g(this.count, new Uint16Array(k));
    }
    const i = this.n++;
    this.half[i] = half === 'm2s' ? 0 : 1;
    this.queue[i] = queue;
    this.slot[i] = slot;
    this.cycle[i] = cycle;
    this.count[i] = count;
  }

  entries(filter: { half?: UdmaHalf } = {}): CompletionLogEntry[] {
    const out: CompletionLogEntry[] = [];
    for (let i = 0; i < this.n; i++) {
      const half: UdmaHalf = this.half[i] === 0 ? 'm2s' : 's2m';
      if (filter.half !== undefined && filter.half !== half) continue;
      out.push({
        half,
        queue: this.queue[i],
        slot: this.slot[i],
        cycle: this.cycle[i],
        count: this.count[i],
      });
    }
    return out;
  }

  clear(): void {
    this.n = 0;
    this.dropped = 0;
  }
}

/**
 * The completion FIFOs and the completion arbiter of one half. Entries are kept as a DescFifo:
 * word 0 (ring id included), the entry's address, and the completion head register value after
 * the write (in `slot`).
 */
export class CompletionUnit {
  readonly half: UdmaHalf;
  readonly fifo: DescFifo;
  /** Queues with entries waiting (bit q). */
  pending = 0;
  /** Entries waiting, all queues. */
  waiting = 0;
  /** Cycle at which the oldest waiting entry of each queue was queued. */
  private readonly since: Float64Array;
  /** Ring slot of each waiting entry (parallel to the FIFO, for the log). */
  private readonly slots: DescFifo;
  private last = -1;

  constructor(half: UdmaHalf, n: number) {
    this.half = half;
    this.fifo = new DescFifo(half, n);
    this.slots = new DescFifo(half, n);
    this.since = new Float64Array(n);
  }

  /** Drops queue q's waiting entries (q_sw_ctrl.rst_q). */
  reset(q: number): void {
    this.waiting -= this.fifo.count[q];
    this.fifo.reset(q, 0, 0);
    this.slots.reset(q, 0, 0);
    this.pending &= ~(1 << q);
    if (this.last === q) this.last = -1;
  }

  /** Cycle of the oldest waiting entry (Infinity: none). */
  oldest(): number {
    let t = Infinity;
    for (let b = this.pending; b !== 0; b &= b - 1) {
      const q = 31 - Math.clz32(b & -b);
      if (this.since[q] < t) t = this.since[q];
    }
    return t;
  }

  queue(q: number, word: number, addr: number, head: number, slot: number, cycle: number): void {
    if (this.fifo.count[q] === 0) this.since[q] = cycle;
    this.fifo.push(q, word, addr, head, 0);
    this.slots.push(q, 0, 0, slot, 0);
    this.pending |= 1 << q;
    this.waiting++;
  }

  /** The queue the completion arbiter grants next among `pending` after `cur` (-1: none yet). */
  private pick(cfg: HalfConfig, cur: number): number {
    const f = this.fifo;
    if (
      cur >= 0 &&
      cfg.compPromotion &&
      f.count[cur] > 0 &&
      cfg.compFifoDepth - f.count[cur] >= cfg.compFreeMin
    ) {
      return cur;
    }
    let m = this.pending;
    if (!cfg.compForceRR) {
      let level = -1;
      for (let b = m; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        if (cfg.axiQos[q] > level) level = cfg.axiQos[q];
      }
      let top = 0;
      for (let b = m; b !== 0; b &= b - 1) {
        const q = 31 - Math.clz32(b & -b);
        if (cfg.axiQos[q] === level) top |= 1 << q;
      }
      m = top;
    }
    const q = nextBit(m, this.last);
    this.last = q;
    return q;
  }

  /** Writes every waiting entry in the arbiter's order. */
  flush(c: UdmaCore, cfg: HalfConfig, log: CompletionLog): void {
    const f = this.fifo;
    const w = c.wordsOf(this.half);
    const R = c.refsOf(this.half);
    let cur = -1;
    while (this.pending !== 0) {
      const q = this.pick(cfg, cur);
      const addr = f.addrAt(q, 0);
      writeEntry(c, addr, f.w0At(q, 0));
      const r = R.q[q];
      w[r.compHeadOffset.word] = f.slotAt(q, 0) >>> 0;
      if (c.trace.enabled) log.record(this.half, q, this.slots.slotAt(q, 0), c.cycle);
      f.shift(q, 0);
      this.slots.shift(q, 0);
      this.waiting--;
      if (f.count[q] === 0) this.pending &= ~(1 << q);
      cur = q;
    }
  }
}

/** Writes a 16-byte completion entry at a mapped address: word 0 = `word0`, words 1-3 zero. */
function writeEntry(c: UdmaCore, addr: number, word0: number): void {
  const reg = descRegion(c, addr)!;
  const p = addr - reg.base;
  reg.dv.setUint32(p, word0 >>> 0, true);
  reg.dv.setUint32(p + 4, 0, true);
  reg.dv.setUint32(p + 8, 0, true);
  reg.dv.setUint32(p + 12, 0, true);
  if (reg === c.seam) c.mem.write(addr, c.seam.bytes); // back across the seam
}

/** What consuming needs besides the core: the half's completion unit, config and the log. */
export interface CompletionSide {
  unit: CompletionUnit;
  cfg: HalfConfig;
  log: CompletionLog;
  /** The half's ring state, register references and register words. */
  st: HalfState;
  refs: HalfRefs;
  words: Uint32Array;
}

/**
 * Consumes the head descriptor (word 0 `w0`) of queue q on one half after `bytes` moved: the head
 * advances, the counters count it, and a completion entry with word 0 `compWord` is queued (or
 * written at once) when the queue's comp_cfg.en_comp_ring_update is set. False on a fault.
 */
function consume(
  c: UdmaCore,
  side: CompletionSide,
  q: number,
  w0: number,
  bytes: number,
  compWord: number,
  len: number,
): boolean {
  const half = side.unit.half;
  const st = side.st;
  const r = side.refs.q[q];
  const w = side.words;
  const off = advanceHead(st, r, w, q, len);
  st.descs[q]++;
  st.bytes[q] += bytes;
  if ((w0 & LEN_CTRL.INT_EN) !== 0) st.interrupts[q]++;
  if (side.cfg.compEnabled[q] === 0) return true;
  // The entry's slot in the completion ring, which has as many entries as the descriptor ring.
  const base = r.compLo.bits(w) + r.compHi.read(w) * TWO_POW_32;
  const slot = st.compOff[q];
  const addr = base + slot * 16;
  if (descRegion(c, addr) === undefined) {
    fault(c, half, q, 'completion', off, firstUnmapped(c.mem, addr, 16), 16);
    return false;
  }
  const word = (compWord | (st.compRid[q] << LEN_CTRL.RING_ID_SHIFT)) >>> 0;
  advanceSlot(st.compOff, st.compRid, q, len);
  const head =
    (r.compHeadOffset.place(st.compOff[q]) | r.compHeadRingId.place(st.compRid[q])) >>> 0;
  const u = side.unit;
  if (side.cfg.compNoCoal[q] !== 0) {
    writeEntry(c, addr, word);
    w[r.compHeadOffset.word] = head;
    if (c.trace.enabled) side.log.record(half, q, slot, c.cycle);
    return true;
  }
  u.queue(q, word, addr, head, slot, c.cycle);
  if (u.fifo.count[q] >= side.cfg.compFifoDepth || u.waiting >= side.cfg.unackFifoDepth) {
    u.flush(c, side.cfg, side.log);
  }
  return true;
}

/** Consumes the TX head descriptor: its completion entry echoes its len, first and last. */
export function completeTx(
  c: UdmaCore,
  side: CompletionSide,
  q: number,
  w0: number,
  bytes: number,
  len: number,
): boolean {
  const word = w0 & (LEN_CTRL.LEN_MASK | LEN_CTRL.FIRST | LEN_CTRL.LAST);
  return consume(c, side, q, w0, bytes, word, len);
}

/** Consumes the RX head descriptor after `filled` bytes landed in it. False on a fault. */
export function completeRx(
  c: UdmaCore,
  side: CompletionSide,
  q: number,
  w0: number,
  filled: number,
  first: boolean,
  last: boolean,
  len: number,
): boolean {
  const word =
    (filled & LEN_CTRL.LEN_MASK) | (first ? LEN_CTRL.FIRST : 0) | (last ? LEN_CTRL.LAST : 0);
  return consume(c, side, q, w0, filled, word, len);
}
