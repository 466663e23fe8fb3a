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
 *  6. the three bound layers and the gather-transpose constraints.
 *
 * This file holds the program walk and the checks every DMA passes first (bound layer 2, the
 * backend, the DMA channels); the affine part is affine.ts, the indexed rows indexed.ts, bound
 * layers 1 and 3 bounds.ts, the state they share context.ts, the output's types types.ts.
 * A host-built transfer with no indexed side, counted without a packet byte size (the common
 * case), is its shape's host plan moved to its two start addresses: once its checks pass it is
 * written straight into its compact table row (lowerPlanned), building nothing per DMA.
 *
 * Pure: reads the module, writes nothing anywhere. Every check runs here, so a DMA the flow
 * receives is one that can be written.
 */
import { NxdmaError } from '../../common/errors.ts';
import { DGE_DMA_CHANNELS } from '../../csr/formats/dge-ops.ts';
import { NO_BOUND_CHECK, boundCheck, type BoundCheck } from '../../csr/formats/dge-desc.ts';
import { carveoutCapacity } from '../../csr/formats/dge-local-regs.ts';
import { toPriorityClass } from '../../csr/formats/qos-class.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import { DTYPE_CODE, DstReduce, MemoryType, TransposeKind } from '../ir/enums.ts';
import type { InstrColumns } from '../ir/columns.ts';
import type { Instr, Module, Region, Tensor } from '../ir/module.ts';
import { isDMAFamily } from '../ir/predicates.ts';
import { hostPlanFor, lowerAffine, putStartAddresses } from './affine.ts';
import { BACKENDS, availabilityFor, hasRegwrite, selectBackend, type Backend } from './backend.ts';
import { checkBounds, checkPlanBounds } from './bounds.ts';
import {
  DmaBuild,
  ROW_DST_ADDR,
  ROW_SLOTS,
  ROW_SRC_ADDR,
  dmaLabel,
  lowerError,
  newHostPlans,
  type LowerCtx,
} from './context.ts';
import { COMPUTE_OP, transferDir, type EmitContext } from './emit.ts';
import { lowerIndexed } from './indexed.ts';
import { PlannedMemo } from './planned.ts';
import { RowSums } from './row-sums.ts';
import { DmaTable } from './table.ts';
import {
  DEFAULT_MAX_DESC_PER_PACKET,
  DEFAULT_MAX_NESTS,
  DEFAULT_RING_SIZE,
  type LowerOptions,
  type LoweredBlock,
  type LoweredDma,
  type LoweredProgram,
  type LoweredQueue,
  type QueueExecution,
} from './types.ts';

/** BOUND_CHECK_REG of a region: bc_reg = the region's index (6 bits), enabled. */
function regionBounds(m: Module): BoundCheck[] {
  return m.regions.map((_, i) => (i < 64 ? boundCheck(i, true, false) : NO_BOUND_CHECK));
}

function regionBound(ctx: LowerCtx, r: Region): BoundCheck {
  return ctx.regionBounds[ctx.m.regions.indexOf(r)] ?? NO_BOUND_CHECK;
}

/** The index tensor an access pattern reads (vector dynamic offset or TensorIndirect), or null. */
function indexOf(ap: AccessPattern): Tensor | null {
  return ap.vectorOffset?.indexTensor ?? ap.indirect ?? null;
}

