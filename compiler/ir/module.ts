/**
 * The bound IR: Module -> functions -> basic blocks -> instructions, plus the memory the program
 * declares (regions and tensors with addresses) and, once alloc_queues has run, the DMA queues.
 *
 * The IR is built for throughput: one monomorphic instruction class with integer fields (the
 * seeds' InstDMA offsets become named fields), tensors and queues referenced directly, arrays
 * indexed by ids instead of maps, no per-instruction closures.
 */
import type { MemcopyCarveoutCfg, MemcopyDmaCfg } from '../../csr/formats/dge-local-regs.ts';
import { ApShapes, type AccessPattern } from './access-pattern.ts';
import {
  DGEType,
  DMAKind,
  DMAQoSClass,
  DstReduce,
  EngineType,
  type DMAQueueType,
  type DtypeName,
  type EdgeKind,
  type InstructionType,
  type MemoryType,
  type TensorKind,
  TransposeKind,
} from './enums.ts';
import type { EngineInfo } from './target.ts';

/** A declared memory region: a range of device addresses of one memory type. */
export class Region {
  constructor(
    readonly name: string,
    readonly memType: MemoryType,
    /** First byte address (a safe integer below 2^53). */
    readonly base: number,
    /** Size in bytes. */
    readonly size: number,
  ) {}
}

/** A tensor: a storage location (StorageBase) with an address, a dtype, a shape and a kind. */
export class Tensor {
  constructor(
    readonly id: number,
    readonly name: string,
    readonly region: Region,
    /** Byte address of element 0 (region.base + offset). */
    readonly address: number,
    readonly dtype: DtypeName,
    readonly elemSize: number,
    readonly shape: readonly number[],
    readonly numElements: number,
    readonly kind: TensorKind,
    /** Initial contents (element values), or null when the program does not give them. */
    readonly init: readonly number[] | null,
  ) {}

  get memType(): MemoryType {
    return this.region.memType;
  }
  get byteSize(): number {
    return this.numElements * this.elemSize;
  }
}

/** A dependence edge: this instruction depends on instruction `on` with `kind`. */
export interface Dep {
  on: number;
  kind: EdgeKind;
}

/**
 * The module's dependence edges, held in growable typed arrays: one linked list per instruction
 * (Instr.depHead -> next -> ...), in the order the edges were added. Adding an edge allocates
 * nothing per edge (the arrays double when full), so a pass that adds an edge per DMA leaves no
 * garbage and no per-edge object behind.
 */
export class DepEdges {
  private on = new Int32Array(64);
  private kind = new Uint8Array(64);
  private next = new Int32Array(64);
  /** Edges held. */
  count = 0;

  /** Adds `on` to the list that starts at `head`; returns the (possibly new) head. */
  add(head: number, on: number, kind: EdgeKind): number {
    let last = -1;
    for (let e = head; e !== -1; e = this.next[e]) {
      if (this.on[e] === on) {
        if (kind > this.kind[e]) this.kind[e] = kind; // the stronger kind wins
        return head;
      }
      last = e;
    }
    if (this.count === this.on.length) this.grow();
    const e = this.count++;
    this.on[e] = on;
    this.kind[e] = kind;
    this.next[e] = -1;
    if (last === -1) return e;
    this.next[last] = e;
    return head;
  }

  /** The edges of the list that starts at `head`, as Dep values (null when there are none). */
  list(head: number): Dep[] | null {
    if (head === -1) return null;
    const out: Dep[] = [];
    for (let e = head; e !== -1; e = this.next[e])
      out.push({ on: this.on[e], kind: this.kind[e] as EdgeKind });
    return out;
  }

  private grow(): void {
    const n = this.on.length * 2;
    const on = new Int32Array(n);
    const kind = new Uint8Array(n);
    const next = new Int32Array(n);
    on.set(this.on);
    kind.set(this.kind);
    next.set(this.next);
    this.on = on;
    this.kind = kind;
    this.next = next;
  }
}

/** A loop annotation on a basic block: the block is a loop body run `iterations` times. */
export interface LoopInfo {
  readonly iterations: number;
}

export class Block {
  instrs: Instr[] = [];
  constructor(
    /** Index of the block in module.blocks. */
    readonly index: number,
    readonly name: string,
    readonly fn: Func,
    readonly loop: LoopInfo | null,
  ) {}
  /** CFG::isLoopBody. */
  get isLoopBody(): boolean {
    return this.loop !== null;
  }
}

export class Func {
  readonly blocks: Block[] = [];
  constructor(readonly name: string) {}
}

