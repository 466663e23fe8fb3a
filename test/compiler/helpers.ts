/** Shared fixtures of the compiler tests: a program with one tensor of every kind and memory type. */
import { ProgramBuilder, type APArgs, type DmaArgs } from '../../compiler/ir/builder.ts';
import type { ArchLevel } from '../../compiler/ir/enums.ts';
import type { Instr, Module } from '../../compiler/ir/module.ts';
import type { ProgramOptionsInput } from '../../compiler/ir/program.ts';
import { makeContext, type Pass } from '../../compiler/passes/pass.ts';
import type { CompileError } from '../../compiler/errors.ts';

/** Full-tile pattern of a [128 x 64] fp32 tensor (or the first 128 rows of a [256 x 64] one). */
export function tile(tensor: string, rowOffset = 0): APArgs {
  return { tensor, offset: rowOffset * 64, partition: [64, 128], free: [[1, 64]] };
}

/** Full pattern of a [128 x 128] 2-byte tensor, and its transposed walk. */
export function tile16(tensor: string): APArgs {
  return { tensor, partition: [128, 128], free: [[1, 128]] };
}
export function tile16T(tensor: string): APArgs {
  return { tensor, partition: [1, 128], free: [[128, 128]] };
}

/**
 * A builder with memory declared: host (DRAM) tensors in / out / w (Const) / io (InputOutput) /
 * ptr (Pointer) / sem (Semaphore), HBM tensors h (Internal), h2, sp (Spill), scratch (Scratch),
 * SB tiles s0..s3 (fp32 128x64), b0..b3 (bf16 128x128), c0/c1 (collective args/results), a remote
 * SB tensor remote (bf16 128x128), a uint32 index tensor idx (127..0), big_in (Input) and big_h
 * (Internal), fp32 512x64.
 */
export function fixture(arch: ArchLevel = 30, options: ProgramOptionsInput = {}): ProgramBuilder {
  const b = new ProgramBuilder({ name: 'fixture', arch, options });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x20_0000 });
  b.region({ name: 'hbm', type: 'dram', base: 0x2_0000_0000, size: 0x20_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x20_0000 });
  b.region({ name: 'peer', type: 'remote_sb', base: 0x800_0000, size: 0x10_0000 });
  const host = [
    ['in', 'Input'],
    ['out', 'Output'],
    ['w', 'Const'],
    ['io', 'InputOutput'],
    ['ptr', 'Pointer'],
    ['sem', 'Semaphore'],
  ] as const;
  host.forEach(([name, kind], i) =>
    b.tensor({ name, region: 'host', offset: i * 0x1_0000, dtype: 'fp32', shape: [256, 64], kind }),
  );
  const hbm = [
    ['h', 'Internal'],
    ['h2', 'Internal'],
    ['sp', 'Spill'],
    ['scratch', 'Scratch'],
  ] as const;
  hbm.forEach(([name, kind], i) =>
    b.tensor({ name, region: 'hbm', offset: i * 0x1_0000, dtype: 'fp32', shape: [256, 64], kind }),
  );
  for (let k = 0; k < 4; k++) {
    b.tensor({ name: `s${k}`, region: 'sb', offset: k * 0x8000, dtype: 'fp32', shape: [128, 64] });
    b.tensor({
      name: `b${k}`,
      region: 'sb',
      offset: 0x2_0000 + k * 0x8000,
      dtype: 'bf16',
      shape: [128, 128],
    });
  }
  b.tensor({ name: 'c0', region: 'sb', offset: 0x4_0000, dtype: 'fp32', shape: [128, 64] });
  b.tensor({ name: 'c1', region: 'sb', offset: 0x4_8000, dtype: 'fp32', shape: [128, 64] });
  b.tensor({
    name: 'hb',
    region: 'hbm',
    offset: 0x8_0000,
    dtype: 'bf16',
    shape: [128, 128],
    kind: 'Input',
  });
  b.tensor({ name: 'remote', region: 'peer', dtype: 'bf16', shape: [128, 128] });
  b.tensor({
    name: 'big_in',
    region: 'host',
    offset: 0x18_0000,
    dtype: 'fp32',
    shape: [512, 64],
    kind: 'Input',
  });
  b.tensor({ name: 'big_h', region: 'hbm', offset: 0x10_0000, dtype: 'fp32', shape: [512, 64] });
  b.tensor({
    name: 'idx',
    region: 'host',
    offset: 0x10_0000,
    dtype: 'uint32',
    shape: [128],
    kind: 'Input',
    init: Array.from({ length: 128 }, (_, i) => 127 - i),
  });
  return b;
}

/** A load of rows [row, row+128) of `in` into SB tile `dst`. */
export function load(dst = 's0', extra: Partial<DmaArgs> = {}, src = 'in', row = 0): DmaArgs {
  return { src: tile(src, row), dst: tile(dst), ...extra };
}
/** A save of SB tile `src` into rows [row, row+128) of `dst`. */
export function save(src = 's0', dst = 'h', extra: Partial<DmaArgs> = {}, row = 0): DmaArgs {
  return { src: tile(src), dst: tile(dst, row), ...extra };
}

/** Runs the given passes in order; returns every error reported (passes do not throw). */
export function runPasses(m: Module, passes: readonly Pass[]): CompileError[] {
  const all: CompileError[] = [];
  for (const p of passes) {
    const ctx = makeContext(m, p.name);
    p.run(ctx);
    all.push(...ctx.errors);
  }
  return all;
}

/** The instruction named `name`. */
export function inst(m: Module, name: string): Instr {
  const i = m.instrByName.get(name);
  if (!i) throw new Error(`no instruction ${name}`);
  return i;
}

/** Catches what `fn` throws (or undefined). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}
