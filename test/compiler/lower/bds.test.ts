import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEN_CTRL } from '../../../csr/formats/bd.ts';
import { DescriptorStream } from '../../../compiler/lower/bds.ts';
import { expandWalk } from '../../../compiler/lower/expand.ts';
import { TEN_PIECES } from './helpers.ts';

const F = LEN_CTRL.FIRST;
const L = LEN_CTRL.LAST;

/** The packet flags of a stream as `F-`, `--`, `-L`, `FL`. */
function flags(s: DescriptorStream): string {
  return Array.from(
    s.flags.subarray(0, s.length),
    (f) => `${f & F ? 'F' : '-'}${f & L ? 'L' : '-'}`,
  ).join(' ');
}

describe('a piece is one descriptor pair of the stream', () => {
  it('8 KiB from 0x1_0000_0000 to 0x400_0000: one pair, a one-descriptor packet (first | last)', () => {
    const s = new DescriptorStream(64);
    s.begin(1);
    s.piece(0x1_0000_0000, 0x400_0000, 0x2000);
    s.end();
    expect(s.length).toBe(1);
    expect([s.src[0], s.dst[0], s.len[0], s.flags[0]]).toEqual([
      0x1_0000_0000,
      0x400_0000,
      0x2000,
      F | L,
    ]);
    expect(s.packets).toBe(1);
  });
});

