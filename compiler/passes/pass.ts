/**
 * The pass contract: a pass has a name, its order number in the seeds' pipeline, and a `run` over
 * the module that reports counters, notes (the seeds' diagnostic lines) and errors through its
 * context. A pass never throws: it reports every error it finds and the pipeline stops after it.
 */
import { CompileError, type CompileErrorCode, type PassName } from '../errors.ts';
import { keepShape, keptShape } from '../../common/keep-shape.ts';
import { Module } from '../ir/module.ts';

export interface PassContext {
  readonly module: Module;
  readonly pass: PassName;
  /** Counters the pass reports (e.g. { stamped: 12, swdge: 3 }). */
  readonly counters: Record<string, number>;
  /** Diagnostic lines (the seeds' log strings). */
  readonly notes: string[];
  readonly errors: CompileError[];
  /** Reports an error and lets the pass continue (a failing pass lists all its errors). */
  error(subCode: CompileErrorCode, instruction: number | null, message: string): void;
}

/** Where a reported error goes (the route predicate reports through one of these). */
export type ErrorSink = (
  subCode: CompileErrorCode,
  instruction: number | null,
  message: string,
) => void;

export interface Pass {
  readonly name: PassName;
  /** The pass's order number in the seeds' backend pipeline, or null for nxdma's final verify. */
  readonly order: number | null;
  /** One line on what the pass does. */
  readonly summary: string;
  run(ctx: PassContext): void;
}

export interface PassReport {
  name: PassName;
  order: number | null;
  counters: Record<string, number>;
  notes: string[];
  errors: number;
}

/**
 * A pass's context. One class, so every pass's context has one object shape, which outlives each
 * compile (keepShape, below): the passes' walks stay optimized from one program to the next.
 */
class Context implements PassContext {
  readonly counters: Record<string, number> = {};
  readonly notes: string[] = [];
  readonly errors: CompileError[] = [];

  constructor(
    readonly module: Module,
    readonly pass: PassName,
  ) {}

  /** An ErrorSink of its own (passes hand it on detached). */
  readonly error = (
    subCode: CompileErrorCode,
    instruction: number | null,
    message: string,
  ): void => {
    this.errors.push(new CompileError(subCode, this.pass, instruction, message));
  };
}

export function makeContext(module: Module, pass: PassName): PassContext {
  // one context over an empty module
  keepShape(Context, () => new Context(new Module('', module.arch, module.options), pass));
  return new Context(module, pass);
}

/** Pass-state classes keep their object shape across compiles (common/keep-shape.ts). */
export { keepShape, keptShape };

/** Names an instruction in messages: `#12 (save_t0)` or `#12`. */
export function instLabel(m: Module, id: number): string {
  const n = m.instrs[id]?.name;
  return n ? `#${id} (${n})` : `#${id}`;
}
