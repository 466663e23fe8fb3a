/**
 * getDGEInstructionType, the route predicate (seed 001 @0x1097330), and its descriptor-fit test
 * sub_1096280. Pure: it reads the instruction and the module and returns the primary route plus the
 * eligible set; it never mutates the instruction. dynamic_dma_scan stamps the primary route,
 * dynamic_dma_cleanup checks a stamped route against the eligible set.
 *
 * The result is packed into one integer (no allocation per DMA): bits 0-3 the primary DGEType,
 * bits 4-7 the eligible set as a bit mask of 1 << DGEType.
 */
import type { AccessPattern } from '../ir/access-pattern.ts';
import { DGELevels, DGEType, dgeBit } from '../ir/enums.ts';
import { type Instr, Module } from '../ir/module.ts';
import {
  isCopyOrCastDMA,
  isDGEOpcode,
  isTransposeDMA,
  isVectorDynamicOffsetDMA,
} from '../ir/predicates.ts';
import { TARGETS, hwdgeAvailable, type TargetParams } from '../ir/target.ts';
import { type ErrorSink, instLabel, keepShape } from './pass.ts';

export type PackedRoute = number;

export function packRoute(first: DGEType, set: number): PackedRoute {
  return first | (set << 4);
}
/** The primary route (the pair's .first, itself a DGEType). */
export function routeFirst(r: PackedRoute): DGEType {
  return (r & 0xf) as DGEType;
}
/** The eligible set as a bit mask of 1 << DGEType. */
export function routeSet(r: PackedRoute): number {
  return r >> 4;
}

const NONE_ROUTE = packRoute(DGEType.None, dgeBit(DGEType.None));

/**
 * IsHWDGETransposeAPShapeSizeOk (@0x1093990). The seed does not transcribe it; nxdma's reading
 * (docs/compiler.md "transpose shape"): HWDGE exists on this arch (> 29), both sides use a 2-byte
 * dtype, and the destination is a whole number of xbar tiles: at most 128 partitions, a multiple of
 * 16, with a multiple of 16 elements per partition (seed 004: 16x128 tiles for 2-byte dtypes).
 */
export function isHWDGETransposeAPShapeSizeOk(
  inAP: AccessPattern,
  outAP: AccessPattern,
  arch: number,
): boolean {
  return hwdgeAvailable(arch) && isDynamicTransposeAPShapeSizeOk(inAP, outAP);
}

/** IsDynamicTransposeAPShapeSizeOk (utils.cpp:450): the same tile rule without the arch gate. */
export function isDynamicTransposeAPShapeSizeOk(
  inAP: AccessPattern,
  outAP: AccessPattern,
): boolean {
  return (
    inAP.elemSize === 2 &&
    outAP.elemSize === 2 &&
    outAP.partNum <= 128 &&
    outAP.partNum % 16 === 0 &&
    outAP.freeElements % 16 === 0
  );
}

/**
 * bir::getMaxDMADescElements: elements one descriptor carries, the innermost contiguous run of the
 * source capped at the 64 KiB a descriptor can move (nxdma's reading).
 */
export function getMaxDMADescElements(inAP: AccessPattern, t: TargetParams): number {
  const cap = Math.max(1, Math.floor(t.maxDescriptorBytes / inAP.elemSize));
  return Math.max(1, Math.min(inAP.contiguousRun(), cap));
}

/**
 * neuronxcc::backend::isDescNumOk: the descriptor count fits the carveout's 16-bit count, and an
 * HWDGE candidate moves a multiple of the 16-element granule.
 */
export function isDescNumOk(
  numDesc: number,
  elemsPerPartition: number,
  cand: DGEType,
  t: TargetParams,
): boolean {
  if (numDesc > t.maxDgeDescriptors) return false;
  if (cand === DGEType.HWDGE && elemsPerPartition % t.hwdgePartitionGranule !== 0) return false;
  return true;
}

/**
 * The shape asserts and canonical-dimension check at the top of sub_1096280, done once per DMA
 * (not once per candidate route). False when an error was reported.
 */
