import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompileErrorCode } from '../../../compiler/errors.ts';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import type { APArgs, DmaArgs } from '../../../compiler/ir/builder.ts';
import {
  DGEType,
  dgeSetNames,
  type ArchLevel,
  type DmaOpName,
} from '../../../compiler/ir/enums.ts';
import type { ProgramOptionsInput } from '../../../compiler/ir/program.ts';
import { isDMAFamily } from '../../../compiler/ir/predicates.ts';
import {
  RouteMemo,
  getDGEInstructionType,
  routeFirst,
  routeSet,
} from '../../../compiler/passes/dge-route.ts';
import { fixture, inst, load, save, tile, tile16, tile16T } from '../helpers.ts';

const ALL: ProgramOptionsInput['dgeLevels'] = [
  'spill_reload',
  'scalar_dynamic_offset',
  'vector_dynamic_offsets',
  'transpose',
];

/** Routes one DMA; returns [primary, eligible names, error sub-codes]. */
function route(
  args: DmaArgs,
  {
    op = 'Load',
    arch = 30,
    options = { dgeLevels: ALL },
  }: { op?: DmaOpName; arch?: ArchLevel; options?: ProgramOptionsInput } = {},
): [string, string[], CompileErrorCode[]] {
  const b = fixture(arch, options);
  b.function('main')
    .block('e')
    .dma(op, { ...args, name: 'd' });
  const m = b.build();
  const errs: CompileErrorCode[] = [];
  const r = getDGEInstructionType(
    inst(m, 'd'),
    m,
    m.options.considerDescNum,
    m.options.considerMinElems,
    (c) => void errs.push(c),
  );
  return [['None', 'SWDGE', 'HWDGE', 'Unassigned'][routeFirst(r)], dgeSetNames(routeSet(r)), errs];
}

const scalar = { dynamic: { scalar: { register: 'r1', value: 64 } } };
const xbar = (src = 'b0', dst = 'b1'): DmaArgs => ({
  src: tile16T(src),
  dst: tile16(dst),
  transpose: 'xbar',
});

