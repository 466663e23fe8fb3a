import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { DGEType, DstReduce } from '../../../compiler/ir/enums.ts';
import type { Instr, Module } from '../../../compiler/ir/module.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import {
  BACKEND_AVAILABILITY,
  BACKEND_DIMS,
  hasRegwrite,
  selectBackend,
} from '../../../compiler/lower/backend.ts';
import { compiled } from './helpers.ts';

function dma(m: Module, name: string): Instr {
  const I = m.instrByName.get(name);
  if (!I) throw new Error(`no instruction ${name}`);
  return I;
}

/** Replaces an access pattern of a compiled DMA (the IR's fields are plain properties). */
function setAP(I: Instr, side: 'src' | 'dst', ap: AccessPattern): void {
  (I as { src: AccessPattern | null; dst: AccessPattern | null })[side] = ap;
}

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  return 'no error';
}

const tile = { partition: [64, 128] as [number, number], free: [[1, 64]] as [number, number][] };

describe('bound layer 1: every descriptor address inside its declared region', () => {
  it('a source walk that leaves its region is rejected, naming both sides', () => {
    const m = compiled((bb) =>
      bb.load({ name: 'l', src: { tensor: 'x', ...tile }, dst: { tensor: 't', ...tile } }),
    );
    const I = dma(m, 'l');
    const x = m.tensorByName.get('x')!;
    // 8192 elements starting 1 MiB - 4 KiB into the 1 MiB host region: runs past its end
    setAP(I, 'src', new AccessPattern(x, (0x10_0000 - 0x1000) / 4, 64, 128, [1, 64]));
    const msg = code(() => lower(m));
    expect(msg).toMatch(
      /^LOWER_ERROR: #0 \(l\): bound layer 1: bounds:\(0 0x100107000<=0x100100000, 1 /,
    );
    expect(msg).toMatch(/region "host"/);
  });

  it('a destination walk below its region is rejected', () => {
    const m = compiled((bb) =>
      bb.load({ name: 'l', src: { tensor: 'x', ...tile }, dst: { tensor: 't', ...tile } }),
    );
    const I = dma(m, 'l');
    const t = m.tensorByName.get('t')!;
    setAP(I, 'dst', new AccessPattern(t, -64, 64, 128, [1, 64]));
    expect(code(() => lower(m))).toMatch(
      /bound layer 1: bounds:\(1 [^,]*, 0 [^)]*\): .*destination 0x3ffff00/,
    );
  });
});

describe('bound layer 2: source bytes == destination bytes', () => {
  it('fp32 -> bf16 of the same element count moves 4 and 2 bytes per element: rejected', () => {
    const m = compiled((bb) =>
      bb.copy({
        name: 'c',
        src: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
        dst: { tensor: 'p', partition: [64, 128], free: [[1, 64]] },
      }),
    );
    expect(code(() => lower(m))).toMatch(
      /LOWER_ERROR: #0 \(c\): bound layer 2: the source moves 32768 bytes \(8192 x 4\), the destination 16384 \(8192 x 2\)/,
    );
  });

  it('a same-size dtype change is a conversion a ring descriptor cannot do', () => {
    const b = compiled((bb) =>
      bb.copy({ name: 'c', src: { tensor: 't', ...tile }, dst: { tensor: 'u', ...tile } }),
    );
    const I = dma(b, 'c');
    const idx = b.tensorByName.get('sidx')!; // int32 [16]
    setAP(I, 'dst', new AccessPattern(idx, 0, 1, 16, []));
    setAP(I, 'src', new AccessPattern(b.tensorByName.get('t')!, 0, 1, 16, []));
    expect(code(() => lower(b))).toMatch(/converts fp32 to int32/);
  });
});

