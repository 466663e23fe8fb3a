/**
 * The M2S arbitration pipeline of one mock UDMA engine (docs/mock-arbitration.md): which queue's
 * head packet moves next. Per decision it gathers the candidates (queue enabled, not stalled, a
 * complete head packet with RX room, not paused, its rate-limit bucket holding a token, the
 * engine-wide bucket too), asks the packet arbiter (arbiter.ts) for one, and serves it through the
 * packet walk (walk.ts); when every candidate waits for tokens, the clock jumps to the window in
 * which the first bucket refills. Every grant is recorded in the service trace.
 */
import { Arbiter, type ArbiterMode } from './arbiter.ts';
import { PKT_READY, PKT_UNKNOWN, type UdmaCore } from './core.ts';
import type { MockRegisterFile } from '../register-file.ts';
import { RateLimitStage } from './rate-limit-stage.ts';
import { scanHead, servePacket } from './walk.ts';

export class ArbitrationPipeline {
  readonly arbiter: Arbiter;
  readonly limits: RateLimitStage;
  private readonly c: UdmaCore;
  private readonly mode: ArbiterMode = {
    forceRR: true,
    enDwrr: false,
    pktMode: false,
    incFactor: 7,
  };

  constructor(c: UdmaCore, m2s: MockRegisterFile) {
    this.c = c;
    this.arbiter = new Arbiter(c.queues);
    this.limits = new RateLimitStage(c, m2s);
  }

  /**
   * Serves at most one packet of a running engine. Returns true when something happened (a
   * packet moved, an error was raised, or the clock advanced to the next rate-limiter window),
   * false when idle.
   */
  step(): boolean {
    const c = this.c;
    const M = c.M;
    const mw = c.mw;
    const arb = this.arbiter;
    const limits = this.limits;
    const n = c.queues;
    const tx = c.tx;
    if (c.dirty) {
      c.pktState.fill(PKT_UNKNOWN);
      c.dirty = false;
    }
    const mode = this.mode;
    mode.forceRR = M.forceRR.isSet(mw);
    mode.enDwrr = M.enDwrr.isSet(mw);
    mode.pktMode = M.pktModeEn.isSet(mw);
    mode.incFactor = M.incFactor.read(mw);
    // Rate-limiter short cycles until the first blocked bucket holds a token again (Infinity: none).
    let wait = Infinity;
    let anyReady = false;
    for (let q = 0; q < n; q++) {
      arb.ready[q] = 0;
      // Nothing handed over: nothing to look at (cheap test first).
      if (tx.tailOff[q] === tx.headOff[q] && tx.tailRid[q] === tx.headRid[q]) continue;
      const r = M.q[q];
      if (!r.enables[0].isSet(mw) || !r.enables[1].isSet(mw)) continue;
      if (tx.stalled[q] !== 0) continue;
      if (c.pktState[q] === PKT_UNKNOWN) {
        scanHead(c, q);
        if (!c.isRunning()) return true; // the scan aborted the engine
      }
      if (c.pktState[q] !== PKT_READY) continue;
      const s = M.sched[q];
      if (s.dwrrPause.isSet(mw)) continue;
      const w = limits.queueWait(q);
      if (w > 0) {
        wait = Math.min(wait, w);
        continue;
      }
      arb.ready[q] = 1;
      arb.cost[q] = c.pktBytes[q];
      arb.qos[q] = s.qQos.read(mw);
      arb.weight[q] = s.weight.read(mw);
      anyReady = true;
    }
    if (anyReady) {
      const w = limits.streamWait();
      if (w > 0) {
        arb.ready.fill(0);
        anyReady = false;
        wait = w;
      }
    }
    const q = anyReady ? arb.select(mode) : -1;
    if (q < 0) {
      if (wait === Infinity) return false;
      // Idle until the window in which a bucket refills.
      limits.waitWindows(wait);
      return true;
    }
    this.serve(q);
    return true;
  }

  /** Serves queue q's head packet: time, rate-limit tokens, the service trace. */
  private serve(q: number): void {
    const c = this.c;
    const startCycle = c.cycle;
    const nTx = c.pktDescs[q];
    const qos = c.M.sched[q].qQos.read(c.mw);
    const moved = servePacket(c, q);
    if (moved < 0) return;
    // Time: one cycle per descriptor plus the bytes at bytesPerCycle.
    c.cycle += nTx + Math.ceil(moved / c.bytesPerCycle);
    this.limits.charge(q, moved, startCycle);
    c.packetsServed++;
    c.trace.record(c.engine, q, moved, nTx, startCycle, c.cycle, qos);
  }
}
