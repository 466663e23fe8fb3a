/**
 * The reference interpreter: what a program must leave in memory. It shares nothing with the
 * lowering: it walks each DMA's two access patterns element by element, exactly as
 * compiler/ir/access-pattern.ts defines them (walk.ts), and moves one element at a time (a copy
 * moves a run of elements contiguous on both sides with one byte copy, and copies that continue
 * one another move together (held-copies.ts), where that leaves the same bytes).
 *
 * Semantics (docs/flow.md "what the interpreter models"):
 * - execution order: functions in declaration order, their blocks in order, a loop body
 *   `iterations` times, instructions in order;
 * - a DMA visits, for p in 0..partNum-1 and each free index tuple (innermost fastest), the element
 *   offset + scalar + p' * partStep + sum(i_k * step_k), where p' is p, or index[p] read (u32 or i32,
 *   little-endian) from the index tensor in memory when the pattern has a vector offset or is
 *   TensorIndirect; the n-th source element goes to the n-th destination element, one after the
 *   other (read, then write);
 * - same dtype: the element's bytes are copied; a different dtype converts the value; a
 *   destination reduce (add, multiply, max, min) combines it with the destination's value;
 * - compute instructions and collectives are opaque: they leave memory as it is (the flow runs
 *   only DMAs, so both sides agree on what a program without them computes).
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { DstReduce } from '../ir/enums.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { Instr, Module } from '../ir/module.ts';
import { isDMAFamily } from '../ir/predicates.ts';
import { CopyPlans, cutStretches, stretchesFor, type Stretches } from './copy-plan.ts';
import { HeldCopies, HoldPairs } from './held-copies.ts';
import { WrittenMarks } from './marks.ts';
import { elementAddresses, firstElement, indexRegionOf, runsFrom } from './walk.ts';
import {
  decodeElement,
  encodeElement,
  TensorRegions,
  type ImageRegion,
  type MemoryImage,
  checkArenaMemory,
} from './memory.ts';
import type { DtypeName } from '../ir/enums.ts';

export { elementAddresses, elementRuns } from './walk.ts';

export interface InterpretResult {
  /** The memory after the program (the input image, changed in place). */
  image: MemoryImage;
  /** Per region (same order as image.regions): 1 for every byte some DMA wrote. */
  written: Uint8Array[];
  /** DMAs executed (loop bodies counted per iteration). */
  dmas: number;
  /** Elements moved. */
  elements: number;
  /** Bytes written. */
  bytes: number;
}

/**
 * `dst op src` of a destination reduce, on decoded values (docs/flow.md "what the interpreter
 * models"): integers wrap modulo 2^bits (a 32-bit product through Math.imul, so it stays exact);
 * floats are computed exactly in double and rounded once by encodeElement (exact for FP32, FP16
 * and BF16 operands); MAX / MIN return one operand.
 */
export function reduce(op: number, dtype: DtypeName, a: number, b: number): number {
  switch (op) {
    case DstReduce.add:
      return a + b;
    case DstReduce.multiply:
      return dtype === 'int32' || dtype === 'uint32' ? Math.imul(a, b) : a * b;
    case DstReduce.max:
      return Math.max(a, b);
    case DstReduce.min:
      return Math.min(a, b);
    default:
      return b;
  }
}

/** The canonical quiet NaN a float reduce stores (little-endian bytes). */
const CANONICAL_NAN: Partial<Record<DtypeName, readonly number[]>> = {
  fp32: [0x00, 0x00, 0xc0, 0x7f],
  fp16: [0x00, 0x7e],
  bf16: [0xc0, 0x7f],
};

/** Stores a reduce result: a NaN as the dtype's canonical quiet NaN, anything else encoded. */
export function storeReduced(dtype: DtypeName, v: number, bytes: Uint8Array, off: number): void {
  const nan = Number.isNaN(v) ? CANONICAL_NAN[dtype] : undefined;
  if (nan !== undefined) {
    for (let i = 0; i < nan.length; i++) bytes[off + i] = nan[i];
    return;
  }
  encodeElement(dtype, v, bytes, off);
}

