/**
 * The DGE emit micro-ops (seed 004 §3.4, §5.1, §5.2, §5.5) as data: GENERATE, DIMPUSH and
 * REGWRITE. Per DMA channel the stream is [REGWRITE]* GENERATE DIMPUSH x #dims. The seed gives
 * each op's fields through its log line; the 16-byte record encoding below is nxdma's own
 * (docs/descriptors.md). The lowering that emits them lives in compiler/lower; this module only
 * defines, encodes, decodes and prints them.
 *
 *   S: push GENERATE to DMA[%d]: %s : addr=0x%llx, elem_size=%d, sem_num=%i
 *   S: push DIMPUSH to DMA[%d]: [%u,%u][%d,%d]      ([num_src,num_dst][step_src,step_dst])
 *   S: push REGWRITE to DMA[%d]
 */
import { type Problem, type RecordLayout, type RecordValue } from './layout.ts';
import { RecordCodec } from './record-codec.ts';
import { RecordFamily } from './record-family.ts';
import { type ByteView, type DecodeResult, fail, ok } from './wire.ts';
import { NxdmaError } from '../../common/errors.ts';

/** One micro-op record is 16 bytes (one descriptor unit). */
export const MICRO_OP_SIZE = 16;

/** Micro-op codes in byte 0 (0 is never an op, so zeroed memory does not decode as one). */
export const MicroOpCode = { GENERATE: 1, DIMPUSH: 2, REGWRITE: 3 } as const;
export type MicroOpName = keyof typeof MicroOpCode;

/** GENERATE direction: RD = HBM -> local = M2S (addr is the source); WR = S2M (addr is the destination). */
export const MicroOpDir = { RD: 0, WR: 1 } as const;
export type MicroOpDir = (typeof MicroOpDir)[keyof typeof MicroOpDir];

/** DMA channels per engine: the 16 bits of the DGE DMA mask (MEMCOPY_DMA_CFG lo16). */
export const DGE_DMA_CHANNELS = 16;

const dma = {
  type: 'u8',
  offset: 1,
  max: DGE_DMA_CHANNELS - 1,
  doc: 'the DMA channel d of "to DMA[d]"',
} as const;

export const GENERATE_LAYOUT = {
  name: 'GENERATE',
  size: MICRO_OP_SIZE,
  tag: { name: 'op', offset: 0, value: MicroOpCode.GENERATE, doc: 'GENERATE: one data descriptor' },
  fields: {
    dma,
    dir: {
      type: 'u8',
      offset: 2,
      enum: MicroOpDir,
      doc: 'RD (M2S, addr = source) / WR (S2M, addr = destination)',
    },
    elem_size: { type: 'u16', offset: 4, min: 1, doc: 'bytes per element' },
    sem_num: { type: 'i16', offset: 6, min: -1, doc: 'semaphore to increment; -1 none' },
    addr: { type: 'u64', offset: 8, doc: 'start address' },
  },
} as const satisfies RecordLayout;

export const DIMPUSH_LAYOUT = {
  name: 'DIMPUSH',
  size: MICRO_OP_SIZE,
  tag: { name: 'op', offset: 0, value: MicroOpCode.DIMPUSH, doc: 'DIMPUSH: one loop dimension' },
  fields: {
    dma,
    num_src: { type: 'u16', offset: 2, min: 1, doc: 'source count of this dimension' },
    num_dst: { type: 'u16', offset: 4, min: 1, doc: 'destination count of this dimension' },
    step_src: { type: 'i32', offset: 8, doc: 'source stride, in elements, signed' },
    step_dst: { type: 'i32', offset: 12, doc: 'destination stride, in elements, signed' },
  },
} as const satisfies RecordLayout;

export const REGWRITE_LAYOUT = {
  name: 'REGWRITE',
  size: MICRO_OP_SIZE,
  tag: {
    name: 'op',
    offset: 0,
    value: MicroOpCode.REGWRITE,
    doc: 'REGWRITE: inline control-register write',
  },
  fields: {
    dma,
    reg: { type: 'u32', offset: 4, doc: 'byte offset of the register, a multiple of 4' },
    value: { type: 'u32', offset: 8, doc: 'value written' },
  },
} as const satisfies RecordLayout;

export type GenerateFields = RecordValue<typeof GENERATE_LAYOUT>;
export type DimpushFields = RecordValue<typeof DIMPUSH_LAYOUT>;
export type RegwriteFields = RecordValue<typeof REGWRITE_LAYOUT>;

