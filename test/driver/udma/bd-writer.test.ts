import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NxdmaError } from '../../../common/errors.ts';
import {
  BD_SIZE,
  LEN_CTRL,
  META_CTRL_PLAIN_COPY,
  decodeRx,
  decodeTx,
} from '../../../csr/formats/bd.ts';
import { ringIdAfter } from '../../../csr/formats/ring.ts';
import type { MemoryIO } from '../../../csr/io.ts';
import { BdWriter, type PairStream } from '../../../driver/udma/bd-writer.ts';
import { RingProducer } from '../../../driver/udma/ring.ts';
import { expectCode } from './helpers.ts';

const TX = 0x1000;
const RX = 0x2000;

/** A flat device memory of 64 KiB; `view` only when asked (else the scratch + write path). */
function memory(withView: boolean): { mem: MemoryIO; bytes: Uint8Array } {
  const bytes = new Uint8Array(0x10000);
  const mem: MemoryIO = {
    read: (addr, dst) => dst.set(bytes.subarray(addr, addr + dst.length)),
    write: (addr, src) => bytes.set(src, addr),
    isMapped: (addr, n) => addr >= 0 && addr + n <= bytes.length,
  };
  if (withView) mem.view = (addr, n) => bytes.subarray(addr, addr + n);
  return { mem, bytes };
}

function writer(size = 32, withView = true) {
  const { mem, bytes } = memory(withView);
  const tx = new RingProducer('tx', { base: TX, size }, mem);
  const rx = new RingProducer('rx', { base: RX, size }, mem);
  return { w: new BdWriter(tx, rx), tx, rx, bytes };
}

const txAt = (b: Uint8Array, slot: number) => decodeTx(b, TX + slot * BD_SIZE);
const rxAt = (b: Uint8Array, slot: number) => decodeRx(b, RX + slot * BD_SIZE);

describe('BdWriter.copy: a copy in 64 KiB chunks, each chunk one packet (UDMA-FACTS "Memory-to-memory copy")', () => {
  it('TX first | last per chunk, dmb on the first with a barrier, int_en on the last RX', () => {
    const { w, tx, rx, bytes } = writer();
    expect(w.copy(0x100000, 0x200000, 65536 * 2 + 5, true, true)).toBe(3);
    for (let i = 0; i < 3; i++) {
      const t = txAt(bytes, i);
      const r = rxAt(bytes, i);
      expect([t.first, t.last, t.dmb, t.ring_id]).toEqual([true, true, i === 0, 1]);
      expect(t.meta_ctrl).toBe(META_CTRL_PLAIN_COPY);
      expect(t.buf_ptr).toBe(0x100000 + i * 65536);
      expect(r.buf1_ptr).toBe(0x200000 + i * 65536);
      expect(t.len).toBe(i === 2 ? 5 : 65536);
      expect(r.len).toBe(t.len);
      expect([r.first, r.last, r.int_en]).toEqual([false, false, i === 2]);
    }
    expect([tx.tail, tx.produced, rx.tail, rx.produced]).toEqual([3, 3, 3, 3]);
  });

  it('the producer wraps to slot 0 with the next ring id', () => {
    const { w, tx, bytes } = writer(32);
    for (let i = 0; i < 31; i++) w.copy(0x100000, 0x200000, 64, false, false);
    tx.consumedAtLeast(31);
    w.rx.consumedAtLeast(31);
    w.copy(0x100000, 0x200000, 65536 * 3, false, false);
    expect(txAt(bytes, 31).ring_id).toBe(1);
    expect(txAt(bytes, 0).ring_id).toBe(2);
    expect(txAt(bytes, 1).ring_id).toBe(2);
    expect([tx.tail, tx.ringId, tx.produced]).toEqual([2, 2, 34]);
  });

  it('a one-chunk copy in the last slot wraps the producer to slot 0 and the next ring id', () => {
    const { w, tx, rx, bytes } = writer(32);
    for (let i = 0; i < 31; i++) w.copy(0x100000, 0x200000, 64, false, false);
    tx.consumedAtLeast(31);
    rx.consumedAtLeast(31);
    w.copy(0x100000, 0x200000, 100, false, false);
    w.copy(0x100000, 0x200000, 100, false, false);
    expect([txAt(bytes, 31).ring_id, txAt(bytes, 0).ring_id, rxAt(bytes, 0).ring_id]).toEqual([
      1, 2, 2,
    ]);
    expect([tx.tail, tx.ringId, rx.tail, rx.ringId, tx.produced]).toEqual([1, 2, 1, 2, 33]);
  });

  it('the view and the scratch paths write the same bytes', () => {
    const a = writer(32, true);
    const b = writer(32, false);
    for (const x of [a, b]) {
      x.w.copy(0x100000, 0x200000, 70000, true, false);
      x.w.copy(0x300000, 0x400000, 17, false, true);
    }
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.tx.tail).toBe(3);
  });
});

