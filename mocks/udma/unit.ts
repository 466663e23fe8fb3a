/**
 * One mock UDMA engine (docs/mock.md, docs/mock-arbitration.md): its M2S (TX) and S2M (RX)
 * register files built from the schemas, the register glue (what a write to a doorbell,
 * change_state, q_sw_ctrl, ctrl_deficit_cnt or a read of the indirect status words does), the
 * observers (queueStats, stats, totalBytes) and the run loop (step, runUntilIdle, catchUp).
 *
 * Data path. A copy on queue q is a TX ring on M2S_Q[q] and an RX ring on S2M_Q[q]. The M2S
 * arbitration (arbitration.ts) picks a queue whose head packet (TX descriptors up to the one with
 * LAST) is complete and whose RX ring holds enough buffer space for it; the packet walk (walk.ts)
 * streams its bytes into the RX buffers of the same queue index. Heads advance per descriptor;
 * completion entries are written when comp_cfg.en_comp_ring_update is set (completion.ts). One
 * `step()` serves one packet; nothing runs while either half is not in the normal state.
 *
 * Failures are the device's, never exceptions (faults.ts): a descriptor whose ring id differs
 * from the phase the engine expects stalls its queue (and sets the queue's ring-id error status);
 * an access to unmapped memory (ring, buffer or completion ring) aborts the engine: both halves'
 * `state` fields show abort, the queue's status shows the fault, `faults` records it, and no byte
 * lands past the faulting descriptor chunk.
 */
import type { UdmaUnitIO } from '../../csr/io.ts';
import type { RegFileModel } from '../../csr/schema/model.ts';
import type { MockMemory } from '../memory.ts';
import { MockRegisterFile } from '../register-file.ts';
import type { ServiceTrace } from '../service-trace.ts';
import type { Arbiter } from './arbiter.ts';
import { ArbitrationPipeline } from './arbitration.ts';
import type { CompletionLog } from './completion.ts';
import { INITIAL_RING_ID, ringIdAfter } from '../../csr/formats/ring.ts';
import { UdmaCore, pendingOf } from './core.ts';
import { mirrorStatus, statusOf } from './faults.ts';
import { m2sRefs, s2mRefs } from './refs.ts';
import { streamPackets } from './stream.ts';
import type {
  AutoRun,
  MockUdmaUnitOptions,
  QueueStats,
  RingPosition,
  UdmaFault,
  UdmaHalf,
} from './types.ts';

export class MockUdmaUnit implements UdmaUnitIO {
  readonly engine: number;
  readonly m2s: MockRegisterFile;
  readonly s2m: MockRegisterFile;
  readonly queues: number;
  autoRun: AutoRun;
  readonly bytesPerCycle: number;
  /** The errors raised so far (the last 256), oldest first. */
  readonly faults: UdmaFault[];
  readonly arbiter: Arbiter;

  private readonly c: UdmaCore;
  private readonly pipeline: ArbitrationPipeline;
  /**
   * runUntilIdle serves runs of single-descriptor packets on the streaming path (stream.ts) when
   * the pipeline's decisions are foregone; false sends every packet through the general step.
   * Either way the results are the same.
   */
  streaming = true;
  /** Something may be runnable (a write happened since the engine last went idle). */
  private mayRun = true;
  private running = false;

