/**
 * The planned-DMA memo of lower(): DMAs of one signature share every check lowerDma makes before
 * a host-built transfer becomes a compact row (lower.ts lowerPlanned).
 *
 * Those checks (a bound queue, bound layer 2, one dtype, no indexed side, the backend, the reduce
 * rules) and what they yield (the host plan, the byte count, the priority class, the compute op)
 * read only the DMA's two tensors, its two access patterns' dims and the instruction's queue,
 * QoS class, DGEType, transpose and reduce columns: its signature. Once one DMA of a signature has
 * passed them and become a compact row, a DMA of the same signature needs only its own part: its
 * two start addresses and bound layers 3 and 1 at them (bounds.ts checkPlanBounds, the same
 * function, so the same ranges and the same errors), then its row. Anything that differs, an
 * index tensor, a pattern that was not interned, goes through lowerDma as before.
 *
 * test/compiler/lower/planned.test.ts compares lowerings with and without the memo on random
 * programs.
 */
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Instr, Tensor } from '../ir/module.ts';
import { putStartAddresses } from './affine.ts';
import { checkPlanBounds } from './bounds.ts';
import type { HostPlan, LowerCtx } from './context.ts';
import type { DmaTable } from './table.ts';

/** Signatures remembered (a power of two), direct-mapped by the two tensors' ids. */
const SLOTS = 16;
const SLOT_SHIFT = 28;

/** One signature: what lowerDma read of the DMA that made it a compact row, and what it found. */
interface Signature {
  srcTensor: Tensor;
  dstTensor: Tensor;
  srcFree: readonly number[];
  dstFree: readonly number[];
  srcPartStep: number;
  srcPartNum: number;
  dstPartStep: number;
  dstPartNum: number;
  srcElements: number;
  dstElements: number;
  /** The two patterns' interned shape ids (-1: not interned). */
  srcShape: number;
  dstShape: number;
  queue: number;
  qos: number;
  dgeType: number;
  transpose: number;
  dstReduce: number;
  plan: HostPlan;
  bytes: number;
  priorityClass: number;
  computeOp: number;
}

/**
 * True when pattern `ap` has the dims `free`, partStep and partNum, and no indexed side. A pattern
 * of interned shape `shape` (>= 0) has them: one shape id is one set of partition and free dims and
 * of run-time offset flags (ir/access-pattern.ts ApShapes), and `shape` is that of a pattern with
 * these dims and no indexed side.
 */
function sameDims(
  ap: AccessPattern,
  shape: number,
  free: readonly number[],
  partStep: number,
  partNum: number,
  elements: number,
): boolean {
  if (shape >= 0 && ap.shapeId === shape) return true;
  return (
    ap.free === free &&
    ap.partStep === partStep &&
    ap.partNum === partNum &&
    ap.numElements === elements &&
    ap.vectorOffset === null &&
    ap.indirect === null
  );
}

export class PlannedMemo {
  private readonly slots = new Array<Signature | null>(SLOTS).fill(null);

  /**
   * Lowers DMA `I` into the next row of `table` when its signature is one a compact row was made
   * of, and returns true; returns false, adding nothing, for any other DMA (lowerDma lowers it).
   * Throws the LOWER_ERROR of bound layers 3 and 1 that lowerDma would.
   */
  lower(ctx: LowerCtx, I: Instr, table: DmaTable): boolean {
    const src = I.src!;
    const dst = I.dst!;
    const st = src.tensor;
    const dt = dst.tensor;
    const e = this.slots[slotOf(st.id, dt.id)];
    if (e === null || e.srcTensor !== st || e.dstTensor !== dt) return false;
    if (!sameDims(src, e.srcShape, e.srcFree, e.srcPartStep, e.srcPartNum, e.srcElements))
      return false;
    if (!sameDims(dst, e.dstShape, e.dstFree, e.dstPartStep, e.dstPartNum, e.dstElements))
      return false;
    const c = I.cols;
    const id = I.id;
    if (
      c.queue[id] !== e.queue ||
      c.qos[id] !== e.qos ||
      c.dgeType[id] !== e.dgeType ||
      c.transpose[id] !== e.transpose ||
      c.dstReduce[id] !== e.dstReduce
    )
      return false;
    const elemSize = st.elemSize;
    const r = ctx.ranges;
    putStartAddresses(src, dst, elemSize, r);
    checkPlanBounds(ctx, I, e.plan, src, dst, r);
    table.addPlan(I, 'none', e.plan, r, e.bytes, e.priorityClass, 0, e.computeOp);
    return true;
  }

  /**
   * Remembers the signature of DMA `I`, which lowerDma has just made a compact row of host plan
   * `plan` (backend none, `bytes` bytes, `priorityClass`, `computeOp`).
   */
  remember(
    I: Instr,
    plan: HostPlan,
    bytes: number,
    priorityClass: number,
    computeOp: number,
  ): void {
    const src = I.src!;
    const dst = I.dst!;
    if (src.vectorOffset !== null || src.indirect !== null) return;
    if (dst.vectorOffset !== null || dst.indirect !== null) return;
    const c = I.cols;
    const id = I.id;
    this.slots[slotOf(src.tensor.id, dst.tensor.id)] = {
      srcTensor: src.tensor,
      dstTensor: dst.tensor,
      srcFree: src.free,
      dstFree: dst.free,
      srcPartStep: src.partStep,
      srcPartNum: src.partNum,
      dstPartStep: dst.partStep,
      dstPartNum: dst.partNum,
      srcElements: src.numElements,
      dstElements: dst.numElements,
      srcShape: src.shapeId,
      dstShape: dst.shapeId,
      queue: c.queue[id],
      qos: c.qos[id],
      dgeType: c.dgeType[id],
      transpose: c.transpose[id],
      dstReduce: c.dstReduce[id],
      plan,
      bytes,
      priorityClass,
      computeOp,
    };
  }
}

function slotOf(srcTensor: number, dstTensor: number): number {
  return Math.imul(srcTensor ^ Math.imul(dstTensor, 0x85ebca6b), 0x9e3779b1) >>> SLOT_SHIFT;
}