export type Generate = { op: 'GENERATE' } & GenerateFields;
/** The pair of pairs [num_src, num_dst][step_src, step_dst] of one dimension. */
export type Dimpush = { op: 'DIMPUSH' } & DimpushFields;
export type Regwrite = { op: 'REGWRITE' } & RegwriteFields;
export type MicroOp = Generate | Dimpush | Regwrite;

const regwriteCheck = (v: RegwriteFields): Problem | undefined =>
  v.reg % 4 !== 0
    ? { field: 'reg', expected: 'a multiple of 4 (aligned 32-bit register)', actual: v.reg }
    : undefined;

export const GENERATE = new RecordCodec(GENERATE_LAYOUT);
export const DIMPUSH = new RecordCodec(DIMPUSH_LAYOUT);
export const REGWRITE = new RecordCodec(REGWRITE_LAYOUT, regwriteCheck);

export const MICRO_OPS = new RecordFamily('micro-op', 'op', [
  GENERATE,
  DIMPUSH,
  REGWRITE,
] as unknown as ReadonlyArray<RecordCodec<RecordLayout>>);

/** Validates, then encodes one micro-op into `dst` at `byteOffset` (16 bytes). */
export function encodeMicroOp(dst: ByteView, byteOffset: number, op: MicroOp): void {
  MICRO_OPS.encode(dst, byteOffset, op);
}

/** Lenient decode of the micro-op at `byteOffset` (throws only NxdmaError). */
export function decodeMicroOp(src: ByteView, byteOffset = 0): MicroOp {
  return MICRO_OPS.decode(src, byteOffset) as MicroOp;
}

/** Validating decode (never throws). */
export function validateMicroOp(src: ByteView, byteOffset = 0): DecodeResult<MicroOp> {
  return MICRO_OPS.validate(src, byteOffset) as DecodeResult<MicroOp>;
}

/** Encodes a stream of micro-ops (all validated before the first byte is written). */
export function encodeMicroOps(ops: readonly MicroOp[]): Uint8Array {
  ops.forEach((op, i) => {
    const p = MICRO_OPS.problem(op);
    if (p) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `micro-op ${i} (${String(op.op)}).${p.field}: expected ${p.expected}, got ${String(p.actual)}`,
        {
          where: `ops[${i}].${p.field}`,
          expected: p.expected,
          actual: p.actual,
        },
      );
    }
  });
  const out = new Uint8Array(ops.length * MICRO_OP_SIZE);
  ops.forEach((op, i) => MICRO_OPS.encode(out, i * MICRO_OP_SIZE, op));
  return out;
}

/** Validating decode of a whole stream (length a multiple of 16); never throws. */
export function validateMicroOps(src: Uint8Array): DecodeResult<MicroOp[]> {
  if (src.byteLength % MICRO_OP_SIZE !== 0) {
    return fail(
      new NxdmaError(
        'DESCRIPTOR_INVALID',
        `micro-op stream of ${src.byteLength} bytes is not a multiple of ${MICRO_OP_SIZE}`,
        {
          where: 'micro-op stream',
          expected: `a multiple of ${MICRO_OP_SIZE} bytes`,
          actual: src.byteLength,
        },
      ),
    );
  }
  const out: MicroOp[] = [];
  for (let o = 0; o < src.byteLength; o += MICRO_OP_SIZE) {
    const r = validateMicroOp(src, o);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(out);
}

function hex64(v: number): string {
  return '0x' + v.toString(16);
}

/** The firmware log line of a micro-op ("push GENERATE to DMA[0]: RD : addr=0x1000, ..."). */
export function formatMicroOp(op: MicroOp): string {
  switch (op.op) {
    case 'GENERATE':
      return `push GENERATE to DMA[${op.dma}]: ${op.dir === MicroOpDir.RD ? 'RD' : 'WR'} : addr=${hex64(op.addr)}, elem_size=${op.elem_size}, sem_num=${op.sem_num}`;
    case 'DIMPUSH':
      return `push DIMPUSH to DMA[${op.dma}]: [${op.num_src},${op.num_dst}][${op.step_src},${op.step_dst}]`;
    case 'REGWRITE':
      return `push REGWRITE to DMA[${op.dma}]`;
  }
}

/** Builds a DIMPUSH from the pair of pairs as the log prints it: [num_src, num_dst][step_src, step_dst]. */
export function dimpush(
  dmaChannel: number,
  nums: readonly [number, number],
  steps: readonly [number, number],
): Dimpush {
  return {
    op: 'DIMPUSH',
    dma: dmaChannel,
    num_src: nums[0],
    num_dst: nums[1],
    step_src: steps[0],
    step_dst: steps[1],
  };
}
