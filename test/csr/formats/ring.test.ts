import { describe, expect, it } from 'vitest';
import { LEN_CTRL, bdRingId } from '../../../csr/formats/bd.ts';
import {
  DESC_PER_PKT,
  INITIAL_RING_ID,
  MAX_DESC_PER_PKT,
  MAX_DESC_PER_PKT_MAX,
  MAX_DESC_PER_PKT_MIN,
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_IDS,
  RING_ID_MASK,
  RING_SIZE_MULTIPLE,
  inFlight,
  nextRingId,
  prevRingId,
  ringIdAfter,
  ringSizeFor,
} from '../../../csr/formats/ring.ts';
import { udma_m2s } from '../../../csr/generated/udma_m2s.ts';
import { udma_s2m } from '../../../csr/generated/udma_s2m.ts';

describe('ring geometry (UDMA-FACTS "Rings")', () => {
  it('base and end 256-byte aligned, so the size is a multiple of 16 descriptors', () => {
    expect(RING_ALIGN).toBe(256);
    expect(RING_SIZE_MULTIPLE).toBe(16);
  });

  it('minimum 32 descriptors, maximum 2^24 - 16 (the 24-bit ring length field)', () => {
    expect(MIN_RING_SIZE).toBe(32);
    expect(MAX_RING_SIZE).toBe(2 ** 24 - 16);
    // both halves' ring length fields are 24 bits wide
    expect(udma_m2s.blocks.M2S_Q.registers.tdrl.fields.len.width).toBe(24);
    expect(udma_s2m.blocks.S2M_Q.registers.rdrl.fields.len.width).toBe(24);
  });

  it('ringSizeFor gives the smallest legal ring holding the descriptors', () => {
    expect(ringSizeFor(0)).toBe(32);
    expect(ringSizeFor(1)).toBe(32);
    expect(ringSizeFor(32)).toBe(32);
    expect(ringSizeFor(33)).toBe(48);
    expect(ringSizeFor(48)).toBe(48);
    expect(ringSizeFor(1000)).toBe(1008);
    expect(ringSizeFor(2 ** 30)).toBe(MAX_RING_SIZE);
    for (let n = 0; n < 300; n++) {
      const s = ringSizeFor(n);
      expect(s % RING_SIZE_MULTIPLE).toBe(0);
      expect(s).toBeGreaterThanOrEqual(Math.max(n, MIN_RING_SIZE));
      expect(s - RING_SIZE_MULTIPLE).toBeLessThan(Math.max(n, MIN_RING_SIZE));
    }
  });
});

describe('the ring id (UDMA-FACTS "Rings": starts at 1, increments mod 4 at every wrap)', () => {
  it('the ring id starts at 1', () => {
    expect(INITIAL_RING_ID).toBe(1);
  });

  it('ring ids are the 2-bit len_ctrl.ring_id[25:24]', () => {
    expect(RING_ID_MASK).toBe(3);
    expect(RING_IDS).toBe(4);
    expect(RING_ID_MASK << LEN_CTRL.RING_ID_SHIFT).toBe(LEN_CTRL.RING_ID_MASK);
    for (let r = 0; r < RING_IDS; r++) expect(bdRingId(r << LEN_CTRL.RING_ID_SHIFT)).toBe(r);
  });

  it('the ring id increments mod 4 at a wrap, and a wrap undone takes it back', () => {
    expect([0, 1, 2, 3].map(nextRingId)).toEqual([1, 2, 3, 0]);
    expect([0, 1, 2, 3].map(prevRingId)).toEqual([3, 0, 1, 2]);
    for (let r = 0; r < 4; r++) expect(prevRingId(nextRingId(r))).toBe(r);
    expect(ringIdAfter(1, 0)).toBe(1);
    expect(ringIdAfter(1, 3)).toBe(0);
    expect(ringIdAfter(3, 5)).toBe(0);
  });

  it('in-flight count from head and tail: empty, full, across ring-id wraps', () => {
    expect(inFlight(32, 5, 1, 5, 1)).toBe(0);
    expect(inFlight(32, 5, 2, 5, 1)).toBe(32);
    expect(inFlight(32, 2, 2, 30, 1)).toBe(4);
    expect(inFlight(32, 2, 0, 30, 3)).toBe(4); // ring id wraps 3 -> 0
    expect(inFlight(32, 0, 1, 0, 1)).toBe(0);
  });

  it('in-flight count above the ring size for inconsistent positions', () => {
    // the head ahead of the tail on the same lap
    expect(inFlight(32, 2, 1, 5, 1)).toBeGreaterThan(32);
  });
});

describe('descriptors per packet (UDMA-FACTS "Engine bring-up" step 3)', () => {
  it('64 + 1 on these devices, between 8 and 128', () => {
    expect(MAX_DESC_PER_PKT).toBe(64 + 1);
    expect(DESC_PER_PKT).toBe(64);
    expect(MAX_DESC_PER_PKT_MIN).toBe(8);
    expect(MAX_DESC_PER_PKT_MAX).toBe(128);
  });
});
