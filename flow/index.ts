/**
 * The flow layer, above the driver and the mock: the compile-to-ring flow (a program in, bytes
 * moved through real rings on a Device, every byte checked against the reference interpreter;
 * docs/flow.md), the QoS scenario runner, and the service-trace timeline and trace export.
 *
 *   const report = await runFlow(json, { makeDevice: flowMock });
 *   report.mismatches; // 0
 */
export {
  DEFAULT_FLOW_RING,
  defaultRingBase,
  flowQosPlan,
  prepareCompiled,
  prepareFlow,
  runCompiled,
  runFlow,
  runModule,
  runPrepared,
  type FlowOptions,
  type FlowPhase,
  type PreparedFlow,
} from './flow.ts';
export { flowMock, type FlowMockOptions } from './mock.ts';
export {
  ENGINES_PER_OWNER_TYPE,
  QUEUES_PER_ENGINE,
  mapQueues,
  ownerEngine,
  type QueuePlacement,
} from './mapping.ts';
export { EpochHazards } from './hazards.ts';
export {
  FLOW_MAX_DESC_PER_PKT,
  FlowQueue,
  FlowRings,
  ringBytes,
  type RingLayout,
} from './rings.ts';
export {
  totalsOf,
  type ArbitrationQueue,
  type FlowReport,
  type FlowTotals,
  type FlowTrace,
  type MismatchSample,
  type QueueReport,
} from './report.ts';
export {
  QOS_TIMELINE_BYTES,
  QOS_TIMELINE_MAX_QUEUE_BYTES,
  QOS_TIMELINE_PACKETS,
  simulateQosPlan,
  type QosWorkload,
} from './qos-scenario.ts';
export { renderTimeline, timelineSvg, qosColor } from './timeline.ts';
export type { TimelineEntry, TimelineLane, TimelineOptions, TimelineResult } from './timeline.ts';
export { chromeTrace } from './chrome-trace.ts';
export type { ChromeTraceDocument, ChromeTraceEvent, ChromeTraceOptions } from './chrome-trace.ts';
