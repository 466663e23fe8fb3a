/**
 * A typed builder for programs. It produces the same plain object the JSON format parses to
 * (`program()`, serialisable as a program file) and builds the IR through the one program -> IR
 * path (`build()`), so a built program and a parsed one are checked the same way. The builder
 * fills defaults itself, so building a large program does not go through zod.
 */
import type { DMAQoSClassName } from '../../csr/formats/qos-class.ts';
import type { ArchCodename, ArchLevel, ComputeOpName, DmaOpName, DtypeName } from './enums.ts';
import type { Module } from './module.ts';
import {
  type AccessPatternInput,
  type Program,
  type ProgramOptionsInput,
  OptionsSchema,
  PROGRAM_FORMAT,
} from './program.ts';
import { type ToModuleOptions, toModule } from './to-module.ts';

type Blocks = Program['functions'][number]['blocks'];
type Instructions = Blocks[number]['instructions'];
type DmaInstruction = Extract<Instructions[number], { src: unknown }>;
type ComputeInstruction = Extract<Instructions[number], { reads: string[] }>;
type CollectiveInstruction = Extract<Instructions[number], { op: 'CollectiveCompute' }>;
type Region = Program['memory']['regions'][number];
type TensorDecl = Program['memory']['tensors'][number];
type AP = DmaInstruction['src'];

/** Access pattern arguments: partition is required, offset and free default to 0 and []. */
export type APArgs = AccessPatternInput;

/** A dependence as written: the kind defaults to Flow. */
export type DepArgs = { on: string; kind?: 'Ordered' | 'Anti' | 'Output' | 'Flow' };

/** DMA arguments: everything but the opcode. */
export type DmaArgs = Omit<DmaInstruction, 'op' | 'src' | 'dst' | 'deps'> & {
  src: APArgs;
  dst: APArgs;
  deps?: DepArgs[];
};
export type ComputeArgs = Omit<ComputeInstruction, 'op' | 'reads' | 'writes' | 'deps'> & {
  reads?: string[];
  writes?: string[];
  deps?: DepArgs[];
};
export type CollectiveArgs = Omit<
  CollectiveInstruction,
  'op' | 'collective' | 'args' | 'results' | 'deps'
> & {
  collective?: string;
  args?: string[];
  results?: string[];
  deps?: DepArgs[];
};

function fillDeps(deps: DepArgs[]): DmaInstruction['deps'] {
  return deps.map((d) => ({ on: d.on, kind: d.kind ?? 'Flow' }));
}

function fillAP(a: APArgs): AP {
  const out: AP = {
    tensor: a.tensor,
    offset: a.offset ?? 0,
    partition: a.partition,
    free: a.free ?? [],
  };
  if (a.dynamic) out.dynamic = a.dynamic;
  if (a.indirect) out.indirect = a.indirect;
  return out;
}

/**
 * A fresh instruction object holding the arguments' own keys in their order, `deps` left out and
 * then appended with its kinds filled (when given), as `{ ...rest, deps }` of `{ deps, ...rest }`
 * would make it. The keys are added one by one, so the instructions of one argument shape share
 * one hidden class: an object spread of a rest object gets a hidden class of its own for each
 * object, which makes a large program's objects big and every read of them slow.
 */
function instructionOf(args: { deps?: DepArgs[] }): Record<string, unknown> {
  const deps = args.deps;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(args);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k !== 'deps') out[k] = (args as Record<string, unknown>)[k];
  }
  if (deps) out.deps = fillDeps(deps);
  return out;
}

export class BlockBuilder {
  constructor(readonly block: Blocks[number]) {}

  /** Appends a DMA of opcode `op`; returns the builder. */
  dma(op: DmaOpName, args: DmaArgs): this {
    const ins = instructionOf(args);
    ins.op = op;
    ins.src = fillAP(args.src);
    ins.dst = fillAP(args.dst);
    this.block.instructions.push(ins as DmaInstruction);
    return this;
  }
  load(args: DmaArgs): this {
    return this.dma('Load', args);
  }
  save(args: DmaArgs): this {
    return this.dma('Save', args);
  }
  copy(args: DmaArgs): this {
    return this.dma('DMACopy', args);
  }
  compute(op: ComputeOpName, args: ComputeArgs = {}): this {
    const ins = instructionOf(args);
    ins.op = op;
    ins.reads = args.reads ?? [];
    ins.writes = args.writes ?? [];
    this.block.instructions.push(ins as ComputeInstruction);
    return this;
  }
  collective(args: CollectiveArgs = {}): this {
    const ins = instructionOf(args);
    ins.op = 'CollectiveCompute';
    ins.collective = args.collective ?? 'all_reduce';
    ins.args = args.args ?? [];
    ins.results = args.results ?? [];
    this.block.instructions.push(ins as CollectiveInstruction);
    return this;
  }
}

export class FunctionBuilder {
  constructor(readonly fn: Program['functions'][number]) {}
  block(name: string, opts: { loop?: { iterations: number } } = {}): BlockBuilder {
    const block: Blocks[number] = { name, instructions: [] };
    if (opts.loop) block.loop = { iterations: opts.loop.iterations };
    this.fn.blocks.push(block);
    return new BlockBuilder(block);
  }
}

export interface ProgramBuilderArgs {
  name?: string;
  description?: string;
  arch: ArchLevel | ArchCodename;
  options?: ProgramOptionsInput;
}

export class ProgramBuilder {
  private readonly p: Program;

  constructor(args: ProgramBuilderArgs) {
    this.p = {
      format: PROGRAM_FORMAT,
      name: args.name ?? 'program',
      arch: args.arch,
      options: OptionsSchema.parse(args.options ?? {}),
      memory: { regions: [], tensors: [] },
      functions: [],
    };
    if (args.description !== undefined) this.p.description = args.description;
  }

  region(r: Region): this {
    this.p.memory.regions.push({ ...r });
    return this;
  }

  tensor(
    t: Omit<TensorDecl, 'offset' | 'kind'> & Partial<Pick<TensorDecl, 'offset' | 'kind'>>,
  ): this {
    this.p.memory.tensors.push({ ...t, offset: t.offset ?? 0, kind: t.kind ?? 'Internal' });
    return this;
  }

  function(name: string): FunctionBuilder {
    const fn: Program['functions'][number] = { name, blocks: [] };
    this.p.functions.push(fn);
    return new FunctionBuilder(fn);
  }

  /** The program as a plain object (what a program file holds). */
  program(): Program {
    return this.p;
  }

  /** The IR of the program (the same checks as a parsed program). */
  build(opts: ToModuleOptions = {}): Module {
    return toModule(this.p, opts);
  }
}

/**
 * The access pattern of a [rows x cols] tile at (row, col) of a row-major 2-D tensor with `pitch`
 * elements per row: rows on the partition dimension, one contiguous free dimension of `cols`.
 */
export function tileAP(
  tensor: string,
  pitch: number,
  row: number,
  col: number,
  rows: number,
  cols: number,
): APArgs {
  return { tensor, offset: row * pitch + col, partition: [pitch, rows], free: [[1, cols]] };
}

export type { DMAQoSClassName, DtypeName };
