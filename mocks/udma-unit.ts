/**
 * One mock UDMA engine: its M2S (TX) and S2M (RX) register files built from the schemas and the
 * engine that executes their rings (docs/mock.md, docs/mock-arbitration.md).
 *
 * Data path. A copy on queue q is a TX ring on M2S_Q[q] and an RX ring on S2M_Q[q]. The M2S
 * arbiter picks a queue whose head packet (TX descriptors up to the one with LAST) is complete
 * and whose RX ring holds enough buffer space for it; the packet's bytes are streamed into the RX
 * buffers of the same queue index, a packet always starting in a fresh RX descriptor. Heads
 * advance per descriptor; completion entries are written when comp_cfg.en_comp_ring_update is
 * set. One `step()` serves one packet; nothing runs while either half is not in the normal state.
 *
 * Failures are the device's, never exceptions: a descriptor whose ring id differs from the phase
 * the engine expects stalls its queue (and sets the queue's ring-id error status); an access to
 * unmapped memory (ring, buffer or completion ring) aborts the engine: both halves' `state`
 * fields show abort, the queue's status shows the fault, `faults` records it, and no byte lands
 * past the faulting descriptor chunk.
 */
import { LEN_CTRL } from '../csr/formats/bd.ts';
import type { UdmaUnitIO } from '../csr/io.ts';
import type { RegFileModel } from '../csr/schema/model.ts';
import { hex } from '../common/errors.ts';
import { Arbiter, type ArbiterMode } from './arbiter.ts';
import { MemoryRegion, type MockMemory } from './memory.ts';
import { MockRegisterFile, type RegisterAccessEvent } from './register-file.ts';
import type { ServiceTrace } from './service-trace.ts';
import { m2sRefs, s2mRefs, type HalfRefs, type M2SRefs, type RingRefs } from './udma-refs.ts';

/**
 * The mock's encoding of the per-queue `status` word (M2S_Q[q].status, S2M_Q[q].status). The
 * schema knows the register only as a whole word, so these bits are the mock's own: sticky error
 * bits cleared by q_sw_ctrl.rst_q, and STALLED while the queue waits on an error.
 */
export const MOCK_QUEUE_STATUS = {
  /** A descriptor carried a ring id other than the expected phase (unless err_log_mask masks it). */
  RING_ID_ERROR: 1 << 0,
  /** A descriptor fetch hit unmapped memory (the ring is not mapped). */
  DESC_FETCH_FAULT: 1 << 1,
  /** A data buffer (source or destination) is not mapped. */
  DATA_FAULT: 1 << 2,
  /** A completion entry could not be written (the completion ring is not mapped). */
  COMPLETION_FAULT: 1 << 3,
  /** No LAST within M2S_rd.desc_pref_cfg_2.max_desc_per_pkt descriptors. */
  PKT_TOO_LONG: 1 << 4,
  /** The queue is stopped on one of the errors above. */
  STALLED: 1 << 8,
} as const;

export type UdmaHalf = 'm2s' | 's2m';

export type UdmaFaultKind =
  'ring-id' | 'descriptor-fetch' | 'data' | 'completion' | 'packet-too-long';

/** One error the engine raised (also visible in the status registers). */
export interface UdmaFault {
  engine: number;
  half: UdmaHalf;
  queue: number;
  kind: UdmaFaultKind;
  /** True when the engine was aborted (memory faults); false for a queue stall. */
  aborted: boolean;
  /** Ring offset (descriptor index) of the descriptor concerned. */
  descriptor: number;
  /** Faulting address (unmapped memory) or the descriptor's address (ring id, packet length). */
  address: number;
  length: number;
  expected?: number;
  actual?: number;
  /** Engine cycle. */
  cycle: number;
  message: string;
}

export interface QueueCounters {
  bytes: number;
  descriptors: number;
  packets: number;
  /** Descriptors completed with int_en set. */
  interrupts: number;
}

export interface RingPosition {
  headOffset: number;
  headRingId: number;
  tailOffset: number;
  tailRingId: number;
  /** Descriptors handed over by doorbells and not yet consumed. */
  pending: number;
}

export interface QueueStats {
  queue: number;
  m2s: QueueCounters & RingPosition & { status: number; stalled: boolean };
  s2m: QueueCounters & RingPosition & { status: number; stalled: boolean };
}

/** When the engine runs by itself. */
export type AutoRun = 'none' | 'on-doorbell' | 'on-read';

export interface MockUdmaUnitOptions {
  /** Default 'on-read': any register read first lets the engine run until idle. */
  autoRun?: AutoRun;
  /** Bytes the data path moves per engine cycle (the service trace's time base). Default 64. */
  bytesPerCycle?: number;
  /** Register files throw on bad accesses instead of logging them. */
  strict?: boolean;
  /** Register access trace. */
  registerTrace?: ((ev: RegisterAccessEvent) => void) | null;
}

const TWO_POW_32 = 4294967296;
const FAULT_LOG_LIMIT = 256;

// Head-packet states.
const PKT_UNKNOWN = 0;
const PKT_READY = 1;
const PKT_WAIT = 2;

const ST = MOCK_QUEUE_STATUS;