describe('BdWriter: never overwrites a descriptor the engine has not consumed', () => {
  it('RING_FULL writes nothing when the room the driver knows is short', () => {
    const { w, tx, rx, bytes } = writer(32);
    for (let i = 0; i < 30; i++) w.copy(0x100000 + i * 64, 0x200000, 64, false, false);
    const before = Buffer.from(bytes);
    const e = expectCode(() => w.copy(0x100000, 0x200000, 65536 * 3, false, false), 'RING_FULL');
    expect(e.message).toContain('room for 2 descriptors, 3 to write');
    expectCode(() => w.stream(stream(3)), 'RING_FULL');
    expect(Buffer.from(bytes).equals(before)).toBe(true);
    expect([tx.tail, tx.produced, rx.tail, rx.produced]).toEqual([30, 30, 30, 30]);
    w.pair(64, LEN_CTRL.FIRST | LEN_CTRL.LAST, 0, 0x100000, 0x200000);
    w.putTx(64, 0, 0x100000);
    expectCode(() => w.putTx(64, 0, 0x100000), 'RING_FULL');
    w.putRx(64, 0, 0x200000);
    expectCode(() => w.putRx(64, 0, 0x200000), 'RING_FULL');
    expectCode(() => w.pair(64, 0, 0, 0x100000, 0x200000), 'RING_FULL');
    // room comes back as the engine consumes
    tx.consumedAtLeast(4);
    rx.consumedAtLeast(4);
    expect(w.copy(0x100000, 0x200000, 65536 * 3, false, false)).toBe(3);
  });

  it('a pair with a bad field writes neither descriptor', () => {
    const { w, tx, rx, bytes } = writer(32);
    const before = Buffer.from(bytes);
    expectCode(() => w.pair(64, 0, 0, 0x100000, -1), 'BAD_ARGUMENT');
    expectCode(() => w.pair(64, 0, LEN_CTRL.DMB, 0x100000, 0x200000), 'BAD_ARGUMENT');
    expectCode(() => w.pair(65537, 0, 0, 0x100000, 0x200000), 'BAD_ARGUMENT');
    expect(Buffer.from(bytes).equals(before)).toBe(true);
    expect([tx.produced, rx.produced]).toEqual([0, 0]);
  });
});

function stream(n: number): PairStream {
  const s = {
    length: n,
    src: new Float64Array(n),
    dst: new Float64Array(n),
    len: new Uint32Array(n),
    flags: new Uint32Array(n),
  };
  for (let i = 0; i < n; i++) {
    s.src[i] = 0x100000 + i * 0x1000;
    s.dst[i] = 0x200000 + i * 0x1000;
    s.len[i] = 100 + i;
    s.flags[i] =
      (i % 4 === 0 ? LEN_CTRL.FIRST | LEN_CTRL.DMB : 0) | (i % 4 === 3 ? LEN_CTRL.LAST : 0);
  }
  return s;
}

describe('BdWriter.stream: a descriptor stream of pairs', () => {
  it('one TX and one RX descriptor per pair, RX with the flags less dmb', () => {
    const { w, tx, rx, bytes } = writer(32);
    const s = stream(8);
    w.stream(s, 2, 5);
    for (let k = 0; k < 5; k++) {
      const i = 2 + k;
      const t = txAt(bytes, k);
      const r = rxAt(bytes, k);
      expect([t.buf_ptr, t.len, t.first, t.last, t.dmb]).toEqual([
        s.src[i],
        s.len[i],
        i % 4 === 0,
        i % 4 === 3,
        i % 4 === 0,
      ]);
      expect([r.buf1_ptr, r.len, r.first, r.last]).toEqual([
        s.dst[i],
        s.len[i],
        i % 4 === 0,
        i % 4 === 3,
      ]);
    }
    expect([tx.produced, rx.produced]).toEqual([5, 5]);
    w.stream(s);
    expect([tx.produced, rx.produced]).toEqual([13, 13]);
  });

  it('refuses a range outside the stream, writing nothing', () => {
    const { w, tx } = writer(32);
    const s = stream(4);
    expectCode(() => w.stream(s, 2, 3), 'BAD_ARGUMENT');
    expectCode(() => w.stream(s, -1, 1), 'BAD_ARGUMENT');
    expectCode(() => w.stream(s, 0.5, 1), 'BAD_ARGUMENT');
    expect(tx.produced).toBe(0);
  });
});

