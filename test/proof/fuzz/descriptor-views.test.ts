/**
 * Descriptor codecs (csr/formats: 16-byte BDs, 64-byte DGE descriptors, micro-ops) at arbitrary
 * views and offsets. The codec suites (test/csr/formats) already decode random bytes at offset 0;
 * this suite covers the views a driver hands them: a Uint8Array, Uint32Array or DataView carved
 * out of a larger buffer at some byte offset, with an arbitrary (possibly negative, fractional,
 * misaligned or too large) descriptor offset.
 *
 * Properties: decoders throw only NxdmaError and read only inside their view (what they return
 * equals a decode of a copy of exactly those bytes); validating decoders never throw; encoders
 * write exactly the descriptor's bytes inside the view and nothing else of the underlying buffer,
 * and a refused encode writes nothing at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BD_SIZE,
  decodeCompletion,
  decodeRx,
  decodeTx,
  putRx,
  putTx,
  readBdWords,
  validateRx,
  validateTx,
  writeBdWords,
} from '../../../csr/formats/bd.ts';
import {
  decodeDgeDescriptor,
  encodeDgeDescriptor,
  validateDgeDescriptor,
} from '../../../csr/formats/dge-desc.ts';
import { decodeMicroOp, validateMicroOp } from '../../../csr/formats/dge-ops.ts';
import type { ByteView } from '../../../csr/formats/wire.ts';
import { fuzz, outcome } from '../../support/fuzz.ts';

const BUF = 160;

/** A view of `kind` over buf[start, start + len) (Uint32Array views need aligned starts). */
interface Carved {
  buf: Uint8Array;
  view: ByteView;
  start: number;
  len: number;
}

const carvedArb = fc
  .record({
    kind: fc.constantFrom('u8', 'u32', 'dv'),
    start: fc.nat({ max: 64 }),
    len: fc.nat({ max: 96 }),
    bytes: fc.uint8Array({ minLength: BUF, maxLength: BUF }),
  })
  .map(({ kind, start, len, bytes }): Carved => {
    const buf = bytes.slice();
    if (kind === 'u32') {
      const s = start & ~3;
      const n = len >>> 2;
      return { buf, view: new Uint32Array(buf.buffer, s, n), start: s, len: n * 4 };
    }
    if (kind === 'dv') return { buf, view: new DataView(buf.buffer, start, len), start, len };
    return { buf, view: new Uint8Array(buf.buffer, start, len), start, len };
  });

const offsetArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -4, max: 100 }) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, -0, Number.NaN, Infinity, 2 ** 32, -(2 ** 31)) },
);

/** A Uint8Array holding a copy of the view's own bytes (what a decoder may look at). */
function own(c: Carved): Uint8Array {
  return c.buf.slice(c.start, c.start + c.len);
}

const DECODERS: [string, number, (v: ByteView, o: number) => unknown][] = [
  ['decodeTx', BD_SIZE, decodeTx],
  ['decodeRx', BD_SIZE, decodeRx],
  ['decodeCompletion', BD_SIZE, decodeCompletion],
  ['readBdWords', BD_SIZE, readBdWords],
  ['decodeDgeDescriptor', 64, decodeDgeDescriptor],
  ['decodeMicroOp', 16, decodeMicroOp],
];
const VALIDATORS: [string, (v: ByteView, o: number) => { ok: boolean }][] = [
  ['validateTx', validateTx],
  ['validateRx', validateRx],
  ['validateDgeDescriptor', validateDgeDescriptor],
  ['validateMicroOp', validateMicroOp],
];

