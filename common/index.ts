/**
 * nxdma: the vocabulary every subpath shares.
 *
 * - `NxdmaError`, the one error nxdma throws on purpose, with a stable `code` (`ERROR_CODES`)
 *   and details saying where and what was expected;
 * - the device interfaces everything talks through: `Device`, `RegisterIO` (aligned 32-bit
 *   register windows), `MemoryIO` (device memory), `UdmaUnitIO`, `DgeCoreIO`.
 *
 * The layers are subpaths: `nxdma/csr` (registers), `nxdma/formats` (wire formats),
 * `nxdma/driver`, `nxdma/mocks`, `nxdma/compiler` (with `nxdma/compiler/lower` and
 * `nxdma/compiler/interp`) and `nxdma/flow`.
 */
export {
  ERROR_CODES,
  NxdmaError,
  isNxdmaError,
  type ErrorCode,
  type ErrorDetails,
} from './errors.ts';
export { isSimulated, serviceTraceOf } from '../csr/io.ts';
export type {
  Device,
  DeviceFault,
  DgeCoreIO,
  MemoryIO,
  RegisterIO,
  ServiceTraceEntry,
  ServiceTraceReader,
  SimulatedDevice,
  Simulation,
  UdmaUnitIO,
} from '../csr/io.ts';
