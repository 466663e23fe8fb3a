import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPILE_ERROR_CODES, CompileError } from '../../../compiler/errors.ts';
import { DGEType, EngineType } from '../../../compiler/ir/enums.ts';
import { isDMAFamily } from '../../../compiler/ir/predicates.ts';
import {
  PIPELINE,
  compile,
  compileProgram,
  type CompileFailure,
} from '../../../compiler/passes/pipeline.ts';
import type { Pass } from '../../../compiler/passes/pass.ts';
import { compileJson } from '../../../compiler/report.ts';
import { fixture, inst, load, save, thrown } from '../helpers.ts';

const EXAMPLES = new URL('../../../examples/programs/', import.meta.url);

describe('errors', () => {
  it('every CompileError sub-code has a test that expects it', () => {
    const dir = new URL('../', import.meta.url); // every test under test/compiler/
    const text = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts') && !f.endsWith('pipeline.test.ts'))
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n');
    const own = readFileSync(new URL('pipeline.test.ts', import.meta.url), 'utf8').replace(
      /describe\('errors'[\s\S]*?\n}\);/,
      '',
    );
    for (const code of Object.keys(COMPILE_ERROR_CODES)) {
      expect(text.includes(`'${code}'`) || own.includes(`'${code}'`), code).toBe(true);
    }
  });
});

