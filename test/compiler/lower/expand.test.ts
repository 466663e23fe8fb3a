import { describe, expect, it } from 'vitest';
import { IndirectSide } from '../../../csr/formats/dge-desc.ts';
import {
  countPieces,
  expandWalk,
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
