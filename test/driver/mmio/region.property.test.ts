import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { openRegion } from '../../../driver/mmio/region.ts';
import { removeFiles, sparseFile } from './helpers.ts';

afterAll(removeFiles);

/** Bounded in CI; NXDMA_FUZZ_RUNS raises the count. */
const RUNS = Number(process.env.NXDMA_FUZZ_RUNS ?? 200);
const SEED = 0x6d6d696f;

const FILE_SIZE = 0x6000;
const WIN_OFFSET = 0x1ff4; // not page aligned: the window straddles pages
const WIN_SIZE = 0x2010;

/** Offsets around and inside the window, plus hostile numbers. */
const offsetArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -0x100, max: WIN_SIZE + 0x100 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: WIN_SIZE / 4 - 1 }).map((w) => w * 4) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      -0,
      -4,
      WIN_SIZE - 4,
      WIN_SIZE,
      WIN_SIZE + 4,
      0.5,
      WIN_SIZE - 4 + 0.25,
      WIN_SIZE - 2,
      2 ** 32,
      2 ** 32 + 4,
      -(2 ** 31),
      Number.MAX_SAFE_INTEGER,
      Infinity,
      -Infinity,
      Number.NaN,
    ),
  },
);
const valueArb = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.constantFrom(2 ** 32, -(2 ** 31) - 1, 0.5, Number.NaN),
);
const opArb = fc.record({ write: fc.boolean(), offset: offsetArb, value: valueArb });

describe('mmap region bounds (property)', () => {
  it('every access either succeeds inside the window or throws a typed error; no byte outside changes', () => {
    const p = sparseFile(FILE_SIZE);
    const init = Buffer.alloc(FILE_SIZE);
    for (let i = 0; i < FILE_SIZE; i++) init[i] = (i * 7 + 3) & 0xff;
    fs.writeFileSync(p, init);
    const model = Buffer.from(init); // what the file must hold
    using r = openRegion(p, { offset: WIN_OFFSET, size: WIN_SIZE });

    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 20 }), (ops) => {
        for (const { write, offset, value } of ops) {
          const inWindow =
            Number.isInteger(offset) && offset >= 0 && offset % 4 === 0 && offset + 4 <= WIN_SIZE;
          const goodValue = Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 32;
          try {
            if (write) {
              r.write32(offset, value);
              model.writeUInt32LE(value >>> 0, WIN_OFFSET + offset);
            } else {
              const got = r.read32(offset);
              expect(got).toBe(model.readUInt32LE(WIN_OFFSET + offset));
            }
            expect(inWindow && (!write || goodValue)).toBe(true);
          } catch (e) {
            if (!(e instanceof NxdmaError)) throw e;
            expect(['OUT_OF_WINDOW', 'MISALIGNED', 'OUT_OF_RANGE']).toContain(e.code);
            expect(inWindow && (!write || goodValue)).toBe(false);
          }
        }
        // whole file equals the model: nothing outside the window, nothing rejected, was written
        expect(fs.readFileSync(p).equals(model)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('random windows either open (and stay inside the file) or fail with DEVICE_OPEN', () => {
    const p = sparseFile(FILE_SIZE);
    fc.assert(
      fc.property(
        fc.integer({ min: -8, max: FILE_SIZE + 8 }),
        fc.integer({ min: -8, max: FILE_SIZE + 8 }),
        (offset, size) => {
          const ok =
            offset >= 0 &&
            size > 0 &&
            offset % 4 === 0 &&
            size % 4 === 0 &&
            offset + size <= FILE_SIZE;
          try {
            const r = openRegion(p, { offset, size });
            expect(ok).toBe(true);
            expect(r.read32(size - 4)).toBe(0);
            r.dispose();
          } catch (e) {
            if (!(e instanceof NxdmaError)) throw e;
            expect(e.code).toBe('DEVICE_OPEN');
            expect(ok).toBe(false);
          }
        },
      ),
      { seed: SEED, numRuns: Math.min(RUNS, 200) },
    );
    expect(fs.readFileSync(p).every((b) => b === 0)).toBe(true);
  });
});
