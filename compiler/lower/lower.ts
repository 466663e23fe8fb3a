/**
 * lower(module): the bound IR -> per-queue descriptor programs (seed 004 Part 1).
 *
 * For each DMA, in program order:
 *  1. access patterns -> canonical shapes -> one loop nest (shape.ts);
 *  2. the backend from the DGEType and the availability table (backend.ts);
 *  3. the nest split to fit the backend (2 dims Pool, 4 software, 5 + 2 RTL; counts u16, steps
 *     i32), or rejected when that would take too many descriptor programs;
 *  4. per descriptor program: the micro-op stream of its DMA channel and the 64-byte descriptors
 *     it builds (emit.ts), with DMA_CONFIGS.priority_class = toPriorityClass(DMAQoSClass);
 *  5. the walks the 16-byte BDs are expanded from (expand.ts) and their BD counts;
 *  6. the three bound layers and the gather-transpose constraints (bounds below).
 *
 * Pure: reads the module, writes nothing anywhere. Every check runs here, so a DMA the flow
 * receives is one that can be written.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { DGE_DMA_CHANNELS, type MicroOp } from '../../csr/formats/dge-ops.ts';
import {
  GATHER_XPOSE_RULES,
  IndirectSide,
  NO_BOUND_CHECK,
  boundCheck,
  dgeDescriptorProblem,
  gatherXposeProblem,
  type BoundCheck,
  type DgeDescriptor,
} from '../../csr/formats/dge-desc.ts';
import { carveoutCapacity } from '../../csr/formats/dge-local-regs.ts';
import { toPriorityClass } from '../../csr/formats/qos-class.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import { DTYPE_CODE, DstReduce, MemoryType, TransposeKind } from '../ir/enums.ts';
import type { Block, DmaQueue, Instr, Module, Region, Tensor } from '../ir/module.ts';
import { isDMAFamily } from '../ir/predicates.ts';
import {
  BACKEND_DIMS,
  availabilityFor,
  hasRegwrite,
  selectBackend,
  type Backend,
  type BackendAvailability,
} from './backend.ts';
import {
  COMPUTE_OP,
  gatherXposeDescriptor,
  indirectDescriptor,
  indirectMicroOps,
  nestDescriptors,
  nestMicroOps,
  type EmitContext,
  transferDir,
  type IndexedRow,
  type IndirectFields,
} from './emit.ts';
import { countPieces, walkOf, walkRanges, type Walk } from './expand.ts';
import {
  DGE_SHAPE_DEPTH,
  MAX_DIM_NUM,
  apFreeShape,
  apShape,
  buildNest,
  depthOf,
  dgeShapeOf,
  splitNest,
  splitOuter,
  type DgeShape,
  type Nest,
  type NestLimits,
} from './shape.ts';

/** Descriptors per packet the lowering emits (the engine's max_desc_per_pkt is 64 + 1). */
export const DEFAULT_MAX_DESC_PER_PACKET = 64;
/** MEMCOPY_CARVEOUT_CFG's count is 16 bits: the most descriptors one memcopy may write. */
export const DEFAULT_CARVEOUT_DESCRIPTORS = 0xffff;
/** Largest ring, in descriptors (2^24 - 16). */
export const DEFAULT_RING_SIZE = 2 ** 24 - 16;
/** Most descriptor programs one DMA may be split into. */
export const DEFAULT_MAX_NESTS = 65536;

export interface LowerOptions {
  /** Backends the DGE offers (default: the ArchLevel's row of BACKEND_AVAILABILITY). */
  availability?: Partial<BackendAvailability>;
  /** Descriptors per packet (default 64). */
  maxDescPerPacket?: number;
  /** Carveout capacity in descriptors: bound layer 3 for DGE DMAs (default 65535). */
  carveoutDescriptors?: number;
  /** Ring capacity in descriptors: bound layer 3 for every descriptor program (default 2^24 - 16). */
  ringSize?: number;
  /** Most descriptor programs per DMA (default 65536). */
  maxNests?: number;
  /** Keep the micro-op streams and 64-byte descriptors (default true). */
  keepRecords?: boolean;
  /**
   * The packet byte size of a DMA (0: packets are bounded by maxDescPerPacket only): the flow
   * gives the DGE host table's per-class bytes per packet (+0x18) and the CCE prio cap here
   * (flow/host-tables.ts). May throw LOWER_ERROR.
   */
  packetBytes?: (d: PacketInfo) => number;
  /**
   * The 16-bit DMA-channel mask a DGE operation of this wire priority class may use (the DGE
   * mailbox rule, +0x28); default 0xFFFF. ANDed with the queue's channels.
   */
  dmaMask?: (priorityClass: number) => number;
}

