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

describe('encode / decode', () => {
  it('round trips each kind, at an offset, through Uint8Array, Uint32Array and DataView', () => {
    for (const d of [direct2d, xpose, indirect, gather]) {
      const u8 = new Uint8Array(192);
      const u32 = new Uint32Array(48);
      const dv = new DataView(new ArrayBuffer(192));
      for (const v of [u8, u32, dv]) {
        encodeDgeDescriptor(v, 64, d);
        expect(decodeDgeDescriptor(v, 64)).toEqual(d);
        const r = validateDgeDescriptor(v, 64);
        expect(r.ok && r.value).toEqual(d);
      }
      expect(hexOf(new Uint8Array(u32.buffer))).toBe(hexOf(u8));
      expect(
        u8.subarray(0, 64).every((x) => x === 0) && u8.subarray(128).every((x) => x === 0),
      ).toBe(true);
    }
  });

  it('reserved bytes must be zero for the validating decoder', () => {
    for (const d of [direct2d, xpose, indirect, gather]) {
      const codec = DGE_CODECS[d.kind] as RecordCodec<never>;
      expect(codec.reservedBytes.length).toBeGreaterThan(0);
      for (const i of codec.reservedBytes) {
        const b = encodeDgeDescriptorBytes(d);
        b[i] = 1;
        const r = validateDgeDescriptor(b);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.details.where).toBe(`${d.kind}@0+${i}`);
      }
    }
  });

  it('unknown opcode, short view and unknown kind are typed errors', () => {
    const b = new Uint8Array(64);
    b[0] = 4;
    expect(err(() => decodeDgeDescriptor(b)).code).toBe('DESCRIPTOR_INVALID');
    expect(err(() => decodeDgeDescriptor(new Uint8Array(63))).code).toBe('OUT_OF_RANGE');
    expect(err(() => encodeDgeDescriptor(b, 8, direct2d)).code).toBe('OUT_OF_RANGE');
    expect(
      err(() => encodeDgeDescriptor(b, 0, { ...direct2d, kind: 'DIRECT3D' } as never)).code,
    ).toBe('BAD_ARGUMENT');
    expect(err(() => encodeDgeDescriptor(b, 0, null as never)).code).toBe('BAD_ARGUMENT');
  });

  it('addresses are safe integers; above 2^53 is a typed error', () => {
    expect(dgeDescriptorProblem({ ...direct2d, src_addr: 2 ** 53 })?.field).toBe('src_addr');
    const b = encodeDgeDescriptorBytes(direct2d);
    b[23] = 0xff;
    expect(err(() => decodeDgeDescriptor(b)).code).toBe('DESCRIPTOR_INVALID');
  });

  const arbBc = fc.record({
    bc_reg: fc.integer({ min: 0, max: 63 }),
    bc_disable_oob_error_notif: fc.boolean(),
    bc_enabled: fc.boolean(),
  });
  const u16p = fc.integer({ min: 1, max: 0xffff });
  const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  const pc = fc.integer({ min: 0, max: 4 });
  const sem = fc.integer({ min: -1, max: 0x7fff });
  const addr = fc.maxSafeNat();
  const arbDirect2d = fc
    .record({
      compute_op: fc.constantFrom(...Object.values(ComputeOp)),
      dtype: fc.constantFrom(...Object.values(DgeDtype)),
      elem_size: u16p,
      sem_num: sem,
      priority_class: pc,
      src_bound_check: arbBc,
      dst_bound_check: arbBc,
      src_addr: addr,
      dst_addr: addr,
      a: u16p,
      b: u16p,
      swap: fc.boolean(),
      src_step_elem: fc.tuple(i32, i32),
      dst_step_elem: fc.tuple(i32, i32),
    })
    .map(({ a, b, swap, ...r }): Direct2D => {
      const size = [0, 1, 1, 2, 2, 4, 4, 2, 2, 4][r.dtype];
      const dtype = r.compute_op !== 0 && r.dtype === 0 ? DgeDtype.INT32 : r.dtype;
      const elem_size = [0, 1, 1, 2, 2, 4, 4, 2, 2, 4][dtype] || size || r.elem_size;
      return {
        kind: 'DIRECT2D',
        ...r,
        dtype,
        elem_size,
        src_num_elem: [a, b],
        dst_num_elem: swap ? [b, a] : [a, b],
      };
    });
  const arbIndirect = fc.record({
    kind: fc.constant('INDIRECT1D' as const),
    indirect_side: fc.constantFrom(0, 1),
    dtype: fc.constant(0),
    elem_size: u16p,
    sem_num: sem,
    src_addr: addr,
    dst_addr: addr,
    idx_addr: addr,
    num_idx: fc.integer({ min: 1, max: 2 ** 32 - 1 }),
    row_num_elem: u16p,
    src_step_elem: i32,
    dst_step_elem: i32,
    idx_limit: fc.nat({ max: 2 ** 32 - 1 }),
    src_bound_check: arbBc,
    priority_class: pc,
    dst_bound_check: arbBc,
  });
  const arbGather = fc.record({
    kind: fc.constant('GATHER_XPOSE' as const),
    dtype: fc.constantFrom(0, 3, 4, 7, 8),
    elem_size: fc.constant(2),
    sem_num: sem,
    num_idx: fc.integer({ min: 1, max: 2 ** 20 }).map((n) => n * 16),
    src_bound_check: arbBc,
    priority_class: pc,
    dst_bound_check: arbBc,
    src_addr: addr,
    dst_addr: fc.nat({ max: 2 ** 47 }).map((n) => n * 32),
    idx_addr: addr,
    row_num_elem: u16p,
    src_step_elem: i32,
    dst_step_elem: i32,
    idx_limit: fc.nat({ max: 2 ** 32 - 1 }),
  });
  const arbDesc: fc.Arbitrary<DgeDescriptor> = fc.oneof(
    arbDirect2d,
    arbDirect2d.map((d): DgeDescriptor => {
      const { compute_op: _c, ...rest } = d;
      return {
        ...rest,
        kind: 'DIRECT2D_XPOSE',
        dst_num_elem: [d.src_num_elem[1], d.src_num_elem[0]],
      };
    }),
    arbIndirect,
    arbGather,
  );

  it('property: every valid descriptor round-trips through encode and the validating decoder', () => {
    fc.assert(
      fc.property(arbDesc, (d) => {
        expect(dgeDescriptorProblem(d)).toBe(undefined);
        const b = encodeDgeDescriptorBytes(d);
        const r = validateDgeDescriptor(b);
        expect(r.ok && r.value).toEqual(d);
      }),
      { seed: 4006, numRuns: 1000 },
    );
  });

  it('property: decode of random or mutated bytes lets only NxdmaError escape; accepted bytes re-encode identically', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 64, maxLength: 64 }).map((b) => {
        b[0] &= 3;
        return b;
      }),
      fc.tuple(arbDesc, fc.nat({ max: 63 }), fc.nat({ max: 255 })).map(([d, i, v]) => {
        const b = encodeDgeDescriptorBytes(d);
        b[i] = v;
        return b;
      }),
      fc.uint8Array({ minLength: 0, maxLength: 80 }),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        try {
          decodeDgeDescriptor(b);
        } catch (e) {
          if (!(e instanceof NxdmaError)) throw e;
        }
        const r = validateDgeDescriptor(b);
        if (r.ok) expect(hexOf(encodeDgeDescriptorBytes(r.value))).toBe(hexOf(b.subarray(0, 64)));
        else expect(r.error).toBeInstanceOf(NxdmaError);
      }),
      { seed: 4007, numRuns: 3000 },
    );
  });
});

describe('layouts', () => {
  it('a layout with overlapping fields is refused when the codec is built', () => {
    expect(
      () =>
        new RecordCodec({
          name: 'BAD',
          size: 16,
          tag: { name: 'op', offset: 0, value: 1, doc: '' },
          fields: {
            a: { type: 'u32', offset: 4, doc: '' },
            b: { type: 'u16', offset: 6, doc: '' },
          },
        }),
    ).toThrow(/overlaps/);
    expect(
      () =>
        new RecordCodec({
          name: 'BAD',
          size: 16,
          tag: { name: 'op', offset: 0, value: 1, doc: '' },
          fields: { a: { type: 'u64', offset: 12, doc: '' } },
        }),
    ).toThrow(/outside|aligned/);
  });

  it('docs/descriptors.md shows each layout exactly as the code defines it', () => {
    const doc = normalizeTables(
      readFileSync(new URL('../../../docs/descriptors.md', import.meta.url), 'utf8'),
    );
    for (const c of Object.values(DGE_CODECS)) {
      expect(doc).toContain(normalizeTables((c as RecordCodec<never>).markdown()));
    }
  });
});