/**
 * One instruction. DMA instructions carry named fields for what the seeds keep at offsets:
 * engine (+0x90 low), subId (+0x94), dmaKind (+0x38), dgeType (+0xF8), queue (+0xF0); compute,
 * collective and queue-instance instructions use the fields that apply to them and leave the rest
 * at their neutral values.
 */
export class Instr {
  /** EngineType (+0x90). */
  engine: EngineType;
  /** Engine sub id (+0x94). */
  subId: number;
  /** DGEType route (+0xF8); Unassigned until dynamic_dma_scan stamps it. */
  dgeType: DGEType = DGEType.Unassigned;
  /** Eligible routes the last route computation returned (bit mask of 1 << DGEType); 0 if none. */
  eligible = 0;
  /** DMA kind (+0x38). */
  dmaKind: DMAKind = DMAKind.Generic;
  qos: DMAQoSClass = DMAQoSClass.Default;
  /** The queue alloc_queues bound (+0xF0); for a SwitchQueueInstance, the queue it switches. */
  queue: DmaQueue | null = null;
  /** The queue's type, stamped by alloc_queues; -1 before. */
  queueType = -1;
  src: AccessPattern | null = null;
  dst: AccessPattern | null = null;
  transpose: TransposeKind = TransposeKind.none;
  dstReduce: DstReduce = DstReduce.none;
  /** Requested DMA-engine fan-out of the DMA (0 = the module's numDmaEngines). */
  dmaEngines = 0;
  /** Tensors a compute or collective instruction reads (collective: its arguments). */
  reads: Tensor[] | null = null;
  /** Tensors a compute or collective instruction writes (collective: its results). */
  writes: Tensor[] | null = null;
  /** Activation: the accumulator-dump flag (seed 003 visitInstActivation). */
  accumulate = false;
  /** Collective: which collective (all_reduce, all_gather, ...), informational. */
  collective: string | null = null;
  /** SwitchQueueInstance: index of the queue instance it selects; -1 otherwise. */
  instance = -1;
  /** First of this instruction's edges in `edges` (-1: none). */
  private depHead = -1;

  constructor(
    readonly id: number,
    readonly op: InstructionType,
    readonly name: string | null,
    public block: Block,
    engine: EngineType,
    subId: number,
    /** The module's dependence edges. */
    private readonly edges: DepEdges,
  ) {
    this.engine = engine;
    this.subId = subId;
  }

  /** The instruction's dependences in the order they were added, or null when it has none. */
  get deps(): Dep[] | null {
    return this.edges.list(this.depHead);
  }

  /** Adds a dependence on `on`; an existing edge keeps the stronger kind (EdgeKind precedence). */
  addDependency(on: number, kind: EdgeKind): void {
    this.depHead = this.edges.add(this.depHead, on, kind);
  }
}

/** A bir::DMAQueue: created by alloc_queues, one per distinct QueueTuple full name. */
export class DmaQueue {
  /** DMAs bound to this queue (the "Num instructions" census). */
  instructions = 0;
  /** Queue instances (BasicBlockHolders in dma_blocks) created by SwitchQueueInstance insertion. */
  instances = 0;
  constructor(
    /** Creation order. */
    readonly index: number,
    /** QueueTuple::getFullName(): the dedup key and the queue's name. */
    readonly name: string,
    readonly type: DMAQueueType,
    /** The engine that owns the queue (determineEngine). */
    readonly engine: EngineType,
    readonly subId: number,
    readonly qos: DMAQoSClass,
    /** QueueTuple +0x24: the module's DMA-engine count. */
    readonly numDmaEngines: number,
    /** QueueTuple +0x28: DMA engines the queue's descriptors may spread over (clamped). */
    readonly dmaEngines: number,
  ) {}
}

/** The SB scratch location dynamic_dma_setup reserves (seed 001). */
export interface ScratchLocation {
  readonly name: 'DynamicDMAScratchLoc';
  readonly memType: MemoryType;
  readonly sizePerPartition: number;
  allocated: boolean;
}