/** Lowers every DMA of a compiled module. Throws LOWER_ERROR (nothing is written anywhere). */
export function lower(m: Module, opts: LowerOptions = {}): LoweredProgram {
  const ctx: LowerCtx = {
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
    compact: opts.compact !== false,
    nextChannel: new Map(),
    packetBytes: opts.packetBytes ?? null,
    dmaMask: opts.dmaMask ?? null,
    hostPlans: newHostPlans(),
    regionBounds: regionBounds(m),
    ranges: new Float64Array(ROW_SLOTS),
    planned: opts.planMemo === false ? null : new PlannedMemo(),
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
  let rows = 0;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      rows += loweredIn(m.columns, bb.ids());
    }
  }
  const table = new DmaTable(m, rows);
  const queues: LoweredQueue[] = m.queues.map((queue) =>
    withDmas(
      {
        queue,
        count: 0,
        channels: Math.max(1, Math.min(queue.dmaEngines, DGE_DMA_CHANNELS)),
        descriptors: 0,
        bytes: 0,
        maxWalk: 0,
      },
      () => table.allRecords().filter((d) => d.queue === queue),
    ),
  );
  const blocks: LoweredBlock[] = [];
  const sums = new RowSums(queues.length);
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const first = table.size;
      const iterations = bb.loop ? bb.loop.iterations : 1;
      lowerBlock(ctx, bb.ids(), table);
      sums.add(table, first, table.size, iterations);
      const count = table.size - first;
      blocks.push(
        withDmas({ fn: f.name, name: bb.name, iterations, first, count }, () =>
          table.allRecords().slice(first, first + count),
        ),
      );
    }
  }
  for (let k = 0; k < queues.length; k++) {
    const q = queues[k];
    q.count = sums.count[k];
    q.descriptors = sums.descriptors[k];
    q.bytes = sums.bytes[k];
    q.maxWalk = sums.maxWalk[k];
  }
  const byBackend: Record<Backend, number> = { none: 0, pool: 0, software: 0, rtl: 0 };
  for (let k = 0; k < BACKENDS.length; k++) byBackend[BACKENDS[k]] = sums.perBackend[k];
  return withDmas(
    {
      module: m,
      maxDescPerPacket: ctx.maxPerPacket,
      queues,
      blocks,
      table,
      totals: {
        dmas: table.size,
        executed: sums.all[0],
        dgeDescriptors: sums.all[1],
        descriptors: sums.all[2],
        bytes: sums.all[3],
        byBackend,
      },
      executedByQueue: sums.executed,
    },
    () => table.allRecords(),
  );
}

/** Lowers the DMAs of one block (its instruction ids), in order, into the next rows of `table`. */
function lowerBlock(ctx: LowerCtx, ids: Int32Array, table: DmaTable): void {
  const c = ctx.m.columns;
  const instrs = ctx.m.instrs;
  const memo = ctx.planned;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    if (!isLoweredAt(c, id)) continue;
    const I = instrs[id];
    // a DMA of a signature a compact row was made of: its addresses and bounds only (planned.ts)
    if (memo === null || !memo.lower(ctx, I, table)) lowerDma(ctx, I, table);
  }
}

/** The rows lower() makes of a block's instructions (its ids): the DMAs with both access patterns. */
function loweredIn(c: InstrColumns, ids: Int32Array): number {
  let rows = 0;
  for (let k = 0; k < ids.length; k++) if (isLoweredAt(c, ids[k])) rows++;
  return rows;
}

/**
 * A DMA with both access patterns: what the lowering lowers (read from the instruction columns,
 * where a missing pattern's tensor id is -1).
 */
function isLoweredAt(c: InstrColumns, id: number): boolean {
  return isDMAFamily(c.op[id]) && c.srcTensor[id] >= 0 && c.dstTensor[id] >= 0;
}

/** What each object withDmas gave a `dmas` makes it from, and what it made (by the object). */
const dmaMakers = new WeakMap<object, () => LoweredDma[]>();
const dmaLists = new WeakMap<object, LoweredDma[]>();

/**
 * The one `dmas` accessor of every lowered program, queue and block: one getter function for all
 * of them, so objects of one kind share one hidden class (a getter per object gives each its own,
 * and code that reads a queue's fields would meet a new one in every program).
 */
const DMAS: PropertyDescriptor = {
  enumerable: true,
  get(this: object): LoweredDma[] {
    let dmas = dmaLists.get(this);
    if (dmas === undefined) {
      dmas = dmaMakers.get(this)!();
      dmaLists.set(this, dmas);
    }
    return dmas;
  },
};

