import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { NxdmaError } from '../../../common/errors.ts';
import {
  DIMPUSH,
  GENERATE,
  MICRO_OP_SIZE,
  MicroOpCode,
  MicroOpDir,
  REGWRITE,
  decodeMicroOp,
  dimpush,
  encodeMicroOp,
  encodeMicroOps,
  formatMicroOp,
  validateMicroOp,
  validateMicroOps,
  type MicroOp,
} from '../../../csr/formats/dge-ops.ts';
import type { RecordCodec } from '../../../csr/formats/record-codec.ts';
import { normalizeTables } from './markdown.ts';

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('micro-op records (seed 004 §3.4, §5.1, §5.2)', () => {
  it('GENERATE golden vector: RD/WR, addr, elem_size, sem_num', () => {
    const op: MicroOp = {
      op: 'GENERATE',
      dma: 3,
      dir: MicroOpDir.WR,
      elem_size: 2,
      sem_num: -1,
      addr: 0x12_3456_789a,
    };
    const b = encodeMicroOps([op]);
    // op 1, dma 3, dir WR 1, reserved, elem_size 2, sem_num -1, addr LE
    expect(hexOf(b)).toBe('01' + '03' + '01' + '00' + '0200' + 'ffff' + '9a78563412000000');
    expect(formatMicroOp(op)).toBe(
      'push GENERATE to DMA[3]: WR : addr=0x123456789a, elem_size=2, sem_num=-1',
    );
    expect(formatMicroOp({ ...op, dir: MicroOpDir.RD })).toContain(': RD :');
  });

  it('DIMPUSH is the pair of pairs [num_src,num_dst][step_src,step_dst] with signed steps', () => {
    const op = dimpush(15, [4, 8], [-2, 1]);
    expect(op).toEqual({
      op: 'DIMPUSH',
      dma: 15,
      num_src: 4,
      num_dst: 8,
      step_src: -2,
      step_dst: 1,
    });
    expect(formatMicroOp(op)).toBe('push DIMPUSH to DMA[15]: [4,8][-2,1]');
    const b = encodeMicroOps([op]);
    expect(hexOf(b)).toBe('02' + '0f' + '0400' + '0800' + '0000' + 'feffffff' + '01000000');
    expect(decodeMicroOp(b)).toEqual(op);
  });

  it('REGWRITE golden vector and its log line (no field args)', () => {
    const op: MicroOp = { op: 'REGWRITE', dma: 0, reg: 0x1038, value: 0xdeadbeef };
    expect(hexOf(encodeMicroOps([op]))).toBe(
      '03' + '00' + '0000' + '38100000' + 'efbeadde' + '00000000',
    );
    expect(formatMicroOp(op)).toBe('push REGWRITE to DMA[0]');
    expect(() => encodeMicroOps([{ ...op, reg: 0x1039 }])).toThrow(NxdmaError);
  });

  it('op codes, direction codes and record size', () => {
    expect(MicroOpCode).toEqual({ GENERATE: 1, DIMPUSH: 2, REGWRITE: 3 });
    expect(MicroOpDir).toEqual({ RD: 0, WR: 1 });
    expect(MICRO_OP_SIZE).toBe(16);
  });

  it('a stream [REGWRITE]* GENERATE DIMPUSH x n round-trips', () => {
    const ops: MicroOp[] = [
      { op: 'REGWRITE', dma: 1, reg: 0x20, value: 7 },
      { op: 'GENERATE', dma: 1, dir: MicroOpDir.RD, elem_size: 4, sem_num: 3, addr: 0x1000 },
      dimpush(1, [16, 16], [1, 1]),
      dimpush(1, [8, 8], [16, -16]),
    ];
    const b = encodeMicroOps(ops);
    expect(b.length).toBe(4 * 16);
    const r = validateMicroOps(b);
    expect(r.ok && r.value).toEqual(ops);
  });

  it('invalid micro-ops are refused before anything is written, naming the op and the field', () => {
    const bad = [
      [{ op: 'GENERATE', dma: 16, dir: 0, elem_size: 4, sem_num: 0, addr: 0 }, 'ops[1].dma'],
      [{ op: 'GENERATE', dma: 0, dir: 2, elem_size: 4, sem_num: 0, addr: 0 }, 'ops[1].dir'],
      [{ op: 'GENERATE', dma: 0, dir: 0, elem_size: 0, sem_num: 0, addr: 0 }, 'ops[1].elem_size'],
      [{ op: 'GENERATE', dma: 0, dir: 0, elem_size: 1, sem_num: -2, addr: 0 }, 'ops[1].sem_num'],
      [
        { op: 'DIMPUSH', dma: 0, num_src: 0, num_dst: 1, step_src: 0, step_dst: 0 },
        'ops[1].num_src',
      ],
      [
        { op: 'DIMPUSH', dma: 0, num_src: 1, num_dst: 1, step_src: 2 ** 31, step_dst: 0 },
        'ops[1].step_src',
      ],
    ] as const;
    for (const [op, where] of bad) {
      try {
        encodeMicroOps([dimpush(0, [1, 1], [0, 0]), op as unknown as MicroOp]);
        throw new Error('expected a throw');
      } catch (e) {
        expect(e).toBeInstanceOf(NxdmaError);
        expect((e as NxdmaError).details.where).toBe(where);
      }
    }
    expect(() => encodeMicroOps([{ op: 'NOP' } as never])).toThrow(NxdmaError);
  });

  it('decoding: op 0 and unknown ops are typed errors; stream length must be a multiple of 16', () => {
    const r = validateMicroOp(new Uint8Array(16));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('DESCRIPTOR_INVALID');
    expect(() => decodeMicroOp(new Uint8Array(16))).toThrow(NxdmaError);
    const s = validateMicroOps(new Uint8Array(17));
    expect(s.ok).toBe(false);
  });

  it('property: random bytes let only NxdmaError escape; accepted records re-encode identically', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (b) => {
        b[0] &= 3;
        if (b[0] !== 2) b[3] = 0; // give the other ops a chance to be valid
        try {
          decodeMicroOp(b);
        } catch (e) {
          if (!(e instanceof NxdmaError)) throw e;
        }
        const r = validateMicroOp(b);
        if (r.ok) {
          const out = new Uint8Array(16);
          encodeMicroOp(out, 0, r.value);
          expect(hexOf(out)).toBe(hexOf(b));
        }
      }),
      { seed: 4008, numRuns: 3000 },
    );
  });

  it('docs/descriptors.md shows each micro-op layout exactly as the code defines it', () => {
    const doc = normalizeTables(
      readFileSync(new URL('../../../docs/descriptors.md', import.meta.url), 'utf8'),
    );
    for (const c of [GENERATE, DIMPUSH, REGWRITE])
      expect(doc).toContain(normalizeTables((c as RecordCodec<never>).markdown()));
  });
});
