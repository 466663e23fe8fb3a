import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DescriptorStream } from '../../../compiler/lower/bds.ts';
import { expandWalk } from '../../../compiler/lower/expand.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import { ProgramBuilder } from '../../../compiler/ir/builder.ts';
import { compile, compileProgram } from '../../../compiler/passes/pipeline.ts';
import { randomProgram } from '../../flow/random-program.ts';

const knobs = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  dmas: fc.integer({ min: 1, max: 14 }),
  dge: fc.boolean(),
  arch: fc.constantFrom(30 as const, 40 as const),
});

/** A stream holding `pre` pairs already, with a descriptor program of `n` pieces begun. */
function begun(maxPerPacket: number, pre: number, n: number): DescriptorStream {
  const s = new DescriptorStream(maxPerPacket, 1 + (pre % 5));
  s.begin(pre);
  for (let i = 0; i < pre; i++) s.piece(0x1000 + 64 * i, 0x9000 + 64 * i, 64);
  s.end();
  s.begin(n);
  return s;
}

/** What a stream holds: its pairs and counters. */
function held(s: DescriptorStream) {
  const n = s.length;
  return {
    length: n,
    packets: s.packets,
    src: Array.from(s.src.subarray(0, n)),
    dst: Array.from(s.dst.subarray(0, n)),
    len: Array.from(s.len.subarray(0, n)),
    flags: Array.from(s.flags.subarray(0, n)),
  };
}

describe("lowering table: a compact row's pieces moved from its plan", () => {
  it("movePieces writes exactly what expanding the row's walk writes (random programs)", () => {
    let moved = 0;
    fc.assert(
      fc.property(
        knobs,
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 0, max: 130 }),
        (k, maxPerPacket, pre) => {
          let low;
          try {
            low = lower(compileProgram(randomProgram(k)).module);
          } catch {
            return fc.pre(false); // the generator's rare program out of bounds
          }
          const t = low.table;
          for (let i = 0; i < t.size; i++) {
            for (let w = 0; w < t.walksOf(i); w++) {
              const n = t.piecesOf(i, w);
              const a = begun(maxPerPacket, pre, n);
              if (!t.movePieces(i, w, a)) {
                // only a row that keeps its record (a DGE, indexed or packet-cut DMA) or a plan too
                // large to lay out is refused, and it is left as it was
                const kept =
                  t.backendOf(i) !== 'none' ||
                  t.packetBytes[i] > 0 ||
                  t.walk(i, w).type !== 'affine' ||
                  t.descriptors[i] > 4096;
                expect(kept).toBe(true);
                expect(held(a)).toEqual(held(begun(maxPerPacket, pre, n)));
                continue;
              }
              moved++;
              a.end();
              const b = begun(maxPerPacket, pre, n);
              expandWalk(t.walk(i, w), b);
              b.end();
              expect(held(a)).toEqual(held(b));
            }
          }
        },
      ),
      { seed: 20261207, numRuns: 250 },
    );
    expect(moved).toBeGreaterThan(200);
  });

  it('rows at addresses near 2^53 are moved exactly', () => {
    const b = new ProgramBuilder({ name: 'far', arch: 30 });
    const top = 2 ** 53 - 2 ** 20;
    b.region({ name: 'far', type: 'dram', base: top, size: 2 ** 19 });
    b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 2 ** 19 });
    b.tensor({ name: 'x', region: 'far', dtype: 'fp32', shape: [64, 64], kind: 'Input' });
    b.tensor({ name: 'y', region: 'sb', dtype: 'fp32', shape: [64, 64] });
    const bb = b.function('main').block('entry');
    for (let i = 0; i < 4; i++) {
      bb.load({
        src: { tensor: 'x', offset: i * 64, partition: [64, 4], free: [[1, 16]] },
        dst: { tensor: 'y', offset: i * 64, partition: [64, 4], free: [[1, 16]] },
      });
    }
    const low = lower(compile(b.build()).module);
    const t = low.table;
    expect(t.size).toBe(4);
    for (let i = 0; i < t.size; i++) {
      const s = new DescriptorStream(64);
      s.begin(t.piecesOf(i, 0));
      const movedHere = t.movePieces(i, 0, s);
      // 2^53 - 2^20 plus the plan's reach stays below 2^53: these rows are moved, and exactly
      expect(movedHere).toBe(true);
      s.end();
      const e = new DescriptorStream(64);
      e.begin(t.piecesOf(i, 0));
      expandWalk(t.walk(i, 0), e);
      e.end();
      expect(held(s)).toEqual(held(e));
    }
  });
});