/** Ring pointers, flags and counters of one half's queues. */
class HalfState {
  readonly headOff: Int32Array;
  readonly headRid: Int32Array;
  readonly tailOff: Int32Array;
  readonly tailRid: Int32Array;
  readonly compOff: Int32Array;
  readonly compRid: Int32Array;
  /** Sticky error bits (MOCK_QUEUE_STATUS). */
  readonly err: Uint32Array;
  readonly stalled: Uint8Array;
  readonly faulted: Uint8Array;
  readonly bytes: Float64Array;
  readonly descs: Float64Array;
  readonly packets: Float64Array;
  readonly interrupts: Float64Array;

  constructor(n: number) {
    this.headOff = new Int32Array(n);
    this.headRid = new Int32Array(n);
    this.tailOff = new Int32Array(n);
    this.tailRid = new Int32Array(n);
    this.compOff = new Int32Array(n);
    this.compRid = new Int32Array(n);
    this.err = new Uint32Array(n);
    this.stalled = new Uint8Array(n);
    this.faulted = new Uint8Array(n);
    this.bytes = new Float64Array(n);
    this.descs = new Float64Array(n);
    this.packets = new Float64Array(n);
    this.interrupts = new Float64Array(n);
  }
}

/** The ring id a queue starts with after reset (UDMA-FACTS.md "Rings"). */
export const INITIAL_RING_ID = 1;

/**
 * Copies n bytes from one region to another (or within one). Small copies never allocate: they
 * move 32-bit words when everything is word-aligned, else bytes; large ones use one
 * TypedArray.set of a subarray (memmove), the same as Buffer.copy.
 */
function copyBytes(src: MemoryRegion, so: number, dst: MemoryRegion, d: number, n: number): void {
  if (src === dst) {
    src.bytes.copyWithin(d, so, so + n);
    return;
  }
  if (n <= 256) {
    const s32 = src.i32;
    const d32 = dst.i32;
    if (s32 !== null && d32 !== null && ((so | d | n) & 3) === 0) {
      const a = so >>> 2;
      const b = d >>> 2;
      const w = n >>> 2;
      for (let i = 0; i < w; i++) d32[b + i] = s32[a + i];
    } else {
      const sb = src.bytes;
      const db = dst.bytes;
      for (let i = 0; i < n; i++) db[d + i] = sb[so + i];
    }
    return;
  }
  dst.bytes.set(src.bytes.subarray(so, so + n), d);
}

/**
 * Copies n bytes from device address `src` to `dst` when one or both ranges cross a seam between
 * adjacent regions (the caller checked that every byte is mapped): piece by piece, each piece
 * inside one region on both sides.
 */
function copySpanning(mem: MockMemory, src: number, dst: number, n: number): void {
  let done = 0;
  while (done < n) {
    const rs = mem.find(src + done, 1)!;
    const rd = mem.find(dst + done, 1)!;
    const k = Math.min(n - done, rs.end - (src + done), rd.end - (dst + done));
    copyBytes(rs, src + done - rs.base, rd, dst + done - rd.base, k);
    done += k;
  }
}

/**
 * Moves queue `q`'s head past one descriptor of a ring of `len`: the ring id advances on a wrap;
 * the state, the head pointer register (tdrhp / rdrhp) and the current-descriptor word follow.
 * Returns the slot consumed.
 */
function advanceHead(
  st: HalfState,
  r: RingRefs,
  words: Uint32Array,
  q: number,
  len: number,
): number {
  const off = st.headOff[q];
  let next = off + 1;
  let rid = st.headRid[q];
  if (next >= len) {
    next = 0;
    rid = (rid + 1) & 3;
  }
  st.headOff[q] = next;
  st.headRid[q] = rid;
  words[r.headOffset.word] = r.headOffset.place(next) | r.headRingId.place(rid);
  words[r.cp >>> 2] = next;
  return off;
}

export class MockUdmaUnit implements UdmaUnitIO {
  readonly engine: number;
  readonly m2s: MockRegisterFile;
  readonly s2m: MockRegisterFile;
  readonly queues: number;
  /** Engine cycles elapsed (see bytesPerCycle). */
  cycle = 0;
  autoRun: AutoRun;
  readonly bytesPerCycle: number;
  /** The errors raised so far (the last 256), oldest first. */
  readonly faults: UdmaFault[] = [];
  readonly arbiter: Arbiter;

  private readonly mem: MockMemory;
  /** The last descriptor gathered across a region seam (descRegion). */
  private seam: MemoryRegion | null = null;
  private readonly trace: ServiceTrace;
  private readonly M: M2SRefs;
  private readonly S: HalfRefs;
  private readonly tx: HalfState;
  private readonly rx: HalfState;
  private readonly mw: Uint32Array;
  private readonly sw: Uint32Array;
  private readonly mode: ArbiterMode = {
    forceRR: true,
    enDwrr: false,
    pktMode: false,
    incFactor: 7,
  };
  // Head-packet cache, per queue.
  private readonly pktState: Uint8Array;
  private readonly pktDescs: Int32Array;
  private readonly pktBytes: Float64Array;
  // Rate limiter buckets: tokens and the window they were last refilled in (-1: not armed).
  private readonly tokens: Float64Array;
  private readonly tokWindow: Float64Array;
  private streamTokens = 0;
  private streamWindow = -1;
  /** Some register was written since the head packets were scanned. */
  private dirty = true;
  /** Something may be runnable (a write happened since the engine last went idle). */
  private mayRun = true;
  private running = false;
  // The state words and the value they hold in the normal state (every field = normal).
  private readonly mState: number;
  private readonly mStateMask: number;
  private readonly mStateNormal: number;
  private readonly sState: number;
  private readonly sStateMask: number;
  private readonly sStateNormal: number;
  /** Packets served since construction. */
  packetsServed = 0;

