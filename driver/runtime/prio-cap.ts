/**
 * The priority cap on a collective-reduce (CCE) packet (seed 004 §9, encd_get_cce_reduce_packet_size
 * in libnrt.so):
 *
 *   assert(cls <= 4)                    // MAX_DMA_PKT_PRIO_NUM
 *   cap  = cc_cce_reduce_prio_pkt_size[cls]
 *   assert(esz > 0)
 *   want = esz * N
 *   if (cap) want = min(want, cap)      // a cap of 0 means uncapped
 *   return want & ~0x1F                 // round down to a multiple of 32 bytes
 */
import { NxdmaError } from '../../common/errors.ts';
import { MAX_PRIORITY_CLASS } from '../../csr/formats/qos-class.ts';

/** Entries of cc_cce_reduce_prio_pkt_size: one per priority class 0..4. */
export const CCE_CAP_TABLE_ENTRIES = MAX_PRIORITY_CLASS + 1;

/** CCE packets are whole multiples of 32 bytes (& ~0x1F). */
export const CCE_PACKET_ALIGN = 32;

/**
 * aws_hal_get_sdma_max_cce_elements (seed 004 §9: "arch 2 -> 1024; arch 3/4 -> 2048"): the most
 * elements one CCE packet carries, by NeuronCore generation. nxdma maps the seed's arch 2, 3, 4 to
 * ArchLevel 20 (Trn1), 30 (Trn2) and 40; ArchLevel 50 is not in the seed and carries 40's value
 * forward (inferred); ArchLevel 10 (Inf1, no DGE) is not in the seed either and gets arch 2's.
 */
export const MAX_CCE_ELEMENTS: Readonly<Record<number, number>> = Object.freeze({
  10: 1024,
  20: 1024,
  30: 2048,
  40: 2048,
  50: 2048,
});

/** The per-arch CCE element cap of an ArchLevel (BAD_ARGUMENT for an unknown one). */
export function maxCceElements(arch: number): number {
  const v = MAX_CCE_ELEMENTS[arch];
  if (v === undefined) {
    throw bad(
      'arch',
      'ArchLevel 10, 20, 30, 40 or 50',
      arch,
      `no CCE element cap for ArchLevel ${String(arch)}`,
    );
  }
  return v;
}

function bad(where: string, expected: string, actual: unknown, msg: string): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `cceReducePacketSize: ${msg}`, { where, expected, actual });
}

/**
 * Byte size of one CCE reduce packet: min(dtypeSize * n, capTable[priorityClass]) rounded down to a
 * multiple of 32, where a cap of 0 means uncapped.
 *
 * - priorityClass must be an integer 0..4 (the binary asserts cls <= 4);
 * - dtypeSize must be an integer > 0 (the binary asserts esz > 0);
 * - n is the element count, an integer >= 0 (the binary's N is an int; nxdma refuses a negative
 *   one instead of letting it wrap);
 * - capTable is cc_cce_reduce_prio_pkt_size: exactly five non-negative integers.
 * The product must stay a safe integer. Every violation is a BAD_ARGUMENT NxdmaError.
 */
export function cceReducePacketSize(
  dtypeSize: number,
  n: number,
  priorityClass: number,
  capTable: ArrayLike<number>,
): number {
  if (!Number.isInteger(priorityClass) || priorityClass < 0 || priorityClass > MAX_PRIORITY_CLASS) {
    throw bad(
      'priorityClass',
      `0..${MAX_PRIORITY_CLASS}`,
      priorityClass,
      `priority class must be 0..${MAX_PRIORITY_CLASS} (MAX_DMA_PKT_PRIO_NUM), got ${String(priorityClass)}`,
    );
  }
  if (!Number.isInteger(dtypeSize) || dtypeSize <= 0) {
    throw bad(
      'dtypeSize',
      'an integer > 0',
      dtypeSize,
      `dtype size must be > 0, got ${String(dtypeSize)}`,
    );
  }
  if (!Number.isInteger(n) || n < 0) {
    throw bad(
      'n',
      'an integer >= 0',
      n,
      `element count must be a non-negative integer, got ${String(n)}`,
    );
  }
  if (
    capTable === null ||
    typeof capTable !== 'object' ||
    capTable.length !== CCE_CAP_TABLE_ENTRIES
  ) {
    throw bad(
      'capTable',
      `${CCE_CAP_TABLE_ENTRIES} entries (cc_cce_reduce_prio_pkt_size[0..${MAX_PRIORITY_CLASS}])`,
      capTable === null || typeof capTable !== 'object' ? String(capTable) : capTable.length,
      `cap table must have ${CCE_CAP_TABLE_ENTRIES} entries`,
    );
  }
  for (let i = 0; i < CCE_CAP_TABLE_ENTRIES; i++) {
    const c = capTable[i];
    if (!Number.isSafeInteger(c) || c < 0) {
      throw bad(
        `capTable[${i}]`,
        'a non-negative safe integer (0: uncapped)',
        c,
        `cap table entry ${i} is ${String(c)}`,
      );
    }
  }
  const want = dtypeSize * n;
  if (!Number.isSafeInteger(want)) {
    throw bad('n', `dtypeSize * n below 2^53`, n, `dtypeSize * n = ${want} is not a safe integer`);
  }
  const cap = capTable[priorityClass];
  const size = cap !== 0 && cap < want ? cap : want;
  return size - (size % CCE_PACKET_ALIGN);
}
