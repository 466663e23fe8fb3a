/**
 * Two DGE local registers of the memcopy engine (seed 004 §3.1, §5.4, the ISA header comments
 * quoted there):
 *
 *   // DGE Pool carveout configuration (only usable on Pool).
 *   // - lower 16 bits are the carveout region's offset in each partition *in number of descriptors*
 *   //   (that is, the byte offset / 16)
 *   //   - The carveout must be aligned to 64 bytes, a DMA restriction
 *   // - upper 16 bits are the carveout region size in number of descriptors.
 *   //   - The size of the carveout region (minus the reserved ones) limits the maximum number
 *   //     of descriptors in a single memcopy
 *   #define AWS_NEURON_ISA_XT_MEMCOPY_CARVEOUT_CFG  39
 *
 *   MEMCOPY_DMA_CFG (local-reg 40) is { lo16 = which DMAs this engine may use, hi16 = which queues }
 *   ("#DMA Avail is the MEMCOPY_DMA_CFG (local-reg 40) lower-16 bitfield").
 *
 * Registers are 4 bytes: register n sits at byte offset 4n of the local register file.
 */
import { NxdmaError } from '../../common/errors.ts';

/** AWS_NEURON_ISA_XT_MEMCOPY_CARVEOUT_CFG. */
export const MEMCOPY_CARVEOUT_CFG = 39;
/** AWS_NEURON_ISA_XT_MEMCOPY_DMA_CFG. */
export const MEMCOPY_DMA_CFG = 40;
/** Byte offsets of the two registers (4-byte registers). */
export const MEMCOPY_CARVEOUT_CFG_OFFSET = MEMCOPY_CARVEOUT_CFG * 4;
export const MEMCOPY_DMA_CFG_OFFSET = MEMCOPY_DMA_CFG * 4;

/** One descriptor of the carveout is 16 bytes ("the byte offset / 16"). */
export const CARVEOUT_DESCRIPTOR_BYTES = 16;
/** "The carveout must be aligned to 64 bytes, a DMA restriction." */
export const CARVEOUT_ALIGN = 64;

export interface MemcopyCarveoutCfg {
  /** lo16: the carveout's offset in each partition, in descriptors (byte offset / 16). */
  offset: number;
  /** hi16: the carveout's size, in descriptors. */
  size: number;
  /**
   * Descriptors of the carveout that a memcopy may not use ("minus the reserved ones"; the seed
   * does not say how many: nxdma's default is 0). Not a register field.
   */
  reserved: number;
}

export interface MemcopyDmaCfg {
  /** lo16: the DMAs (channels) this engine may use. */
  dmas: number;
  /** hi16: the queues this engine may use. */
  queues: number;
}

/** The reset-free defaults nxdma assumes: a carveout of 65535 descriptors at 0, every DMA and queue. */
export const DEFAULT_CARVEOUT_CFG: Readonly<MemcopyCarveoutCfg> = Object.freeze({
  offset: 0,
  size: 0xffff,
  reserved: 0,
});
export const DEFAULT_DMA_CFG: Readonly<MemcopyDmaCfg> = Object.freeze({
  dmas: 0xffff,
  queues: 0xffff,
});

function u16(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= 0xffff;
}

/**
 * What is wrong with a carveout configuration, or null: u16 fields, a 64-byte aligned carveout
 * (offset * 16 a multiple of 64: the offset a multiple of 4 descriptors), reserved below the size,
 * and (nxdma) the region inside the 16-bit descriptor space of a partition (offset + size <= 65536).
 */
export function carveoutProblem(
  c: MemcopyCarveoutCfg,
): { field: string; expected: string; actual: unknown } | null {
  if (!u16(c.offset)) return { field: 'offset', expected: 'a u16 (descriptors)', actual: c.offset };
  if (!u16(c.size)) return { field: 'size', expected: 'a u16 (descriptors)', actual: c.size };
  if ((c.offset * CARVEOUT_DESCRIPTOR_BYTES) % CARVEOUT_ALIGN !== 0) {
    return {
      field: 'offset',
      expected: `a 64-byte aligned carveout: an offset that is a multiple of ${CARVEOUT_ALIGN / CARVEOUT_DESCRIPTOR_BYTES} descriptors`,
      actual: c.offset,
    };
  }
  if (!Number.isInteger(c.reserved) || c.reserved < 0 || c.reserved >= Math.max(1, c.size)) {
    return {
      field: 'reserved',
      expected: `0..${Math.max(0, c.size - 1)} descriptors`,
      actual: c.reserved,
    };
  }
  if (c.offset + c.size > 0x10000) {
    return {
      field: 'size',
      expected: `offset + size <= 65536 descriptors`,
      actual: c.offset + c.size,
    };
  }
  return null;
}

/** The most descriptors a single memcopy may write: the carveout size minus the reserved ones. */
export function carveoutCapacity(c: MemcopyCarveoutCfg): number {
  return c.size - c.reserved;
}

/** MEMCOPY_CARVEOUT_CFG's register value: size in hi16, offset in lo16. */
export function packCarveoutCfg(c: MemcopyCarveoutCfg): number {
  const p = carveoutProblem(c);
  if (p) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `MEMCOPY_CARVEOUT_CFG.${p.field}: expected ${p.expected}, got ${String(p.actual)}`,
      {
        where: `MEMCOPY_CARVEOUT_CFG.${p.field}`,
        expected: p.expected,
        actual: p.actual,
      },
    );
  }
  return ((c.size << 16) | c.offset) >>> 0;
}

/** MEMCOPY_DMA_CFG's register value: queues in hi16, DMAs in lo16. */
export function packDmaCfg(c: MemcopyDmaCfg): number {
  if (!u16(c.dmas) || !u16(c.queues)) {
    throw new NxdmaError('BAD_ARGUMENT', `MEMCOPY_DMA_CFG: dmas and queues are u16 masks`, {
      where: 'MEMCOPY_DMA_CFG',
      expected: 'two 16-bit masks',
      actual: c,
    });
  }
  return ((c.queues << 16) | c.dmas) >>> 0;
}

export function unpackCarveoutCfg(v: number): { offset: number; size: number } {
  return { offset: v & 0xffff, size: (v >>> 16) & 0xffff };
}

export function unpackDmaCfg(v: number): MemcopyDmaCfg {
  return { dmas: v & 0xffff, queues: (v >>> 16) & 0xffff };
}