  constructor(
    engine: number,
    models: { m2s: RegFileModel; s2m: RegFileModel },
    memory: MockMemory,
    trace: ServiceTrace,
    opts: MockUdmaUnitOptions = {},
  ) {
    this.engine = engine;
    this.mem = memory;
    this.trace = trace;
    this.autoRun = opts.autoRun ?? 'on-read';
    this.bytesPerCycle = opts.bytesPerCycle ?? 64;
    const rf = { strict: opts.strict ?? false, trace: opts.registerTrace ?? null };
    this.m2s = new MockRegisterFile(models.m2s, { ...rf, label: `udma${engine}.m2s` });
    this.s2m = new MockRegisterFile(models.s2m, { ...rf, label: `udma${engine}.s2m` });
    this.mw = this.m2s.words;
    this.sw = this.s2m.words;
    this.M = m2sRefs(models.m2s);
    this.S = s2mRefs(models.s2m);
    this.queues = this.M.queues;
    const stateWord = (R: HalfRefs) => ({
      word: R.state >>> 2,
      mask: R.stateFields.reduce((m, f) => (m | f.mask) >>> 0, 0),
      normal: R.stateFields.reduce((m, f) => (m | f.place(R.stateValues.normal)) >>> 0, 0),
    });
    const ms = stateWord(this.M);
    const ss = stateWord(this.S);
    this.mState = ms.word;
    this.mStateMask = ms.mask;
    this.mStateNormal = ms.normal;
    this.sState = ss.word;
    this.sStateMask = ss.mask;
    this.sStateNormal = ss.normal;
    const n = this.queues;
    this.tx = new HalfState(n);
    this.rx = new HalfState(this.S.queues);
    this.arbiter = new Arbiter(n);
    this.pktState = new Uint8Array(n);
    this.pktDescs = new Int32Array(n);
    this.pktBytes = new Float64Array(n);
    this.tokens = new Float64Array(n);
    this.tokWindow = new Float64Array(n).fill(-1);
    for (let q = 0; q < n; q++) this.resetQueue('m2s', q);
    for (let q = 0; q < this.S.queues; q++) this.resetQueue('s2m', q);
    this.installHooks();
  }

  // -------------------------------------------------------------------------------------------
  // Register side effects.

  private installHooks(): void {
    const onAnyWrite = (): void => {
      this.dirty = true;
      this.mayRun = true;
    };
    this.m2s.afterWrite = onAnyWrite;
    this.s2m.afterWrite = onAnyWrite;
    const beforeRead = (): void => this.catchUp();
    this.m2s.beforeRead = beforeRead;
    this.s2m.beforeRead = beforeRead;
    for (const [file, refs, half] of [
      [this.m2s, this.M, 'm2s'],
      [this.s2m, this.S, 's2m'],
    ] as const) {
      file.onWrite(refs.changeState, (v) => this.changeState(half, v));
      for (let q = 0; q < refs.queues; q++) {
        const r = refs.q[q];
        file.onWrite(r.doorbell, (v) => this.doorbell(half, q, r.doorbellVal.get(v)));
        file.onWrite(r.swCtrl, (v) => {
          if ((v & r.rstQ.mask) !== 0) this.resetQueue(half, q);
        });
      }
    }
    this.m2s.onWrite(this.M.deficitInit.offset, () => {
      this.arbiter.initDeficits(this.M.deficitInit.read(this.mw));
    });
    this.m2s.onRead(this.M.selRateLimit.offset, () => {
      const q = this.M.indirectQ.read(this.mw);
      // An unarmed limiter (not enabled, or masked) shows no tokens.
      if (q >= this.queues || !this.limited(q)) return 0;
      this.refill(q);
      return this.M.selRateLimit.place(
        Math.max(0, Math.min(this.tokens[q], this.M.selRateLimit.max)),
      );
    });
    this.m2s.onRead(this.M.selDwrr.offset, () => {
      const q = this.M.indirectQ.read(this.mw);
      if (q >= this.queues) return 0;
      const d = Math.floor(this.arbiter.deficit[q]);
      return this.M.selDwrr.place(Math.max(0, Math.min(d, this.M.selDwrr.max)));
    });
  }

  /** change_state: abort wins over dis, dis over normal. */
  private changeState(half: UdmaHalf, v: number): void {
    const R = half === 'm2s' ? this.M : this.S;
    const w = half === 'm2s' ? this.mw : this.sw;
    let value = -1;
    if ((v & R.csAbort.mask) !== 0) value = R.stateValues.abort;
    else if ((v & R.csDis.mask) !== 0) value = R.stateValues.idle;
    else if ((v & R.csNormal.mask) !== 0) value = R.stateValues.normal;
    if (value < 0) return;
    for (const f of R.stateFields) f.write(w, value);
  }

