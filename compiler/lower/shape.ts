/**
 * Access pattern -> loop nest -> dge_shape (seed 004 §3.1-§3.4).
 *
 * An access pattern walks `offset + p * partStep + sum(i_k * step_k)` (compiler/ir/access-pattern.ts).
 * Lowering first canonicalises each side (dims of num 1 dropped, an outer dim merged into the inner
 * one when it continues it), then pairs the two sides into one loop nest whose dimensions advance
 * the source and destination cursors in lock-step: the DIMPUSH pair of pairs
 * `[num_src, num_dst][step_src, step_dst]` of seed §3.4. Two dims pair when their counts are equal;
 * unequal counts are factored by their gcd (a dim of 6 against a dim of 3 becomes 3 x 2). When the
 * counts share no factor the remaining outer dims stay unpaired: each side keeps its own counts
 * (the DIMPUSH then carries num_src != num_dst) and only the element totals agree.
 *
 * Conventions: dims are listed innermost first (index 0 is the fastest dim, as in the DIRECT2D
 * `[inner, outer]` arrays and the order DIMPUSHes are issued); counts and steps are in elements;
 * steps are signed. A transpose needs no special case here: it is already a stride permutation of
 * the two patterns (seed §3.3).
 */
import { NxdmaError } from '../../common/errors.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';

/** NEURON_ISA_TPB_NUM_DGE_SHAPE_REGISTERS: the $S shape-register file is 4 deep (seed 004 §3.2). */
export const DGE_SHAPE_DEPTH = 4;
/** num_elem is a u16 in dge_shape, DIMPUSH and the 64-byte descriptors. */
export const MAX_DIM_NUM = 0xffff;
/** step_elem is an i32. */
export const MAX_STEP = 0x7fffffff;
export const MIN_STEP = -0x80000000;

/** One side of a transfer as canonical dims (innermost first), relative to an element base. */
export interface SideShape {
  /** Element index (from the tensor's element 0) of the walk's first element. */
  baseElem: number;
  nums: number[];
  steps: number[];
}

/**
 * A loop nest over the elements of one transfer: byte addresses of the first source and destination
 * element, the element size, and each side's dims (innermost first). The first `joint` dims have
 * equal counts on both sides (lock-step); above them each side has its own dims, with equal
 * element totals.
 */
export interface Nest {
  elemSize: number;
  srcAddr: number;
  dstAddr: number;
  srcNum: number[];
  srcStep: number[];
  dstNum: number[];
  dstStep: number[];
  joint: number;
}

/**
 * The reshape's working state (seed 004 §3.2, byte-exact log): `{ elem_size:u16, num_elem[4]:u16,
 * step_elem[4]:i32, is_src:bool }`, one per side. Unused dims have num 1 and step 0.
 */
export interface DgeShape {
  elem_size: number;
  num: [number, number, number, number];
  step: [number, number, number, number];
  is_src: boolean;
}

export function depthOf(n: Nest): number {
  return Math.max(n.srcNum.length, n.dstNum.length);
}

