/**
 * keepShape: the pass-state classes keep one object each for the process's life, made once,
 * holding nothing of the programs compiled; the IR's shapes are kept by one small module of the
 * pipeline's own (kept-shapes.ts).
 */
import { describe, expect, it } from 'vitest';
import * as ir from '../../../compiler/ir/module.ts';
import { Module } from '../../../compiler/ir/module.ts';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { InstructionType } from '../../../compiler/ir/enums.ts';
import { AssignHWDGEEngineImpl } from '../../../compiler/passes/assign-hwdge-engine.ts';
import { RouteMemo } from '../../../compiler/passes/dge-route.ts';
import { keepShape, keptShape } from '../../../compiler/passes/pass.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { fixture, load, save } from '../helpers.ts';

/** A small program (a load and a save), compiled. */
function compiledSmall(): Module {
  const b = fixture();
  const bb = b.function('main').block('entry');
  bb.load(load('s0'));
  bb.save(save('s0', 'h'));
  const m = b.build();
  compile(m);
  return m;
}

describe('keepShape', () => {
  it('makes one object per class, once, and a construction inside `make` does not recurse', () => {
    let made = 0;
    class State {
      constructor() {
        keepShape(State, () => {
          made++;
          return new State();
        });
      }
    }
    const a = new State();
    const b = new State();
    expect(made).toBe(1);
    const kept = keptShape(State);
    expect(kept).toBeInstanceOf(State);
    expect(kept).not.toBe(a);
    expect(kept).not.toBe(b);
    keepShape(State, () => {
      throw new Error('made twice');
    });
  });

  it("the kept route memo and engine state hold none of the compiled programs' instructions", () => {
    for (let k = 0; k < 3; k++) {
      const m = compiledSmall();
      const memo = keptShape(RouteMemo);
      expect(memo).toBeInstanceOf(RouteMemo);
      const held = (memo as unknown as { m: Module }).m;
      expect(held).toBeInstanceOf(Module);
      expect(held).not.toBe(m);
      expect(held.instrs).toHaveLength(0);
      expect(held.tensors).toHaveLength(0);
      expect(held.blocks).toHaveLength(0);
      expect(keptShape(AssignHWDGEEngineImpl)).toBeInstanceOf(AssignHWDGEEngineImpl);
    }
  });

  it("the kept IR module is the pipeline's own compiled program, made once, holding none of the compiled programs' objects", () => {
    const compiled = [compiledSmall(), compiledSmall(), compiledSmall()];
    const kept = keptShape(Module)!;
    expect(kept).toBeInstanceOf(Module);
    expect(keptShape(Module)).toBe(kept);
    expect(kept.name).toBe('kept-shapes');
    for (const m of compiled) expect(kept).not.toBe(m);
    const mine = new Set<object>(compiled.flatMap((m) => [...m.instrs, ...m.tensors, ...m.queues]));
    const held: object[] = [...kept.instrs, ...kept.tensors, ...kept.regions, ...kept.queues];
    expect(held.some((o) => mine.has(o))).toBe(false);
    // an object of every IR class the passes walk, its instructions bound (the module compiled)
    expect(kept.functions[0]).toBeInstanceOf(ir.Func);
    expect(kept.blocks[0]).toBeInstanceOf(ir.Block);
    expect(kept.blocks.some((bb) => bb.isLoopBody)).toBe(true);
    expect(kept.instrs[0]).toBeInstanceOf(ir.Instr);
    expect(kept.instrs.some((I) => I.src instanceof AccessPattern)).toBe(true);
    expect(kept.tensors[0]).toBeInstanceOf(ir.Tensor);
    expect(kept.regions[0]).toBeInstanceOf(ir.Region);
    expect(kept.queues[0]).toBeInstanceOf(ir.DmaQueue);
    expect(kept.instrs.some((I) => I.op === InstructionType.SwitchQueueInstance)).toBe(true);
    expect(kept.edges.count).toBeGreaterThan(0);
  });
});
