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
import { NxdmaError, hex } from '../../common/errors.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import {
  isSimulated,
  type Device,
  type DeviceFault,
  type MemoryIO,
  type Simulation,
  type UdmaUnitIO,
} from '../../csr/io.ts';
import { fieldValue } from '../../csr/runtime/fields.ts';
import { BD_MAX_LEN } from '../../csr/formats/bd.ts';
import {
  MAX_DESC_PER_PKT as MAX_DESC_PER_PKT_DEFAULT,
  MAX_DESC_PER_PKT_MAX,
  MAX_DESC_PER_PKT_MIN,
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_SIZE_MULTIPLE,
} from '../../csr/formats/ring.ts';
import { dmaAllocator, type DmaAllocator } from './alloc.ts';
import { EngineIO, type RegisterWrite } from './engine-io.ts';
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
import {
  checkUnitWindows,
  field,
  inferredWrite,
  reg,
  queueCount,
  type Reg,
  type UdmaFileName,
} from './regs.ts';
import { RingGuard, ringsOverlap, validateRing, type RingSpec } from './ring.ts';
import { deviceShadow, type RegisterShadow } from './shadow.ts';

/**
 * A device that only makes progress when told to (the mock). `step()` moves at most one packet
 * per engine and returns false when nothing can move. A real device runs by itself and is not one.
 */
export type DeviceClock = Pick<Simulation, 'step'>;

/** The device's own clock when it is a simulation (csr/io.ts `isSimulated`), else null. */
export function deviceClockOf(device: Device): DeviceClock | null {
  return isSimulated(device) ? device : null;
}

export interface UdmaEngineOptions {
  /**
   * Write registers that hold inferred facts (spec/REGISTERS.md) during bring-up:
   * AXI_M2S.desc_rd_cfg_3 (its max_desc_burst width is inferred). Without it such registers are
   * skipped and listed in the bring-up report, on the mock as on hardware. Default false.
   */
  allowInferred?: boolean;
  /**
   * Register shadow. Default: the device's own (deviceShadow), which applyQos and every other
   * layer share; the words it knows belong to the device's register windows either way.
   */
  shadow?: RegisterShadow;
  /**
   * How `waitIdle` advances a device that does not run by itself. Default: the device's own
   * `step()` when it is a non-hardware Device that has one (the mock); null on hardware.
   */
  clock?: DeviceClock | null;
  /**
   * Copies check that source and destination lie in the device's mapped memory (MEMORY_UNMAPPED
   * otherwise). Set false to copy between device addresses the process has not mapped. Default true.
   */
  checkBuffers?: boolean;
}

export interface BringUpOptions {
  /**
   * M2S_rd.desc_pref_cfg_2.max_desc_per_pkt, also the prefetch threshold (pref_thr) of both halves:
   * 8..128. Default 65 (64 + 1 on these devices).
   */
  maxDescPerPkt?: number;
  /**
   * M2S_rd.data_cfg.data_fifo_depth in data beats. No source states the trn2 value; the default 1024
   * (32 KiB of 256-bit beats) is the public driver's documented example.
   */
  dataFifoDepth?: number;
}

/** What bring-up did. */
export interface BringUpReport {
  engine: number;
  /** Every register write, in order. */
  writes: RegisterWrite[];
  /** Registers left at their current value because they hold inferred facts (no allowInferred). */
  skipped: { file: UdmaFileName; path: string; offset: number; reason: string }[];
}

/** What one read of the two state registers shows. */
export interface EngineHealth {
  engine: number;
  m2s: Record<string, number>;
  s2m: Record<string, number>;
  /** Some state field of either half shows abort. */
  aborted: boolean;
}

