import { describe, expect, it } from 'vitest';
import {
  DGEType,
  DMAQoSClass,
  DMAQueueType,
  EngineType,
  TensorKind,
  type ArchLevel,
} from '../../../compiler/ir/enums.ts';
import type { Module } from '../../../compiler/ir/module.ts';
import {
  allocQueues,
  determineEngine,
  kind2QueType,
  queueFullName,
  type QueueTuple,
} from '../../../compiler/passes/alloc-queues.ts';
import { makeContext } from '../../../compiler/passes/pass.ts';
import { fixture, inst, load, save, tile } from '../helpers.ts';

function run(m: Module) {
  const ctx = makeContext(m, 'alloc_queues');
  allocQueues.run(ctx);
  return ctx;
}

describe('alloc_queues', () => {
  it('kind2QueType: 6, 7, 9 -> data; Input / InputOutput / Const -> input; Output -> output', () => {
    expect([TensorKind.Internal, TensorKind.Scratch, TensorKind.Spill].map(kind2QueType)).toEqual([
      2, 2, 2,
    ]);
    expect([TensorKind.Input, TensorKind.InputOutput, TensorKind.Const].map(kind2QueType)).toEqual([
      0, 0, 0,
    ]);
    expect(kind2QueType(TensorKind.Output)).toBe(DMAQueueType.output);
    expect(
      [TensorKind.Invalid, TensorKind.Pointer, TensorKind.Semaphore].map(kind2QueType),
    ).toEqual([-1, -1, -1]);
  });

  it('Unexpected tensor kind: a DMA whose endpoint is a Pointer or Semaphore tensor', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('s0', {}, 'ptr'), name: 'p' })
      .load({ ...load('s1', {}, 'sem'), name: 's' });
    const m = b.build();
    const ctx = run(m);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['UNEXPECTED_TENSOR_KIND', inst(m, 'p').id],
      ['UNEXPECTED_TENSOR_KIND', inst(m, 's').id],
    ]);
  });

  it('the queue endpoint is the DRAM side: loads are input queues, saves to outputs output queues, SB copies data', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'ld' })
      .save({ ...save('s0', 'out'), name: 'st' })
      .copy({ src: tile('s0'), dst: tile('s1'), name: 'cp' })
      .save({ ...save('s0', 'sp'), name: 'spill' });
    const m = b.build();
    run(m);
    expect(['ld', 'st', 'cp', 'spill'].map((n) => inst(m, n).queueType)).toEqual([
      DMAQueueType.input,
      DMAQueueType.output,
      DMAQueueType.data,
      DMAQueueType.data,
    ]);
  });

  it('QueueTuple value-identity dedup: equal full names share one queue object; queues = distinct names', () => {
    const b = fixture();
    const e = b.function('main').block('e');
    for (let k = 0; k < 6; k++)
      e.load({ ...load(`s${k % 4}`, { qos: k % 2 ? 'P1' : 'P5' }), name: `l${k}` });
    const m = b.build();
    const ctx = run(m);
    expect(m.queues.length).toBe(2);
    expect(ctx.counters).toMatchObject({ queues: 2, created: 2, queued: 6 });
    expect(inst(m, 'l0').queue).toBe(inst(m, 'l2').queue);
    expect(inst(m, 'l1').queue).toBe(inst(m, 'l5').queue);
    expect(inst(m, 'l0').queue).not.toBe(inst(m, 'l1').queue);
    expect(m.queues.map((q) => q.instructions)).toEqual([3, 3]);
    expect(new Set(m.instrs.map((i) => i.queue!.name)).size).toBe(m.queues.length);
  });

  it('QueueTuple full name: engine:sub/type/QoS/numDmaEngines/dmaEngines', () => {
    const t: QueueTuple = {
      engine: EngineType.SP,
      subId: 0,
      type: DMAQueueType.input,
      qos: DMAQoSClass.P3,
      numDmaEngines: 16,
      dmaEngines: 16,
    };
    expect(queueFullName(t)).toBe('SP:0/input/P3/16/16');
    expect(
      queueFullName({
        ...t,
        engine: EngineType.Activation,
        subId: 1,
        type: DMAQueueType.data,
        qos: DMAQoSClass.Default,
        dmaEngines: 4,
      }),
    ).toBe('Activation:1/data/Default/16/4');
  });

  it('the engine-count clamp: a requested fan-out is capped at numDmaEngines and keys the queue', () => {
    const b = fixture(30, { numDmaEngines: 8 });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'wide', dmaEngines: 64 })
      .load({ ...load('s1'), name: 'dflt' })
      .load({ ...load('s2'), name: 'narrow', dmaEngines: 2 });
    const m = b.build();
    run(m);
    expect(inst(m, 'wide').queue).toBe(inst(m, 'dflt').queue);
    expect(inst(m, 'wide').queue!.name).toBe('SP:0/input/Default/8/8');
    expect(inst(m, 'narrow').queue!.name).toBe('SP:0/input/Default/8/2');
  });

  it('Output and Const endpoints use the HWM engine count', () => {
    const b = fixture(30, { numDmaEngines: 8, hwmDmaEngines: 3 });
    b.function('main')
      .block('e')
      .load({ ...load('s0', {}, 'w'), name: 'const' })
      .load({ ...load('s1', {}, 'in'), name: 'input' })
      .save({ ...save('s0', 'out'), name: 'output' });
    const m = b.build();
    run(m);
    expect(inst(m, 'const').queue!.name).toBe('SP:0/input/Default/8/3');
    expect(inst(m, 'input').queue!.name).toBe('SP:0/input/Default/8/8');
    expect(inst(m, 'output').queue!.name).toBe('SP:0/output/Default/8/3');
  });

  it('determineEngine: a DMA still on EngineType::DMA -> SP; another engine keeps engine and sub id', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .save({ ...save('s0', 'h'), name: 'abstract' })
      .save({ ...save('s1', 'h'), name: 'act', engine: 'Activation', subId: 2 });
    const m = b.build();
    run(m);
    expect([inst(m, 'abstract').queue!.engine, inst(m, 'abstract').queue!.subId]).toEqual([
      EngineType.SP,
      0,
    ]);
    expect([inst(m, 'act').queue!.engine, inst(m, 'act').queue!.subId]).toEqual([
      EngineType.Activation,
      2,
    ]);
    expect(inst(m, 'act').engine).toBe(EngineType.Activation); // the trigger engine is not overwritten
  });

  it('determineEngine: SWDGE / HWDGE DMAs -> SP for ArchLevel <= 49, own engine on core_v5', () => {
    for (const [arch, expected] of [
      [30, EngineType.SP],
      [40, EngineType.SP],
      [50, EngineType.Activation],
    ] as [ArchLevel, number][]) {
      const b = fixture(arch);
      b.function('main')
        .block('e')
        .load({ ...load(), name: 'd', dgeType: 'HWDGE', engine: 'Activation', subId: 1 });
      const m = b.build();
      run(m);
      expect(inst(m, 'd').queue!.engine).toBe(expected);
    }
  });

  it('determineEngine: a dynamic-type tuple goes to Pool; an Unassigned engine is the reportError', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'd', engine: 'Unassigned' });
    const m = b.build();
    const t: QueueTuple = {
      engine: 0,
      subId: 0,
      type: DMAQueueType.dynamic,
      qos: 1,
      numDmaEngines: 16,
      dmaEngines: 16,
    };
    const d = inst(m, 'd');
    d.engine = EngineType.DVE;
    expect(determineEngine(d, t, 30, m, () => {})).toBe(true);
    expect(t.engine).toBe(EngineType.Pool);
    d.engine = EngineType.Unassigned;
    const ctx = run(m);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['NO_ENGINE_ASSIGNED', d.id],
    ]);
    expect(ctx.errors[0].message).toContain('engine assigned to');
  });

  it('an accumulating Activation finds (creates) a queue but is not bound to it', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { name: 'acc', reads: ['s0'], writes: ['h'], accumulate: true })
      .compute('Activation', { name: 'plain', reads: ['s0'], writes: ['h2'] });
    const m = b.build();
    const ctx = run(m);
    expect(m.queues.map((q) => q.name)).toEqual(['Activation:0/data/Default/16/16']);
    expect(m.queues[0].instructions).toBe(0);
    expect(inst(m, 'acc').queue).toBeNull();
    expect(ctx.counters.activationQueues).toBe(1);
  });

  it('gate: the DMA family only (a collective gets no queue); an already-queued DMA keeps its queue', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .collective({ name: 'cc', args: ['c0'], results: ['c1'] })
      .load({ ...load(), name: 'l' });
    const m = b.build();
    run(m);
    expect(inst(m, 'cc').queue).toBeNull();
    const q = inst(m, 'l').queue!;
    const ctx = run(m); // a second run
    expect(inst(m, 'l').queue).toBe(q);
    expect(ctx.counters).toMatchObject({ alreadyQueued: 1, created: 0 });
    expect(inst(m, 'l').dgeType).toBe(DGEType.Unassigned);
  });
});