export function checkCopyShapes(
  I: Instr,
  m: Module,
  inAP: AccessPattern,
  outAP: AccessPattern,
  err: ErrorSink,
): boolean {
  if (inAP.free.length !== outAP.free.length) {
    err(
      'COPY_AP_RANK_MISMATCH',
      I.id,
      `${instLabel(m, I.id)}: in/out access patterns have ${inAP.numFreeDims + 1} and ${outAP.numFreeDims + 1} dimensions`,
    );
    return false;
  }
  if (inAP.partNum !== outAP.partNum) {
    err(
      'COPY_AP_NUM_MISMATCH',
      I.id,
      `${instLabel(m, I.id)}: dimension 0 num ${inAP.partNum} != ${outAP.partNum}`,
    );
    return false;
  }
  for (let i = 1; i < inAP.free.length; i += 2) {
    if (inAP.free[i] !== outAP.free[i]) {
      err(
        'COPY_AP_NUM_MISMATCH',
        I.id,
        `${instLabel(m, I.id)}: dimension ${(i + 1) / 2} num ${inAP.free[i]} != ${outAP.free[i]}`,
      );
      return false;
    }
  }
  // Canonicalise (drop num-1 dims, merge dims that continue each other) and compare. With equal nums
  // the counts can only differ when one side merges dims the other keeps strided.
  const inCanon = inAP.canonicalFreeDims();
  const outCanon = outAP.canonicalFreeDims();
  if (inCanon !== outCanon) {
    err(
      'COPY_CANONICAL_DIMS_MISMATCH',
      I.id,
      `${instLabel(m, I.id)}: DMA Copy in/out canonical dimensions must match (${inCanon} vs ${outCanon} free dims)`,
    );
    err(
      'STRIDED_FREE_DIM_NOT_2D',
      I.id,
      `${instLabel(m, I.id)}: strided Free dim AP should be at least 2D`,
    );
    return false;
  }
  return true;
}

/**
 * sub_1096280: does the copy fit as a candidate-route descriptor program? SWDGE splits along
 * dimension 0 (elements per partition), HWDGE generates over the whole pattern. With
 * considerDescNum the element count must divide exactly by the per-descriptor cap and the
 * descriptor count must pass isDescNumOk; with considerMinElems the split must reach the per-arch
 * minimum-element floor.
 */
export function descFits(
  inAP: AccessPattern,
  cand: DGEType,
  considerDescNum: boolean,
  considerMinElems: boolean,
  arch: number,
): boolean {
  const t = TARGETS[arch as keyof typeof TARGETS] ?? TARGETS[30];
  const elems = inAP.numElements;
  const elemsPerPartition = cand === DGEType.SWDGE ? elems / inAP.partNum : elems;
  if (considerDescNum) {
    const max = getMaxDMADescElements(inAP, t);
    if (elems % max !== 0) return false; // exact division required
    if (!isDescNumOk(elems / max, elemsPerPartition, cand, t)) return false;
  }
  if (considerMinElems && elemsPerPartition < t.minDgeElements) return false; // tiny DMAs stay static
  return true;
}

/**
 * getDGEInstructionType(I, CurDGELevels, considerDescNum, considerMinElems): the primary route and
 * the eligible set. The arms are tested in the seed's order: early-out, transpose, dynamic offset,
 * copy / cast, default.
 */
export function getDGEInstructionType(
  I: Instr,
  m: Module,
  considerDescNum: boolean,
  considerMinElems: boolean,
  err: ErrorSink,
): PackedRoute {
  // (1) early-out: not a DGE opcode (nothing above 32), nothing enabled, no access patterns
  if (!isDGEOpcode(I.op) || m.options.dgeLevels === 0 || I.src === null || I.dst === null)
    return NONE_ROUTE;
  const in0 = I.src;
  const out0 = I.dst;
  if (in0.isTensorIndirect() || out0.isTensorIndirect()) {
    err(
      'TENSOR_INDIRECT_AP',
      I.id,
      `${instLabel(m, I.id)}: DMA Instruction cannot have TensorIndirect AP`,
    );
    return NONE_ROUTE;
  }
  const arch = m.arch;
  const hwOk = hwdgeAvailable(arch);

  // (2) transpose: checked before the dynamic arm
  if (isTransposeDMA(I)) {
    const xposeLevel = m.hasDgeLevel(DGELevels.transpose);
    const vector = isVectorDynamicOffsetDMA(I);
    if (xposeLevel && !vector) {
      return isHWDGETransposeAPShapeSizeOk(in0, out0, arch)
        ? packRoute(DGEType.HWDGE, dgeBit(DGEType.None) | dgeBit(DGEType.HWDGE))
        : NONE_ROUTE;
    }
    if (vector && !isDynamicTransposeAPShapeSizeOk(in0, out0)) {
      err(
        'DYNAMIC_TRANSPOSE_SHAPE',
        I.id,
        `${instLabel(m, I.id)}: IsDynamicTransposeAPShapeSizeOk failed (2-byte dtype, <= 128 partitions, multiples of 16)`,
      );
      return NONE_ROUTE;
    }
    // fall through to the dynamic-offset arm
  }

  // (3) dynamic offset
  if (in0.isDynamic() || out0.isDynamic()) {
    if (
      !m.hasDgeLevel(DGELevels.scalar_dynamic_offset) &&
      !m.hasDgeLevel(DGELevels.vector_dynamic_offsets)
    ) {
      err(
        'DYNAMIC_OFFSET_NOT_ENABLED',
        I.id,
        `${instLabel(m, I.id)}: DMA Instruction with dynamic AP must have Scalar/Vector Dynamic offset enabled`,
      );
      return NONE_ROUTE;
    }
    if (
      !in0.isScalarDynamicOffset() &&
      !out0.isScalarDynamicOffset() &&
      !in0.isVectorDynamicOffset() &&
      !out0.isVectorDynamicOffset()
    ) {
      err(
        'DYNAMIC_FLAVOUR_UNKNOWN',
        I.id,
        `${instLabel(m, I.id)}: DGE should be of type Scalar or Vector. This code should never be reached!`,
      );
      return NONE_ROUTE;
    }
    return packRoute(DGEType.SWDGE, dgeBit(DGEType.SWDGE) | (hwOk ? dgeBit(DGEType.HWDGE) : 0));
  }

  // (4) copy / cast: feasibility-tested
  if (isCopyOrCastDMA(I)) {
    // isIOCopyDMA || isSRCopyDMA || isIOCastDMA || isSRCastDMA
    if (!checkCopyShapes(I, m, in0, out0, err)) return NONE_ROUTE;
    const sw = descFits(in0, DGEType.SWDGE, considerDescNum, considerMinElems, arch);
    const hw = hwOk && descFits(in0, DGEType.HWDGE, considerDescNum, considerMinElems, arch);
    if (!sw && !hw) return NONE_ROUTE;
    const set = (sw ? dgeBit(DGEType.SWDGE) : 0) | (hw ? dgeBit(DGEType.HWDGE) : 0);
    return packRoute(sw ? DGEType.SWDGE : DGEType.HWDGE, set); // first present, in ordinal order
  }

  // (5) default
  return NONE_ROUTE;
}

