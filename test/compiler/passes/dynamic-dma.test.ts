import { describe, expect, it } from 'vitest';
import { DGEType, EngineType, MemoryType } from '../../../compiler/ir/enums.ts';
import {
  dynamicDmaCleanup,
  dynamicDmaCleanupVerify,
} from '../../../compiler/passes/dynamic-dma-cleanup.ts';
import { dynamicDmaScan } from '../../../compiler/passes/dynamic-dma-scan.ts';
import { dynamicDmaSetup } from '../../../compiler/passes/dynamic-dma-setup.ts';
import { makeContext } from '../../../compiler/passes/pass.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { fixture, inst, load, runPasses, save, tile16, tile16T } from '../helpers.ts';

const dyn = (value = 0) => ({
  ...load(),
  src: { ...load().src, dynamic: { scalar: { register: 'r2', value } } },
});

describe('dynamic_dma_setup', () => {
  it('reserves DynamicDMAScratchLoc in SB space, allocated', () => {
    const b = fixture(30, { dynamicDmaScratchSizePerPartition: 2048 });
    b.function('main').block('e').load(load());
    const m = b.build();
    expect(runPasses(m, [dynamicDmaSetup])).toEqual([]);
    expect(m.scratch).toEqual({
      name: 'DynamicDMAScratchLoc',
      memType: MemoryType.SB,
      sizePerPartition: 2048,
      allocated: true,
    });
  });

  it('this pass should run in pre-linker phase: exactly one function', () => {
    const b = fixture();
    b.function('main').block('e').load(load());
    b.function('helper').block('e').load(load());
    const m = b.build();
    const errs = runPasses(m, [dynamicDmaSetup]);
    expect(errs.map((e) => [e.subCode, e.pass, e.instruction])).toEqual([
      ['SETUP_NOT_PRE_LINKER', 'dynamic_dma_setup', null],
    ]);
    expect(m.scratch).toBeNull();
  });
});

describe('dynamic_dma_scan', () => {
  it('stamps the primary route on Unassigned DMAs only', () => {
    const b = fixture(30, { dgeLevels: ['spill_reload'] });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'u' })
      .load({ ...load('s1'), name: 'preset', dgeType: 'None' })
      .compute('Activation', { name: 'act', reads: ['s0'], writes: ['s0'] });
    const m = b.build();
    const ctx = makeContext(m, 'dynamic_dma_scan');
    dynamicDmaScan.run(ctx);
    expect(inst(m, 'u').dgeType).toBe(DGEType.SWDGE);
    expect(inst(m, 'preset').dgeType).toBe(DGEType.None);
    expect(inst(m, 'act').dgeType).toBe(DGEType.Unassigned); // not a DMA: untouched
    expect(ctx.counters).toMatchObject({ visited: 2, stamped: 1, alreadyRouted: 1, swdge: 1 });
  });

  it('is idempotent: a second run changes nothing', () => {
    const b = fixture(30, { dgeLevels: ['spill_reload', 'transpose', 'scalar_dynamic_offset'] });
    b.function('main')
      .block('e')
      .load(load())
      .copy({ src: tile16T('b0'), dst: tile16('b1'), transpose: 'xbar' })
      .load(dyn())
      .save(save('s0', 'h'));
    const m = b.build();
    runPasses(m, [dynamicDmaScan]);
    const first = m.instrs.map((i) => i.dgeType);
    const ctx = makeContext(m, 'dynamic_dma_scan');
    dynamicDmaScan.run(ctx);
    expect(m.instrs.map((i) => i.dgeType)).toEqual(first);
    expect(ctx.counters.stamped).toBe(0);
    expect(first).toEqual([DGEType.SWDGE, DGEType.HWDGE, DGEType.SWDGE, DGEType.None]);
  });

  it('!isDstReduceDGE: a destination-reduce DMACopy carrying a DGE route is an error', () => {
    const b = fixture(30, { dgeLevels: ['dst_reduce'] });
    b.function('main')
      .block('e')
      .copy({ ...load(), name: 'red', dstReduce: 'add', dgeType: 'SWDGE' })
      .copy({ ...load('s1'), name: 'red_static', dstReduce: 'add' });
    const m = b.build();
    const errs = runPasses(m, [dynamicDmaScan]);
    expect(errs.map((e) => [e.subCode, e.instruction])).toEqual([
      ['DST_REDUCE_DGE', inst(m, 'red').id],
    ]);
    expect(inst(m, 'red_static').dgeType).toBe(DGEType.None); // a reduce is not routed by the copy arm
  });

  it('visits main first', () => {
    const b = fixture(30, { dgeLevels: ['transpose'] });
    b.function('helper')
      .block('e')
      .load({ ...dyn(), name: 'in_helper' });
    b.function('main')
      .block('e')
      .load({ ...dyn(), name: 'in_main' });
    const m = b.build();
    const errs = runPasses(m, [dynamicDmaScan]);
    expect(errs.map((e) => e.instruction)).toEqual([
      inst(m, 'in_main').id,
      inst(m, 'in_helper').id,
    ]);
  });
});

