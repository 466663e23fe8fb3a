/**
 * nrtucode core kinds with an NX-POOL and the two build masks of the host API's core-kind gate
 * (seed 004 §7.2). The gate in nrtucode_core_dge_set_priority_class_map reads
 * `k > 0x20 || !((mask >> k) & 1)` -> result 8.
 */

import { DgeCoreKind, type DgeCoreKindName } from '../../csr/formats/dge-host.ts';

/** nrtucode core kinds (the `*_NX_POOL` coretype values): csr/formats/dge-host.ts. */
export { DgeCoreKind, type DgeCoreKindName };

/** Which host library's gate to apply. */
export type DgeBuild = 'customop' | 'internal';

/**
 * Core-kind masks: bit k set means kind k is accepted. The customop build (libnrtucode.so) accepts
 * {2, 9, 17, 25} (0x2020204: MAVERICK gated out); the internal build (libnrtucode_internal.so)
 * also accepts 32 (0x102020204).
 */
export const NX_POOL_KIND_MASK: Readonly<Record<DgeBuild, bigint>> = Object.freeze({
  customop: 0x2020204n,
  internal: 0x102020204n,
});

/** The build nxdma applies unless told otherwise: the public customop library. */
export const DEFAULT_DGE_BUILD: DgeBuild = 'customop';

/** Largest kind the gate can accept (0x20). */
export const MAX_NX_POOL_KIND = 0x20;

/** True when `kind` passes the NX-POOL core-kind gate of `build`. */
export function isNxPoolKind(kind: number, build: DgeBuild = DEFAULT_DGE_BUILD): boolean {
  if (!Number.isInteger(kind) || kind < 0 || kind > MAX_NX_POOL_KIND) return false;
  return ((NX_POOL_KIND_MASK[build] >> BigInt(kind)) & 1n) === 1n;
}

/** The name of a known core kind, or undefined. */
export function coreKindName(kind: number): DgeCoreKindName | undefined {
  return (Object.keys(DgeCoreKind) as DgeCoreKindName[]).find((k) => DgeCoreKind[k] === kind);
}
