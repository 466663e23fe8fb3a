import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import type { Module } from '../../../compiler/ir/module.ts';
import {
  decodeElement,
  elementAddresses,
  elementRuns,
  encodeElement,
  fromBf16,
  fromHalf,
  initialImage,
  interpret,
  toBf16,
  toHalf,
  type MemoryImage,
} from '../../../compiler/interp/index.ts';
import { MemoryImage as Image } from '../../../compiler/interp/memory.ts';
import { ProgramBuilder } from '../../../compiler/ir/builder.ts';
import { compileProgram } from '../../../compiler/passes/pipeline.ts';
import { expectSameRun, program, sameBytes } from './program.ts';
import { randomKnobs, randomProgram } from '../../flow/random-program.ts';

function f32At(img: MemoryImage, addr: number): number {
  const r = img.region(addr, 4);
  return decodeElement('fp32', r.bytes, addr - r.base);
}

const M = 0x1000_0000;
const MT = 0x2000_0000;
const W = 0x2000_0100;

describe('element codecs', () => {
  it('fp16: exact values, rounding to nearest even, subnormals, infinity', () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(65520)).toBe(0x7c00); // rounds up to infinity
    expect(toHalf(2 ** -24)).toBe(0x0001);
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00); // tie -> even
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(fromHalf(0x3555)).toBeCloseTo(0.333251953125, 12);
    for (let h = 0; h < 0x7c00; h += 97) expect(toHalf(fromHalf(h))).toBe(h);
  });

  it('bf16: the upper half of fp32, rounded to nearest even', () => {
    expect(toBf16(1)).toBe(0x3f80);
    expect(toBf16(-3.5)).toBe(0xc060);
    expect(fromBf16(0x4049)).toBeCloseTo(3.140625, 10);
    for (let h = 0; h < 0x7f80; h += 101) expect(toBf16(fromBf16(h))).toBe(h);
  });

  it('every dtype round-trips through encode / decode', () => {
    const b = new Uint8Array(8);
    const cases: [Parameters<typeof encodeElement>[0], number][] = [
      ['uint8', 200],
      ['int8', -100],
      ['uint16', 60000],
      ['int16', -30000],
      ['uint32', 4000000000],
      ['int32', -2000000000],
      ['fp32', 1.5],
      ['fp16', -0.25],
      ['bf16', 256],
    ];
    for (const [t, v] of cases) {
      encodeElement(t, v, b, 1);
      expect(decodeElement(t, b, 1)).toBe(v);
    }
  });
});

describe('initial memory', () => {
  it('is a deterministic fill per seed, with tensor init values on top', () => {
    const m = program(() => {});
    const a = initialImage(m, 7);
    const b = initialImage(m, 7);
    const c = initialImage(m, 8);
    expect(Buffer.compare(a.regions[1].bytes, b.regions[1].bytes)).toBe(0);
    expect(Buffer.compare(a.regions[1].bytes, c.regions[1].bytes)).not.toBe(0);
    expect(f32At(a, M + 4 * 5)).toBe(5);
    const h = a.region(0x2000_0400, 16);
    expect(decodeElement('fp16', h.bytes, 0x400 + 2)).toBe(-2);
    expect(decodeElement('fp16', h.bytes, 0x400 + 6)).toBe(65504);
  });
});

