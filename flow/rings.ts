/**
 * The rings of a flow: engine bring-up and queue init through driver/udma (UdmaEngine.bringUp,
 * initQueue: the public driver's order), then the lowering's BDs written at each queue's producer
 * position, doorbells (RX first, then TX) and completion read from the head pointers. Only the
 * Device interface is used, so the same code drives the mock and a mapped device.
 *
 * The driver's UdmaQueue submits contiguous copies; a flow submits the lowering's descriptor
 * streams (strided pieces, multi-descriptor packets) through the driver's BD writer over the
 * queue's own RingProducers (which alone hold the producer positions), and rings the doorbells
 * described by queueRegs for what was written since the last one.
 */
import { NxdmaError, hex } from '../common/errors.ts';
import { BD_SIZE } from '../csr/formats/bd.ts';
import { MAX_DESC_PER_PKT } from '../csr/formats/ring.ts';
import { isSimulated, type Device } from '../csr/io.ts';
import { DescriptorStream } from '../compiler/lower/bds.ts';
import { BdWriter } from '../driver/udma/bd-writer.ts';
import { UdmaEngine, deviceClockOf, type DeviceClock } from '../driver/udma/engine.ts';
import { queueRegs, ringDoorbells, type QueueRegs } from '../driver/udma/queue-regs.ts';
import type { UdmaQueue } from '../driver/udma/queue.ts';
import { deviceShadow, type RegisterShadow } from '../driver/udma/shadow.ts';
import type { QueuePlacement } from './mapping.ts';

/** Descriptors per packet the engines accept (M2S_rd.desc_pref_cfg_2.max_desc_per_pkt). */
export const FLOW_MAX_DESC_PER_PKT = MAX_DESC_PER_PKT;

/** One queue's rings during a flow. */
export class FlowQueue {
  readonly placement: QueuePlacement;
  readonly udma: UdmaQueue;
  readonly regs: QueueRegs;
  /** The driver's BD writer over the queue's two ring producers. */
  readonly writer: BdWriter;
  /** The descriptor stream of the descriptor program being written (reused). */
  readonly stream: DescriptorStream;
  /** Descriptor pairs handed to the engine in all. */
  submitted = 0;
  doorbells = 0;
  private readonly engine: UdmaEngine;
  /** TX descriptors produced when the doorbell last rang (RX is written in step). */
  private rung: number;

  constructor(
    engine: UdmaEngine,
    placement: QueuePlacement,
    udma: UdmaQueue,
    maxPerPacket: number,
  ) {
    this.engine = engine;
    this.placement = placement;
    this.udma = udma;
    this.regs = queueRegs(placement.qid);
    this.writer = new BdWriter(udma.tx, udma.rx);
    this.stream = new DescriptorStream(maxPerPacket);
    this.rung = udma.tx.produced;
  }

  /** Free descriptors on both rings as far as the producer knows. */
  get room(): number {
    return Math.min(this.udma.tx.room, this.udma.rx.room);
  }

  get size(): number {
    return Math.min(this.udma.tx.size, this.udma.rx.size);
  }

  /** Descriptors written and not seen consumed (handed over once drain() has rung the doorbells). */
  get inFlight(): number {
    return Math.max(this.udma.tx.pending, this.udma.rx.pending);
  }

  /** Descriptor pairs written and not yet doorbelled. */
  get unannounced(): number {
    return this.udma.tx.produced - this.rung;
  }

  /** Writes the pairs of a descriptor stream at the producers' tails (the driver's BD writer). */
  write(s: DescriptorStream): void {
    this.writer.stream(s);
  }

  /** Hands the written descriptors to the engine: RX doorbell first, then TX. */
  doorbell(): void {
    const n = this.unannounced;
    if (n === 0) return;
    ringDoorbells(this.engine.unit, this.regs, n);
    this.rung += n;
    this.submitted += n;
    this.doorbells++;
  }

  /** Reads both heads (two register reads) and updates what is known consumed. */
  observe(): void {
    const unit = this.engine.unit;
    const R = this.regs;
    for (const [h, p, io] of [
      [R.m2s, this.udma.tx, unit.m2s],
      [R.s2m, this.udma.rx, unit.s2m],
    ] as const) {
      const w = io.read32(h.headOffset.reg.offset);
      const off = h.headOffset.get(w);
      const rid = h.headRingId.get(w);
      if (!p.observeHead(off, rid)) {
        throw new NxdmaError(
          'QUEUE_STATE',
          `udma${this.placement.engine} queue ${this.placement.qid}: the ${p.kind.toUpperCase()} head (offset ${off}, ring id ${rid}) ` +
            `is inconsistent with the tail (offset ${p.tail}, ring id ${p.ringId})`,
          {
            where: `${h.headOffset.reg.path}`,
            expected: `at most ${p.pending} behind the tail`,
            actual: { off, rid },
          },
        );
      }
    }
  }
}

