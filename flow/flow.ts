/**
 * The compile-to-ring flow (docs/flow.md):
 *
 *   compile -> lower -> check against the device -> load the initial memory -> reference run ->
 *   bring-up and queue init -> per epoch: BDs into the rings of each queue's (engine, qid),
 *   doorbells, run until idle -> read back and compare every byte -> report.
 *
 * Everything that can reject the program (the compiler, the lowering's bound layers, the
 * device checks) runs before the first register or memory write. The flow uses only the Device
 * interface (csr/io.ts): the same code drives the mock and a mapped device.
 */
import { checkSafetyFlags } from '../common/flags.ts';
import { NxdmaError, hex } from '../common/errors.ts';
import { interpret } from '../compiler/interp/interpret.ts';
import { initialImage, type MemoryImage } from '../compiler/interp/memory.ts';
import { qosClassName } from '../compiler/ir/enums.ts';
import { defaultQueueQos } from '../csr/formats/qos-class.ts';
import type { Module } from '../compiler/ir/module.ts';
import { compile, compileProgram, type CompileResult } from '../compiler/passes/pipeline.ts';
import type { PassReport } from '../compiler/passes/pass.ts';
import { PacketCut, expandWalk, type IndexValues, type Walk } from '../compiler/lower/expand.ts';
import { HOST_LITTLE_ENDIAN } from '../csr/formats/wire.ts';
import type { DgeHostTables } from '../compiler/ir/module.ts';
import { lower } from '../compiler/lower/lower.ts';
import {
  DEFAULT_MAX_DESC_PER_PACKET,
  type LowerOptions,
  type LoweredProgram,
} from '../compiler/lower/types.ts';
import { formatMicroOp } from '../csr/formats/dge-ops.ts';
import { encodeDgeDescriptorBytes } from '../csr/formats/dge-desc.ts';
import { serviceTraceOf, type DgeCoreIO, type Device } from '../csr/io.ts';
import { applyQos, type QosPlanInput } from '../driver/qos/index.ts';
import { MAX_RING_SIZE, MIN_RING_SIZE, RING_ALIGN, ringSizeFor } from '../csr/formats/ring.ts';
import { EpochHazards } from './hazards.ts';
import { dataPathRules, hostTablesOf } from './host-tables.ts';
import { mapQueues, type QueuePlacement } from './mapping.ts';
import { FlowRings, ringBytes } from './rings.ts';
import type { FlowReport, FlowTrace, MismatchSample, QueueReport } from './report.ts';

/** Largest ring the flow sizes by itself (descriptors); a program step larger than it gets its own size. */
export const DEFAULT_FLOW_RING = 65536;

export interface FlowOptions {
  /** The device. Default: flowMock() builds a mock for the program (flow/mock.ts). */
  device?: Device;
  /** Device address for the rings (256-byte aligned, mapped). Default: after the program's regions. */
  ringBase?: number;
  /** Largest ring in descriptors (default 65536; a bigger descriptor program still fits). */
  ringSize?: number;
  /** Seed of the initial memory fill (default 1). */
  seed?: number;
  /** Program each queue's QoS from its DMAQoSClass (driver/qos; default true). */
  qos?: boolean;
  /** Write registers that hold inferred facts (bring-up, QoS). Default false. */
  allowInferred?: boolean;
  /** How long a real device may take per epoch (default 5000 ms). */
  timeoutMs?: number;
  /** Keep the lowering records and the service trace in the report. */
  trace?: boolean;
  /** Called as DMAs are submitted: (done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called as the run enters each phase: the reference interpreter ('reference'), submitting the
   * descriptors ('run', with onProgress), draining the rings ('drain') and comparing the memory
   * ('verify'). For progress displays.
   */
  onPhase?: (phase: FlowPhase) => void;
  /** Lowering options (availability table, carveout, ...). */
  lower?: LowerOptions;
  /** File name for messages. */
  file?: string;
  /** ArchLevel override (the compiler's --arch). */
  arch?: number;
}

