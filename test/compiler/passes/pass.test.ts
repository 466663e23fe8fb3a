/**
 * keepShape: the pass-state classes keep one object each for the process's life, made once,
 * holding nothing of the programs compiled.
 */
import { describe, expect, it } from 'vitest';
import { Module } from '../../../compiler/ir/module.ts';
import { AssignHWDGEEngineImpl } from '../../../compiler/passes/assign-hwdge-engine.ts';
import { RouteMemo } from '../../../compiler/passes/dge-route.ts';
import { keepShape, keptShape } from '../../../compiler/passes/pass.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { fixture, load, save } from '../helpers.ts';

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
      const b = fixture();
      const bb = b.function('main').block('entry');
      bb.load(load('s0'));
      bb.save(save('s0', 'h'));
      const m = b.build();
      compile(m);
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
});
