/** The UDMA engine driver: bring-up, rings, copies, completion by head pointers, shadowed registers. */
export { UdmaEngine, deviceClockOf } from './engine.ts';
export type * from './engine-types.ts';
export { formatDump } from './dump.ts';
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
export type { RegisterWrite } from './engine-io.ts';
