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
import { InstrColumns } from './columns.ts';
import { type Dep, DepEdges, addDependency } from './dep-edges.ts';

export { type Dep, DepEdges, addDependency };
import {
  type DGEType,
  type DMAKind,
  type DMAQoSClass,
  type DstReduce,
  EngineType,
  type DMAQueueType,
  type DtypeName,
  type EdgeKind,
  type InstructionType,
  type MemoryType,
  type TensorKind,
  type TransposeKind,
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

/** A loop annotation on a basic block: the block is a loop body run `iterations` times. */
export interface LoopInfo {
  readonly iterations: number;
}

export class Block {
  private list: Instr[] = [];
  /** ids of `list` in order (the first idCount entries), while idsFresh. */
  private idBuf = new Int32Array(8);
  private idCount = 0;
  private idView: Int32Array | null = null;
  private idsFresh = true;

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

  /**
   * The block's instructions in order. Whoever fetches the array may change it, so fetching it
   * makes `ids()` rebuild its list on its next call.
   */
  get instrs(): Instr[] {
    this.idsFresh = false;
    return this.list;
  }
  set instrs(list: Instr[]) {
    this.idsFresh = false;
    this.list = list;
  }

  /** Appends an instruction (the id list follows it). */
  append(inst: Instr): void {
    this.list.push(inst);
    if (!this.idsFresh) return;
    if (this.idCount === this.idBuf.length) {
      const buf = new Int32Array(this.idBuf.length * 2);
      buf.set(this.idBuf);
      this.idBuf = buf;
    }
    this.idBuf[this.idCount++] = inst.id;
    this.idView = null;
  }

  /** Places `front` before the block's instructions, in place (placeAtFront); the ids follow. */
  placeAtFront(front: readonly Instr[]): void {
    const fresh = this.idsFresh && this.idCount === this.list.length;
    placeAtFront(this.list, front);
    if (!fresh) return;
    const k = front.length;
    const buf = new Int32Array(this.idCount + k);
    for (let j = 0; j < k; j++) buf[j] = front[j].id;
    buf.set(this.idBuf.subarray(0, this.idCount), k);
    this.idBuf = buf;
    this.idCount = buf.length;
    this.idView = null;
  }

  /**
   * The ids of the block's instructions, in order, for the passes' walks over the instruction
   * columns. Kept as instructions are appended or placed at the front; rebuilt from the
   * instructions after the array was fetched through `instrs` (or its length changed).
   */
  ids(): Int32Array {
    const list = this.list;
    if (!this.idsFresh || this.idCount !== list.length) {
      const n = list.length;
      if (this.idBuf.length < n) this.idBuf = new Int32Array(n);
      for (let i = 0; i < n; i++) this.idBuf[i] = list[i].id;
      this.idCount = n;
      this.idView = null;
      this.idsFresh = true;
    }
    return (this.idView ??= this.idBuf.subarray(0, this.idCount));
  }
}

/** placeAtFront moves at most this many instructions in one call. */
const FRONT_SLICE = 4096;

/**
 * Places `front` before the instructions of `instrs`, in place: the array grows by front.length
 * and its instructions move up (one block move), so a block keeps its one array (no copy of the
 * block per block).
 */
export function placeAtFront(instrs: Instr[], front: readonly Instr[]): void {
  // in slices of at most FRONT_SLICE instructions (a call's arguments), the last slice first
  for (let end = front.length; end > 0; end -= FRONT_SLICE)
    instrs.unshift(...front.slice(Math.max(0, end - FRONT_SLICE), end));
}

export class Func {
  readonly blocks: Block[] = [];
  constructor(readonly name: string) {}
}

/**
 * One instruction. DMA instructions carry named fields for what the seeds keep at offsets:
 * engine (+0x90 low), subId (+0x94), dmaKind (+0x38), dgeType (+0xF8), queue (+0xF0); compute,
 * collective and queue-instance instructions use the fields that apply to them and leave the rest
 * at their neutral values. The fields the passes bind live in the module's InstrColumns (the
 * accessors below read and write them), so a pass can walk a block without visiting its objects.
 */
export class Instr {
  /** Collective: which collective (all_reduce, all_gather, ...), informational. */
  collective: string | null = null;
  /** SwitchQueueInstance: index of the queue instance it selects; -1 otherwise. */
  instance = -1;
  private srcAP: AccessPattern | null = null;
  private dstAP: AccessPattern | null = null;
  private readList: readonly Tensor[] | null = null;
  private writeList: readonly Tensor[] | null = null;

  constructor(
    readonly id: number,
    readonly op: InstructionType,
    readonly name: string | null,
    public block: Block,
    /** The module's instruction columns (this instruction's fields are at index `id`). */
    readonly cols: InstrColumns,
    /** The module's dependence edges. */
    private readonly edges: DepEdges,
  ) {}

  /** EngineType (+0x90). */
  get engine(): EngineType {
    return this.cols.engine[this.id] as EngineType;
  }
  set engine(v: EngineType) {
    this.cols.engine[this.id] = v;
  }
  /** Engine sub id (+0x94). */
  get subId(): number {
    return this.cols.subId[this.id];
  }
  set subId(v: number) {
    this.cols.subId[this.id] = v;
  }
  /** DGEType route (+0xF8); Unassigned until dynamic_dma_scan stamps it. */
  get dgeType(): DGEType {
    return this.cols.dgeType[this.id] as DGEType;
  }
  set dgeType(v: DGEType) {
    this.cols.dgeType[this.id] = v;
  }
  /** Eligible routes the last route computation returned (bit mask of 1 << DGEType); 0 if none. */
  get eligible(): number {
    return this.cols.eligible[this.id];
  }
  set eligible(v: number) {
    this.cols.eligible[this.id] = v;
  }
  /** DMA kind (+0x38). */
  get dmaKind(): DMAKind {
    return this.cols.dmaKind[this.id] as DMAKind;
  }
  set dmaKind(v: DMAKind) {
    this.cols.dmaKind[this.id] = v;
  }
  get qos(): DMAQoSClass {
    return this.cols.qos[this.id] as DMAQoSClass;
  }
  set qos(v: DMAQoSClass) {
    this.cols.qos[this.id] = v;
  }
  /** The queue alloc_queues bound (+0xF0); for a SwitchQueueInstance, the queue it switches. */
  get queue(): DmaQueue | null {
    const q = this.cols.queue[this.id];
    return q < 0 ? null : this.cols.queues[q];
  }
  set queue(q: DmaQueue | null) {
    if (q !== null && this.cols.queues[q.index] !== q)
      throw new Error(`queue "${q.name}" is not a queue of this instruction's module`);
    this.cols.queue[this.id] = q === null ? -1 : q.index;
  }
  /** The queue's type, stamped by alloc_queues; -1 before. */
  get queueType(): number {
    return this.cols.queueType[this.id];
  }
  set queueType(v: number) {
    this.cols.queueType[this.id] = v;
  }
  get src(): AccessPattern | null {
    return this.srcAP;
  }
  set src(ap: AccessPattern | null) {
    this.srcAP = ap;
    this.cols.setPattern(this.id, false, ap);
  }
  get dst(): AccessPattern | null {
    return this.dstAP;
  }
  set dst(ap: AccessPattern | null) {
    this.dstAP = ap;
    this.cols.setPattern(this.id, true, ap);
  }
  get transpose(): TransposeKind {
    return this.cols.transpose[this.id] as TransposeKind;
  }
  set transpose(v: TransposeKind) {
    this.cols.transpose[this.id] = v;
  }
  get dstReduce(): DstReduce {
    return this.cols.dstReduce[this.id] as DstReduce;
  }
  set dstReduce(v: DstReduce) {
    this.cols.dstReduce[this.id] = v;
  }
  /** Requested DMA-engine fan-out of the DMA (0 = the module's numDmaEngines). */
  get dmaEngines(): number {
    return this.cols.dmaEngines[this.id];
  }
  set dmaEngines(v: number) {
    this.cols.dmaEngines[this.id] = v;
  }

  /**
   * Tensors a compute or collective instruction reads (collective: its arguments). The list is
   * frozen when set (the columns hold its first tensor and length): set a new list to change it.
   */
  get reads(): readonly Tensor[] | null {
    return this.readList;
  }
  set reads(list: readonly Tensor[] | null) {
    this.readList = list === null ? null : Object.freeze(list);
    this.cols.setTensors(this.id, false, list);
  }
  /** Tensors a compute or collective instruction writes (collective: its results); frozen too. */
  get writes(): readonly Tensor[] | null {
    return this.writeList;
  }
  set writes(list: readonly Tensor[] | null) {
    this.writeList = list === null ? null : Object.freeze(list);
    this.cols.setTensors(this.id, true, list);
  }
  /** Activation: the accumulator-dump flag (seed 003 visitInstActivation). */
  get accumulate(): boolean {
    return this.cols.accumulate[this.id] === 1;
  }
  set accumulate(v: boolean) {
    this.cols.accumulate[this.id] = v ? 1 : 0;
  }

  /** The instruction's dependences in the order they were added, or null when it has none. */
  get deps(): Dep[] | null {
    return this.edges.list(this.cols.depHead[this.id]);
  }

  /** Adds a dependence on `on`; an existing edge keeps the stronger kind (EdgeKind precedence). */
  addDependency(on: number, kind: EdgeKind): void {
    addDependency(this.cols, this.edges, this.id, on, kind);
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
  /** The fields of every instruction the passes bind, by instruction id. */
  readonly columns = new InstrColumns(this.queues);
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
    const id = this.columns.add(op, engine, subId);
    const inst = new Instr(id, op, name, block, this.columns, this.edges);
    this.instrs.push(inst);
    if (name !== null && register) this.instrByName.set(name, inst);
    return inst;
  }

  hasDgeLevel(level: number): boolean {
    return (this.options.dgeLevels & (1 << level)) !== 0;
  }
}
