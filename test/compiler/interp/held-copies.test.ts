import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { ProgramBuilder } from '../../../compiler/ir/builder.ts';
import type { Module } from '../../../compiler/ir/module.ts';
import { HeldCopies } from '../../../compiler/interp/held-copies.ts';
import { WrittenMarks } from '../../../compiler/interp/marks.ts';
import { initialImage, interpret, type MemoryImage } from '../../../compiler/interp/index.ts';
import type { InterpretOptions } from '../../../compiler/interp/interpret.ts';

/** All of an image's bytes (its arena: initialImage holds every region in one). */
const allBytes = (img: MemoryImage): Buffer => Buffer.from(img.arena!);

/** One run of interpret: its image, masks and counts, or the error it threw and the image then. */
function run(m: Module, seed: number, opts: InterpretOptions) {
  const image = initialImage(m, seed);
  try {
    const r = interpret(m, image, opts);
    return { image, written: r.written, counts: [r.dmas, r.elements, r.bytes], error: null };
  } catch (e) {
    return { image, written: null, counts: null, error: String(e) };
  }
}

/** Holding copies leaves what moving each copy as its DMA runs leaves (and what no plans leave). */
function expectSameAsUnheld(m: Module, seed: number): void {
  const held = run(m, seed, {});
  for (const opts of [{ hold: false }, { plans: false }]) {
    const other = run(m, seed, opts);
    expect(held.error).toBe(other.error);
    expect(held.counts).toEqual(other.counts);
    expect(allBytes(held.image).equals(allBytes(other.image))).toBe(true);
    if (held.written !== null)
      expect(Buffer.concat(held.written).equals(Buffer.concat(other.written!))).toBe(true);
  }
}

// three fp32 tensors of 64 elements: a and b in one region, c in another
const TENSORS = ['a', 'b', 'c'] as const;

/** A program of tile-after-tile copies and, between them, copies that may read or write them. */
function tileProgram(
  runs: {
    len: number;
    parts: number;
    tiles: number;
    src: number;
    dst: number;
    from: number;
    to: number;
  }[],
  others: { at: number; src: number; dst: number; from: number; to: number; reduce: boolean }[],
): Module | null {
  const b = new ProgramBuilder({ name: 'held', arch: 30 });
  b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x200 });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x100 });
  b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [64], init: [] });
  b.tensor({ name: 'b', region: 'sb', offset: 0x100, dtype: 'fp32', shape: [64] });
  b.tensor({ name: 'c', region: 'host', dtype: 'fp32', shape: [64] });
  const e = b.function('main').block('e');
  let made = 0;
  const pending = [...others].sort((x, y) => x.at - y.at);
  let step = 0;
  const other = () => {
    while (pending.length > 0 && pending[0].at <= step) {
      const o = pending.shift()!;
      const ap = (tensor: string, offset: number) => ({
        tensor,
        offset,
        partition: [4, 2] as [number, number],
        free: [[1, 4]] as [number, number][],
      });
      e.copy({
        src: ap(TENSORS[o.from], o.src),
        dst: ap(TENSORS[o.to], o.dst),
        ...(o.reduce ? { dstReduce: 'add' as const } : {}),
      });
      made++;
    }
    step++;
  };
  for (const r of runs) {
    const tile = r.len * r.parts;
    for (let t = 0; t < r.tiles; t++) {
      other();
      const s = r.src + t * tile;
      const d = r.dst + t * tile;
      if (s + tile > 64 || d + tile > 64) break;
      const ap = (tensor: string, offset: number) => ({
        tensor,
        offset,
        partition: [r.len, r.parts] as [number, number],
        free: [[1, r.len]] as [number, number][],
      });
      e.copy({ src: ap(TENSORS[r.from], s), dst: ap(TENSORS[r.to], d) });
      made++;
    }
  }
  other();
  return made > 0 ? b.build() : null;
}

