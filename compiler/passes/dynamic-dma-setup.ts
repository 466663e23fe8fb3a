/**
 * dynamic_dma_setup (seed 001, pipeline order 36): reserves the SB scratch location
 * "DynamicDMAScratchLoc" the descriptor lowering stages dynamically generated descriptors into.
 * A pre-linker pass: the module must have exactly one function.
 */
import { MemoryType } from '../ir/enums.ts';
import type { Pass, PassContext } from './pass.ts';

export const dynamicDmaSetup: Pass = {
  name: 'dynamic_dma_setup',
  order: 36,
  summary: 'reserve the SB scratch location DynamicDMAScratchLoc (pre-linker: one function)',
  run(ctx: PassContext): void {
    const m = ctx.module;
    // (1) pre-linker invariant: exactly one function
    if (m.functions.length !== 1) {
      ctx.error(
        'SETUP_NOT_PRE_LINKER',
        null,
        `this pass should run in pre-linker phase: the module has ${m.functions.length} functions, expected 1`,
      );
      return;
    }
    // (2) create the SB-space scratch location, (3) reserve it
    m.scratch = {
      name: 'DynamicDMAScratchLoc',
      memType: MemoryType.SB,
      sizePerPartition: m.options.dynamicDmaScratchSizePerPartition,
      allocated: true,
    };
    ctx.counters.scratchLocations = 1;
    ctx.counters.scratchBytesPerPartition = m.options.dynamicDmaScratchSizePerPartition;
  },
};