  constructor(
    engine: number,
    models: { m2s: RegFileModel; s2m: RegFileModel },
    memory: MockMemory,
    trace: ServiceTrace,
    opts: MockUdmaUnitOptions = {},
  ) {
    this.engine = engine;
    this.autoRun = opts.autoRun ?? 'on-read';
    this.bytesPerCycle = opts.bytesPerCycle ?? 64;
    const rf = { strict: opts.strict ?? false, trace: opts.registerTrace ?? null };
    this.m2s = new MockRegisterFile(models.m2s, { ...rf, label: `udma${engine}.m2s` });
    this.s2m = new MockRegisterFile(models.s2m, { ...rf, label: `udma${engine}.s2m` });
    this.c = new UdmaCore(
      engine,
      { M: m2sRefs(models.m2s), S: s2mRefs(models.s2m) },
      { mw: this.m2s.words, sw: this.s2m.words },
      memory,
      trace,
      this.bytesPerCycle,
    );
    this.queues = this.c.queues;
    this.faults = this.c.faults;
    this.pipeline = new ArbitrationPipeline(this.c, this.m2s);
    this.arbiter = this.pipeline.arbiter;
    for (let q = 0; q < this.queues; q++) this.resetQueue('m2s', q);
    for (let q = 0; q < this.c.S.queues; q++) this.resetQueue('s2m', q);
    this.installHooks();
  }

  /** Engine cycles elapsed (see bytesPerCycle). */
  get cycle(): number {
    return this.c.cycle;
  }

  set cycle(v: number) {
    this.c.cycle = v;
  }

  /** Packets served since construction. */
  get packetsServed(): number {
    return this.c.packetsServed;
  }

  /** Packets of packetsServed that the streaming path served (stream.ts). */
  get packetsStreamed(): number {
    return this.pipeline.streamed;
  }

  /** Every completion entry written, in order, with its cycle (docs/mock-arbitration.md). */
  get completions(): CompletionLog {
    return this.pipeline.completions;
  }

  /** Every descriptor prefetch grant, in order: queue, first slot, burst, cycle. */
  get prefetches(): CompletionLog {
    return this.pipeline.prefetches;
  }

  // -------------------------------------------------------------------------------------------
  // Register side effects.

