import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { ProgramBuilder } from '../../../compiler/ir/builder.ts';
import type { Module } from '../../../compiler/ir/module.ts';
import {
  initialImage,
  interpret,
  interpretDma,
  type InterpScratch,
  type MemoryImage,
} from '../../../compiler/interp/index.ts';
import { CopyPlans, PLAN_BUDGET } from '../../../compiler/interp/copy-plan.ts';
import { WrittenMarks } from '../../../compiler/interp/marks.ts';
import { compileProgram } from '../../../compiler/passes/pipeline.ts';
import { randomKnobs, randomProgram, type RandomKnobs } from '../../flow/random-program.ts';

/** Byte arrays compared whole (regions are large for toEqual). */
function sameArrays(x: Uint8Array[], y: Uint8Array[]): boolean {
  return (
    x.length === y.length &&
    x.every((v, i) => Buffer.from(v.buffer, v.byteOffset, v.length).equals(y[i]))
  );
}

/** Two runs left the same bytes in their images and the same written masks. */
function expectSameImages(
  a: { image: MemoryImage; written: Uint8Array[] },
  b: { image: MemoryImage; written: Uint8Array[] },
): void {
  const bytes = (x: { image: MemoryImage }) => x.image.regions.map((r) => r.bytes);
  expect(sameArrays(bytes(a), bytes(b))).toBe(true);
  expect(sameArrays(a.written, b.written)).toBe(true);
}

/** interpret() with and without the stretch plans: the same result, bytes and masks. */
function expectSameRuns(m: Module, seed: number): void {
  const a = interpret(m, initialImage(m, seed));
  const b = interpret(m, initialImage(m, seed), { plans: false });
  expect([a.dmas, a.elements, a.bytes]).toEqual([b.dmas, b.elements, b.bytes]);
  expectSameImages(a, b);
}

