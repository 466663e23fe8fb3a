/**
 * Instruction columns: the fields every pass reads or binds, one typed array per field, indexed by
 * instruction id. The Instr accessors (module.ts) read and write these arrays, so an instruction
 * object and its columns are one record; a pass walks a block's ids (Block.ids) and reads the
 * columns instead of visiting each instruction object and its two access patterns.
 *
 * What a column derives from an access pattern (its tensor id, its ApShapes id, which run-time
 * offsets it has) is computed when the pattern is set on the instruction: access patterns are
 * immutable, so the derived columns stay exact.
 */
import { grown } from '../../common/typed-arrays.ts';
import type { AccessPattern } from './access-pattern.ts';
import {
  DGEType,
  DMAKind,
  DMAQoSClass,
  DstReduce,
  InstructionType,
  TransposeKind,
} from './enums.ts';
import type { DmaQueue, Module, Tensor } from './module.ts';

/** Access-pattern flags of the `ap` column (source bits; destination bits are shifted by 4). */
export const AP_DYNAMIC = 1; // isDynamic()
export const AP_SCALAR = 2; // isScalarDynamicOffset()
export const AP_VECTOR = 4; // isVectorDynamicOffset()
export const AP_INDIRECT = 8; // isTensorIndirect()
/** The destination's flags sit 4 bits above the source's. */
export const AP_DST = 4;

function apFlags(ap: AccessPattern): number {
  return (
    (ap.isDynamic() ? AP_DYNAMIC : 0) |
    (ap.isScalarDynamicOffset() ? AP_SCALAR : 0) |
    (ap.isVectorDynamicOffset() ? AP_VECTOR : 0) |
    (ap.isTensorIndirect() ? AP_INDIRECT : 0)
  );
}

export class InstrColumns {
  /** Instructions held (ids 0..size-1). */
  size = 0;
  /** CollectiveCompute instructions among them (an instruction's opcode never changes). */
  collectives = 0;
  op = new Uint16Array(64);
  engine = new Uint8Array(64);
  subId = new Int32Array(64);
  dgeType = new Uint8Array(64);
  eligible = new Uint8Array(64);
  dmaKind = new Uint8Array(64);
  qos = new Uint8Array(64);
  /** Index of the bound queue in `queues`; -1: none. */
  queue = new Int32Array(64);
  queueType = new Int8Array(64);
  transpose = new Uint8Array(64);
  dstReduce = new Uint8Array(64);
  dmaEngines = new Int32Array(64);
  /** Tensor id of the source / destination pattern; -1: no pattern. */
  srcTensor = new Int32Array(64);
  dstTensor = new Int32Array(64);
  /** ApShapes id of the source / destination pattern (-1: none or not interned). */
  srcShape = new Int32Array(64);
  dstShape = new Int32Array(64);
  /** AP_* flags of the source (low 4 bits) and destination (high 4 bits). */
  ap = new Uint8Array(64);
  /** First of the instruction's dependence edges in the module's DepEdges; -1: none. */
  depHead = new Int32Array(64);
  /** A compute's or collective's first written / read tensor id (-1: none) and list lengths. */
  write0 = new Int32Array(64);
  writes = new Int32Array(64);
  read0 = new Int32Array(64);
  reads = new Int32Array(64);
  /** Activation: the accumulator-dump flag (1 set). */
  accumulate = new Uint8Array(64);

  constructor(
    /** The module's queues (the `queue` column indexes them). */
    readonly queues: readonly DmaQueue[],
  ) {}

  /** Appends an instruction's columns at their neutral values; returns its id. */
  add(op: number, engine: number, subId: number): number {
    if (this.size === this.op.length) this.grow();
    const id = this.size++;
    this.op[id] = op;
    if (op === InstructionType.CollectiveCompute) this.collectives++;
    this.engine[id] = engine;
    this.subId[id] = subId;
    this.dgeType[id] = DGEType.Unassigned;
    this.dmaKind[id] = DMAKind.Generic;
    this.qos[id] = DMAQoSClass.Default;
    this.queue[id] = -1;
    this.queueType[id] = -1;
    this.transpose[id] = TransposeKind.none;
    this.dstReduce[id] = DstReduce.none;
    this.srcTensor[id] = -1;
    this.dstTensor[id] = -1;
    this.srcShape[id] = -1;
    this.dstShape[id] = -1;
    this.depHead[id] = -1;
    this.write0[id] = -1;
    this.read0[id] = -1;
    return id;
  }

  /** Records the tensors instruction `id` writes (`write` true) or reads. */
  setTensors(id: number, write: boolean, list: readonly Tensor[] | null): void {
    const first = list !== null && list.length > 0 ? list[0].id : -1;
    const count = list === null ? 0 : list.length;
    if (write) {
      this.write0[id] = first;
      this.writes[id] = count;
    } else {
      this.read0[id] = first;
      this.reads[id] = count;
    }
  }

  /** Records the source (`dst` false) or destination pattern of instruction `id`. */
  setPattern(id: number, dst: boolean, ap: AccessPattern | null): void {
    const tensor = dst ? this.dstTensor : this.srcTensor;
    const shape = dst ? this.dstShape : this.srcShape;
    tensor[id] = ap === null ? -1 : ap.tensor.id;
    shape[id] = ap === null ? -1 : ap.shapeId;
    const f = ap === null ? 0 : apFlags(ap);
    this.ap[id] = dst ? (this.ap[id] & 0x0f) | (f << AP_DST) : (this.ap[id] & 0xf0) | f;
  }

  private grow(): void {
    const n = this.op.length * 2;
    this.op = grown(this.op, n);
    this.engine = grown(this.engine, n);
    this.subId = grown(this.subId, n);
    this.dgeType = grown(this.dgeType, n);
    this.eligible = grown(this.eligible, n);
    this.dmaKind = grown(this.dmaKind, n);
    this.qos = grown(this.qos, n);
    this.queue = grown(this.queue, n);
    this.queueType = grown(this.queueType, n);
    this.transpose = grown(this.transpose, n);
    this.dstReduce = grown(this.dstReduce, n);
    this.dmaEngines = grown(this.dmaEngines, n);
    this.srcTensor = grown(this.srcTensor, n);
    this.dstTensor = grown(this.dstTensor, n);
    this.srcShape = grown(this.srcShape, n);
    this.dstShape = grown(this.dstShape, n);
    this.ap = grown(this.ap, n);
    this.depHead = grown(this.depHead, n);
    this.write0 = grown(this.write0, n);
    this.writes = grown(this.writes, n);
    this.read0 = grown(this.read0, n);
    this.reads = grown(this.reads, n);
    this.accumulate = grown(this.accumulate, n);
  }
}

/** hasDynamicAP on the columns: either pattern of instruction `id` is dynamic. */
export function hasDynamicAPAt(c: InstrColumns, id: number): boolean {
  return (c.ap[id] & (AP_DYNAMIC | (AP_DYNAMIC << AP_DST))) !== 0;
}

/** Per tensor id: its TensorKind and MemoryType (what the passes read of an endpoint). */
export interface TensorFacts {
  kind: Uint8Array;
  mem: Uint8Array;
}

/** The kind and memory type of every tensor of `m`, read once per pass run. */
export function tensorFacts(m: Module): TensorFacts {
  const n = m.tensors.length;
  const kind = new Uint8Array(n);
  const mem = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    kind[i] = m.tensors[i].kind;
    mem[i] = m.tensors[i].memType;
  }
  return { kind, mem };
}
