/**
 * The mapped-device back end: device files mapped into the process over FFI (optional native
 * modules ffi-napi / ref-napi, loaded on first use) and the device profiles that place UDMA units
 * in BAR0. See docs/device.md.
 */
export { openRegion, MappedRegion, type OpenRegionOptions } from './region.ts';
export { MmioRegisterIO, type RegisterWindow } from './register-io.ts';
export { MmioMemoryIO, type MemoryWindow, type PlacedWindow } from './memory-io.ts';
export {
  openDevice,
  deviceLayout,
  MmioDevice,
  type OpenDeviceOptions,
  type DgeCoreSpec,
  type MemorySpec,
} from './device.ts';
export {
  PROFILES,
  getProfile,
  profileEngines,
  hasEngine,
  engineGroup,
  unitOffset,
  registerFileOffset,
  sdmaWrapperOffset,
  barRegisterWindows,
  type BarRegisterWindow,
  type DmaMemoryWindow,
  type DeviceProfile,
  type EngineGroup,
  type ProfileName,
  type UdmaRegisterFile,
  type UdmaUnitLayout,
  type UnitWindow,
} from './profiles.ts';
export { NATIVE_INSTALL_HINT, loadLibc } from './native.ts';
export {
  checkInsideMemory,
  checkLayout,
  type DeclaredMemory,
  type LayoutKind,
  type LayoutWindow,
} from './layout.ts';
export { MAX_WINDOW_BYTES } from './mapping.ts';