  /** tdrtp_inc / rdrtp_inc: the tail advances by n, the ring id incrementing at each wrap. */
  private doorbell(half: UdmaHalf, q: number, n: number): void {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    const w = half === 'm2s' ? this.mw : this.sw;
    const r = R.q[q];
    const len = r.len.read(w);
    let off = st.tailOff[q] + n;
    let rid = st.tailRid[q];
    if (len > 0) {
      const laps = Math.floor(off / len);
      off -= laps * len;
      rid = (rid + laps) & 3;
    } else {
      off &= r.tailOffset.max;
    }
    st.tailOff[q] = off;
    st.tailRid[q] = rid;
    w[r.tailOffset.word] = r.tailOffset.place(off) | r.tailRingId.place(rid);
    // A doorbell lets a queue stalled on a ring id look at its ring again.
    if (st.stalled[q] !== 0 && st.faulted[q] === 0) {
      st.stalled[q] = 0;
      this.mirrorStatus(half, q);
    }
    if (this.autoRun === 'on-doorbell' && !this.running) this.runUntilIdle();
  }

  /** q_sw_ctrl.rst_q: pointers back to offset 0, ring id 1; errors cleared; counters kept. */
  resetQueue(half: UdmaHalf, q: number): void {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    const w = half === 'm2s' ? this.mw : this.sw;
    const r = R.q[q];
    st.headOff[q] = 0;
    st.headRid[q] = INITIAL_RING_ID;
    st.tailOff[q] = 0;
    st.tailRid[q] = INITIAL_RING_ID;
    st.compOff[q] = 0;
    st.compRid[q] = INITIAL_RING_ID;
    st.err[q] = 0;
    st.stalled[q] = 0;
    st.faulted[q] = 0;
    const ptr = r.headOffset.place(0) | r.headRingId.place(INITIAL_RING_ID);
    w[r.headOffset.word] = ptr;
    w[r.tailOffset.word] = r.tailOffset.place(0) | r.tailRingId.place(INITIAL_RING_ID);
    w[r.compHeadOffset.word] = r.compHeadOffset.place(0) | r.compHeadRingId.place(INITIAL_RING_ID);
    w[r.cp >>> 2] = 0;
    w[r.status >>> 2] = 0;
    if (half === 'm2s') {
      this.arbiter.resetQueue(q, this.M.deficitInit.read(this.mw));
      this.tokWindow[q] = -1;
    }
    this.dirty = true;
  }

  private mirrorStatus(half: UdmaHalf, q: number): void {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    const w = half === 'm2s' ? this.mw : this.sw;
    w[R.q[q].status >>> 2] = (st.err[q] | (st.stalled[q] !== 0 ? ST.STALLED : 0)) >>> 0;
  }

  // -------------------------------------------------------------------------------------------
  // Observation.

  /** Both halves are in the normal state and neither stream is disabled. */
  isRunning(): boolean {
    const mw = this.mw;
    const sw = this.sw;
    return (
      (mw[this.mState] & this.mStateMask) === this.mStateNormal &&
      (sw[this.sState] & this.sStateMask) === this.sStateNormal &&
      !this.M.streamDisable.isSet(mw) &&
      !this.S.streamDisable.isSet(sw)
    );
  }

  /** True when either half's state shows abort. */
  isAborted(): boolean {
    return (
      this.M.stateFields.some((f) => f.read(this.mw) === this.M.stateValues.abort) ||
      this.S.stateFields.some((f) => f.read(this.sw) === this.S.stateValues.abort)
    );
  }

  private position(half: UdmaHalf, q: number): RingPosition {
    const st = half === 'm2s' ? this.tx : this.rx;
    const R = half === 'm2s' ? this.M : this.S;
    const len = R.q[q].len.read(half === 'm2s' ? this.mw : this.sw);
    return {
      headOffset: st.headOff[q],
      headRingId: st.headRid[q],
      tailOffset: st.tailOff[q],
      tailRingId: st.tailRid[q],
      pending: this.pendingOf(st, q, len),
    };
  }

  /**
   * In 'on-read' mode, runs the engine until idle if anything was written since it last was:
   * observing the device lets time pass. Register reads, memory reads through MockMemory and the
   * device's observers (stats, faults) call it.
   */
  catchUp(): void {
    if (this.autoRun === 'on-read' && this.mayRun && !this.running) this.runUntilIdle();
  }

  /** Counters, ring positions and status of queue q on both halves (catches up first). */
  queueStats(q: number): QueueStats {
    this.catchUp();
    const one = (half: UdmaHalf) => {
      const st = half === 'm2s' ? this.tx : this.rx;
      return {
        bytes: st.bytes[q],
        descriptors: st.descs[q],
        packets: st.packets[q],
        interrupts: st.interrupts[q],
        ...this.position(half, q),
        status: (st.err[q] | (st.stalled[q] !== 0 ? ST.STALLED : 0)) >>> 0,
        stalled: st.stalled[q] !== 0,
      };
    };
    return { queue: q, m2s: one('m2s'), s2m: one('s2m') };
  }

  /** queueStats of every queue. */
  stats(): QueueStats[] {
    const out: QueueStats[] = [];
    for (let q = 0; q < this.queues; q++) out.push(this.queueStats(q));
    return out;
  }

  /** Sum of the M2S byte counters. */
  totalBytes(): number {
    let s = 0;
    for (let q = 0; q < this.queues; q++) s += this.tx.bytes[q];
    return s;
  }

  // -------------------------------------------------------------------------------------------
  // Running.

