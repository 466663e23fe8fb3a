import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NxdmaError } from '../../../common/errors.ts';
import { CCE_CAP_TABLE_ENTRIES, cceReducePacketSize } from '../../../driver/runtime/index.ts';

const caps = [0, 1024, 1000, 64, 31];

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(NxdmaError);
    return (e as NxdmaError).code + ':' + String((e as NxdmaError).details.where);
  }
  return 'no error';
}

describe('cceReducePacketSize (encd_get_cce_reduce_packet_size, seed 004 §9)', () => {
  it('min(dtype_size * N, cap[class])', () => {
    expect(cceReducePacketSize(2, 1000, 1, caps)).toBe(1024); // min(2000, 1024)
    expect(cceReducePacketSize(2, 100, 1, caps)).toBe(192); // min(200, 1024) = 200 -> 192
  });

  it('rounds down to a multiple of 32 (& ~0x1F)', () => {
    expect(cceReducePacketSize(2, 1000, 2, caps)).toBe(992); // cap 1000 -> 992
    expect(cceReducePacketSize(4, 7, 0, caps)).toBe(0); // 28 -> 0
    expect(cceReducePacketSize(1, 63, 0, caps)).toBe(32);
    expect(cceReducePacketSize(1, 64, 0, caps)).toBe(64);
    expect(cceReducePacketSize(8, 1000, 4, caps)).toBe(0); // cap 31 -> 0
  });

  it('a cap of 0 means uncapped', () => {
    expect(cceReducePacketSize(4, 1_000_000, 0, caps)).toBe(4_000_000);
    expect(cceReducePacketSize(2, 1_000_001, 0, caps)).toBe(2_000_000); // 2000002 & ~31
  });

  it('class must be <= 4 (MAX_DMA_PKT_PRIO_NUM)', () => {
    expect(code(() => cceReducePacketSize(2, 10, 5, caps))).toBe('BAD_ARGUMENT:priorityClass');
    expect(code(() => cceReducePacketSize(2, 10, -1, caps))).toBe('BAD_ARGUMENT:priorityClass');
    expect(code(() => cceReducePacketSize(2, 10, 1.5, caps))).toBe('BAD_ARGUMENT:priorityClass');
    expect(cceReducePacketSize(2, 10, 4, caps)).toBe(0);
  });

  it('dtype_size must be > 0', () => {
    expect(code(() => cceReducePacketSize(0, 10, 0, caps))).toBe('BAD_ARGUMENT:dtypeSize');
    expect(code(() => cceReducePacketSize(-2, 10, 0, caps))).toBe('BAD_ARGUMENT:dtypeSize');
  });

  it('the class is checked before the dtype size (the binary asserts in that order)', () => {
    expect(code(() => cceReducePacketSize(0, 10, 9, caps))).toBe('BAD_ARGUMENT:priorityClass');
  });

  it('the cap table has exactly five non-negative entries; N is a non-negative integer', () => {
    expect(CCE_CAP_TABLE_ENTRIES).toBe(5);
    expect(code(() => cceReducePacketSize(2, 10, 0, [0, 0, 0, 0]))).toBe('BAD_ARGUMENT:capTable');
    expect(code(() => cceReducePacketSize(2, 10, 0, [0, 0, 0, 0, -1]))).toBe(
      'BAD_ARGUMENT:capTable[4]',
    );
    expect(code(() => cceReducePacketSize(2, -1, 0, caps))).toBe('BAD_ARGUMENT:n');
    expect(code(() => cceReducePacketSize(2 ** 30, 2 ** 30, 0, caps))).toBe('BAD_ARGUMENT:n');
    expect(cceReducePacketSize(4, 0, 0, caps)).toBe(0);
  });

  it('property: a multiple of 32, never above dtype*N nor a non-zero cap, and within 32 of their minimum', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.nat({ max: 1 << 24 }),
        fc.nat({ max: 4 }),
        fc.array(fc.nat({ max: 1 << 20 }), { minLength: 5, maxLength: 5 }),
        (esz, n, cls, table) => {
          const r = cceReducePacketSize(esz, n, cls, table);
          const want = esz * n;
          const bound = table[cls] === 0 ? want : Math.min(want, table[cls]);
          expect(r % 32).toBe(0);
          expect(r).toBeLessThanOrEqual(bound);
          expect(bound - r).toBeLessThan(32);
        },
      ),
      { seed: 4012, numRuns: 1000 },
    );
  });
});
