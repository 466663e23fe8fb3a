/**
 * The flow's ring path: the lowering's descriptor streams written by the driver's BD writer at a
 * queue's producer position (the golden bytes of a pair, the packet flags on both rings, the ring
 * id of each lap).
 */
import { describe, expect, it } from 'vitest';
import { BD_SIZE, decodeRx, decodeTx, validateRx, validateTx } from '../../csr/formats/bd.ts';
import type { MemoryIO } from '../../csr/io.ts';
import { DescriptorStream } from '../../compiler/lower/bds.ts';
import { expandWalk } from '../../compiler/lower/expand.ts';
import { TEN_PIECES } from '../compiler/lower/helpers.ts';
import { BdWriter } from '../../driver/udma/bd-writer.ts';
import { RingProducer } from '../../driver/udma/ring.ts';

const TX = 0x1000;
const RX = 0x2000;

function rings(size: number) {
  const bytes = new Uint8Array(0x4000);
  const mem: MemoryIO = {
    read: (addr, dst) => dst.set(bytes.subarray(addr, addr + dst.length)),
    write: (addr, src) => bytes.set(src, addr),
    isMapped: (addr, n) => addr >= 0 && addr + n <= bytes.length,
    view: (addr, n) => bytes.subarray(addr, addr + n),
  };
  const tx = new RingProducer('tx', { base: TX, size }, mem);
  const rx = new RingProducer('rx', { base: RX, size }, mem);
  return { tx, rx, w: new BdWriter(tx, rx), bytes };
}

const hexAt = (b: Uint8Array, addr: number) =>
  [...b.subarray(addr, addr + BD_SIZE)].map((x) => x.toString(16).padStart(2, '0')).join(' ');

describe('a descriptor stream on the rings (the driver writes it at the tails)', () => {
  it('golden: 8 KiB from 0x1_0000_0000 to 0x400_0000, ring id 1, one-descriptor packet', () => {
    const { w, bytes, tx, rx } = rings(4);
    const s = new DescriptorStream(64);
    s.begin(1);
    s.piece(0x1_0000_0000, 0x400_0000, 0x2000);
    s.end();
    w.stream(s);
    // len 0x2000 | ring_id 1 << 24 | first | last = 0x0d002000; meta_ctrl of a plain copy
    expect(hexAt(bytes, TX)).toBe('00 20 00 0d 03 00 08 01 00 00 00 00 01 00 00 00');
    expect(hexAt(bytes, RX)).toBe('00 20 00 0d 00 00 00 00 00 00 00 04 00 00 00 00');
    expect([tx.tail, tx.produced, rx.tail, rx.produced]).toEqual([1, 1, 1, 1]);
  });

  it('64 KiB is encoded as length 0 and decodes back to 65536', () => {
    const { w, bytes } = rings(4);
    const s = new DescriptorStream(64);
    s.begin(1);
    s.piece(0, 0x100000, 65536);
    s.end();
    w.stream(s);
    expect(bytes[TX] | (bytes[TX + 1] << 8)).toBe(0);
    expect(decodeTx(bytes, TX).len).toBe(65536);
    expect(decodeRx(bytes, RX).len).toBe(65536);
  });

  const walk = TEN_PIECES;

  it('10 pieces with 4 per packet: packets of 4, 4, 2 on both rings, every descriptor valid', () => {
    const { w, bytes } = rings(16);
    const s = new DescriptorStream(4);
    s.begin(10);
    expandWalk(walk, s);
    s.end();
    w.stream(s);
    const flags = (at: (i: number) => { first: boolean; last: boolean }) =>
      Array.from({ length: 10 }, (_, i) => {
        const d = at(i);
        return `${d.first ? 'F' : '-'}${d.last ? 'L' : '-'}`;
      }).join(' ');
    const tx = (i: number) => decodeTx(bytes, TX + i * BD_SIZE);
    const rx = (i: number) => decodeRx(bytes, RX + i * BD_SIZE);
    expect(flags(tx)).toBe('F- -- -- -L F- -- -- -L F- -L');
    expect(flags(rx)).toBe(flags(tx));
    expect(tx(3).buf_ptr).toBe(0x10000 + 3 * 8);
    expect(rx(3).buf1_ptr).toBe(0x90000 + 3 * 4);
    for (let i = 0; i < 10; i++) {
      expect(validateTx(bytes, TX + i * BD_SIZE).ok).toBe(true);
      expect(validateRx(bytes, RX + i * BD_SIZE).ok).toBe(true);
    }
  });

  it('the ring id advances (mod 4) when the producer wraps', () => {
    const { w, bytes, tx, rx } = rings(4);
    const s = new DescriptorStream(64);
    s.begin(10);
    expandWalk(walk, s);
    s.end();
    // 10 descriptors on a ring of 4, the engine consuming each lap: lap 1 (ring id 1), lap 2, then
    // lap 3 for pieces 8, 9
    for (let from = 0; from < 10; from += 4) {
      w.stream(s, from, Math.min(4, 10 - from));
      tx.consumedAtLeast(tx.produced);
      rx.consumedAtLeast(rx.produced);
    }
    const ids = [0, 1, 2, 3].map((i) => decodeTx(bytes, TX + i * BD_SIZE).ring_id);
    expect(ids).toEqual([3, 3, 2, 2]);
    expect([tx.tail, tx.ringId, rx.tail, rx.ringId]).toEqual([2, 3, 2, 3]);
  });

  it('a pair the BD cannot hold stops the write: the pairs before it are written and produced, neither half of it', () => {
    const { w, bytes, tx, rx } = rings(8);
    const s = {
      length: 3,
      src: [0x100, 0x200, 0x300],
      dst: [0x900, 0xa00, 0xb00],
      len: [16, 16, 16],
      flags: [0, 0, 1],
    };
    // flags bit 0 is no len_ctrl flag: pair 2 is refused
    expect(() => w.stream(s)).toThrow();
    expect([tx.produced, rx.produced, tx.tail, rx.tail]).toEqual([2, 2, 2, 2]);
    expect(decodeTx(bytes, TX + BD_SIZE).buf_ptr).toBe(0x200);
    expect([...bytes.subarray(TX + 2 * BD_SIZE, TX + 3 * BD_SIZE)]).toEqual(new Array(16).fill(0));
    expect([...bytes.subarray(RX + 2 * BD_SIZE, RX + 3 * BD_SIZE)]).toEqual(new Array(16).fill(0));
  });
});
