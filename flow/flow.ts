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
import { NxdmaError } from '../common/errors.ts';
import { interpret } from '../compiler/interp/interpret.ts';
import { arenaLayout, initialImage } from '../compiler/interp/memory.ts';
import { qosClassName } from '../compiler/ir/enums.ts';
import type { Module } from '../compiler/ir/module.ts';
import { compile, type CompileResult } from '../compiler/passes/pipeline.ts';
import type { IndexValues, Walk } from '../compiler/lower/expand.ts';
import { HOST_LITTLE_ENDIAN } from '../csr/formats/wire.ts';
import type { Device } from '../csr/io.ts';
import { applyQos } from '../driver/qos/index.ts';
import { EpochHazards } from './hazards.ts';
import { hostTablesOf } from './host-tables.ts';
import { FlowRings, type FlowQueue } from './rings.ts';
import type { FlowReport, QueueReport } from './report.ts';
import {
  defaultRingBase,
  executedByQueue,
  flowQosPlan,
  prepareCompiled,
  prepareFlow,
  type FlowOptions,
  type PreparedFlow,
} from './prepare.ts';
import { checkDevice, poolCoreFor } from './device-check.ts';
import { arbitration, compare, traceMark, traceOf } from './verify.ts';
import { Submission } from './submit.ts';

/**
 * The index values of an indexed walk as the DMA reads them when it runs: its index tensor's
 * `numIdx` u32 little-endian row numbers, read from device memory into one reused buffer (valid
 * until the next call) and handed to the expansion. Null for an affine walk.
 */
export function deviceIndexValues(device: Device): (w: Walk) => IndexValues | null {
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

/**
 * The reference run's memory: the initial image's arena, the copy the interpreter runs on, and
 * the written masks, each as long as the program's arena (compiler/interp/memory.ts arenaLayout).
 */
interface ReferenceMemory {
  start: Uint8Array;
  copy: Uint8Array;
  written: Uint8Array;
}

/** The longest arena whose reference memory a finished flow keeps for the next one (3 x 16 MiB). */
const KEEP_REFERENCE_BYTES = 16 * 2 ** 20;

/**
 * The reference memory of the last flow that finished, for the next flow of the same arena
 * length. Every byte of it is written again before it is read (the image filled, the copy set
 * from it, the masks cleared), so one flow's bytes never reach the next one's result; and the
 * kernel's first touch of fresh memory is paid once, not per run (a 100k-DMA flow's three 4 MiB
 * arrays, fresh each run, cost it ~2,600 page faults and 20-40 ms). A flow takes it and gives it
 * back when done; one that runs while another holds it makes its own.
 */
let spareReference: ReferenceMemory | undefined;

function takeReferenceMemory(size: number): ReferenceMemory {
  const s = spareReference;
  if (s !== undefined && s.start.length === size) {
    spareReference = undefined;
    return s;
  }
  return { start: new Uint8Array(size), copy: new Uint8Array(size), written: new Uint8Array(size) };
}

function giveBackReferenceMemory(r: ReferenceMemory): void {
  if (r.start.length <= KEEP_REFERENCE_BYTES) spareReference = r;
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
  const mem = takeReferenceMemory(arenaLayout(m).size);
  try {
    const start = initialImage(m, opts.seed ?? 1, mem.start);
    const expected = interpret(m, start.clone(mem.copy), { written: mem.written });
    // --- device: memory, engines, queues, QoS
    opts.onPhase?.('run');
    // the device's service trace from here on is this flow's (a device may have served others)
    const mark = traceMark(device);
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
    // each queue's rings by queue index (undefined for a queue without DMAs)
    const fqByQueue: (FlowQueue | undefined)[] = new Array(m.queues.length);
    for (const q of rings.queues) fqByQueue[q.placement.queue.index] = q;
    const indexValues = deviceIndexValues(device);
    const hazards = new EpochHazards(m.queues.length);
    // --- run, epoch by epoch
    const sub = new Submission(
      m,
      p.lowered,
      fqByQueue,
      hazards,
      pool,
      indexValues,
      opts.onProgress,
    );
    for (let wait = sub.advance(); wait !== 'done'; wait = sub.advance()) {
      await rings.drain(timeoutMs);
      if (wait === 'epoch') sub.newEpoch();
    }
    opts.onPhase?.('drain');
    await rings.drain(timeoutMs);
    // --- verify
    opts.onPhase?.('verify');
    const verify = compare(device, expected.image, expected.written, m);
    const t1 = performance.now();
    const queues: QueueReport[] = [];
    const exec = executedByQueue(p.lowered);
    for (const pl of p.placements) {
      const qi = pl.queue.index;
      const e = { descriptors: exec.descriptors[qi], bytes: exec.bytes[qi], dmas: exec.dmas[qi] };
      const fq = fqByQueue[pl.queue.index];
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
      arbitration: arbitration(device, p, qosMode, qosWarnings, mark),
      lowering: {
        dmas: p.lowered.totals.dmas,
        executed: p.lowered.totals.executed,
        dgeDescriptors: p.lowered.totals.dgeDescriptors,
        descriptors: p.lowered.totals.descriptors,
        byBackend: p.lowered.totals.byBackend,
        poolExecuted: sub.poolExecuted,
      },
      epochs: sub.epochs,
      drains: rings.drains,
      elapsedMs: Math.round((t1 - t0) * 10) / 10,
    };
    if (opts.trace) report.trace = traceOf(p, device, mark);
    return report;
  } finally {
    giveBackReferenceMemory(mem);
  }
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