  /**
   * Serves at most one packet. Returns true when something happened (a packet moved, an error
   * was raised, or the clock advanced to the next rate-limiter window), false when idle.
   */
  step(): boolean {
    if (!this.isRunning()) return false;
    const M = this.M;
    const mw = this.mw;
    const arb = this.arbiter;
    const n = this.queues;
    const tx = this.tx;
    if (this.dirty) {
      this.pktState.fill(PKT_UNKNOWN);
      this.dirty = false;
    }
    const mode = this.mode;
    mode.forceRR = M.forceRR.isSet(mw);
    mode.enDwrr = M.enDwrr.isSet(mw);
    mode.pktMode = M.pktModeEn.isSet(mw);
    mode.incFactor = M.incFactor.read(mw);
    const enginePaused = M.streamRlPause.isSet(mw);
    // Rate-limiter windows until the first blocked bucket holds a token again (Infinity: none).
    let wait = Infinity;
    let anyReady = false;
    for (let q = 0; q < n; q++) {
      arb.ready[q] = 0;
      if (enginePaused) continue;
      // Nothing handed over: nothing to look at (cheap test first).
      if (tx.tailOff[q] === tx.headOff[q] && tx.tailRid[q] === tx.headRid[q]) continue;
      const r = M.q[q];
      if (!r.enables[0].isSet(mw) || !r.enables[1].isSet(mw)) continue;
      if (tx.stalled[q] !== 0) continue;
      if (this.pktState[q] === PKT_UNKNOWN) {
        this.scan(q);
        if (!this.isRunning()) return true; // the scan aborted the engine
      }
      if (this.pktState[q] !== PKT_READY) continue;
      const s = M.sched[q];
      if (s.dwrrPause.isSet(mw) || s.rlPause.isSet(mw)) continue;
      if (this.limited(q)) {
        const t = this.refill(q);
        if (t <= 0) {
          // A zero budget never refills: that queue is simply not served.
          const budget = s.rlMaxBurst.read(mw);
          if (budget > 0) wait = Math.min(wait, Math.floor(-t / budget) + 1);
          continue;
        }
      }
      arb.ready[q] = 1;
      arb.cost[q] = this.pktBytes[q];
      arb.qos[q] = s.qQos.read(mw);
      arb.weight[q] = s.weight.read(mw);
      anyReady = true;
    }
    if (anyReady && this.streamLimited()) {
      const t = this.refillStream();
      if (t <= 0) {
        arb.ready.fill(0);
        anyReady = false;
        const budget = M.streamRlMaxBurst.read(mw);
        wait = budget > 0 ? Math.floor(-t / budget) + 1 : Infinity;
      }
    }
    const q = anyReady ? arb.select(mode) : -1;
    if (q < 0) {
      if (wait === Infinity) return false;
      // Idle until the window in which a bucket refills.
      const win = Math.max(1, M.shortCycle.read(mw));
      this.cycle = (Math.floor(this.cycle / win) + wait) * win;
      return true;
    }
    this.serve(q);
    return true;
  }

  /**
   * Steps until nothing can move (or `maxPackets` packets were served). Returns the number of
   * packets served. Never throws for anything the rings contain.
   */
  runUntilIdle(opts: { maxPackets?: number } = {}): number {
    if (this.running) return 0;
    this.running = true;
    const max = opts.maxPackets ?? Infinity;
    let served = 0;
    try {
      const before = this.packetsServed;
      while (served < max && this.step()) served = this.packetsServed - before;
      if (served < max) this.mayRun = false;
    } finally {
      this.running = false;
    }
    return served;
  }

  // -------------------------------------------------------------------------------------------
  // Rate limiters (docs/mock-arbitration.md).

  private limited(q: number): boolean {
    const s = this.M.sched[q];
    const on = s.rlEn.isSet(this.mw) && !s.rlMaskInternal.isSet(this.mw);
    if (!on) this.tokWindow[q] = -1;
    return on;
  }

  /** Refills queue q's bucket up to the current window; returns its tokens. */
  private refill(q: number): number {
    const mw = this.mw;
    const win = Math.max(1, this.M.shortCycle.read(mw));
    const w = Math.floor(this.cycle / win);
    const last = this.tokWindow[q];
    if (last !== w) {
      const budget = this.M.sched[q].rlMaxBurst.read(mw);
      this.tokens[q] = last < 0 ? budget : Math.min(budget, this.tokens[q] + budget * (w - last));
      this.tokWindow[q] = w;
    }
    return this.tokens[q];
  }

  private streamLimited(): boolean {
    const on = this.M.streamRlEn.isSet(this.mw) && !this.M.streamRlMaskInternal.isSet(this.mw);
    if (!on) this.streamWindow = -1;
    return on;
  }

  private refillStream(): number {
    const mw = this.mw;
    const win = Math.max(1, this.M.shortCycle.read(mw));
    const w = Math.floor(this.cycle / win);
    if (this.streamWindow !== w) {
      const budget = this.M.streamRlMaxBurst.read(mw);
      this.streamTokens =
        this.streamWindow < 0
          ? budget
          : Math.min(budget, this.streamTokens + budget * (w - this.streamWindow));
      this.streamWindow = w;
    }
    return this.streamTokens;
  }

  // -------------------------------------------------------------------------------------------
  // Rings.

  private pendingOf(st: HalfState, q: number, len: number): number {
    if (len === 0) return 0;
    let p = ((st.tailRid[q] - st.headRid[q]) & 3) * len + st.tailOff[q] - st.headOff[q];
    if (p < 0) p += 4 * len;
    return p;
  }

  private ringBase(r: RingRefs, w: Uint32Array): number {
    return r.baseLo.bits(w) + r.baseHi.read(w) * TWO_POW_32;
  }

