/** The UDMA engine driver: bring-up, rings, copies, completion by head pointers, shadowed registers. */
export {
  UdmaEngine,
  deviceClockOf,
  type BringUpOptions,
  type BringUpReport,
  type DeviceClock,
  type EngineHealth,
  type UdmaEngineOptions,
  type WaitOptions,
} from './engine.ts';
export {
  UdmaQueue,
  type CopyOptions,
  type CopyRequest,
  type QueueRings,
  type QueueStats,
} from './queue.ts';
export {
  INITIAL_RING_ID,
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_SIZE_MULTIPLE,
  RingProducer,
  inFlight,
  ringSizeFor,
  ringsOverlap,
  validateRing,
  type RingKind,
  type RingSpec,
} from './ring.ts';
export { RegisterShadow } from './shadow.ts';
export type { RegisterWrite } from './engine-io.ts';