/** The phases of runPrepared (FlowOptions.onPhase). */
export type FlowPhase = 'reference' | 'run' | 'drain' | 'verify';

/** What a flow prepared before touching the device (see prepareFlow). */
export interface PreparedFlow {
  module: Module;
  passes: PassReport[];
  lowered: LoweredProgram;
  placements: QueuePlacement[];
  /** Placements of the queues that have DMAs (the ones with rings), and their ring sizes. */
  active: QueuePlacement[];
  ringSizes: number[];
  /** Bytes of ring memory needed. */
  ringBytes: number;
}

function roundUp(n: number, m: number): number {
  return Math.ceil(n / m) * m;
}

/**
 * Compiles and lowers a program and plans its rings; pure (no device). Throws PROGRAM_INVALID,
 * COMPILE_ERROR or LOWER_ERROR.
 */
export function prepareFlow(input: unknown, opts: FlowOptions = {}): PreparedFlow {
  const r = compileProgram(input, { file: opts.file, arch: opts.arch });
  return prepareCompiled(r, opts);
}

/**
 * prepareFlow for a module compiled already (compile(parseProgram(...))). `tables` are the DGE
 * host tables the data path follows (default: the program's; a program that takes them from the
 * device is lowered again by runPrepared once the device is known).
 */
export function prepareCompiled(
  r: CompileResult,
  opts: FlowOptions = {},
  tables: DgeHostTables | null = hostTablesOf(r.module, null),
): PreparedFlow {
  const maxRing = opts.ringSize ?? DEFAULT_FLOW_RING;
  if (!Number.isInteger(maxRing) || maxRing < MIN_RING_SIZE || maxRing > MAX_RING_SIZE) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `ring size ${String(maxRing)} is outside ${MIN_RING_SIZE}..${MAX_RING_SIZE}`,
      {
        where: 'ringSize',
        expected: `${MIN_RING_SIZE}..${MAX_RING_SIZE}`,
        actual: maxRing,
      },
    );
  }
  const lowered = lower(r.module, {
    ...dataPathRules(r.module, tables),
    ...opts.lower,
    maxDescPerPacket: opts.lower?.maxDescPerPacket ?? DEFAULT_MAX_DESC_PER_PACKET,
  });
  const placements = mapQueues(r.module);
  // MEMCOPY_DMA_CFG hi16: "which queues ... may be used" by the DGE engine
  const queues = r.module.options.memcopyDmaCfg.queues;
  for (const d of lowered.dmas) {
    const pl = placements[d.queue.index];
    if (d.backend !== 'none' && ((queues >>> pl.qid) & 1) === 0) {
      throw new NxdmaError(
        'LOWER_ERROR',
        `${d.label}: its queue "${d.queue.name}" is queue ${pl.qid} of udma${pl.engine}, which MEMCOPY_DMA_CFG's queue mask 0x${queues.toString(16).padStart(4, '0')} (hi16) does not let the DGE engine use`,
        {
          where: d.label,
          expected: `queue ${pl.qid} set in MEMCOPY_DMA_CFG hi16`,
          actual: `0x${queues.toString(16)}`,
        },
      );
    }
  }
  const active: QueuePlacement[] = [];
  const ringSizes: number[] = [];
  const executedByQueue = new Float64Array(lowered.queues.length);
  for (const b of lowered.blocks) {
    for (const d of b.dmas) executedByQueue[d.queue.index] += d.descriptors * b.iterations;
  }
  for (const lq of lowered.queues) {
    if (lq.dmas.length === 0) continue;
    const executed = executedByQueue[lq.queue.index];
    const want = Math.max(lq.maxWalk, Math.min(executed, maxRing));
    active.push(placements[lq.queue.index]);
    ringSizes.push(ringSizeFor(want));
  }
  return {
    module: r.module,
    passes: r.passes,
    lowered,
    placements,
    active,
    ringSizes,
    ringBytes: ringBytes(ringSizes),
  };
}