describe('reference interpreter', () => {
  it('walks a transpose element by element: mt[c][r] = m[r][c]', () => {
    const m = program((bb) =>
      bb.copy({
        src: { tensor: 'm', partition: [1, 6], free: [[6, 4]] },
        dst: { tensor: 'mt', partition: [4, 6], free: [[1, 4]] },
      }),
    );
    const { image, written, dmas, elements } = interpret(m, initialImage(m));
    expect(dmas).toBe(1);
    expect(elements).toBe(24);
    for (let r = 0; r < 4; r++)
      for (let c = 0; c < 6; c++) expect(f32At(image, MT + 4 * (c * 4 + r))).toBe(r * 6 + c);
    // exactly the 96 destination bytes are marked written
    expect(written[1].reduce((a, v) => a + v, 0)).toBe(96);
    expect(written[0].reduce((a, v) => a + v, 0)).toBe(0);
  });

  it('reads rows through an index tensor (vector dynamic offset), at the time the DMA runs', () => {
    const m = program((bb) =>
      bb.load({
        src: {
          tensor: 'm',
          partition: [6, 3],
          free: [[1, 6]],
          dynamic: { vector: { indexTensor: 'idx' } },
        },
        dst: { tensor: 'mt', partition: [6, 3], free: [[1, 6]] },
      }),
    );
    const { image } = interpret(m, initialImage(m));
    const rows = [3, 0, 2];
    for (let p = 0; p < 3; p++)
      for (let j = 0; j < 6; j++) expect(f32At(image, MT + 4 * (p * 6 + j))).toBe(rows[p] * 6 + j);
  });

  it('adds a scalar dynamic offset and walks negative steps', () => {
    const m = program((bb) =>
      bb.load({
        src: {
          tensor: 'm',
          offset: 0,
          partition: [-6, 2],
          free: [[-1, 3]],
          dynamic: { scalar: { register: 'r1', value: 11 } },
        },
        dst: { tensor: 'mt', partition: [3, 2], free: [[1, 3]] },
      }),
    );
    const { image } = interpret(m, initialImage(m));
    // elements 11, 10, 9, then 5, 4, 3
    expect([0, 1, 2, 3, 4, 5].map((k) => f32At(image, MT + 4 * k))).toEqual([11, 10, 9, 5, 4, 3]);
  });

  it('runs a loop body `iterations` times (a destination reduce shows the count)', () => {
    const m = program(
      (bb) =>
        bb.copy({
          dstReduce: 'add',
          src: { tensor: 'm', partition: [6, 4], free: [[1, 6]] },
          dst: { tensor: 'w', partition: [6, 4], free: [[1, 6]] },
        }),
      3,
    );
    const { image, dmas } = interpret(m, initialImage(m));
    expect(dmas).toBe(3);
    for (let k = 0; k < 24; k++) expect(f32At(image, W + 4 * k)).toBe(10 + 3 * k);
  });

  it('max, min and multiply reduce into the destination', () => {
    for (const [op, f] of [
      ['max', (a: number, b: number) => Math.max(a, b)],
      ['min', (a: number, b: number) => Math.min(a, b)],
      ['multiply', (a: number, b: number) => a * b],
    ] as const) {
      const m = program((bb) =>
        bb.copy({
          dstReduce: op,
          src: { tensor: 'm', partition: [6, 4], free: [[1, 6]] },
          dst: { tensor: 'w', partition: [6, 4], free: [[1, 6]] },
        }),
      );
      const { image } = interpret(m, initialImage(m));
      for (let k = 0; k < 24; k++) expect(f32At(image, W + 4 * k)).toBe(f(10, k));
    }
  });

  it('a dtype change converts the value (fp32 -> int32)', () => {
    const m = program((bb) =>
      bb.copy({
        src: { tensor: 'm', partition: [6, 4], free: [[1, 6]] },
        dst: { tensor: 'i32', partition: [6, 4], free: [[1, 6]] },
      }),
    );
    const { image } = interpret(m, initialImage(m));
    const r = image.region(0x2000_0200, 96);
    for (let k = 0; k < 24; k++) expect(decodeElement('int32', r.bytes, 0x200 + 4 * k)).toBe(k);
  });

  it('compute instructions and collectives leave memory as it is', () => {
    const m = program((bb) => {
      bb.compute('Activation', { reads: ['m'], writes: ['w'] });
      bb.collective({ args: ['w'], results: ['mt'] });
    });
    const before = initialImage(m);
    const { image } = interpret(m, before.clone());
    image.regions.forEach((r, i) =>
      expect(Buffer.compare(r.bytes, before.regions[i].bytes)).toBe(0),
    );
  });

  it('is independent of the lowering: no file of compiler/interp imports compiler/lower', () => {
    const dir = join(import.meta.dirname, '../../../compiler/interp');
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text).not.toMatch(/from '[^']*lower\//);
    }
  });
});

