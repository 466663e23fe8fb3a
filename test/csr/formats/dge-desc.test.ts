import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { NxdmaError } from '../../../common/errors.ts';
import {
  ComputeOp,
  DGE_CODECS,
  DGE_DESC_SIZE,
  DMA_CONFIGS_OFFSET,
  DgeDtype,
  DgeOpcode,
  GATHER_XPOSE_RULES,
  IndirectSide,
  NO_BOUND_CHECK,
  boundCheck,
  decodeBoundCheck,
  decodeDgeDescriptor,
  decodeDmaConfigs,
  dgeDescriptorBytes,
  dgeDescriptorProblem,
  encodeBoundCheck,
  encodeDgeDescriptor,
  encodeDgeDescriptorBytes,
  encodeDmaConfigs,
  isValidDmaConfigs,
  validateDgeDescriptor,
  type DgeDescriptor,
  type Direct2D,
  type GatherXpose,
  type Indirect1D,
  type Direct2DXpose,
} from '../../../csr/formats/dge-desc.ts';
import { RecordCodec } from '../../../csr/formats/record-codec.ts';
import { toPriorityClass, DMAQoSClass } from '../../../csr/formats/qos-class.ts';
import { thrown as err } from '../../support/errors.ts';
import { normalizeTables } from './markdown.ts';
import { direct2d, gather, hexOf, indirect, le16, le32, le64, xpose } from './dge-desc-fixtures.ts';

describe('DGE descriptor golden vectors (layouts in docs/descriptors.md)', () => {
  it('DIRECT2D with compute_op ADD', () => {
    const want =
      '00' +
      '01' +
      '09' +
      '00' +
      le16(4) +
      le16(0xffff) +
      '00000000' + // opcode, op, dtype, -, elem_size, sem -1, reserved
      '03' +
      '00' +
      '85' +
      '00' + // dma_configs pc 3, src bc, dst bc (enabled | reg 5), reserved
      le64(0x1000) +
      le64(0x2000) +
      le16(4) +
      le16(2) +
      le16(8) +
      le16(1) +
      le32(1) +
      le32(4) +
      le32(1) +
      le32(-8) +
      '00'.repeat(8);
    expect(hexOf(encodeDgeDescriptorBytes(direct2d))).toBe(want);
  });

  it('DIRECT2D_XPOSE', () => {
    const want =
      '02' +
      '00' +
      '08' +
      '00' +
      le16(2) +
      le16(7) +
      '00000000' +
      '04' +
      '00' +
      '00' +
      '00' +
      le64(0x10_0000_0000) +
      le64(0x20_0000) +
      le16(128) +
      le16(16) +
      le16(16) +
      le16(128) +
      le32(1) +
      le32(128) +
      le32(1) +
      le32(16) +
      '00'.repeat(8);
    expect(hexOf(encodeDgeDescriptorBytes(xpose))).toBe(want);
  });

  it('INDIRECT1D', () => {
    const want =
      '01' +
      '00' +
      '00' +
      '00' +
      le16(3) +
      le16(0) +
      le64(0x4000) +
      le64(0x8000) +
      le64(0xc000) +
      le32(100) +
      le16(10) +
      '0000' +
      le32(30) +
      le32(-10) +
      le32(64) +
      '00'.repeat(8) +
      'c1' +
      '01' +
      '00' +
      '00'; // src bc (enabled | no-notif | reg 1), dma_configs pc 1 at +61, dst bc, reserved
    expect(hexOf(encodeDgeDescriptorBytes(indirect))).toBe(want);
  });

  it('GATHER_XPOSE', () => {
    const want =
      '03' +
      '07' +
      le16(2) +
      le16(2) +
      '0000' +
      le32(32) +
      '00' +
      '02' +
      '00' +
      '00' + // src bc, dma_configs pc 2 at +13, dst bc, reserved
      le64(0x100000) +
      le64(0x200020) +
      le64(0x300000) +
      le16(128) +
      '0000' +
      le32(256) +
      le32(32) +
      le32(0) +
      '00'.repeat(8);
    expect(hexOf(encodeDgeDescriptorBytes(gather))).toBe(want);
  });

  it('every descriptor is 64 bytes and byte 0 is its DGE_OPCODE (DIRECT2D 0, INDIRECT1D 1, TRANSPOSE 2, GATHER_TRANSPOSE 3)', () => {
    expect(DgeOpcode).toEqual({ DIRECT2D: 0, INDIRECT1D: 1, DIRECT2D_XPOSE: 2, GATHER_XPOSE: 3 });
    for (const d of [direct2d, xpose, indirect, gather]) {
      const b = encodeDgeDescriptorBytes(d);
      expect(b.length).toBe(DGE_DESC_SIZE);
      expect(b[0]).toBe(DgeOpcode[d.kind]);
    }
  });
});

