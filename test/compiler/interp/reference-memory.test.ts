/**
 * The reference interpreter in memory it is given (the flow keeps the last run's arrays for the
 * next one: flow/flow.ts): the same bytes and masks as in new memory, whatever the memory held.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Module } from '../../../compiler/ir/module.ts';
import { initialImage, interpret } from '../../../compiler/interp/index.ts';
import { arenaLayout } from '../../../compiler/interp/memory.ts';
import { compileProgram } from '../../../compiler/passes/pipeline.ts';
import { randomKnobs, randomProgram } from '../../flow/random-program.ts';
import { expectSameRun, program } from './program.ts';

describe('the reference interpreter in given memory', () => {
  it('runs in memory given to it, left dirty by another run, exactly as in new memory', () => {
    const knobs = randomKnobs();
    fc.assert(
      fc.property(knobs, fc.integer({ min: 1, max: 1000 }), fc.integer(), (k, seed, junk) => {
        let m: Module;
        try {
          m = compileProgram(randomProgram(k)).module;
        } catch {
          fc.pre(false);
          return;
        }
        const { size } = arenaLayout(m);
        // memory as another run leaves it: every byte set to something
        const dirty = () => new Uint8Array(size).map((_, i) => (junk + i * 151) & 0xff);
        const [startMem, copyMem, writtenMem] = [dirty(), dirty(), dirty()];
        const start = initialImage(m, seed, startMem);
        expect(start.arena).toBe(startMem);
        const fresh = initialImage(m, seed);
        expect(Buffer.from(startMem).equals(Buffer.from(fresh.arena!))).toBe(true);
        const a = interpret(m, start.clone(copyMem), { written: writtenMem });
        const b = interpret(m, fresh.clone());
        expect(a.image.arena).toBe(copyMem);
        expectSameRun(a, b);
        expect(a.written.every((w) => w.buffer === writtenMem.buffer)).toBe(true);
      }),
      { seed: 20261202, numRuns: 8 },
    );
  });

  it('refuses memory of the wrong length, or the image itself, before writing any of it', () => {
    const m = program((bb) =>
      bb.copy({
        src: { tensor: 'm', partition: [1, 6], free: [[6, 4]] },
        dst: { tensor: 'mt', partition: [4, 6], free: [[1, 4]] },
      }),
    );
    const { size } = arenaLayout(m);
    const short = new Uint8Array(size - 8).fill(7);
    expect(() => initialImage(m, 1, short)).toThrow(/holds \d+ bytes; the program's regions need/);
    expect(short.every((b) => b === 7)).toBe(true);
    const img = initialImage(m);
    expect(() => img.clone(short)).toThrow(/the arena given holds/);
    expect(() => img.clone(img.arena!.subarray(0))).toThrow(/the image's own memory/);
    expect(() => interpret(m, img.clone(), { written: short })).toThrow(
      /written-mask memory holds/,
    );
    expect(short.every((b) => b === 7)).toBe(true);
    expect(() => interpret(m, img, { written: img.arena! })).toThrow(
      /written-mask memory is the image's own memory/,
    );
  });
});