/** What the engine and its driver can do (dmadev rte_dma_info_get). */
export interface EngineInfo {
  engine: number;
  device: { name: string; profile: string; isHardware: boolean };
  /** Queues per half (virtual channels in dmadev terms). */
  queues: number;
  initializedQueues: number[];
  /** Ring sizes in descriptors. */
  minRingSize: number;
  maxRingSize: number;
  ringSizeMultiple: number;
  ringAlign: number;
  /** TX descriptors one packet (one scatter-gather copy) may hold: max_desc_per_pkt. */
  maxDescPerPkt: number;
  /** Source segments of one scatter-gather copy (each at most maxBytesPerDescriptor). */
  maxSgSegments: number;
  maxBytesPerDescriptor: number;
  /** The largest single copy: one ring of 64 KiB descriptors (the smallest initialized ring). */
  maxCopyBytes: number | null;
  capabilities: string[];
  broughtUp: boolean;
  checkBuffers: boolean;
}

/** One queue in a dump: the registers as read, and the driver's view when it drives the queue. */
export interface QueueDump {
  queue: number;
  m2s: HalfDump;
  s2m: HalfDump;
  driver: {
    rings: QueueRings;
    tx: { tail: number; ringId: number; produced: number; consumed: number };
    rx: { tail: number; ringId: number; produced: number; consumed: number };
    stats: QueueStats;
  } | null;
}

export interface HalfDump {
  cfg: number;
  enabled: boolean;
  status: number;
  ringBase: number;
  ringSize: number;
  head: { offset: number; ringId: number };
  tail: { offset: number; ringId: number };
}

/** `dump()`: the engine's state, every queue's ring registers, and the driver's bookkeeping. */
export interface EngineDump {
  engine: number;
  device: { name: string; profile: string; isHardware: boolean };
  health: EngineHealth;
  maxDescPerPkt: number;
  queues: QueueDump[];
}

/** What `start()` did. */
export interface StartReport {
  engine: number;
  /** The engine was aborted and has been recovered. */
  recovered: boolean;
  /** Queues reset during the recovery. */
  queuesReset: number[];
  /** Operations the recovery discarded (in flight behind the fault). */
  discarded: number;
  /** Operations the fault aborted. */
  aborted: number;
}

export interface WaitOptions {
  /** Give up after this many milliseconds (TIMEOUT). Default 1000. */
  timeoutMs?: number;
  /** Only this queue (default: every initialized queue). */
  queue?: number;
}

// Bring-up values (UDMA-FACTS.md "Engine bring-up"; the public driver's udma_set_defaults).
const DATA_FIFO_DEPTH_DEFAULT = 1024;
/** M2S_rd.data_cfg.max_pkt_limit: the public driver keeps its reset value. */
const OSTAND_M2S = { max_data_rd: 128, max_desc_rd: 128, max_comp_req: 128, max_comp_data_wr: 32 };
const OSTAND_S2M_RD = { max_desc_rd_ostand: 128, max_stream_ack: 0x40 };
const OSTAND_S2M_WR = {
  max_data_wr_ostand: 128,
  max_data_beats_wr: 0x40,
  max_comp_req: 128,
  max_comp_data_wr: 0x40,
};
const MIN_BURST_ABOVE_THR = 8;
const MIN_BURST_BELOW_THR = 1;
const AXI_DESC_MAX_BURST = 8;
/** Completion descriptor size in words (16-byte completion descriptors). */
const COMP_DESC_WORDS = 16 / 4;

/** Registers the engine-level code uses, resolved once. */
interface EngineRegs {
  m2sDataCfg: Reg;
  m2sOstand: Reg;
  m2sCfgLen: Reg;
  m2sStreamCfg: Reg;
  s2mOstandRd: Reg;
  s2mOstandWr: Reg;
  m2sPref2: Reg;
  m2sPref3: Reg;
  s2mPref3: Reg;
  m2sAxiDescRd3: Reg;
  s2mAxiDescRd3: Reg;
  s2mComp1c: Reg;
  m2sChangeState: Reg;
  s2mChangeState: Reg;
  m2sState: Reg;
  s2mState: Reg;
}

