/**
 * nxdma compiler front end: the public API.
 *
 *   const { module, passes } = compileProgram(json);       // or compile(parseProgram(json))
 *   for (const q of module.queues) ...                       // DmaQueue: name, type, engine, qos
 *   for (const I of module.instrs) ...                       // bound DMAs: engine, dgeType, queue
 */
export * from './ir/enums.ts';
export { AccessPattern, type ScalarOffset, type VectorOffset } from './ir/access-pattern.ts';
export {
  Block,
  DmaQueue,
  Func,
  Instr,
  Module,
  Region,
  Tensor,
  type Dep,
  type LoopInfo,
  type ModuleOptions,
  type ScratchLocation,
} from './ir/module.ts';
export * from './ir/predicates.ts';
export { TARGETS, type EngineInfo, type TargetParams } from './ir/target.ts';
export {
  PROGRAM_FORMAT,
  ProgramSchema,
  parseProgramShape,
  type Program,
  type ProgramInput,
  type AccessPatternInput,
  type InstructionInput,
} from './ir/program.ts';
export { parseProgram, toModule, type ToModuleOptions } from './ir/to-module.ts';
export {
  ProgramBuilder,
  BlockBuilder,
  FunctionBuilder,
  tileAP,
  type APArgs,
  type DmaArgs,
} from './ir/builder.ts';
export {
  CompileError,
  COMPILE_ERROR_CODES,
  isCompileError,
  type CompileErrorCode,
  type CompileErrorInfo,
  type PassName,
} from './errors.ts';
export {
  PIPELINE,
  compile,
  compileProgram,
  runPass,
  type CompileOptions,
  type CompileResult,
  type CompileFailure,
} from './passes/pipeline.ts';
export type { Pass, PassReport } from './passes/pass.ts';
export { compileJson, type CompileJson } from './report.ts';
export { walkInstructions, walkDmas, dmasByQueue } from './walk.ts';
