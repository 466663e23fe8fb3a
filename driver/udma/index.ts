/** The UDMA engine driver: bring-up, rings, copies, completion by head pointers, shadowed registers. */
export {
  UdmaEngine,
  deviceClockOf,
  type BringUpOptions,
  type BringUpReport,
  type DeviceClock,
  formatDump,
  type EngineDump,
  type EngineHealth,
  type EngineInfo,
  type HalfDump,
  type QueueDump,
  type StartReport,
  type UdmaEngineOptions,
  type WaitOptions,
} from './engine.ts';
export {
  UdmaQueue,
  type CopyOptions,
  type CompletedResult,
  type CompletedStatusResult,
  type CopyRequest,
  type DoneOptions,
  type EnqueueOptions,
  type OpFault,
  type OpState,
  type OpStatus,
  type QueueOwner,
  type QueueRings,
  type QueueStats,
  type Segment,
} from './queue.ts';
export {
  DmaAllocator,
  dmaAllocator,
  type AllocOptions,
  type AvoidRange,
  type DmaWindow,
  type Placement,
} from './alloc.ts';
export {
  INITIAL_RING_ID,
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_SIZE_MULTIPLE,
  RingGuard,
  RingProducer,
  inFlight,
  ringSizeFor,
  ringsOverlap,
  validateRing,
  zeroMemory,
  type GuardedRing,
  type RingKind,
  type RingSpec,
} from './ring.ts';
export { RegisterShadow, deviceShadow } from './shadow.ts';
export { EngineIO, type RegisterWrite } from './engine-io.ts';
export {
  Field,
  Reg,
  UDMA_FILES,
  field,
  inferredWrite,
  queueCount,
  reg,
  udmaModel,
  type UdmaFileName,
} from './regs.ts';
export { queueRegs, type HalfQueueRegs, type QueueRegs } from './queue-regs.ts';