/** What packetBytes is asked about one DMA. */
export interface PacketInfo {
  instr: Instr;
  label: string;
  backend: Backend;
  priorityClass: number;
  elemSize: number;
  elements: number;
  arch: number;
}

/** One DMA channel's program: its micro-ops, the two dge_shapes and the descriptors it builds. */
export interface LoweredStream {
  channel: number;
  microOps: MicroOp[];
  src: DgeShape | null;
  dst: DgeShape | null;
  descriptors: DgeDescriptor[];
}

export interface LoweredDma {
  instr: Instr;
  /** `#12 (name)`. */
  label: string;
  queue: DmaQueue;
  backend: Backend;
  /** DMA_CONFIGS.priority_class of every descriptor (toPriorityClass of the DMA's class). */
  priorityClass: number;
  /** Channel programs (DGE backends only; empty when records are not kept or backend none). */
  streams: LoweredStream[];
  /** Number of 64-byte descriptors (0 for backend none). */
  dgeDescriptors: number;
  /** What the BDs are expanded from: one walk per 64-byte descriptor (or host transfer). */
  walks: Walk[];
  /** BD pairs of each walk. */
  pieces: number[];
  /**
   * BD pairs of the DMA on the rings (TX descriptors; RX has as many); 0 for a destination reduce,
   * which the Pool core executes from its DIRECT2D descriptors.
   */
  descriptors: number;
  /** Bytes the DMA moves. */
  bytes: number;
  /** Byte ranges it reads and writes: [lo, hi). */
  srcLo: number;
  srcHi: number;
  dstLo: number;
  dstHi: number;
  /** Index tensor read by the DMA (indirect), or null. */
  indexTensor: Tensor | null;
  /** DIRECT2D compute_op of a destination reduce (ComputeOp.NONE for a copy). */
  computeOp: number;
  /** Packet byte size of its BDs (0: bounded by descriptors per packet only). */
  packetBytes: number;
  /** DMA channels its streams may use (lo16 of MEMCOPY_DMA_CFG); 0 for backend none. */
  channelMask: number;
  /**
   * A destination reduce's DIRECT2D descriptors, in order (kept whatever keepRecords says): BDs
   * only copy bytes, so the Pool core executes these itself (DgeCoreIO.executeDescriptor).
   */
  reduceDescriptors: DgeDescriptor[];
}

export interface LoweredQueue {
  queue: DmaQueue;
  dmas: LoweredDma[];
  /** Channels its DMAs rotate over: min(queue.dmaEngines, 16). */
  channels: number;
  /** BD pairs of one pass over its DMAs (loop bodies once). */
  descriptors: number;
  bytes: number;
  /** Largest descriptor program of the queue, in BD pairs. */
  maxWalk: number;
}

export interface LoweredBlock {
  fn: string;
  name: string;
  /** 1, or the loop's iteration count. */
  iterations: number;
  dmas: LoweredDma[];
}

export interface LoweredProgram {
  module: Module;
  maxDescPerPacket: number;
  queues: LoweredQueue[];
  /** Blocks in execution order (functions in declaration order). */
  blocks: LoweredBlock[];
  /** Every DMA once, in program order. */
  dmas: LoweredDma[];
  totals: {
    dmas: number;
    /** DMAs executed (loop bodies counted per iteration). */
    executed: number;
    dgeDescriptors: number;
    /** BD pairs executed. */
    descriptors: number;
    /** Bytes moved by the execution. */
    bytes: number;
    byBackend: Record<Backend, number>;
  };
}

function lowerError(label: string, message: string, expected: string, actual: unknown): NxdmaError {
  return new NxdmaError('LOWER_ERROR', `${label}: ${message}`, {
    where: label,
    expected,
    actual,
  });
}

function label(I: Instr): string {
  return I.name ? `#${I.id} (${I.name})` : `#${I.id}`;
}

/** BOUND_CHECK_REG of a region: bc_reg = the region's index (6 bits), enabled. */
function regionBound(m: Module, r: Region): BoundCheck {
  const i = m.regions.indexOf(r);
  return i >= 0 && i < 64 ? boundCheck(i, true, false) : NO_BOUND_CHECK;
}