/** Where the rings go when the caller does not say: the first 1 MiB boundary past every region. */
export function defaultRingBase(m: Module): number {
  let end = 0;
  for (const r of m.regions) end = Math.max(end, r.base + r.size);
  return roundUp(end, 1 << 20);
}

/**
 * The DGE core that executes a destination reduce's DIRECT2D descriptors (the Pool backend's
 * compute_op): the device's first core offering executeDescriptor. Throws DEVICE_UNAVAILABLE, before
 * anything is written, when the program has a reduce and the device has no such core.
 */
function poolCoreFor(device: Device, p: PreparedFlow): DgeCoreIO | null {
  const reduce = p.lowered.dmas.find((d) => d.reduceDescriptors.length > 0);
  if (reduce === undefined) return null;
  for (const c of device.dgeCores()) {
    const core = device.dgeCore(c);
    if (typeof core.executeDescriptor === 'function') return core;
  }
  throw new NxdmaError(
    'DEVICE_UNAVAILABLE',
    `${reduce.label}: a destination reduce is a DIRECT2D compute_op the Pool DGE core executes; device ${device.name} offers no DGE core that executes descriptors (a ring descriptor only copies bytes)`,
    {
      where: reduce.label,
      expected: 'a DGE core with executeDescriptor (the mock)',
      actual: device.dgeCores(),
    },
  );
}

/** Checks, before any write, that the device can run the prepared flow. */
function checkDevice(device: Device, p: PreparedFlow, ringBase: number): void {
  const engines = new Set(device.engines());
  for (const pl of p.active) {
    if (!engines.has(pl.engine)) {
      throw new NxdmaError(
        'DEVICE_UNAVAILABLE',
        `queue "${pl.queue.name}" is placed on udma${pl.engine} queue ${pl.qid}, an engine device ${device.name} does not offer`,
        {
          where: `udma${pl.engine}`,
          expected: `one of the device's engines`,
          actual: [...engines].slice(0, 16),
        },
      );
    }
  }
  for (const r of p.module.regions) {
    if (!device.memory.isMapped(r.base, r.size)) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `bound layer 1: region "${r.name}" (${hex(r.base)}..${hex(r.base + r.size)}) is not mapped on device ${device.name}`,
        {
          where: `region ${r.name}`,
          expected: 'every declared region mapped on the device',
          actual: hex(r.base),
        },
      );
    }
  }
  if (ringBase % RING_ALIGN !== 0) {
    throw new NxdmaError('RING_INVALID', `ring base ${hex(ringBase)} is not 256-byte aligned`, {
      where: 'ringBase',
      expected: 'a multiple of 0x100',
      actual: hex(ringBase),
    });
  }
  if (p.ringBytes > 0 && !device.memory.isMapped(ringBase, p.ringBytes)) {
    throw new NxdmaError(
      'MEMORY_UNMAPPED',
      `the rings need ${p.ringBytes} bytes at ${hex(ringBase)}, which device ${device.name} does not map`,
      { where: 'ringBase', expected: `${p.ringBytes} mapped bytes`, actual: hex(ringBase) },
    );
  }
  // Nothing the run writes may land on a DGE core's host tables (docs/device.md, layout rules).
  const spans = p.module.regions.map((r) => ({
    name: `region "${r.name}"`,
    base: r.base,
    size: r.size,
  }));
  if (p.ringBytes > 0) spans.push({ name: 'the rings', base: ringBase, size: p.ringBytes });
  for (const c of device.dgeCores()) {
    const core = device.dgeCore(c);
    const end = core.dramBase + core.dram.size;
    for (const s of spans) {
      if (s.base < end && core.dramBase < s.base + s.size) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `${s.name} (${hex(s.base)}+${hex(s.size)}) overlaps DGE core ${c}'s host tables (${hex(core.dramBase)}+${hex(core.dram.size)})`,
          {
            where: s.name,
            expected: `memory outside DGE core ${c}'s dge_host window`,
            actual: {
              first: `${s.name} ${hex(s.base)}+${hex(s.size)}`,
              second: `DGE core ${c} dge_host ${hex(core.dramBase)}+${hex(core.dram.size)}`,
            },
          },
        );
      }
    }
  }
  for (const r of p.module.regions) {
    if (ringBase < r.base + r.size && r.base < ringBase + p.ringBytes) {
      throw new NxdmaError(
        'MEMORY_OVERLAP',
        `the rings (${hex(ringBase)}+${p.ringBytes}) overlap region "${r.name}"`,
        {
          where: 'ringBase',
          expected: 'rings outside every declared region',
          actual: hex(ringBase),
        },
      );
    }
  }
}

