/**
 * The JSON view of a compile (the shape `nxdma compile --json` prints):
 * { arch, instructions, queues, inserted, passes, errors }.
 */
import type { CompileError, CompileErrorInfo } from './errors.ts';
import {
  DGE_TYPE_NAMES,
  DMA_QUEUE_TYPE_NAMES,
  EDGE_KIND_NAMES,
  ENGINE_TYPE_NAMES,
  INSTRUCTION_TYPE_NAMES,
  InstructionType,
  dgeSetNames,
  qosClassName,
} from './ir/enums.ts';
import type { Instr, Module } from './ir/module.ts';
import { isDMAFamily } from './ir/predicates.ts';
import type { PassReport } from './passes/pass.ts';

export interface InstructionJson {
  id: number;
  name: string | null;
  op: string;
  engine: string;
  subId: number;
  dgeType: string | null;
  eligible: string[];
  qos: string | null;
  queue: string | null;
  queueType: string | null;
  deps: { on: number; kind: string }[];
}

export interface QueueJson {
  index: number;
  name: string;
  type: string;
  engine: string;
  subId: number;
  qos: string;
  dmaEngines: number;
  /** DMAs bound to the queue. */
  instructions: number;
  /** Queue instances created by SwitchQueueInstance insertion. */
  instances: number;
}

export interface InsertedJson {
  id: number;
  op: string;
  block: string;
  queue: string;
  instance: number;
}

export interface CompileJson {
  arch: number;
  instructions: InstructionJson[];
  queues: QueueJson[];
  inserted: InsertedJson[];
  passes: {
    name: string;
    order: number | null;
    counters: Record<string, number>;
    notes: string[];
  }[];
  errors: CompileErrorInfo[];
}

function instructionJson(I: Instr): InstructionJson {
  const dma = isDMAFamily(I.op);
  return {
    id: I.id,
    name: I.name,
    op: INSTRUCTION_TYPE_NAMES[I.op] ?? String(I.op),
    engine: ENGINE_TYPE_NAMES[I.engine] ?? String(I.engine),
    subId: I.subId,
    dgeType: dma ? DGE_TYPE_NAMES[I.dgeType] : null,
    eligible: dgeSetNames(I.eligible),
    qos: dma ? qosClassName(I.qos) : null,
    queue: I.queue?.name ?? null,
    queueType: I.queueType >= 0 ? DMA_QUEUE_TYPE_NAMES[I.queueType] : null,
    deps: (I.deps ?? []).map((d) => ({ on: d.on, kind: EDGE_KIND_NAMES[d.kind] })),
  };
}

/** The JSON report of a module after (or during) a compile. */
export function compileJson(
  m: Module,
  passes: readonly PassReport[],
  errors: readonly CompileError[] = [],
): CompileJson {
  const instructions: InstructionJson[] = [];
  const inserted: InsertedJson[] = [];
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      for (const I of bb.instrs) {
        if (I.op === InstructionType.SwitchQueueInstance) {
          inserted.push({
            id: I.id,
            op: 'SwitchQueueInstance',
            block: `${f.name}/${bb.name}`,
            queue: I.queue?.name ?? '',
            instance: I.instance,
          });
        } else {
          instructions.push(instructionJson(I));
        }
      }
    }
  }
  instructions.sort((a, b) => a.id - b.id);
  return {
    arch: m.arch,
    instructions,
    queues: m.queues.map((q) => ({
      index: q.index,
      name: q.name,
      type: DMA_QUEUE_TYPE_NAMES[q.type],
      engine: ENGINE_TYPE_NAMES[q.engine],
      subId: q.subId,
      qos: qosClassName(q.qos),
      dmaEngines: q.dmaEngines,
      instructions: q.instructions,
      instances: q.instances,
    })),
    inserted,
    passes: passes.map((p) => ({
      name: p.name,
      order: p.order,
      counters: p.counters,
      notes: p.notes,
    })),
    errors: errors.map((e) => e.info()),
  };
}
