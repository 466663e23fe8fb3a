/**
 * Fuzzing the program parser (compiler/ir/program.ts, to-module.ts; docs/program-format.md) with
 * mutated example programs, arbitrary JSON and hostile values, then every accepted program through
 * the rest of the compile path: the pass pipeline, the lowering and the reference interpreter.
 *
 * Properties: only NxdmaError escapes (PROGRAM_INVALID from the parser, COMPILE_ERROR from the
 * passes, never the INTERNAL_ERROR sub-code that marks a pass crashing, LOWER_ERROR from the
 * lowering, MEMORY_UNMAPPED / OUT_OF_RANGE from the interpreter); the input document is left as it
 * was; every byte an accepted affine DMA's descriptors read or write lies inside the region of its
 * tensor (checked piece by piece, independently of the lowering's own bound check).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../common/errors.ts';
import { CompileError } from '../../../compiler/errors.ts';
import { initialImage, interpret } from '../../../compiler/interp/index.ts';
import { parseProgram } from '../../../compiler/ir/to-module.ts';
import { expandWalk } from '../../../compiler/lower/expand.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { expectUnchanged, fuzz, outcome, snapshot } from '../../support/fuzz.ts';
import { documentArb } from '../support/mutate.ts';

const DIR = new URL('../../../examples/programs/', import.meta.url).pathname;
const BASES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as unknown);

/** Above these, a run skips the costly stages (a nudged size can ask for gigabytes). */
const MAX_IMAGE_BYTES = 64 << 20;
const MAX_PIECES = 200_000;

interface Tally {
  invalid: number;
  compileError: number;
  lowerError: number;
  lowered: number;
  interpreted: number;
}

function runOne(doc: unknown, t: Tally): void {
  const before = snapshot(doc);
  const parsed = outcome(() => parseProgram(doc, { file: 'fuzz.json' }));
  expectUnchanged(doc, before);
  if (!parsed.ok) {
    expect(parsed.error.code).toBe('PROGRAM_INVALID');
    expect(Array.isArray(parsed.error.details.issues)).toBe(true);
    expect(() => JSON.stringify(parsed.error.toJSON())).not.toThrow();
    t.invalid++;
    return;
  }
  const m = parsed.value;
  const compiled = outcome(() => compile(m));
  if (!compiled.ok) {
    expect(compiled.error).toBeInstanceOf(CompileError);
    expect((compiled.error as CompileError).subCode).not.toBe('INTERNAL_ERROR');
    t.compileError++;
    return;
  }
  const lowered = outcome(() => lower(m, { keepRecords: false }));
  if (!lowered.ok) {
    expect(['LOWER_ERROR'] as ErrorCode[]).toContain(lowered.error.code);
    t.lowerError++;
    return;
  }
  t.lowered++;
  const lp = lowered.value;
  if (lp.totals.descriptors <= MAX_PIECES) {
    for (const d of lp.dmas) {
      const sReg = d.instr.src!.tensor.region;
      const dReg = d.instr.dst!.tensor.region;
      let pieces = 0;
      let bad: { src: number; dst: number; len: number } | null = null;
      for (const w of d.walks) {
        if (w.type !== 'affine') continue; // indexed walks read their indices at run time
        pieces += expandWalk(w, {
          piece(src, dst, len) {
            // plain comparisons per piece (an expect per piece would dominate the run time)
            if (
              !(len > 0 && len <= 65536) ||
              src < sReg.base ||
              src + len > sReg.base + sReg.size ||
              dst < dReg.base ||
              dst + len > dReg.base + dReg.size
            ) {
              bad ??= { src, dst, len };
            }
          },
        });
      }
      expect(bad, `${d.label}: a piece outside its regions or of a bad length`).toBeNull();
      if (d.walks.every((w) => w.type === 'affine')) expect(pieces).toBe(d.descriptors);
    }
  }
  let regionBytes = 0;
  for (const r of m.regions) regionBytes += r.size;
  if (regionBytes <= MAX_IMAGE_BYTES) {
    const run = outcome(() => interpret(m, initialImage(m)));
    if (run.ok) t.interpreted++;
    else expect(['MEMORY_UNMAPPED', 'OUT_OF_RANGE'] as ErrorCode[]).toContain(run.error.code);
  }
}

describe('program parser and compile path (fuzz)', () => {
  it('the example programs themselves compile, lower and interpret', () => {
    const t: Tally = { invalid: 0, compileError: 0, lowerError: 0, lowered: 0, interpreted: 0 };
    for (const b of BASES) runOne(b, t);
    expect(t.lowered).toBe(BASES.length);
    expect(t.interpreted).toBe(BASES.length);
  });

  it('mutated programs and random JSON: only typed errors, the input untouched, accesses inside their regions', () => {
    const t: Tally = { invalid: 0, compileError: 0, lowerError: 0, lowered: 0, interpreted: 0 };
    fc.assert(
      fc.property(documentArb(BASES, 3), (doc) => runOne(doc, t)),
      fuzz(0x9a0c0001, 300),
    );
    // Every stage was reached by some input.
    expect(t.invalid).toBeGreaterThan(0);
    expect(t.lowered).toBeGreaterThan(0);
  });
});