/**
 * The QoS plan of a flow: per engine, QoS arbitration (prefetch and completion arbiters out of
 * round robin, DWRR on) and each queue's class through the one class rule (defaultQueueQos).
 * The high-priority descriptor-fetch bit sits in a block whose base is inferred: it is planned
 * (by class) only with `allowInferred`.
 */
export function flowQosPlan(p: PreparedFlow, allowInferred = false): QosPlanInput {
  const byEngine = new Map<number, QueuePlacement[]>();
  for (const pl of p.active) {
    const list = byEngine.get(pl.engine) ?? [];
    list.push(pl);
    byEngine.set(pl.engine, list);
  }
  return {
    version: 1,
    description: `per-queue QoS of program ${p.module.name}`,
    engines: [...byEngine].map(([engine, list]) => ({
      engine,
      arbiters: { prefetch: 'qos', dwrr: 'on', completion: 'qos' },
      queues: list.map((pl) => {
        if (allowInferred) return { queue: pl.qid, class: qosClassName(pl.queue.qos) };
        const q = defaultQueueQos(pl.queue.qos);
        return { queue: pl.qid, qos: { axiQos: q.axiQos, qQos: q.qQos, weight: q.weight } };
      }),
    })),
  };
}

/**
 * The index values of an indexed walk as the DMA reads them when it runs: its index tensor's
 * `numIdx` u32 little-endian row numbers, read from device memory into one reused buffer (valid
 * until the next call) and handed to the expansion. Null for an affine walk.
 */
function deviceIndexValues(device: Device): (w: Walk) => IndexValues | null {
  let words = new Uint32Array(0);
  let bytes = new Uint8Array(0);
  return (w) => {
    if (w.type === 'affine') return null;
    const n = w.numIdx;
    if (words.length < n) {
      words = new Uint32Array(Math.max(n, 2 * words.length));
      bytes = new Uint8Array(words.buffer);
    }
    device.memory.read(w.idxAddr, bytes.subarray(0, 4 * n));
    if (!HOST_LITTLE_ENDIAN) {
      const v = new DataView(words.buffer);
      for (let i = 0; i < n; i++) words[i] = v.getUint32(4 * i, true);
    }
    return words;
  };
}