describe('DMA_CONFIGS.priority_class (seed 004 §7.1)', () => {
  it('sits at +12 (DIRECT2D), +13 (GATHER_XPOSE), +61 (INDIRECT1D); +12 for DIRECT2D_XPOSE', () => {
    expect(DMA_CONFIGS_OFFSET).toEqual({
      DIRECT2D: 12,
      GATHER_XPOSE: 13,
      INDIRECT1D: 61,
      DIRECT2D_XPOSE: 12,
    });
    for (const d of [direct2d, xpose, indirect, gather]) {
      for (let pc = 0; pc <= 4; pc++) {
        const b = encodeDgeDescriptorBytes({ ...d, priority_class: pc } as DgeDescriptor);
        expect(b[DMA_CONFIGS_OFFSET[d.kind]]).toBe(pc);
        expect(decodeDgeDescriptor(b).priority_class).toBe(pc);
      }
    }
  });

  it('is 3 bits with reserved[7:3] zero, valid when priority_class <= 4', () => {
    expect([0, 1, 2, 3, 4].map(isValidDmaConfigs)).toEqual([true, true, true, true, true]);
    expect([5, 6, 7, 8, 0x84, 0xff].map(isValidDmaConfigs)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(decodeDmaConfigs(0x8c)).toEqual({ priority_class: 4, reserved_bitfield: 0x11 });
    expect(encodeDmaConfigs(4)).toBe(4);
    expect(() => encodeDmaConfigs(5)).toThrow(NxdmaError);
  });

  it('an encoder refuses priority_class 5..7 and writes nothing', () => {
    const buf = new Uint8Array(64).fill(0xee);
    for (const d of [direct2d, xpose, indirect, gather]) {
      const e = err(() =>
        encodeDgeDescriptor(buf, 0, { ...d, priority_class: 5 } as DgeDescriptor),
      );
      expect(e.code).toBe('BAD_ARGUMENT');
      expect(e.details.where).toBe(`${d.kind}.priority_class`);
      expect(buf.every((x) => x === 0xee)).toBe(true);
    }
  });

  it('the validating decoder rejects priority_class > 4 and reserved bits; the lenient one reads the low 3 bits', () => {
    for (const d of [direct2d, xpose, indirect, gather]) {
      const off = DMA_CONFIGS_OFFSET[d.kind];
      for (const byte of [5, 7, 0x08, 0x80 | 2]) {
        const b = encodeDgeDescriptorBytes(d);
        b[off] = byte;
        const r = validateDgeDescriptor(b);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.details.where).toBe(`${d.kind}@0.priority_class`);
        expect(decodeDgeDescriptor(b).priority_class).toBe(byte & 7);
      }
    }
  });

  it('the wire class of a DMAQoSClass (from qos-class.ts) always encodes', () => {
    for (const cls of Object.values(DMAQoSClass)) {
      const b = encodeDgeDescriptorBytes({ ...direct2d, priority_class: toPriorityClass(cls) });
      expect(validateDgeDescriptor(b).ok).toBe(true);
    }
  });
});

