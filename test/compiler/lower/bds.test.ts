import { describe, expect, it } from 'vitest';
import { decodeRx, decodeTx, validateRx, validateTx } from '../../../csr/formats/bd.ts';
import { BdWriter, bufferCursor } from '../../../compiler/lower/bds.ts';
import { expandWalk, type AffineWalk } from '../../../compiler/lower/expand.ts';
import { hexBytes } from './helpers.ts';

function bytes(w: Uint32Array, slot: number): Uint8Array {
  return new Uint8Array(w.buffer, slot * 16, 16);
}

describe('BD encoding of a piece', () => {
  it('golden: 8 KiB from 0x1_0000_0000 to 0x400_0000, ring id 1, one-descriptor packet', () => {
    const tx = bufferCursor(4);
    const rx = bufferCursor(4);
    const w = new BdWriter(tx, rx, 64);
    w.begin(1);
    w.piece(0x1_0000_0000, 0x400_0000, 0x2000);
    w.end();
    // len 0x2000 | ring_id 1 << 24 | first | last = 0x0d002000; meta_ctrl of a plain copy
    expect(hexBytes(bytes(tx.words!, 0))).toBe('00 20 00 0d 03 00 08 01 00 00 00 00 01 00 00 00');
    expect(hexBytes(bytes(rx.words!, 0))).toBe('00 20 00 0d 00 00 00 00 00 00 00 04 00 00 00 00');
    expect(w.packets).toBe(1);
  });

  it('64 KiB is encoded as length 0 and decodes back to 65536', () => {
    const tx = bufferCursor(4);
    const rx = bufferCursor(4);
    const w = new BdWriter(tx, rx, 64);
    w.begin(1);
    w.piece(0, 0x100000, 65536);
    w.end();
    expect(tx.words![0] & 0xffff).toBe(0);
    expect(decodeTx(tx.words!, 0).len).toBe(65536);
    expect(decodeRx(rx.words!, 0).len).toBe(65536);
  });
});

describe('packets: FIRST / LAST', () => {
  const walk: AffineWalk = {
    type: 'affine',
    elemSize: 4,
    srcAddr: 0x10000,
    dstAddr: 0x90000,
    srcNum: [1, 10],
    srcStep: [1, 2],
    dstNum: [10],
    dstStep: [1],
  };

  it('10 pieces with 4 per packet: packets of 4, 4, 2 on both rings', () => {
    const tx = bufferCursor(16);
    const rx = bufferCursor(16);
    const w = new BdWriter(tx, rx, 4);
    w.begin(10);
    expect(expandWalk(walk, w)).toBe(10);
    w.end();
    const flags = (words: Uint32Array) =>
      Array.from({ length: 10 }, (_, i) => {
        const d = decodeTx(words, i * 16);
        return `${d.first ? 'F' : '-'}${d.last ? 'L' : '-'}`;
      }).join(' ');
    expect(flags(tx.words!)).toBe('F- -- -- -L F- -- -- -L F- -L');
    expect(flags(rx.words!)).toBe(flags(tx.words!));
    expect(w.packets).toBe(3);
    // pieces: source every other element, destination contiguous
    expect(decodeTx(tx.words!, 3 * 16).buf_ptr).toBe(0x10000 + 3 * 8);
    expect(decodeRx(rx.words!, 3 * 16).buf1_ptr).toBe(0x90000 + 3 * 4);
    for (let i = 0; i < 10; i++) {
      expect(validateTx(tx.words!, i * 16).ok).toBe(true);
      expect(validateRx(rx.words!, i * 16).ok).toBe(true);
    }
  });

  it('the ring id advances (mod 4) when the producer wraps', () => {
    const tx = bufferCursor(4, 3);
    const rx = bufferCursor(4, 3);
    const w = new BdWriter(tx, rx, 64);
    w.begin(10);
    expandWalk(walk, w);
    w.end();
    // 10 descriptors on a ring of 4: slots 0..3 of lap 3 (ring id 3), lap 0, then lap 1 for 8, 9
    const ids = [0, 1, 2, 3].map((i) => decodeTx(tx.words!, i * 16).ring_id);
    expect(ids).toEqual([1, 1, 0, 0]);
    expect(tx.tail).toBe(2);
    expect(tx.ringId).toBe(1);
    expect(rx.ringId).toBe(1);
  });

  it('DescriptorStream guard: writing fewer descriptors than announced is an error', () => {
    const w = new BdWriter(bufferCursor(16), bufferCursor(16), 64);
    w.begin(11);
    expandWalk(walk, w);
    expect(() => w.end()).toThrow(/DescriptorStream wrote 10 descriptors, expected 11/);
  });

  it('a length the BD cannot hold is refused before anything is written', () => {
    const tx = bufferCursor(4);
    const w = new BdWriter(tx, bufferCursor(4), 64);
    w.begin(1);
    expect(() => w.piece(0, 0, 65537)).toThrow(/len/);
    expect(Array.from(tx.words!)).toEqual(new Array(16).fill(0));
  });

  it('the bulk form writes the same descriptors as one piece at a time (last piece shorter)', () => {
    const a = { tx: bufferCursor(40, 2), rx: bufferCursor(40, 2) };
    const b = { tx: bufferCursor(40, 2), rx: bufferCursor(40, 2) };
    const wa = new BdWriter(a.tx, a.rx, 8);
    const wb = new BdWriter(b.tx, b.rx, 8);
    wa.begin(37);
    wb.begin(37);
    wa.pieces(0x1_0000_0000, 0x400_0000, 4096, 37, 8192, 4096, 100);
    for (let i = 0; i < 37; i++)
      wb.piece(0x1_0000_0000 + i * 8192, 0x400_0000 + i * 4096, i === 36 ? 100 : 4096);
    wa.end();
    wb.end();
    expect(Array.from(a.tx.words!)).toEqual(Array.from(b.tx.words!));
    expect(Array.from(a.rx.words!)).toEqual(Array.from(b.rx.words!));
    expect(wa.packets).toBe(5);
    expect(decodeTx(a.tx.words!, 36 * 16)).toMatchObject({ len: 100, last: true, ring_id: 2 });
  });
});