/**
 * Scratch of the interpreter, grown as needed: element addresses or runs of each side, a copy's
 * stretches, and the stretch lists kept per pair of pattern shapes (none kept without `plans`).
 */
export interface InterpScratch {
  src: Float64Array;
  dst: Float64Array;
  srcLen?: Float64Array;
  dstLen?: Float64Array;
  stretches?: Stretches;
  plans?: CopyPlans;
  /**
   * Where a copy marks the bytes it writes when given (written masks then complete only after
   * `marks.flush()`); without it, each copy fills the mask itself.
   */
  marks?: WrittenMarks;
  /** The region of each tensor, found on the tensor's first DMA (none kept without it). */
  regions?: TensorRegions;
}

/**
 * Executes one DMA on the image, as if element by element. A copy (same dtype, no reduce) moves
 * each run of elements contiguous on both sides with one byte copy, where that leaves the same
 * bytes (no later source byte of the run is written before it is read), and the rest one element
 * at a time; a conversion or a reduce moves element by element.
 */
export function interpretDma(
  I: Instr,
  image: MemoryImage,
  written: Uint8Array[] | null,
  scratch?: InterpScratch,
): number {
  const src = I.src!;
  const dst = I.dst!;
  const n = src.numElements;
  if (dst.numElements !== n) {
    throw new NxdmaError(
      'PROGRAM_INVALID',
      `DMA #${I.id}: ${n} source and ${dst.numElements} destination elements`,
      {
        where: `#${I.id}`,
        expected: 'equal element counts',
        actual: dst.numElements,
      },
    );
  }
  const st = src.tensor;
  const dt = dst.tensor;
  const op = I.dstReduce;
  // every element of a tensor lies in the tensor's region
  const memo =
    scratch !== undefined && scratch.regions !== undefined && scratch.regions.image === image
      ? scratch.regions
      : null;
  const si = memo !== null ? memo.of(st) : image.regionIndex(st.address, st.byteSize);
  const di = memo !== null ? memo.of(dt) : image.regionIndex(dt.address, dt.byteSize);
  const sr = image.regions[si];
  const dr = image.regions[di];
  const mask = written ? written[di] : null;
  if (st.dtype === dt.dtype && op === DstReduce.none) {
    const sIn = memo !== null ? memo.arenaAt[si] : image.arenaOffset(sr.bytes);
    const dIn = memo !== null ? memo.arenaAt[di] : image.arenaOffset(dr.bytes);
    copyRuns(I, image, sr, dr, sIn, dIn, mask, n, scratch);
    return n;
  }
  const sa = scratch && scratch.src.length >= n ? scratch.src : new Float64Array(n);
  const da = scratch && scratch.dst.length >= n ? scratch.dst : new Float64Array(n);
  // addresses are computed per DMA, before it moves anything; index tensors are read-only
  elementAddresses(src, image, sa);
  elementAddresses(dst, image, da);
  for (let i = 0; i < n; i++) moveElement(I, i, sa[i], da[i], sr, dr, false, op, mask);
  return n;
}

/** The scratch array `key` of at least n entries (a new one when there is no scratch). */
function scratchOf(
  s: InterpScratch | undefined,
  key: 'src' | 'dst' | 'srcLen' | 'dstLen',
  n: number,
): Float64Array {
  if (s === undefined) return new Float64Array(n);
  let a = s[key];
  if (a === undefined || a.length < n) {
    a = new Float64Array(Math.max(n, a ? 2 * a.length : 0));
    s[key] = a;
  }
  return a;
}

/**
 * A copy DMA of n elements: its stretches (compiler/interp/copy-plan.ts; from both walks' runs,
 * computed before anything moves, index tensors being read-only; or the plan kept for the two
 * patterns' shapes), then, in walk order, each stretch in one byte copy when it lies in its
 * regions and its source is not overwritten ahead of being read; otherwise its first element
 * alone, and the rest of the stretch from the next element again.
 */