describe('DIRECT2D compute_op and element rules', () => {
  it('compute_op is NONE 0 / ADD 1 / MULTIPLY 2 / MAX 3 / MIN 4', () => {
    expect(ComputeOp).toEqual({ NONE: 0, ADD: 1, MULTIPLY: 2, MAX: 3, MIN: 4 });
    for (const op of Object.values(ComputeOp)) {
      expect(encodeDgeDescriptorBytes({ ...direct2d, compute_op: op })[1]).toBe(op);
    }
    expect(
      err(() => encodeDgeDescriptorBytes({ ...direct2d, compute_op: 5 as ComputeOp })).details
        .where,
    ).toBe('DIRECT2D.compute_op');
  });

  it('a compute_op needs a typed dtype whose size is elem_size', () => {
    expect(dgeDescriptorProblem({ ...direct2d, dtype: DgeDtype.RAW })?.field).toBe('dtype');
    expect(
      dgeDescriptorProblem({
        ...direct2d,
        compute_op: ComputeOp.NONE,
        dtype: DgeDtype.RAW,
        elem_size: 3,
      }),
    ).toBe(undefined);
    expect(dgeDescriptorProblem({ ...direct2d, elem_size: 2 })?.field).toBe('elem_size');
  });

  it('source and destination walks cover the same number of elements (total-byte rule)', () => {
    expect(dgeDescriptorProblem({ ...direct2d, dst_num_elem: [8, 2] })).toMatchObject({
      field: 'dst_num_elem',
    });
    expect(dgeDescriptorBytes(direct2d)).toEqual({ src: 32, dst: 32 });
  });

  it('counts are at least 1, steps are signed i32', () => {
    expect(dgeDescriptorProblem({ ...direct2d, src_num_elem: [0, 2] })?.field).toBe(
      'src_num_elem[0]',
    );
    expect(dgeDescriptorProblem({ ...direct2d, src_step_elem: [2 ** 31, 0] })?.field).toBe(
      'src_step_elem[0]',
    );
    const b = encodeDgeDescriptorBytes({ ...direct2d, src_step_elem: [-(2 ** 31), 2 ** 31 - 1] });
    expect((decodeDgeDescriptor(b) as Direct2D).src_step_elem).toEqual([-(2 ** 31), 2 ** 31 - 1]);
  });

  it('DIRECT2D_XPOSE destination bounds are the source bounds swapped', () => {
    expect(dgeDescriptorProblem(xpose)).toBe(undefined);
    expect(dgeDescriptorProblem({ ...xpose, dst_num_elem: [128, 16] })?.field).toBe('dst_num_elem');
  });
});

describe('GATHER_XPOSE constraints (aws_neuron_isa_tpb_dma_gather_xpose.h)', () => {
  it('only 2-byte data types', () => {
    expect(GATHER_XPOSE_RULES.elemSize).toBe(2);
    expect(dgeDescriptorProblem({ ...gather, elem_size: 4 })?.field).toBe('elem_size');
    expect(dgeDescriptorProblem({ ...gather, dtype: DgeDtype.FP32 })?.field).toBe('dtype');
    expect(dgeDescriptorProblem({ ...gather, dtype: DgeDtype.BF16 })).toBe(undefined);
  });
  it('index count is a multiple of 16', () => {
    expect(dgeDescriptorProblem({ ...gather, num_idx: 24 })?.field).toBe('num_idx');
    expect(dgeDescriptorProblem({ ...gather, num_idx: 0 })?.field).toBe('num_idx');
    expect(dgeDescriptorProblem({ ...gather, num_idx: 48 })).toBe(undefined);
  });
  it('destination 32-byte aligned', () => {
    expect(dgeDescriptorProblem({ ...gather, dst_addr: 0x200010 })?.field).toBe('dst_addr');
  });
  it('tile shape constants 16 x 128', () => {
    expect([GATHER_XPOSE_RULES.tileRows, GATHER_XPOSE_RULES.tileCols]).toEqual([16, 128]);
  });
});

describe('bound-check byte', () => {
  it('bc_reg[5:0], bc_disable_oob_error_notif[6], bc_enabled[7]', () => {
    expect(
      encodeBoundCheck({ bc_reg: 63, bc_disable_oob_error_notif: false, bc_enabled: false }),
    ).toBe(0x3f);
    expect(
      encodeBoundCheck({ bc_reg: 0, bc_disable_oob_error_notif: true, bc_enabled: false }),
    ).toBe(0x40);
    expect(
      encodeBoundCheck({ bc_reg: 0, bc_disable_oob_error_notif: false, bc_enabled: true }),
    ).toBe(0x80);
    for (let b = 0; b < 256; b++) expect(encodeBoundCheck(decodeBoundCheck(b))).toBe(b);
    expect(
      dgeDescriptorProblem({ ...direct2d, src_bound_check: { ...NO_BOUND_CHECK, bc_reg: 64 } })
        ?.field,
    ).toBe('src_bound_check');
  });
});
