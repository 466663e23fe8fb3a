/**
 * Access patterns: the concrete, executable description of which elements a DMA reads or writes.
 *
 * An access pattern names a tensor (a memory location with an address, a dtype and a kind), an
 * element offset from the tensor's first element, a partition dimension [step, num] and free
 * dimensions [step, num] (outermost first), all counted in elements of the tensor's dtype; steps
 * may be negative. The walk visits, for p in 0..num-1 and each free index tuple (innermost
 * fastest), the element
 *
 *   offset + dyn + p * partition.step + sum(i_k * free_k.step)
 *
 * where dyn is the run-time scalar offset when there is one; with a vector offset (or a
 * TensorIndirect index) the partition coordinate p is replaced by index[p], read from the index
 * tensor. The byte address is tensor.address + element * elemSize. A transpose is a stride
 * permutation of these pairs.
 */
import type { Tensor } from './module.ts';

/** A run-time scalar offset held in a register (seed 001 isScalarDynamicOffsetAP). */
export interface ScalarOffset {
  /** The register that holds the offset at run time. */
  readonly register: string;
  /** The value the register holds when the DMA runs, in elements (what the reference walk uses). */
  readonly value: number;
}

/** Per-partition run-time offsets read from an index tensor (seed 001 isVectorDynamicOffsetAP). */
export interface VectorOffset {
  /** A uint32/int32 tensor with at least partition.num entries; index[p] replaces p. */
  readonly indexTensor: Tensor;
}

export class AccessPattern {
  constructor(
    readonly tensor: Tensor,
    /** Element offset from the tensor's first element. */
    readonly offset: number,
    readonly partStep: number,
    readonly partNum: number,
    /** Free dimensions as flat pairs: [step0, num0, step1, num1, ...], outermost first. */
    readonly free: readonly number[],
    readonly scalarOffset: ScalarOffset | null = null,
    readonly vectorOffset: VectorOffset | null = null,
    /** TensorIndirect index tensor (an indirect DMA's gather/scatter index), or null. */
    readonly indirect: Tensor | null = null,
    /** The pattern's id in its module's ApShapes table, or -1 when it was not interned. */
    readonly shapeId = -1,
  ) {
    this.numElements = partNum * this.freeElements;
  }

  /** Total elements the pattern visits (partition num times the free nums; fixed at construction). */
  declare readonly numElements: number;

  get numFreeDims(): number {
    return this.free.length >> 1;
  }

  /** Elements per partition (product of the free nums). */
  get freeElements(): number {
    let n = 1;
    const f = this.free;
    for (let i = 1; i < f.length; i += 2) n *= f[i];
    return n;
  }

  get elemSize(): number {
    return this.tensor.elemSize;
  }

  /** isDynamicAP: a run-time offset of either flavour (seed 001). */
  isDynamic(): boolean {
    return this.scalarOffset !== null || this.vectorOffset !== null;
  }
  isScalarDynamicOffset(): boolean {
    return this.scalarOffset !== null;
  }
  isVectorDynamicOffset(): boolean {
    return this.vectorOffset !== null;
  }
  isTensorIndirect(): boolean {
    return this.indirect !== null;
  }

  /** The iteration dims as [step, num] pairs, partition first (the seed's actualPattern). */
  dims(): [number, number][] {
    const out: [number, number][] = [[this.partStep, this.partNum]];
    for (let i = 0; i < this.free.length; i += 2) out.push([this.free[i], this.free[i + 1]]);
    return out;
  }

  /**
   * Number of free dims after canonicalisation: dims of num 1 dropped, and an outer dim merged into
   * the inner one when it continues it (step_outer == step_inner * num_inner). No allocation.
   */
  canonicalFreeDims(): number {
    const f = this.free;
    let count = 0;
    let innerExtent = 0; // step * num of the current merged inner dim
    for (let i = f.length - 2; i >= 0; i -= 2) {
      const step = f[i];
      const num = f[i + 1];
      if (num === 1) continue;
      if (count > 0 && step === innerExtent) {
        innerExtent = step * num;
        continue;
      }
      count++;
      innerExtent = step * num;
    }
    return count;
  }

  /** Elements in the innermost contiguous run (innermost dims of step 1 merged). */
  contiguousRun(): number {
    const f = this.free;
    let run = 1;
    for (let i = f.length - 2; i >= 0; i -= 2) {
      const step = f[i];
      const num = f[i + 1];
      if (num === 1) continue;
      if (step === run) run *= num;
      else break;
    }
    if (run === this.freeElements && this.partStep === run && this.partNum > 1) run *= this.partNum;
    return run;
  }

  /**
   * The smallest and largest element index (relative to the tensor) the pattern touches, for a given
   * partition-coordinate range [pLo, pHi] (the index values of a vector offset or an indirect
   * index; [0, partNum - 1] otherwise), written to out[0] and out[1]. Used by the program
   * validator's bounds check.
   */
  elementRange(pLo: number, pHi: number, out: number[] = [0, 0]): number[] {
    let lo = this.offset + (this.scalarOffset ? this.scalarOffset.value : 0);
    let hi = lo;
    const pa = pLo * this.partStep;
    const pb = pHi * this.partStep;
    lo += Math.min(pa, pb);
    hi += Math.max(pa, pb);
    const f = this.free;
    for (let i = 0; i < f.length; i += 2) {
      const span = f[i] * (f[i + 1] - 1);
      if (span < 0) lo += span;
      else hi += span;
    }
    out[0] = lo;
    out[1] = hi;
    return out;
  }
}

/** The largest number of shapes ApShapes hands out ids for (ids fit 20 bits). */
export const MAX_AP_SHAPES = 1 << 20;

