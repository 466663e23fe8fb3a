import { describe, expect, it } from 'vitest';
import {
  ComputeOp,
  DMA_CONFIGS_OFFSET,
  decodeDgeDescriptor,
  encodeDgeDescriptorBytes,
  validateDgeDescriptor,
  type DgeDescriptor,
} from '../../../csr/formats/dge-desc.ts';
import {
  decodeMicroOp,
  encodeMicroOps,
  formatMicroOp,
  validateMicroOps,
} from '../../../csr/formats/dge-ops.ts';
import { DGE_DMA_CHANNELS } from '../../../csr/formats/dge-ops.ts';
import { nestDescriptors, type EmitContext } from '../../../compiler/lower/emit.ts';
import { buildNest } from '../../../compiler/lower/shape.ts';
import type { LoweredProgram } from '../../../compiler/lower/types.ts';
import { hexBytes, lowered } from './helpers.ts';

function only(low: LoweredProgram) {
  expect(low.dmas).toHaveLength(1);
  const d = low.dmas[0];
  expect(d.streams).toHaveLength(1);
  return { d, s: d.streams[0], desc: d.streams[0].descriptors[0] };
}

function bytesOf(desc: DgeDescriptor): string {
  return hexBytes(encodeDgeDescriptorBytes(desc));
}

const Z8 = '00 00 00 00 00 00 00 00';

describe('golden vectors: a contiguous load on Pool (SWDGE)', () => {
  const low = () =>
    lowered(
      (bb) =>
        bb.load({
          name: 'load',
          qos: 'P1',
          src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
          dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
        }),
      30,
      { dgeLevels: ['spill_reload'] },
    );

  it('DIRECT2D: opcode 0, compute_op NONE, FP32, priority_class 2 (P1) at +12, bound checks of regions 0 and 2', () => {
    const { d, desc } = only(low());
    expect(d.backend).toBe('pool');
    expect(bytesOf(desc)).toBe(
      [
        '00 00 09 00 04 00 ff ff',
        '00 00 00 00 02 80 82 00',
        '00 00 00 00 01 00 00 00', // src_addr 0x1_0000_0000
        '00 00 00 04 00 00 00 00', // dst_addr 0x400_0000
        '00 20 01 00 00 20 01 00', // src_num_elem [8192, 1], dst_num_elem [8192, 1]
        '01 00 00 00 00 00 00 00', // src_step_elem [1, 0]
        '01 00 00 00 00 00 00 00', // dst_step_elem [1, 0]
        Z8,
      ].join(' '),
    );
  });

  it('micro-ops (CAYMAN): REGWRITE, one GENERATE (RD: HBM -> local, addr = source), then 2 DIMPUSHes (Pool has 2 dims)', () => {
    const { s } = only(low());
    expect(s.microOps.map(formatMicroOp)).toEqual([
      'push REGWRITE to DMA[0]',
      'push GENERATE to DMA[0]: RD : addr=0x100000000, elem_size=4, sem_num=-1',
      'push DIMPUSH to DMA[0]: [8192,8192][1,1]',
      'push DIMPUSH to DMA[0]: [1,1][0,0]',
    ]);
    const bytes = encodeMicroOps(s.microOps);
    const rows = [0, 1, 2, 3].map((i) => hexBytes(bytes.subarray(16 * i, 16 * i + 16)));
    expect(rows).toEqual([
      '03 00 00 00 a0 00 00 00 ff ff ff ff 00 00 00 00', // MEMCOPY_DMA_CFG (reg 40) = queues 0xffff | DMAs 0xffff
      '01 00 00 00 04 00 ff ff 00 00 00 00 01 00 00 00',
      '02 00 00 20 00 20 00 00 01 00 00 00 01 00 00 00',
      '02 00 01 00 01 00 00 00 00 00 00 00 00 00 00 00',
    ]);
  });

  it('§5.1 one GENERATE per data descriptor carrying its direction: WR (local -> HBM) names the destination', () => {
    const lowSave = lowered(
      (bb) =>
        bb.save({
          dgeType: 'SWDGE',
          src: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
          dst: { tensor: 'h', partition: [64, 128], free: [[1, 64]] },
        }),
      30,
      { dgeLevels: ['spill_reload'] },
    );
    const gen = only(lowSave)
      .s.microOps.filter((o) => o.op === 'GENERATE')
      .map(formatMicroOp);
    expect(gen).toEqual([
      'push GENERATE to DMA[0]: WR : addr=0x200000000, elem_size=4, sem_num=-1',
    ]);
  });

  it('micro-ops on ArchLevel 40: REGWRITE is retired', () => {
    const low40 = lowered(
      (bb) =>
        bb.load({
          src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
          dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
        }),
      40,
      { dgeLevels: ['spill_reload'] },
    );
    const { s } = only(low40);
    expect(s.microOps.map((o) => o.op)).toEqual(['GENERATE', 'DIMPUSH', 'DIMPUSH']);
  });

  it('software backend (no Pool in the table): 4 DIMPUSHes, one per dge_shape register', () => {
    const lowSw = lowered(
      (bb) =>
        bb.load({
          src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
          dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
        }),
      30,
      { dgeLevels: ['spill_reload'] },
      { availability: { pool: false } },
    );
    const { d, s } = only(lowSw);
    expect(d.backend).toBe('software');
    expect(s.microOps.filter((o) => o.op === 'DIMPUSH')).toHaveLength(4);
  });

  it('encode/decode round trips of the descriptor and the micro-op stream', () => {
    const { s, desc } = only(low());
    const b = encodeDgeDescriptorBytes(desc);
    expect(decodeDgeDescriptor(b)).toEqual(desc);
    const v = validateDgeDescriptor(b);
    expect(v.ok).toBe(true);
    const ops = encodeMicroOps(s.microOps);
    const back = validateMicroOps(ops);
    expect(back.ok && back.value).toEqual(s.microOps);
    expect(decodeMicroOp(ops, 48)).toEqual(s.microOps[3]);
  });
});

