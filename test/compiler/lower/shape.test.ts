import { describe, expect, it } from 'vitest';
import {
  MAX_DIM_NUM,
  buildNest,
  canonicalize,
  depthOf,
  dgeShapeOf,
  splitNest,
  splitOuter,
  type Nest,
  type NestLimits,
} from '../../../compiler/lower/shape.ts';
import { countPieces, expandWalk, type AffineWalk } from '../../../compiler/lower/expand.ts';

/** Element offsets a nest side visits, in walk order (innermost first), by brute force. */
function walkSide(nums: readonly number[], steps: readonly number[]): number[] {
  let out = [0];
  for (let k = 0; k < nums.length; k++) {
    const next: number[] = [];
    for (let t = 0; t < nums[k]; t++) for (const o of out) next.push(o + t * steps[k]);
    out = next;
  }
  return out;
}

/** [src, dst] element pairs of a nest, as byte addresses / elemSize. */
function pairs(n: Nest): [number, number][] {
  const s = walkSide(n.srcNum, n.srcStep).map((o) => n.srcAddr / n.elemSize + o);
  const d = walkSide(n.dstNum, n.dstStep).map((o) => n.dstAddr / n.elemSize + o);
  expect(s.length).toBe(d.length);
  return s.map((v, i) => [v, d[i]]);
}

/** Program-order element offsets of [step, num] pairs given outermost first. */
function programWalk(dims: number[][], base = 0): number[] {
  const inner = dims.slice().reverse();
  return walkSide(
    inner.map((d) => d[1]),
    inner.map((d) => d[0]),
  ).map((o) => o + base);
}

const DGE: NestLimits = { maxDepth: 4, fieldLimits: true, unpairedBelow: 2, maxNests: 1 << 20 };

describe('dge_shape: canonical dims', () => {
  it('drops dims of num 1 and merges an outer dim that continues the inner one', () => {
    // partition [64, 128], free [[1, 64]]: one contiguous run of 8192
    expect(canonicalize([64, 128, 1, 64], 5)).toEqual({ baseElem: 5, nums: [8192], steps: [1] });
    // [1,1] dims vanish; a strided outer dim stays
    expect(canonicalize([100, 3, 7, 1, 1, 4], 0)).toEqual({
      baseElem: 0,
      nums: [4, 3],
      steps: [1, 100],
    });
  });

  it('keeps signed steps (a reverse walk is a negative stride)', () => {
    expect(canonicalize([-64, 4, 1, 64], 192)).toEqual({
      baseElem: 192,
      nums: [64, 4],
      steps: [1, -64],
    });
  });

  it('the walk of the canonical dims is the program walk', () => {
    const dims = [
      [48, 3],
      [1, 1],
      [-2, 5],
      [16, 3],
    ];
    const c = canonicalize(dims.flat(), 40);
    expect(walkSide(c.nums, c.steps).map((o) => o + 40)).toEqual(programWalk(dims, 40));
  });
});

