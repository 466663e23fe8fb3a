/**
 * nxdma lowering: bound IR -> dge_shape, micro-op streams, 64-byte DGE descriptors and 16-byte
 * ring descriptors (seed 004 Part 1). docs/lowering.md describes it.
 *
 *   const low = lower(compileProgram(json).module);
 *   for (const q of low.queues) for (const d of q.dmas) d.streams, d.walks, d.descriptors
 */
export { lower } from './lower.ts';
export { RTL_NEST_DIMS, nestDepth } from './affine.ts';
export * from './types.ts';
export {
  BACKENDS,
  BACKEND_AVAILABILITY,
  BACKEND_DIMS,
  availabilityFor,
  hasRegwrite,
  selectBackend,
  type Backend,
  type BackendAvailability,
} from './backend.ts';
export {
  DGE_SHAPE_DEPTH,
  MAX_DIM_NUM,
  apShape,
  buildNest,
  canonicalize,
  depthOf,
  dgeShapeOf,
  splitNest,
  splitOuter,
  type DgeShape,
  type Nest,
  type NestLimits,
  type SideShape,
} from './shape.ts';
export {
  MEMCOPY_DMA_CFG,
  MEMCOPY_DMA_CFG_OFFSET,
  indirectMicroOps,
  nestDescriptors,
  nestMicroOps,
  type EmitContext,
} from './emit.ts';
export {
  countPieces,
  expandWalk,
  walkElements,
  walkOf,
  walkRanges,
  type AffineWalk,
  type GatherXposeWalk,
  type IndexValues,
  type IndirectWalk,
  type PieceSink,
  type Walk,
} from './expand.ts';
export { DescriptorStream } from './bds.ts';
export { DmaTable } from './table.ts';
