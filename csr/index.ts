/**
 * nxdma/csr: the register vocabulary.
 *
 * - Model: `regFile('udma_m2s')` loads and validates a shipped schema into a frozen model (blocks,
 *   registers, fields, provenance, known gaps); `instances(file)`, `findInstance(file, path)`,
 *   `instanceAt(file, offset)` give every register word's path and absolute offset.
 * - Typed accessors: `bindUdmaM2S(io).M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 })`.
 * - RegisterIOs: ArrayRegisterIO (plain memory), TracingIO (dry runs), ShadowIO (no re-reads).
 */
import type { RegisterIO } from './io.ts';
import { dge_host, udma_m2s, udma_s2m } from './generated/index.ts';
import { bindRegFile, type BindOptions } from './runtime/accessor.ts';
import type { RegFileAccessor } from './runtime/types.ts';

export * from './schema/model.ts';
export { ACCESS_KINDS, PROVENANCES, regFileJsonSchema } from './schema/format.ts';
export type { RegFileJson } from './schema/format.ts';
export { loadRegFile, parseRegFile, deriveAccess } from './schema/loader.ts';
export type { SchemaIssue } from './schema/loader.ts';
export {
  REGFILE_NAMES,
  isRegFileName,
  regFile,
  regFiles,
  schemaPath,
  schemaDisplayPath,
} from './schema/files.ts';
export type { RegFileName } from './schema/files.ts';
export { mapInstances, toRegFileMap, toRegisterMap } from './schema/map.ts';
export type { BlockMap, FieldMap, MapInstance, RegFileMap, RegisterMap } from './schema/map.ts';
export { dge_host, regFileMaps, udma_m2s, udma_s2m } from './generated/index.ts';
export * from './runtime/index.ts';

/** Typed accessors of udma_m2s (the M2S / TX half of a UDMA unit). */
export type UdmaM2SRegs = RegFileAccessor<udma_m2s>;
/** Typed accessors of udma_s2m (the S2M / RX half of a UDMA unit). */
export type UdmaS2MRegs = RegFileAccessor<udma_s2m>;
/** Typed accessors of dge_host (the DGE host-private table at dram_base). */
export type DgeHostRegs = RegFileAccessor<dge_host>;

/** Binds the udma_m2s map to an M2S window (UdmaUnitIO.m2s). */
export function bindUdmaM2S(io: RegisterIO, opts?: BindOptions): UdmaM2SRegs {
  return bindRegFile(udma_m2s, io, opts);
}

/** Binds the udma_s2m map to an S2M window (UdmaUnitIO.s2m). */
export function bindUdmaS2M(io: RegisterIO, opts?: BindOptions): UdmaS2MRegs {
  return bindRegFile(udma_s2m, io, opts);
}

/** Binds the dge_host map to a DGE core's DRAM window (DgeCoreIO.dram). */
export function bindDgeHost(io: RegisterIO, opts?: BindOptions): DgeHostRegs {
  return bindRegFile(dge_host, io, opts);
}
