/**
 * The backend selector (seed 004 §4): the compiler has already chosen the DGEType of each DMA
 * (dynamic_dma_scan); the device DGE picks the backend that builds its descriptors from one
 * availability table (the firmware reads table[0], Pool, first: "S: DGE: Select backend Pool", and
 * falls through to RTL / software, else "NO BACKEND FOUND").
 *
 * | backend    | who expands the loop nest      | dims per descriptor program | compute_op |
 * |------------|--------------------------------|-----------------------------|------------|
 * | Pool       | NX-POOL firmware               | 2                           | yes        |
 * | software   | Q7 cores (SWDGE)               | 4                           | no         |
 * | RTL        | hardware DGE (HWDGE, NC-v3+)   | 5 + 2                       | no         |
 * | none       | host (CPU-precomputed BDs)     | any                         | no         |
 *
 * nxdma's mapping of the two tiers (the seed's reconciliation table is not transcribed): an HWDGE
 * DMA takes the RTL backend; an SWDGE DMA takes Pool when the table has it, else software; a
 * gather transpose always takes software ("This instruction uses the SW-DGE backend with Q7
 * processors"); a DGEType None DMA has no DGE backend: the host builds its ring descriptors.
 */
import { NxdmaError } from '../../common/errors.ts';
import { DGEType, DstReduce, type ArchLevel } from '../ir/enums.ts';
import type { Instr } from '../ir/module.ts';
import { dmaLabel } from './context.ts';

export type Backend = 'none' | 'pool' | 'software' | 'rtl';
export const BACKENDS: readonly Backend[] = ['none', 'pool', 'software', 'rtl'];

/** The index of 'none' in BACKENDS (a DmaTable's backend column). */
export const BACKEND_NONE = 0;

/** DIMPUSHes one descriptor program of each backend holds (seed 004 §3.4, §4.1). */
export const BACKEND_DIMS: Readonly<Record<Backend, number>> = {
  none: Infinity,
  pool: 2,
  software: 4,
  rtl: 7, // 5 + 2
};

/** Which DGE backends a core offers (the firmware's BSS availability table). */
export interface BackendAvailability {
  pool: boolean;
  rtl: boolean;
  software: boolean;
}

/**
 * The default availability per ArchLevel. The firmware fills the table from a capability probe at
 * boot; the seed gives the per-generation facts this table follows: no DGE on Inf1; SUNDA ships
 * the indirect descriptor but the full builder arrives with CAYMAN, so Trn1 has Pool only; HWDGE
 * (the RTL backend) is NeuronCore-v3+ (ArchLevel > 29).
 */
export const BACKEND_AVAILABILITY: Readonly<Record<ArchLevel, BackendAvailability>> = {
  10: { pool: false, rtl: false, software: false },
  20: { pool: true, rtl: false, software: false },
  30: { pool: true, rtl: true, software: true },
  40: { pool: true, rtl: true, software: true },
  50: { pool: true, rtl: true, software: true },
};

/**
 * A backend availability table from a list of the backends a core offers, as the CLI's
 * `--dge-backends pool,software` gives it ('none': no DGE backend). Every backend left out is
 * unavailable. Throws BAD_ARGUMENT for an unknown name.
 */
export function parseBackendList(list: string, where = '--dge-backends'): BackendAvailability {
  const out: BackendAvailability = { pool: false, rtl: false, software: false };
  const names = list
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  for (const n of names) {
    if (n === 'none' && names.length === 1) continue;
    if (n !== 'pool' && n !== 'rtl' && n !== 'software') {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}: unknown DGE backend ${JSON.stringify(n)} (expected pool, rtl, software, or none alone)`,
        { where, expected: 'a comma list of pool, rtl, software, or none', actual: list },
      );
    }
    out[n] = true;
  }
  if (names.length === 0) {
    throw new NxdmaError('BAD_ARGUMENT', `${where}: the list is empty (use none for no backend)`, {
      where,
      expected: 'a comma list of pool, rtl, software, or none',
      actual: list,
    });
  }
  return out;
}

export function availabilityFor(arch: number): BackendAvailability {
  return BACKEND_AVAILABILITY[arch as ArchLevel] ?? BACKEND_AVAILABILITY[30];
}

/** REGWRITE exists on CAYMAN / MARIANA and is retired on NC-v4+ (ArchLevel >= 40), seed §5.2. */
export function hasRegwrite(arch: number): boolean {
  return arch < 40;
}

function noBackend(I: Instr, given: string | undefined, why: string, expected: string): NxdmaError {
  const label = given ?? dmaLabel(I);
  return new NxdmaError('LOWER_ERROR', `${label}: ${why}`, {
    where: label,
    instruction: I.id,
    expected,
    actual: why,
  });
}

/**
 * The backend of one DMA. `gatherTranspose` is true when the DMA lowers to GATHER_XPOSE. Throws
 * LOWER_ERROR when no available backend can build the DMA; `label` names the DMA in the message
 * (default: dmaLabel(I)).
 */
export function selectBackend(
  I: Instr,
  avail: BackendAvailability,
  gatherTranspose: boolean,
  label?: string,
): Backend {
  const reduce = I.dstReduce !== DstReduce.none;
  if (I.dgeType === DGEType.HWDGE) {
    if (!avail.rtl) {
      throw noBackend(
        I,
        label,
        'an HWDGE DMA needs the RTL backend, which this core does not offer',
        'rtl available',
      );
    }
    if (reduce) {
      throw noBackend(
        I,
        label,
        'the RTL backend is pure transport: a destination reduce needs Pool',
        'dstReduce none on HWDGE',
      );
    }
    if (gatherTranspose) {
      throw noBackend(
        I,
        label,
        'a gather transpose uses the software (Q7) backend, not RTL',
        'an SWDGE route',
      );
    }
    return 'rtl';
  }
  if (I.dgeType === DGEType.SWDGE) {
    if (gatherTranspose) {
      if (!avail.software) {
        throw noBackend(
          I,
          label,
          'NO BACKEND FOUND: a gather transpose needs the software (Q7) backend',
          'software available',
        );
      }
      return 'software';
    }
    if (avail.pool) return 'pool';
    if (reduce) {
      throw noBackend(
        I,
        label,
        'a destination reduce needs the Pool backend (DIRECT2D compute_op)',
        'pool available',
      );
    }
    if (avail.software) return 'software';
    const offered = (['pool', 'rtl', 'software'] as const).filter((b) => avail[b]);
    throw noBackend(
      I,
      label,
      `NO BACKEND FOUND for an SWDGE DMA (the core offers ${offered.length > 0 ? offered.join(', ') : 'no DGE backend'})`,
      'pool or software available',
    );
  }
  return 'none';
}