export function elementsOf(nums: readonly number[]): number {
  let e = 1;
  for (const v of nums) e *= v;
  return e;
}

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * Canonical dims of a list of [step, num] pairs given outermost first (the program's order):
 * num-1 dims dropped, an outer dim merged into the dim inside it when step_outer == step_inner *
 * num_inner. Output innermost first.
 */
export function canonicalize(stepNumOuterFirst: readonly number[], baseElem: number): SideShape {
  const nums: number[] = [];
  const steps: number[] = [];
  for (let i = stepNumOuterFirst.length - 2; i >= 0; i -= 2) {
    const step = stepNumOuterFirst[i];
    const num = stepNumOuterFirst[i + 1];
    if (num === 1) continue;
    const k = nums.length - 1;
    if (k >= 0 && step === steps[k] * nums[k]) {
      nums[k] *= num;
      continue;
    }
    nums.push(num);
    steps.push(step);
  }
  return { baseElem, nums, steps };
}

/** The canonical shape of a whole access pattern (partition dim included, scalar offset folded). */
export function apShape(ap: AccessPattern): SideShape {
  const dims = [ap.partStep, ap.partNum, ...ap.free];
  return canonicalize(dims, ap.offset + (ap.scalarOffset ? ap.scalarOffset.value : 0));
}

/** The canonical shape of an access pattern's free dims only (the rows of an indirect side). */
export function apFreeShape(ap: AccessPattern): SideShape {
  return canonicalize(ap.free, ap.offset + (ap.scalarOffset ? ap.scalarOffset.value : 0));
}

/**
 * Pairs two canonical shapes of equal element totals into a nest (gcd factoring from the innermost
 * dim out). Addresses are bytes; the shapes' base elements are already folded into them.
 */
export function buildNest(
  src: SideShape,
  dst: SideShape,
  elemSize: number,
  srcAddr: number,
  dstAddr: number,
): Nest {
  const an = src.nums.slice();
  const as = src.steps.slice();
  const bn = dst.nums.slice();
  const bs = dst.steps.slice();
  const num: number[] = [];
  const sStep: number[] = [];
  const dStep: number[] = [];
  let i = 0;
  let j = 0;
  while (i < an.length && j < bn.length) {
    const a = an[i];
    const b = bn[j];
    if (a === b) {
      num.push(a);
      sStep.push(as[i]);
      dStep.push(bs[j]);
      i++;
      j++;
      continue;
    }
    const g = gcd(a, b);
    if (g === 1) break;
    num.push(g);
    sStep.push(as[i]);
    dStep.push(bs[j]);
    an[i] = a / g;
    as[i] *= g;
    bn[j] = b / g;
    bs[j] *= g;
    if (an[i] === 1) i++;
    if (bn[j] === 1) j++;
  }
  const joint = num.length;
  return {
    elemSize,
    srcAddr,
    dstAddr,
    srcNum: num.concat(an.slice(i)),
    srcStep: sStep.concat(as.slice(i)),
    dstNum: num.slice().concat(bn.slice(j)),
    dstStep: dStep.concat(bs.slice(j)),
    joint,
  };
}

/** The dge_shape of one side of a nest of depth <= 4 (padded with num 1, step 0). */
export function dgeShapeOf(n: Nest, isSrc: boolean): DgeShape {
  const nums = isSrc ? n.srcNum : n.dstNum;
  const steps = isSrc ? n.srcStep : n.dstStep;
  if (nums.length > DGE_SHAPE_DEPTH) {
    throw new NxdmaError(
      'LOWER_ERROR',
      `a ${nums.length}-deep ${isSrc ? 'source' : 'destination'} walk does not fit the ${DGE_SHAPE_DEPTH}-deep dge_shape`,
      { where: 'dge_shape', expected: `<= ${DGE_SHAPE_DEPTH} dims`, actual: nums.length },
    );
  }
  const shape: DgeShape = {
    elem_size: n.elemSize,
    num: [1, 1, 1, 1],
    step: [0, 0, 0, 0],
    is_src: isSrc,
  };
  for (let k = 0; k < nums.length; k++) {
    shape.num[k] = nums[k];
    shape.step[k] = steps[k];
  }
  return shape;
}

/**
 * The element offsets, on one side, of every iteration of that side's dims `from..` (outermost
 * last), in walk order (innermost fastest). Used to enumerate the blocks of a nest's unpaired part.
 */
function offsets(nums: readonly number[], steps: readonly number[], from: number): number[] {
  let out = [0];
  for (let k = from; k < nums.length; k++) {
    const next: number[] = [];
    // dim k is outside the dims before it: its index varies slowest among them
    for (let t = 0; t < nums[k]; t++) for (const o of out) next.push(o + t * steps[k]);
    out = next;
  }
  return out;
}

/** A child nest: the first `depth` dims of `n` with the addresses moved by element offsets. */
function child(n: Nest, depth: number, srcOff: number, dstOff: number): Nest {
  return {
    elemSize: n.elemSize,
    srcAddr: n.srcAddr + srcOff * n.elemSize,
    dstAddr: n.dstAddr + dstOff * n.elemSize,
    srcNum: n.srcNum.slice(0, depth),
    srcStep: n.srcStep.slice(0, depth),
    dstNum: n.dstNum.slice(0, depth),
    dstStep: n.dstStep.slice(0, depth),
    joint: Math.min(n.joint, depth),
  };
}

/** Limits a backend puts on a nest. */
export interface NestLimits {
  /** Most dims one nest may have. */
  maxDepth: number;
  /** Whether counts must fit u16 and steps i32 (DGE descriptors; host descriptors have no limit). */
  fieldLimits: boolean;
  /** Unpaired dims are allowed only at indices below this (2 for DIRECT2D: its src/dst arrays are independent). */
  unpairedBelow: number;
  /** Most nests one transfer may be split into. */
  maxNests: number;
}

function tooMany(limits: NestLimits, why: string): NxdmaError {
  return new NxdmaError(
    'LOWER_ERROR',
    `${why}: splitting it would take more than ${limits.maxNests} descriptor programs`,
    {
      where: 'lower.split',
      expected: `<= ${limits.maxNests} nests`,
      actual: '>' + limits.maxNests,
    },
  );
}

/** Largest divisor f of n with f <= MAX_DIM_NUM and n / f <= MAX_DIM_NUM, or 0. */
function factorU16(n: number): number {
  const lo = Math.ceil(n / MAX_DIM_NUM);
  for (let f = Math.min(MAX_DIM_NUM, n); f >= lo; f--) if (n % f === 0) return f;
  return 0;
}

/**
 * Splits a nest until every piece fits `limits` (seed 004 §3.4, §4.1: a pattern deeper than the
 * backend's descriptor is issued as several descriptor programs). In order:
 *  - unpaired dims at or above `unpairedBelow`: the unpaired part is enumerated block by block,
 *    each block a nest of the paired dims;
 *  - too deep: the outermost (paired) dim is enumerated;
 *  - (fieldLimits) a count above 65535: factored into two dims when it has a divisor that fits,
 *    else (outermost dim) cut into a 65535-multiple and a remainder, else its outer dims are
 *    enumerated first; a step outside i32 is an error.
 * Appends the pieces to `out` in walk order. Throws LOWER_ERROR beyond `maxNests`.
 */
export function splitNest(n: Nest, limits: NestLimits, out: Nest[]): void {
  const depth = depthOf(n);
  if (out.length >= limits.maxNests) throw tooMany(limits, 'the transfer');
  // 1. unpaired dims where the descriptor cannot hold them
  if (n.joint < depth && depth > limits.unpairedBelow) {
    let blocks = 1;
    for (let k = n.joint; k < n.srcNum.length; k++) blocks *= n.srcNum[k];
    if (out.length + blocks > limits.maxNests) {
      throw tooMany(limits, 'source and destination walks share no common loop nest');
    }
    const so = offsets(n.srcNum, n.srcStep, n.joint);
    const dOff = offsets(n.dstNum, n.dstStep, n.joint);
    if (so.length !== dOff.length) {
      throw new NxdmaError('LOWER_ERROR', 'source and destination walks differ in length', {
        where: 'lower.split',
        expected: `${so.length} blocks`,
        actual: dOff.length,
      });
    }
    for (let t = 0; t < so.length; t++) splitNest(child(n, n.joint, so[t], dOff[t]), limits, out);
    return;
  }
  // 2. counts and steps
  if (limits.fieldLimits) {
    for (let k = depth - 1; k >= 0; k--) {
      for (const s of [n.srcStep[k], n.dstStep[k]]) {
        if (s !== undefined && (s > MAX_STEP || s < MIN_STEP)) {
          throw new NxdmaError(
            'LOWER_ERROR',
            `dimension ${k} has a stride of ${s} elements, outside the i32 step_elem`,
            { where: `lower.step[${k}]`, expected: `${MIN_STEP}..${MAX_STEP}`, actual: s },
          );
        }
      }
    }
    for (let k = depth - 1; k >= 0; k--) {
      const big = (n.srcNum[k] ?? 1) > MAX_DIM_NUM || (n.dstNum[k] ?? 1) > MAX_DIM_NUM;
      if (!big) continue;
      if (k < n.joint) {
        const num = n.srcNum[k];
        const f = factorU16(num);
        if (f > 0) {
          const m = insertDim(n, k, f);
          splitNest(m, limits, out);
          return;
        }
        if (k === depth - 1) {
          // outermost: q full blocks of 65535 (as two dims) and a remainder
          const q = Math.floor(num / MAX_DIM_NUM);
          const r = num - q * MAX_DIM_NUM;
          const head = { ...n, srcNum: n.srcNum.slice(), dstNum: n.dstNum.slice() };
          head.srcNum[k] = q * MAX_DIM_NUM;
          head.dstNum[k] = q * MAX_DIM_NUM;
          splitNest(insertDim(head, k, MAX_DIM_NUM), limits, out);
          if (r > 0) {
            const tail = {
              ...n,
              srcAddr: n.srcAddr + q * MAX_DIM_NUM * n.srcStep[k] * n.elemSize,
              dstAddr: n.dstAddr + q * MAX_DIM_NUM * n.dstStep[k] * n.elemSize,
              srcNum: n.srcNum.slice(),
              dstNum: n.dstNum.slice(),
            };
            tail.srcNum[k] = r;
            tail.dstNum[k] = r;
            splitNest(tail, limits, out);
          }
          return;
        }
        enumerateOutermost(n, limits, out);
        return;
      }
      // an unpaired dim (only below unpairedBelow): factor each side on its own
      const sf = n.srcNum[k] > MAX_DIM_NUM ? factorU16(n.srcNum[k]) : -1;
      const df = n.dstNum[k] > MAX_DIM_NUM ? factorU16(n.dstNum[k]) : -1;
      if (sf === 0 || df === 0) {
        // no factor fits: enumerate the unpaired part block by block
        const forced = { ...limits, unpairedBelow: 0 };
        splitNest(n, forced, out);
        return;
      }
      const m = { ...n };
      if (sf > 0) [m.srcNum, m.srcStep] = insertSide(n.srcNum, n.srcStep, k, sf);
      if (df > 0) [m.dstNum, m.dstStep] = insertSide(n.dstNum, n.dstStep, k, df);
      splitNest(m, limits, out);
      return;
    }
  }
  // 3. depth
  if (depth > limits.maxDepth) {
    enumerateOutermost(n, limits, out);
    return;
  }
  out.push(n);
}

/** Enumerates the outermost dim of a nest whose outermost dim is paired. */
function enumerateOutermost(n: Nest, limits: NestLimits, out: Nest[]): void {
  const depth = depthOf(n);
  const k = depth - 1;
  if (k >= n.joint) {
    splitNest(n, { ...limits, unpairedBelow: 0 }, out);
    return;
  }
  const num = n.srcNum[k];
  if (out.length + num > limits.maxNests) throw tooMany(limits, `a ${depth}-deep pattern`);
  for (let t = 0; t < num; t++) {
    splitNest(child(n, k, t * n.srcStep[k], t * n.dstStep[k]), limits, out);
  }
}

function insertSide(
  nums: readonly number[],
  steps: readonly number[],
  k: number,
  f: number,
): [number[], number[]] {
  const n2 = nums.slice();
  const s2 = steps.slice();
  n2.splice(k, 1, f, nums[k] / f);
  s2.splice(k, 1, steps[k], steps[k] * f);
  return [n2, s2];
}

/** Replaces paired dim k (count c) by two paired dims: f (inner) and c / f (outer). */
function insertDim(n: Nest, k: number, f: number): Nest {
  const [srcNum, srcStep] = insertSide(n.srcNum, n.srcStep, k, f);
  const [dstNum, dstStep] = insertSide(n.dstNum, n.dstStep, k, f);
  return { ...n, srcNum, srcStep, dstNum, dstStep, joint: n.joint + 1 };
}

/**
 * Splits a canonical shape at its outermost `count` iterations: returns the step between them and
 * the shape of one iteration, or null when the shape's element order has no such outer dimension
 * (the elements of each of the `count` blocks are not one affine walk of a common shape).
 */
export function splitOuter(
  s: SideShape,
  count: number,
): { outerStep: number; inner: SideShape } | null {
  let total = 1;
  for (const v of s.nums) total *= v;
  if (count < 1 || total % count !== 0) return null;
  const per = total / count;
  const nums: number[] = [];
  const steps: number[] = [];
  let acc = 1;
  let k = 0;
  while (k < s.nums.length && acc * s.nums[k] <= per) {
    if (per % (acc * s.nums[k]) !== 0) break;
    acc *= s.nums[k];
    nums.push(s.nums[k]);
    steps.push(s.steps[k]);
    k++;
  }
  if (acc !== per) {
    // split dim k: an inner part of per / acc iterations
    if (k >= s.nums.length) return null;
    const f = per / acc;
    if (!Number.isInteger(f) || s.nums[k] % f !== 0) return null;
    nums.push(f);
    steps.push(s.steps[k]);
    const rest = s.nums[k] / f;
    // what is left must be the single outer dim of `count`
    if (k !== s.nums.length - 1 || rest !== count) return null;
    return { outerStep: s.steps[k] * f, inner: { baseElem: s.baseElem, nums, steps } };
  }
  if (count === 1) return { outerStep: 0, inner: { baseElem: s.baseElem, nums, steps } };
  if (k !== s.nums.length - 1 || s.nums[k] !== count) return null;
  return { outerStep: s.steps[k], inner: { baseElem: s.baseElem, nums, steps } };
}