/** Runs a prepared flow on a device (see the module comment). */
export async function runPrepared(
  prepared: PreparedFlow,
  device: Device,
  opts: FlowOptions = {},
): Promise<FlowReport> {
  checkSafetyFlags(opts, ['allowInferred'], 'runPrepared options');
  const t0 = performance.now();
  // host tables from the device (read only): lower again with them, before anything is written
  const p =
    prepared.module.options.dgeHostTables === 'device'
      ? prepareCompiled(
          { module: prepared.module, passes: prepared.passes },
          opts,
          hostTablesOf(prepared.module, device),
        )
      : prepared;
  const m = p.module;
  const ringBase = opts.ringBase ?? defaultRingBase(m);
  const timeoutMs = opts.timeoutMs ?? 5000;
  checkDevice(device, p, ringBase);
  const pool = poolCoreFor(device, p);
  // --- reference run (pure)
  opts.onPhase?.('reference');
  const seed = opts.seed ?? 1;
  const start = initialImage(m, seed);
  const expected = interpret(m, start.clone());
  // --- device: memory, engines, queues, QoS
  opts.onPhase?.('run');
  for (const r of start.regions) device.memory.write(r.base, r.bytes);
  const rings = new FlowRings(device, {
    allowInferred: opts.allowInferred,
    maxPerPacket: p.lowered.maxDescPerPacket,
  });
  rings.setup(p.active, { base: ringBase, sizes: p.ringSizes });
  let qosMode: 'qos' | 'round-robin' = 'round-robin';
  let qosWarnings: string[] = [];
  if (opts.qos !== false && p.active.length > 0) {
    const res = applyQos(device, flowQosPlan(p, opts.allowInferred === true), {
      shadow: rings.shadow,
      allowInferred: opts.allowInferred,
    });
    qosMode = 'qos';
    qosWarnings = res.warnings.map((w) => w.message);
  }
  const fqByQueue = new Map(rings.queues.map((q) => [q.placement.queue.index, q]));
  const indexValues = deviceIndexValues(device);
  const hazards = new EpochHazards(m.queues.length);
  // --- run, epoch by epoch
  const total = p.lowered.totals.executed;
  let done = 0;
  let epochs = 1;
  let epochDmas = 0;
  let lastProgress = 0;
  let poolExecuted = 0;
  for (const b of p.lowered.blocks) {
    for (let it = 0; it < b.iterations; it++) {
      for (const d of b.dmas) {
        const qi = d.queue.index;
        if (d.reduceDescriptors.length > 0) {
          // B op= A: the Pool core executes the DIRECT2D descriptors itself, after everything
          // before it has landed; it is an epoch of its own
          if (epochDmas > 0) {
            await rings.drain(timeoutMs);
            hazards.clear();
            epochs++;
            epochDmas = 0;
          }
          for (const x of d.reduceDescriptors)
            pool!.executeDescriptor!(encodeDgeDescriptorBytes(x));
          poolExecuted += d.reduceDescriptors.length;
          done++;
          continue;
        }
        if (epochDmas > 0 && hazards.conflicts(qi, d.srcLo, d.srcHi, d.dstLo, d.dstHi)) {
          await rings.drain(timeoutMs);
          hazards.clear();
          epochs++;
          epochDmas = 0;
        }
        hazards.add(qi, d.srcLo, d.srcHi, d.dstLo, d.dstHi);
        epochDmas++;
        const fq = fqByQueue.get(qi)!;
        const stream = fq.stream;
        for (let k = 0; k < d.walks.length; k++) {
          const n = d.pieces[k];
          if (fq.room < n) {
            // the ring is full: hand over what is written, let everything run, continue
            await rings.drain(timeoutMs);
            if (fq.room < n) {
              throw new NxdmaError(
                'RING_FULL',
                `queue "${d.queue.name}": ${n} descriptors do not fit a ring of ${fq.size}`,
                {
                  where: `udma${fq.placement.engine} queue ${fq.placement.qid}`,
                  expected: `<= ${fq.size} descriptors per program`,
                  actual: n,
                },
              );
            }
          }
          // the lowering's descriptor stream of the walk, then the driver writes it at the tails
          stream.clear();
          stream.begin(n);
          const walk = d.walks[k];
          expandWalk(
            walk,
            d.packetBytes > 0 ? new PacketCut(stream, d.packetBytes) : stream,
            indexValues(walk),
          );
          stream.end();
          fq.write(stream);
        }
        done++;
        if (opts.onProgress && (done - lastProgress >= 256 || done === total)) {
          lastProgress = done;
          opts.onProgress(done, total);
        }
      }
    }
  }
  opts.onPhase?.('drain');
  await rings.drain(timeoutMs);
  // --- verify
  opts.onPhase?.('verify');
  const verify = compare(device, expected.image, expected.written, m);
  const t1 = performance.now();
  const queues: QueueReport[] = [];
  const exec = new Map<number, { descriptors: number; bytes: number; dmas: number }>();
  for (const b of p.lowered.blocks) {
    for (const d of b.dmas) {
      const e = exec.get(d.queue.index) ?? { descriptors: 0, bytes: 0, dmas: 0 };
      e.descriptors += d.descriptors * b.iterations;
      e.bytes += d.bytes * b.iterations;
      e.dmas += b.iterations;
      exec.set(d.queue.index, e);
    }
  }
  for (const pl of p.placements) {
    const e = exec.get(pl.queue.index) ?? { descriptors: 0, bytes: 0, dmas: 0 };
    const fq = fqByQueue.get(pl.queue.index);
    queues.push({
      name: pl.queue.name,
      engine: pl.engine,
      qid: pl.qid,
      descriptors: e.descriptors,
      bytes: e.bytes,
      dmas: e.dmas,
      qos: qosClassName(pl.queue.qos),
      ringSize: fq ? fq.size : 0,
      doorbells: fq ? fq.doorbells : 0,
    });
  }
  const report: FlowReport = {
    program: m.name,
    file: opts.file ?? null,
    device: device.name,
    mock: !device.isHardware,
    passes: p.passes.map((x) => ({ name: x.name, order: x.order, counters: x.counters })),
    queues,
    bytesMoved: p.lowered.totals.bytes,
    verifiedBytes: verify.destinationBytes,
    checkedBytes: verify.checkedBytes,
    mismatches: verify.mismatches,
    mismatchSamples: verify.samples,
    arbitration: arbitration(device, p, qosMode, qosWarnings),
    lowering: {
      dmas: p.lowered.totals.dmas,
      executed: p.lowered.totals.executed,
      dgeDescriptors: p.lowered.totals.dgeDescriptors,
      descriptors: p.lowered.totals.descriptors,
      byBackend: p.lowered.totals.byBackend,
      poolExecuted,
    },
    epochs,
    drains: rings.drains,
    elapsedMs: Math.round((t1 - t0) * 10) / 10,
  };
  if (opts.trace) report.trace = traceOf(p, device);
  return report;
}