describe('pipeline', () => {
  it("runs the passes in the seeds' order", () => {
    expect(PIPELINE.map((p) => [p.name, p.order])).toEqual([
      ['dynamic_dma_setup', 36],
      ['dynamic_dma_cleanup', 71],
      ['dynamic_dma_scan', 73],
      ['assign_trigger_engine', 110],
      ['assign_hwdge_engine', 123],
      ['alloc_queues', 124],
      ['chain_dma_transposes', 125],
      ['insert_dma_switch_queue_instance', 126],
      ['dynamic_dma_cleanup', null],
    ]);
  });

  it('every pass reports its counters', () => {
    const b = fixture(30, { dgeLevels: ['spill_reload'] });
    b.function('main')
      .block('e')
      .load(load())
      .compute('Activation', { writes: ['s0'] })
      .save(save('s0', 'h'));
    const r = compile(b.build());
    expect(r.passes.map((p) => p.name)).toEqual(PIPELINE.map((p) => p.name));
    for (const p of r.passes) expect(Object.keys(p.counters).length).toBeGreaterThan(0);
    expect(r.passes[2].counters).toMatchObject({ visited: 2, stamped: 2 });
  });

  it('a failing pass reports all its errors and stops the pipeline', () => {
    // HWDGE saves moved onto PE by trigger-follows-producer; assign_hwdge_engine rejects both
    const b = fixture(30);
    b.function('main')
      .block('e')
      .compute('Matmult', { writes: ['s0', 's1'] })
      .save({ ...save('s0', 'h'), name: 'a', dgeType: 'HWDGE' })
      .save({ ...save('s1', 'h2'), name: 'b', dgeType: 'HWDGE' });
    const m = b.build();
    const e = thrown(() => compile(m)) as CompileFailure;
    expect(e).toBeInstanceOf(CompileError);
    expect(e.code).toBe('COMPILE_ERROR');
    expect(e.subCode).toBe('DMA_ON_PE_ENGINE');
    expect(e.pass).toBe('assign_hwdge_engine');
    expect(e.errors.map((x) => x.instruction)).toEqual([inst(m, 'a').id, inst(m, 'b').id]);
    expect(e.passes!.map((p) => p.name).at(-1)).toBe('assign_hwdge_engine');
    expect(m.queues.length).toBe(0); // alloc_queues never ran
    expect(e.info()).toEqual({
      code: 'COMPILE_ERROR',
      subCode: 'DMA_ON_PE_ENGINE',
      pass: 'assign_hwdge_engine',
      instruction: inst(m, 'a').id,
      message: expect.stringContaining('InstDMA cannot be on PE engine'),
    });
  });

  it('an unexpected failure inside a pass comes out as a CompileError (INTERNAL_ERROR), never as anything else', () => {
    const broken: Pass = {
      name: 'alloc_queues',
      order: 124,
      summary: 'broken',
      run() {
        throw new TypeError('boom');
      },
    };
    const b = fixture();
    b.function('main').block('e').load(load());
    const e = thrown(() => compile(b.build(), { passes: [broken] })) as CompileError;
    expect(e).toBeInstanceOf(CompileError);
    expect([e.subCode, e.pass]).toEqual(['INTERNAL_ERROR', 'alloc_queues']);
    expect(e.message).toContain('TypeError: boom');
  });

  it('every example program compiles; every DMA ends bound to a queue', () => {
    for (const f of readdirSync(EXAMPLES).filter((x) => x.endsWith('.json'))) {
      const { module: m, passes } = compileProgram(
        JSON.parse(readFileSync(new URL(f, EXAMPLES), 'utf8')),
        { file: f },
      );
      for (const I of m.instrs) {
        if (!isDMAFamily(I.op)) continue;
        expect(I.queue, `${f} #${I.id}`).not.toBeNull();
        expect(I.dgeType).not.toBe(DGEType.Unassigned);
      }
      const json = compileJson(m, passes);
      expect(Object.keys(json)).toEqual([
        'arch',
        'instructions',
        'queues',
        'inserted',
        'passes',
        'errors',
      ]);
      expect(json.errors).toEqual([]);
    }
  });

  it('the examples show what they are named after', () => {
    const load_ = (n: string) =>
      compileProgram(JSON.parse(readFileSync(new URL(`${n}.json`, EXAMPLES), 'utf8')));
    const tiled = load_('tiled-load-save').module;
    expect(inst(tiled, 'save_h0').engine).toBe(EngineType.Activation);
    expect(inst(tiled, 'save_h1').engine).toBe(EngineType.DVE);
    const cc = load_('collective-cc').module;
    expect(inst(cc, 'load_grad').engine).toBe(EngineType.Pool);
    expect(inst(cc, 'drain_result').engine).toBe(EngineType.Pool);
    const xp = load_('transpose-chain').module;
    expect(
      inst(xp, 'xpose_3').deps!.some((d) => d.on === inst(xp, 'xpose_2').id && d.kind === 3),
    ).toBe(true);
    const dyn = load_('dynamic-offset').module;
    expect(inst(dyn, 'gather_rows').dgeType).toBe(DGEType.SWDGE);
    const qos = load_('qos-mix').module;
    expect(new Set(qos.queues.map((q) => q.qos)).size).toBe(4);
    expect(inst(qos, 'urgent_a').queue).toBe(inst(qos, 'urgent_b').queue);
  });

  it('the JSON report carries the CLI shape', () => {
    const b = fixture(30, { dgeLevels: ['transpose'] });
    const e = b.function('main').block('e');
    e.copy({
      src: { tensor: 's0', partition: [64, 128], free: [[1, 64]] },
      dst: { tensor: 's1', partition: [64, 128], free: [[1, 64]] },
      name: 'cp',
      engine: 'DVE',
    });
    const m = b.build();
    const j = compileJson(m, compile(m).passes);
    const cp = j.instructions.find((i) => i.name === 'cp')!;
    expect(cp).toMatchObject({
      op: 'DMACopy',
      engine: 'DVE',
      subId: 0,
      dgeType: 'None',
      eligible: ['None'],
      queueType: 'data',
    });
    expect(j.queues[0]).toMatchObject({
      name: cp.queue,
      type: 'data',
      engine: 'DVE',
      instructions: 1,
      instances: 1,
    });
    expect(j.inserted).toEqual([
      {
        id: expect.any(Number),
        op: 'SwitchQueueInstance',
        block: 'main/e',
        queue: cp.queue,
        instance: 0,
      },
    ]);
    expect(j.passes.map((p) => p.name)).toEqual(PIPELINE.map((p) => p.name));
  });
});
