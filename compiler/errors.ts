/**
 * CompileError: every assertion and reportError of seeds 000, 001 and 003 becomes one of these,
 * with a stable sub-code, the pass that raised it and the instruction it concerns. A failing pass
 * reports all of its errors at once: the thrown CompileError is the first and carries the whole
 * list in `errors`. The compiler never throws anything else.
 */
import { NxdmaError } from '../common/errors.ts';

/** The specific sub-codes, each naming the seed assertion or reportError it stands for. */
export const COMPILE_ERROR_CODES = {
  // dynamic_dma_setup (seed 001)
  SETUP_NOT_PRE_LINKER:
    'dynamic_dma_setup: "this pass should run in pre-linker phase" (dynamic_dma.cpp:39/44): exactly one function',
  // dynamic_dma_scan (seed 001)
  DST_REDUCE_DGE: 'dynamic_dma_scan: assert !isDstReduceDGE(&I) (dynamic_dma.cpp:124)',
  // getDGEInstructionType and sub_1096280 (seed 001)
  TENSOR_INDIRECT_AP: '"DMA Instruction cannot have TensorIndirect AP" (utils.cpp:440)',
  DYNAMIC_TRANSPOSE_SHAPE: 'assert IsDynamicTransposeAPShapeSizeOk (utils.cpp:450)',
  DYNAMIC_OFFSET_NOT_ENABLED:
    '"DMA Instruction with dynamic AP must have Scalar/Vector Dynamic offset enabled" (utils.cpp:464)',
  DYNAMIC_FLAVOUR_UNKNOWN:
    '"DGE should be of type Scalar or Vector. This code should never be reached!"',
  COPY_AP_RANK_MISMATCH:
    'assert in.actualPattern.size() == out.actualPattern.size() (utils.cpp:150)',
  COPY_AP_NUM_MISMATCH:
    'assert in.actualPattern[i].getNum() == out.actualPattern[i].getNum() (utils.cpp:153)',
  COPY_CANONICAL_DIMS_MISMATCH: '"DMA Copy in/out canonical dimensions must match"',
  STRIDED_FREE_DIM_NOT_2D: '"strided Free dim AP should be at least 2D"',
  // dynamic_dma_cleanup (seed 001)
  DGE_NOT_ENABLED: '"Input uses DGE but DGE is not enabled at Walrus" (dynamic_dma.cpp:143)',
  DGE_ROUTE_INVALID:
    'assert validDGETypes.find(target_dge_type) != validDGETypes.end() (dynamic_dma.cpp:145)',
  HWDGE_ENGINE_INVALID:
    'assert CurEngine == EngineType::SP || CurEngine == EngineType::Activation (dynamic_dma.cpp:172, id 1698)',
  // assign_trigger_engine (seed 000)
  WRITER_WITHOUT_ID: '"... has not assigned ID yet" (assign_trigger_engine.cpp:147)',
  // assign_hwdge_engine (seed 000)
  TOO_FEW_VALID_ENGINES:
    '"Number of valid engines for HWDGE must be greater than or equal to 2" (assign_hwdge_engine.cpp:22)',
  UNKNOWN_INSTRUCTION_TYPE: 'llvm_unreachable("Unknown Instruction type encountered!")',
  DMA_ON_PE_ENGINE: '"InstDMA cannot be on PE engine"',
  // alloc_queues (seed 003)
  NO_ENGINE_ASSIGNED: 'determineEngine reportError: "...engine assigned to..."',
  UNEXPECTED_TENSOR_KIND: 'assert(0 && "Unexpected tensor kind") in kind2QueType',
  // insert_dma_switch_queue_instance (seed 003)
  SWITCH_QUEUE_NOT_DATA: 'assert queue->getType() == DMAQueue::Type::DATA',
  // the compiler itself
  INTERNAL_ERROR: 'an unexpected failure inside a pass (a compiler bug)',
} as const;
export type CompileErrorCode = keyof typeof COMPILE_ERROR_CODES;

/** The pass names of the pipeline, plus 'compile' for errors outside a pass. */
export type PassName =
  | 'dynamic_dma_setup'
  | 'dynamic_dma_cleanup'
  | 'dynamic_dma_scan'
  | 'assign_trigger_engine'
  | 'assign_hwdge_engine'
  | 'alloc_queues'
  | 'chain_dma_transposes'
  | 'insert_dma_switch_queue_instance';

export interface CompileErrorInfo {
  code: 'COMPILE_ERROR';
  subCode: CompileErrorCode;
  pass: PassName | 'compile';
  /** The instruction id, or null for a module-level error. */
  instruction: number | null;
  message: string;
}

export class CompileError extends NxdmaError {
  declare readonly code: 'COMPILE_ERROR';
  readonly subCode: CompileErrorCode;
  readonly pass: PassName | 'compile';
  readonly instruction: number | null;
  /** Every error the failing pass reported (this one first). */
  errors: readonly CompileError[];

  constructor(
    subCode: CompileErrorCode,
    pass: PassName | 'compile',
    instruction: number | null,
    message: string,
  ) {
    super('COMPILE_ERROR', `${pass}: ${message}`, {
      where: instruction === null ? pass : `${pass}, instruction ${instruction}`,
      expected: COMPILE_ERROR_CODES[subCode],
      subCode,
      pass,
      instruction,
    });
    this.name = 'CompileError';
    this.subCode = subCode;
    this.pass = pass;
    this.instruction = instruction;
    this.errors = [this];
  }

  /** The thrown form of a failing pass: the first error, carrying the whole list. */
  static fromList(errors: readonly CompileError[]): CompileError {
    const first = errors[0];
    first.errors = errors;
    return first;
  }

  info(): CompileErrorInfo {
    return {
      code: 'COMPILE_ERROR',
      subCode: this.subCode,
      pass: this.pass,
      instruction: this.instruction,
      message: this.message,
    };
  }
}

export function isCompileError(e: unknown): e is CompileError {
  return e instanceof CompileError;
}
