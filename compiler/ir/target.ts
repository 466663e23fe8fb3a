/**
 * Per-ArchLevel target constants the passes read. The seeds pin the gates (HWDGE only for
 * ArchLevel > 29, seed 001; SP/Activation ValidEngines for ArchLevel <= 49, seed 000) but not the
 * descriptor-fit constants; those are nxdma's, chosen in docs/compiler.md ("descriptor-fit
 * constants") and kept here, in one table, so a measured value replaces a guess in one place.
 */
import { type ArchLevel, EngineType } from './enums.ts';

/** One engine of a ValidEngines vector: EngineInfo {type, sub id} (an 8-byte value in the seed). */
export interface EngineInfo {
  readonly engine: EngineType;
  readonly subId: number;
}

export interface TargetParams {
  /** qword_3E01C58: the per-arch minimum-element floor of a DGE copy (seed 001 sub_1096280). */
  readonly minDgeElements: number;
  /** Cap on descriptors one DGE copy may need (isDescNumOk): the carveout count field is 16 bits. */
  readonly maxDgeDescriptors: number;
  /** Bytes one descriptor moves at most (UDMA: 64 KiB per descriptor). */
  readonly maxDescriptorBytes: number;
  /** HWDGE partition granule (seed 004 §4.4: HWDGE wants 16-aligned partition tiles). */
  readonly hwdgePartitionGranule: number;
}

/**
 * The seeds give one figure for the minimum: dge_par_min_size = 16 (seed 004 §4.4). nxdma uses it
 * on every arch and keeps the per-arch slot.
 */
export const TARGETS: Readonly<Record<ArchLevel, TargetParams>> = {
  10: {
    minDgeElements: 16,
    maxDgeDescriptors: 0xffff,
    maxDescriptorBytes: 65536,
    hwdgePartitionGranule: 16,
  },
  20: {
    minDgeElements: 16,
    maxDgeDescriptors: 0xffff,
    maxDescriptorBytes: 65536,
    hwdgePartitionGranule: 16,
  },
  30: {
    minDgeElements: 16,
    maxDgeDescriptors: 0xffff,
    maxDescriptorBytes: 65536,
    hwdgePartitionGranule: 16,
  },
  40: {
    minDgeElements: 16,
    maxDgeDescriptors: 0xffff,
    maxDescriptorBytes: 65536,
    hwdgePartitionGranule: 16,
  },
  50: {
    minDgeElements: 16,
    maxDgeDescriptors: 0xffff,
    maxDescriptorBytes: 65536,
    hwdgePartitionGranule: 16,
  },
};

/** HWDGE exists only above ArchLevel 29 (seed 001: `cmp CurArch, 0x1d`). */
export function hwdgeAvailable(arch: number): boolean {
  return arch > 29;
}

/** assign_hwdge_engine's boundary: <= 49 is gen3/core_v4, >= 50 is core_v5 (seed 000). */
export function isCoreV5(arch: number): boolean {
  return arch > 49;
}

/** ValidEngines for ArchLevel <= 49, injected literally by assign_hwdge_engine: [SP, Activation]. */
export const VALID_ENGINES_PRE_V5: readonly EngineInfo[] = Object.freeze([
  Object.freeze({ engine: EngineType.SP, subId: 0 }),
  Object.freeze({ engine: EngineType.Activation, subId: 0 }),
]);

/**
 * core_v5's default ValidEngines (target-supplied in the binary, seed 000 GAP G4). nxdma's
 * default: SP and Activation, each with two descriptor-generation rings (sub ids 0 and 1). Only SP
 * and Activation pass dynamic_dma_cleanup's HWDGE engine check, so a larger set can only grow by
 * sub id. A program may supply its own list (options.hwdgeEngines).
 */
export const VALID_ENGINES_CORE_V5: readonly EngineInfo[] = Object.freeze([
  Object.freeze({ engine: EngineType.SP, subId: 0 }),
  Object.freeze({ engine: EngineType.Activation, subId: 0 }),
  Object.freeze({ engine: EngineType.SP, subId: 1 }),
  Object.freeze({ engine: EngineType.Activation, subId: 1 }),
]);