/**
 * Access-pattern shapes: what the route predicate reads from a pattern, i.e. its tensor's kind and
 * dtype, the partition and free dims and which run-time offsets it has, but not where it points
 * (tensor, offset, offset values). Patterns of one shape get one id and share one `free` array, so
 * a DMA's route is a function of its opcode, its flavours and two shape ids (dge-route.ts
 * RouteMemo). Past MAX_AP_SHAPES shapes a pattern gets no id (-1) and its routes are not memoised.
 */
export class ApShapes {
  /** Shape ids by hash of the shape (a short list per hash: collisions are compared in full). */
  private readonly byHash = new Map<number, number[]>();
  /** Per shape: [kind, dtype code, flags, partStep, partNum], then its free array. */
  private readonly heads: number[] = [];
  private readonly frees: (readonly number[])[] = [];

  /** Shapes interned. */
  get size(): number {
    return this.frees.length;
  }

  /**
   * The id of a shape and, through `free()`, its shared free array. `dims` are the free dims as
   * written ([step, num] pairs); `dtype` a number naming the dtype; `flags` bit 0 a scalar offset,
   * bit 1 a vector offset, bit 2 an indirect index.
   */
  intern(
    kind: number,
    dtype: number,
    partStep: number,
    partNum: number,
    dims: readonly (readonly [number, number])[],
    flags: number,
  ): number {
    let h = Math.imul(kind * 64 + dtype * 8 + flags, 0x9e3779b1);
    h = Math.imul(h ^ partStep, 0x85ebca6b) ^ partNum;
    for (let i = 0; i < dims.length; i++) {
      h = Math.imul(h ^ dims[i][0], 0xc2b2ae35);
      h = Math.imul(h ^ dims[i][1], 0x27d4eb2f);
    }
    h = h ^ (h >>> 15);
    const list = this.byHash.get(h);
    if (list !== undefined) {
      for (let k = 0; k < list.length; k++) {
        const id = list[k];
        if (this.same(id, kind, dtype, partStep, partNum, dims, flags)) return id;
      }
    }
    if (this.frees.length >= MAX_AP_SHAPES) return -1;
    const free = new Array<number>(dims.length * 2);
    for (let i = 0; i < dims.length; i++) {
      free[2 * i] = dims[i][0];
      free[2 * i + 1] = dims[i][1];
    }
    const id = this.frees.length;
    this.frees.push(Object.freeze(free));
    this.heads.push(kind, dtype, flags, partStep, partNum);
    if (list !== undefined) list.push(id);
    else this.byHash.set(h, [id]);
    return id;
  }

  /** The shared free array (flat [step, num, ...]) of shape `id`. */
  free(id: number): readonly number[] {
    return this.frees[id];
  }

  private same(
    id: number,
    kind: number,
    dtype: number,
    partStep: number,
    partNum: number,
    dims: readonly (readonly [number, number])[],
    flags: number,
  ): boolean {
    const h = this.heads;
    const b = id * 5;
    if (h[b] !== kind || h[b + 1] !== dtype || h[b + 2] !== flags) return false;
    if (h[b + 3] !== partStep || h[b + 4] !== partNum) return false;
    const f = this.frees[id];
    if (f.length !== dims.length * 2) return false;
    for (let i = 0; i < dims.length; i++)
      if (f[2 * i] !== dims[i][0] || f[2 * i + 1] !== dims[i][1]) return false;
    return true;
  }
}

/**
 * Static access patterns (no run-time offset, no indirect index) by value: a program's DMAs
 * mostly revisit the same tiles, and an AccessPattern is immutable, so the DMAs that read or write
 * the same elements of the same tensor through the same interned shape share one object. One
 * table per program build; open addressing over the patterns' (tensor, offset, shape id).
 */
export class StaticPatterns {
  private readonly list: AccessPattern[] = [];
  /** Index into `list` + 1 per slot (0: empty); the length is a power of two. */
  private slots = new Int32Array(1024);

  /**
   * The shared pattern of `tensor` at element `offset` with interned shape `shapeId` (>= 0, no
   * run-time offset flags), whose partition dims and free array the shape fixes.
   */
  get(
    tensor: Tensor,
    offset: number,
    partStep: number,
    partNum: number,
    free: readonly number[],
    shapeId: number,
  ): AccessPattern {
    const mask = this.slots.length - 1;
    let s = patternHash(tensor.id, offset, shapeId) & mask;
    for (;;) {
      const k = this.slots[s];
      if (k === 0) break;
      const p = this.list[k - 1];
      // Object.is on the offset: -0 keeps a pattern of its own, as it would unshared
      if (p.tensor === tensor && p.shapeId === shapeId && Object.is(p.offset, offset)) return p;
      s = (s + 1) & mask;
    }
    const p = new AccessPattern(tensor, offset, partStep, partNum, free, null, null, null, shapeId);
    return this.add(p, s);
  }

  private add(p: AccessPattern, slot: number): AccessPattern {
    this.list.push(p);
    this.slots[slot] = this.list.length;
    if (2 * this.list.length > this.slots.length) this.rehash();
    return p;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let k = 0; k < this.list.length; k++) {
      const p = this.list[k];
      let s = patternHash(p.tensor.id, p.offset, p.shapeId) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = k + 1;
    }
    this.slots = slots;
  }
}

function patternHash(tensor: number, offset: number, shape: number): number {
  let h = Math.imul(tensor + 1, 0x9e3779b1) ^ shape;
  h = Math.imul(h ^ (offset | 0), 0x85ebca6b);
  h = Math.imul(h ^ ((offset / 0x1_0000_0000) | 0), 0xc2b2ae35);
  return (h ^ (h >>> 15)) >>> 0;
}
