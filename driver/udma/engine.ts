/**
 * UdmaEngine: the driver of one UDMA engine of a Device (csr/io.ts), over its M2S and S2M register
 * windows and the device's DMA-visible memory. It runs on the mock and on a mapped device alike.
 *
 *   const eng = new UdmaEngine(device, 0);
 *   eng.bringUp();                                           // UDMA-FACTS.md order
 *   eng.initQueue(0, { tx: { base, size: 256 }, rx: { base: base + 4096, size: 256 } });
 *   eng.copy(src, dst, 1 << 20, { queue: 0 });               // 16 descriptor pairs, 2 doorbells
 *   await eng.waitIdle({ timeoutMs: 100 });
 *
 * Completion is read from head pointers. A real device runs by itself; the mock runs only when
 * told to (or on register reads, by default): `waitIdle` lets a device that is a DeviceClock make
 * progress by calling its `step()` between polls (see `clock` in UdmaEngineOptions).
 */
import { NxdmaError } from '../../common/errors.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import {
  isSimulated,
  type Device,
  type DeviceFault,
  type MemoryIO,
  type UdmaUnitIO,
} from '../../csr/io.ts';
import { MAX_DESC_PER_PKT } from '../../csr/formats/ring.ts';
import { dmaAllocator, type DmaAllocator } from './alloc.ts';
import { bringUpEngine, engineRegs } from './bringup.ts';
import { dumpQueue, engineInfo, formatDump, readHealth } from './dump.ts';
import { EngineIO } from './engine-io.ts';
import type {
  BringUpOptions,
  BringUpReport,
  DeviceClock,
  EngineDump,
  EngineHealth,
  EngineInfo,
  QueueDump,
  StartReport,
  UdmaEngineOptions,
  WaitOptions,
} from './engine-types.ts';
import { queueRegs } from './queue-regs.ts';
import {
  UdmaQueue,
  type CopyOptions,
  type CopyRequest,
  type OpFault,
  type QueueOwner,
  type QueueRings,
  type QueueStats,
} from './queue.ts';
import { checkUnitWindows, inferredWrite, queueCount, type Reg } from './regs.ts';
import {
  RingGuard,
  checkRingOverlap,
  snapshotQueueRings,
  validateRing,
  type RingSpec,
} from './ring.ts';
import { deviceShadow, type RegisterShadow } from './shadow.ts';
import { waitIdle } from './wait.ts';

// Types users of the engine module name (the rest are public through index.ts).
export type { DeviceClock, UdmaEngineOptions } from './engine-types.ts';

/** The device's own clock when it is a simulation (csr/io.ts `isSimulated`), else null. */
export function deviceClockOf(device: Device): DeviceClock | null {
  return isSimulated(device) ? device : null;
}

export class UdmaEngine implements QueueOwner {
  readonly device: Device;
  readonly engine: number;
  readonly unit: UdmaUnitIO;
  readonly memory: MemoryIO;
  readonly shadow: RegisterShadow;
  readonly allowInferred: boolean;
  readonly clock: DeviceClock | null;
  readonly checkBuffers: boolean;
  /** Number of queues per half (M2S_Q / S2M_Q instances). */
  readonly queueCount: number;
  private readonly eio: EngineIO;
  private readonly queues: (UdmaQueue | undefined)[];
  /** Every ring of this engine's queues: copies may not touch them. */
  private readonly guard = new RingGuard();
  private broughtUp = false;
  /** M2S_rd.desc_pref_cfg_2.max_desc_per_pkt as bring-up wrote it (the default otherwise). */
  maxDescPerPkt = MAX_DESC_PER_PKT;
  /** Fault records of the device already accounted for (start() marks them). */
  private readonly seenFaults = new WeakSet<object>();

  constructor(device: Device, engine: number, opts: UdmaEngineOptions = {}) {
    checkSafetyFlags(opts, ['allowInferred', 'checkBuffers'], 'UdmaEngine options');
    this.device = device;
    this.engine = engine;
    this.unit = device.udma(engine);
    checkUnitWindows(this.unit, engine);
    this.memory = device.memory;
    this.shadow = opts.shadow ?? deviceShadow(device);
    this.allowInferred = opts.allowInferred === true;
    this.clock = opts.clock === undefined ? deviceClockOf(device) : opts.clock;
    this.checkBuffers = opts.checkBuffers !== false;
    this.queueCount = Math.min(queueCount('udma_m2s'), queueCount('udma_s2m'));
    this.eio = new EngineIO(engine, this.unit, this.shadow);
    this.queues = new Array<UdmaQueue | undefined>(this.queueCount);
  }