describe('dge_shape: pairing the two sides (DIMPUSH pairs)', () => {
  it('pairs equal counts in lock-step', () => {
    const n = buildNest(
      { baseElem: 0, nums: [64, 128], steps: [1, 64] },
      { baseElem: 0, nums: [64, 128], steps: [128, 1] },
      4,
      0,
      0,
    );
    expect(n.joint).toBe(2);
    expect(n.srcNum).toEqual([64, 128]);
    expect(n.dstStep).toEqual([128, 1]);
  });

  it('factors unequal counts by their gcd (6 against 3 becomes 3 x 2)', () => {
    const n = buildNest(
      { baseElem: 0, nums: [6], steps: [1] },
      { baseElem: 0, nums: [3, 2], steps: [1, 10] },
      2,
      0,
      0,
    );
    expect(n.joint).toBe(2);
    expect(n.srcNum).toEqual([3, 2]);
    expect(n.srcStep).toEqual([1, 3]);
    expect(n.dstStep).toEqual([1, 10]);
  });

  it('leaves coprime counts unpaired: num_src != num_dst, equal totals', () => {
    const n = buildNest(
      { baseElem: 0, nums: [5, 3], steps: [1, 8] },
      { baseElem: 0, nums: [3, 5], steps: [1, 4] },
      4,
      0,
      0,
    );
    expect(n.joint).toBe(0);
    expect(n.srcNum).toEqual([5, 3]);
    expect(n.dstNum).toEqual([3, 5]);
    // the pairs are still the program's element order on both sides
    const p = pairs(n);
    expect(p.map((x) => x[0])).toEqual(
      programWalk([
        [8, 3],
        [1, 5],
      ]),
    );
    expect(p.map((x) => x[1])).toEqual(
      programWalk([
        [4, 5],
        [1, 3],
      ]),
    );
  });

  it('transpose is a stride permutation: no data moves in the shape, only steps reorder', () => {
    // source read column by column (partition [1, 128], free [[128, 128]]), destination row-major
    const src = canonicalize([1, 128, 128, 128], 0);
    const dst = canonicalize([128, 128, 1, 128], 0);
    const n = buildNest(src, dst, 2, 0, 0);
    expect(n.srcNum).toEqual([128, 128]);
    expect(n.srcStep).toEqual([128, 1]);
    expect(n.dstStep).toEqual([1, 128]);
    // the same dims with the steps of the two sides swapped: a permutation
    expect([...n.srcStep].reverse()).toEqual(n.dstStep);
  });

  it('dge_shape is {elem_size, num[4], step[4], is_src}, padded with num 1 step 0', () => {
    const n = buildNest(
      { baseElem: 0, nums: [64, 128], steps: [1, -64] },
      { baseElem: 0, nums: [8192], steps: [1] },
      4,
      0,
      0,
    );
    expect(dgeShapeOf(n, true)).toEqual({
      elem_size: 4,
      num: [64, 128, 1, 1],
      step: [1, -64, 0, 0],
      is_src: true,
    });
    expect(dgeShapeOf(n, false)).toEqual({
      elem_size: 4,
      num: [64, 128, 1, 1],
      step: [1, 64, 0, 0],
      is_src: false,
    });
  });
});

describe('dge_shape: splitting patterns deeper than a backend', () => {
  const deep = (): Nest =>
    buildNest(
      { baseElem: 0, nums: [2, 3, 4, 5, 6], steps: [1, 1000, 10000, 100000, 1000000] },
      { baseElem: 0, nums: [720], steps: [1] },
      4,
      0x1000,
      0x2000,
    );

  it('a 5-deep nest on a 4-dim backend becomes 6 nests of depth 4, same element pairs', () => {
    const n = deep();
    expect(depthOf(n)).toBe(5);
    const out: Nest[] = [];
    splitNest(n, DGE, out);
    expect(out).toHaveLength(6);
    for (const c of out) expect(depthOf(c)).toBeLessThanOrEqual(4);
    expect(out.flatMap(pairs)).toEqual(pairs(n));
  });

  it('on Pool (2 dims) the same nest becomes 120 nests of depth 2', () => {
    const out: Nest[] = [];
    splitNest(deep(), { ...DGE, maxDepth: 2 }, out);
    expect(out).toHaveLength(120);
    expect(out.flatMap(pairs)).toEqual(pairs(deep()));
  });

  it('rejects clearly when the split would exceed the descriptor-program limit', () => {
    expect(() => splitNest(deep(), { ...DGE, maxDepth: 2, maxNests: 10 }, [])).toThrow(
      /more than 10 descriptor programs/,
    );
  });

  it('factors a count above 65535 into two u16 dims', () => {
    const n = buildNest(
      { baseElem: 0, nums: [262144], steps: [1] },
      { baseElem: 0, nums: [262144], steps: [1] },
      4,
      0,
      0,
    );
    const out: Nest[] = [];
    splitNest(n, DGE, out);
    expect(out).toHaveLength(1);
    for (const v of out[0].srcNum) expect(v).toBeLessThanOrEqual(MAX_DIM_NUM);
    expect(out[0].srcNum.reduce((a, b) => a * b, 1)).toBe(262144);
  });

  it('cuts a prime count above 65535 into a 65535-multiple and a remainder', () => {
    const p = 65537; // prime
    const n = buildNest(
      { baseElem: 0, nums: [p], steps: [2] },
      { baseElem: 0, nums: [p], steps: [1] },
      1,
      0,
      0,
    );
    const out: Nest[] = [];
    splitNest(n, DGE, out);
    expect(out.length).toBeGreaterThan(1);
    for (const c of out) for (const v of c.srcNum) expect(v).toBeLessThanOrEqual(MAX_DIM_NUM);
    expect(out.flatMap(pairs)).toEqual(pairs(n));
  });

  it('enumerates unpaired dims the 2-D descriptor cannot hold, block by block', () => {
    const n = buildNest(
      { baseElem: 0, nums: [2, 5, 3], steps: [1, 8, 64] },
      { baseElem: 0, nums: [2, 3, 5], steps: [1, 4, 16] },
      4,
      0,
      0,
    );
    expect(n.joint).toBe(1);
    const out: Nest[] = [];
    splitNest(n, DGE, out);
    expect(out.every((c) => c.joint === depthOf(c))).toBe(true);
    expect(out.flatMap(pairs)).toEqual(pairs(n));
  });

  it('host transfers (backend none) are never split', () => {
    const out: Nest[] = [];
    splitNest(
      deep(),
      { maxDepth: Infinity, fieldLimits: false, unpairedBelow: Infinity, maxNests: 10 },
      out,
    );
    expect(out).toHaveLength(1);
  });
});