let engineRegs: EngineRegs | null = null;
function regs(): EngineRegs {
  if (engineRegs) return engineRegs;
  const m = 'udma_m2s';
  const s = 'udma_s2m';
  engineRegs = {
    m2sDataCfg: reg(m, 'M2S_rd.data_cfg'),
    m2sOstand: reg(m, 'AXI_M2S.ostand_cfg'),
    m2sCfgLen: reg(m, 'M2S.cfg_len'),
    m2sStreamCfg: reg(m, 'M2S.stream_cfg'),
    s2mOstandRd: reg(s, 'AXI_S2M.ostand_cfg_rd'),
    s2mOstandWr: reg(s, 'AXI_S2M.ostand_cfg_wr'),
    m2sPref2: reg(m, 'M2S_rd.desc_pref_cfg_2'),
    m2sPref3: reg(m, 'M2S_rd.desc_pref_cfg_3'),
    s2mPref3: reg(s, 'S2M_rd.desc_pref_cfg_3'),
    m2sAxiDescRd3: reg(m, 'AXI_M2S.desc_rd_cfg_3'),
    s2mAxiDescRd3: reg(s, 'AXI_S2M.desc_rd_cfg_3'),
    s2mComp1c: reg(s, 'S2M_comp.cfg_1c'),
    m2sChangeState: reg(m, 'M2S.change_state'),
    s2mChangeState: reg(s, 'S2M.change_state'),
    m2sState: reg(m, 'M2S.state'),
    s2mState: reg(s, 'S2M.state'),
  };
  return engineRegs;
}

/** `dump()` as text. */
export function formatDump(d: EngineDump): string {
  const h = d.health;
  const state = (x: Record<string, number>): string =>
    Object.entries(x)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  const lines = [
    `udma${d.engine} on ${d.device.name} (${d.device.profile}${d.device.isHardware ? ', hardware' : ''})`,
    `  state: ${h.aborted ? 'ABORTED' : 'ok'}; M2S ${state(h.m2s)}; S2M ${state(h.s2m)}`,
    `  max_desc_per_pkt ${d.maxDescPerPkt}`,
  ];
  for (const q of d.queues) {
    const idle =
      q.driver === null &&
      q.m2s.ringSize === 0 &&
      q.s2m.ringSize === 0 &&
      q.m2s.status === 0 &&
      q.s2m.status === 0;
    if (idle) continue;
    lines.push(`  queue ${q.queue}:`);
    for (const [name, x] of [
      ['M2S', q.m2s],
      ['S2M', q.s2m],
    ] as const) {
      lines.push(
        `    ${name} ${x.enabled ? 'enabled ' : 'disabled'} ring ${hex(x.ringBase)} x ${x.ringSize}  ` +
          `head ${x.head.offset}/${x.head.ringId}  tail ${x.tail.offset}/${x.tail.ringId}  ` +
          `cfg ${hex(x.cfg, 8)}  status ${hex(x.status, 8)}`,
      );
    }
    if (q.driver) {
      const s = q.driver.stats;
      lines.push(
        `    driver: tx tail ${q.driver.tx.tail}/${q.driver.tx.ringId}, rx tail ${q.driver.rx.tail}/${q.driver.rx.ringId}; ` +
          `submitted ${s.submitted}, enqueued ${s.enqueued}, completed ${s.completed}, in flight ${s.inFlight}, ` +
          `aborted ${s.aborted}, discarded ${s.discarded}, refused ${s.refused}, errors ${s.errors}${s.paused ? ', paused' : ''}`,
      );
    }
  }
  if (lines.length === 3) lines.push('  no queue programmed');
  return lines.join('\n');
}