/** The index tensor an access pattern reads (vector dynamic offset or TensorIndirect), or null. */
function indexOf(ap: AccessPattern): Tensor | null {
  return ap.vectorOffset?.indexTensor ?? ap.indirect ?? null;
}

interface Ctx {
  m: Module;
  avail: BackendAvailability;
  maxPerPacket: number;
  carveout: number;
  ringSize: number;
  maxNests: number;
  keep: boolean;
  /** Next channel per queue. */
  nextChannel: Map<DmaQueue, number>;
  packetBytes: ((d: PacketInfo) => number) | null;
  dmaMask: ((priorityClass: number) => number) | null;
}

/** Lowers every DMA of a compiled module. Throws LOWER_ERROR (nothing is written anywhere). */
export function lower(m: Module, opts: LowerOptions = {}): LoweredProgram {
  const ctx: Ctx = {
    m,
    // the backend availability table: the ArchLevel's default, then the program's, then the caller's
    avail: { ...availabilityFor(m.arch), ...m.options.backends, ...opts.availability },
    maxPerPacket: opts.maxDescPerPacket ?? DEFAULT_MAX_DESC_PER_PACKET,
    // MEMCOPY_CARVEOUT_CFG: "The size of the carveout region (minus the reserved ones) limits the
    // maximum number of descriptors in a single memcopy"
    carveout: opts.carveoutDescriptors ?? carveoutCapacity(m.options.memcopyCarveoutCfg),
    ringSize: opts.ringSize ?? DEFAULT_RING_SIZE,
    maxNests: opts.maxNests ?? DEFAULT_MAX_NESTS,
    keep: opts.keepRecords !== false,
    nextChannel: new Map(),
    packetBytes: opts.packetBytes ?? null,
    dmaMask: opts.dmaMask ?? null,
  };
  for (const [k, v] of [
    ['maxDescPerPacket', ctx.maxPerPacket],
    ['carveoutDescriptors', ctx.carveout],
    ['ringSize', ctx.ringSize],
    ['maxNests', ctx.maxNests],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new NxdmaError('BAD_ARGUMENT', `lower: ${k} ${String(v)} is not a positive integer`, {
        where: `lower.${k}`,
        expected: 'an integer >= 1',
        actual: v,
      });
    }
  }
  const queues: LoweredQueue[] = m.queues.map((queue) => ({
    queue,
    dmas: [],
    channels: Math.max(1, Math.min(queue.dmaEngines, DGE_DMA_CHANNELS)),
    descriptors: 0,
    bytes: 0,
    maxWalk: 0,
  }));
  const blocks: LoweredBlock[] = [];
  const dmas: LoweredDma[] = [];
  const byBackend: Record<Backend, number> = { none: 0, pool: 0, software: 0, rtl: 0 };
  let executed = 0;
  let dgeDescs = 0;
  let execDescs = 0;
  let execBytes = 0;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const lb: LoweredBlock = {
        fn: f.name,
        name: bb.name,
        iterations: bb.loop ? bb.loop.iterations : 1,
        dmas: [],
      };
      for (const I of bb.instrs) {
        if (!isDMAFamily(I.op) || I.src === null || I.dst === null) continue;
        const d = lowerDma(ctx, I, bb);
        lb.dmas.push(d);
        dmas.push(d);
        const q = queues[d.queue.index];
        q.dmas.push(d);
        q.descriptors += d.descriptors;
        q.bytes += d.bytes;
        if (d.reduceDescriptors.length === 0)
          for (const p of d.pieces) if (p > q.maxWalk) q.maxWalk = p;
        byBackend[d.backend]++;
        dgeDescs += d.dgeDescriptors;
        executed += lb.iterations;
        execDescs += d.descriptors * lb.iterations;
        execBytes += d.bytes * lb.iterations;
      }
      blocks.push(lb);
    }
  }
  return {
    module: m,
    maxDescPerPacket: ctx.maxPerPacket,
    queues,
    blocks,
    dmas,
    totals: {
      dmas: dmas.length,
      executed,
      dgeDescriptors: dgeDescs,
      descriptors: execDescs,
      bytes: execBytes,
      byBackend,
    },
  };
}

