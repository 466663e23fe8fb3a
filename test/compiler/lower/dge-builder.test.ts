/** Rules of seed 004 Part 1 the lowering follows, each test named after its rule. */
import { describe, expect, it } from 'vitest';
import { formatMicroOp } from '../../../csr/formats/dge-ops.ts';
import { parseBackendList } from '../../../compiler/lower/backend.ts';
import {
  carveoutProblem,
  packCarveoutCfg,
  packDmaCfg,
  unpackCarveoutCfg,
  unpackDmaCfg,
} from '../../../csr/formats/dge-local-regs.ts';
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

describe('seed 004 §5.1: "for an indirect gather, one GENERATE per gathered row"', () => {
  it('an INDIRECT1D gather issues one GENERATE per row, addr = the row the index names, each with its DIMPUSHes', () => {
    const idx = [15, 3, 0, 7, 9, 1, 12, 5, 2, 14, 6, 11, 4, 13, 8, 10];
    const low = lowered(
      (bb) =>
        bb.load({
          name: 'g',
          src: {
            tensor: 'x',
            partition: [64, 16],
            free: [[1, 64]],
            dynamic: { vector: { indexTensor: 'idx' } },
          },
          dst: { tensor: 't', partition: [64, 16], free: [[1, 64]] },
        }),
      30,
      { dgeLevels: ['vector_dynamic_offsets'] },
    );
    const d = low.dmas[0];
    expect(d.backend).toBe('pool');
    expect(d.streams).toHaveLength(1);
    const ops = d.streams[0].microOps;
    const gens = ops.filter((o) => o.op === 'GENERATE');
    expect(gens).toHaveLength(16);
    expect(gens.map((o) => (o as { addr: number }).addr)).toEqual(
      idx.map((r) => 0x1_0000_0000 + r * 64 * 4),
    );
    expect(ops.map(formatMicroOp).slice(0, 4)).toEqual([
      'push REGWRITE to DMA[0]',
      'push GENERATE to DMA[0]: RD : addr=0x100000f00, elem_size=4, sem_num=-1',
      'push DIMPUSH to DMA[0]: [64,64][1,1]',
      'push DIMPUSH to DMA[0]: [1,1][0,0]',
    ]);
  });
});

describe('seed 004 §5.4: MEMCOPY_CARVEOUT_CFG (local register 39) and MEMCOPY_DMA_CFG (local register 40)', () => {
  const copy = (bb: Parameters<Parameters<typeof lowered>[0]>[0]) =>
    bb.load({
      name: 'l',
      dgeType: 'SWDGE',
      src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
      dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
    });
  const xpose = (bb: Parameters<Parameters<typeof lowered>[0]>[0]) =>
    bb.copy({
      name: 'x',
      transpose: 'xbar',
      src: { tensor: 'p', partition: [1, 128], free: [[128, 128]] },
      dst: { tensor: 'q', partition: [128, 128], free: [[1, 128]] },
    });

  it('register values: lo16 the carveout offset in descriptors, hi16 its size; lo16 the DMAs, hi16 the queues', () => {
    expect(packCarveoutCfg({ offset: 8, size: 1000, reserved: 0 })).toBe((1000 << 16) | 8);
    expect(unpackCarveoutCfg(0x03e80008)).toEqual({ offset: 8, size: 1000 });
    expect(packDmaCfg({ dmas: 0x00f0, queues: 0x0003 })).toBe(0x000300f0);
    expect(unpackDmaCfg(0xffff0001)).toEqual({ dmas: 1, queues: 0xffff });
  });

  it('"The carveout must be aligned to 64 bytes": an offset that is not a multiple of 4 descriptors is refused', () => {
    expect(carveoutProblem({ offset: 2, size: 100, reserved: 0 })).toMatchObject({
      field: 'offset',
    });
    expect(carveoutProblem({ offset: 4, size: 100, reserved: 0 })).toBeNull();
    expect(() => lowered(copy, 30, { memcopyCarveoutCfg: { offset: 6 } })).toThrow(
      /\$\.options\.memcopyCarveoutCfg\.offset: expected a 64-byte aligned carveout/,
    );
    expect(() => lowered(copy, 30, { memcopyCarveoutCfg: { offset: 0xfff0, size: 0x20 } })).toThrow(
      /offset \+ size <= 65536/,
    );
  });

  it('"The size of the carveout region (minus the reserved ones) limits the maximum number of descriptors in a single memcopy"', () => {
    // the xbar transpose needs 16384 descriptors
    expect(() =>
      lowered(xpose, 30, {
        dgeLevels: ['transpose'],
        memcopyCarveoutCfg: { size: 16384, reserved: 1 },
      }),
    ).toThrow(/the DMA needs 16384 descriptors, more than the 16383 of the DGE carveout/);
    expect(
      lowered(xpose, 30, { dgeLevels: ['transpose'], memcopyCarveoutCfg: { size: 16384 } }).dmas[0]
        .descriptors,
    ).toBe(16384);
  });

  it('MEMCOPY_DMA_CFG lo16 narrows the DMA channels and the REGWRITE carries both masks', () => {
    const d = lowered(copy, 30, { memcopyDmaCfg: { dmas: 0x0006, queues: 0x0003 } }).dmas[0];
    expect(d.channelMask).toBe(0x0006);
    expect(d.streams[0].channel).toBe(1);
    expect(d.streams[0].microOps[0]).toMatchObject({ op: 'REGWRITE', value: 0x00030006 });
    expect(() => lowered(copy, 30, { memcopyDmaCfg: { dmas: 0 } })).toThrow(
      /MEMCOPY_DMA_CFG and the DGE mailboxes leave priority class 0 no DMA channel/,
    );
  });
});
