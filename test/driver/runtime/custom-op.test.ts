import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import * as qos from '../../../csr/formats/qos-class.ts';
import {
  CUSTOM_OP_MARKER,
  DMAQoSClass,
  isCustomOpDma,
  relQueueIdxWords,
  toPriorityClass,
  type RelQueueIdxEntry,
} from '../../../driver/runtime/index.ts';

const e = (queue_id: number, rel_queue_idx: number): RelQueueIdxEntry => ({
  queue_id,
  rel_queue_idx,
});

describe('isCustomOpDma (dma_is_custom_op_dma_v2, seed 004 §10.1)', () => {
  // (16, 3) then engines [8, 12); (16, 5) then engines [0, 4)
  const table = [e(16, 3), e(8, 12), e(16, 5), e(0, 4)];

  it('the marker is 16 (KBIN_DMA_RING_TYPE_CUSTOM_OP)', () => {
    expect(CUSTOM_OP_MARKER).toBe(16);
    expect(isCustomOpDma(9, 3, [e(15, 3), e(8, 12)])).toBe(false);
    expect(isCustomOpDma(9, 3, [e(17, 3), e(8, 12)])).toBe(false);
  });

  it('rel_queue_idx must equal the queue id', () => {
    expect(isCustomOpDma(9, 3, table)).toBe(true);
    expect(isCustomOpDma(9, 4, table)).toBe(false);
    expect(isCustomOpDma(2, 5, table)).toBe(true);
    expect(isCustomOpDma(2, 3, table)).toBe(false);
  });

  it('eng_lo <= engine < eng_hi (lower bound inclusive, upper exclusive)', () => {
    expect([7, 8, 11, 12].map((eng) => isCustomOpDma(eng, 3, table))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect([0, 3, 4].map((eng) => isCustomOpDma(eng, 5, table))).toEqual([true, true, false]);
    expect(isCustomOpDma(0xffffffff, 1, [e(16, 1), e(0, 0xffffffff)])).toBe(false);
    expect(isCustomOpDma(0xfffffffe, 1, [e(16, 1), e(0, 0xffffffff)])).toBe(true);
  });

  it('the pair walk steps by two entries: a marker in a range slot is not a marker', () => {
    // pairs: [(0,0),(16,5)] and [(10,20),(0,0)]; stepping by one entry would find (16,5),(10,20)
    const t = [e(0, 0), e(16, 5), e(10, 20), e(0, 0)];
    expect(isCustomOpDma(15, 5, t)).toBe(false);
    // and the range is the entry right after its marker
    expect(isCustomOpDma(15, 5, [e(0, 0), e(0, 0), e(16, 5), e(10, 20)])).toBe(true);
  });

  it('the table may be given as raw u32 words (two per entry)', () => {
    const words = new Uint32Array([16, 3, 8, 12, 16, 5, 0, 4]);
    expect(relQueueIdxWords(table)).toEqual(words);
    for (const eng of [0, 3, 8, 11, 12, 20]) {
      for (const q of [3, 5, 6])
        expect(isCustomOpDma(eng, q, words)).toBe(isCustomOpDma(eng, q, table));
    }
  });

  it('an empty table holds no custom-op queue', () => {
    expect(isCustomOpDma(0, 0, [])).toBe(false);
    expect(isCustomOpDma(0, 0, new Uint32Array(0))).toBe(false);
  });

  it('a table of an odd number of entries is refused (its last marker has no range entry)', () => {
    expect(() => isCustomOpDma(9, 3, [e(16, 3), e(8, 12), e(16, 5)])).toThrow(NxdmaError);
    expect(() => isCustomOpDma(9, 3, new Uint32Array([16, 3, 8, 12, 16, 5]))).toThrow(NxdmaError);
    expect(() => isCustomOpDma(9, 3, new Uint32Array([16, 3, 8]))).toThrow(NxdmaError);
  });

  it('ids and entries are u32 values', () => {
    expect(() => isCustomOpDma(-1, 3, table)).toThrow(NxdmaError);
    expect(() => isCustomOpDma(1, 2 ** 32, table)).toThrow(NxdmaError);
    expect(() => isCustomOpDma(1, 1, [e(16, 1), e(0, -1)])).toThrow(NxdmaError);
    expect(() => isCustomOpDma(1, 1, null as never)).toThrow(NxdmaError);
  });
});

describe('DMAQoSClass -> wire priority_class (re-exported from csr/formats/qos-class.ts)', () => {
  it('is the one implementation, not a copy', () => {
    expect(toPriorityClass).toBe(qos.toPriorityClass);
    expect(DMAQoSClass).toBe(qos.DMAQoSClass);
  });
  it('Unassigned/Default -> 0, P0..P3 -> 1..4, P4..P14 saturate at 4', () => {
    expect(toPriorityClass(DMAQoSClass.Unassigned)).toBe(0);
    expect(toPriorityClass(DMAQoSClass.Default)).toBe(0);
    expect(
      [DMAQoSClass.P0, DMAQoSClass.P1, DMAQoSClass.P2, DMAQoSClass.P3].map(toPriorityClass),
    ).toEqual([1, 2, 3, 4]);
    expect(toPriorityClass(DMAQoSClass.P14)).toBe(4);
  });
});
