/**
 * The instruction columns and the blocks' id lists: an instruction's fields and its columns are
 * one record (the derived pattern and tensor-list columns follow what is set), and Block.ids
 * follows appends, front placements and any change made through the instruction array.
 */
import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { AP_DST, AP_DYNAMIC, hasDynamicAPAt } from '../../../compiler/ir/columns.ts';
import { DGEType, EngineType, InstructionType } from '../../../compiler/ir/enums.ts';
import { hasDynamicAP } from '../../../compiler/ir/predicates.ts';
import { fixture, inst, load } from '../helpers.ts';

function module3() {
  const b = fixture(30);
  b.function('main')
    .block('e')
    .load({ ...load(), name: 'a' })
    .compute('Activation', { name: 'act', reads: ['s0'], writes: ['s1', 's2'], accumulate: true })
    .load({ ...load('s1'), name: 'c' });
  return b.build();
}

describe('instruction columns', () => {
  it("an instruction's fields read and write its columns", () => {
    const m = module3();
    const a = inst(m, 'a');
    const c = m.columns;
    a.engine = EngineType.SP;
    a.subId = 7;
    a.dgeType = DGEType.HWDGE;
    expect([c.engine[a.id], c.subId[a.id], c.dgeType[a.id]]).toEqual([EngineType.SP, 7, 2]);
    c.engine[a.id] = EngineType.Activation;
    expect(a.engine).toBe(EngineType.Activation);
    expect(c.op[a.id]).toBe(InstructionType.Load);
    expect(c.srcTensor[a.id]).toBe(a.src!.tensor.id);
    expect(c.srcShape[a.id]).toBe(a.src!.shapeId);
    const act = inst(m, 'act');
    expect([c.write0[act.id], c.writes[act.id], c.reads[act.id]]).toEqual([
      m.tensorByName.get('s1')!.id,
      2,
      1,
    ]);
    expect(c.accumulate[act.id]).toBe(1);
    expect(Object.isFrozen(act.writes)).toBe(true);
    act.writes = [];
    expect([c.write0[act.id], c.writes[act.id]]).toEqual([-1, 0]);
  });

  it('a pattern set on an instruction sets its derived columns (its own isDynamic included)', () => {
    const m = module3();
    const a = inst(m, 'a');
    const s = a.src!;
    class DynamicSizeAP extends AccessPattern {
      override isDynamic(): boolean {
        return true;
      }
    }
    expect(hasDynamicAP(a)).toBe(false);
    a.src = new DynamicSizeAP(s.tensor, s.offset, s.partStep, s.partNum, s.free);
    expect(hasDynamicAP(a)).toBe(true);
    expect(m.columns.srcShape[a.id]).toBe(-1);
    a.src = s;
    a.dst = new DynamicSizeAP(s.tensor, s.offset, s.partStep, s.partNum, s.free);
    expect(m.columns.ap[a.id]).toBe(AP_DYNAMIC << AP_DST);
    expect(hasDynamicAPAt(m.columns, a.id)).toBe(true);
    a.dst = null;
    expect([m.columns.dstTensor[a.id], m.columns.ap[a.id]]).toEqual([-1, 0]);
  });

  it("an instruction's queue is one of its module's queues", () => {
    const m = module3();
    const other = module3();
    const q = other.addQueue('SP:0/input/Default/16/16', 0, EngineType.SP, 0, 1, 16, 16);
    expect(() => (inst(m, 'a').queue = q)).toThrow(/not a queue of this instruction's module/);
    expect(inst(m, 'a').queue).toBeNull();
  });
});

describe('Block.ids', () => {
  it('follows appends and front placements, and any change made through the instruction array', () => {
    const m = module3();
    const bb = m.blocks[0];
    const ids = () => Array.from(bb.ids());
    expect(ids()).toEqual([0, 1, 2]);
    const x = m.newInstr(InstructionType.SwitchQueueInstance, null, bb, EngineType.SP, 0, false);
    bb.placeAtFront([x]);
    expect(ids()).toEqual([3, 0, 1, 2]);
    const y = m.newInstr(InstructionType.Memset, 'y', bb, EngineType.Pool);
    bb.append(y);
    expect(ids()).toEqual([3, 0, 1, 2, 4]);
    const arr = bb.instrs;
    [arr[0], arr[1]] = [arr[1], arr[0]];
    expect(ids()).toEqual([0, 3, 1, 2, 4]);
    arr.pop(); // through an array fetched earlier: the length tells
    expect(ids()).toEqual([0, 3, 1, 2]);
    bb.instrs = [y];
    expect(ids()).toEqual([4]);
    expect(bb.instrs.map((i) => i.id)).toEqual([4]);
  });
});