  /** TX byte count of a len_ctrl word: length 0 is 64 KiB only with M2S.cfg_len.encode_64k. */
  private txLen(w0: number): number {
    const l = w0 & LEN_CTRL.LEN_MASK;
    return l !== 0 ? l : this.M.encode64k.isSet(this.mw) ? 65536 : 0;
  }

  /**
   * Looks at queue q's head packet: counts its TX descriptors and bytes, checks ring ids, and
   * checks that the RX ring of the same queue can take it. Sets pktState (READY or WAIT); may
   * stall the queue or abort the engine.
   */
  private scan(q: number): void {
    const M = this.M;
    const S = this.S;
    const mw = this.mw;
    const sw = this.sw;
    const tx = this.tx;
    const rx = this.rx;
    const mem = this.mem;
    this.pktState[q] = PKT_WAIT;
    const r = M.q[q];
    const len = r.len.read(mw);
    const pending = this.pendingOf(tx, q, len);
    if (pending === 0) return;
    const base = this.ringBase(r, mw);
    const maxDesc = M.maxDescPerPkt.read(mw) || Infinity;
    let off = tx.headOff[q];
    let rid = tx.headRid[q];
    let bytes = 0;
    let k = 0;
    for (;;) {
      if (k === pending) return; // the packet's LAST descriptor has not been handed over yet
      const addr = base + off * 16;
      if (k === maxDesc) {
        this.stall('m2s', q, 'packet-too-long', off, addr, maxDesc, k + 1);
        return;
      }
      const reg = this.descRegion(addr);
      if (reg === undefined) {
        this.fault('m2s', q, 'descriptor-fetch', off, addr, 16);
        return;
      }
      const w0 = reg.dv.getUint32(addr - reg.base, true);
      const got = (w0 >>> LEN_CTRL.RING_ID_SHIFT) & 3;
      if (got !== rid) {
        this.stall('m2s', q, 'ring-id', off, addr, rid, got);
        return;
      }
      bytes += this.txLen(w0);
      k++;
      if (++off >= len) {
        off = 0;
        rid = (rid + 1) & 3;
      }
      if ((w0 & LEN_CTRL.LAST) !== 0) break;
    }
    // The RX side must be ready and hold buffers for all of it.
    const sr = S.q[q];
    if (!sr.enables[0].isSet(sw) || rx.stalled[q] !== 0) return;
    const rlen = sr.len.read(sw);
    const rpending = this.pendingOf(rx, q, rlen);
    const rbase = this.ringBase(sr, sw);
    let roff = rx.headOff[q];
    let rrid = rx.headRid[q];
    let room = 0;
    let m = 0;
    do {
      if (m === rpending) return; // not enough RX buffers yet
      const addr = rbase + roff * 16;
      const reg = this.descRegion(addr);
      if (reg === undefined) {
        this.fault('s2m', q, 'descriptor-fetch', roff, addr, 16);
        return;
      }
      const w0 = reg.dv.getUint32(addr - reg.base, true);
      const got = (w0 >>> LEN_CTRL.RING_ID_SHIFT) & 3;
      if (got !== rrid) {
        this.stall('s2m', q, 'ring-id', roff, addr, rrid, got);
        return;
      }
      room += w0 & LEN_CTRL.LEN_MASK || 65536;
      m++;
      if (++roff >= rlen) {
        roff = 0;
        rrid = (rrid + 1) & 3;
      }
    } while (room < bytes);
    this.pktDescs[q] = k;
    this.pktBytes[q] = bytes;
    this.pktState[q] = PKT_READY;
  }