describe('bound layer 3: descriptor count against carveout and ring', () => {
  const xpose = (bb: Parameters<Parameters<typeof compiled>[0]>[0]) =>
    bb.copy({
      name: 'xp',
      transpose: 'xbar',
      src: { tensor: 'p', partition: [1, 128], free: [[128, 128]] },
      dst: { tensor: 'q', partition: [128, 128], free: [[1, 128]] },
    });

  it('a DGE memcopy needing more descriptors than the carveout holds is rejected', () => {
    const m = compiled(xpose, 30, { dgeLevels: ['transpose'] });
    expect(code(() => lower(m, { carveoutDescriptors: 4096 }))).toMatch(
      /bound layer 3: the DMA needs 16384 descriptors, more than the 4096 of the DGE carveout \(MEMCOPY_CARVEOUT_CFG\)/,
    );
    expect(code(() => lower(m))).toBe('no error');
  });

  it('a descriptor program larger than the ring is rejected', () => {
    const m = compiled(xpose, 30, { dgeLevels: ['transpose'] });
    expect(code(() => lower(m, { ringSize: 1024 }))).toMatch(
      /bound layer 3: a descriptor program of 16384 descriptors does not fit a ring of 1024/,
    );
  });
});

describe('gather-transpose constraints', () => {
  const gx = (index: string, dstOffset = 0) =>
    compiled(
      (bb) =>
        bb.copy({
          name: 'gx',
          transpose: 'xbar',
          src: {
            tensor: 'a',
            partition: [128, 16],
            free: [[1, 128]],
            dynamic: { vector: { indexTensor: index } },
          },
          dst: { tensor: 'p', offset: dstOffset, partition: [1, 16], free: [[128, 128]] },
        }),
      30,
      { dgeLevels: ['vector_dynamic_offsets'] },
    );

  it('the valid gather transpose lowers to GATHER_XPOSE', () => {
    expect(lower(gx('idx')).dmas[0].streams[0].descriptors[0].kind).toBe('GATHER_XPOSE');
  });

  it('the index tensor must be UINT32', () => {
    expect(code(() => lower(gx('sidx')))).toMatch(
      /gather transpose: the index tensor "sidx" is int32/,
    );
  });

  it('the destination must be 32-byte aligned', () => {
    expect(code(() => lower(gx('idx', 1)))).toMatch(
      /gather transpose: dst_addr expected 32-byte aligned/,
    );
  });

  it('the indices must be a multiple of 16', () => {
    const m = gx('idx');
    const I = dma(m, 'gx');
    const a = m.tensorByName.get('a')!;
    const p = m.tensorByName.get('p')!;
    setAP(
      I,
      'src',
      new AccessPattern(a, 0, 128, 8, [1, 128], null, { indexTensor: m.tensorByName.get('idx')! }),
    );
    setAP(I, 'dst', new AccessPattern(p, 0, 1, 8, [128, 128]));
    expect(code(() => lower(m))).toMatch(/num_idx expected a multiple of 16, got 8/);
  });

  it('only 2-byte elements go through the xbar', () => {
    const m = compiled(
      (bb) =>
        bb.copy({
          name: 'x4',
          transpose: 'xbar',
          src: { tensor: 't', partition: [1, 64], free: [[64, 128]] },
          dst: { tensor: 'u', partition: [128, 64], free: [[1, 128]] },
        }),
      30,
      { dgeLevels: ['transpose'] },
    );
    const I = dma(m, 'x4');
    expect(I.dgeType).toBe(DGEType.None); // the compiler keeps a 4-byte transpose off the xbar
    I.dgeType = DGEType.HWDGE;
    expect(code(() => lower(m))).toMatch(/xbar transpose of 4-byte elements: only 2-byte dtypes/);
  });

  it('an xbar transpose moves 16-row tiles', () => {
    const m = compiled(
      (bb) =>
        bb.copy({
          name: 'xp',
          transpose: 'xbar',
          src: { tensor: 'p', partition: [1, 128], free: [[128, 128]] },
          dst: { tensor: 'q', partition: [128, 128], free: [[1, 128]] },
        }),
      30,
      { dgeLevels: ['transpose'] },
    );
    const I = dma(m, 'xp');
    setAP(I, 'src', new AccessPattern(m.tensorByName.get('p')!, 0, 1, 128, [128, 24]));
    setAP(I, 'dst', new AccessPattern(m.tensorByName.get('q')!, 0, 24, 128, [1, 24]));
    expect(code(() => lower(m))).toMatch(/xbar transpose of 24 source rows/);
  });

  it('an xbar destination must be 32-byte aligned', () => {
    const m = compiled(
      (bb) =>
        bb.copy({
          transpose: 'xbar',
          src: { tensor: 'p', partition: [1, 64], free: [[128, 64]] },
          dst: { tensor: 'q', offset: 8, partition: [64, 64], free: [[1, 64]] },
        }),
      30,
      { dgeLevels: ['transpose'] },
    );
    expect(code(() => lower(m))).toMatch(
      /xbar transpose destination 0x4018010 is not 32-byte aligned/,
    );
  });
});