describe('BdWriter.stream: the word-view pass and the per-descriptor path agree', () => {
  const pairArb = fc.record({
    src: fc.integer({ min: 0, max: 2 ** 40 }),
    dst: fc.integer({ min: 0, max: 2 ** 40 }),
    len: fc.integer({ min: 1, max: 65536 }),
    flags: fc
      .subarray([LEN_CTRL.FIRST, LEN_CTRL.LAST, LEN_CTRL.INT_EN, LEN_CTRL.DMB])
      .map((b) => b.reduce((a, x) => a | x, 0)),
  });

  it('the same descriptors, tails, ring ids and produced counts over wraps; a bad pair refused with the same error after the same pairs', () => {
    fc.assert(
      fc.property(
        fc.array(pairArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom(32, 48),
        fc.nat({ max: 200 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom('len', 'flags', 'src')), { freq: 3 }),
        (pairs, size, before, bad) => {
          const s = {
            length: pairs.length,
            src: Float64Array.from(pairs, (p) => p.src),
            dst: Float64Array.from(pairs, (p) => p.dst),
            len: Uint32Array.from(pairs, (p) => p.len),
            flags: Uint32Array.from(pairs, (p) => p.flags),
          };
          const at = bad ? bad[0] % pairs.length : -1;
          if (bad)
            ({
              len: () => (s.len[at] = 0),
              flags: () => (s.flags[at] = 1),
              src: () => (s.src[at] = -4),
            })[bad[1]]();
          const runs = [writer(size, true), writer(size, false)].map((r) => {
            // the producers somewhere on a later lap, the ring empty
            for (let i = 0; i < before; i++) {
              r.tx.advance();
              r.rx.advance();
            }
            r.tx.consumedAtLeast(before);
            r.rx.consumedAtLeast(before);
            let error: unknown = null;
            try {
              r.w.stream(s);
            } catch (e) {
              error = e;
            }
            return { ...r, error };
          });
          const [view, scratch] = runs;
          const written = bad ? at : pairs.length;
          expect([view.tx.tail, view.tx.ringId, view.tx.produced - before]).toEqual([
            (before + written) % size,
            ringIdAfter(1, Math.floor((before + written) / size)),
            written,
          ]);
          expect([view.rx.tail, view.rx.ringId, view.rx.produced]).toEqual([
            view.tx.tail,
            view.tx.ringId,
            view.tx.produced,
          ]);
          // (every bad field here is a TX one: the per-descriptor path stops at the same pair)
          expect([scratch.tx.tail, scratch.tx.ringId, scratch.tx.produced]).toEqual([
            view.tx.tail,
            view.tx.ringId,
            view.tx.produced,
          ]);
          if (bad) {
            const [a, b] = [view.error, scratch.error] as NxdmaError[];
            expect([a.code, a.details.where, a.message]).toEqual([
              b.code,
              b.details.where,
              b.message,
            ]);
          } else {
            expect([view.error, scratch.error]).toEqual([null, null]);
          }
          // every slot written: the same descriptor on both paths
          for (let k = 0; k < written; k++) {
            const slot = (before + k) % size;
            expect(txAt(view.bytes, slot)).toEqual(txAt(scratch.bytes, slot));
            expect(rxAt(view.bytes, slot)).toEqual(rxAt(scratch.bytes, slot));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('BdWriter.sg: one scatter-gather packet', () => {
  it('TX first (and dmb) .. last over every source chunk, int_en on the last RX descriptor', () => {
    const { w, tx, rx, bytes } = writer(32);
    const src = { addr: [0x100000, 0x300000], len: [65536 + 10, 20], descs: 3 };
    const dst = { addr: [0x200000], len: [65536 + 30], descs: 2 };
    w.sg(src, dst, true, true);
    const t = [0, 1, 2].map((i) => txAt(bytes, i));
    expect(t.map((d) => [d.buf_ptr, d.len, d.first, d.last, d.dmb])).toEqual([
      [0x100000, 65536, true, false, true],
      [0x100000 + 65536, 10, false, false, false],
      [0x300000, 20, false, true, false],
    ]);
    const r = [0, 1].map((i) => rxAt(bytes, i));
    expect(r.map((d) => [d.buf1_ptr, d.len, d.int_en])).toEqual([
      [0x200000, 65536, false],
      [0x200000 + 65536, 30, true],
    ]);
    expect([tx.produced, rx.produced]).toEqual([3, 2]);
  });

  it('RING_FULL (nothing written) when either side has no room for its descriptors', () => {
    const { w, tx, rx, bytes } = writer(32);
    for (let i = 0; i < 30; i++) w.copy(0x100000, 0x200000, 64, false, false);
    const before = Buffer.from(bytes);
    const src = { addr: [0x100000], len: [64 * 3], descs: 3 };
    expectCode(
      () => w.sg(src, { addr: [0x200000], len: [192], descs: 1 }, false, false),
      'RING_FULL',
    );
    expect(Buffer.from(bytes).equals(before)).toBe(true);
    expect([tx.produced, rx.produced]).toEqual([30, 30]);
  });
});