describe('reference interpreter: contiguous runs', () => {
  /** The element-by-element walk the runs must reproduce: read one element, write it, next. */
  function elementwise(m: Module, image: MemoryImage): Uint8Array[] {
    const written = image.regions.map((r) => new Uint8Array(r.size));
    for (const I of m.instrs) {
      if (I.src === null || I.dst === null) continue;
      const n = I.src.numElements;
      const sa = new Float64Array(n);
      const da = new Float64Array(n);
      elementAddresses(I.src, image, sa);
      elementAddresses(I.dst, image, da);
      const es = I.src.elemSize;
      for (let i = 0; i < n; i++) {
        const s = image.region(sa[i], es);
        const d = image.region(da[i], es);
        const di = image.regions.indexOf(d);
        for (let b = 0; b < es; b++) {
          d.bytes[da[i] - d.base + b] = s.bytes[sa[i] - s.base + b];
          written[di][da[i] - d.base + b] = 1;
        }
      }
    }
    return written;
  }

  /** interpret() leaves the bytes and written masks of the element-by-element walk. */
  function expectElementwise(m: Module, seed: number): void {
    const want = initialImage(m, seed);
    const wantWritten = elementwise(m, want);
    const got = interpret(m, initialImage(m, seed));
    expect(got.image.regions[0].bytes).toEqual(want.regions[0].bytes);
    expect(got.written).toEqual(wantWritten);
  }

  // copies inside one fp32 tensor of 64 elements: runs that overlap forwards, backwards or not at
  // all, strided walks and negative steps, so some DMAs move by runs and some element by element
  const dmaArb = fc.record({
    src: fc.integer({ min: 0, max: 63 }),
    dst: fc.integer({ min: 0, max: 63 }),
    parts: fc.integer({ min: 1, max: 4 }),
    partStep: fc.constantFrom(1, 2, 8, 16, -8),
    len: fc.integer({ min: 1, max: 8 }),
    step: fc.constantFrom(1, 1, 1, 2, -1),
    other: fc.boolean(),
  });

  it('moves the bytes an element-by-element walk moves, overlapping copies included', () => {
    fc.assert(
      fc.property(fc.array(dmaArb, { minLength: 1, maxLength: 6 }), (dmas) => {
        const b = new ProgramBuilder({ name: 'runs', arch: 30 });
        b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x1000 });
        b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [64], init: [] });
        b.tensor({ name: 'b', region: 'sb', offset: 0x100, dtype: 'fp32', shape: [64] });
        const e = b.function('main').block('e');
        let made = 0;
        for (const d of dmas) {
          const ap = (tensor: string, offset: number) => ({
            tensor,
            offset,
            partition: [d.partStep, d.parts] as [number, number],
            free: [[d.step, d.len]] as [number, number][],
          });
          // keep each walk inside its tensor (the program validator's bound check)
          const inside = (o: number) => {
            const ends = [0, (d.parts - 1) * d.partStep].map((p) => o + p);
            const span = d.step * (d.len - 1);
            const lo = Math.min(...ends) + Math.min(0, span);
            const hi = Math.max(...ends) + Math.max(0, span);
            return lo >= 0 && hi < 64;
          };
          if (!inside(d.src) || !inside(d.dst)) continue;
          e.copy({ src: ap('a', d.src), dst: ap(d.other ? 'b' : 'a', d.dst) });
          made++;
        }
        if (made === 0) return;
        expectElementwise(b.build(), 7);
      }),
      { seed: 20261203, numRuns: 400 },
    );
  });

  // patterns of up to three free dims (steps that continue a row, skip, repeat or go back), some
  // through an index tensor: the runs, expanded, are the element addresses, and no run continues
  // the one before it
  const apArb = fc.record({
    offset: fc.integer({ min: 0, max: 40 }),
    partStep: fc.constantFrom(0, 1, 4, 6, 24, -6),
    partNum: fc.integer({ min: 1, max: 4 }),
    free: fc.array(
      fc.tuple(fc.constantFrom(0, 1, 1, 2, 3, 6, -1), fc.integer({ min: 0, max: 4 })),
      { maxLength: 3 },
    ),
    indexed: fc.boolean(),
  });

  it('walks an access pattern as the maximal runs of its element addresses', () => {
    const m = program(() => {});
    const image = initialImage(m);
    const t = m.tensors.find((x) => x.name === 'm')!;
    const idx = m.tensors.find((x) => x.name === 'idx')!;
    fc.assert(
      fc.property(apArb, (a) => {
        const ap = new AccessPattern(
          t,
          a.offset,
          a.partStep,
          a.indexed ? Math.min(a.partNum, 3) : a.partNum,
          a.free.flat(),
          null,
          a.indexed ? { indexTensor: idx } : null,
        );
        // every walk visits at least one element per row, as elementAddresses writes them
        const rows = ap.partNum * a.free.slice(0, -1).reduce((x, [, n]) => x * Math.max(n, 1), 1);
        const cap = Math.max(ap.numElements, rows * Math.max(1, a.free.at(-1)?.[1] ?? 1));
        const want = new Float64Array(cap);
        elementAddresses(ap, image, want);
        const addr = new Float64Array(cap);
        const len = new Float64Array(cap);
        const runs = elementRuns(ap, image, addr, len);
        const got: number[] = [];
        for (let r = 0; r < runs; r++) {
          if (r > 0) expect(addr[r]).not.toBe(addr[r - 1] + len[r - 1] * 4);
          for (let k = 0; k < len[r]; k++) got.push(addr[r] + 4 * k);
        }
        expect(got).toEqual([...want]);
      }),
      { seed: 20261201, numRuns: 600 },
    );
  });

  it('moves the bytes an element-by-element walk moves over two free dims, with index tensors', () => {
    const dims = fc.record({
      src: fc.integer({ min: 0, max: 16 }),
      dst: fc.integer({ min: 0, max: 16 }),
      parts: fc.integer({ min: 1, max: 3 }),
      partStep: fc.constantFrom(4, 8, 16, 12),
      outer: fc.tuple(fc.constantFrom(2, 4, 8), fc.integer({ min: 1, max: 3 })),
      inner: fc.tuple(fc.constantFrom(1, 1, 2), fc.integer({ min: 1, max: 4 })),
      other: fc.boolean(),
      indexed: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(dims, { minLength: 1, maxLength: 5 }), (dmas) => {
        const b = new ProgramBuilder({ name: 'runs2', arch: 30 });
        b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x1000 });
        b.tensor({ name: 'a', region: 'sb', dtype: 'fp32', shape: [128], init: [] });
        b.tensor({ name: 'b', region: 'sb', offset: 0x200, dtype: 'fp32', shape: [128] });
        b.tensor({
          name: 'iv',
          region: 'sb',
          offset: 0x400,
          dtype: 'uint32',
          shape: [3],
          init: [2, 0, 1],
        });
        const e = b.function('main').block('e');
        for (const d of dmas) {
          const free = [d.outer, d.inner] as [number, number][];
          // at most 16 + 2 * 16 + 2 * 8 + 3 * 2 = 70: inside the 128 elements
          const ap = (tensor: string, offset: number, idx: boolean) => ({
            tensor,
            offset,
            partition: [d.partStep, d.parts] as [number, number],
            free,
            ...(idx ? { dynamic: { vector: { indexTensor: 'iv' } } } : {}),
          });
          e.copy({
            src: ap('a', d.src, d.indexed),
            dst: ap(d.other ? 'b' : 'a', d.dst, false),
          });
        }
        expectElementwise(b.build(), 3);
      }),
      { seed: 20261202, numRuns: 200 },
    );
  });

  it('moves the same bytes with its regions in one arena as in separate arrays, on many programs', () => {
    const knobs = randomKnobs();
    fc.assert(
      fc.property(knobs, fc.integer({ min: 1, max: 1000 }), (k, seed) => {
        let m: Module;
        try {
          m = compileProgram(randomProgram(k)).module;
        } catch {
          fc.pre(false); // the generator's rare out-of-bounds program
          return;
        }
        const start = initialImage(m, seed);
        expect(start.arena !== null).toBe(true);
        const copy = start.clone();
        expect(copy.arena !== null).toBe(true);
        expect(
          sameBytes(
            copy.regions.map((r) => r.bytes),
            start.regions.map((r) => r.bytes),
          ),
        ).toBe(true);
        const separate = new Image(start.regions.map((r) => ({ ...r, bytes: r.bytes.slice() })));
        expect(separate.arena === null).toBe(true);
        const a = interpret(m, copy);
        const b = interpret(m, separate);
        expectSameRun(a, b);
        // the start image is untouched by the run of its clone
        expect(
          sameBytes(
            start.regions.map((r) => r.bytes),
            initialImage(m, seed).regions.map((r) => r.bytes),
          ),
        ).toBe(true);
      }),
      { seed: 20261207, numRuns: 8 },
    );
  });
});
