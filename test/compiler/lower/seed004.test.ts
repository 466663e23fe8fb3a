/** Rules of seed 004 Part 1 the lowering follows, each test named after its rule. */
import { describe, expect, it } from 'vitest';
import { formatMicroOp } from '../../../csr/formats/dge-ops.ts';
import { parseBackendList } from '../../../compiler/lower/backend.ts';
import { lowered } from './helpers.ts';

describe('seed 004 §4.1 / §3.4: RTL expands the 5 + 2-dim form in hardware', () => {
  // a source of five dims that do not merge (steps 2048, 512, 128, 32, 2 elements), 128 elements
  const five = {
    tensor: 'x',
    partition: [2048, 2] as [number, number],
    free: [
      [512, 2],
      [128, 2],
      [32, 2],
      [2, 8],
    ] as [number, number][],
  };
  const dst = {
    tensor: 't',
    partition: [64, 2] as [number, number],
    free: [[1, 64]] as [number, number][],
  };

  it('an RTL descriptor program keeps a 5-deep loop nest (one program, 5 of its 7 DIMPUSHes carry dims)', () => {
    const low = lowered((bb) => bb.copy({ name: 'c', src: five, dst, dgeType: 'HWDGE' }), 30, {
      dgeLevels: ['spill_reload'],
    });
    const d = low.dmas[0];
    expect(d.backend).toBe('rtl');
    expect(d.streams).toHaveLength(1);
    const dims = d.streams[0].microOps.filter((o) => o.op === 'DIMPUSH').map(formatMicroOp);
    expect(dims).toHaveLength(7);
    expect(dims.slice(0, 5)).toEqual([
      'push DIMPUSH to DMA[0]: [8,8][2,1]',
      'push DIMPUSH to DMA[0]: [2,2][32,8]',
      'push DIMPUSH to DMA[0]: [2,2][128,16]',
      'push DIMPUSH to DMA[0]: [2,2][512,32]',
      'push DIMPUSH to DMA[0]: [2,2][2048,64]',
    ]);
    expect(dims.slice(5)).toEqual(Array(2).fill('push DIMPUSH to DMA[0]: [1,1][0,0]'));
    // a 5-deep program is past the firmware's 4-deep dge_shape: no $S view
    expect(d.streams[0].src).toBeNull();
    // the two inner dims fold into each DIRECT2D, the outer three are its 2 x 2 x 2 iterations
    expect(d.streams[0].descriptors).toHaveLength(8);
    expect(d.bytes).toBe(128 * 4);
  });

  it('Pool and software stay at the 4-deep dge_shape: the same nest is split', () => {
    const low = lowered((bb) => bb.copy({ name: 'c', src: five, dst, dgeType: 'SWDGE' }), 30, {
      dgeLevels: ['spill_reload'],
    });
    const d = low.dmas[0];
    expect(d.backend).toBe('pool');
    expect(d.streams.length).toBeGreaterThan(1);
  });
});

describe('seed 004 §5.5: a gather transpose on the host path is lowered before anything is written', () => {
  it('an IndirectLoad xbar gather transpose (DGEType None) becomes host indirect walks, one per row element', () => {
    const low = lowered(
      (bb) =>
        bb.dma('IndirectLoad', {
          name: 'gx',
          transpose: 'xbar',
          src: {
            tensor: 'a',
            partition: [128, 16],
            free: [[1, 128]],
            dynamic: { vector: { indexTensor: 'idx' } },
          },
          dst: { tensor: 'p', partition: [1, 16], free: [[128, 128]] },
        }),
      30,
      { dgeLevels: ['vector_dynamic_offsets'] },
    );
    const d = low.dmas[0];
    expect(d.backend).toBe('none');
    expect(d.streams).toEqual([]);
    expect(d.walks).toHaveLength(128);
    expect(d.walks[1]).toMatchObject({ type: 'indirect', numIdx: 16, rowElems: 1, dstStep: 1 });
    expect(d.bytes).toBe(16 * 128 * 2);
  });
});

describe("seed 004 §4.2: the backend availability table (the firmware's runtime-populated BSS table)", () => {
  const load = (bb: Parameters<Parameters<typeof lowered>[0]>[0]) =>
    bb.load({
      name: 'l',
      dgeType: 'SWDGE',
      src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
      dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
    });

  it('the program gives it (options.backends), the caller overrides it, the ArchLevel row is the default', () => {
    expect(lowered(load).dmas[0].backend).toBe('pool'); // ArchLevel 30: Pool read first
    expect(lowered(load, 30, { backends: { pool: false } }).dmas[0].backend).toBe('software');
    expect(
      lowered(load, 30, { backends: { pool: false } }, { availability: { pool: true } }).dmas[0]
        .backend,
    ).toBe('pool');
    expect(() => lowered(load, 30, { backends: { pool: false, software: false } })).toThrow(
      /NO BACKEND FOUND for an SWDGE DMA/,
    );
    // ArchLevel 20 (Pool only by default) reaches software when the program says the core has it
    expect(lowered(load, 20, { backends: { pool: false, software: true } }).dmas[0].backend).toBe(
      'software',
    );
  });

  it('parseBackendList: the CLI list (--dge-backends pool,software | none)', () => {
    expect(parseBackendList('software')).toEqual({ pool: false, rtl: false, software: true });
    expect(parseBackendList('pool, rtl')).toEqual({ pool: true, rtl: true, software: false });
    expect(parseBackendList('none')).toEqual({ pool: false, rtl: false, software: false });
    expect(() => parseBackendList('pool,none')).toThrow(/unknown DGE backend "none"/);
    expect(() => parseBackendList('')).toThrow(/empty/);
  });
});