describe('golden vectors: DIMPUSH with signed steps', () => {
  it('a reverse walk pushes a negative stride: [64,64][-64,1] is 0xffffffc0', () => {
    const low = lowered(
      (bb) =>
        bb.copy({
          src: { tensor: 't', offset: 127 * 64, partition: [-64, 128], free: [[1, 64]] },
          dst: { tensor: 'u', partition: [1, 128], free: [[128, 64]] },
        }),
      30,
      { dgeLevels: ['spill_reload'] },
    );
    // an SB -> SB copy is not IO / spill: it stays DGEType None, the host builds its BDs
    expect(low.dmas[0].backend).toBe('none');
    // the same nest on a DGE channel
    const n = buildNest(
      { baseElem: 0, nums: [64, 128], steps: [1, -64] },
      { baseElem: 0, nums: [64, 128], steps: [128, 1] },
      4,
      0x400_0000 + 127 * 256,
      0x400_8000,
    );
    const ops = encodeMicroOps([
      {
        op: 'DIMPUSH',
        dma: 3,
        num_src: n.srcNum[1],
        num_dst: n.dstNum[1],
        step_src: n.srcStep[1],
        step_dst: n.dstStep[1],
      },
    ]);
    expect(hexBytes(ops)).toBe('02 03 80 00 80 00 00 00 c0 ff ff ff 01 00 00 00');
  });
});

