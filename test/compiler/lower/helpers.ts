/** Fixtures of the lowering tests: small programs built with ProgramBuilder, compiled and lowered. */
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { ProgramBuilder, type BlockBuilder } from '../../../compiler/ir/builder.ts';
import { NxdmaError } from '../../../common/errors.ts';
import type { ArchLevel } from '../../../compiler/ir/enums.ts';
import type { Instr, Module } from '../../../compiler/ir/module.ts';
import type { ProgramOptionsInput } from '../../../compiler/ir/program.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import type { AffineWalk } from '../../../compiler/lower/expand.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import type { LowerOptions, LoweredProgram } from '../../../compiler/lower/types.ts';

/**
 * A builder with regions host (DRAM, 0x1_0000_0000, 1 MiB), hbm (DRAM, 0x2_0000_0000, 1 MiB) and
 * sb (SB, 0x400_0000, 1 MiB), in that order (BOUND_CHECK_REG bc_reg 0, 1, 2), and tensors:
 * x (Input fp32 [256, 64] at host+0), y (Output fp32 [256, 64] at host+0x10000),
 * a (Input bf16 [128, 128] at host+0x20000), b (Output bf16 [128,128] at host+0x28000),
 * h (Internal fp32 [256, 64] at hbm+0), t (fp32 [128, 64] at sb+0), u (fp32 [128, 64] at sb+0x8000),
 * p (bf16 [128, 128] at sb+0x10000), q (bf16 [128, 128] at sb+0x18000),
 * idx (Input uint32 [16] at host+0x30000: 15, 3, 0, 7, 9, 1, 12, 5, 2, 14, 6, 11, 4, 13, 8, 10),
 * sidx (Input int32 [16] at host+0x30040, same values).
 */
export function fixture(arch: ArchLevel = 30, options: ProgramOptionsInput = {}): ProgramBuilder {
  const b = new ProgramBuilder({ name: 'lower-fixture', arch, options });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x10_0000 });
  b.region({ name: 'hbm', type: 'dram', base: 0x2_0000_0000, size: 0x10_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x10_0000 });
  b.tensor({ name: 'x', region: 'host', dtype: 'fp32', shape: [256, 64], kind: 'Input' });
  b.tensor({
    name: 'y',
    region: 'host',
    offset: 0x1_0000,
    dtype: 'fp32',
    shape: [256, 64],
    kind: 'Output',
  });
  b.tensor({
    name: 'a',
    region: 'host',
    offset: 0x2_0000,
    dtype: 'bf16',
    shape: [128, 128],
    kind: 'Input',
  });
  b.tensor({
    name: 'b',
    region: 'host',
    offset: 0x2_8000,
    dtype: 'bf16',
    shape: [128, 128],
    kind: 'Output',
  });
  b.tensor({ name: 'h', region: 'hbm', dtype: 'fp32', shape: [256, 64], kind: 'Internal' });
  b.tensor({ name: 't', region: 'sb', dtype: 'fp32', shape: [128, 64] });
  b.tensor({ name: 'u', region: 'sb', offset: 0x8000, dtype: 'fp32', shape: [128, 64] });
  b.tensor({ name: 'p', region: 'sb', offset: 0x1_0000, dtype: 'bf16', shape: [128, 128] });
  b.tensor({ name: 'q', region: 'sb', offset: 0x1_8000, dtype: 'bf16', shape: [128, 128] });
  const idx = [15, 3, 0, 7, 9, 1, 12, 5, 2, 14, 6, 11, 4, 13, 8, 10];
  b.tensor({
    name: 'idx',
    region: 'host',
    offset: 0x3_0000,
    dtype: 'uint32',
    shape: [16],
    kind: 'Input',
    init: idx,
  });
  b.tensor({
    name: 'sidx',
    region: 'host',
    offset: 0x3_0040,
    dtype: 'int32',
    shape: [16],
    kind: 'Input',
    init: idx,
  });
  return b;
}

/** Builds, compiles and returns the module of a fixture program with one block. */
export function compiled(
  body: (bb: BlockBuilder) => void,
  arch: ArchLevel = 30,
  options: ProgramOptionsInput = {},
): Module {
  const b = fixture(arch, options);
  body(b.function('main').block('entry'));
  return compile(b.build()).module;
}

/** compiled() then lower(). */
export function lowered(
  body: (bb: BlockBuilder) => void,
  arch: ArchLevel = 30,
  options: ProgramOptionsInput = {},
  lopts: LowerOptions = {},
): LoweredProgram {
  return lower(compiled(body, arch, options), lopts);
}

/** Hex string of bytes, space separated. */
export function hexBytes(b: Uint8Array): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');
}

/** An affine walk of 10 pieces of 4 bytes: the source every other element, the destination contiguous. */
export const TEN_PIECES: AffineWalk = {
  type: 'affine',
  elemSize: 4,
  srcAddr: 0x10000,
  dstAddr: 0x90000,
  srcNum: [1, 10],
  srcStep: [1, 2],
  dstNum: [10],
  dstStep: [1],
};

/** Everything a lowered program shows, its records made from the table. */
export function shown(p: LoweredProgram) {
  const t = p.table;
  const rows = [];
  for (let i = 0; i < t.size; i++) {
    const walks = [];
    for (let k = 0; k < t.walksOf(i); k++)
      walks.push({ walk: { ...t.walk(i, k) }, pieces: t.piecesOf(i, k) });
    rows.push({
      queue: t.queue[i],
      descriptors: t.descriptors[i],
      bytes: t.bytes[i],
      dge: t.dgeDescriptors[i],
      ranges: [t.srcLo[i], t.srcHi[i], t.dstLo[i], t.dstHi[i]],
      packetBytes: t.packetBytes[i],
      maxWalk: t.maxWalk[i],
      backend: t.backendOf(i),
      reduce: t.reduce[i],
      label: t.labelOf(i),
      reduceDescriptors: t.reduceOf(i),
      walks,
    });
  }
  return {
    rows,
    dmas: p.dmas,
    blocks: p.blocks.map((b) => ({ ...b, dmas: b.dmas })),
    queues: p.queues.map((q) => ({ ...q, dmas: q.dmas })),
    totals: p.totals,
    maxDescPerPacket: p.maxDescPerPacket,
  };
}

/** shown(lower(m, opts)), or the LOWER_ERROR (any NxdmaError) lower() throws, as JSON. */
export function shownOrError(m: Module, opts: LowerOptions) {
  try {
    return shown(lower(m, opts));
  } catch (e) {
    if (!(e instanceof NxdmaError)) throw e;
    return { error: e.toJSON() };
  }
}

/** Moves instruction I's `side` pattern by `shift` elements (same dims and shape id). */
export function movePattern(I: Instr, side: 'src' | 'dst', shift: number): void {
  const ap = I[side]!;
  I[side] = new AccessPattern(
    ap.tensor,
    ap.offset + shift,
    ap.partStep,
    ap.partNum,
    ap.free,
    ap.scalarOffset,
    ap.vectorOffset,
    ap.indirect,
    ap.shapeId,
  );
}
