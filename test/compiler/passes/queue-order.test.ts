import { describe, expect, it } from 'vitest';
import { DMAQueueType, EdgeKind, EngineType, InstructionType } from '../../../compiler/ir/enums.ts';
import type { Module } from '../../../compiler/ir/module.ts';
import { allocQueues } from '../../../compiler/passes/alloc-queues.ts';
import { chainDmaTransposes } from '../../../compiler/passes/chain-dma-transposes.ts';
import {
  insertDmaSwitchQueueInstance,
  makeSwitchQueueInstance,
  placeAtFront,
} from '../../../compiler/passes/insert-dma-switch-queue-instance.ts';
import { makeContext } from '../../../compiler/passes/pass.ts';
import { fixture, inst, load, runPasses, save, tile, tile16, tile16T } from '../helpers.ts';

const deps = (m: Module, name: string) =>
  (inst(m, name).deps ?? []).map((d) => [m.instrs[d.on].name, d.kind]);
const xpose = (src: string, dst: string, name: string, extra = {}) => ({
  src: tile16T(src),
  dst: tile16(dst),
  transpose: 'xbar' as const,
  name,
  ...extra,
});

describe('chain_dma_transposes', () => {
  it('links consecutive same-queue transposes with an Output edge', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .copy(xpose('b0', 'b1', 't1'))
      .copy(xpose('b1', 'b2', 't2'))
      .copy(xpose('b2', 'b3', 't3'));
    const m = b.build();
    expect(runPasses(m, [allocQueues, chainDmaTransposes])).toEqual([]);
    expect(deps(m, 't1')).toEqual([]);
    expect(deps(m, 't2')).toEqual([['t1', EdgeKind.Output]]);
    expect(deps(m, 't3')).toEqual([['t2', EdgeKind.Output]]);
  });

  it('does not link the first two transposes when they are on different queues (prose over pseudo-code)', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .copy(xpose('b0', 'b1', 'q1_a', { qos: 'P1' }))
      .copy(xpose('b1', 'b2', 'q2_a', { qos: 'P2' }))
      .copy(xpose('b2', 'b3', 'q1_b', { qos: 'P1' }))
      .copy(xpose('b3', 'b0', 'q1_c', { qos: 'P1' }));
    const m = b.build();
    runPasses(m, [allocQueues, chainDmaTransposes]);
    expect(inst(m, 'q1_a').queue).not.toBe(inst(m, 'q2_a').queue);
    expect(deps(m, 'q2_a')).toEqual([]);
    // a later same-queue transpose is linked, across the other queue's transpose in between
    expect(deps(m, 'q1_b')).toEqual([['q1_a', EdgeKind.Output]]);
    expect(deps(m, 'q1_c')).toEqual([['q1_b', EdgeKind.Output]]);
  });

  it('chains are per basic block; non-transpose DMAs are not chained', () => {
    const b = fixture();
    const f = b.function('main');
    f.block('a')
      .copy(xpose('b0', 'b1', 'x1'))
      .copy({ src: tile16('b2'), dst: tile16('b3'), name: 'plain' });
    f.block('b').copy(xpose('b1', 'b2', 'x2'));
    const m = b.build();
    const ctx = makeContext(m, 'chain_dma_transposes');
    runPasses(m, [allocQueues]);
    chainDmaTransposes.run(ctx);
    expect(deps(m, 'x2')).toEqual([]);
    expect(deps(m, 'plain')).toEqual([]);
    expect(ctx.counters).toMatchObject({ transposes: 2, chainEdges: 0 });
  });

  it('xbar ordering in both directions: transpose after collective / push, collective / push after transpose', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .collective({ name: 'cc1', args: ['c0'], results: ['s0'] }) // SB-destination collective
      .copy(xpose('b0', 'b1', 'x1'))
      .copy({ src: tile16('b1'), dst: tile16('remote'), name: 'push1' })
      .collective({ name: 'cc2', args: ['c0'], results: ['c1'] })
      .copy(xpose('b1', 'b2', 'x2'))
      .copy(xpose('b2', 'b3', 'x3'));
    const m = b.build();
    const ctx = makeContext(m, 'chain_dma_transposes');
    runPasses(m, [allocQueues]);
    chainDmaTransposes.run(ctx);
    expect(deps(m, 'x1')).toEqual([['cc1', EdgeKind.Ordered]]); // xbar transpose after an SB collective
    expect(deps(m, 'push1')).toEqual([['x1', EdgeKind.Ordered]]); // sb DMA after xbar transpose
    expect(deps(m, 'cc2')).toEqual([['x1', EdgeKind.Ordered]]); // sb collective after xbar transpose
    expect(deps(m, 'x2')).toEqual([
      ['x1', EdgeKind.Output],
      ['cc2', EdgeKind.Ordered],
      ['push1', EdgeKind.Ordered],
    ]);
    // the latches were reset by x2: x3 only chains on its queue
    expect(deps(m, 'x3')).toEqual([['x2', EdgeKind.Output]]);
    expect(
      ctx.notes.some((n) =>
        n.startsWith('[xbar-transpose] Adding dependency: sb DMA -> xbar transpose'),
      ),
    ).toBe(true);
  });

  it('xbar ordering needs the xbar (ArchLevel > 29); a block without xbar transposes is skipped', () => {
    const b = fixture(20);
    const f = b.function('main');
    f.block('a')
      .collective({ args: ['c0'], results: ['s0'] })
      .copy(xpose('b0', 'b1', 'x1'));
    const m = b.build();
    runPasses(m, [allocQueues, chainDmaTransposes]);
    expect(deps(m, 'x1')).toEqual([]);
    const b2 = fixture(30);
    b2.function('main')
      .block('a')
      .collective({ args: ['c0'], results: ['s0'] })
      .copy({ src: tile16('b0'), dst: tile16('remote') });
    const m2 = b2.build();
    const ctx = makeContext(m2, 'chain_dma_transposes');
    chainDmaTransposes.run(ctx);
    expect(ctx.counters.skippedBlocks).toBe(1);
  });

  it('ChainDMATransposes::run gate (Func->[0xAC] == 0x1D) sits above both sub-passes: no local chain at ArchLevel <= 29', () => {
    for (const arch of [20, 30] as const) {
      const b = fixture(arch);
      b.function('main')
        .block('e')
        .load({ src: tile16T('hb'), dst: tile16('b0'), transpose: 'dma', name: 'l1' })
        .load({ src: tile16T('hb'), dst: tile16('b1'), transpose: 'dma', name: 'l2' });
      const m = b.build();
      const ctx = makeContext(m, 'chain_dma_transposes');
      runPasses(m, [allocQueues]);
      chainDmaTransposes.run(ctx);
      expect(inst(m, 'l1').queue).toBe(inst(m, 'l2').queue);
      if (arch === 20) {
        expect(deps(m, 'l2')).toEqual([]);
        expect(ctx.counters).toMatchObject({ gated: 1, transposes: 0, chainEdges: 0 });
      } else {
        expect(deps(m, 'l2')).toEqual([['l1', EdgeKind.Output]]);
        expect(ctx.counters).toMatchObject({ gated: 0, transposes: 2, chainEdges: 1 });
      }
    }
  });

  it('addDependency keeps the stronger edge kind', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .copy(xpose('b0', 'b1', 'x1'))
      .copy(xpose('b1', 'b2', 'x2', { deps: [{ on: 'x1', kind: 'Flow' }] }));
    const m = b.build();
    runPasses(m, [allocQueues, chainDmaTransposes]);
    expect(deps(m, 'x2')).toEqual([['x1', EdgeKind.Flow]]);
    inst(m, 'x2').addDependency(inst(m, 'x1').id, EdgeKind.Anti);
    expect(deps(m, 'x2')).toEqual([['x1', EdgeKind.Flow]]);
  });
});