function copyRuns(
  I: Instr,
  image: MemoryImage,
  sr: ImageRegion,
  dr: ImageRegion,
  sIn: number,
  dIn: number,
  mask: Uint8Array | null,
  n: number,
  scratch: InterpScratch | undefined,
): void {
  const src = I.src!;
  const dst = I.dst!;
  const es = src.tensor.elemSize; // the destination's too: a copy keeps its dtype
  // the stretches count bytes from the walks' first elements
  const sOrigin = src.tensor.address + firstElement(src) * es;
  const dOrigin = dst.tensor.address + firstElement(dst) * es;
  const plans = scratch !== undefined && scratch.plans !== undefined ? scratch.plans : null;
  const marks = scratch !== undefined && scratch.marks !== undefined ? scratch.marks : null;
  const plan = plans !== null ? plans.get(src, dst) : null;
  let st: Stretches;
  let count: number;
  if (plan !== null) {
    st = plan.stretches;
    count = plan.count;
  } else {
    const sAddr = scratchOf(scratch, 'src', n);
    const sLen = scratchOf(scratch, 'srcLen', n);
    const dAddr = scratchOf(scratch, 'dst', n);
    const dLen = scratchOf(scratch, 'dstLen', n);
    runsFrom(src, 0, indexRegionOf(src, image), sAddr, sLen);
    runsFrom(dst, 0, indexRegionOf(dst, image), dAddr, dLen);
    st = stretchesFor(scratch !== undefined ? (scratch.stretches ?? null) : null, n);
    if (scratch !== undefined) scratch.stretches = st;
    count = cutStretches(sAddr, sLen, dAddr, dLen, n, es, st);
    if (plans !== null && plans.canHold(src, dst, count)) plans.put(src, dst, st, count);
  }
  const sb = sr.bytes;
  const db = dr.bytes;
  const same = sb === db;
  // both regions in one arena (sIn, dIn: their offsets there, or -1): a stretch moves within it
  // (no view per stretch)
  const arena = sIn >= 0 && dIn >= 0 ? image.arena : null;
  const sAt = arena !== null ? sIn : 0;
  const dAt = arena !== null ? dIn : 0;
  const sRel = st.src;
  const dRel = st.dst;
  const runs = st.run;
  let i = 0;
  for (let k = 0; k < count; k++) {
    let sa = sOrigin + sRel[k];
    let da = dOrigin + dRel[k];
    for (let run = runs[k]; run > 0; run--, i++, sa += es, da += es) {
      const so = sa - sr.base;
      const dOff = da - dr.base;
      const len = run * es;
      const inside = so >= 0 && so + len <= sr.size && dOff >= 0 && dOff + len <= dr.size;
      if (run > 1 && inside && !(same && so < dOff && dOff < so + len)) {
        if (arena !== null) arena.copyWithin(dAt + dOff, sAt + so, sAt + so + len);
        else if (same) db.copyWithin(dOff, so, so + len);
        else db.set(sb.subarray(so, so + len), dOff);
        if (mask !== null) {
          if (marks !== null) marks.mark(mask, dOff, dOff + len);
          else mask.fill(1, dOff, dOff + len);
        }
        i += run;
        break;
      }
      moveElement(I, i, sa, da, sr, dr, true, DstReduce.none, mask);
    }
  }
}

/**
 * Moves element i from byte address sa to da (read, then write), after checking both addresses
 * lie in their regions.
 */
function moveElement(
  I: Instr,
  i: number,
  sa: number,
  da: number,
  sr: ImageRegion,
  dr: ImageRegion,
  copy: boolean,
  op: number,
  mask: Uint8Array | null,
): void {
  const st = I.src!.tensor;
  const dt = I.dst!.tensor;
  const ses = st.elemSize;
  const des = dt.elemSize;
  const sb = sr.bytes;
  const db = dr.bytes;
  const so = sa - sr.base;
  const dOff = da - dr.base;
  if (so < 0 || so + ses > sr.size || dOff < 0 || dOff + des > dr.size) {
    throw new NxdmaError(
      'OUT_OF_RANGE',
      `DMA #${I.id} element ${i}: ${hex(so < 0 || so + ses > sr.size ? sa : da)} leaves its region`,
      { where: `#${I.id}`, expected: 'addresses inside the tensors', actual: i },
    );
  }
  if (copy) {
    for (let b = 0; b < ses; b++) db[dOff + b] = sb[so + b];
  } else {
    const v = decodeElement(st.dtype, sb, so);
    if (op === DstReduce.none) encodeElement(dt.dtype, v, db, dOff);
    else
      storeReduced(dt.dtype, reduce(op, dt.dtype, decodeElement(dt.dtype, db, dOff), v), db, dOff);
  }
  if (mask) for (let b = 0; b < des; b++) mask[dOff + b] = 1;
}

