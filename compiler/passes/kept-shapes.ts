/**
 * The IR's object shapes kept across compiles. The passes' walks are optimized for the hidden
 * classes of the IR's objects (Block, Func, Instr, Tensor, Region, DmaQueue, AccessPattern and the
 * module's options). When a process lets one program's module go before it builds the next (a
 * compiler driver, a test run, a bench), no object of those classes is alive for a few
 * collections; V8 then drops their shapes and deoptimizes every pass walk optimized for them, and
 * the next program's compile starts in unoptimized code.
 *
 * `keepIrShapes` keeps one small module alive for the process's life (common/keep-shape.ts): this
 * file's own program, built through the program path and compiled through the pipeline, so every
 * class above has a live object of the shape that later programs share. It is made on the first
 * compile, never at import, and holds nothing of any other program. Its region sits above 4 GiB
 * and its tensors at offsets past 2^31, so its numeric fields already hold the widest
 * representation a program's addresses need and a later program does not change their shape.
 */
import { Module } from '../ir/module.ts';
import { parseProgram } from '../ir/to-module.ts';
import { keepShape } from './pass.ts';

const AP = (tensor: string, partition: [number, number], free: [number, number][]) => ({
  tensor,
  partition,
  free,
});
const ROWS: [number, number] = [64, 128];
const FLAT: [number, number][] = [[1, 64]];

/**
 * A load, a compute, saves behind their producer and to an output, a spill and its reload, a
 * collective with the DMAs around it and a cross-bar transpose, in a block and in a loop body.
 */
const KEPT_PROGRAM = {
  format: 'nxdma.program/1',
  name: 'kept-shapes',
  arch: 30,
  options: { dgeLevels: ['scalar_dynamic_offset', 'transpose', 'spill_reload'] },
  memory: {
    regions: [
      { name: 'hbm', type: 'dram', base: '0x100000000', size: '0x100000000' },
      { name: 'sb', type: 'sb', base: '0x200000000', size: '0x100000' },
    ],
    tensors: [
      {
        name: 'x',
        region: 'hbm',
        offset: '0x80000000',
        dtype: 'bf16',
        shape: [128, 64],
        kind: 'Input',
      },
      {
        name: 'y',
        region: 'hbm',
        offset: '0x80010000',
        dtype: 'bf16',
        shape: [128, 64],
        kind: 'Output',
      },
      { name: 'tmp', region: 'hbm', offset: '0x80020000', dtype: 'bf16', shape: [128, 64] },
      {
        name: 'spill',
        region: 'hbm',
        offset: '0x80030000',
        dtype: 'bf16',
        shape: [128, 64],
        kind: 'Spill',
      },
      { name: 't', region: 'sb', offset: 0, dtype: 'bf16', shape: [128, 64] },
      { name: 'xt', region: 'sb', offset: '0x8000', dtype: 'bf16', shape: [64, 64] },
      { name: 'ccin', region: 'sb', offset: '0x10000', dtype: 'bf16', shape: [128, 64] },
      { name: 'ccout', region: 'sb', offset: '0x18000', dtype: 'bf16', shape: [128, 64] },
    ],
  },
  functions: [
    {
      name: 'main',
      blocks: [
        {
          name: 'top',
          instructions: [
            {
              op: 'Load',
              name: 'ld',
              qos: 'P0',
              src: AP('x', ROWS, FLAT),
              dst: AP('t', ROWS, FLAT),
            },
            { op: 'Activation', name: 'act', reads: ['t'], writes: ['t'] },
            { op: 'Save', name: 'sv', src: AP('t', ROWS, FLAT), dst: AP('tmp', ROWS, FLAT) },
            {
              op: 'Save',
              name: 'out',
              qos: 'P1',
              src: AP('t', ROWS, FLAT),
              dst: AP('y', ROWS, FLAT),
            },
            {
              op: 'DMACopy',
              name: 'xp',
              transpose: 'xbar',
              src: AP('t', [1, 64], [[64, 64]]),
              dst: AP('xt', [64, 64], FLAT),
            },
            { op: 'Load', name: 'cc_ld', src: AP('x', ROWS, FLAT), dst: AP('ccin', ROWS, FLAT) },
            {
              op: 'CollectiveCompute',
              name: 'cc',
              collective: 'all_reduce',
              args: ['ccin'],
              results: ['ccout'],
            },
            {
              op: 'DMACopy',
              name: 'cc_cp',
              src: AP('ccout', ROWS, FLAT),
              dst: AP('t', ROWS, FLAT),
            },
          ],
        },
        {
          name: 'body',
          loop: { iterations: 2 },
          instructions: [
            { op: 'Save', name: 'sp', src: AP('t', ROWS, FLAT), dst: AP('spill', ROWS, FLAT) },
            { op: 'Load', name: 'rl', src: AP('spill', ROWS, FLAT), dst: AP('t', ROWS, FLAT) },
          ],
        },
      ],
    },
  ],
};

/**
 * How many times the kept program is compiled (the last module is the one kept). V8 gives a
 * function the feedback vector its inline caches record shapes in only once it has run for a
 * while, and a pass function runs once per compile: after a single small compile, the first
 * large program's walks start without feedback at their entry, the code optimized during that
 * compile deoptimizes there in the next one, and so on for the next few compiles, each running
 * its walks unoptimized while they are optimized again (measured: a 100k-DMA compile at 60-200 ms
 * CPU instead of 11-15 ms in 3 of 5 compiles after the first, against 1 of 5 with these compiles).
 * So every pass function has run with feedback, over the program's shapes, before the first
 * program; the kept program is small (a few milliseconds for all of them, once per process).
 */
const KEPT_COMPILES = 10;

/** Keeps the IR's shapes for the process's life; `compile` is the pipeline's own compile. */
export function keepIrShapes(compile: (m: Module) => void): void {
  keepShape(Module, () => {
    // the earlier compiles, each of a fresh module, give the pass functions their feedback
    for (let i = 1; i < KEPT_COMPILES; i++) compile(parseProgram(KEPT_PROGRAM));
    const m = parseProgram(KEPT_PROGRAM);
    compile(m);
    return m;
  });
}
