/**
 * Host-runtime helpers (seed 004 §9-§10): the CCE priority cap, custom-op DMA detection, and the
 * DMAQoSClass -> wire priority_class rule re-exported from its one home, csr/formats/qos-class.ts.
 */
export * from './prio-cap.ts';
export * from './custom-op.ts';
export {
  DMAQoSClass,
  type DMAQoSClassName,
  MAX_PRIORITY_CLASS,
  isDMAQoSClass,
  parseQoSClass,
  qosClassName,
  toPriorityClass,
} from '../../csr/formats/qos-class.ts';