/** Compiles, lowers and runs a program (a parsed JSON value) on `opts.device` or a fresh mock. */
export async function runFlow(
  input: unknown,
  opts: FlowOptions & { makeDevice?: (p: PreparedFlow, ringBase: number) => Device } = {},
): Promise<FlowReport> {
  const p = prepareFlow(input, opts);
  return runWith(p, opts);
}

/** runFlow for a module compiled already. */
export async function runCompiled(
  r: CompileResult,
  opts: FlowOptions & { makeDevice?: (p: PreparedFlow, ringBase: number) => Device } = {},
): Promise<FlowReport> {
  return runWith(prepareCompiled(r, opts), opts);
}

/** Compiles a module in place and runs it (tests built with ProgramBuilder). */
export async function runModule(
  m: Module,
  opts: FlowOptions & { makeDevice?: (p: PreparedFlow, ringBase: number) => Device } = {},
): Promise<FlowReport> {
  return runCompiled(compile(m), opts);
}

async function runWith(
  p: PreparedFlow,
  opts: FlowOptions & { makeDevice?: (p: PreparedFlow, ringBase: number) => Device },
): Promise<FlowReport> {
  const ringBase = opts.ringBase ?? defaultRingBase(p.module);
  let device = opts.device;
  if (device === undefined) {
    if (!opts.makeDevice) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        'runFlow needs a device (or makeDevice, e.g. flowMock)',
        {
          where: 'FlowOptions.device',
          expected: 'a Device',
          actual: undefined,
        },
      );
    }
    device = opts.makeDevice(p, ringBase);
  }
  return runPrepared(p, device, { ...opts, ringBase });
}

