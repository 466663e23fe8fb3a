/**
 * The pipeline: the passes of seeds 000, 001 and 003 in the seeds' order, and the compile entry
 * points. A pass that reports errors stops the pipeline; the thrown CompileError is the first of
 * them and lists them all. Nothing but CompileError (or, for a bad program, PROGRAM_INVALID from
 * the parser) leaves compile.
 */
import { CompileError, type PassName } from '../errors.ts';
import type { Module } from '../ir/module.ts';
import { type ToModuleOptions, parseProgram } from '../ir/to-module.ts';
import { allocQueues } from './alloc-queues.ts';
import { assignHwdgeEngine } from './assign-hwdge-engine.ts';
import { assignTriggerEngine } from './assign-trigger-engine.ts';
import { chainDmaTransposes } from './chain-dma-transposes.ts';
import { dynamicDmaCleanup, dynamicDmaCleanupVerify } from './dynamic-dma-cleanup.ts';
import { dynamicDmaScan } from './dynamic-dma-scan.ts';
import { dynamicDmaSetup } from './dynamic-dma-setup.ts';
import { insertDmaSwitchQueueInstance } from './insert-dma-switch-queue-instance.ts';
import { keepIrShapes } from './kept-shapes.ts';
import { type Pass, type PassReport, makeContext } from './pass.ts';

/**
 * The seeds' order (seed 001 D-H17 sub-sequence + seed 000/003 orders): setup 36, cleanup 71,
 * scan 73, assign_trigger_engine 110, assign_hwdge_engine 123, alloc_queues 124,
 * chain_dma_transposes 125, insert_dma_switch_queue_instance 126, then the cleanup's final verify.
 */
export const PIPELINE: readonly Pass[] = Object.freeze([
  dynamicDmaSetup,
  dynamicDmaCleanup,
  dynamicDmaScan,
  assignTriggerEngine,
  assignHwdgeEngine,
  allocQueues,
  chainDmaTransposes,
  insertDmaSwitchQueueInstance,
  dynamicDmaCleanupVerify,
]);

export interface CompileOptions {
  /** Passes to run, in order (default: PIPELINE). */
  passes?: readonly Pass[];
  /** Called after each pass (e.g. to sample memory). */
  onPass?: (report: PassReport) => void;
}

export interface CompileResult {
  /** The bound IR (the module, mutated in place). */
  module: Module;
  passes: PassReport[];
}

/** A CompileError thrown by compile carries the reports of the passes that ran. */
export type CompileFailure = CompileError & { passes?: PassReport[] };

/** Runs one pass; returns its report and its errors. Never throws. */
export function runPass(m: Module, pass: Pass): { report: PassReport; errors: CompileError[] } {
  const ctx = makeContext(m, pass.name);
  try {
    pass.run(ctx);
  } catch (e) {
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    ctx.errors.push(
      new CompileError('INTERNAL_ERROR', pass.name, null, `unexpected failure: ${msg}`),
    );
  }
  return {
    report: {
      name: pass.name,
      order: pass.order,
      counters: ctx.counters,
      notes: ctx.notes,
      errors: ctx.errors.length,
    },
    errors: ctx.errors,
  };
}

/**
 * Compiles a module in place: runs the passes in order. Throws CompileError (with `errors` and
 * `passes`) when a pass reports errors.
 */
export function compile(m: Module, opts: CompileOptions = {}): CompileResult {
  keepIrShapes((kept) => void compile(kept)); // once per process: the IR's shapes outlive programs
  const passes = opts.passes ?? PIPELINE;
  const reports: PassReport[] = [];
  for (const pass of passes) {
    const { report, errors } = runPass(m, pass);
    reports.push(report);
    opts.onPass?.(report);
    if (errors.length > 0) {
      const e = CompileError.fromList(errors) as CompileFailure;
      e.passes = reports;
      throw e;
    }
  }
  return { module: m, passes: reports };
}

/** Parses a program (JSON value) and compiles it. */
export function compileProgram(
  json: unknown,
  opts: CompileOptions & ToModuleOptions = {},
): CompileResult {
  return compile(parseProgram(json, opts), opts);
}

/** The pipeline's pass names in order. */
export function pipelinePassNames(): PassName[] {
  return PIPELINE.map((p) => p.name);
}