/** Module options (resolved, every field present). */
export interface ModuleOptions {
  /** The module-level DGE feature flag (seed 001 `M.config(+12)->byte(+472)`). */
  dgeEnabled: boolean;
  /** Enabled DGELevels as a bit mask (1 << DGELevels). */
  dgeLevels: number;
  /** optNumDMAEngines: hardware DMA-engine count (queue clamp). */
  numDmaEngines: number;
  /** The HWM engine count Output and Const queues use (seed 003 impl+0x50). */
  hwmDmaEngines: number;
  /** ValidEngines for core_v5 (arch >= 50); ignored below. */
  hwdgeEngines: readonly EngineInfo[];
  /** Force the IO-queue limiting tail (seed 000's global flag unk_3E03CD8). */
  limitIoQueues: boolean;
  /** getDGEInstructionType b1: apply the per-descriptor cap and descriptor-count checks. */
  considerDescNum: boolean;
  /** getDGEInstructionType b2: apply the per-arch minimum-element floor. */
  considerMinElems: boolean;
  /** --dynamic-dma-scratch-size-per-partition (bytes). */
  dynamicDmaScratchSizePerPartition: number;
  /** The DGE backend availability table given by the program (entries it sets), or null. */
  backends: { pool?: boolean; rtl?: boolean; software?: boolean } | null;
  /** The DGE host tables given by the program, 'device' (read them from the device), or null. */
  dgeHostTables: DgeHostTables | 'device' | null;
  /** cc_cce_reduce_prio_pkt_size[0..4] (bytes; 0 uncapped). */
  cceReducePrioPktSize: readonly number[];
  /** MEMCOPY_CARVEOUT_CFG (local register 39) and its reserved descriptors. */
  memcopyCarveoutCfg: MemcopyCarveoutCfg;
  /** MEMCOPY_DMA_CFG (local register 40). */
  memcopyDmaCfg: MemcopyDmaCfg;
}

/** The DGE host-private tables (seed 004 §7.2) as the data path reads them. */
export interface DgeHostTables {
  /** +0x18: preferred bytes per packet of ISA classes 1..4 (entry i is class i + 1; 0: none). */
  priorityClassMap: readonly number[];
  /** +0x28: per-priority DMA-channel masks. */
  mailboxes: readonly { priority: number; bitmask: number }[];
}

export class Module {
  readonly functions: Func[] = [];
  readonly blocks: Block[] = [];
  /** Every instruction, indexed by id (inserted instructions are appended). */
  readonly instrs: Instr[] = [];
  readonly regions: Region[] = [];
  readonly tensors: Tensor[] = [];
  readonly tensorByName = new Map<string, Tensor>();
  readonly instrByName = new Map<string, Instr>();
  readonly queues: DmaQueue[] = [];
  readonly queueByName = new Map<string, DmaQueue>();
  /** Every instruction's dependence edges. */
  readonly edges = new DepEdges();
  /** The access-pattern shapes of the program's DMAs (the route memo's keys). */
  readonly apShapes = new ApShapes();
  scratch: ScratchLocation | null = null;

  constructor(
    readonly name: string,
    /** ArchLevel (Module +0xAC). */
    public arch: number,
    readonly options: ModuleOptions,
  ) {}

  /** Module::getFunctionByName. */
  getFunction(name: string): Func | undefined {
    return this.functions.find((f) => f.name === name);
  }

  /** The functions with `main` first, then the others in declaration order. */
  functionsMainFirst(): Func[] {
    const main = this.getFunction('main');
    if (!main) return this.functions.slice();
    return [main, ...this.functions.filter((f) => f !== main)];
  }

  /** Module::getQueueByName. */
  getQueueByName(name: string): DmaQueue | undefined {
    return this.queueByName.get(name);
  }

  /** Module::addQueue. */
  addQueue(
    name: string,
    type: DMAQueueType,
    engine: EngineType,
    subId: number,
    qos: DMAQoSClass,
    numDmaEngines: number,
    dmaEngines: number,
  ): DmaQueue {
    const queue = new DmaQueue(
      this.queues.length,
      name,
      type,
      engine,
      subId,
      qos,
      numDmaEngines,
      dmaEngines,
    );
    this.queues.push(queue);
    this.queueByName.set(queue.name, queue);
    return queue;
  }

  /** Creates an instruction in `block` (not placed in block.instrs; the caller places it). */
  newInstr(
    op: InstructionType,
    name: string | null,
    block: Block,
    engine: EngineType = EngineType.DMA,
    subId = 0,
    /** Register the name for lookups (program instructions); inserted instructions do not. */
    register = true,
  ): Instr {
    const inst = new Instr(this.instrs.length, op, name, block, engine, subId, this.edges);
    this.instrs.push(inst);
    if (name !== null && register) this.instrByName.set(name, inst);
    return inst;
  }

  hasDgeLevel(level: number): boolean {
    return (this.options.dgeLevels & (1 << level)) !== 0;
  }
}