describe('dynamic_dma_cleanup', () => {
  it('Input uses DGE but DGE is not enabled at Walrus; every route is stripped to None', () => {
    const b = fixture(30, { dgeEnabled: false });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'sw', dgeType: 'SWDGE' })
      .load({ ...load('s1'), name: 'un' })
      .save({ ...save(), name: 'hw', dgeType: 'HWDGE', engine: 'SP' });
    const m = b.build();
    const ctx = makeContext(m, 'dynamic_dma_cleanup');
    dynamicDmaCleanup.run(ctx);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['DGE_NOT_ENABLED', inst(m, 'sw').id],
      ['DGE_NOT_ENABLED', inst(m, 'hw').id],
    ]);
    expect(m.instrs.map((i) => i.dgeType)).toEqual([DGEType.None, DGEType.None, DGEType.None]);
    expect(ctx.counters.stripped).toBe(3);
  });

  it('with DGE disabled the scan has nothing left to stamp', () => {
    const b = fixture(30, { dgeEnabled: false, dgeLevels: ['spill_reload'] });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'l' });
    const m = b.build();
    expect(runPasses(m, [dynamicDmaCleanup, dynamicDmaScan])).toEqual([]);
    expect(inst(m, 'l').dgeType).toBe(DGEType.None);
  });

  it('route validity: a stamped route on a dynamic DMA must be eligible', () => {
    const b = fixture(20, { dgeLevels: ['scalar_dynamic_offset'] });
    b.function('main')
      .block('e')
      .load({ ...dyn(), name: 'hw_on_20', dgeType: 'HWDGE', engine: 'SP' })
      .load({ ...dyn(), name: 'sw_on_20', dgeType: 'SWDGE' })
      .load({ ...dyn(), name: 'unassigned' });
    const m = b.build();
    const errs = runPasses(m, [dynamicDmaCleanup]);
    expect(errs.map((e) => [e.subCode, e.instruction])).toEqual([
      ['DGE_ROUTE_INVALID', inst(m, 'hw_on_20').id],
    ]);
  });

  it('route validity: a dynamic DMA needs DGE (stripped to None, None is not eligible)', () => {
    const b = fixture(30, { dgeEnabled: false, dgeLevels: ['scalar_dynamic_offset'] });
    b.function('main')
      .block('e')
      .load({ ...dyn(), name: 'd' });
    const m = b.build();
    expect(runPasses(m, [dynamicDmaCleanup]).map((e) => e.subCode)).toEqual(['DGE_ROUTE_INVALID']);
  });

  it('cleanup (B): a NeuronAssertion in getDGEInstructionType is reported alone, without DGE_ROUTE_INVALID against the {None} fallback', () => {
    // a dynamic Load preset SWDGE with no scalar or vector DGE level enabled
    const b = fixture(30, { dgeLevels: ['spill_reload'] });
    b.function('main')
      .block('e')
      .load({ ...dyn(), name: 'no_level', dgeType: 'SWDGE' });
    const m = b.build();
    expect(runPasses(m, [dynamicDmaCleanup]).map((e) => [e.subCode, e.instruction])).toEqual([
      ['DYNAMIC_OFFSET_NOT_ENABLED', inst(m, 'no_level').id],
    ]);
    // the TensorIndirect assertion
    const b2 = fixture(30, { dgeLevels: ['scalar_dynamic_offset'] });
    b2.function('main')
      .block('e')
      .load({
        ...load(),
        src: { ...load().src, indirect: { indexTensor: 'idx' } },
        dst: { ...load().dst, dynamic: { scalar: { register: 'r2', value: 0 } } },
        name: 'indirect',
        dgeType: 'SWDGE',
      });
    const m2 = b2.build();
    expect(runPasses(m2, [dynamicDmaCleanup]).map((e) => e.subCode)).toEqual([
      'TENSOR_INDIRECT_AP',
    ]);
    // the dynamic-transpose-shape assertion (a vector-dynamic transpose of 4-byte elements)
    const b3 = fixture(30, { dgeLevels: ['vector_dynamic_offsets', 'transpose'] });
    b3.function('main')
      .block('e')
      .load({
        src: {
          tensor: 'in',
          partition: [1, 64],
          free: [[64, 128]],
          dynamic: { vector: { indexTensor: 'idx' } },
        },
        dst: { tensor: 's1', partition: [128, 64], free: [[1, 128]] },
        transpose: 'xbar',
        name: 'xpose',
        dgeType: 'SWDGE',
      });
    const m3 = b3.build();
    expect(runPasses(m3, [dynamicDmaCleanup]).map((e) => e.subCode)).toEqual([
      'DYNAMIC_TRANSPOSE_SHAPE',
    ]);
  });

  it('route validity: HWDGE preset on a dynamic DMA is accepted where HWDGE is eligible', () => {
    const b = fixture(30, { dgeLevels: ['scalar_dynamic_offset'] });
    b.function('main')
      .block('e')
      .load({ ...dyn(), dgeType: 'HWDGE', engine: 'Activation' });
    expect(runPasses(b.build(), [dynamicDmaCleanup])).toEqual([]);
  });

  it('SWDGE / HWDGE presets on opcodes 41-46 and 67: the scan and pass 123 skip them, cleanup checks (B) and (C) judge them', () => {
    const ops = [
      'AbstractCopy',
      'GenericLoad',
      'GenericSave',
      'IndirectLoad',
      'IndirectSave',
      'CollectiveDMA',
      'DMATrigger',
    ] as const;
    for (const op of ops) {
      // HWDGE preset, engine left on DMA: pass 123 does not bind it (a Load would go to SP), the
      // final verify does not check it (no engine set), alloc_queues puts it on SP's queue
      const b = fixture(30, { dgeLevels: ['scalar_dynamic_offset', 'spill_reload'] });
      b.function('main')
        .block('e')
        .dma(op, { ...load('s0'), dgeType: 'HWDGE', name: 'hw' })
        .load({ ...load('s1'), dgeType: 'HWDGE', name: 'ref' });
      const { module: m, passes } = compile(b.build());
      expect([inst(m, 'hw').dgeType, inst(m, 'hw').engine]).toEqual([
        DGEType.HWDGE,
        EngineType.DMA,
      ]);
      expect(inst(m, 'ref').engine).toBe(EngineType.SP);
      expect(passes.find((p) => p.name === 'assign_hwdge_engine')!.counters.assigned).toBe(1);
      expect(inst(m, 'hw').queue!.engine).toBe(EngineType.SP);

      // HWDGE preset on DVE: cleanup (C) rejects it
      const b2 = fixture(30, { dgeLevels: ['spill_reload'] });
      b2.function('main')
        .block('e')
        .dma(op, { ...load('s0'), dgeType: 'HWDGE', engine: 'DVE', name: 'hw_dve' });
      const m2 = b2.build();
      expect(runPasses(m2, [dynamicDmaCleanup]).map((e) => e.subCode)).toEqual([
        'HWDGE_ENGINE_INVALID',
      ]);

      // SWDGE preset on a dynamic DMA: the route predicate early-outs on opcodes above 32, so
      // cleanup (B) finds SWDGE outside the eligible {None}
      const b3 = fixture(30, { dgeLevels: ['scalar_dynamic_offset'] });
      b3.function('main')
        .block('e')
        .dma(op, { ...dyn(), dgeType: 'SWDGE', name: 'sw_dyn' });
      const m3 = b3.build();
      const errs3 = runPasses(m3, [dynamicDmaScan, dynamicDmaCleanup]);
      expect(errs3.map((e) => [e.subCode, e.message.includes('{None}')])).toEqual([
        ['DGE_ROUTE_INVALID', true],
      ]);
      expect(inst(m3, 'sw_dyn').dgeType).toBe(DGEType.SWDGE); // the scan re-stamps only Unassigned
    }
  });

  it('engine binding: an HWDGE DMA with an engine set must be on SP or Activation', () => {
    const b = fixture(30, { dgeLevels: ['spill_reload'] });
    const e = b.function('main').block('e');
    const engines = ['SP', 'Activation', 'DVE', 'Pool', 'PE', 'DMA'] as const;
    engines.forEach((engine, k) =>
      e.save({ ...save(`s${k % 4}`, 'h', {}, 0), name: engine, engine, dgeType: 'HWDGE' }),
    );
    const m = b.build();
    const errs = runPasses(m, [dynamicDmaCleanupVerify]);
    expect(errs.map((x) => m.instrs[x.instruction!].name)).toEqual(['DVE', 'Pool', 'PE']);
    expect(errs.every((x) => x.subCode === 'HWDGE_ENGINE_INVALID')).toBe(true);
    expect(inst(m, 'DMA').engine).toBe(EngineType.DMA); // bare DMA bit: no engine set, not checked
  });
});