describe('insert_dma_switch_queue_instance', () => {
  it('one SwitchQueueInstance per DATA queue at the front of every non-loop block, in first-use order', () => {
    const b = fixture();
    const f = b.function('main');
    f.block('a')
      .load({ ...load(), name: 'io' }) // input queue: no switch
      .copy({ src: tile('s0'), dst: tile('s1'), engine: 'DVE', name: 'dve' })
      .copy({ src: tile('s1'), dst: tile('s2'), engine: 'Activation', name: 'act' })
      .copy({ src: tile('s2'), dst: tile('s3'), engine: 'DVE', name: 'dve2' });
    f.block('loop', { loop: { iterations: 3 } }).copy({
      src: tile('s0'),
      dst: tile('s1'),
      engine: 'DVE',
    });
    f.block('c').copy({ src: tile('s0'), dst: tile('s1'), engine: 'DVE', name: 'dve3' });
    const m = b.build();
    const ctx = makeContext(m, 'insert_dma_switch_queue_instance');
    runPasses(m, [allocQueues]);
    insertDmaSwitchQueueInstance.run(ctx);
    const [a, loop, c] = m.blocks;
    const sqis = a.instrs.slice(0, 2);
    expect(sqis.map((i) => i.op)).toEqual([
      InstructionType.SwitchQueueInstance,
      InstructionType.SwitchQueueInstance,
    ]);
    expect(sqis.map((i) => i.queue)).toEqual([inst(m, 'dve').queue, inst(m, 'act').queue]);
    expect(a.instrs.slice(2).map((i) => i.name)).toEqual(['io', 'dve', 'act', 'dve2']);
    expect(loop.instrs.some((i) => i.op === InstructionType.SwitchQueueInstance)).toBe(false);
    expect(c.instrs[0].op).toBe(InstructionType.SwitchQueueInstance);
    expect(ctx.counters).toMatchObject({ inserted: 3, blocks: 2, loopBodiesSkipped: 1 });
  });

  it("places the switches in the block's own array (no copy of the block)", () => {
    const b = fixture();
    b.function('main')
      .block('a')
      .copy({ src: tile('s0'), dst: tile('s1'), engine: 'DVE', name: 'dve' })
      .copy({ src: tile('s1'), dst: tile('s2'), engine: 'Activation', name: 'act' });
    const m = b.build();
    runPasses(m, [allocQueues]);
    const before = m.blocks[0].instrs;
    runPasses(m, [insertDmaSwitchQueueInstance]);
    expect(m.blocks[0].instrs).toBe(before);
    expect(before.map((i) => i.name)).toEqual(['a_q0_sqi', 'a_q1_sqi', 'dve', 'act']);
  });

  it('placeAtFront keeps the order of both lists', () => {
    const b = fixture();
    const e = b.function('main').block('a');
    for (let k = 0; k < 5; k++) e.copy({ src: tile('s0'), dst: tile('s1'), name: `c${k}` });
    const m = b.build();
    const [c0, c1, c2, c3, c4] = m.instrs;
    const list = [c2, c3, c4];
    placeAtFront(list, [c0, c1]);
    expect(list).toEqual([c0, c1, c2, c3, c4]);
    placeAtFront(list, []);
    expect(list).toHaveLength(5);
    const empty: typeof list = [];
    placeAtFront(empty, [c4]);
    expect(empty).toEqual([c4]);
    // a front longer than one slice of the move
    const long = Array.from({ length: 10_000 }, (_, k) => m.instrs[k % 5]);
    const into = [c0, c1];
    placeAtFront(into, long);
    expect(into).toEqual([...long, c0, c1]);
  });

  it('the switch carries {Q, Instance}: the queue, its engine, and a fresh instance per block', () => {
    const b = fixture();
    const f = b.function('main');
    f.block('a').copy({ src: tile('s0'), dst: tile('s1'), engine: 'DVE', subId: 2 });
    f.block('b').copy({ src: tile('s0'), dst: tile('s1'), engine: 'DVE', subId: 2 });
    const m = b.build();
    runPasses(m, [allocQueues, insertDmaSwitchQueueInstance]);
    const q = m.queues[0];
    const [s1, s2] = [m.blocks[0].instrs[0], m.blocks[1].instrs[0]];
    expect([s1.queue, s2.queue]).toEqual([q, q]);
    expect([s1.instance, s2.instance]).toEqual([0, 1]);
    expect(q.instances).toBe(2);
    expect([s1.engine, s1.subId, s1.queueType]).toEqual([EngineType.DVE, 2, DMAQueueType.data]);
    expect(s1.block).toBe(m.blocks[0]);
  });

  it('queue->getType() == DMAQueue::Type::DATA is asserted on the switch', () => {
    const b = fixture();
    b.function('main').block('a').load(load());
    const m = b.build();
    runPasses(m, [allocQueues]);
    const errs: string[] = [];
    expect(
      makeSwitchQueueInstance(m, m.blocks[0], m.queues[0], (c) => void errs.push(c)),
    ).toBeNull();
    expect(errs).toEqual(['SWITCH_QUEUE_NOT_DATA']);
  });

  it('a block whose queues are all IO gets no switch', () => {
    const b = fixture();
    b.function('main').block('a').load(load()).save(save('s0', 'out'));
    const m = b.build();
    runPasses(m, [allocQueues, insertDmaSwitchQueueInstance]);
    expect(m.blocks[0].instrs.length).toBe(2);
  });
});