describe('getDGEInstructionType', () => {
  it('early-out: opcodes above 32 are never routed, even with a dynamic AP', () => {
    expect(route({ ...load(), src: { ...load().src, ...scalar } }, { op: 'IndirectLoad' })).toEqual(
      ['None', ['None'], []],
    );
    expect(route(load(), { op: 'DMATrigger' })[0]).toBe('None');
  });

  it('early-out: the InstDMA base (18) is not a route-predicate opcode', () => {
    expect(route(load(), { op: 'DMA' })).toEqual(['None', ['None'], []]);
  });

  it('early-out: nothing enabled (empty DGELevels) gives {None, {None}}', () => {
    expect(
      route({ ...load(), src: { ...load().src, ...scalar } }, { options: { dgeLevels: [] } }),
    ).toEqual(['None', ['None'], []]);
  });

  it('DMA Instruction cannot have TensorIndirect AP', () => {
    const r = route({ ...load(), src: { ...load().src, indirect: { indexTensor: 'idx' } } });
    expect(r).toEqual(['None', ['None'], ['TENSOR_INDIRECT_AP']]);
  });

  it('transpose arm: HWDGE with eligible {None, HWDGE} when the transpose level is on and the shape fits', () => {
    expect(route(xbar(), { op: 'DMACopy' })).toEqual(['HWDGE', ['None', 'HWDGE'], []]);
    expect(route({ ...xbar(), transpose: 'dma' }, { op: 'DMACopy' })[0]).toBe('HWDGE');
  });

  it('transpose arm: a shape that does not fit the xbar tiles stays static', () => {
    // fp32 (4-byte) transpose
    const r = route(
      {
        src: { tensor: 's0', partition: [1, 64], free: [[64, 128]] },
        dst: { tensor: 's1', partition: [128, 64], free: [[1, 128]] },
        transpose: 'xbar',
      } as DmaArgs,
      { op: 'DMACopy' },
    );
    expect(r).toEqual(['None', ['None'], []]);
  });

  it('transpose arm: no HWDGE at ArchLevel <= 29 (the transpose shape test carries the arch gate)', () => {
    expect(route(xbar(), { op: 'DMACopy', arch: 20 })).toEqual(['None', ['None'], []]);
  });

  it('transpose arm is tested before the dynamic arm', () => {
    const r = route(
      { ...xbar(), src: { ...tile16T('b0'), dynamic: { scalar: { register: 'r1', value: 0 } } } },
      { op: 'DMACopy' },
    );
    expect(r[0]).toBe('HWDGE');
  });

  it('a transpose without the transpose level falls through (here: to the copy arm)', () => {
    const r = route(
      { src: tile16T('hb'), dst: tile16('b1'), transpose: 'xbar' },
      { op: 'Load', options: { dgeLevels: ['spill_reload'] } },
    );
    expect(r[0]).not.toBe('HWDGE');
  });

  it('a vector-dynamic transpose asserts IsDynamicTransposeAPShapeSizeOk, then takes the dynamic arm', () => {
    const ok = route({
      src: { ...tile16T('hb'), dynamic: { vector: { indexTensor: 'idx' } } },
      dst: tile16('b1'),
      transpose: 'xbar',
    });
    expect(ok).toEqual(['SWDGE', ['SWDGE', 'HWDGE'], []]);
    const bad = route({
      src: {
        tensor: 'in',
        partition: [1, 64],
        free: [[64, 128]],
        dynamic: { vector: { indexTensor: 'idx' } },
      },
      dst: { tensor: 's1', partition: [128, 64], free: [[1, 128]] },
      transpose: 'xbar',
    } as DmaArgs);
    expect(bad[2]).toEqual(['DYNAMIC_TRANSPOSE_SHAPE']);
  });

  it('dynamic arm: SWDGE primary, HWDGE only eligible when ArchLevel > 29', () => {
    const d = { ...load(), src: { ...load().src, ...scalar } };
    expect(route(d)).toEqual(['SWDGE', ['SWDGE', 'HWDGE'], []]);
    expect(route(d, { arch: 20 })).toEqual(['SWDGE', ['SWDGE'], []]);
    expect(route(d, { arch: 10 })).toEqual(['SWDGE', ['SWDGE'], []]);
    const v = { ...load(), src: { ...load().src, dynamic: { vector: { indexTensor: 'idx' } } } };
    expect(route(v)).toEqual(['SWDGE', ['SWDGE', 'HWDGE'], []]);
  });

  it('DMA Instruction with dynamic AP must have Scalar/Vector Dynamic offset enabled', () => {
    const d = { ...load(), src: { ...load().src, ...scalar } };
    expect(route(d, { options: { dgeLevels: ['transpose'] } })).toEqual([
      'None',
      ['None'],
      ['DYNAMIC_OFFSET_NOT_ENABLED'],
    ]);
    expect(route(d, { options: { dgeLevels: ['vector_dynamic_offsets'] } })[0]).toBe('SWDGE');
  });

  it('DGE should be of type Scalar or Vector: a dynamic AP with neither offset flavour', () => {
    // unreachable through the program format (a dynamic offset names its flavour); a dynamic AP
    // of another kind (e.g. a run-time size) would reach it
    const b = fixture(30, { dgeLevels: ALL });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'd' });
    const m = b.build();
    const d = inst(m, 'd');
    const src = d.src!;
    class DynamicSizeAP extends AccessPattern {
      override isDynamic(): boolean {
        return true;
      }
    }
    d.src = new DynamicSizeAP(src.tensor, src.offset, src.partStep, src.partNum, src.free);
    const errs: string[] = [];
    const r = getDGEInstructionType(d, m, true, true, (c) => void errs.push(c));
    expect(errs).toEqual(['DYNAMIC_FLAVOUR_UNKNOWN']);
    expect(routeFirst(r)).toBe(DGEType.None);
  });

  it('copy/cast arm: an IO copy that fits both routes is SWDGE (first present) with {SWDGE, HWDGE}', () => {
    expect(route(load())).toEqual(['SWDGE', ['SWDGE', 'HWDGE'], []]);
    expect(route(load(), { arch: 20 })).toEqual(['SWDGE', ['SWDGE'], []]);
    expect(route(save('s0', 'out'), { op: 'Save' })[0]).toBe('SWDGE');
  });

  it('copy/cast arm: spill / reload DMAs are routed; an internal SB -> DRAM copy is not (default arm)', () => {
    expect(route(save('s0', 'sp'), { op: 'Save' })[0]).toBe('SWDGE');
    expect(route(save('s0', 'h'), { op: 'Save' })).toEqual(['None', ['None'], []]);
  });

  it('copy/cast arm: a destination-reduce DMA is not a copy', () => {
    expect(route({ ...load(), dstReduce: 'add' })).toEqual(['None', ['None'], []]);
  });

  it('descriptor fit: exact division by the per-descriptor cap', () => {
    // one contiguous run of 20000 fp32 elements: cap = min(20000, 65536 / 4 = 16384) = 16384; 20000 % 16384 != 0
    const ragged = {
      src: { tensor: 'big_in', partition: [20000, 1], free: [[1, 20000]] },
      dst: { tensor: 'big_h', partition: [20000, 1], free: [[1, 20000]] },
    } as DmaArgs;
    expect(route(ragged, { op: 'DMACopy' })).toEqual(['None', ['None'], []]);
    const exact = {
      src: { tensor: 'big_in', partition: [32768, 1], free: [[1, 32768]] },
      dst: { tensor: 'big_h', partition: [32768, 1], free: [[1, 32768]] },
    } as DmaArgs;
    expect(route(exact, { op: 'DMACopy' })).toEqual(['SWDGE', ['SWDGE', 'HWDGE'], []]);
    // with considerDescNum off the ragged copy fits
    expect(
      route(ragged, { op: 'DMACopy', options: { dgeLevels: ALL, considerDescNum: false } })[0],
    ).toBe('SWDGE');
  });

  it('descriptor fit: the per-arch minimum-element floor keeps tiny DMAs static', () => {
    // 128 partitions x 8 elements: 8 per partition < 16 (SWDGE no), 1024 in all (HWDGE yes)
    const small = {
      src: { tensor: 'in', partition: [8, 128], free: [[1, 8]] },
      dst: { tensor: 's0', partition: [8, 128], free: [[1, 8]] },
    } as DmaArgs;
    expect(route(small)).toEqual(['HWDGE', ['HWDGE'], []]);
    expect(route(small, { arch: 20 })).toEqual(['None', ['None'], []]);
    expect(
      route(small, { arch: 20, options: { dgeLevels: ALL, considerMinElems: false } })[0],
    ).toBe('SWDGE');
  });

  it('descriptor fit: HWDGE needs a multiple of the 16-element granule', () => {
    const odd = {
      src: { tensor: 'in', partition: [24, 3], free: [[1, 24]] },
      dst: { tensor: 's0', partition: [24, 3], free: [[1, 24]] },
    } as DmaArgs;
    expect(route(odd)).toEqual(['SWDGE', ['SWDGE'], []]);
  });

  it('assert in.actualPattern.size() == out.actualPattern.size() and equal nums', () => {
    const rank = {
      src: { tensor: 'in', partition: [64, 128], free: [[1, 64]] },
      dst: {
        tensor: 's0',
        partition: [64, 128],
        free: [
          [32, 2],
          [1, 32],
        ],
      },
    } as DmaArgs;
    expect(route(rank)[2]).toEqual(['COPY_AP_RANK_MISMATCH']);
    const num = {
      src: { tensor: 'in', partition: [64, 64], free: [[1, 128]] },
      dst: { tensor: 's0', partition: [128, 64], free: [[1, 128]] },
    } as DmaArgs;
    expect(num.src.partition[1] * 128).toBe(128 * 64);
    const num2 = {
      src: { tensor: 'in', partition: [64, 128], free: [[1, 64]] },
      dst: { tensor: 's0', partition: [64, 64], free: [[1, 128]] },
    } as DmaArgs;
    expect(route(num2)[2]).toEqual(['COPY_AP_NUM_MISMATCH']);
  });

  it('DMA Copy in/out canonical dimensions must match (both reportErrors)', () => {
    // source rows of 64 contiguous (merges to 1 free dim), destination strided (2 free dims)
    const mism = {
      src: {
        tensor: 'in',
        partition: [64, 128],
        free: [
          [32, 2],
          [1, 32],
        ],
      },
      dst: {
        tensor: 's0',
        partition: [64, 128],
        free: [
          [1, 2],
          [2, 32],
        ],
      },
    } as DmaArgs;
    expect(route(mism)[2]).toEqual(['COPY_CANONICAL_DIMS_MISMATCH', 'STRIDED_FREE_DIM_NOT_2D']);
  });

  it('is pure: it never mutates the instruction', () => {
    const b = fixture(30, { dgeLevels: ALL });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'd' });
    const m = b.build();
    const d = inst(m, 'd');
    const before = JSON.stringify({ ...d, block: null });
    getDGEInstructionType(d, m, true, true, () => {});
    expect(JSON.stringify({ ...d, block: null })).toBe(before);
    expect(d.dgeType).toBe(DGEType.Unassigned);
  });
});