  /** MMIO reads and writes this engine's driver has issued (doorbells included). */
  get mmio(): { reads: number; writes: number } {
    return { reads: this.eio.reads, writes: this.eio.writes };
  }

  // -------------------------------------------------------------------------------------------
  // Bring-up.

  /**
   * Engine bring-up in the order of UDMA-FACTS.md, every register written as a whole word (the
   * reset word with the named fields replaced; no reads):
   *
   * 1. M2S_rd.data_cfg, AXI_M2S.ostand_cfg (128 data reads, 128 descriptor reads, 128 completion
   *    requests, 32 completion data writes), M2S.cfg_len (max_pkt_size 0xFFFFF, encode_64k),
   *    M2S.stream_cfg (rd_mode 1, rd_th 1), AXI_S2M.ostand_cfg_rd / ostand_cfg_wr;
   * 2. every queue's cfg: reset value | en_pref | en_scheduling (M2S), | en_stream (S2M);
   * 3. M2S_rd.desc_pref_cfg_2 = max_desc_per_pkt | pref_force_rr; desc_pref_cfg_3 (pref_thr,
   *    min_burst_above_thr 8, min_burst_below_thr 1) on both halves; AXI desc_rd_cfg_3 (max burst 8,
   *    always_break_on_max_boundary) on both halves;
   * 4. S2M_comp.cfg_1c = q_promotion | completion descriptor size in words;
   * 5. change_state.normal on both halves.
   *
   * Registers holding inferred facts are skipped unless the engine allows them (see the report).
   * Bring-up leaves the prefetch arbiter in round robin: QoS programming must clear pref_force_rr.
   */
  bringUp(opts: BringUpOptions = {}): BringUpReport {
    const r = bringUpEngine(this.eio, this.queueCount, this.allowInferred, opts);
    this.broughtUp = true;
    this.maxDescPerPkt = r.maxDescPerPkt;
    return r.report;
  }

  /** True once bringUp ran on this driver. */
  get isBroughtUp(): boolean {
    return this.broughtUp;
  }

  // -------------------------------------------------------------------------------------------
  // Queues.