  /**
   * Moves queue q's head packet (scanned READY). Stops at the first fault, with every byte before
   * it landed and none after.
   */
  private serve(q: number): void {
    const M = this.M;
    const S = this.S;
    const mw = this.mw;
    const sw = this.sw;
    const tx = this.tx;
    const rx = this.rx;
    const mem = this.mem;
    const r = M.q[q];
    const sr = S.q[q];
    const tlen = r.len.read(mw);
    const rlen = sr.len.read(sw);
    const tbase = this.ringBase(r, mw);
    const rbase = this.ringBase(sr, sw);
    const nTx = this.pktDescs[q];
    const startCycle = this.cycle;
    const qos = M.sched[q].qQos.read(mw);
    this.pktState[q] = PKT_UNKNOWN;

    let rxLoaded = false;
    let rxBuf = 0;
    let rxCap = 0;
    let rxFill = 0;
    let rxFirst = true;
    let rxW0 = 0;
    let moved = 0;
    for (let i = 0; i < nTx; i++) {
      const off = tx.headOff[q];
      const daddr = tbase + off * 16;
      const dreg = this.descRegion(daddr)!;
      const dp = daddr - dreg.base;
      const w0 = dreg.dv.getUint32(dp, true);
      if (((w0 >>> LEN_CTRL.RING_ID_SHIFT) & 3) !== tx.headRid[q]) {
        // Rewritten under the engine since the scan.
        this.stall(
          'm2s',
          q,
          'ring-id',
          off,
          daddr,
          tx.headRid[q],
          (w0 >>> LEN_CTRL.RING_ID_SHIFT) & 3,
        );
        return;
      }
      const l = this.txLen(w0);
      const src = dreg.dv.getUint32(dp + 8, true) + dreg.dv.getUint32(dp + 12, true) * TWO_POW_32;
      let sreg: MemoryRegion | undefined;
      if (l > 0) {
        sreg = mem.find(src, l);
        // a buffer across the seam of two adjacent regions is mapped: copied piece by piece
        if (sreg === undefined && mem.firstUnmapped(src, l) >= 0) {
          this.fault('m2s', q, 'data', off, this.firstUnmapped(src, l), l);
          return;
        }
      }
      let so = src - (sreg === undefined ? 0 : sreg.base);
      let sa = src;
      let remaining = l;
      while (remaining > 0) {
        if (!rxLoaded) {
          const roff = rx.headOff[q];
          const raddr = rbase + roff * 16;
          const rreg = this.descRegion(raddr)!;
          const rp = raddr - rreg.base;
          rxW0 = rreg.dv.getUint32(rp, true);
          if (((rxW0 >>> LEN_CTRL.RING_ID_SHIFT) & 3) !== rx.headRid[q]) {
            this.stall(
              's2m',
              q,
              'ring-id',
              roff,
              raddr,
              rx.headRid[q],
              (rxW0 >>> LEN_CTRL.RING_ID_SHIFT) & 3,
            );
            return;
          }
          rxCap = rxW0 & LEN_CTRL.LEN_MASK || 65536;
          rxBuf = rreg.dv.getUint32(rp + 8, true) + rreg.dv.getUint32(rp + 12, true) * TWO_POW_32;
          rxFill = 0;
          rxLoaded = true;
        }
        const k = Math.min(remaining, rxCap - rxFill);
        const dst = rxBuf + rxFill;
        const dreg2 = mem.find(dst, k);
        if (dreg2 !== undefined && sreg !== undefined) {
          copyBytes(sreg, so, dreg2, dst - dreg2.base, k);
        } else if (mem.firstUnmapped(dst, k) < 0) {
          copySpanning(mem, sa, dst, k);
        } else {
          this.fault('s2m', q, 'data', rx.headOff[q], this.firstUnmapped(dst, k), k);
          return;
        }
        so += k;
        sa += k;
        remaining -= k;
        rxFill += k;
        moved += k;
        if (rxFill === rxCap && (remaining > 0 || i < nTx - 1)) {
          if (!this.completeRx(q, rxW0, rxFill, rxFirst, false, rlen)) return;
          rxFirst = false;
          rxLoaded = false;
        }
      }
      if (!this.completeTx(q, w0, l, tlen)) return;
    }
    // Packet end: the current RX descriptor closes the packet (a packet of 0 bytes still takes one).
    if (!rxLoaded) {
      const roff = rx.headOff[q];
      const raddr = rbase + roff * 16;
      const rreg = this.descRegion(raddr)!;
      rxW0 = rreg.dv.getUint32(raddr - rreg.base, true);
      rxFill = 0;
    }
    if (!this.completeRx(q, rxW0, rxFill, rxFirst, true, rlen)) return;
    tx.packets[q]++;
    rx.packets[q]++;
    // Time: one cycle per descriptor plus the bytes at bytesPerCycle.
    this.cycle += nTx + Math.ceil(moved / this.bytesPerCycle);
    if (this.tokWindow[q] >= 0) this.tokens[q] -= M.rlPktMode.isSet(mw) ? 1 : moved;
    if (this.streamWindow >= 0) this.streamTokens -= M.rlPktMode.isSet(mw) ? 1 : moved;
    this.packetsServed++;
    this.trace.record(this.engine, q, moved, nTx, startCycle, this.cycle, qos);
  }

  /** Consumes the TX head descriptor: head, counters, completion entry. False on a fault. */
  private completeTx(q: number, w0: number, bytes: number, len: number): boolean {
    const tx = this.tx;
    const r = this.M.q[q];
    const mw = this.mw;
    const off = advanceHead(tx, r, mw, q, len);
    tx.descs[q]++;
    tx.bytes[q] += bytes;
    if ((w0 & LEN_CTRL.INT_EN) !== 0) tx.interrupts[q]++;
    if (r.compEnable.isSet(mw)) {
      return this.writeCompletion(
        'm2s',
        q,
        w0 & (LEN_CTRL.LEN_MASK | LEN_CTRL.FIRST | LEN_CTRL.LAST),
        off,
        len,
      );
    }
    return true;
  }

  /** Consumes the RX head descriptor after `filled` bytes landed in it. False on a fault. */
  private completeRx(
    q: number,
    w0: number,
    filled: number,
    first: boolean,
    last: boolean,
    len: number,
  ): boolean {
    const rx = this.rx;
    const r = this.S.q[q];
    const sw = this.sw;
    const off = advanceHead(rx, r, sw, q, len);
    rx.descs[q]++;
    rx.bytes[q] += filled;
    if ((w0 & LEN_CTRL.INT_EN) !== 0) rx.interrupts[q]++;
    if (r.compEnable.isSet(sw)) {
      const word =
        (filled & LEN_CTRL.LEN_MASK) | (first ? LEN_CTRL.FIRST : 0) | (last ? LEN_CTRL.LAST : 0);
      return this.writeCompletion('s2m', q, word, off, len);
    }
    return true;
  }