describe('golden vectors: DIRECT2D compute_op and DMA_CONFIGS', () => {
  const ctx = (computeOp: number, priorityClass: number): EmitContext => ({
    channel: 0,
    channelMask: 0xffff,
    queueMask: 0xffff,
    regwrite: true,
    dir: 0,
    priorityClass,
    dtype: 9,
    computeOp,
    srcBound: { bc_reg: 1, bc_enabled: true, bc_disable_oob_error_notif: false },
    dstBound: { bc_reg: 2, bc_enabled: true, bc_disable_oob_error_notif: true },
  });
  const nest = buildNest(
    { baseElem: 0, nums: [16, 4], steps: [1, 32] },
    { baseElem: 0, nums: [64], steps: [1] },
    4,
    0x1000,
    0x2000,
  );

  for (const [name, op] of [
    ['NONE', 0],
    ['ADD', 1],
    ['MULTIPLY', 2],
    ['MAX', 3],
    ['MIN', 4],
  ] as const) {
    it(`compute_op ${name} is byte 1 = ${op}`, () => {
      expect(ComputeOp[name]).toBe(op);
      const [d] = nestDescriptors(ctx(op, 3), nest, false);
      const b = encodeDgeDescriptorBytes(d);
      expect(b[1]).toBe(op);
      expect(b[12]).toBe(3);
      expect(b[13]).toBe(0x81); // bc_enabled | bc_reg 1
      expect(b[14]).toBe(0xc2); // bc_enabled | disable_oob | bc_reg 2
      expect(decodeDgeDescriptor(b)).toEqual(d);
    });
  }

  it('the whole DIRECT2D of a 16 x 4 block with row pitch 32', () => {
    const [d] = nestDescriptors(ctx(ComputeOp.ADD, 4), nest, false);
    expect(bytesOf(d)).toBe(
      [
        '00 01 09 00 04 00 ff ff',
        '00 00 00 00 04 81 c2 00',
        '00 10 00 00 00 00 00 00',
        '00 20 00 00 00 00 00 00',
        '10 00 04 00 10 00 04 00',
        '01 00 00 00 20 00 00 00',
        '01 00 00 00 10 00 00 00',
        Z8,
      ].join(' '),
    );
  });

  it('DMA_CONFIGS sits at +12 (DIRECT2D, DIRECT2D_XPOSE), +13 (GATHER_XPOSE), +61 (INDIRECT1D)', () => {
    expect(DMA_CONFIGS_OFFSET).toEqual({
      DIRECT2D: 12,
      DIRECT2D_XPOSE: 12,
      GATHER_XPOSE: 13,
      INDIRECT1D: 61,
    });
  });

  it('priority_class above 4 is refused (is_valid_dma_configs)', () => {
    const [d] = nestDescriptors(ctx(0, 5), nest, false);
    expect(() => encodeDgeDescriptorBytes(d)).toThrow(/priority_class/);
  });
});

describe('DMAQoSClass -> priority_class in every descriptor', () => {
  const table: [string, number][] = [
    ['Unassigned', 0],
    ['Default', 0],
    ['P0', 1],
    ['P1', 2],
    ['P2', 3],
    ['P3', 4],
    ['P4', 4],
    ['P9', 4],
    ['P14', 4],
  ];
  for (const [cls, wire] of table) {
    it(`${cls} -> ${wire}`, () => {
      const low = lowered(
        (bb) =>
          bb.load({
            qos: cls as 'P0',
            src: { tensor: 'x', partition: [64, 128], free: [[1, 64]] },
            dst: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
          }),
        30,
        { dgeLevels: ['spill_reload'] },
      );
      const { d, desc } = only(low);
      expect(d.priorityClass).toBe(wire);
      expect(encodeDgeDescriptorBytes(desc)[12]).toBe(wire);
    });
  }
});

