import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineType, InstructionType } from '../../../compiler/ir/enums.ts';
import type { Instr } from '../../../compiler/ir/module.ts';
import {
  assignIdsAndCcLocs,
  assignTriggerEngine,
  forEachWritten,
  latestWriterBefore,
} from '../../../compiler/passes/assign-trigger-engine.ts';
import { allocQueues } from '../../../compiler/passes/alloc-queues.ts';
import { dynamicDmaScan } from '../../../compiler/passes/dynamic-dma-scan.ts';
import { makeContext } from '../../../compiler/passes/pass.ts';
import { fixture, inst, load, runPasses, save, tile } from '../helpers.ts';

function run(m: ReturnType<ReturnType<typeof fixture>['build']>) {
  const ctx = makeContext(m, 'assign_trigger_engine');
  assignTriggerEngine.run(ctx);
  return ctx;
}

describe('assign_trigger_engine', () => {
  it('only DMAs on EngineType::DMA (4) are re-homed', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { reads: ['s0'], writes: ['s0'] })
      .save({ ...save('s0', 'h'), name: 'on_dma' })
      .save({ ...save('s0', 'h2'), name: 'on_pool', engine: 'Pool', subId: 3 });
    const m = b.build();
    run(m);
    expect(inst(m, 'on_dma').engine).toBe(EngineType.Activation);
    expect([inst(m, 'on_pool').engine, inst(m, 'on_pool').subId]).toEqual([EngineType.Pool, 3]);
  });

  it('trigger follows producer: a save takes the engine and sub id of the latest earlier writer of its source', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { reads: ['s1'], writes: ['s0'], subId: 1 })
      .compute('TensorTensor', { reads: ['s0'], writes: ['s0'], subId: 2, name: 'last_writer' })
      .save({ ...save('s0', 'h'), name: 'sv' })
      .compute('Matmult', { writes: ['s0'] }); // a later writer does not count
    const m = b.build();
    const ctx = run(m);
    expect([inst(m, 'sv').engine, inst(m, 'sv').subId]).toEqual([EngineType.DVE, 2]);
    expect(ctx.counters.assignedToProducer).toBe(1);
  });

  it('a DMA writer counts as a producer too', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('s0'), engine: 'SP', subId: 4 })
      .save({ ...save('s0', 'h'), name: 'sv' });
    const m = b.build();
    run(m);
    expect([inst(m, 'sv').engine, inst(m, 'sv').subId]).toEqual([EngineType.SP, 4]);
  });

  it('writers are block-local: a writer in an earlier block is not used', () => {
    const b = fixture();
    const f = b.function('main');
    f.block('a').compute('Activation', { writes: ['s0'] });
    f.block('b').save({ ...save('s0', 'h'), name: 'sv' });
    const m = b.build();
    const ctx = run(m);
    expect(inst(m, 'sv').engine).toBe(EngineType.DMA);
    expect(ctx.counters.noEarlierWriter).toBe(1);
  });

  it('a save with no earlier writer in its block keeps its engine', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .save({ ...save('s0', 'h'), name: 'sv' })
      .compute('Activation', { writes: ['s0'] });
    const m = b.build();
    run(m);
    expect(inst(m, 'sv').engine).toBe(EngineType.DMA);
  });

  it('a save to a graph output tensor is not given its producer engine', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { writes: ['s0'] })
      .save({ ...save('s0', 'out'), name: 'to_out' })
      .save({ ...save('s0', 'io'), name: 'to_io' })
      .save({ ...save('s0', 'h'), name: 'to_h' });
    const m = b.build();
    run(m);
    expect(inst(m, 'to_out').engine).toBe(EngineType.DMA);
    expect(inst(m, 'to_io').engine).toBe(EngineType.DMA);
    expect(inst(m, 'to_h').engine).toBe(EngineType.Activation);
  });

  it('direction filter: only on-chip -> DRAM saves and copies follow the producer', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { writes: ['s0', 'h'] })
      .copy({ src: tile('s0'), dst: tile('s1'), name: 'sb_to_sb' })
      .copy({ src: tile('h'), dst: tile('h2'), name: 'dram_to_dram' })
      .copy({ src: tile('s0'), dst: tile('h2'), name: 'sb_to_dram' });
    const m = b.build();
    run(m);
    expect(inst(m, 'sb_to_sb').engine).toBe(EngineType.DMA);
    expect(inst(m, 'dram_to_dram').engine).toBe(EngineType.DMA);
    expect(inst(m, 'sb_to_dram').engine).toBe(EngineType.Activation);
  });

  it('CC-engine path: a Load or DMACopy touching a collective argument or result takes the collective engine', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('c0'), name: 'feed' }) // feeds a collective that comes later in the block
      .collective({ engine: 'Activation', subId: 5, args: ['c0'], results: ['c1'], name: 'cc' })
      .copy({ src: tile('c1'), dst: tile('s0'), name: 'drain' })
      .load({ ...load('s2'), name: 'plain' });
    const m = b.build();
    const ctx = run(m);
    expect(inst(m, 'feed').engine).toBe(EngineType.Activation);
    expect(inst(m, 'drain').engine).toBe(EngineType.Activation);
    expect(inst(m, 'drain').subId).toBe(5); // engine and sub id: one 64-bit store
    expect(inst(m, 'plain').engine).toBe(EngineType.DMA); // the load -> consumer arm is unreachable
    expect(ctx.counters.movedToCC).toBe(2);
    expect(ctx.notes[0]).toBe("Moved 2 DMA instructions to CC's engines.");
  });

  it('CC-engine path: inst[+0x90] = cc[+0x90] is one 64-bit store (engine and sub id), so the DMA and the CC op share an engine queue', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('c0'), name: 'feed' })
      .collective({ engine: 'DVE', subId: 1, args: ['c0'], results: ['c1'], name: 'cc' })
      .load({ ...load('s1'), engine: 'DVE', subId: 1, name: 'on_dve1' });
    const m = b.build();
    expect(runPasses(m, [assignTriggerEngine, allocQueues])).toEqual([]);
    expect([inst(m, 'feed').engine, inst(m, 'feed').subId]).toEqual([EngineType.DVE, 1]);
    const q = inst(m, 'feed').queue!;
    expect([q.engine, q.subId]).toEqual([EngineType.DVE, 1]);
    expect(q).toBe(inst(m, 'on_dve1').queue); // the collective's engine queue
  });

  it('saves are never sent down the collective path', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Iota', { writes: ['c1'] })
      .collective({ engine: 'Activation', args: ['c0'], results: ['c1'] })
      .save({ src: tile('c1'), dst: tile('h'), name: 'sv' });
    const m = b.build();
    run(m);
    expect(inst(m, 'sv').engine).toBe(EngineType.Activation); // the collective wrote c1 last: producer path
    const b2 = fixture();
    b2.function('main')
      .block('e')
      .collective({ engine: 'Activation', args: ['c0'], results: ['c1'] })
      .compute('Iota', { writes: ['c1'] })
      .save({ src: tile('c1'), dst: tile('h'), name: 'sv' });
    const m2 = b2.build();
    run(m2);
    expect(inst(m2, 'sv').engine).toBe(EngineType.Pool); // latest writer is the Iota, not the collective
  });

  it('IO-queue limiting: with HWDGE DMAs on more than one engine, non-HWDGE IO DMAs move to SP (sub id 0)', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('s0'), dgeType: 'HWDGE', engine: 'Activation', name: 'hw_act' })
      .load({
        ...load('s1', {}, 'in', 128),
        dgeType: 'HWDGE',
        engine: 'SP',
        subId: 2,
        name: 'hw_sp',
      })
      .load({ ...load('s2', {}, 'w'), engine: 'DVE', subId: 7, name: 'io_dve' })
      .save({ ...save('s3', 'out'), name: 'io_out' })
      .save({ ...save('s3', 'h'), name: 'not_io', engine: 'Pool' });
    const m = b.build();
    const ctx = run(m);
    expect(ctx.counters.hwdgeEngines).toBe(2);
    expect(ctx.notes).toContain('Limiting IO queue to SP only');
    expect([inst(m, 'io_dve').engine, inst(m, 'io_dve').subId]).toEqual([EngineType.SP, 0]);
    expect(inst(m, 'io_out').engine).toBe(EngineType.SP);
    expect(inst(m, 'not_io').engine).toBe(EngineType.Pool);
    // HWDGE DMAs with an engine are left alone
    expect(inst(m, 'hw_act').engine).toBe(EngineType.Activation);
    expect([inst(m, 'hw_sp').engine, inst(m, 'hw_sp').subId]).toEqual([EngineType.SP, 2]);
  });

  it('IO-queue limiting: one HWDGE engine does not limit; the module flag forces it', () => {
    for (const [limit, expected] of [
      [false, EngineType.DVE],
      [true, EngineType.SP],
    ] as const) {
      const b = fixture(30, { limitIoQueues: limit });
      b.function('main')
        .block('e')
        .load({ ...load('s0'), dgeType: 'HWDGE', engine: 'Activation' })
        .load({ ...load('s2', {}, 'w'), engine: 'DVE', name: 'io' });
      const m = b.build();
      run(m);
      expect(inst(m, 'io').engine).toBe(expected);
    }
  });

  it('IO-queue limiting leaves an HWDGE DMA without an engine (bare DMA) to be moved like any IO DMA', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load('s0'), dgeType: 'HWDGE', engine: 'Activation' })
      .load({ ...load('s1'), dgeType: 'HWDGE', engine: 'Pool' })
      .save({ ...save('s2', 'out'), dgeType: 'HWDGE', name: 'hw_bare' });
    const m = b.build();
    run(m);
    expect(inst(m, 'hw_bare').engine).toBe(EngineType.SP);
  });

  it('scheduled IDs and CC maps are built before any engine moves (every writer has an ID)', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { writes: ['s0'] })
      .collective({ args: ['c0'], results: ['c1'] });
    const m = b.build();
    const { idOf, cc } = assignIdsAndCcLocs(m);
    expect(Array.from(idOf)).toEqual([0, 1]);
    expect(cc.arg[m.tensorByName.get('c0')!.id]).toBe(m.instrs[1]);
    expect(cc.result[m.tensorByName.get('c1')!.id]).toBe(m.instrs[1]);
  });

  it('"has not assigned ID yet": a writer without a scheduled ID is reported', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .compute('Activation', { writes: ['s0'], name: 'w' })
      .save({ ...save('s0', 'h'), name: 'sv' });
    const m = b.build();
    const { idOf } = assignIdsAndCcLocs(m);
    idOf[inst(m, 'w').id] = -1;
    const errs: unknown[] = [];
    expect(
      latestWriterBefore(
        inst(m, 'sv'),
        [inst(m, 'w')],
        idOf,
        m,
        (c, i, msg) => void errs.push([c, i, msg]),
      ),
    ).toBeNull();
    expect(errs).toEqual([
      ['WRITER_WITHOUT_ID', inst(m, 'sv').id, '#0 (w) has not assigned ID yet'],
    ]);
  });

  it('the per-block last-writer walk selects the same producer as the seed getWritersFromBB scan', () => {
    const ops = ['Activation', 'TensorTensor', 'Iota', 'Matmult'] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ kind: fc.integer({ min: 0, max: 4 }), t: fc.integer({ min: 0, max: 2 }) }),
          { minLength: 1, maxLength: 30 },
        ),
        (steps) => {
          const b = fixture();
          const e = b.function('main').block('e');
          steps.forEach((s, k) => {
            if (s.kind < 4) e.compute(ops[s.kind], { writes: [`s${s.t}`], subId: k % 7 });
            else e.save({ ...save(`s${s.t}`, 'h'), name: `sv${k}` });
          });
          const m = b.build();
          const { idOf } = assignIdsAndCcLocs(m);
          const expected = new Map<Instr, [number, number]>();
          for (const I of m.instrs) {
            if (I.op !== InstructionType.Save) continue;
            const writers = m.instrs.filter((w) => {
              let hit = false;
              forEachWritten(w, (t) => (hit ||= t === I.src!.tensor));
              return hit;
            });
            const w = latestWriterBefore(I, writers, idOf, m, () => {});
            expected.set(I, w ? [w.engine, w.subId] : [EngineType.DMA, 0]);
          }
          run(m);
          for (const [I, e2] of expected) expect([I.engine, I.subId]).toEqual(e2);
        },
      ),
      { seed: 110, numRuns: 150 },
    );
  });

  it('runs after dynamic_dma_scan: CheckLimitIOQueues sees the stamped routes', () => {
    const b = fixture(30, { dgeLevels: ['transpose'] });
    b.function('main').block('e').load(load());
    const m = b.build();
    expect(runPasses(m, [dynamicDmaScan, assignTriggerEngine])).toEqual([]);
  });
});
