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
import { initialImage } from '../compiler/interp/memory.ts';
import { qosClassName } from '../compiler/ir/enums.ts';
import type { Module } from '../compiler/ir/module.ts';
import { compile, type CompileResult } from '../compiler/passes/pipeline.ts';
import { PacketCut, expandWalk, type IndexValues, type Walk } from '../compiler/lower/expand.ts';
import { HOST_LITTLE_ENDIAN } from '../csr/formats/wire.ts';
import { encodeDgeDescriptorBytes } from '../csr/formats/dge-desc.ts';
import type { Device } from '../csr/io.ts';
import { applyQos } from '../driver/qos/index.ts';
import { EpochHazards } from './hazards.ts';
import { hostTablesOf } from './host-tables.ts';
import { FlowRings, type FlowQueue } from './rings.ts';
import type { FlowReport, QueueReport } from './report.ts';
import {
  defaultRingBase,
  flowQosPlan,
  prepareCompiled,
  prepareFlow,
  type FlowOptions,
  type PreparedFlow,
} from './prepare.ts';
import { checkDevice, poolCoreFor } from './device-check.ts';
import { arbitration, compare, traceOf } from './verify.ts';

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
  // each queue's rings by queue index (undefined for a queue without DMAs)
  const fqByQueue: (FlowQueue | undefined)[] = new Array(m.queues.length);
  for (const q of rings.queues) fqByQueue[q.placement.queue.index] = q;
  const indexValues = deviceIndexValues(device);
  const hazards = new EpochHazards(m.queues.length);
  // --- run, epoch by epoch
  const total = p.lowered.totals.executed;
  let done = 0;
  let epochs = 1;
  let epochDmas = 0;
  let lastProgress = 0;
  let poolExecuted = 0;
  const t = p.lowered.table;
  for (const b of p.lowered.blocks) {
    const end = b.first + b.count;
    for (let it = 0; it < b.iterations; it++) {
      for (let d = b.first; d < end; d++) {
        const qi = t.queue[d];
        if (t.reduce[d] !== 0) {
          // B op= A: the Pool core executes the DIRECT2D descriptors itself, after everything
          // before it has landed; it is an epoch of its own
          if (epochDmas > 0) {
            await rings.drain(timeoutMs);
            hazards.clear();
            epochs++;
            epochDmas = 0;
          }
          const reduce = t.reduceOf(d);
          for (const x of reduce) pool!.executeDescriptor!(encodeDgeDescriptorBytes(x));
          poolExecuted += reduce.length;
          done++;
          continue;
        }
        const sLo = t.srcLo[d];
        const sHi = t.srcHi[d];
        const dLo = t.dstLo[d];
        const dHi = t.dstHi[d];
        if (epochDmas > 0 && hazards.conflicts(qi, sLo, sHi, dLo, dHi)) {
          await rings.drain(timeoutMs);
          hazards.clear();
          epochs++;
          epochDmas = 0;
        }
        hazards.add(qi, sLo, sHi, dLo, dHi);
        epochDmas++;
        const fq = fqByQueue[qi]!;
        const stream = fq.stream;
        const packetBytes = t.packetBytes[d];
        const walks = t.walksOf(d);
        for (let k = 0; k < walks; k++) {
          const n = t.piecesOf(d, k);
          if (fq.room < n) {
            // the ring is full: hand over what is written, let everything run, continue
            await rings.drain(timeoutMs);
            if (fq.room < n) {
              throw new NxdmaError(
                'RING_FULL',
                `queue "${m.queues[qi].name}": ${n} descriptors do not fit a ring of ${fq.size}`,
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
          const walk = t.walk(d, k);
          expandWalk(
            walk,
            packetBytes > 0 ? new PacketCut(stream, packetBytes) : stream,
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
  // what each queue executed (loop bodies per iteration), by queue index
  const execDescs = new Float64Array(m.queues.length);
  const execBytes = new Float64Array(m.queues.length);
  const execDmas = new Float64Array(m.queues.length);
  for (const b of p.lowered.blocks) {
    for (let d = b.first; d < b.first + b.count; d++) {
      const q = t.queue[d];
      execDescs[q] += t.descriptors[d] * b.iterations;
      execBytes[q] += t.bytes[d] * b.iterations;
      execDmas[q] += b.iterations;
    }
  }
  for (const pl of p.placements) {
    const qi = pl.queue.index;
    const e = { descriptors: execDescs[qi], bytes: execBytes[qi], dmas: execDmas[qi] };
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