/** RTL_DIMS: the loop dims of an RTL descriptor program (the 5 of "5 + 2", seed 004 §3.4/§4.1). */
export const RTL_NEST_DIMS = 5;

/** The deepest loop nest one descriptor program of a DGE backend may hold. */
export function nestDepth(backend: Backend): number {
  return backend === 'rtl' ? RTL_NEST_DIMS : Math.min(DGE_SHAPE_DEPTH, BACKEND_DIMS[backend]);
}

/** Lowers one DMA. */
function lowerDma(ctx: Ctx, I: Instr, _bb?: Block): LoweredDma {
  const m = ctx.m;
  const lab = label(I);
  const src = I.src!;
  const dst = I.dst!;
  const queue = I.queue;
  if (queue === null) {
    throw lowerError(lab, 'the DMA is bound to no queue (run alloc_queues first)', 'a queue', null);
  }
  // --- bound layer 2: source bytes == destination bytes (and no conversion in a copy)
  const srcBytes = src.numElements * src.elemSize;
  const dstBytes = dst.numElements * dst.elemSize;
  if (srcBytes !== dstBytes) {
    throw lowerError(
      lab,
      `bound layer 2: the source moves ${srcBytes} bytes (${src.numElements} x ${src.elemSize}), the destination ${dstBytes} (${dst.numElements} x ${dst.elemSize}) ` +
        '(is_valid_src_dst_element_count_without_cce)',
      'src_num_elem * src_elem_size == dst_num_elem * dst_elem_size',
      { src: srcBytes, dst: dstBytes },
    );
  }
  if (src.tensor.dtype !== dst.tensor.dtype) {
    throw lowerError(
      lab,
      `the DMA converts ${src.tensor.dtype} to ${dst.tensor.dtype}: a ring descriptor copies bytes and cannot convert`,
      'the same dtype on both sides',
      { src: src.tensor.dtype, dst: dst.tensor.dtype },
    );
  }
  const elemSize = src.elemSize;
  const sIdx = indexOf(src);
  const dIdx = indexOf(dst);
  if (sIdx !== null && dIdx !== null) {
    throw lowerError(
      lab,
      'both sides are indexed: an indirect DMA indexes one side',
      'one indexed side',
      'two',
    );
  }
  const xbar = I.transpose === TransposeKind.xbar;
  if (xbar && dIdx !== null) {
    throw lowerError(
      lab,
      'a gather transpose takes its indices on the source side',
      'indices on the source',
      'destination',
    );
  }
  const gatherXpose = xbar && sIdx !== null;
  const backend = selectBackend(I, ctx.avail, gatherXpose, lab);
  if (I.dstReduce !== DstReduce.none && backend !== 'pool') {
    throw lowerError(
      lab,
      `a destination reduce is a DIRECT2D compute_op of the Pool backend; the ${backend} path only copies`,
      'dstReduce on a Pool (SWDGE) DMA',
      backend,
    );
  }
  if (I.dstReduce !== DstReduce.none && (sIdx !== null || dIdx !== null)) {
    throw lowerError(
      lab,
      'a destination reduce is a DIRECT2D compute_op: an indexed (INDIRECT1D) DMA only copies',
      'no dstReduce on an indexed DMA',
      'indexed',
    );
  }
  if (I.dstReduce !== DstReduce.none && I.transpose !== TransposeKind.none) {
    throw lowerError(
      lab,
      'a transpose cannot reduce into its destination',
      'no dstReduce on a transpose',
      'both',
    );
  }
  const dge = backend !== 'none';
  const priorityClass = toPriorityClass(I.qos);
  const channels = Math.max(1, Math.min(queue.dmaEngines, DGE_DMA_CHANNELS));
  // the queue's channels, ANDed with what the DGE mailboxes leave this priority (seed 004 §7.2:
  // "if the DGE operation's priority > the mailbox priority, AND-mask the 16-bit DMA bitmask")
  let channelMask = channels >= 16 ? 0xffff : (1 << channels) - 1;
  // MEMCOPY_DMA_CFG lo16: "which DMAs in the TPB may be used by this engine"
  if (dge) channelMask &= m.options.memcopyDmaCfg.dmas;
  if (dge && ctx.dmaMask !== null) channelMask &= ctx.dmaMask(priorityClass);
  if (dge && channelMask === 0) {
    throw lowerError(
      lab,
      `MEMCOPY_DMA_CFG and the DGE mailboxes leave priority class ${priorityClass} no DMA channel of the queue's ${channels}`,
      'at least one DMA channel enabled (MEMCOPY_DMA_CFG lo16 AND mailbox bitmask AND the queue channels)',
      0,
    );
  }
  let ch = ctx.nextChannel.get(queue) ?? lowestBit(channelMask);
  if ((channelMask & (1 << ch)) === 0) ch = nextBit(channelMask, ch);
  const ec: EmitContext = {
    channel: 0,
    channelMask,
    queueMask: m.options.memcopyDmaCfg.queues,
    regwrite: hasRegwrite(m.arch),
    dir: transferDir(
      src.tensor.region.memType === MemoryType.DRAM,
      dst.tensor.region.memType === MemoryType.DRAM,
    ),
    priorityClass,
    dtype: DTYPE_CODE[src.tensor.dtype],
    computeOp: COMPUTE_OP[I.dstReduce],
    srcBound: regionBound(m, src.tensor.region),
    dstBound: regionBound(m, dst.tensor.region),
  };
  const streams: LoweredStream[] = [];
  const walks: Walk[] = [];
  const reduceDescriptors: DgeDescriptor[] = [];
  let dgeDescriptors = 0;
  const addStream = (ops: MicroOp[], n: Nest | null, descs: DgeDescriptor[]): void => {
    for (const d of descs) {
      const p = dgeDescriptorProblem(d);
      if (p) {
        throw lowerError(
          lab,
          `${d.kind}.${p.field}: expected ${p.expected}, got ${String(p.actual)}`,
          p.expected,
          p.actual,
        );
      }
      walks.push(walkOf(d));
    }
    dgeDescriptors += descs.length;
    if (ctx.keep) {
      streams.push({
        channel: ec.channel,
        microOps: ops,
        // the dge_shape is the firmware's 4-deep view; a deeper RTL program has none
        src: n && depthOf(n) <= DGE_SHAPE_DEPTH ? dgeShapeOf(n, true) : null,
        dst: n && depthOf(n) <= DGE_SHAPE_DEPTH ? dgeShapeOf(n, false) : null,
        descriptors: descs,
      });
    }
  };
  const nextChannel = (): void => {
    ec.channel = ch;
    ch = nextBit(channelMask, ch);
  };

  if (sIdx === null && dIdx === null) {
    // --- affine
    const ss = apShape(src);
    const ds = apShape(dst);
    const nest = buildNest(
      ss,
      ds,
      elemSize,
      src.tensor.address + ss.baseElem * elemSize,
      dst.tensor.address + ds.baseElem * elemSize,
    );
    const transpose = I.transpose !== TransposeKind.none;
    // Pool and software walk the nest through the 4-deep dge_shape ($S registers); RTL expands
    // "the 5 + 2-dim form" in hardware (seed 004 §4.1), so an RTL program keeps 5 dims.
    const limits: NestLimits = dge
      ? {
          maxDepth: nestDepth(backend),
          fieldLimits: true,
          unpairedBelow: transpose ? 0 : 2,
          maxNests: ctx.maxNests,
        }
      : { maxDepth: Infinity, fieldLimits: false, unpairedBelow: Infinity, maxNests: ctx.maxNests };
    const nests: Nest[] = [];
    splitNest(nest, limits, nests);
    for (const n of nests) {
      if (!dge) {
        walks.push({
          type: 'affine',
          elemSize,
          srcAddr: n.srcAddr,
          dstAddr: n.dstAddr,
          srcNum: n.srcNum,
          srcStep: n.srcStep,
          dstNum: n.dstNum,
          dstStep: n.dstStep,
        });
        continue;
      }
      nextChannel();
      const descs = nestDescriptors(ec, n, transpose);
      if (ec.computeOp !== COMPUTE_OP[DstReduce.none])
        for (const x of descs) reduceDescriptors.push(x);
      if (xbar) for (const d of descs) xbarCheck(lab, d);
      addStream(ctx.keep ? nestMicroOps(ec, n, BACKEND_DIMS[backend]) : [], n, descs);
    }
  } else {
    // --- indexed rows
    const gather = sIdx !== null;
    const X = gather ? src : dst; // the indexed side
    const Y = gather ? dst : src; // the direct side
    const idxT = (sIdx ?? dIdx)!;
    const numIdx = X.partNum;
    const fx = apFreeShape(X);
    const ys = apShape(Y);
    const sp = splitOuter(ys, numIdx);
    if (sp === null) {
      throw lowerError(
        lab,
        `indirect DMA: the ${gather ? 'destination' : 'source'} must walk the ${numIdx} index rows as its outermost dimension`,
        `an access pattern whose outer ${numIdx} iterations are equal blocks`,
        Y.dims(),
      );
    }
    const [iMin, iMax] = indexRange(idxT, numIdx);
    if (iMin < 0) {
      throw lowerError(
        lab,
        `index tensor "${idxT.name}" holds ${iMin}: row indices are u32`,
        'indices >= 0',
        iMin,
      );
    }
    const xAddr = X.tensor.address;
    const yAddr = Y.tensor.address + sp.inner.baseElem * elemSize;
    // the channel program of one indexed row stream (kept only when the records are)
    // the channel program of one indexed row stream (kept only when the records are): one
    // GENERATE per indexed row, its addresses from the index tensor's values (read-only: init)
    const idxValues = idxT.init ?? [];
    const indirectOps = (f: IndirectFields, xpose: boolean): MicroOp[] => {
      if (!ctx.keep) return [];
      const rows: IndexedRow[] = [];
      const g = f.side === IndirectSide.GATHER;
      for (let i = 0; i < f.numIdx; i++) {
        const r = idxValues[i] ?? 0;
        rows.push({
          src: f.src + (g ? r : i) * f.srcStep * f.elemSize,
          dst: xpose ? f.dst + i * f.elemSize : f.dst + (g ? i : r) * f.dstStep * f.elemSize,
        });
      }
      return indirectMicroOps(
        ec,
        BACKEND_DIMS[backend],
        f.elemSize,
        rows,
        f.rowElems,
        xpose ? f.dstStep : 1,
      );
    };
    if (gatherXpose && dge) {
      const rowElems = fx.nums.length === 0 ? 1 : fx.nums[0];
      const rowOk = fx.nums.length === 0 || (fx.nums.length === 1 && fx.steps[0] === 1);
      const innerOk =
        sp.inner.nums.length === 0 || (sp.inner.nums.length === 1 && sp.inner.nums[0] === rowElems);
      if (!rowOk || !innerOk || (numIdx > 1 && sp.outerStep !== 1)) {
        throw lowerError(
          lab,
          'gather transpose: each gathered row must be contiguous and land as a destination column (row i, element j at dst + j * stride + i)',
          'source rows [1, row] and a destination walked [1, numIdx] x [stride, row]',
          { src: X.dims(), dst: Y.dims() },
        );
      }
      if (idxT.dtype !== 'uint32') {
        throw lowerError(
          lab,
          `gather transpose: the index tensor "${idxT.name}" is ${idxT.dtype}`,
          'a UINT32 index tensor',
          idxT.dtype,
        );
      }
      const f: IndirectFields = {
        elemSize,
        side: IndirectSide.GATHER,
        src: xAddr + fx.baseElem * elemSize,
        dst: yAddr,
        idx: idxT.address,
        numIdx,
        rowElems,
        srcStep: X.partStep,
        dstStep: sp.inner.nums.length === 0 ? 1 : sp.inner.steps[0],
        idxLimit: idxLimit(X.tensor, fx.baseElem, rowElems - 1, X.partStep),
      };
      nextChannel();
      const d = gatherXposeDescriptor(ec, f);
      gatherCheck(lab, d, idxT);
      addStream(indirectOps(f, true), null, [d]);
    } else {
      // rows: pair the indexed side's free dims with the direct side's inner block
      const rowNest = gather
        ? buildNest(fx, sp.inner, elemSize, 0, 0)
        : buildNest(sp.inner, fx, elemSize, 0, 0);
      const runs: Nest[] = [];
      splitNest(
        rowNest,
        { maxDepth: 1, fieldLimits: true, unpairedBelow: 0, maxNests: ctx.maxNests },
        runs,
      );
      for (const r of runs) {
        // r: offsets in bytes from the row bases; one contiguous run or single elements
        const len = r.srcNum.length === 0 ? 1 : r.srcNum[0];
        const contiguous = len === 1 || (r.srcStep[0] === 1 && r.dstStep[0] === 1);
        const count = contiguous ? 1 : len;
        for (let e = 0; e < count; e++) {
          const so = r.srcAddr + (contiguous ? 0 : e * r.srcStep[0] * elemSize);
          const dOff = r.dstAddr + (contiguous ? 0 : e * r.dstStep[0] * elemSize);
          const rowElems = contiguous ? len : 1;
          const xo = (gather ? so : dOff) / elemSize; // element offset on the indexed side
          const f: IndirectFields = {
            elemSize,
            side: gather ? IndirectSide.GATHER : IndirectSide.SCATTER,
            src: gather ? xAddr + (fx.baseElem + xo) * elemSize : yAddr + so,
            dst: gather ? yAddr + dOff : xAddr + (fx.baseElem + xo) * elemSize,
            idx: idxT.address,
            numIdx,
            rowElems,
            srcStep: gather ? X.partStep : sp.outerStep,
            dstStep: gather ? sp.outerStep : X.partStep,
            idxLimit: idxLimit(X.tensor, fx.baseElem + xo, rowElems - 1, X.partStep),
          };
          if (rowElems > MAX_DIM_NUM) {
            throw lowerError(
              lab,
              `a row of ${rowElems} elements exceeds row_num_elem (u16)`,
              `<= ${MAX_DIM_NUM}`,
              rowElems,
            );
          }
          if (dge) {
            nextChannel();
            addStream(indirectOps(f, false), null, [indirectDescriptor(ec, f)]);
          } else {
            walks.push({
              type: 'indirect',
              elemSize,
              side: f.side,
              srcAddr: f.src,
              dstAddr: f.dst,
              idxAddr: f.idx,
              numIdx,
              rowElems,
              srcStep: f.srcStep,
              dstStep: f.dstStep,
              idxLimit: f.idxLimit,
            });
          }
          if (walks.length > ctx.maxNests) {
            throw lowerError(
              lab,
              `more than ${ctx.maxNests} descriptor programs`,
              `<= ${ctx.maxNests}`,
              walks.length,
            );
          }
        }
      }
    }
  }
  if (dge) ctx.nextChannel.set(queue, ch);

  // --- packet sizes (host table +0x18, CCE prio cap), BD counts, bound layers 1 and 3
  const packetBytes =
    ctx.packetBytes === null
      ? 0
      : ctx.packetBytes({
          instr: I,
          label: lab,
          backend,
          priorityClass,
          elemSize,
          elements: src.numElements,
          arch: m.arch,
        });
  const pieces: number[] = new Array(walks.length);
  let total = 0;
  let srcLo = Infinity;
  let srcHi = -Infinity;
  let dstLo = Infinity;
  let dstHi = -Infinity;
  const idxT = sIdx ?? dIdx;
  const [iMin, iMax] = idxT ? indexRange(idxT, (sIdx ? src : dst).partNum) : [0, 0];
  const sReg = src.tensor.region;
  const dReg = dst.tensor.region;
  for (let k = 0; k < walks.length; k++) {
    const w = walks[k];
    const n = countPieces(w, packetBytes);
    if (n > ctx.ringSize) {
      throw lowerError(
        lab,
        `bound layer 3: a descriptor program of ${n} descriptors does not fit a ring of ${ctx.ringSize}`,
        `<= ${ctx.ringSize} descriptors per program`,
        n,
      );
    }
    pieces[k] = n;
    total += n;
    const [sl, sh, dl, dh] = walkRanges(w, iMin, iMax);
    if (
      sl < sReg.base ||
      sh > sReg.base + sReg.size ||
      dl < dReg.base ||
      dh > dReg.base + dReg.size
    ) {
      const sOk = sl >= sReg.base && sh <= sReg.base + sReg.size ? 1 : 0;
      const dOk = dl >= dReg.base && dh <= dReg.base + dReg.size ? 1 : 0;
      throw lowerError(
        lab,
        `bound layer 1: bounds:(${sOk} ${hex(sh)}<=${hex(sReg.base + sReg.size)}, ${dOk} ${hex(dh)}<=${hex(dReg.base + dReg.size)}): ` +
          `source ${hex(sl)}..${hex(sh)} in region "${sReg.name}" (${hex(sReg.base)}..${hex(sReg.base + sReg.size)}), ` +
          `destination ${hex(dl)}..${hex(dh)} in region "${dReg.name}" (${hex(dReg.base)}..${hex(dReg.base + dReg.size)})`,
        'every source and destination byte inside its declared region',
        { src: [hex(sl), hex(sh)], dst: [hex(dl), hex(dh)] },
      );
    }
    if (sl < srcLo) srcLo = sl;
    if (sh > srcHi) srcHi = sh;
    if (dl < dstLo) dstLo = dl;
    if (dh > dstHi) dstHi = dh;
  }
  if (dge && total > ctx.carveout) {
    throw lowerError(
      lab,
      `bound layer 3: the DMA needs ${total} descriptors, more than the ${ctx.carveout} of the DGE carveout (MEMCOPY_CARVEOUT_CFG)`,
      `<= ${ctx.carveout} descriptors per memcopy`,
      total,
    );
  }
  if (idxT !== null) {
    // the index tensor is read by the DMA as well
    if (idxT.address < srcLo) srcLo = idxT.address;
    if (idxT.address + idxT.byteSize > srcHi) srcHi = idxT.address + idxT.byteSize;
  }
  return {
    instr: I,
    label: lab,
    queue,
    backend,
    priorityClass: ec.priorityClass,
    streams,
    dgeDescriptors,
    walks,
    pieces,
    descriptors: reduceDescriptors.length > 0 ? 0 : total,
    bytes: srcBytes,
    srcLo,
    srcHi,
    dstLo,
    dstHi,
    indexTensor: idxT,
    computeOp: ec.computeOp,
    packetBytes,
    channelMask: dge ? channelMask : 0,
    reduceDescriptors,
  };
}