/** Reads `rings` once (each property once) into plain numbers; RING_INVALID when it has no shape. */
function snapshotRings(rings: unknown, where: string): QueueRings {
  const bad = (what: string, actual: unknown): NxdmaError =>
    new NxdmaError(
      'RING_INVALID',
      `${where}: ${what} must be { tx: { base, size }, rx: { base, size } }`,
      { where, expected: '{ tx: RingSpec, rx: RingSpec }', actual },
    );
  if (!rings || typeof rings !== 'object') throw bad('rings', rings);
  const r = rings as Partial<QueueRings>;
  const tx: unknown = r.tx;
  const rx: unknown = r.rx;
  // A ring that is not an object is left to validateRing, which names the ring and the field.
  const one = (spec: unknown): RingSpec => {
    if (!spec || typeof spec !== 'object') return {} as RingSpec;
    const { base, size } = spec as RingSpec;
    return { base, size };
  };
  return { tx: one(tx), rx: one(rx) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => (ms <= 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));
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
  maxDescPerPkt = MAX_DESC_PER_PKT_DEFAULT;
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
    const maxDesc = opts.maxDescPerPkt ?? MAX_DESC_PER_PKT_DEFAULT;
    if (
      !Number.isInteger(maxDesc) ||
      maxDesc < MAX_DESC_PER_PKT_MIN ||
      maxDesc > MAX_DESC_PER_PKT_MAX
    ) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `udma${this.engine} bring-up: maxDescPerPkt ${String(maxDesc)} is outside ${MAX_DESC_PER_PKT_MIN}..${MAX_DESC_PER_PKT_MAX}`,
        {
          where: 'bringUp.maxDescPerPkt',
          expected: `${MAX_DESC_PER_PKT_MIN}..${MAX_DESC_PER_PKT_MAX}`,
          actual: maxDesc,
        },
      );
    }
    const R = regs();
    const depth = opts.dataFifoDepth ?? DATA_FIFO_DEPTH_DEFAULT;
    const depthField = R.m2sDataCfg.field('data_fifo_depth');
    if (!Number.isInteger(depth) || depth < 1 || depth > depthField.max) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `udma${this.engine} bring-up: dataFifoDepth ${String(depth)} is outside 1..${depthField.max}`,
        { where: 'bringUp.dataFifoDepth', expected: `1..${depthField.max}`, actual: depth },
      );
    }
    // Compose every word first (validation), then write. Each entry names the fields it sets.
    const plan: [Reg, Record<string, number>, number][] = [];
    const full = (r: Reg, v: Record<string, number>): void => void plan.push([r, v, r.encode(v)]);
    // 1.
    full(R.m2sDataCfg, { data_fifo_depth: depth });
    full(R.m2sOstand, OSTAND_M2S);
    full(R.m2sCfgLen, { max_pkt_size: R.m2sCfgLen.field('max_pkt_size').max, encode_64k: 1 });
    full(R.m2sStreamCfg, { rd_mode: 1, rd_th: 1 });
    full(R.s2mOstandRd, OSTAND_S2M_RD);
    full(R.s2mOstandWr, OSTAND_S2M_WR);
    // 2.
    for (let q = 0; q < this.queueCount; q++) {
      for (const h of [queueRegs(q).m2s, queueRegs(q).s2m]) {
        const names: Record<string, number> = {};
        for (const f of h.enables) names[f.name] = 1;
        plan.push([h.cfg, names, (h.cfg.reset | h.enableMask) >>> 0]);
      }
    }
    // 3.
    full(R.m2sPref2, { max_desc_per_pkt: maxDesc, pref_force_rr: 1 });
    const pref3 = {
      pref_thr: maxDesc,
      min_burst_above_thr: MIN_BURST_ABOVE_THR,
      min_burst_below_thr: MIN_BURST_BELOW_THR,
    };
    full(R.m2sPref3, pref3);
    full(R.s2mPref3, pref3);
    const axi = { max_desc_burst: AXI_DESC_MAX_BURST, always_break_on_max_boundary: 1 };
    full(R.m2sAxiDescRd3, axi);
    full(R.s2mAxiDescRd3, axi);
    // 4.
    full(R.s2mComp1c, { q_promotion: 1, desc_size: COMP_DESC_WORDS });
    // 5.
    plan.push([R.m2sChangeState, { normal: 1 }, R.m2sChangeState.encode({ normal: 1 }, 0)]);
    plan.push([R.s2mChangeState, { normal: 1 }, R.s2mChangeState.encode({ normal: 1 }, 0)]);

    const report: BringUpReport = { engine: this.engine, writes: [], skipped: [] };
    this.eio.log = report.writes;
    try {
      for (const [r, named, v] of plan) {
        const why = inferredWrite(r, Object.keys(named));
        if (why.length > 0 && !this.allowInferred) {
          report.skipped.push({
            file: r.file,
            path: r.path,
            offset: r.offset,
            reason: `${why.join(', ')} ${why.length > 1 ? 'are' : 'is'} inferred; pass allowInferred to write it`,
          });
          continue;
        }
        this.eio.write(r, v);
      }
    } finally {
      this.eio.log = null;
    }
    this.broughtUp = true;
    this.maxDescPerPkt = maxDesc;
    return report;
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
    const snap = snapshotRings(rings, where);
    validateRing(snap.tx, this.memory, `${where} TX ring`);
    validateRing(snap.rx, this.memory, `${where} RX ring`);
    const mine: [string, RingSpec][] = [
      ['TX', snap.tx],
      ['RX', snap.rx],
    ];
    const others: [string, RingSpec][] = [];
    for (const other of this.queues) {
      if (!other || other.index === q) continue;
      const o = other.rings;
      others.push([`queue ${other.index} TX`, o.tx], [`queue ${other.index} RX`, o.rx]);
    }
    if (ringsOverlap(snap.tx, snap.rx)) others.unshift(['its own TX', snap.tx]);
    for (const [name, ring] of mine) {
      for (const [oname, o] of others) {
        if (o === ring) continue;
        if (ringsOverlap(ring, o)) {
          throw new NxdmaError(
            'MEMORY_OVERLAP',
            `${where}: the ${name} ring ${hex(ring.base)}+${ring.size * 16} overlaps the ${oname} ring ${hex(o.base)}+${o.size * 16}`,
            {
              where: `${where} ${name} ring`,
              expected: 'rings that share no byte',
              actual: { base: hex(ring.base), other: oname },
            },
          );
        }
      }
    }
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
    const R = regs();
    const one = (r: Reg): [Record<string, number>, boolean] => {
      const w = this.eio.read(r);
      const out: Record<string, number> = {};
      let aborted = false;
      for (const f of r.model.fields) {
        const v = fieldValue(w, f);
        out[f.name] = v;
        const abort = f.enums.find((e) => e.name.toLowerCase() === 'abort')?.value ?? 2;
        if (v === abort) aborted = true;
      }
      return [out, aborted];
    };
    const [m2s, a] = one(R.m2sState);
    const [s2m, b] = one(R.s2mState);
    return { engine: this.engine, m2s, s2m, aborted: a || b };
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
  async waitIdle(opts: WaitOptions = {}): Promise<void> {
    const timeoutMs = opts.timeoutMs ?? 1000;
    if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `waitIdle: timeoutMs ${String(timeoutMs)} is not a duration`,
        {
          where: 'waitIdle.timeoutMs',
          expected: 'a number of milliseconds >= 0',
          actual: timeoutMs,
        },
      );
    }
    const list =
      opts.queue === undefined
        ? this.queues.filter((x): x is UdmaQueue => x !== undefined)
        : [this.queue(opts.queue)];
    const busy = (): UdmaQueue[] => list.filter((h) => h.inFlight > 0);
    const deadline = performance.now() + timeoutMs;
    let lastHealth = performance.now();
    for (;;) {
      for (const h of list) if (h.inFlight > 0) h.poll();
      if (busy().length === 0) return;
      let progressed = false;
      if (this.clock) {
        for (let i = 0; i < 4096 && this.clock.step(); i++) progressed = true;
      }
      if (progressed) continue;
      const now = performance.now();
      // Nothing moved: an aborted engine never recovers by waiting.
      if (this.clock || now - lastHealth >= 10) {
        lastHealth = now;
        const health = this.health();
        if (health.aborted) {
          const stuck = busy();
          for (const h of stuck) h.errors++;
          throw new NxdmaError(
            'ENGINE_ERROR',
            `udma${this.engine}: the engine aborted with ${stuck.map((h) => `${h.inFlight} copies on queue ${h.index}`).join(', ')} in flight`,
            {
              where: `udma${this.engine}`,
              expected: 'normal state',
              actual: health,
              queues: stuck.map((h) => ({ ...h.stats(), status: this.queueStatus(h.index) })),
            },
          );
        }
      }
      if (now >= deadline) {
        const stuck = busy();
        for (const h of stuck) h.errors++;
        throw new NxdmaError(
          'TIMEOUT',
          `udma${this.engine}: ${stuck.map((h) => `queue ${h.index} has ${h.inFlight} copies in flight` + (h.paused ? ' (paused)' : '')).join(', ')} after ${timeoutMs} ms`,
          {
            where: `udma${this.engine} ${stuck.map((h) => `queue ${h.index}`).join(', ')}`,
            expected: `every copy complete within ${timeoutMs} ms`,
            actual: stuck.map((h) => ({ ...h.stats(), status: this.queueStatus(h.index) })),
          },
        );
      }
      await sleep(this.clock ? 1 : 0);
    }
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
    const init = this.initializedQueues();
    let minRing: number | null = null;
    for (const q of init) {
      const r = this.queues[q]!.rings;
      const m = Math.min(r.tx.size, r.rx.size);
      if (minRing === null || m < minRing) minRing = m;
    }
    return {
      engine: this.engine,
      device: {
        name: this.device.name,
        profile: this.device.profile,
        isHardware: this.device.isHardware,
      },
      queues: this.queueCount,
      initializedQueues: init,
      minRingSize: MIN_RING_SIZE,
      maxRingSize: MAX_RING_SIZE,
      ringSizeMultiple: RING_SIZE_MULTIPLE,
      ringAlign: RING_ALIGN,
      maxDescPerPkt: this.maxDescPerPkt,
      maxSgSegments: this.maxDescPerPkt,
      maxBytesPerDescriptor: BD_MAX_LEN,
      maxCopyBytes: minRing === null ? null : minRing * BD_MAX_LEN,
      capabilities: ['mem-to-mem', 'copy', 'copy-sg', 'fence', 'ops-status', 'completion-events'],
      broughtUp: this.broughtUp,
      checkBuffers: this.checkBuffers,
    };
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
    const queues: QueueDump[] = list.map((q) => {
      const Q = queueRegs(q);
      const half = (file: UdmaFileName, h: typeof Q.m2s): HalfDump => {
        const Qn = file === 'udma_m2s' ? `M2S_Q[${q}]` : `S2M_Q[${q}]`;
        const p = file === 'udma_m2s' ? 't' : 'r';
        const cfg = this.eio.read(h.cfg);
        const lo = this.eio.read(h.baseLo.reg);
        const hi = this.eio.read(h.baseHi.reg);
        const hp = this.eio.read(h.headOffset.reg);
        const tOff = field(file, `${Qn}.${p}drtp.offset`);
        const tRid = field(file, `${Qn}.${p}drtp.ring_id`);
        const tp = this.eio.read(tOff.reg);
        return {
          cfg,
          enabled: (cfg & h.enableMask) === h.enableMask,
          status: this.eio.read(h.status),
          ringBase: h.baseLo.get(lo) * 2 ** h.baseLo.lsb + h.baseHi.get(hi) * 2 ** 32,
          ringSize: h.len.get(this.eio.read(h.len.reg)),
          head: { offset: h.headOffset.get(hp), ringId: h.headRingId.get(hp) },
          tail: { offset: tOff.get(tp), ringId: tRid.get(tp) },
        };
      };
      const d = this.queues[q];
      return {
        queue: q,
        m2s: half('udma_m2s', Q.m2s),
        s2m: half('udma_s2m', Q.s2m),
        driver: d
          ? {
              rings: d.rings,
              tx: {
                tail: d.tx.tail,
                ringId: d.tx.ringId,
                produced: d.tx.produced,
                consumed: d.tx.consumed,
              },
              rx: {
                tail: d.rx.tail,
                ringId: d.rx.ringId,
                produced: d.rx.produced,
                consumed: d.rx.consumed,
              },
              stats: d.stats(),
            }
          : null,
      };
    });
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
    const R = regs();
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
    const R = regs();
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
