/**
 * The emit stage (seed 004 §5.1-§5.5): per DMA channel the micro-op stream [REGWRITE]* GENERATE
 * DIMPUSH x #dims, and the 64-byte descriptors that stream builds (DIRECT2D, DIRECT2D_XPOSE,
 * INDIRECT1D, GATHER_XPOSE). Records come from csr/formats (dge-ops.ts, dge-desc.ts), the one home
 * of their layouts; this file only fills them.
 *
 * The GENERATEs follow the seed (§5.1, §0): "one GENERATE = one data BD", its %s "resolves to RD
 * (M2S, addr = source) or WR (S2M, addr = destination)" by the transfer's direction ("READ =
 * HBM→local", "WRITE = local→HBM"); "for an indirect gather, one GENERATE per gathered row". So a
 * channel program of an affine nest issues one GENERATE (the descriptor program's data
 * descriptor), and an indexed program one GENERATE per indexed row, each followed by its DIMPUSHes.
 *
 * nxdma's choices where the seed is silent (docs/lowering.md):
 * - the direction is WR when the destination is DRAM and the source is not, RD otherwise (DRAM ->
 *   DRAM and on-chip -> on-chip copies read: their GENERATE names the source);
 * - the REGWRITE (ArchLevel < 40) writes MEMCOPY_DMA_CFG (local register 40, byte offset 0xA0):
 *   lo16 = the DMA channels the DMA may use, hi16 = the queues (options.memcopyDmaCfg);
 * - DIMPUSHes are issued innermost dimension first (k advances per DIMPUSH: k = 0 is the inner
 *   dim of the descriptor's [inner, outer] arrays).
 */
import {
  ComputeOp,
  IndirectSide,
  type BoundCheck,
  type DgeDescriptor,
} from '../../csr/formats/dge-desc.ts';
import { MicroOpDir, dimpush, type MicroOp } from '../../csr/formats/dge-ops.ts';
import {
  MEMCOPY_DMA_CFG,
  MEMCOPY_DMA_CFG_OFFSET,
  packDmaCfg,
} from '../../csr/formats/dge-local-regs.ts';
import { DstReduce } from '../ir/enums.ts';
import type { Nest } from './shape.ts';

/** AWS_NEURON_ISA_XT_MEMCOPY_DMA_CFG is local register 40 (seed 004 §5.4); registers are 4 bytes. */
export { MEMCOPY_DMA_CFG, MEMCOPY_DMA_CFG_OFFSET };

/** No semaphore (sem_num -1). */
const NO_SEM = -1;

export const COMPUTE_OP: Readonly<Record<number, number>> = {
  [DstReduce.none]: ComputeOp.NONE,
  [DstReduce.add]: ComputeOp.ADD,
  [DstReduce.multiply]: ComputeOp.MULTIPLY,
  [DstReduce.max]: ComputeOp.MAX,
  [DstReduce.min]: ComputeOp.MIN,
};

/** Where a stream is issued and what it carries besides the nest. */
export interface EmitContext {
  /** DMA channel d of "push ... to DMA[d]". */
  channel: number;
  /** Channels the queue may use (lo16 of MEMCOPY_DMA_CFG). */
  channelMask: number;
  /** The queues the DGE engine may use (hi16 of MEMCOPY_DMA_CFG). */
  queueMask: number;
  regwrite: boolean;
  /** The transfer's direction: RD (addr = source) or WR (addr = destination). */
  dir: number;
  priorityClass: number;
  dtype: number;
  computeOp: number;
  srcBound: BoundCheck;
  dstBound: BoundCheck;
}

/** The [REGWRITE] at the head of a channel program (ArchLevel < 40). */
function regwrite(ctx: EmitContext, out: MicroOp[]): void {
  if (!ctx.regwrite) return;
  out.push({
    op: 'REGWRITE',
    dma: ctx.channel,
    reg: MEMCOPY_DMA_CFG_OFFSET,
    value: packDmaCfg({ dmas: ctx.channelMask & 0xffff, queues: ctx.queueMask }),
  });
}