describe('splitOuter: the index rows of an indirect DMA', () => {
  it('splits a contiguous block into count rows', () => {
    expect(splitOuter({ baseElem: 3, nums: [512], steps: [1] }, 16)).toEqual({
      outerStep: 32,
      inner: { baseElem: 3, nums: [32], steps: [1] },
    });
  });
  it('keeps a strided outer dim as the row step', () => {
    expect(splitOuter({ baseElem: 0, nums: [32, 16], steps: [1, 100] }, 16)).toEqual({
      outerStep: 100,
      inner: { baseElem: 0, nums: [32], steps: [1] },
    });
  });
  it('refuses a walk whose outer iterations are not one dimension', () => {
    expect(splitOuter({ baseElem: 0, nums: [4, 2, 3], steps: [1, 10, 100] }, 3 * 2 * 2)).toBeNull();
    expect(splitOuter({ baseElem: 0, nums: [7], steps: [1] }, 2)).toBeNull();
  });
});

describe('expansion of an affine nest into pieces', () => {
  it('pieces are the common refinement of the contiguous runs, at most 64 KiB', () => {
    const w: AffineWalk = {
      type: 'affine',
      elemSize: 4,
      srcAddr: 0x10000,
      dstAddr: 0x80000,
      srcNum: [6, 4],
      srcStep: [1, 10],
      dstNum: [8, 3],
      dstStep: [1, 20],
    };
    const got: [number, number, number][] = [];
    expandWalk(w, { piece: (s, d, l) => void got.push([s, d, l]) });
    // src runs of 24 bytes, dst runs of 32 bytes: cuts at 24, 32, 48, 64, 72, 96
    expect(got.map((g) => g[2])).toEqual([24, 8, 16, 16, 8, 24]);
    expect(got[1]).toEqual([0x10000 + 40, 0x80000 + 24, 8]);
    expect(countPieces(w)).toBe(got.length);
  });

  it('a 1 MiB contiguous copy is 16 pieces of 64 KiB', () => {
    const w: AffineWalk = {
      type: 'affine',
      elemSize: 4,
      srcAddr: 0,
      dstAddr: 1 << 24,
      srcNum: [262144],
      srcStep: [1],
      dstNum: [262144],
      dstStep: [1],
    };
    const lens: number[] = [];
    expandWalk(w, { piece: (_s, _d, l) => void lens.push(l) });
    expect(lens).toEqual(new Array(16).fill(65536));
  });

  it('refuses a walk whose two sides move different byte counts', () => {
    const w: AffineWalk = {
      type: 'affine',
      elemSize: 4,
      srcAddr: 0,
      dstAddr: 0,
      srcNum: [4],
      srcStep: [1],
      dstNum: [5],
      dstStep: [1],
    };
    expect(() => countPieces(w)).toThrow(/16 source bytes and 20 destination bytes/);
  });
});
