/**
 * The interpreter tests' program: host and sb regions; fp32 m (Input, 0..23), mt, w (init 10s),
 * int32 i32, uint32 idx (Input, [3, 0, 2]), fp16 h16; one function whose block (a loop of `loop`
 * iterations when given) `body` fills. And the comparisons of two runs the tests share.
 */
import { ProgramBuilder, type BlockBuilder } from '../../../compiler/ir/builder.ts';
import { expect } from 'vitest';
import type { InterpretResult } from '../../../compiler/interp/index.ts';
import type { Module } from '../../../compiler/ir/module.ts';

export function program(body: (bb: BlockBuilder) => void, loop?: number): Module {
  const b = new ProgramBuilder({ name: 'interp', arch: 30 });
  b.region({ name: 'host', type: 'dram', base: 0x1000_0000, size: 0x1_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x2000_0000, size: 0x1_0000 });
  b.tensor({
    name: 'm',
    region: 'host',
    dtype: 'fp32',
    shape: [4, 6],
    kind: 'Input',
    init: Array.from({ length: 24 }, (_, i) => i),
  });
  b.tensor({ name: 'mt', region: 'sb', dtype: 'fp32', shape: [6, 4] });
  b.tensor({
    name: 'w',
    region: 'sb',
    offset: 0x100,
    dtype: 'fp32',
    shape: [4, 6],
    init: new Array(24).fill(10),
  });
  b.tensor({ name: 'i32', region: 'sb', offset: 0x200, dtype: 'int32', shape: [4, 6] });
  b.tensor({
    name: 'idx',
    region: 'host',
    offset: 0x800,
    dtype: 'uint32',
    shape: [3],
    kind: 'Input',
    init: [3, 0, 2],
  });
  b.tensor({
    name: 'h16',
    region: 'sb',
    offset: 0x400,
    dtype: 'fp16',
    shape: [8],
    init: [1, -2, 0.5, 65504, 1e-7, 3.14159, -0, 100],
  });
  const fb = b.function('main');
  if (loop) {
    body(fb.block('body', { loop: { iterations: loop } }));
  } else {
    body(fb.block('entry'));
  }
  return b.build();
}

/** Byte arrays equal pair by pair, each compared whole (the regions are large for toEqual). */
export function sameBytes(x: Uint8Array[], y: Uint8Array[]): boolean {
  return (
    x.length === y.length &&
    x.every((v, i) => Buffer.from(v.buffer, v.byteOffset, v.length).equals(y[i]))
  );
}

/** Two runs of the interpreter left the same bytes in every region and the same written masks. */
export function expectSameRun(a: InterpretResult, b: InterpretResult): void {
  expect(
    sameBytes(
      a.image.regions.map((r) => r.bytes),
      b.image.regions.map((r) => r.bytes),
    ),
  ).toBe(true);
  expect(sameBytes(a.written, b.written)).toBe(true);
}