describe('descriptor codecs at arbitrary views and offsets (fuzz)', () => {
  it('decoders: typed errors only, and they see only their view', () => {
    fc.assert(
      fc.property(carvedArb, offsetArb, (c, off) => {
        const before = c.buf.slice();
        for (const [name, size, fn] of DECODERS) {
          const r = outcome(() => fn(c.view, off));
          const inside =
            Number.isInteger(off) &&
            off >= 0 &&
            off + size <= c.len &&
            !(c.view instanceof Uint32Array && off % 4 !== 0);
          if (!inside) {
            expect(r.ok, `${name} at ${off} of a ${c.len}-byte view`).toBe(false);
            continue;
          }
          // the same bytes copied out give the same answer (nothing past the view was read)
          const again = outcome(() => fn(own(c), off));
          expect(again.ok, name).toBe(r.ok);
          if (r.ok && again.ok) expect(again.value, name).toEqual(r.value);
        }
        for (const [name, fn] of VALIDATORS) {
          let res: { ok: boolean } | undefined;
          expect(() => (res = fn(c.view, off)), `${name} threw`).not.toThrow();
          expect(typeof res!.ok).toBe('boolean');
        }
        expect(Buffer.from(c.buf).equals(Buffer.from(before))).toBe(true);
      }),
      fuzz(0xb17e0001, 400),
    );
  });

  it('encoders write exactly their descriptor inside the view; a refused encode writes nothing', () => {
    const fields = fc.record({
      len: fc.oneof(fc.integer({ min: 1, max: 65536 }), fc.constantFrom(0, 65537, -1, 1.5)),
      rid: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(4)),
      addr: fc.oneof(fc.maxSafeNat(), fc.constantFrom(-1, 2 ** 53, 0.5)),
      words: fc.array(fc.nat({ max: 0xffffffff }), { minLength: 4, maxLength: 4 }),
    });
    fc.assert(
      fc.property(carvedArb, offsetArb, fields, (c, off, f) => {
        const encoders: [string, () => void][] = [
          ['putTx', () => putTx(c.view, off, f.len, f.rid, 0, f.addr)],
          ['putRx', () => putRx(c.view, off, f.len, f.rid, 0, f.addr)],
          [
            'writeBdWords',
            () => writeBdWords(c.view, off, f.words[0], f.words[1], f.words[2], f.words[3]),
          ],
        ];
        for (const [name, enc] of encoders) {
          const before = c.buf.slice();
          const r = outcome(enc);
          const lo = c.start + (Number.isInteger(off) ? off : 0);
          for (let i = 0; i < BUF; i++) {
            if (c.buf[i] === before[i]) continue;
            // a changed byte: the encode succeeded and the byte is inside the descriptor's span
            expect(r.ok, `${name}: a refused encode wrote byte ${i}`).toBe(true);
            expect(
              i >= lo && i < lo + BD_SIZE && i < c.start + c.len,
              `${name} wrote byte ${i}`,
            ).toBe(true);
          }
          if (r.ok) {
            expect(Number.isInteger(off) && off >= 0 && off + BD_SIZE <= c.len).toBe(true);
            // what was written decodes back from the view
            expect(readBdWords(c.view, off)).toEqual(readBdWords(own(c), off));
          }
        }
      }),
      fuzz(0xb17e0002, 400),
    );
  });

  it('the 64-byte DGE encoder at arbitrary offsets: inside its view or refused whole', () => {
    const d = decodeDgeDescriptor(new Uint8Array(64)); // the all-zero DIRECT2D
    fc.assert(
      fc.property(carvedArb, offsetArb, (c, off) => {
        const before = c.buf.slice();
        const r = outcome(() => encodeDgeDescriptor(c.view, off, d));
        const ok =
          Number.isInteger(off) &&
          off >= 0 &&
          off + 64 <= c.len &&
          !(c.view instanceof Uint32Array && off % 4 !== 0);
        if (!r.ok) {
          expect(Buffer.from(c.buf).equals(Buffer.from(before))).toBe(true);
          return;
        }
        expect(ok).toBe(true);
        for (let i = 0; i < BUF; i++) {
          if (c.buf[i] !== before[i])
            expect(i >= c.start + off && i < c.start + off + 64).toBe(true);
        }
      }),
      fuzz(0xb17e0003, 300),
    );
  });
});
