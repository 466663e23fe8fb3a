/**
 * Fuzzing the register-schema loader (csr/schema/loader.ts, docs/csr.md "What the loader rejects")
 * with mutated shipped schemas, arbitrary JSON and arbitrary file bytes.
 *
 * Properties: only NxdmaError SCHEMA_INVALID escapes; the input document is left as it was; an
 * accepted model keeps every register inside its window (aligned, no two words at one offset,
 * fields inside bits 31..0 and disjoint, reset values and enumerations inside their fields); a
 * mock register file built from an accepted model never stores outside its window.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { REGFILE_NAMES, schemaPath } from '../../../csr/schema/files.ts';
import { loadRegFile, parseRegFile } from '../../../csr/schema/loader.ts';
import type { RegFileModel } from '../../../csr/schema/model.ts';
import { MockRegisterFile } from '../../../mocks/register-file.ts';
import { expectUnchanged, fuzz, outcome, snapshot } from '../../support/fuzz.ts';
import { documentArb } from '../support/mutate.ts';

const BASES = REGFILE_NAMES.map((n) => JSON.parse(readFileSync(schemaPath(n), 'utf8')) as unknown);

const dir = mkdtempSync(join(tmpdir(), 'nxdma-schema-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The structural promises of an accepted model (docs/csr.md "The model"). */
function checkModel(m: RegFileModel): void {
  expect(Number.isSafeInteger(m.size) && m.size > 0 && m.size % 4 === 0).toBe(true);
  const seen = new Map<number, string>();
  for (const inst of m.instances) {
    expect(inst.offset % 4, inst.path).toBe(0);
    expect(inst.offset >= 0 && inst.offset + 4 <= m.size, `${inst.path} inside the window`).toBe(
      true,
    );
    expect(
      seen.has(inst.offset),
      `${inst.path} shares ${inst.offset} with ${seen.get(inst.offset)}`,
    ).toBe(false);
    seen.set(inst.offset, inst.path);
  }
  const regs = [...m.registers, ...m.blocks.flatMap((b) => b.registers)];
  for (const r of regs) {
    let used = 0;
    for (const f of r.fields) {
      expect(f.lsb >= 0 && f.msb <= 31 && f.msb >= f.lsb, `${r.name}.${f.name} bits`).toBe(true);
      expect((used & f.mask) >>> 0, `${r.name}.${f.name} overlaps`).toBe(0);
      used = (used | f.mask) >>> 0;
      expect(f.reset >= 0 && f.reset <= f.max, `${r.name}.${f.name} reset`).toBe(true);
      for (const e of f.enums) expect(e.value >= 0 && e.value <= f.max).toBe(true);
    }
    if (r.fields.length > 0) expect((r.reset & ~used) >>> 0, `${r.name} reset bits`).toBe(0);
  }
}

describe('register-schema loader (fuzz)', () => {
  it('mutated schemas and random JSON: a frozen, in-window model or SCHEMA_INVALID; the input is untouched', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(documentArb(BASES, 3), (doc) => {
        const before = snapshot(doc);
        const r = outcome(() => parseRegFile(doc, 'fuzz.json'));
        expectUnchanged(doc, before);
        if (!r.ok) {
          rejected++;
          expect(r.error.code).toBe('SCHEMA_INVALID');
          expect(r.error.message.startsWith('fuzz.json')).toBe(true);
          expect(Array.isArray(r.error.details.issues)).toBe(true);
          expect((r.error.details.issues as unknown[]).length).toBeGreaterThan(0);
          expect(() => JSON.stringify(r.error.toJSON())).not.toThrow();
          return;
        }
        accepted++;
        expect(Object.isFrozen(r.value)).toBe(true);
        checkModel(r.value);
      }),
      fuzz(0x5c4e3a01, 250),
    );
    // Both sides of the loader are exercised.
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });

  it('a mock register file built from an accepted model keeps every access inside its window', () => {
    const access = fc.record({
      write: fc.boolean(),
      offset: fc.oneof(
        fc.integer({ min: -16, max: 0x20010 }),
        fc.constantFrom(0.5, -0, 2 ** 32, Number.NaN, Infinity),
      ),
      value: fc.oneof(fc.nat({ max: 0xffffffff }), fc.constantFrom(-1, 2 ** 32, 0.5, Number.NaN)),
    });
    fc.assert(
      fc.property(
        documentArb(BASES.slice(0, 1), 2),
        fc.array(access, { maxLength: 40 }),
        (doc, ops) => {
          const r = outcome(() => parseRegFile(doc, 'fuzz.json'));
          if (!r.ok) return;
          const file = new MockRegisterFile(r.value, { strict: false });
          const words = file.words;
          expect(words.length).toBe(r.value.size / 4);
          const lenient = outcome(() => {
            for (const o of ops) {
              if (o.write) file.write32(o.offset, o.value);
              else {
                const v = file.read32(o.offset);
                expect(Number.isInteger(v) && v >= 0 && v <= 0xffffffff).toBe(true);
              }
            }
          });
          expect(lenient.ok).toBe(true);
          // the backing store did not grow and holds only 32-bit words
          expect(file.words).toBe(words);
          expect(words.length).toBe(r.value.size / 4);
          // strict: every bad access is a typed error and changes no word
          const strict = new MockRegisterFile(r.value, { strict: true });
          for (const o of ops) {
            const before = strict.words.slice();
            const s = outcome(() =>
              o.write ? strict.write32(o.offset, o.value) : strict.read32(o.offset),
            );
            if (!s.ok) {
              expect([
                'REGISTER_UNKNOWN',
                'MISALIGNED',
                'OUT_OF_WINDOW',
                'BAD_ARGUMENT',
                'REGISTER_READ_ONLY',
                'OUT_OF_RANGE',
              ]).toContain(s.error.code);
              expect(Buffer.from(strict.words.buffer).equals(Buffer.from(before.buffer))).toBe(
                true,
              );
            }
          }
        },
      ),
      fuzz(0x5c4e3a02, 80),
    );
  });

  it('arbitrary file contents: loadRegFile reads, then rejects with SCHEMA_INVALID naming the file', () => {
    const texts = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
      // a shipped schema cut short
      fc
        .tuple(fc.constantFrom(...REGFILE_NAMES), fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([n, f]) => {
          const t = readFileSync(schemaPath(n), 'utf8');
          return t.slice(0, Math.floor(t.length * f));
        }),
    );
    let i = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const p = join(dir, `f${i++}.json`);
        writeFileSync(p, text);
        const r = outcome(() => loadRegFile(p, 'cut.json'));
        if (r.ok) {
          checkModel(r.value);
          return;
        }
        expect(r.error.code).toBe('SCHEMA_INVALID');
        expect(r.error.message).toContain('cut.json');
      }),
      fuzz(0x5c4e3a03, 150),
    );
    const missing = outcome(() => loadRegFile(join(dir, 'absent.json')));
    expect(missing.ok).toBe(false);
    expect((missing as { error: NxdmaError }).error.code).toBe('SCHEMA_INVALID');
  });
});
