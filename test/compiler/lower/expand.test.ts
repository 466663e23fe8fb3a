import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndirectSide } from '../../../csr/formats/dge-desc.ts';
import {
  countPieces,
  expandWalk,
  type AffineWalk,
  type GatherXposeWalk,
  type IndirectWalk,
} from '../../../compiler/lower/expand.ts';

const gather: IndirectWalk = {
  type: 'indirect',
  elemSize: 4,
  side: IndirectSide.GATHER,
  srcAddr: 0x1000,
  dstAddr: 0x8000,
  idxAddr: 0x4000,
  numIdx: 3,
  rowElems: 16,
  srcStep: 16,
  dstStep: 16,
  idxLimit: 8,
};

function pieces(w: IndirectWalk | GatherXposeWalk, idx: ArrayLike<number> | null): number[][] {
  const got: number[][] = [];
  expandWalk(w, { piece: (s, d, l) => void got.push([s, d, l]) }, idx);
  return got;
}

describe('expansion of an indexed walk: the index values are handed in (the lowering reads no memory)', () => {
  it('INDIRECT1D gather: row idx[i] of the source lands at row i of the destination', () => {
    expect(pieces(gather, [5, 0, 7])).toEqual([
      [0x1000 + 5 * 64, 0x8000, 64],
      [0x1000, 0x8000 + 64, 64],
      [0x1000 + 7 * 64, 0x8000 + 128, 64],
    ]);
  });

  it('INDIRECT1D scatter: row i of the source lands at row idx[i] of the destination', () => {
    const scatter: IndirectWalk = { ...gather, side: IndirectSide.SCATTER };
    expect(pieces(scatter, new Uint32Array([2, 1, 0, 99]))).toEqual([
      [0x1000, 0x8000 + 128, 64],
      [0x1000 + 64, 0x8000 + 64, 64],
      [0x1000 + 128, 0x8000, 64],
    ]);
  });

  it('GATHER_XPOSE: element j of row idx[i] lands at dst + (j * dstStep + i)', () => {
    const x: GatherXposeWalk = {
      type: 'gather_xpose',
      elemSize: 2,
      srcAddr: 0x1000,
      dstAddr: 0x8000,
      idxAddr: 0x4000,
      numIdx: 2,
      rowElems: 2,
      srcStep: 8,
      dstStep: 16,
      idxLimit: 0,
    };
    expect(pieces(x, [3, 1])).toEqual([
      [0x1000 + 3 * 16, 0x8000, 2],
      [0x1000 + 3 * 16 + 2, 0x8000 + 32, 2],
      [0x1000 + 16, 0x8000 + 2, 2],
      [0x1000 + 16 + 2, 0x8000 + 34, 2],
    ]);
  });

  it('an index at or above idx_limit is DESCRIPTOR_INVALID, naming the index and its address', () => {
    expect(() => pieces(gather, [1, 8, 0])).toThrow(/index 1 at 0x4004 is 8, outside 0\.\.7/);
  });

  it('fewer index values than rows, or none, is LOWER_ERROR before any piece', () => {
    const got: number[][] = [];
    const sink = { piece: (s: number, d: number, l: number) => void got.push([s, d, l]) };
    expect(() => expandWalk(gather, sink, [1, 2])).toThrow(/handed 2 values for 3 rows/);
    expect(() => expandWalk(gather, sink, null)).toThrow(/needs its index tensor/);
    expect(got).toEqual([]);
  });

  it('counting needs no index values: the lengths do not depend on them', () => {
    expect(countPieces(gather)).toBe(3);
    expect(countPieces(gather, 32)).toBe(6);
  });
});

describe('expansion of an affine walk into a bulk sink', () => {
  /** A nest of 1-3 dims (innermost first), each step a run continuation, a gap, or reversed. */
  const nest = (minRows: number) =>
    fc
      .array(
        fc.record({
          num: fc.integer({ min: 1, max: 9 }),
          step: fc.constantFrom('run', 'gap', 'back', 'one'),
          gap: fc.integer({ min: 1, max: 5000 }),
        }),
        { minLength: 1, maxLength: 3 },
      )
      .map((dims) => {
        const num: number[] = [];
        const step: number[] = [];
        let span = 1;
        for (const d of dims) {
          const n = Math.max(d.num, minRows);
          num.push(n);
          step.push(
            d.step === 'run' || d.step === 'one' ? span : d.step === 'gap' ? span + d.gap : -d.gap,
          );
          span *= n;
        }
        return { num, step };
      });

  it('the same pieces, in order, as one piece at a time; the same count as counting', () => {
    fc.assert(
      fc.property(
        nest(1),
        fc.boolean(),
        fc.constantFrom(1, 4, 4096, 16384),
        fc.boolean(),
        (side, contiguousDst, elemSize, swap) => {
          const elems = side.num.reduce((a, b) => a * b, 1);
          // the other side: one run of the same elements, or a nest of the same total
          const one = { num: [elems], step: [1] };
          const other = contiguousDst ? one : { num: [...side.num].reverse(), step: side.step };
          const [src, dst] = swap ? [other, side] : [side, other];
          const w: AffineWalk = {
            type: 'affine',
            elemSize,
            srcAddr: 0x1_0000_0000,
            dstAddr: 0x4000_0000,
            srcNum: src.num,
            srcStep: src.step,
            dstNum: dst.num,
            dstStep: dst.step,
          };
          const single: number[][] = [];
          const bulk: number[][] = [];
          const outcome = (f: () => number) => {
            try {
              return f();
            } catch (e) {
              return (e as Error).message;
            }
          };
          const a = outcome(() =>
            expandWalk(w, { piece: (s, d, l) => void single.push([s, d, l]) }),
          );
          const b = outcome(() =>
            expandWalk(w, {
              piece: (s, d, l) => void bulk.push([s, d, l]),
              pieces: (s, d, len, n, ss, ds, last) => {
                for (let i = 0; i < n; i++)
                  bulk.push([s + i * ss, d + i * ds, i === n - 1 ? last : len]);
              },
            }),
          );
          expect(b).toEqual(a);
          expect(bulk).toEqual(single);
          if (typeof a === 'number') expect(countPieces(w)).toBe(a);
        },
      ),
      { numRuns: 500 },
    );
  });
});