interface Verify {
  destinationBytes: number;
  checkedBytes: number;
  mismatches: number;
  samples: MismatchSample[];
}

/** Reads every region back and compares it byte by byte with the reference. */
function compare(device: Device, expected: MemoryImage, written: Uint8Array[], m: Module): Verify {
  let destinationBytes = 0;
  let checkedBytes = 0;
  let mismatches = 0;
  const samples: MismatchSample[] = [];
  expected.regions.forEach((r, i) => {
    const got = new Uint8Array(r.size);
    device.memory.read(r.base, got);
    const want = r.bytes;
    const mask = written[i];
    for (let k = 0; k < r.size; k++) {
      if (mask[k] !== 0) destinationBytes++;
      if (got[k] !== want[k]) {
        mismatches++;
        if (samples.length < 16) {
          const addr = r.base + k;
          const t = m.tensors.find((x) => addr >= x.address && addr < x.address + x.byteSize);
          samples.push({
            address: hex(addr),
            region: r.name,
            tensor: t ? t.name : null,
            destination: mask[k] !== 0,
            expected: want[k],
            actual: got[k],
          });
        }
      }
    }
    checkedBytes += r.size;
  });
  return { destinationBytes, checkedBytes, mismatches, samples };
}

/** Who the arbiters served: per queue packets, bytes, first and last cycle, the first grants. */
function arbitration(
  device: Device,
  p: PreparedFlow,
  mode: 'qos' | 'round-robin',
  warnings: string[],
): FlowReport['arbitration'] {
  const t = serviceTraceOf(device);
  const byRing = new Map<string, QueuePlacement>();
  for (const pl of p.active) byRing.set(`${pl.engine}:${pl.qid}`, pl);
  const stats = new Map<
    string,
    { packets: number; bytes: number; first: number; last: number; qQos: number }
  >();
  const grants: string[] = [];
  if (t !== null) {
    for (let i = 0; i < t.length; i++) {
      const e = t.at(i);
      const key = `${e.engine}:${e.queue}`;
      let s = stats.get(key);
      if (!s) {
        s = { packets: 0, bytes: 0, first: e.startCycle, last: e.endCycle, qQos: e.qQos };
        stats.set(key, s);
      }
      s.packets++;
      s.bytes += e.bytes;
      if (e.endCycle > s.last) s.last = e.endCycle;
      if (grants.length < 64) grants.push(byRing.get(key)?.queue.name ?? key);
    }
  }
  return {
    mode,
    observed: t !== null,
    warnings,
    queues: p.active.map((pl) => {
      const s = stats.get(`${pl.engine}:${pl.qid}`);
      return {
        name: pl.queue.name,
        engine: pl.engine,
        qid: pl.qid,
        qos: qosClassName(pl.queue.qos),
        qQos: s ? s.qQos : null,
        packets: s ? s.packets : 0,
        bytes: s ? s.bytes : 0,
        firstCycle: s ? s.first : null,
        lastCycle: s ? s.last : null,
      };
    }),
    firstGrants: grants,
  };
}

/** The lowering records and the service trace (for --trace). */
function traceOf(p: PreparedFlow, device: Device): FlowTrace {
  const dmas = p.lowered.dmas.map((d) => ({
    dma: d.label,
    queue: d.queue.name,
    backend: d.backend,
    priorityClass: d.priorityClass,
    descriptors: d.descriptors,
    streams: d.streams.map((s) => ({
      channel: s.channel,
      microOps: s.microOps.map(formatMicroOp),
      src: s.src,
      dst: s.dst,
      descriptors: s.descriptors.map((x) => x.kind),
    })),
  }));
  const t = serviceTraceOf(device);
  const service: FlowTrace['service'] = [];
  if (t !== null) {
    for (let i = 0; i < Math.min(t.length, 10000); i++) {
      service.push(t.at(i));
    }
  }
  return { dmas, service };
}