/** One GENERATE: one data descriptor, addr by the direction (RD: source, WR: destination). */
function generate(
  ctx: EmitContext,
  elemSize: number,
  src: number,
  dst: number,
  out: MicroOp[],
): void {
  out.push({
    op: 'GENERATE',
    dma: ctx.channel,
    dir: ctx.dir,
    elem_size: elemSize,
    sem_num: NO_SEM,
    addr: ctx.dir === MicroOpDir.WR ? dst : src,
  });
}

/** The direction of a transfer: WR when it writes DRAM from on-chip memory, else RD. */
export function transferDir(srcIsDram: boolean, dstIsDram: boolean): number {
  return dstIsDram && !srcIsDram ? MicroOpDir.WR : MicroOpDir.RD;
}

/**
 * The micro-op stream of an affine nest: one DIMPUSH per dimension of the backend's descriptor
 * (`dims`: Pool 2, software 4, RTL 5 + 2; seed 004 §3.4), innermost first; dims the nest does not
 * use are pushed as [1,1][0,0].
 */
export function nestMicroOps(ctx: EmitContext, n: Nest, dims: number): MicroOp[] {
  const out: MicroOp[] = [];
  regwrite(ctx, out);
  generate(ctx, n.elemSize, n.srcAddr, n.dstAddr, out);
  const depth = Math.max(n.srcNum.length, n.dstNum.length, dims);
  for (let k = 0; k < depth; k++) {
    out.push(
      dimpush(
        ctx.channel,
        [n.srcNum[k] ?? 1, n.dstNum[k] ?? 1],
        [n.srcStep[k] ?? 0, n.dstStep[k] ?? 0],
      ),
    );
  }
  return out;
}

/** One indexed row of an indirect (or gather-transpose) program: its two addresses. */
export interface IndexedRow {
  src: number;
  dst: number;
}

/**
 * The micro-op stream of an indexed program: one GENERATE per indexed row ("for an indirect
 * gather, one GENERATE per gathered row", seed 004 §5.1), each followed by the row's DIMPUSHes:
 * the row dim [rowElems, rowElems][1, dstRowStep], then [1,1][0,0] up to the backend's `dims`.
 * `rows` are the rows' addresses, from the index tensor's values.
 */
export function indirectMicroOps(
  ctx: EmitContext,
  dims: number,
  elemSize: number,
  rows: readonly IndexedRow[],
  rowElems: number,
  dstRowStep = 1,
): MicroOp[] {
  const out: MicroOp[] = [];
  regwrite(ctx, out);
  for (const r of rows) {
    generate(ctx, elemSize, r.src, r.dst, out);
    out.push(dimpush(ctx.channel, [rowElems, rowElems], [1, dstRowStep]));
    for (let k = 1; k < dims; k++) out.push(dimpush(ctx.channel, [1, 1], [0, 0]));
  }
  return out;
}

function pad2(a: readonly number[], fill: number): [number, number] {
  return [a[0] ?? fill, a[1] ?? fill];
}

/**
 * The 2-D descriptors of a nest of depth <= 4 whose dims 2.. are paired: one per iteration of the
 * outer dims (dim 2 fastest), the inner two dims folded into the descriptor (seed 004 §3.4).
 * `transpose` builds DIRECT2D_XPOSE: with the nest's dims (A outer, B inner) the source matrix is
 * B rows by A columns, so the source arrays are the nest's swapped and the destination's kept.
 */
