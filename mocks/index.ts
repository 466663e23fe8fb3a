/** The mock device: memory, register files, UDMA engines with arbitration, DGE cores. */
export {
  MockDevice,
  DEFAULT_HOST_REGION,
  DEFAULT_DRAM_REGION,
  DEFAULT_DGE_CORE_STRIDE,
} from './device.ts';
export type { MockDeviceOptions } from './device.ts';
export { MockMemory, MemoryRegion, MAX_REGION_BYTES } from './memory.ts';
export type { MemoryRegionSpec } from './memory.ts';
export { MockRegisterFile } from './register-file.ts';
export type {
  BadAccess,
  BadAccessReason,
  MockRegisterFileOptions,
  RegisterAccessEvent,
  RegisterFileCounters,
} from './register-file.ts';
export { MockUdmaUnit } from './udma/unit.ts';
export { MOCK_QUEUE_STATUS } from './udma/types.ts';
export type {
  AutoRun,
  MockUdmaUnitOptions,
  QueueCounters,
  QueueStats,
  RingPosition,
  UdmaFault,
  UdmaFaultKind,
  UdmaHalf,
} from './udma/types.ts';
export { Arbiter } from './udma/arbiter.ts';
export type { ArbiterMode } from './udma/arbiter.ts';
export { ServiceTrace } from './service-trace.ts';
export type { ServiceTraceEntry } from './service-trace.ts';
export { MockDgeCore, DgeHostWindow, DGE_CORE_KIND, DGE_BOOTED } from './dge-core.ts';
export type { MockDgeCoreSpec } from './dge-core.ts';
