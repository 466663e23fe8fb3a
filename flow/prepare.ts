/**
 * Preparing a flow, before any device is involved: compile, lower, place every queue on its
 * (engine, qid), size its rings and plan where they go; and the QoS plan the flow applies. Pure:
 * everything here can reject a program before the first register or memory write.
 */
import { NxdmaError } from '../common/errors.ts';
import { qosClassName } from '../compiler/ir/enums.ts';
import { defaultQueueQos } from '../csr/formats/qos-class.ts';
import type { Module } from '../compiler/ir/module.ts';
import { compileProgram, type CompileResult } from '../compiler/passes/pipeline.ts';
import type { PassReport } from '../compiler/passes/pass.ts';
import type { DgeHostTables } from '../compiler/ir/module.ts';
import { BACKEND_NONE } from '../compiler/lower/backend.ts';
import { lower } from '../compiler/lower/lower.ts';
import {
  DEFAULT_MAX_DESC_PER_PACKET,
  type LowerOptions,
  type LoweredProgram,
  type QueueExecution,
} from '../compiler/lower/types.ts';
import type { Device } from '../csr/io.ts';
import type { QosPlanInput } from '../driver/qos/index.ts';
import { MAX_RING_SIZE, MIN_RING_SIZE, ringSizeFor } from '../csr/formats/ring.ts';
import { dataPathRules, hostTablesOf } from './host-tables.ts';
import { mapQueues, type QueuePlacement } from './mapping.ts';
import { ringBytes } from './bring-up.ts';

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
  checkDgeQueues(r.module, lowered, placements);
  const active: QueuePlacement[] = [];
  const ringSizes: number[] = [];
  const exec = executedByQueue(lowered);
  for (const lq of lowered.queues) {
    if (lq.count === 0) continue;
    const executed = exec.descriptors[lq.queue.index];
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

/**
 * MEMCOPY_DMA_CFG hi16: "which queues ... may be used" by the DGE engine. Throws LOWER_ERROR for
 * the first DGE DMA on a queue the mask leaves out.
 */
function checkDgeQueues(m: Module, lowered: LoweredProgram, placements: QueuePlacement[]): void {
  const queues = m.options.memcopyDmaCfg.queues;
  const t = lowered.table;
  const backend = t.backend;
  const queue = t.queue;
  const n = t.size;
  for (let d = 0; d < n; d++) {
    if (backend[d] === BACKEND_NONE) continue;
    const pl = placements[queue[d]];
    if (((queues >>> pl.qid) & 1) === 0) {
      const label = t.labelOf(d);
      throw new NxdmaError(
        'LOWER_ERROR',
        `${label}: its queue "${pl.queue.name}" is queue ${pl.qid} of udma${pl.engine}, which MEMCOPY_DMA_CFG's queue mask 0x${queues.toString(16).padStart(4, '0')} (hi16) does not let the DGE engine use`,
        {
          where: label,
          expected: `queue ${pl.qid} set in MEMCOPY_DMA_CFG hi16`,
          actual: `0x${queues.toString(16)}`,
        },
      );
    }
  }
}

export type { QueueExecution };

/**
 * The BD pairs, bytes and DMAs each queue executes: every row of the lowering's table, per
 * iteration, as the lowering summed them (a copy of its sums, the caller's to keep).
 */
export function executedByQueue(low: LoweredProgram): QueueExecution {
  const e = low.executedByQueue;
  return { descriptors: e.descriptors.slice(), bytes: e.bytes.slice(), dmas: e.dmas.slice() };
}

/** Where the rings go when the caller does not say: the first 1 MiB boundary past every region. */
export function defaultRingBase(m: Module): number {
  let end = 0;
  for (const r of m.regions) end = Math.max(end, r.base + r.size);
  return roundUp(end, 1 << 20);
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