  private installHooks(): void {
    const c = this.c;
    const M = c.M;
    // A doorbell changes one queue's state; any other write may change the configuration.
    const bells = new Set<number>();
    const m2sBells = new Set<number>();
    for (const r of M.q) m2sBells.add(r.doorbell);
    for (const r of c.S.q) bells.add(r.doorbell);
    this.m2s.afterWrite = (inst) => {
      if (!m2sBells.has(inst.offset)) this.pipeline.configDirty = true;
      this.mayRun = true;
    };
    this.s2m.afterWrite = (inst) => {
      if (!bells.has(inst.offset)) this.pipeline.configDirty = true;
      this.mayRun = true;
    };
    const beforeRead = (): void => this.catchUp();
    this.m2s.beforeRead = beforeRead;
    this.s2m.beforeRead = beforeRead;
    for (const [file, refs, half] of [
      [this.m2s, M, 'm2s'],
      [this.s2m, c.S, 's2m'],
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
    this.m2s.onWrite(M.deficitInit.offset, () => {
      this.arbiter.initDeficits(M.deficitInit.read(c.mw));
    });
    this.m2s.onRead(M.selRateLimit.offset, () => {
      const q = M.indirectQ.read(c.mw);
      // An unarmed limiter (not enabled, or masked) shows no tokens.
      return M.selRateLimit.place(this.pipeline.limits.tokenCount(q, M.selRateLimit.max));
    });
    this.m2s.onRead(M.selDwrr.offset, () => {
      const q = M.indirectQ.read(c.mw);
      if (q >= this.queues) return 0;
      const d = Math.floor(this.arbiter.deficit[q]);
      return M.selDwrr.place(Math.max(0, Math.min(d, M.selDwrr.max)));
    });
  }

  /** change_state: abort wins over dis, dis over normal. */
  private changeState(half: UdmaHalf, v: number): void {
    const R = this.c.refsOf(half);
    const w = this.c.wordsOf(half);
    let value = -1;
    if ((v & R.csAbort.mask) !== 0) value = R.stateValues.abort;
    else if ((v & R.csDis.mask) !== 0) value = R.stateValues.idle;
    else if ((v & R.csNormal.mask) !== 0) value = R.stateValues.normal;
    if (value < 0) return;
    for (const f of R.stateFields) f.write(w, value);
  }

  /** tdrtp_inc / rdrtp_inc: the tail advances by n, the ring id incrementing at each wrap. */
  private doorbell(half: UdmaHalf, q: number, n: number): void {
    const st = this.c.stateOf(half);
    const w = this.c.wordsOf(half);
    const r = this.c.refsOf(half).q[q];
    const len = r.len.read(w);
    let off = st.tailOff[q] + n;
    let rid = st.tailRid[q];
    if (len > 0) {
      const laps = Math.floor(off / len);
      off -= laps * len;
      rid = ringIdAfter(rid, laps);
    } else {
      off &= r.tailOffset.max;
    }
    st.tailOff[q] = off;
    st.tailRid[q] = rid;
    w[r.tailOffset.word] = r.tailOffset.place(off) | r.tailRingId.place(rid);
    // A doorbell lets a queue stalled on a ring id look at its ring again.
    if (st.stalled[q] !== 0 && st.faulted[q] === 0) {
      st.stalled[q] = 0;
      mirrorStatus(this.c, half, q);
    }
    this.pipeline.touched(q);
    if (this.autoRun === 'on-doorbell' && !this.running) this.runUntilIdle();
  }

  /** q_sw_ctrl.rst_q: pointers back to offset 0, ring id 1; errors cleared; counters kept. */
  resetQueue(half: UdmaHalf, q: number): void {
    const c = this.c;
    const st = c.stateOf(half);
    const w = c.wordsOf(half);
    const r = c.refsOf(half).q[q];
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
      this.arbiter.resetQueue(q, c.M.deficitInit.read(c.mw));
      this.pipeline.limits.resetQueue(q);
    }
    this.pipeline.resetQueue(half, q);
  }

  // -------------------------------------------------------------------------------------------
  // Observation.

  /** Both halves are in the normal state and neither stream is disabled. */
  isRunning(): boolean {
    return this.c.isRunning();
  }

  /** True when either half's state shows abort. */
  isAborted(): boolean {
    const { M, S, mw, sw } = this.c;
    return (
      M.stateFields.some((f) => f.read(mw) === M.stateValues.abort) ||
      S.stateFields.some((f) => f.read(sw) === S.stateValues.abort)
    );
  }

  private position(half: UdmaHalf, q: number): RingPosition {
    const st = this.c.stateOf(half);
    const len = this.c.refsOf(half).q[q].len.read(this.c.wordsOf(half));
    return {
      headOffset: st.headOff[q],
      headRingId: st.headRid[q],
      tailOffset: st.tailOff[q],
      tailRingId: st.tailRid[q],
      pending: pendingOf(st, q, len),
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
      const st = this.c.stateOf(half);
      return {
        bytes: st.bytes[q],
        descriptors: st.descs[q],
        packets: st.packets[q],
        interrupts: st.interrupts[q],
        ...this.position(half, q),
        status: statusOf(this.c, half, q),
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
    for (let q = 0; q < this.queues; q++) s += this.c.tx.bytes[q];
    return s;
  }

  // -------------------------------------------------------------------------------------------
  // Running.

  /**
   * Serves at most one packet. Returns true when something happened (a packet moved, an error
   * was raised, or the clock advanced to the next rate-limiter window), false when idle.
   */
  step(): boolean {
    if (!this.c.isRunning()) return false;
    return this.pipeline.step();
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
      const c = this.c;
      const before = c.packetsServed;
      let seen = before;
      while (served < max && this.step()) {
        // After a step that served a packet, the streaming path takes the steps it can.
        if (this.streaming && c.packetsServed !== seen && c.packetsServed - before < max)
          streamPackets(this.pipeline, max - (c.packetsServed - before));
        seen = c.packetsServed;
        served = seen - before;
      }
      if (served < max) this.mayRun = false;
    } finally {
      this.running = false;
    }
    return served;
  }
}