export interface InterpretOptions {
  /**
   * Keep each copy's stretches per pair of access-pattern shapes for the next DMA of the pair
   * (default true). The same bytes, masks and errors either way; false cuts every DMA's anew.
   */
  plans?: boolean;
  /**
   * Hold back copies of one stretch to move with the next ones they continue (held-copies.ts;
   * default true, with plans and an arena). The same bytes, masks and errors either way.
   */
  hold?: boolean;
  /**
   * The memory for the written masks: a byte array as long as the image's arena (each region's
   * mask a view of it at the region's offset there), cleared first. Default: a new array per
   * region. Only for an image with an arena.
   */
  written?: Uint8Array;
}

/**
 * Every DMA of the program in execution order (the module comment); returns the DMAs, elements and
 * bytes moved. Copies may still be held (and marks unfilled) when it returns.
 */
function runBlocks(
  m: Module,
  image: MemoryImage,
  written: Uint8Array[],
  scratch: InterpScratch,
  held: HeldCopies | null,
): [dmas: number, elements: number, bytes: number] {
  let dmas = 0;
  let elements = 0;
  let bytes = 0;
  const pairs = new HoldPairs();
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const iterations = bb.loop ? bb.loop.iterations : 1;
      const list = bb.instrs;
      for (let it = 0; it < iterations; it++) {
        // an index walk, as for-of walks the array (no iterator object per instruction)
        for (let k = 0; k < list.length; k++) {
          const I = list[k];
          const src = I.src;
          const dst = I.dst;
          if (!isDMAFamily(I.op) || src === null || dst === null) continue;
          let n = src.numElements;
          if (held === null || !holdCopy(I, src, dst, image, written, scratch, held, pairs)) {
            // any other DMA sees the held copies' bytes moved
            if (held !== null && held.size > 0) held.flush();
            n = interpretDma(I, image, written, scratch);
          }
          dmas++;
          elements += n;
          bytes += n * dst.tensor.elemSize;
        }
      }
    }
  }
  return [dmas, elements, bytes];
}

/**
 * Holds DMA I (its patterns `src` and `dst`) back in `held` when copyRuns would move it as one
 * stretch in one byte copy with its source and destination disjoint (same dtype, no reduce, a kept
 * plan of one stretch, both tensors in regions of the arena, the stretch inside them); returns
 * false, having changed nothing, for any other DMA. A pair of patterns that held a copy is kept in `pairs`: the next
 * DMA of the pair holds its copy from its two first elements.
 */
function holdCopy(
  I: Instr,
  src: AccessPattern,
  dst: AccessPattern,
  image: MemoryImage,
  written: Uint8Array[],
  scratch: InterpScratch,
  held: HeldCopies,
  pairs: HoldPairs,
): boolean {
  if (I.dstReduce !== DstReduce.none) return false;
  if (!holdable(src) || !holdable(dst)) return false;
  const k = pairs.slot(src, dst);
  const g = pairs.geo;
  const b = k * 8;
  if (!pairs.holds(k, src, dst) && !keepPair(src, dst, image, scratch, pairs, k)) return false;
  const es = src.tensor.elemSize;
  const s = g[b] + firstElement(src) * es;
  const d = g[b + 3] + firstElement(dst) * es;
  const len = g[b + 7];
  if (s < g[b + 1] || s > g[b + 2] || d < g[b + 4] || d > g[b + 5]) return false;
  if (s < d + len && d < s + len) return false;
  held.add(s, d, len, written[pairs.dstRegion[k]], d - g[b + 6]);
  return true;
}