describe('packets: FIRST / LAST', () => {
  const walk = TEN_PIECES;

  it('10 pieces with 4 per packet: packets of 4, 4, 2', () => {
    const s = new DescriptorStream(4);
    s.begin(10);
    expect(expandWalk(walk, s)).toBe(10);
    s.end();
    expect(flags(s)).toBe('F- -- -- -L F- -- -- -L F- -L');
    expect(s.packets).toBe(3);
    // pieces: source every other element, destination contiguous
    expect(s.src[3]).toBe(0x10000 + 3 * 8);
    expect(s.dst[3]).toBe(0x90000 + 3 * 4);
    expect(Array.from(s.len.subarray(0, 10))).toEqual(new Array(10).fill(4));
  });

  it('descriptor programs in one stream: each starts a packet, the last piece of each closes one', () => {
    const s = new DescriptorStream(4);
    for (let p = 0; p < 2; p++) {
      s.begin(10);
      expandWalk(walk, s);
      s.end();
    }
    expect(s.length).toBe(20);
    expect(flags(s)).toBe('F- -- -- -L F- -- -- -L F- -L F- -- -- -L F- -- -- -L F- -L');
    expect(s.packets).toBe(6);
    s.clear();
    expect([s.length, s.packets]).toEqual([0, 0]);
  });

  it('DescriptorStream guard: writing fewer descriptors than announced is an error', () => {
    const s = new DescriptorStream(64);
    s.begin(11);
    expandWalk(walk, s);
    expect(() => s.end()).toThrow(/DescriptorStream wrote 10 descriptors, expected 11/);
  });

  it('a length the BD cannot hold is refused before anything is written', () => {
    const s = new DescriptorStream(64);
    s.begin(1);
    expect(() => s.piece(0, 0, 65537)).toThrow(/65537 bytes does not fit a ring descriptor/);
    expect(() => s.pieces(0, 0, 0, 3, 0, 0, 1)).toThrow(/0 bytes/);
    expect(s.length).toBe(0);
  });

  it('the bulk form writes the same pairs as one piece at a time (last piece shorter)', () => {
    const a = new DescriptorStream(8, 4);
    const b = new DescriptorStream(8, 4);
    a.begin(37);
    b.begin(37);
    a.pieces(0x1_0000_0000, 0x400_0000, 4096, 37, 8192, 4096, 100);
    for (let i = 0; i < 37; i++)
      b.piece(0x1_0000_0000 + i * 8192, 0x400_0000 + i * 4096, i === 36 ? 100 : 4096);
    a.end();
    b.end();
    for (const k of ['src', 'dst', 'len', 'flags'] as const)
      expect(Array.from(a[k].subarray(0, 37))).toEqual(Array.from(b[k].subarray(0, 37)));
    expect(a.packets).toBe(5);
    expect([a.len[36], a.flags[36] & L]).toEqual([100, L]);
  });

  it('the bulk form writes the same pairs, packets and guard as one piece at a time, on many programs; both follow the packet rule', () => {
    // a program: its announced count and calls of the bulk form or of single pieces (some closing
    // their packet, as PacketCut does), possibly fewer or more pieces than announced, or a count
    // that is no integer
    const call = fc.oneof(
      fc.record({
        n: fc.integer({ min: 0, max: 150 }),
        len: fc.integer({ min: 1, max: 65536 }),
        lastLen: fc.integer({ min: 1, max: 65536 }),
        sStride: fc.integer({ min: -4096, max: 1 << 20 }),
        dStride: fc.integer({ min: 0, max: 1 << 20 }),
      }),
      fc.record({ len: fc.integer({ min: 1, max: 65536 }), closes: fc.boolean() }),
    );
    const program = fc.record({
      extra: fc.constantFrom(0, 0, 0, -2, -1, 1, 2, 0.5, -0.5),
      calls: fc.array(call),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.array(program, { minLength: 1, maxLength: 4 }),
        (max, programs) => {
          const a = new DescriptorStream(max, 8);
          const b = new DescriptorStream(max, 8);
          // the packet rule, piece by piece: a packet opens on the piece after one closed (or a
          // program's first); it closes on its max-th piece, the program's announced last, or a
          // closing piece
          const want: string[] = [];
          let wantPackets = 0;
          let addr = 0x1_0000_0000;
          for (const p of programs) {
            const pieces = p.calls.reduce((t, c) => t + ('n' in c ? c.n : 1), 0);
            const total = pieces + p.extra;
            a.begin(total);
            b.begin(total);
            let k = 0;
            let inPacket = 0;
            const rule = (closes: boolean) => {
              const first = inPacket === 0;
              inPacket++;
              const last = inPacket === max || k === total - 1 || closes;
              if (last) [inPacket, wantPackets] = [0, wantPackets + 1];
              want.push(`${first ? 'F' : '-'}${last ? 'L' : '-'}`);
              k++;
            };
            for (const c of p.calls) {
              if ('n' in c) {
                a.pieces(addr, addr + 7, c.len, c.n, c.sStride, c.dStride, c.lastLen);
                for (let i = 0; i < c.n; i++) {
                  b.piece(
                    addr + i * c.sStride,
                    addr + 7 + i * c.dStride,
                    i === c.n - 1 ? c.lastLen : c.len,
                  );
                  rule(false);
                }
              } else {
                a.piece(addr, addr + 7, c.len, c.closes);
                b.piece(addr, addr + 7, c.len, c.closes);
                rule(c.closes);
              }
              addr += 0x10_0000;
            }
            const guard = (s: DescriptorStream) => {
              try {
                s.end();
                return 'ok';
              } catch (e) {
                return (e as Error).message;
              }
            };
            expect(guard(a)).toBe(guard(b));
            expect(guard(a) === 'ok').toBe(k === total);
          }
          expect([a.length, a.packets]).toEqual([b.length, b.packets]);
          for (const k of ['src', 'dst', 'len', 'flags'] as const)
            expect(Array.from(a[k].subarray(0, a.length))).toEqual(
              Array.from(b[k].subarray(0, b.length)),
            );
          expect([flags(a), a.packets]).toEqual([want.join(' '), wantPackets]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('moved pieces (start addresses as numbers, or read from columns) are the same pairs and packets as one piece at a time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.array(
          fc.record({
            lens: fc.array(fc.integer({ min: 1, max: 65536 }), { minLength: 1, maxLength: 80 }),
            srcBase: fc.integer({ min: 0, max: 2 ** 40 }),
            dstBase: fc.integer({ min: 0, max: 2 ** 40 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (max, programs) => {
          const streams = [0, 1, 2].map(() => new DescriptorStream(max, 8));
          const [byNumber, byColumn, byPiece] = streams;
          for (const [row, p] of programs.entries()) {
            const n = p.lens.length;
            // a laid-out walk: offsets relative to the two start addresses
            const src = Float64Array.from(p.lens, (_, i) => i * 70_000);
            const dst = Float64Array.from(p.lens, (_, i) => i * 65_536 + 3);
            const len = Uint32Array.from(p.lens);
            const srcCol = new Float64Array(programs.length).fill(-1);
            const dstCol = new Float64Array(programs.length).fill(-1);
            srcCol[row] = p.srcBase;
            dstCol[row] = p.dstBase;
            for (const s of streams) s.begin(n);
            byNumber.moved(src, dst, len, 0, n, p.srcBase, p.dstBase);
            byColumn.movedAt(src, dst, len, 0, n, srcCol, dstCol, row, row);
            for (let i = 0; i < n; i++)
              byPiece.piece(p.srcBase + src[i], p.dstBase + dst[i], len[i]);
            for (const s of streams) s.end();
          }
          for (const s of [byNumber, byColumn]) {
            expect([s.length, s.packets]).toEqual([byPiece.length, byPiece.packets]);
            for (const k of ['src', 'dst', 'len', 'flags'] as const)
              expect(Array.from(s[k].subarray(0, s.length))).toEqual(
                Array.from(byPiece[k].subarray(0, byPiece.length)),
              );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('grows past its first capacity keeping every pair', () => {
    const s = new DescriptorStream(64, 1);
    s.begin(1000);
    for (let i = 0; i < 1000; i++) s.piece(i * 16, 0x100000 + i * 16, 16);
    s.end();
    expect(s.length).toBe(1000);
    expect([s.src[999], s.dst[0], s.len[500]]).toEqual([999 * 16, 0x100000, 16]);
  });
});
