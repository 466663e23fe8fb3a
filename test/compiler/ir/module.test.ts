/** The IR containers: dependence edges held in typed arrays behind Instr.deps / addDependency. */
import { describe, expect, it } from 'vitest';
import { EdgeKind } from '../../../compiler/ir/enums.ts';
import { DepEdges } from '../../../compiler/ir/module.ts';
import { fixture, tile } from '../helpers.ts';

describe('dependence edges', () => {
  it('an instruction without edges has deps null; edges read back in the order they were added', () => {
    const b = fixture();
    const e = b.function('main').block('a');
    for (let k = 0; k < 4; k++) e.copy({ src: tile('s0'), dst: tile('s1'), name: `c${k}` });
    const m = b.build();
    const [c0, c1, c2, c3] = m.instrs;
    expect(c3.deps).toBeNull();
    c3.addDependency(c1.id, EdgeKind.Flow);
    c3.addDependency(c0.id, EdgeKind.Ordered);
    c2.addDependency(c0.id, EdgeKind.Anti);
    c3.addDependency(c2.id, EdgeKind.Output);
    expect(c3.deps).toEqual([
      { on: c1.id, kind: EdgeKind.Flow },
      { on: c0.id, kind: EdgeKind.Ordered },
      { on: c2.id, kind: EdgeKind.Output },
    ]);
    expect(c2.deps).toEqual([{ on: c0.id, kind: EdgeKind.Anti }]);
    expect(m.edges.count).toBe(4);
  });

  it('a repeated edge keeps one entry with the stronger kind (EdgeKind precedence)', () => {
    const edges = new DepEdges();
    let head = edges.add(-1, 7, EdgeKind.Anti);
    head = edges.add(head, 7, EdgeKind.Ordered); // weaker: kept Anti
    head = edges.add(head, 7, EdgeKind.Flow); // stronger: Flow
    expect(edges.list(head)).toEqual([{ on: 7, kind: EdgeKind.Flow }]);
    expect(edges.count).toBe(1);
  });

  it('grows past its initial capacity without losing or reordering edges', () => {
    const edges = new DepEdges();
    const heads = [-1, -1, -1];
    for (let i = 0; i < 1000; i++) heads[i % 3] = edges.add(heads[i % 3], i, EdgeKind.Output);
    expect(edges.count).toBe(1000);
    for (let k = 0; k < 3; k++) {
      const list = edges.list(heads[k])!;
      expect(list.map((d) => d.on)).toEqual(
        Array.from({ length: 1000 }, (_, i) => i).filter((i) => i % 3 === k),
      );
    }
  });
});