/** A pattern whose copy plan is a function of its shape (CopyPlans): no index tensor. */
function holdable(ap: AccessPattern): boolean {
  return ap.shapeId >= 0 && ap.vectorOffset === null && ap.indirect === null;
}

/**
 * Keeps the pair of `src` and `dst` in slot `k` of `pairs` when a copy between them can be held
 * (same dtype, at least 2 elements on both sides, a kept plan of one stretch, both tensors in
 * regions of the arena); false otherwise, `pairs` unchanged.
 */
function keepPair(
  src: AccessPattern,
  dst: AccessPattern,
  image: MemoryImage,
  scratch: InterpScratch,
  pairs: HoldPairs,
  k: number,
): boolean {
  const n = src.numElements;
  const st = src.tensor;
  const dt = dst.tensor;
  if (n < 2 || dst.numElements !== n || st.dtype !== dt.dtype) return false;
  const plan = scratch.plans!.get(src, dst);
  if (plan === null || plan.count !== 1) return false;
  const memo = scratch.regions!;
  const si = memo.find(st);
  const di = memo.find(dt);
  if (si < 0 || di < 0 || memo.arenaAt[si] < 0 || memo.arenaAt[di] < 0) return false;
  const sr = image.regions[si];
  const dr = image.regions[di];
  const es = st.elemSize;
  const len = n * es;
  // element 0's stretch start in the arena; the stretch lies in its region from lo to hi
  const sBase = memo.arenaAt[si];
  const dBase = memo.arenaAt[di];
  pairs.keep(k, src, dst, di);
  const g = pairs.geo;
  const b = k * 8;
  g[b] = sBase + st.address + plan.stretches.src[0] - sr.base;
  g[b + 1] = sBase;
  g[b + 2] = sBase + sr.size - len;
  g[b + 3] = dBase + dt.address + plan.stretches.dst[0] - dr.base;
  g[b + 4] = dBase;
  g[b + 5] = dBase + dr.size - len;
  g[b + 6] = dBase;
  g[b + 7] = len;
  return true;
}

/** Per region of `image`, its written mask: new, or views of `into` cleared (InterpretOptions.written). */
function writtenMasks(image: MemoryImage, into: Uint8Array | undefined): Uint8Array[] {
  if (into === undefined) return image.regions.map((r) => new Uint8Array(r.size));
  const a = image.arena;
  if (a === null) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      'interpret: written masks given for an image without an arena',
      {
        where: 'InterpretOptions.written',
        expected: 'no written option',
        actual: into.length,
      },
    );
  }
  checkArenaMemory(into, a.length, a, {
    fn: 'interpret',
    where: 'InterpretOptions.written',
    what: 'the written-mask memory',
    needs: "the image's arena",
  });
  into.fill(0);
  return image.regionViews(into);
}

/** Runs every DMA of the program on `image` (changed in place). */
export function interpret(
  m: Module,
  image: MemoryImage,
  opts: InterpretOptions = {},
): InterpretResult {
  const written = writtenMasks(image, opts.written);
  const scratch: InterpScratch = { src: new Float64Array(4096), dst: new Float64Array(4096) };
  if (opts.plans !== false) scratch.plans = new CopyPlans();
  const marks = new WrittenMarks();
  scratch.marks = marks;
  scratch.regions = new TensorRegions(image, m.tensors.length);
  const arena = image.arena;
  const held =
    opts.hold !== false && opts.plans !== false && arena !== null
      ? new HeldCopies(arena, marks)
      : null;
  const counts = runBlocks(m, image, written, scratch, held);
  // (after the loop, in this function: the hot loop's optimized code holds no end-of-run code
  // that runs once per program, which would have no type feedback and drop that code each time)
  if (held !== null) held.flush();
  marks.flush();
  const [dmas, elements, bytes] = counts;
  return { image, written, dmas, elements, bytes };
}