describe('golden vectors: the transposes', () => {
  it('DIRECT2D_XPOSE of an xbar transpose (HWDGE -> RTL, 5 + 2 DIMPUSHes)', () => {
    const low = lowered(
      (bb) =>
        bb.copy({
          transpose: 'xbar',
          src: { tensor: 'p', partition: [1, 128], free: [[128, 128]] },
          dst: { tensor: 'q', partition: [128, 128], free: [[1, 128]] },
        }),
      30,
      { dgeLevels: ['transpose'] },
    );
    const { d, s, desc } = only(low);
    expect(d.backend).toBe('rtl');
    expect(bytesOf(desc)).toBe(
      [
        '02 00 08 00 02 00 ff ff',
        '00 00 00 00 00 82 82 00',
        '00 00 01 04 00 00 00 00',
        '00 80 01 04 00 00 00 00',
        '80 00 80 00 80 00 80 00',
        '01 00 00 00 80 00 00 00', // src rows of 128 (step 128), columns step 1
        '01 00 00 00 80 00 00 00',
        Z8,
      ].join(' '),
    );
    const dims = s.microOps.filter((o) => o.op === 'DIMPUSH').map(formatMicroOp);
    expect(dims).toHaveLength(7);
    expect(dims.slice(0, 3)).toEqual([
      'push DIMPUSH to DMA[0]: [128,128][128,1]',
      'push DIMPUSH to DMA[0]: [128,128][1,128]',
      'push DIMPUSH to DMA[0]: [1,1][0,0]',
    ]);
    expect(s.src).toEqual({
      elem_size: 2,
      num: [128, 128, 1, 1],
      step: [128, 1, 0, 0],
      is_src: true,
    });
    expect(d.descriptors).toBe(128 * 128); // 2-byte elements, no two adjacent on both sides
  });

  it('INDIRECT1D of a vector-offset gather (16 rows of 64 fp32)', () => {
    const low = lowered(
      (bb) =>
        bb.load({
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
    const { d, desc } = only(low);
    expect(d.backend).toBe('pool');
    expect(bytesOf(desc)).toBe(
      [
        '01 00 09 00 04 00 ff ff',
        '00 00 00 00 01 00 00 00', // src_addr
        '00 00 00 04 00 00 00 00', // dst_addr
        '00 00 03 00 01 00 00 00', // idx_addr 0x1_0003_0000
        '10 00 00 00 40 00 00 00', // num_idx 16, row_num_elem 64
        '40 00 00 00 40 00 00 00', // src / dst row strides 64
        '00 01 00 00 00 00 00 00', // idx_limit 256 (rows that stay inside x)
        '00 00 00 00 80 00 82 00', // bound check, DMA_CONFIGS at +61, bound check
      ].join(' '),
    );
    expect(d.descriptors).toBe(16);
  });

  it('GATHER_XPOSE of a vector-offset xbar transpose (software backend, Q7)', () => {
    const low = lowered(
      (bb) =>
        bb.copy({
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
    const { d, desc } = only(low);
    expect(d.backend).toBe('software');
    expect(bytesOf(desc)).toBe(
      [
        '03 08 02 00 ff ff 00 00',
        '10 00 00 00 80 00 82 00', // num_idx 16, bound check, DMA_CONFIGS at +13, bound check
        '00 00 02 00 01 00 00 00',
        '00 00 01 04 00 00 00 00',
        '00 00 03 00 01 00 00 00',
        '80 00 00 00 80 00 00 00', // row_num_elem 128, src_step 128
        '80 00 00 00 80 00 00 00', // dst_step 128, idx_limit 128
        Z8,
      ].join(' '),
    );
  });
});

describe('DMA channels', () => {
  it('the programs of a queue rotate over min(dmaEngines, 16) channels', () => {
    const low = lowered(
      (bb) => {
        for (let i = 0; i < 6; i++) {
          bb.load({
            dmaEngines: 4,
            src: { tensor: 'x', offset: i * 64, partition: [1, 64] },
            dst: { tensor: 't', offset: i * 64, partition: [1, 64] },
          });
        }
      },
      30,
      { dgeLevels: ['spill_reload'] },
    );
    expect(low.queues[0].channels).toBe(4);
    expect(low.dmas.map((d) => d.streams[0].channel)).toEqual([0, 1, 2, 3, 0, 1]);
    expect(DGE_DMA_CHANNELS).toBe(16);
  });
});