/** The lowest set bit of a non-zero 16-bit mask. */
function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}

/** The next set bit of `mask` after bit `b`, wrapping (the channels a queue rotates over). */
function nextBit(mask: number, b: number): number {
  for (let k = 1; k <= 16; k++) {
    const c = (b + k) & 15;
    if ((mask & (1 << c)) !== 0) return c;
  }
  return b;
}

/** The smallest and largest of the first `n` index values (index tensors are read-only: init). */
function indexRange(t: Tensor, n: number): [number, number] {
  const v = t.init;
  if (v === null || v.length < n) return [0, 0];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  return [lo, hi];
}

/** idx_limit: rows at or past it would leave the indexed tensor (0: unchecked, for steps <= 0). */
function idxLimit(t: Tensor, baseElem: number, rowMax: number, step: number): number {
  if (step <= 0) return 0;
  const lim = Math.floor((t.numElements - 1 - baseElem - rowMax) / step) + 1;
  return Math.max(0, Math.min(lim, 0xffffffff));
}

/** The cross-bar rules on a DIRECT2D_XPOSE (2-byte dtype, 32-byte aligned destination, 16-row tiles). */
function xbarCheck(lab: string, d: DgeDescriptor): void {
  if (d.kind !== 'DIRECT2D_XPOSE') return;
  const r = GATHER_XPOSE_RULES;
  if (d.elem_size !== r.elemSize) {
    throw lowerError(
      lab,
      `xbar transpose of ${d.elem_size}-byte elements: only 2-byte dtypes (BF16/FP16)`,
      '2-byte elements',
      d.elem_size,
    );
  }
  if (d.dst_addr % r.dstAlign !== 0) {
    throw lowerError(
      lab,
      `xbar transpose destination ${hex(d.dst_addr)} is not 32-byte aligned`,
      '32-byte aligned destination',
      hex(d.dst_addr),
    );
  }
  if (d.src_num_elem[1] % r.tileRows !== 0) {
    throw lowerError(
      lab,
      `xbar transpose of ${d.src_num_elem[1]} source rows: the xbar moves 16 x 128 tiles (rows a multiple of 16)`,
      'a multiple of 16 source rows',
      d.src_num_elem[1],
    );
  }
}

/** The gather-transpose constraints (csr/formats/dge-desc.ts gatherXposeProblem) plus the index dtype. */
function gatherCheck(lab: string, d: DgeDescriptor, idx: Tensor): void {
  if (d.kind !== 'GATHER_XPOSE') return;
  const p = gatherXposeProblem(d);
  if (p) {
    throw lowerError(
      lab,
      `gather transpose: ${p.field} expected ${p.expected}, got ${String(p.actual)}`,
      p.expected,
      p.actual,
    );
  }
  if (idx.elemSize !== GATHER_XPOSE_RULES.indexSize) {
    throw lowerError(
      lab,
      `gather transpose: index tensor "${idx.name}" is ${idx.dtype}`,
      'UINT32 indices',
      idx.dtype,
    );
  }
}