/** The route memo's table of the keys met last: 2^ROUTE_SLOT_BITS slots. */
const ROUTE_SLOT_BITS = 6;
const ROUTE_SLOTS = 1 << ROUTE_SLOT_BITS;

/**
 * getDGEInstructionType memoised per shape: the predicate reads the opcode, the transpose and
 * dst-reduce flavours, the module's levels and arch, and from each access pattern only what its
 * shape holds (ApShapes), so DMAs of one opcode, flavour and shape pair share one route. A program
 * has few such keys; the route of each is computed once per pass run. A computation that reported
 * an error is never memoised (the next DMA of that key reports its own error), and a pattern
 * without a shape id (built outside the program path) is computed every time.
 */
export class RouteMemo {
  private readonly routes = new Map<number, PackedRoute>();
  /**
   * The keys met last, in front of `routes`: a direct-mapped table of ROUTE_SLOTS keys (compared
   * in full, -1 empty) and their routes. It holds only keys `routes` holds.
   */
  private readonly slotKey = new Float64Array(ROUTE_SLOTS).fill(-1);
  private readonly slotRoute = new Int32Array(ROUTE_SLOTS);
  /** Shapes of the module when the memo was made: shape ids below it key the memo. */
  private readonly shapes: number;
  private errors = 0;
  private sink: ErrorSink = () => {};
  private readonly counting: ErrorSink = (subCode, instruction, message) => {
    this.errors++;
    this.sink(subCode, instruction, message);
  };

  constructor(
    private readonly m: Module,
    private readonly considerDescNum: boolean,
    private readonly considerMinElems: boolean,
  ) {
    this.shapes = m.apShapes.size;
    // the memo's shape outlives each compile (keepShape): one memo over an empty module
    keepShape(RouteMemo, () => new RouteMemo(new Module('', m.arch, m.options), false, false));
  }

  /** getDGEInstructionType(I, ...) reporting through `err`. */
  route(I: Instr, err: ErrorSink): PackedRoute {
    return this.routeAt(I.id, err);
  }

  /**
   * The route of instruction `id`, its key read from the module's instruction columns: the
   * instruction itself is visited only when its key is not memoised.
   */
  routeAt(id: number, err: ErrorSink): PackedRoute {
    const c = this.m.columns;
    const n = this.shapes;
    if (c.srcTensor[id] < 0 || c.dstTensor[id] < 0) return this.compute(id, err);
    const si = c.srcShape[id];
    const di = c.dstShape[id];
    const op = c.op[id];
    if (si < 0 || di < 0 || si >= n || di >= n || op >= 128) return this.compute(id, err);
    // shape pair, then 2 bits of transpose, 3 of dst-reduce, 7 of opcode; a small integer while
    // the program has fewer than ~700 shapes (a number key above that, still exact below 2^53)
    const flav = (c.transpose[id] << 10) | (c.dstReduce[id] << 7) | op;
    const key = (si * n + di) * 4096 + flav;
    const k = Math.imul(si ^ (di << 10) ^ (flav << 20), 0x9e3779b1) >>> (32 - ROUTE_SLOT_BITS);
    if (this.slotKey[k] === key) return this.slotRoute[k];
    let r = this.routes.get(key);
    if (r === undefined) {
      this.sink = err;
      const before = this.errors;
      r = this.compute(id, this.counting);
      if (this.errors !== before) return r;
      this.routes.set(key, r);
    }
    this.slotKey[k] = key;
    this.slotRoute[k] = r;
    return r;
  }

  private compute(id: number, err: ErrorSink): PackedRoute {
    const I = this.m.instrs[id];
    return getDGEInstructionType(I, this.m, this.considerDescNum, this.considerMinElems, err);
  }
}