export function nestDescriptors(ctx: EmitContext, n: Nest, transpose: boolean): DgeDescriptor[] {
  const es = n.elemSize;
  const outerNum: number[] = [];
  const outerSrc: number[] = [];
  const outerDst: number[] = [];
  for (let k = 2; k < n.srcNum.length; k++) {
    outerNum.push(n.srcNum[k]);
    outerSrc.push(n.srcStep[k]);
    outerDst.push(n.dstStep[k]);
  }
  let count = 1;
  for (const v of outerNum) count *= v;
  const out: DgeDescriptor[] = [];
  const cnt = outerNum.map(() => 0);
  let so = 0;
  let dOff = 0;
  const sNum = pad2(n.srcNum, 1);
  const sStep = pad2(n.srcStep, 0);
  const dNum = pad2(n.dstNum, 1);
  const dStep = pad2(n.dstStep, 0);
  // the fields every descriptor of the nest shares (DIRECT2D and DIRECT2D_XPOSE alike)
  const common = {
    dtype: ctx.dtype,
    elem_size: es,
    sem_num: NO_SEM,
    priority_class: ctx.priorityClass,
    src_bound_check: ctx.srcBound,
    dst_bound_check: ctx.dstBound,
  };
  for (let t = 0; t < count; t++) {
    const src = n.srcAddr + so * es;
    const dst = n.dstAddr + dOff * es;
    if (transpose) {
      out.push({
        kind: 'DIRECT2D_XPOSE',
        ...common,
        src_addr: src,
        dst_addr: dst,
        src_num_elem: [sNum[1], sNum[0]],
        dst_num_elem: [dNum[0], dNum[1]],
        src_step_elem: [sStep[1], sStep[0]],
        dst_step_elem: [dStep[0], dStep[1]],
      });
    } else {
      out.push({
        kind: 'DIRECT2D',
        compute_op: ctx.computeOp,
        ...common,
        src_addr: src,
        dst_addr: dst,
        src_num_elem: sNum,
        dst_num_elem: dNum,
        src_step_elem: sStep,
        dst_step_elem: dStep,
      });
    }
    // advance the outer odometer
    for (let k = 0; k < cnt.length; k++) {
      so += outerSrc[k];
      dOff += outerDst[k];
      if (++cnt[k] < outerNum[k]) break;
      so -= outerSrc[k] * outerNum[k];
      dOff -= outerDst[k] * outerNum[k];
      cnt[k] = 0;
    }
  }
  return out;
}

export interface IndirectFields {
  elemSize: number;
  side: IndirectSide;
  src: number;
  dst: number;
  idx: number;
  numIdx: number;
  rowElems: number;
  srcStep: number;
  dstStep: number;
  idxLimit: number;
}

export function indirectDescriptor(ctx: EmitContext, f: IndirectFields): DgeDescriptor {
  return {
    kind: 'INDIRECT1D',
    indirect_side: f.side,
    dtype: ctx.dtype,
    elem_size: f.elemSize,
    sem_num: NO_SEM,
    src_addr: f.src,
    dst_addr: f.dst,
    idx_addr: f.idx,
    num_idx: f.numIdx,
    row_num_elem: f.rowElems,
    src_step_elem: f.srcStep,
    dst_step_elem: f.dstStep,
    idx_limit: f.idxLimit,
    src_bound_check: ctx.srcBound,
    priority_class: ctx.priorityClass,
    dst_bound_check: ctx.dstBound,
  };
}

export function gatherXposeDescriptor(ctx: EmitContext, f: IndirectFields): DgeDescriptor {
  return {
    kind: 'GATHER_XPOSE',
    dtype: ctx.dtype,
    elem_size: f.elemSize,
    sem_num: NO_SEM,
    num_idx: f.numIdx,
    src_bound_check: ctx.srcBound,
    priority_class: ctx.priorityClass,
    dst_bound_check: ctx.dstBound,
    src_addr: f.src,
    dst_addr: f.dst,
    idx_addr: f.idx,
    row_num_elem: f.rowElems,
    src_step_elem: f.srcStep,
    dst_step_elem: f.dstStep,
    idx_limit: f.idxLimit,
  };
}

export { IndirectSide };
