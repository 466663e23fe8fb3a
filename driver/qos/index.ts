/** QoS programming: the plan format, the planner, apply / diff on a Device, and the plan as tables. */
export {
  QOS_LIMITS,
  QosPlanSchema,
  isQosPlan,
  parseQosPlan,
  qosPlanJsonSchema,
  type PlanArbiters,
  type PlanDwrr,
  type PlanEngine,
  type PlanQueue,
  type QosPlan,
  type QosPlanInput,
  type QosPlanJson,
} from './plan.ts';
export {
  buildQosWrites,
  planQos,
  type PlanQosOptions,
  type PlannedField,
  type PlannedWrite,
  type QosOrigin,
  type QosProgram,
  type QosWarning,
  type QosWarningCode,
} from './planner.ts';
export {
  applyQos,
  diffQos,
  type ApplyQosOptions,
  type DiffQosOptions,
  type QosApplyResult,
  type QosDiff,
  type QosDiffField,
  type QosFieldChange,
  type QosIoCounts,
  type QosWrite,
} from './apply.ts';
export { describeQosPlan, type PlanEngineTable, type PlanQueueRow } from './describe.ts';
export {
  REGISTER_SNAPSHOT_FORMAT,
  RegisterSnapshotSchema,
  parseRegisterSnapshot,
  restoreRegisters,
  snapshotOf,
  type RegisterSnapshot,
  type RestoreOptions,
  type RestoreResult,
  type RestoreWrite,
  type SavedRegister,
} from './snapshot.ts';
