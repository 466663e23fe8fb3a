/**
 * Custom-op DMA detection (seed 004 §10.1, dma_is_custom_op_dma_v2 in libnrt.so): the queue-bundle
 * table v2_queue_bundle_alloc_table is a flat array of encd_rel_queue_idx_table_t
 * { u32 queue_id; u32 rel_queue_idx } walked two entries at a time:
 *
 *   entry[0] = (marker, rel_queue_idx)   marker 16 = KBIN_DMA_RING_TYPE_CUSTOM_OP
 *   entry[1] = (eng_lo, eng_hi)          the engine-id range [eng_lo, eng_hi)
 *
 * A (engine, queue) is a custom-op DMA when some pair has marker == 16, rel_queue_idx == queue
 * and eng_lo <= engine < eng_hi.
 */
import { NxdmaError } from '../../common/errors.ts';
import { isU32 } from '../../csr/formats/wire.ts';

/** The CUSTOM_OP marker (KBIN_DMA_RING_TYPE_CUSTOM_OP): a routing marker, not a queue number. */
export const CUSTOM_OP_MARKER = 16;

/** One encd_rel_queue_idx_table_t entry (8 bytes). */
export interface RelQueueIdxEntry {
  queue_id: number;
  rel_queue_idx: number;
}

/** The table as entries, or as its raw u32 words (two per entry). */
export type RelQueueIdxTable = readonly RelQueueIdxEntry[] | Uint32Array;

function badArg(where: string, expected: string, actual: unknown, msg: string): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `isCustomOpDma: ${msg}`, { where, expected, actual });
}

/**
 * Flattens and validates the table to its u32 words. The binary walks pairs until the end
 * sentinel, so a table of an odd number of entries has no range entry for its last marker and
 * would run past the end: nxdma refuses it (BAD_ARGUMENT) instead of guessing. An empty table holds
 * no custom-op queue.
 */
export function relQueueIdxWords(table: RelQueueIdxTable): Uint32Array {
  let words: Uint32Array;
  if (table instanceof Uint32Array) {
    if (table.length % 2 !== 0) {
      throw badArg(
        'table',
        'an even number of u32 words (two per entry)',
        table.length,
        `table of ${table.length} words is not whole entries`,
      );
    }
    words = table;
  } else if (Array.isArray(table)) {
    words = new Uint32Array(table.length * 2);
    table.forEach((e: RelQueueIdxEntry, i: number) => {
      if (typeof e !== 'object' || e === null || !isU32(e.queue_id) || !isU32(e.rel_queue_idx)) {
        throw badArg(
          `table[${i}]`,
          '{ queue_id: u32, rel_queue_idx: u32 }',
          e === null || typeof e !== 'object' ? String(e) : e,
          `entry ${i} is not two u32 values`,
        );
      }
      words[2 * i] = e.queue_id;
      words[2 * i + 1] = e.rel_queue_idx;
    });
  } else {
    throw badArg(
      'table',
      'an array of { queue_id, rel_queue_idx } or a Uint32Array',
      String(table),
      'no table given',
    );
  }
  const entries = words.length / 2;
  if (entries % 2 !== 0) {
    throw badArg(
      'table',
      'an even number of entries: (16, rel_queue_idx) then (eng_lo, eng_hi) pairs',
      entries,
      `table of ${entries} entries: the last marker entry has no (eng_lo, eng_hi) range entry`,
    );
  }
  return words;
}

/** dma_is_custom_op_dma_v2(eng_id, queue_id) over `table`. */
export function isCustomOpDma(engId: number, queueId: number, table: RelQueueIdxTable): boolean {
  if (!isU32(engId))
    throw badArg('engId', 'a u32', engId, `engine id must be a u32, got ${String(engId)}`);
  if (!isU32(queueId))
    throw badArg('queueId', 'a u32', queueId, `queue id must be a u32, got ${String(queueId)}`);
  const w = relQueueIdxWords(table);
  // step by two entries (four words): [marker, rel_queue_idx, eng_lo, eng_hi]
  for (let i = 0; i < w.length; i += 4) {
    if (
      w[i] === CUSTOM_OP_MARKER &&
      w[i + 1] === queueId &&
      engId >= w[i + 2] &&
      engId < w[i + 3]
    ) {
      return true;
    }
  }
  return false;
}