describe('backend choice from the availability table', () => {
  it('the table per ArchLevel: no DGE on Inf1, Pool only on Trn1, all three from Trn2', () => {
    expect(BACKEND_AVAILABILITY[10]).toEqual({ pool: false, rtl: false, software: false });
    expect(BACKEND_AVAILABILITY[20]).toEqual({ pool: true, rtl: false, software: false });
    expect(BACKEND_AVAILABILITY[30]).toEqual({ pool: true, rtl: true, software: true });
    expect(BACKEND_DIMS).toEqual({ none: Infinity, pool: 2, software: 4, rtl: 7 });
    expect(hasRegwrite(30)).toBe(true);
    expect(hasRegwrite(40)).toBe(false);
  });

  it('SWDGE takes Pool first (table[0]), then software; HWDGE takes RTL; None has no backend', () => {
    const I = { dgeType: DGEType.SWDGE, dstReduce: DstReduce.none, id: 0 } as Instr;
    const all = { pool: true, rtl: true, software: true };
    expect(selectBackend(I, all, false, 'i')).toBe('pool');
    expect(selectBackend(I, { ...all, pool: false }, false, 'i')).toBe('software');
    expect(selectBackend(I, all, true, 'i')).toBe('software'); // gather transpose: Q7
    expect(() => selectBackend(I, { pool: false, rtl: true, software: false }, false, 'i')).toThrow(
      /NO BACKEND FOUND/,
    );
    expect(selectBackend({ ...I, dgeType: DGEType.HWDGE } as Instr, all, false, 'i')).toBe('rtl');
    expect(() =>
      selectBackend({ ...I, dgeType: DGEType.HWDGE } as Instr, { ...all, rtl: false }, false, 'i'),
    ).toThrow(/needs the RTL backend/);
    expect(selectBackend({ ...I, dgeType: DGEType.None } as Instr, all, false, 'i')).toBe('none');
  });

  it('a destination reduce needs Pool: on the host path it is rejected', () => {
    const m = compiled((bb) =>
      bb.copy({
        name: 'r',
        dstReduce: 'add',
        src: { tensor: 't', ...tile },
        dst: { tensor: 'u', ...tile },
      }),
    );
    expect(code(() => lower(m))).toMatch(
      /destination reduce is a DIRECT2D compute_op of the Pool backend/,
    );
  });

  it('an indirect DMA whose direct side does not walk the index rows outermost is rejected', () => {
    const m = compiled(
      (bb) =>
        bb.load({
          name: 'g',
          src: {
            tensor: 'x',
            partition: [64, 16],
            free: [[1, 64]],
            dynamic: { vector: { indexTensor: 'idx' } },
          },
          dst: {
            tensor: 't',
            partition: [64, 4],
            free: [
              [256, 4],
              [1, 64],
            ],
          },
        }),
      30,
      { dgeLevels: ['vector_dynamic_offsets'] },
    );
    // the destination's 16 rows are 4 x 4 with pitches 64 and 256: not one dimension
    expect(code(() => lower(m))).toMatch(
      /indirect DMA: the destination must walk the 16 index rows/,
    );
  });
});