  /**
   * Writes a 16-byte completion entry at the queue's completion head: word 0 = `word0` with the
   * completion ring's id in ring_id[25:24], words 1-3 zero. The completion ring has as many
   * entries as the descriptor ring.
   */
  private writeCompletion(
    half: UdmaHalf,
    q: number,
    word0: number,
    desc: number,
    len: number,
  ): boolean {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    const w = half === 'm2s' ? this.mw : this.sw;
    const r = R.q[q];
    const base = r.compLo.bits(w) + r.compHi.read(w) * TWO_POW_32;
    const off = st.compOff[q];
    const addr = base + off * 16;
    const reg = this.descRegion(addr);
    if (reg === undefined) {
      this.fault(half, q, 'completion', desc, this.firstUnmapped(addr, 16), 16);
      return false;
    }
    const p = addr - reg.base;
    const rid = st.compRid[q];
    reg.dv.setUint32(p, (word0 | (rid << LEN_CTRL.RING_ID_SHIFT)) >>> 0, true);
    reg.dv.setUint32(p + 4, 0, true);
    reg.dv.setUint32(p + 8, 0, true);
    reg.dv.setUint32(p + 12, 0, true);
    if (reg === this.seam) this.mem.write(addr, this.seam.bytes); // back across the seam
    let next = off + 1;
    let nrid = rid;
    if (next >= len) {
      next = 0;
      nrid = (rid + 1) & 3;
    }
    st.compOff[q] = next;
    st.compRid[q] = nrid;
    w[r.compHeadOffset.word] = r.compHeadOffset.place(next) | r.compHeadRingId.place(nrid);
    return true;
  }

  /**
   * The region holding the 16-byte descriptor (or completion entry) at addr. One that crosses the
   * seam of two adjacent regions is mapped too: its bytes are gathered into `seam`, a 16-byte
   * region placed at addr (a write to it is copied back by the caller). Undefined when a byte is
   * not mapped.
   */
  private descRegion(addr: number): MemoryRegion | undefined {
    const reg = this.mem.find(addr, 16);
    if (reg !== undefined) return reg;
    const parts = this.mem.span(addr, 16);
    if (parts === null) return undefined;
    const buf = new Uint8Array(16);
    let a = addr;
    for (const r of parts) {
      const n = Math.min(addr + 16 - a, r.end - a);
      buf.set(r.bytes.subarray(a - r.base, a - r.base + n), a - addr);
      a += n;
    }
    this.seam = new MemoryRegion('seam', 'seam', addr, buf);
    return this.seam;
  }

  private firstUnmapped(addr: number, length: number): number {
    const a = this.mem.firstUnmapped(addr, length);
    return a < 0 ? addr : a;
  }

  // -------------------------------------------------------------------------------------------
  // Errors.

  private record(f: UdmaFault): void {
    if (this.faults.length >= FAULT_LOG_LIMIT) this.faults.shift();
    this.faults.push(f);
  }

  /** A queue stops on a descriptor it must not process (ring id, packet length). */
  private stall(
    half: UdmaHalf,
    q: number,
    kind: 'ring-id' | 'packet-too-long',
    desc: number,
    addr: number,
    expected: number,
    actual: number,
  ): void {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    const w = half === 'm2s' ? this.mw : this.sw;
    st.stalled[q] = 1;
    if (kind === 'ring-id') {
      if (!R.errMaskRingId.isSet(w)) st.err[q] |= ST.RING_ID_ERROR;
    } else {
      st.err[q] |= ST.PKT_TOO_LONG;
    }
    this.mirrorStatus(half, q);
    if (half === 'm2s') this.pktState[q] = PKT_WAIT;
    const Q = `${R.name}_Q[${q}]`;
    this.record({
      engine: this.engine,
      half,
      queue: q,
      kind,
      aborted: false,
      descriptor: desc,
      address: addr,
      length: 16,
      expected,
      actual,
      cycle: this.cycle,
      message:
        kind === 'ring-id'
          ? `udma${this.engine} ${Q}: descriptor ${desc} at ${hex(addr)} has ring id ${actual}, ` +
            `expected ${expected} (stale descriptor: the queue stalls)`
          : `udma${this.engine} ${Q}: no LAST within ${expected} descriptors ` +
            `(M2S_rd.desc_pref_cfg_2.max_desc_per_pkt) from descriptor ${desc}`,
    });
  }

  /** An access to unmapped memory: the engine aborts (both halves), the queue is marked. */
  private fault(
    half: UdmaHalf,
    q: number,
    kind: 'descriptor-fetch' | 'data' | 'completion',
    desc: number,
    addr: number,
    length: number,
  ): void {
    const R = half === 'm2s' ? this.M : this.S;
    const st = half === 'm2s' ? this.tx : this.rx;
    st.err[q] |=
      kind === 'descriptor-fetch'
        ? ST.DESC_FETCH_FAULT
        : kind === 'data'
          ? ST.DATA_FAULT
          : ST.COMPLETION_FAULT;
    st.stalled[q] = 1;
    st.faulted[q] = 1;
    this.mirrorStatus(half, q);
    for (const f of this.M.stateFields) f.write(this.mw, this.M.stateValues.abort);
    for (const f of this.S.stateFields) f.write(this.sw, this.S.stateValues.abort);
    this.pktState.fill(PKT_UNKNOWN);
    const what =
      kind === 'descriptor-fetch'
        ? 'descriptor fetch'
        : kind === 'data'
          ? 'data buffer'
          : 'completion write';
    this.record({
      engine: this.engine,
      half,
      queue: q,
      kind,
      aborted: true,
      descriptor: desc,
      address: addr,
      length,
      cycle: this.cycle,
      message:
        `udma${this.engine} ${R.name}_Q[${q}]: ${what} at ${hex(addr)} is not mapped ` +
        `(descriptor ${desc}); the engine aborted`,
    });
  }
}
