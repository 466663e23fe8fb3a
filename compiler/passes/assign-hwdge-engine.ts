/**
 * assign_hwdge_engine (seed 000, pipeline order 123): makes the engine of every HWDGE Load / Save /
 * DMACopy a legal descriptor-generation engine. ValidEngines is [SP, Activation] for ArchLevel <= 49
 * and the target-supplied list (options.hwdgeEngines) for core_v5; fewer than two entries is fatal.
 * Per DMA (functions visited `main` first):
 *  - DGEType != HWDGE: untouched;
 *  - DMA kind 2 and (engine, sub id) already in ValidEngines: kept (the counter does not move);
 *  - arch <= 49: PE is an error; DMA / Unassigned / Pool -> ValidEngines[0] (SP);
 *    Activation / DVE -> ValidEngines[1] (Activation); SP stays;
 *  - arch >= 50: ValidEngines[counter++ % size] (round robin).
 * Writing the engine is what makes isHWDGEDMAWithEngineSet true.
 */
import {
  DGEType,
  DMAKind,
  ENGINE_TYPE_NAMES,
  EngineType,
  isKnownInstructionType,
} from '../ir/enums.ts';
import type { InstrColumns } from '../ir/columns.ts';
import type { Instr } from '../ir/module.ts';
import { isDGEOpcode } from '../ir/predicates.ts';
import { type EngineInfo, VALID_ENGINES_PRE_V5, isCoreV5 } from '../ir/target.ts';
import { type ErrorSink, type Pass, type PassContext, keepShape } from './pass.ts';

/** The ValidEngines vector the orchestrator builds from the module's ArchLevel. */
export function validEnginesFor(
  arch: number,
  coreV5Engines: readonly EngineInfo[],
): readonly EngineInfo[] {
  return isCoreV5(arch) ? coreV5Engines : VALID_ENGINES_PRE_V5;
}

/** AssignHWDGEEngineImpl state: ValidEngines, the arch and the round-robin counter (Impl+0x20). */
export class AssignHWDGEEngineImpl {
  counter = 0;
  kept = 0;
  assigned = 0;
  skipped = 0;
  constructor(
    readonly validEngines: readonly EngineInfo[],
    readonly arch: number,
    private readonly err: ErrorSink,
  ) {
    // the state's shape outlives each compile (keepShape)
    keepShape(AssignHWDGEEngineImpl, () => new AssignHWDGEEngineImpl(validEngines, arch, () => {}));
  }

  /** assignEngine(InstDMA&) @0x1180360. */
  assignEngine(dma: Instr): void {
    this.assignEngineAt(dma.cols, dma.id);
  }

  /** assignEngine on instruction `id`, read from and written to the instruction columns. */
  assignEngineAt(c: InstrColumns, id: number): void {
    if (c.dgeType[id] !== DGEType.HWDGE) {
      this.skipped++;
      return;
    }
    const valid = this.validEngines;
    if (c.dmaKind[id] === DMAKind.DGE) {
      for (const ei of valid) {
        if (ei.engine === c.engine[id] && ei.subId === c.subId[id]) {
          this.kept++;
          return; // already on a valid HW-DGE engine: keep it
        }
      }
    }
    if (!isCoreV5(this.arch)) {
      const cur = c.engine[id];
      if (cur === EngineType.PE) {
        this.err('DMA_ON_PE_ENGINE', id, `#${id}: InstDMA cannot be on PE engine`);
      } else if (cur === EngineType.DMA || cur <= EngineType.Pool) {
        this.set(c, id, valid[0]);
      } else if (cur === EngineType.Activation || cur === EngineType.DVE) {
        this.set(c, id, valid[1]);
      }
      // SP: already a descriptor-gen engine, left as it is
    } else {
      this.set(c, id, valid[this.counter++ % valid.length]);
    }
  }

  private set(c: InstrColumns, id: number, ei: EngineInfo): void {
    c.engine[id] = ei.engine; // the 8-byte EngineInfo store: engine and sub id
    c.subId[id] = ei.subId;
    this.assigned++;
  }
}

export const assignHwdgeEngine: Pass = {
  name: 'assign_hwdge_engine',
  order: 123,
  summary:
    'bind every HWDGE Load/Save/DMACopy to a descriptor-generation engine (SP/Activation or round robin)',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const valid = validEnginesFor(m.arch, m.options.hwdgeEngines);
    if (valid.length < 2) {
      ctx.error(
        'TOO_FEW_VALID_ENGINES',
        null,
        `Number of valid engines for HWDGE must be greater than or equal to 2 (got ${valid.length}: ${valid
          .map((e) => `${ENGINE_TYPE_NAMES[e.engine]}#${e.subId}`)
          .join(', ')})`,
      );
      return;
    }
    const impl = new AssignHWDGEEngineImpl(valid, m.arch, ctx.error);
    const c = m.columns;
    for (const f of m.functionsMainFirst()) {
      for (const bb of f.blocks) {
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          const op = c.op[id];
          if (isDGEOpcode(op)) impl.assignEngineAt(c, id);
          else if (op <= 32 && !isKnownInstructionType(op)) {
            ctx.error(
              'UNKNOWN_INSTRUCTION_TYPE',
              id,
              `#${id}: Unknown Instruction type encountered! (opcode ${op})`,
            );
          }
          // opcodes 33..127 are skipped
        }
      }
    }
    Object.assign(ctx.counters, {
      validEngines: valid.length,
      kept: impl.kept,
      assigned: impl.assigned,
      skipped: impl.skipped,
      roundRobin: isCoreV5(m.arch) ? impl.counter : 0,
    });
  },
};