/** `o` with an enumerable `dmas` that is `make()`, made on first access and kept. */
function withDmas<T extends object>(
  o: T,
  make: () => LoweredDma[],
): T & { readonly dmas: LoweredDma[] } {
  dmaMakers.set(o, make);
  return Object.defineProperty(o, 'dmas', DMAS) as T & { readonly dmas: LoweredDma[] };
}

/**
 * Lowers one DMA: the checks every DMA passes, then its affine or indexed part and its bounds.
 * Adds its row to `table` (compact when its walks are its host plan's) and returns the row.
 */
function lowerDma(ctx: LowerCtx, I: Instr, table: DmaTable): number {
  const m = ctx.m;
  const src = I.src!;
  const dst = I.dst!;
  const queue = I.queue;
  if (queue === null) {
    throw lowerError(
      dmaLabel(I),
      'the DMA is bound to no queue (run alloc_queues first)',
      'a queue',
      null,
    );
  }
  // --- bound layer 2: source bytes == destination bytes (and no conversion in a copy)
  const srcBytes = src.numElements * src.elemSize;
  const dstBytes = dst.numElements * dst.elemSize;
  if (srcBytes !== dstBytes) {
    throw lowerError(
      dmaLabel(I),
      `bound layer 2: the source moves ${srcBytes} bytes (${src.numElements} x ${src.elemSize}), the destination ${dstBytes} (${dst.numElements} x ${dst.elemSize}) ` +
        '(is_valid_src_dst_element_count_without_cce)',
      'src_num_elem * src_elem_size == dst_num_elem * dst_elem_size',
      { src: srcBytes, dst: dstBytes },
    );
  }
  if (src.tensor.dtype !== dst.tensor.dtype) {
    throw lowerError(
      dmaLabel(I),
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
      dmaLabel(I),
      'both sides are indexed: an indirect DMA indexes one side',
      'one indexed side',
      'two',
    );
  }
  const xbar = I.transpose === TransposeKind.xbar;
  if (xbar && dIdx !== null) {
    throw lowerError(
      dmaLabel(I),
      'a gather transpose takes its indices on the source side',
      'indices on the source',
      'destination',
    );
  }
  const gatherXpose = xbar && sIdx !== null;
  const backend = selectBackend(I, ctx.avail, gatherXpose);
  if (I.dstReduce !== DstReduce.none && backend !== 'pool') {
    throw lowerError(
      dmaLabel(I),
      `a destination reduce is a DIRECT2D compute_op of the Pool backend; the ${backend} path only copies`,
      'dstReduce on a Pool (SWDGE) DMA',
      backend,
    );
  }
  if (I.dstReduce !== DstReduce.none && (sIdx !== null || dIdx !== null)) {
    throw lowerError(
      dmaLabel(I),
      'a destination reduce is a DIRECT2D compute_op: an indexed (INDIRECT1D) DMA only copies',
      'no dstReduce on an indexed DMA',
      'indexed',
    );
  }
  if (I.dstReduce !== DstReduce.none && I.transpose !== TransposeKind.none) {
    throw lowerError(
      dmaLabel(I),
      'a transpose cannot reduce into its destination',
      'no dstReduce on a transpose',
      'both',
    );
  }
  const dge = backend !== 'none';
  const priorityClass = toPriorityClass(I.qos);
  if (!dge && sIdx === null && dIdx === null && ctx.compact && ctx.packetBytes === null)
    return lowerPlanned(ctx, I, src, dst, elemSize, srcBytes, priorityClass, table);
  const channels = Math.max(1, Math.min(queue.dmaEngines, DGE_DMA_CHANNELS));
  // the queue's channels, ANDed with what the DGE mailboxes leave this priority (seed 004 §7.2:
  // "if the DGE operation's priority > the mailbox priority, AND-mask the 16-bit DMA bitmask")
  let channelMask = channels >= 16 ? 0xffff : (1 << channels) - 1;
  // MEMCOPY_DMA_CFG lo16: "which DMAs in the TPB may be used by this engine"
  if (dge) channelMask &= m.options.memcopyDmaCfg.dmas;
  if (dge && ctx.dmaMask !== null) channelMask &= ctx.dmaMask(priorityClass);
  if (dge && channelMask === 0) {
    throw lowerError(
      dmaLabel(I),
      `MEMCOPY_DMA_CFG and the DGE mailboxes leave priority class ${priorityClass} no DMA channel of the queue's ${channels}`,
      'at least one DMA channel enabled (MEMCOPY_DMA_CFG lo16 AND mailbox bitmask AND the queue channels)',
      0,
    );
  }
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
    srcBound: regionBound(ctx, src.tensor.region),
    dstBound: regionBound(ctx, dst.tensor.region),
  };
  const b = new DmaBuild(ctx, I, backend, ec);
  if (sIdx === null && dIdx === null) lowerAffine(b, I, src, dst, elemSize);
  else lowerIndexed(b, src, dst, elemSize, sIdx, dIdx, gatherXpose);
  b.finish();

  // --- packet sizes (host table +0x18, CCE prio cap), BD counts, bound layers 1 and 3
  const packetBytes =
    ctx.packetBytes === null
      ? 0
      : ctx.packetBytes({
          instr: I,
          label: dmaLabel(I),
          backend,
          priorityClass,
          elemSize,
          elements: src.numElements,
          arch: m.arch,
        });
  // a host plan's walks, counted without a packet byte size, are the plan's: a compact row holds
  // them; any other DMA's record keeps them
  const compact = ctx.compact && b.plan !== null && packetBytes === 0;
  if (b.plan !== null && !compact) b.addPlanWalks();
  checkBounds(b, src, dst, sIdx, dIdx, packetBytes);
  if (compact) {
    const r = ctx.ranges;
    r[0] = b.srcLo;
    r[1] = b.srcHi;
    r[2] = b.dstLo;
    r[3] = b.dstHi;
    r[ROW_SRC_ADDR] = b.planSrc;
    r[ROW_DST_ADDR] = b.planDst;
    const cm = dge ? channelMask : 0;
    return table.addPlan(I, backend, b.plan!, r, srcBytes, priorityClass, cm, ec.computeOp);
  }
  return table.add({
    instr: I,
    label: dmaLabel(I),
    queue,
    backend,
    priorityClass: ec.priorityClass,
    streams: b.streams,
    dgeDescriptors: b.dgeDescriptors,
    walks: b.walks,
    pieces: b.pieces,
    descriptors: b.reduceDescriptors.length > 0 ? 0 : b.total,
    bytes: srcBytes,
    srcLo: b.srcLo,
    srcHi: b.srcHi,
    dstLo: b.dstLo,
    dstHi: b.dstHi,
    indexTensor: sIdx ?? dIdx,
    computeOp: ec.computeOp,
    packetBytes,
    channelMask: dge ? channelMask : 0,
    reduceDescriptors: b.reduceDescriptors,
  });
}

/**
 * lowerDma's rest for a host-built transfer with no indexed side, counted without a packet byte
 * size, in a compact table (the common case): what it builds is its host plan moved to its two
 * start addresses, so it is held as a compact row and builds nothing else (no emit context, no
 * DmaBuild: a DMA's part is its addresses and its bound layers 3 and 1). The same row, checks and
 * errors as the general path (test/compiler/lower/table.test.ts compares it with one that keeps
 * every record).
 */
function lowerPlanned(
  ctx: LowerCtx,
  I: Instr,
  src: AccessPattern,
  dst: AccessPattern,
  elemSize: number,
  bytes: number,
  priorityClass: number,
  table: DmaTable,
): number {
  const plan = hostPlanFor(ctx, src, dst, elemSize);
  const r = ctx.ranges;
  putStartAddresses(src, dst, elemSize, r);
  checkPlanBounds(ctx, I, plan, src, dst, r);
  const computeOp = COMPUTE_OP[I.dstReduce];
  const row = table.addPlan(I, 'none', plan, r, bytes, priorityClass, 0, computeOp);
  if (ctx.planned !== null) ctx.planned.remember(I, plan, bytes, priorityClass, computeOp);
  return row;
}
