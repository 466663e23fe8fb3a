/**
 * The descriptor ring rules (UDMA-FACTS.md "Rings" and "Engine bring-up" step 3), in the order the
 * facts give them: the ring's geometry (256-byte aligned base and end, so a size that is a multiple
 * of 16 descriptors, 32 .. 2^24 - 16 descriptors), the producer's ring id (1 after a queue reset,
 * incremented mod 4 at every wrap of the producer, carried by every descriptor), the number of
 * descriptors in flight between a producer and the engine's head, and the descriptors one packet
 * may hold (64 + 1, between 8 and 128).
 *
 * The one home of these rules: the driver's ring producer and BD writer, the lowering and the mock
 * engine all read them here. Nothing here touches a device or allocates.
 */
import { udma_m2s } from '../generated/udma_m2s.ts';
import { fieldMax } from '../schema/model.ts';
import { BD_SIZE, RING_ID_MASK } from './bd-words.ts';

// ---------------------------------------------------------------------------------------------
// Geometry.

/** Ring base and end must be 256-byte aligned (the prefetcher fetches 256-byte lines). */
export const RING_ALIGN = 256;

/** Ring sizes are a multiple of 16 descriptors (256 B / 16 B), so an aligned base gives an aligned end. */
export const RING_SIZE_MULTIPLE = RING_ALIGN / BD_SIZE;

/** Smallest ring, in descriptors. */
export const MIN_RING_SIZE = 32;

/**
 * Largest ring, in descriptors: 2^24 - 16, the largest value of the 24-bit ring length field
 * (M2S_Q[q].tdrl.len, from the register schema) rounded down to a multiple of RING_SIZE_MULTIPLE.
 */
export const MAX_RING_SIZE =
  Math.floor(fieldMax(udma_m2s.blocks.M2S_Q.registers.tdrl.fields.len.width) / RING_SIZE_MULTIPLE) *
  RING_SIZE_MULTIPLE;

/**
 * The smallest legal ring holding `descriptors`: at least MIN_RING_SIZE, a multiple of
 * RING_SIZE_MULTIPLE, at most MAX_RING_SIZE.
 */
export function ringSizeFor(descriptors: number): number {
  const size = Math.ceil(descriptors / RING_SIZE_MULTIPLE) * RING_SIZE_MULTIPLE;
  return Math.min(MAX_RING_SIZE, Math.max(MIN_RING_SIZE, size));
}

// ---------------------------------------------------------------------------------------------
// The producer: next slot, wrap and ring id.

/** The ring id a queue starts with after reset (q_sw_ctrl.rst_q): head, tail and descriptors. */
export const INITIAL_RING_ID = 1;

/**
 * Ring ids are the 2-bit len_ctrl.ring_id[25:24] of a descriptor (and of the head and tail
 * pointers): 0..3, so the id increments mod 4. Defined beside the len_ctrl layout (bd-words.ts),
 * so the descriptor codec checks ring ids without importing this module.
 */
export { RING_ID_MASK };

/** Number of distinct ring ids (4): the in-flight count is taken modulo RING_IDS laps. */
export const RING_IDS = RING_ID_MASK + 1;

/** The ring id after a wrap of the producer (or the engine's head): `rid` + 1 mod 4. */
export function nextRingId(rid: number): number {
  return (rid + 1) & RING_ID_MASK;
}

/** The ring id before a wrap (undoing one): `rid` - 1 mod 4. */
export function prevRingId(rid: number): number {
  return (rid - 1) & RING_ID_MASK;
}

/**
 * The ring id of the lap `laps` wraps after one under `rid` (a doorbell handing over `n`
 * descriptors from slot `s` of a ring of `size` moves (s + n) / size laps).
 */
export function ringIdAfter(rid: number, laps: number): number {
  return (rid + laps) & RING_ID_MASK;
}

/**
 * Descriptors in flight between a producer at (tail, tailRid) and the engine's head at
 * (head, headRid) on a ring of `size`: 0 (empty) .. size (full). The ring ids tell a full ring from
 * an empty one. A result above `size` means the two positions are inconsistent.
 */
export function inFlight(
  size: number,
  tail: number,
  tailRid: number,
  head: number,
  headRid: number,
): number {
  let p = ((tailRid - headRid) & RING_ID_MASK) * size + tail - head;
  if (p < 0) p += RING_IDS * size;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Packets.

/** Data descriptors of a full packet: the lowering's packets hold at most this many (64). */
export const DESC_PER_PKT = 64;

/**
 * Descriptors one packet may hold on these devices: 64 + 1. Bring-up writes it to
 * M2S_rd.desc_pref_cfg_2.max_desc_per_pkt (and the prefetch threshold) unless told otherwise.
 */
export const MAX_DESC_PER_PKT = DESC_PER_PKT + 1;

/** The range bring-up accepts for max_desc_per_pkt. */
export const MAX_DESC_PER_PKT_MIN = 8;
export const MAX_DESC_PER_PKT_MAX = 128;