/** Held copies over a 64-byte arena holding 0..63, with one written mask of 64 bytes. */
function heldOver64() {
  const arena = new Uint8Array(64).map((_, i) => i);
  const mask = new Uint8Array(64);
  const marks = new WrittenMarks();
  return { arena, mask, marks, h: new HeldCopies(arena, marks) };
}

describe('reference interpreter: copies held back and moved together', () => {
  const runArb = fc.record({
    len: fc.constantFrom(1, 2, 4),
    parts: fc.constantFrom(1, 2, 4),
    tiles: fc.integer({ min: 1, max: 12 }),
    src: fc.integer({ min: 0, max: 40 }),
    dst: fc.integer({ min: 0, max: 40 }),
    from: fc.integer({ min: 0, max: 2 }),
    to: fc.integer({ min: 0, max: 2 }),
  });
  // a copy or an add of 8 elements between two of the tensors, before tile copy number `at`
  const tensor = fc.integer({ min: 0, max: 2 });
  const start = fc.integer({ min: 0, max: 56 });
  const otherArb = fc
    .tuple(fc.nat(40), tensor, start, tensor, start, fc.boolean())
    .map(([at, from, src, to, dst, reduce]) => ({ at, from, src, to, dst, reduce }));
  const seedArb = fc.integer({ min: 1, max: 1000 });

  it('leaves the bytes, masks and counts of moving each copy when its DMA runs', () => {
    const runsArb = fc.array(runArb, { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(runsArb, fc.array(otherArb, { maxLength: 6 }), seedArb, (runs, others, seed) => {
        const m = tileProgram(runs, others);
        fc.pre(m !== null);
        expectSameAsUnheld(m!, seed);
      }),
      { seed: 20261221, numRuns: 500 },
    );
  });

  it('a copy that repeats part of a held one (or nearly does) leaves what moving it again leaves', () => {
    // repeats of a sub-range of an earlier run, the destination shifted by `shift` elements
    const repeatArb = fc.record({
      of: fc.nat(4),
      first: fc.nat(6),
      tiles: fc.integer({ min: 1, max: 6 }),
      shift: fc.constantFrom(0, 0, 0, 1, -1, 4),
      swap: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(runArb, { minLength: 1, maxLength: 3 }),
        fc.array(repeatArb, { minLength: 1, maxLength: 4 }),
        fc.array(otherArb, { maxLength: 4 }),
        seedArb,
        (runs, repeats, others, seed) => {
          const all = [...runs];
          for (const r of repeats) {
            const base = runs[r.of % runs.length];
            const tile = base.len * base.parts;
            const src = base.src + r.first * tile;
            const dst = Math.max(0, base.dst + r.first * tile + r.shift);
            const from = r.swap ? base.to : base.from;
            const to = r.swap ? base.from : base.to;
            all.push({
              ...base,
              src: r.swap ? dst : src,
              dst: r.swap ? src : dst,
              from,
              to,
              tiles: r.tiles,
            });
          }
          const m = tileProgram(all, others);
          fc.pre(m !== null);
          expectSameAsUnheld(m!, seed);
        },
      ),
      { seed: 20261223, numRuns: 500 },
    );
  });

  it('copies of more shapes between the same tensors than pairs kept leave what unheld copies leave', () => {
    // 36 shapes (partition [len, parts] x free [[1, len]]) between two tensors, three copies of
    // each, in random order at random offsets: a pair's first copy makes its plan, the next ones
    // are held; more pairs of shapes than HoldPairs has slots, so some share one
    const shapes: [number, number][] = [];
    for (let len = 1; len <= 9; len++)
      for (let parts = 1; parts <= 4; parts++) shapes.push([len, parts]);
    const copyArb = fc.record({
      order: fc.nat(1000),
      src: fc.nat(1000),
      dst: fc.nat(1000),
      back: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(copyArb, { minLength: 108, maxLength: 108 }),
        seedArb,
        (copies, seed) => {
          const b = new ProgramBuilder({ name: 'shapes', arch: 30 });
          b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x200 });
          b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [64], init: [] });
          b.tensor({ name: 'b', region: 'sb', offset: 0x100, dtype: 'fp32', shape: [64] });
          const e = b.function('main').block('e');
          const order = copies.map((c, i) => [c.order, i] as const).sort((x, y) => x[0] - y[0]);
          for (const [, i] of order) {
            const [len, parts] = shapes[i % shapes.length];
            const n = len * parts;
            const ap = (tensor: string, offset: number) => ({
              tensor,
              offset: offset % (65 - n),
              partition: [len, parts] as [number, number],
              free: [[1, len]] as [number, number][],
            });
            const [from, to] = copies[i].back ? ['b', 'a'] : ['a', 'b'];
            e.copy({ src: ap(from, copies[i].src), dst: ap(to, copies[i].dst) });
          }
          expectSameAsUnheld(b.build(), seed);
        },
      ),
      { seed: 20261224, numRuns: 300 },
    );
  });

  it('a DMA that leaves its region after held copies throws, and leaves the bytes, it does unheld', () => {
    fc.assert(
      fc.property(fc.array(runArb, { minLength: 1, maxLength: 3 }), seedArb, (runs, seed) => {
        const m = tileProgram(runs, []);
        fc.pre(m !== null && m.instrs.length > 1);
        // the last DMA's source moved past the end of its tensor's region
        const I = m!.instrs[m!.instrs.length - 1];
        const { tensor, offset, partStep, partNum, free, shapeId } = I.src!;
        const o = offset + 0x80;
        I.src = new AccessPattern(tensor, o, partStep, partNum, free, null, null, null, shapeId);
        const r = run(m!, seed, {});
        expect(r.error).toMatch(/leaves its region/);
        expectSameAsUnheld(m!, seed);
      }),
      { seed: 20261222, numRuns: 200 },
    );
  });

  it('joins a copy that continues a held one, holds independent ones side by side, and moves on a conflict', () => {
    const { arena, mask, marks, h } = heldOver64();
    h.add(0, 32, 4, mask, 32);
    h.add(4, 36, 4, mask, 36); // continues it on both sides: joined
    expect(h.size).toBe(1);
    h.add(16, 48, 4, mask, 48); // independent: held beside it
    expect(h.size).toBe(2);
    expect(arena[32]).toBe(32); // nothing moved yet
    h.add(34, 8, 4, mask, 8); // reads bytes the first one writes: both move first
    expect(h.size).toBe(1);
    expect([...arena.subarray(32, 40)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...arena.subarray(48, 52)]).toEqual([16, 17, 18, 19]);
    h.flush();
    marks.flush();
    expect([...arena.subarray(8, 12)]).toEqual([2, 3, 4, 5]);
    expect(h.size).toBe(0);
    const want = new Uint8Array(64);
    for (const [lo, hi] of [
      [32, 40],
      [48, 52],
      [8, 12],
    ])
      want.fill(1, lo, hi);
    expect([...mask]).toEqual([...want]);
  });

  it('a copy inside a held one at the same distance moves nothing more; at another distance it conflicts', () => {
    const { arena, mask, marks, h } = heldOver64();
    h.add(0, 32, 8, mask, 32);
    h.add(16, 48, 4, mask, 48);
    h.add(2, 34, 4, mask, 34); // bytes 2..5 again to 34..37: a repeat, still held as it was
    expect(h.size).toBe(2);
    expect(arena[34]).toBe(34); // nothing moved yet
    h.add(2, 35, 4, mask, 35); // the same bytes one further on: writes what the first one writes
    expect(h.size).toBe(1);
    expect([...arena.subarray(32, 40)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    h.flush();
    marks.flush();
    expect([...arena.subarray(32, 40)]).toEqual([0, 1, 2, 2, 3, 4, 5, 7]);
  });
});