describe('reference interpreter: stretches kept per pair of shapes', () => {
  // a few shapes, each used by many DMAs at different offsets inside one tensor or between two,
  // so most DMAs reuse a plan, and some overlap forwards (those move element by element)
  const shapeArb = fc.record({
    parts: fc.integer({ min: 1, max: 4 }),
    partStep: fc.constantFrom(1, 4, 8, 16, -8),
    len: fc.integer({ min: 1, max: 8 }),
    step: fc.constantFrom(1, 1, 2, -1),
  });
  const dmaArb = fc.record({
    shape: fc.integer({ min: 0, max: 2 }),
    src: fc.integer({ min: 0, max: 63 }),
    dst: fc.integer({ min: 0, max: 63 }),
    other: fc.boolean(),
  });

  it('moves the same bytes with plans as without, on programs that repeat their shapes', () => {
    fc.assert(
      fc.property(
        fc.array(shapeArb, { minLength: 3, maxLength: 3 }),
        fc.array(dmaArb, { minLength: 1, maxLength: 24 }),
        (shapes, dmas) => {
          const b = new ProgramBuilder({ name: 'plans', arch: 30 });
          b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x1000 });
          // two fp32 tensors of 64 elements, 256 bytes apart
          for (const [name, offset] of [
            ['a', 0],
            ['b', 0x100],
          ] as const) {
            b.tensor({ name, region: 'sb', offset, dtype: 'fp32', shape: [64] });
          }
          const e = b.function('main').block('e');
          let made = 0;
          for (const d of dmas) {
            const s = shapes[d.shape];
            const inside = (o: number) => {
              const ends = [o, o + (s.parts - 1) * s.partStep];
              const span = s.step * (s.len - 1);
              return (
                Math.min(...ends) + Math.min(0, span) >= 0 &&
                Math.max(...ends) + Math.max(0, span) < 64
              );
            };
            if (!inside(d.src) || !inside(d.dst)) continue;
            const ap = (tensor: string, offset: number) => ({
              tensor,
              offset,
              partition: [s.partStep, s.parts] as [number, number],
              free: [[s.step, s.len]] as [number, number][],
            });
            e.copy({ src: ap('a', d.src), dst: ap(d.other ? 'b' : 'a', d.dst) });
            made++;
          }
          fc.pre(made > 0);
          expectSameRuns(b.build(), 5);
        },
      ),
      { seed: 20261211, numRuns: 300 },
    );
  });

  it('moves the same bytes with plans as without, on random compiled programs', () => {
    const compiled = (k: RandomKnobs): Module | null => {
      try {
        return compileProgram(randomProgram(k)).module;
      } catch {
        return null; // the generator's rare out-of-bounds program
      }
    };
    fc.assert(
      fc.property(randomKnobs(), fc.integer({ min: 1, max: 1000 }), (k, seed) => {
        const m = compiled(k);
        fc.pre(m !== null);
        expectSameRuns(m!, seed);
      }),
      { seed: 20261212, numRuns: 8 },
    );
  });

  it('a DMA whose plan leaves its region throws the error, and writes the bytes, it does without plans', () => {
    // two copies of one shape; the second's source is moved past its region by hand
    const b = new ProgramBuilder({ name: 'oor', arch: 30 });
    b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x100 });
    b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [32], init: [] });
    b.tensor({ name: 'b', region: 'sb', offset: 0x80, dtype: 'fp32', shape: [32] });
    const e = b.function('main').block('e');
    const ap = (tensor: string, offset: number) => ({
      tensor,
      offset,
      partition: [8, 2] as [number, number],
      free: [[1, 4]] as [number, number][],
    });
    e.copy({ src: ap('a', 0), dst: ap('b', 0) });
    e.copy({ src: ap('a', 8), dst: ap('b', 8) });
    const m = b.build();
    const [I0, I1] = m.instrs;
    const s = I1.src!;
    expect(s.shapeId).toBeGreaterThanOrEqual(0);
    expect(s.shapeId).toBe(I0.src!.shapeId);
    // 60 elements from a's start: the second row (element 68 on) lies past the region's end
    I1.src = new AccessPattern(
      s.tensor,
      60,
      s.partStep,
      s.partNum,
      s.free,
      null,
      null,
      null,
      s.shapeId,
    );
    const run = (plans: boolean): { image: MemoryImage; written: Uint8Array[]; error: unknown } => {
      const image = initialImage(m, 9);
      const written = image.regions.map((r) => new Uint8Array(r.size));
      const scratch: InterpScratch = { src: new Float64Array(64), dst: new Float64Array(64) };
      if (plans) scratch.plans = new CopyPlans();
      let error: unknown = null;
      try {
        for (const I of m.instrs) interpretDma(I, image, written, scratch);
      } catch (err) {
        error = err;
      }
      if (plans) expect(scratch.plans!.get(I1.src!, I1.dst!)).not.toBeNull();
      return { image, written, error };
    };
    const a = run(true);
    const b2 = run(false);
    expect(a.error).not.toBeNull();
    expect(a.error).toEqual(b2.error);
    expect(String(a.error)).toBe(String(b2.error));
    expectSameImages(a, b2);
  });

  it('keeps no plan for an indexed pattern, nor past its budget', () => {
    const b = new ProgramBuilder({ name: 'idx', arch: 30 });
    b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x1000 });
    b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [64], init: [] });
    b.tensor({
      name: 'iv',
      region: 'sb',
      offset: 0x400,
      dtype: 'uint32',
      shape: [2],
      init: [1, 0],
    });
    const e = b.function('main').block('e');
    const rows = { partition: [8, 2] as [number, number], free: [[1, 4]] as [number, number][] };
    const vector = { vector: { indexTensor: 'iv' } };
    e.copy({
      src: { tensor: 'a', offset: 0, ...rows, dynamic: vector },
      dst: { tensor: 'a', offset: 32, ...rows },
    });
    const m = b.build();
    const I = m.instrs[0];
    const plans = new CopyPlans();
    const image = initialImage(m, 1);
    interpretDma(I, image, null, { src: new Float64Array(8), dst: new Float64Array(8), plans });
    expect(plans.get(I.src!, I.dst!)).toBeNull();
    expect(plans.canHold(I.dst!, I.dst!, 1)).toBe(true);
    expect(plans.canHold(I.dst!, I.dst!, PLAN_BUDGET + 1)).toBe(false);
  });
});

describe('reference interpreter: written marks', () => {
  it('leaves the masks filling every range at once leaves', () => {
    const range = fc
      .tuple(
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 30 }),
      )
      .map(([m, lo, n]) => [m, lo, Math.min(lo + n, 256)] as const);
    fc.assert(
      fc.property(
        fc.array(range, { maxLength: 60 }),
        fc.integer({ min: 0, max: 60 }),
        (ranges, at) => {
          const want = [0, 1, 2].map(() => new Uint8Array(256));
          const got = [0, 1, 2].map(() => new Uint8Array(256));
          const marks = new WrittenMarks();
          ranges.forEach(([m, lo, hi], i) => {
            want[m].fill(1, lo, hi);
            marks.mark(got[m], lo, hi);
            if (i === at) marks.flush(); // a flush in the middle changes nothing either
          });
          marks.flush();
          expect(got).toEqual(want);
        },
      ),
      { seed: 20261215, numRuns: 400 },
    );
  });
});