  private checkQueue(q: number, where: string): void {
    if (!Number.isInteger(q) || q < 0 || q >= this.queueCount) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}: queue ${String(q)} does not exist (queues 0..${this.queueCount - 1})`,
        {
          where,
          expected: `0..${this.queueCount - 1}`,
          actual: q,
        },
      );
    }
  }

  /**
   * Validates the rings of queue q (UDMA-FACTS.md "Rings": base and end 256-byte aligned, size a
   * multiple of 16, 32 <= size <= 2^24 - 16, inside mapped memory, not overlapping another ring of
   * this engine), then programs both halves (see UdmaQueue.program). The rings are read once into a
   * private snapshot, which is what gets validated and programmed.
   *
   * Initializing a queue that is already initialized programs the same UdmaQueue again (the handle
   * stays valid, sequence numbers and counters go on): its copies in flight are dropped exactly as
   * by `reset` (counted in `discarded`, reported discarded, their descriptors scrubbed). A refused
   * initQueue changes nothing, on the device or in the driver.
   */
  initQueue(q: number, rings: QueueRings): UdmaQueue {
    const where = `udma${this.engine} queue ${q}`;
    this.checkQueue(q, where);
    const snap = snapshotQueueRings(rings, where);
    validateRing(snap.tx, this.memory, `${where} TX ring`);
    validateRing(snap.rx, this.memory, `${where} RX ring`);
    const others: [string, RingSpec][] = [];
    for (const other of this.queues) {
      if (!other || other.index === q) continue;
      const o = other.rings;
      others.push([`queue ${other.index} TX`, o.tx], [`queue ${other.index} RX`, o.rx]);
    }
    checkRingOverlap(where, snap, others);
    let queue = this.queues[q];
    if (queue) {
      queue.reinit(snap);
    } else {
      queue = new UdmaQueue(
        this.eio,
        queueRegs(q),
        snap,
        this.memory,
        this.checkBuffers,
        this.guard,
        this,
      );
      queue.program();
      this.queues[q] = queue;
    }
    this.updateGuard();
    return queue;
  }

  /** The rings every copy of this engine must stay out of. */
  private updateGuard(): void {
    const list = [];
    for (const h of this.queues) {
      if (!h) continue;
      const r = h.rings;
      for (const [kind, ring] of [
        ['TX', r.tx],
        ['RX', r.rx],
      ] as const) {
        list.push({
          base: ring.base,
          end: ring.base + ring.size * 16,
          name: `queue ${h.index} ${kind} ring`,
        });
      }
    }
    this.guard.set(list);
  }

  /** The initialized queue q; QUEUE_STATE when initQueue has not run for it. */
  queue(q: number): UdmaQueue {
    // The hot path (every copy names its queue) builds no message: an initialized queue's index
    // is valid by construction; anything else goes through the checks below.
    const h = Number.isInteger(q) ? this.queues[q] : undefined;
    if (h !== undefined) return h;
    const where = `udma${this.engine} queue ${q}`;
    this.checkQueue(q, where);
    throw new NxdmaError('QUEUE_STATE', `${where} is not initialized (call initQueue first)`, {
      where,
      expected: 'an initialized queue',
      actual: 'uninitialized',
    });
  }

  /** Indexes of the initialized queues. */
  initializedQueues(): number[] {
    const out: number[] = [];
    for (let q = 0; q < this.queues.length; q++) if (this.queues[q]) out.push(q);
    return out;
  }

  /** One copy on `opts.queue` (see UdmaQueue.copy). Returns its sequence number on that queue. */
  copy(src: number, dst: number, bytes: number, opts: CopyOptions & { queue: number }): number {
    return this.queue(opts?.queue).copy(src, dst, bytes, opts);
  }

  /** Many copies on one queue, one doorbell per ring (see UdmaQueue.copyBatch). */
  copyBatch(queue: number, copies: readonly CopyRequest[]): number {
    return this.queue(queue).copyBatch(copies);
  }

  pause(q: number): void {
    this.queue(q).pause();
  }

  resume(q: number): void {
    this.queue(q).resume();
  }

  reset(q: number): void {
    this.queue(q).reset();
  }

  // -------------------------------------------------------------------------------------------
  // Completion.

  /**
   * Polls every queue with copies in flight (one RX head read each). Returns the number of copies
   * newly seen complete.
   */
  poll(): number {
    let n = 0;
    for (const h of this.queues) if (h && h.inFlight > 0) n += h.poll();
    return n;
  }

  /** Reads M2S.state and S2M.state (two reads). */
  health(): EngineHealth {
    return readHealth(this.eio);
  }

  /** The raw status words of queue q (M2S_Q[q].status, S2M_Q[q].status): two reads. */
  queueStatus(q: number): { m2s: number; s2m: number } {
    this.checkQueue(q, `udma${this.engine} queue ${q}`);
    const Q = queueRegs(q);
    return { m2s: this.eio.read(Q.m2s.status), s2m: this.eio.read(Q.s2m.status) };
  }

  /**
   * Waits until every copy submitted on the engine (or on `opts.queue`) is complete, polling the RX
   * heads. Between polls a DeviceClock is stepped (the mock); otherwise the wait yields to the event
   * loop. An engine abort ends the wait with ENGINE_ERROR; running out of time with TIMEOUT (both
   * count an error on each queue still in flight).
   */
  waitIdle(opts: WaitOptions = {}): Promise<void> {
    return waitIdle(this, opts);
  }

  /**
   * Per-queue counters of every initialized queue; `{ reset: true }` zeroes them after reading
   * (dmadev rte_dma_stats_get / rte_dma_stats_reset).
   */
  stats(opts?: { reset?: boolean }): QueueStats[] {
    if (opts !== undefined && (opts === null || typeof opts !== 'object'))
      throw new NxdmaError('BAD_ARGUMENT', `udma${this.engine} stats: options must be an object`, {
        where: `udma${this.engine} stats`,
        expected: '{ reset?: boolean }',
        actual: opts,
      });
    const reset = opts?.reset;
    if (reset !== undefined && typeof reset !== 'boolean')
      throw new NxdmaError('BAD_ARGUMENT', `udma${this.engine} stats: reset must be a boolean`, {
        where: `udma${this.engine} stats.reset`,
        expected: 'true | false',
        actual: reset,
      });
    return this.queues
      .filter((x): x is UdmaQueue => x !== undefined)
      .map((h) => h.stats({ reset: reset === true }));
  }

  // -------------------------------------------------------------------------------------------
  // dmadev-style control: info, dump, stop / start, the allocator.

  /** Capabilities and limits (dmadev rte_dma_info_get). Reads nothing. */
  info(): EngineInfo {
    return engineInfo(this);
  }

  /**
   * The engine's state and every queue's ring registers as read from the device (reads only),
   * with the driver's producer state and counters for the queues it drives (dmadev rte_dma_dump).
   * `{ format: 'text' }` renders it for people.
   */
  dump(opts?: { queues?: number[]; format?: 'json' }): EngineDump;
  dump(opts: { queues?: number[]; format: 'text' }): string;
  dump(opts: { queues?: number[]; format?: 'json' | 'text' } = {}): EngineDump | string {
    const where = `udma${this.engine} dump`;
    if (opts === null || typeof opts !== 'object')
      throw new NxdmaError('BAD_ARGUMENT', `${where}: options must be an object`, {
        where,
        expected: "{ queues?, format?: 'json' | 'text' }",
        actual: opts,
      });
    const format = opts.format ?? 'json';
    if (format !== 'json' && format !== 'text')
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}: format ${String(format)} is not json or text`,
        {
          where: `${where}.format`,
          expected: "'json' | 'text'",
          actual: format,
        },
      );
    const list = opts.queues === undefined ? [...Array(this.queueCount).keys()] : [...opts.queues];
    for (const q of list) this.checkQueue(q, where);
    const health = this.health();
    const queues: QueueDump[] = list.map((q) => dumpQueue(this.eio, q, this.queues[q]));
    const out: EngineDump = {
      engine: this.engine,
      device: {
        name: this.device.name,
        profile: this.device.profile,
        isHardware: this.device.isHardware,
      },
      health,
      maxDescPerPkt: this.maxDescPerPkt,
      queues,
    };
    return format === 'text' ? formatDump(out) : out;
  }

  /**
   * Stops the engine (dmadev rte_dma_stop): change_state.dis on M2S, then S2M. Nothing moves until
   * `start()`; copies may still be enqueued and submitted.
   */
  stop(): void {
    const R = engineRegs();
    this.changeState([R.m2sChangeState, R.s2mChangeState], 'dis');
  }

  /**
   * Starts the engine again (dmadev rte_dma_start). After an abort it recovers both halves: the
   * operation each fault hit is marked aborted (with the fault), every initialized queue is reset
   * (its other operations in flight are discarded and their descriptors scrubbed, see `reset`), the
   * device's fault records are marked seen, then change_state.normal is written on M2S and S2M.
   * Without an abort only the change_state.normal writes happen and queued work resumes.
   */
  start(): StartReport {
    const R = engineRegs();
    const health = this.health();
    const report: StartReport = {
      engine: this.engine,
      recovered: false,
      queuesReset: [],
      discarded: 0,
      aborted: 0,
    };
    if (health.aborted) {
      for (const h of this.queues) if (h && h.inFlight > 0) h.noteAbort();
      for (const h of this.queues) {
        if (!h) continue;
        const before = h.stats();
        h.reset();
        const after = h.stats();
        report.discarded += after.discarded - before.discarded;
        report.aborted += after.aborted;
        report.queuesReset.push(h.index);
      }
      for (const f of this.deviceFaults() ?? []) this.seenFaults.add(f);
      report.recovered = true;
    }
    this.changeState([R.m2sChangeState, R.s2mChangeState], 'normal');
    return report;
  }

  private changeState(list: Reg[], name: 'dis' | 'normal'): void {
    for (const r of list) {
      const why = inferredWrite(r, [name]);
      if (why.length > 0 && !this.allowInferred) {
        throw new NxdmaError(
          'REGISTER_INFERRED',
          `udma${this.engine} ${r.path}.${name}: ${why.join(', ')} inferred; pass allowInferred to write it`,
          { where: r.path, expected: 'allowInferred: true', actual: why },
        );
      }
    }
    for (const r of list) this.eio.write(r, r.encode({ [name]: 1 }, 0));
  }

  /** The device's fault records when it keeps them (a simulation does), else null. */
  private deviceFaults(): readonly DeviceFault[] | null {
    return isSimulated(this.device) ? this.device.faults() : null;
  }

  /** @internal QueueOwner: the latest unseen abort the device recorded for queue q. */
  faultOf(q: number): OpFault | null | undefined {
    const all = this.deviceFaults();
    if (all === null) return null;
    const mine = all.filter(
      (f) => f.engine === this.engine && f.aborted && !this.seenFaults.has(f),
    );
    if (mine.length === 0) return null;
    const f = [...mine].reverse().find((x) => x.queue === q);
    if (!f) return undefined;
    return { address: f.address, kind: f.kind, half: f.half, descriptor: null, message: f.message };
  }

  /**
   * The allocator of the device's DMA-visible memory (one per device, shared by its engines): it
   * keeps clear of every ring of this engine.
   */
  get allocator(): DmaAllocator {
    const a = dmaAllocator(this.device);
    a.avoid(this.avoidRings);
    return a;
  }

  private readonly avoidRings = (): { base: number; end: number; name: string }[] =>
    this.guard.list().map((r) => ({ ...r, name: `udma${this.engine} ${r.name}` }));
}