export interface RingLayout {
  /** Device address of the first ring (256-byte aligned). */
  base: number;
  /** Ring size in descriptors of each placed queue (same index as `placements`). */
  sizes: number[];
}

/** Bytes of memory the rings of `sizes` take (a TX and an RX ring per queue). */
export function ringBytes(sizes: readonly number[]): number {
  let n = 0;
  for (const s of sizes) n += 2 * s * BD_SIZE;
  return n;
}

export interface FlowRingsOptions {
  /** Write registers holding inferred facts during bring-up (default false). */
  allowInferred?: boolean;
  maxPerPacket: number;
  shadow?: RegisterShadow;
}

/** Every engine and queue a flow uses. */
export class FlowRings {
  readonly device: Device;
  readonly engines = new Map<number, UdmaEngine>();
  readonly queues: FlowQueue[] = [];
  readonly clock: DeviceClock | null;
  readonly shadow: RegisterShadow;
  drains = 0;

  constructor(device: Device, opts: FlowRingsOptions) {
    this.device = device;
    this.clock = deviceClockOf(device);
    this.shadow = opts.shadow ?? deviceShadow(device);
    this.opts = opts;
  }

  private readonly opts: FlowRingsOptions;

  /** Brings up every engine of `placements` and initializes their queues on the laid-out rings. */
  setup(placements: readonly QueuePlacement[], layout: RingLayout): void {
    for (const p of placements) {
      if (!this.engines.has(p.engine)) {
        const e = new UdmaEngine(this.device, p.engine, {
          allowInferred: this.opts.allowInferred === true,
          shadow: this.shadow,
        });
        e.bringUp({ maxDescPerPkt: FLOW_MAX_DESC_PER_PKT });
        this.engines.set(p.engine, e);
      }
    }
    let addr = layout.base;
    placements.forEach((p, i) => {
      const size = layout.sizes[i];
      const tx = { base: addr, size };
      addr += size * BD_SIZE;
      const rx = { base: addr, size };
      addr += size * BD_SIZE;
      const e = this.engines.get(p.engine)!;
      const uq = e.initQueue(p.qid, { tx, rx });
      this.queues.push(new FlowQueue(e, p, uq, this.opts.maxPerPacket));
    });
  }

  /** Rings every queue's doorbell that has unannounced descriptors. */
  doorbellAll(): void {
    for (const q of this.queues) q.doorbell();
  }

  /**
   * Doorbells everything, then lets the device run until every handed-over descriptor is consumed.
   * A device with a clock (the mock) is stepped until nothing moves; a real device is polled until
   * `timeoutMs`. Throws ENGINE_ERROR (with the engine's state) when descriptors stay unconsumed.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.doorbellAll();
    this.drains++;
    const busy = (): FlowQueue[] => {
      const out: FlowQueue[] = [];
      for (const q of this.queues) {
        if (q.inFlight === 0) continue;
        q.observe();
        if (q.inFlight > 0) out.push(q);
      }
      return out;
    };
    if (this.clock !== null) {
      if (isSimulated(this.device)) this.device.runUntilIdle();
      else while (this.clock.step());
      const stuck = busy();
      if (stuck.length > 0) throw this.stuckError(stuck, 'the device stopped');
      return;
    }
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const stuck = busy();
      if (stuck.length === 0) return;
      for (const [, e] of this.engines) {
        if (e.health().aborted) throw this.stuckError(stuck, `udma${e.engine} aborted`);
      }
      if (performance.now() >= deadline) {
        throw new NxdmaError(
          'TIMEOUT',
          `${stuck.length} queue(s) still have descriptors in flight after ${timeoutMs} ms`,
          {
            where: stuck
              .map((q) => `udma${q.placement.engine} queue ${q.placement.qid}`)
              .join(', '),
            expected: `every descriptor consumed within ${timeoutMs} ms`,
            actual: stuck.map((q) => q.inFlight),
          },
        );
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  private stuckError(stuck: FlowQueue[], why: string): NxdmaError {
    const list = isSimulated(this.device) ? this.device.faults() : [];
    const detail = stuck.map((q) => {
      const e = this.engines.get(q.placement.engine)!;
      const st = e.queueStatus(q.placement.qid);
      return {
        queue: q.placement.queue.name,
        engine: q.placement.engine,
        qid: q.placement.qid,
        inFlight: q.inFlight,
        status: { m2s: hex(st.m2s, 8), s2m: hex(st.s2m, 8) },
      };
    });
    return new NxdmaError(
      'ENGINE_ERROR',
      `${why} with descriptors in flight on ${detail.map((d) => `udma${d.engine} queue ${d.qid} (${d.inFlight})`).join(', ')}` +
        (list.length > 0 ? `: ${list[0].message}` : ''),
      {
        where: detail.map((d) => `udma${d.engine} queue ${d.qid}`).join(', '),
        expected: 'every descriptor consumed',
        actual: detail,
        faults: list,
      },
    );
  }
}