describe('RouteMemo (getDGEInstructionType once per opcode, flavour and shape pair)', () => {
  // fp32 tensors of 256 x 64 (in, out, h, sp, io) and 128 x 64 (s0..s3): partitions of 64
  // elements, free dims that split 64 in several ways (some canonical-dims mismatches on purpose)
  const FREES: [number, number][][] = [
    [[1, 64]],
    [[1, 32]],
    [[1, 16]],
    [
      [2, 8],
      [1, 2],
    ],
    [
      [16, 2],
      [1, 16],
    ],
    [
      [1, 16],
      [1, 1],
    ],
  ];
  // a small space, so that DMAs differing in one field only (the opcode, a flavour, one side's
  // shape) meet in one program: a key that left a field out would give one of them a wrong route
  const dmaArb = fc.record({
    op: fc.constantFrom<DmaOpName>('Load', 'Save', 'DMACopy', 'GenericLoad'),
    src: fc.constantFrom('in', 'sp', 's0'),
    dst: fc.constantFrom('h2', 's2', 'out'),
    parts: fc.constantFrom(8, 64),
    srcFree: fc.constantFrom(0, 0, 3, 5),
    dstFree: fc.constantFrom(0, 0, 3, 4),
    transpose: fc.constantFrom(undefined, undefined, 'dma', 'xbar'),
    dstReduce: fc.constantFrom(undefined, 'add'),
    scalar: fc.constantFrom(false, false, true),
  });
  const programArb = fc.record({
    arch: fc.constantFrom<ArchLevel>(10, 30, 50),
    levels: fc.subarray([...ALL!, 'dst_reduce' as const]),
    considerDescNum: fc.boolean(),
    considerMinElems: fc.boolean(),
    // few distinct DMAs, each repeated: the memo both hits and misses
    dmas: fc.array(dmaArb, { minLength: 1, maxLength: 12 }),
    order: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
  });
  const elems = (free: [number, number][]) => free.reduce((n, d) => n * d[1], 1);

  it('gives the route and the errors getDGEInstructionType gives, for every DMA', () => {
    let hits = 0;
    fc.assert(
      fc.property(programArb, (spec) => {
        const b = fixture(spec.arch, {
          dgeLevels: spec.levels,
          considerDescNum: spec.considerDescNum,
          considerMinElems: spec.considerMinElems,
        });
        const e = b.function('main').block('e');
        for (const k of spec.order) {
          const d = spec.dmas[k % spec.dmas.length];
          const sf = FREES[d.srcFree];
          // the destination walks as many elements as the source (the program validator's rule)
          const df = elems(FREES[d.dstFree]) === elems(sf) ? FREES[d.dstFree] : sf;
          const src: APArgs = { tensor: d.src, partition: [64, d.parts], free: sf };
          if (d.scalar) src.dynamic = { scalar: { register: 'r1', value: 0 } };
          e.dma(d.op, {
            src,
            dst: { tensor: d.dst, partition: [64, d.parts], free: df },
            transpose: d.transpose as DmaArgs['transpose'],
            dstReduce: d.dstReduce as DmaArgs['dstReduce'],
          });
        }
        const m = b.build();
        const { considerDescNum, considerMinElems } = m.options;
        const memo = new RouteMemo(m, considerDescNum, considerMinElems);
        for (const I of m.instrs) {
          if (!isDMAFamily(I.op)) continue;
          const viaMemo: unknown[] = [];
          const direct: unknown[] = [];
          const r = memo.route(I, (...a) => void viaMemo.push(a));
          const want = getDGEInstructionType(I, m, considerDescNum, considerMinElems, (...a) =>
            direct.push(a),
          );
          expect(r).toBe(want);
          expect(viaMemo).toEqual(direct);
        }
        hits += m.instrs.length - m.apShapes.size;
      }),
      { seed: 20261201, numRuns: 300 },
    );
    expect(hits).toBeGreaterThan(0);
  });

  it('gives the route getDGEInstructionType gives with more keys than its table of recent keys holds', () => {
    // source and destination shapes of 8 free splits and 3 partition counts, 2 opcodes: a few
    // hundred keys, met again and again in a shuffled order
    const b = fixture(30, { dgeLevels: ALL });
    const e = b.function('main').block('e');
    const splits: [number, number][][] = [];
    for (let a = 1; a <= 64; a *= 2)
      splits.push(
        [
          [64 / a, a],
          [1, 64 / a],
        ],
        [[1, 64]],
      );
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let k = 0; k < 3000; k++) {
      const r = next();
      const parts = 8 + 8 * ((r >>> 4) % 3);
      const src: APArgs = { tensor: 's0', partition: [64, parts], free: splits[r % splits.length] };
      const dst: APArgs = { tensor: 'out', partition: [64, parts], free: splits[(r >>> 8) % 8] };
      e.dma((r >>> 12) % 2 === 0 ? 'Save' : 'GenericSave', { src, dst });
    }
    const m = b.build();
    const keys = new Set(m.instrs.map((I) => `${I.op}/${I.src!.shapeId}/${I.dst!.shapeId}`));
    expect(keys.size).toBeGreaterThan(128);
    const memo = new RouteMemo(m, true, true);
    const routes = new Set<number>();
    let errors = 0;
    for (const I of m.instrs) {
      const viaMemo: unknown[] = [];
      const direct: unknown[] = [];
      const want = getDGEInstructionType(I, m, true, true, (...a) => void direct.push(a));
      expect(memo.route(I, (...a) => void viaMemo.push(a))).toBe(want);
      expect(viaMemo).toEqual(direct);
      routes.add(want);
      errors += direct.length;
    }
    expect(routes.size).toBeGreaterThan(1); // the keys route differently, some with errors
    expect(errors).toBeGreaterThan(0);
  });

  it('keys on each thing the route reads: DMAs differing in one of them get their own route', () => {
    const base: DmaArgs = { src: tile('s0'), dst: tile('out') };
    const variants: [DmaOpName, DmaArgs][] = [
      ['Save', base],
      ['Save', { ...base, dst: tile('h2') }], // the destination's kind
      ['Save', { ...base, src: tile('sp') }], // the source's kind
      ['GenericSave', base], // the opcode
      ['Save', { ...base, dstReduce: 'add' }], // a flavour
      [
        'Save',
        {
          ...base,
          src: { ...tile('s0'), partition: [64, 64] },
          dst: { ...tile('out'), partition: [64, 64] },
        },
      ],
      ['Save', { src: tile16('b0'), dst: tile16('hb') }], // the dtype
      ['Save', { src: tile16T('b0'), dst: tile16('hb'), transpose: 'dma' }],
      ['Save', { src: tile16T('b0'), dst: tile16('hb') }],
    ];
    const b = fixture(30, { dgeLevels: ALL });
    const e = b.function('main').block('e');
    for (const [op, args] of variants) e.dma(op, args);
    const m = b.build();
    const memo = new RouteMemo(m, true, true);
    const got = m.instrs.map((I) => memo.route(I, () => {}));
    const want = m.instrs.map((I) => getDGEInstructionType(I, m, true, true, () => {}));
    expect(got).toEqual(want);
    expect(new Set(want).size).toBeGreaterThan(2); // the variants do route differently
  });

  it('patterns of one shape share one id and one free array; kind and dtype are part of the shape', () => {
    const b = fixture(30, { dgeLevels: ALL });
    const e = b.function('main').block('e');
    e.load({ src: { tensor: 'in', partition: [64, 128], free: [[1, 64]] }, dst: tile('s0') });
    e.load({
      src: { tensor: 'in', offset: 64, partition: [64, 128], free: [[1, 64]] },
      dst: tile('s1'),
    });
    e.save({ src: tile('s0'), dst: { tensor: 'out', partition: [64, 128], free: [[1, 64]] } });
    const m = b.build();
    const [a, c, s] = m.instrs;
    expect(c.src!.shapeId).toBe(a.src!.shapeId); // another offset, the same shape
    expect(c.src!.free).toBe(a.src!.free);
    expect(c.dst!.shapeId).toBe(a.dst!.shapeId); // s0 and s1: both Internal fp32
    expect(s.dst!.shapeId).not.toBe(a.src!.shapeId); // Output is not Input
    expect(m.apShapes.size).toBe(3);
  });

  it('computes a pattern built outside the program path (no shape id) every time', () => {
    const b = fixture(30, { dgeLevels: ALL });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'd' });
    const m = b.build();
    const d = inst(m, 'd');
    const want = getDGEInstructionType(d, m, true, true, () => {});
    const s = d.src!;
    d.src = new AccessPattern(s.tensor, s.offset, s.partStep, s.partNum, [...s.free]);
    expect(d.src.shapeId).toBe(-1);
    expect(new RouteMemo(m, true, true).route(d, () => {})).toBe(want);
  });
});
