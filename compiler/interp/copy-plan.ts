/**
 * A copy's stretches: the walk of a same-dtype copy cut into the longest pieces contiguous on both
 * sides, in walk order. Stretch k starts `src[k]` bytes after the source walk's first element and
 * `dst[k]` bytes after the destination's, and holds `run[k]` elements. It is the rest of the
 * shorter of the two current runs (compiler/interp/interpret.ts elementRuns), so it depends only
 * on the two runs lists.
 *
 * Measured from the walks' first elements, the stretches of two patterns without index tensors
 * depend only on their shapes (partition and free dims, element size), not on where they point: a
 * program has few shapes, so the interpreter keeps one stretch list per pair of shapes
 * (`CopyPlans`) and moves each DMA's stretches to its two start addresses.
 */
import type { AccessPattern } from '../ir/access-pattern.ts';
import { PairShape } from '../ir/pair-shape.ts';

/** Stretch columns, grown as needed. */
export interface Stretches {
  src: Float64Array;
  dst: Float64Array;
  run: Float64Array;
}

/** Stretch columns of at least n entries (new arrays only when `s` is too short). */
export function stretchesFor(s: Stretches | null, n: number): Stretches {
  if (s !== null && s.run.length >= n) return s;
  const size = Math.max(n, s !== null ? 2 * s.run.length : 0);
  return { src: new Float64Array(size), dst: new Float64Array(size), run: new Float64Array(size) };
}

/**
 * Cuts the n elements of two runs lists (start byte `addr`, length `len` in elements of `es`
 * bytes each side) into stretches, into `out` (room for `sRuns + dRuns` entries: every stretch
 * ends at least one run). Stretch addresses are the runs' addresses plus the offset into them.
 * Returns the number of stretches.
 */
export function cutStretches(
  sAddr: Float64Array,
  sLen: Float64Array,
  dAddr: Float64Array,
  dLen: Float64Array,
  n: number,
  es: number,
  out: Stretches,
): number {
  const { src, dst, run } = out;
  let c = 0;
  let sk = 0;
  let dk = 0;
  let sIn = 0;
  let dIn = 0;
  for (let i = 0; i < n; c++) {
    const sLeft = sLen[sk] - sIn;
    const dLeft = dLen[dk] - dIn;
    const r = sLeft < dLeft ? sLeft : dLeft;
    src[c] = sAddr[sk] + sIn * es;
    dst[c] = dAddr[dk] + dIn * es;
    run[c] = r;
    i += r;
    sIn += r;
    dIn += r;
    if (sIn === sLen[sk]) {
      sk++;
      sIn = 0;
    }
    if (dIn === dLen[dk]) {
      dk++;
      dIn = 0;
    }
  }
  return c;
}

/** The stretches of one pair of shapes, relative to the walks' first elements. */
export class CopyPlan {
  constructor(
    /** The pair of pattern shapes the plan was made for. */
    readonly shape: PairShape,
    readonly stretches: Stretches,
    readonly count: number,
    /** The next plan of the same source shape (another destination shape). */
    readonly next: CopyPlan | null,
  ) {}

  /** True when the plan was made for exactly these two patterns' shapes. */
  fits(src: AccessPattern, dst: AccessPattern): boolean {
    return this.shape.fits(src, dst, src.tensor.elemSize);
  }
}

/** CopyPlans' table of recent plans has 2^RECENT_BITS slots. */
const RECENT_BITS = 4;
const RECENT = 1 << RECENT_BITS;

/** Stretches the plans of one interpreter run may hold in all (8 bytes x 3 each). */
export const PLAN_BUDGET = 1 << 18;

/**
 * The stretch lists of an interpreter run, one per pair of access-pattern shapes (the module's
 * ApShapes ids), made on the first copy of the pair. A pattern with an index tensor (its runs
 * depend on the index values) or without a shape id gets none, and so does a pair past the budget.
 */
export class CopyPlans {
  private readonly bySrc = new Map<number, CopyPlan>();
  private held = 0;
  /** The plans `get` returned last, by a hash of the pair's shape ids (RECENT slots). */
  private readonly recent = new Array<CopyPlan | null>(RECENT).fill(null);

  /**
   * The plan of a copy from `src` to `dst`, or null (none made yet, or none possible). A plan
   * that fits the pair holds its stretches wherever it was found (a plan is a function of what
   * `fits` compares), so the plan last returned for the pair's slot is tried first.
   */
  get(src: AccessPattern, dst: AccessPattern): CopyPlan | null {
    if (!cacheable(src) || !cacheable(dst)) return null;
    const h = Math.imul(Math.imul(src.shapeId, 0x9e3779b1) ^ dst.shapeId, 0x85ebca6b);
    const slot = h >>> (32 - RECENT_BITS);
    const last = this.recent[slot];
    if (last !== null && last.fits(src, dst)) return last;
    for (let p = this.bySrc.get(src.shapeId) ?? null; p !== null; p = p.next) {
      if (p.fits(src, dst)) return (this.recent[slot] = p);
    }
    return null;
  }

  /** True when a plan of `count` stretches may be kept for this pair. */
  canHold(src: AccessPattern, dst: AccessPattern, count: number): boolean {
    return cacheable(src) && cacheable(dst) && this.held + count <= PLAN_BUDGET;
  }

  /** Keeps the first `count` stretches of `s` (copied) as the plan of the pair; returns it. */
  put(src: AccessPattern, dst: AccessPattern, s: Stretches, count: number): CopyPlan {
    const kept: Stretches = {
      src: s.src.slice(0, count),
      dst: s.dst.slice(0, count),
      run: s.run.slice(0, count),
    };
    const p = new CopyPlan(
      new PairShape(src, dst, src.tensor.elemSize),
      kept,
      count,
      this.bySrc.get(src.shapeId) ?? null,
    );
    this.bySrc.set(src.shapeId, p);
    this.held += count;
    return p;
  }
}

/** A pattern whose runs, from its first element, are a function of its shape. */
function cacheable(ap: AccessPattern): boolean {
  return ap.shapeId >= 0 && ap.vectorOffset === null && ap.indirect === null;
}
