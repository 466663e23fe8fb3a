import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NxdmaError } from '../../../common/errors.ts';
import {
  BD_SIZE,
  BdRings,
  LEN_CTRL_RX_FLAGS,
  LEN_CTRL_TX_FLAGS,
  putRx,
  putTx,
  LEN_CTRL,
  LEN_CTRL_RX_RESERVED,
  LEN_CTRL_TX_RESERVED,
  META_CTRL,
  META_CTRL_OP,
  META_CTRL_PLAIN_COPY,
  META_CTRL_RESERVED,
  bdCount,
  bdLen,
  bdRingId,
  decodeCompletion,
  decodeMetaCtrl,
  decodeRx,
  decodeTx,
  encodeCompletion,
  encodeLenCtrl,
  encodeMetaCtrl,
  encodeRx,
  encodeTx,
  readBdWords,
  validateRx,
  validateTx,
  writeBdWords,
} from '../../../csr/formats/bd.ts';
import { thrown } from '../../support/errors.ts';

const hexBytes = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('16-byte descriptor golden vectors (UDMA-FACTS "The 16-byte descriptor")', () => {
  it('meta_ctrl for a plain copy is 0x01080003 from its named bits', () => {
    expect(
      encodeMetaCtrl({
        is_last_block: true,
        is_first_block: true,
        copy_source_data: true,
        op: META_CTRL_OP.COPY,
      }),
    ).toBe(0x01080003);
    expect(META_CTRL_PLAIN_COPY).toBe(
      META_CTRL.IS_LAST_BLOCK |
        META_CTRL.IS_FIRST_BLOCK |
        META_CTRL.COPY_SOURCE_DATA |
        (0b010 << META_CTRL.OP_SHIFT),
    );
    expect(decodeMetaCtrl(0x01080003)).toEqual({
      is_last_block: true,
      is_first_block: true,
      copy_source_data: true,
      op: 0b010,
      write_barrier: false,
    });
    expect(decodeMetaCtrl(0x04000000).write_barrier).toBe(true);
  });

  it('len_ctrl bit positions: len[15:0], ring_id[25:24], first[26], last[27], int_en[28], dmb[30]', () => {
    expect(encodeLenCtrl({ len: 1, ring_id: 0 })).toBe(0x00000001);
    expect(encodeLenCtrl({ len: 0xffff, ring_id: 3 })).toBe(0x0300ffff);
    expect(encodeLenCtrl({ len: 16, ring_id: 0, first: true })).toBe(0x04000010);
    expect(encodeLenCtrl({ len: 16, ring_id: 0, last: true })).toBe(0x08000010);
    expect(encodeLenCtrl({ len: 16, ring_id: 0, int_en: true })).toBe(0x10000010);
    expect(encodeLenCtrl({ len: 16, ring_id: 0, dmb: true })).toBe(0x40000010);
    expect(() => encodeLenCtrl({ len: 16, ring_id: 0, dmb: true }, false)).toThrow(NxdmaError);
  });

  it('a 64 KiB single-descriptor TX packet with ring id 1: len field 0, first+last set', () => {
    const b = new Uint8Array(16);
    encodeTx(b, 0, { len: 65536, ring_id: 1, first: true, last: true, buf_ptr: 0x1_2345_6780 });
    // len_ctrl = 0x0d000000 (len 0, ring id 1, first, last); meta_ctrl 0x01080003; buf_ptr LE
    expect(hexBytes(b)).toBe('0000000d' + '03000801' + '80674523' + '01000000');
    const d = decodeTx(b);
    expect(d.len).toBe(65536);
    expect(d.ring_id).toBe(1);
    expect(d.first && d.last).toBe(true);
    expect(d.len_ctrl & LEN_CTRL.LEN_MASK).toBe(0);
  });

  it('the matching RX descriptor: len_ctrl, buf2_ptr_lo 0, buf1_ptr', () => {
    const b = new Uint8Array(16);
    encodeRx(b, 0, { len: 65536, ring_id: 1, first: true, last: true, buf1_ptr: 0xdead_beef_0000 });
    expect(hexBytes(b)).toBe('0000000d' + '00000000' + '0000efbe' + 'adde0000');
    const d = decodeRx(b);
    expect(d).toMatchObject({ len: 65536, ring_id: 1, first: true, last: true, buf2_ptr_lo: 0 });
    expect(d.buf1_ptr).toBe(0xdead_beef_0000);
  });

  it('a 1-byte TX descriptor with dmb and int_en, ring id 3', () => {
    const b = new Uint8Array(16);
    encodeTx(b, 0, {
      len: 1,
      ring_id: 3,
      first: true,
      last: false,
      int_en: true,
      dmb: true,
      buf_ptr: 0x1000,
    });
    // 0x53000001 + 0x04000000 (first) = 0x57000001
    expect(hexBytes(b)).toBe('01000057' + '03000801' + '00100000' + '00000000');
  });

  it('completion descriptor word 0 carries first[26] and last[27]', () => {
    const b = new Uint8Array(16).fill(0xaa);
    encodeCompletion(b, 0, { first: true, last: true, ring_id: 2 });
    expect(hexBytes(b)).toBe('0000000e' + '00000000'.repeat(3));
    expect(decodeCompletion(b)).toEqual({
      first: true,
      last: true,
      ring_id: 2,
      words: [0x0e000000, 0, 0, 0],
    });
  });

  it('reserved masks are exactly the unnamed bits', () => {
    const txKnown =
      LEN_CTRL.LEN_MASK |
      LEN_CTRL.RING_ID_MASK |
      LEN_CTRL.FIRST |
      LEN_CTRL.LAST |
      LEN_CTRL.INT_EN |
      LEN_CTRL.DMB;
    expect((txKnown | LEN_CTRL_TX_RESERVED) >>> 0).toBe(0xffffffff);
    expect((txKnown & LEN_CTRL_TX_RESERVED) >>> 0).toBe(0);
    expect(LEN_CTRL_RX_RESERVED >>> 0).toBe((LEN_CTRL_TX_RESERVED | LEN_CTRL.DMB) >>> 0);
    const metaKnown =
      META_CTRL.IS_LAST_BLOCK |
      META_CTRL.IS_FIRST_BLOCK |
      META_CTRL.COPY_SOURCE_DATA |
      META_CTRL.OP_MASK |
      META_CTRL.WRITE_BARRIER;
    expect((metaKnown | META_CTRL_RESERVED) >>> 0).toBe(0xffffffff);
    expect((metaKnown & META_CTRL_RESERVED) >>> 0).toBe(0);
  });
});

describe('encode into an existing buffer at an offset', () => {
  it('Uint8Array, Uint32Array and DataView targets give the same bytes', () => {
    const f = { len: 4096, ring_id: 2, first: true, last: true, buf_ptr: 0x1f_ffff_ffff_fff0 };
    const u8 = new Uint8Array(64);
    const u32 = new Uint32Array(16);
    const dv = new DataView(new ArrayBuffer(64));
    encodeTx(u8, 32, f);
    encodeTx(u32, 32, f);
    encodeTx(dv, 32, f);
    expect(hexBytes(new Uint8Array(u32.buffer))).toBe(hexBytes(u8));
    expect(hexBytes(new Uint8Array(dv.buffer))).toBe(hexBytes(u8));
    expect(u8.subarray(0, 32).every((x) => x === 0)).toBe(true);
    expect(decodeTx(u32, 32)).toEqual(decodeTx(u8, 32));
    expect(decodeTx(dv, 32).buf_ptr).toBe(0x1f_ffff_ffff_fff0);
    expect(readBdWords(u8, 32)).toEqual(Array.from(u32.subarray(8, 12)));
  });

  it('a view that starts inside a larger buffer writes at its own offset', () => {
    const backing = new Uint8Array(64);
    const ring = backing.subarray(16, 48);
    encodeRx(ring, 16, { len: 8, ring_id: 1, buf1_ptr: 0x40 });
    expect(decodeRx(backing, 32)).toMatchObject({ len: 8, ring_id: 1, buf1_ptr: 0x40 });
    const ring32 = new Uint32Array(backing.buffer, 16, 8);
    expect(decodeRx(ring32, 16).buf1_ptr).toBe(0x40);
  });

  it('a rejected descriptor writes nothing and names the field', () => {
    const b = new Uint8Array(32).fill(0x5a);
    const before = hexBytes(b);
    const cases: Array<[() => void, string]> = [
      [() => encodeTx(b, 0, { len: 0, ring_id: 0, buf_ptr: 0 }), 'tx.len_ctrl.len'],
      [() => encodeTx(b, 0, { len: 65537, ring_id: 0, buf_ptr: 0 }), 'tx.len_ctrl.len'],
      [() => encodeTx(b, 0, { len: 1.5, ring_id: 0, buf_ptr: 0 }), 'tx.len_ctrl.len'],
      [() => encodeTx(b, 0, { len: 1, ring_id: 4, buf_ptr: 0 }), 'tx.len_ctrl.ring_id'],
      [() => encodeTx(b, 0, { len: 1, ring_id: -1, buf_ptr: 0 }), 'tx.len_ctrl.ring_id'],
      [() => encodeTx(b, 0, { len: 1, ring_id: 0, buf_ptr: -1 }), 'tx.buf_ptr'],
      [() => encodeTx(b, 0, { len: 1, ring_id: 0, buf_ptr: 2 ** 53 }), 'tx.buf_ptr'],
      [
        () => encodeTx(b, 0, { len: 1, ring_id: 0, buf_ptr: 0, meta_ctrl: 2 ** 32 }),
        'tx.meta_ctrl',
      ],
      [() => encodeTx(b, 17, { len: 1, ring_id: 0, buf_ptr: 0 }), 'tx'],
      [() => encodeRx(b, 0, { len: 1, ring_id: 0, buf1_ptr: 0.5 }), 'rx.buf1_ptr'],
      [
        () => encodeRx(b, 0, { len: 1, ring_id: 0, buf1_ptr: 0, buf2_ptr_lo: -1 }),
        'rx.buf2_ptr_lo',
      ],
      [
        () => encodeRx(b, 0, { len: 1, ring_id: 0, buf1_ptr: 0, dmb: true } as never),
        'rx.len_ctrl.dmb',
      ],
      [() => encodeCompletion(b, 0, { ring_id: 9 }), 'completion.ring_id'],
    ];
    for (const [fn, where] of cases) {
      const e = thrown(fn);
      expect(e.details.where).toBe(where);
      expect(hexBytes(b)).toBe(before);
    }
    const u32 = new Uint32Array(8);
    expect(thrown(() => encodeTx(u32, 2, { len: 1, ring_id: 0, buf_ptr: 0 })).code).toBe(
      'OUT_OF_RANGE',
    );
    expect(thrown(() => writeBdWords(u32, 32, 0, 0, 0, 0)).code).toBe('OUT_OF_RANGE');
  });
});

describe('raw word helpers', () => {
  it('bdLen maps length 0 to 65536, bdRingId reads bits 25:24', () => {
    expect(bdLen(0x0d000000)).toBe(65536);
    expect(bdLen(0x0d000001)).toBe(1);
    expect(bdRingId(0x0d000000)).toBe(1);
    expect(bdRingId(0xff000000)).toBe(3);
  });
  it('bdCount chunks at 64 KiB', () => {
    expect([0, 1, 65536, 65537, 1 << 20].map(bdCount)).toEqual([0, 1, 1, 2, 16]);
    expect(() => bdCount(-1)).toThrow(NxdmaError);
  });
});

describe('validating decoders', () => {
  it('reject reserved len_ctrl bits, unknown meta_ctrl bits, dmb on RX and addresses >= 2^53', () => {
    const b = new Uint8Array(16);
    encodeTx(b, 0, { len: 8, ring_id: 1, buf_ptr: 8 });
    expect(validateTx(b).ok).toBe(true);
    const bad = (
      patch: (u: Uint32Array) => void,
      fn: typeof validateTx | typeof validateRx,
      where: string,
    ) => {
      const c = new Uint32Array(new Uint8Array(b).buffer);
      patch(c);
      const r = fn(c);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('DESCRIPTOR_INVALID');
        expect(r.error.details.where).toBe(where);
      }
    };
    bad((c) => (c[0] |= 1 << 16), validateTx, 'tx@0.len_ctrl');
    bad((c) => (c[0] |= 1 << 29), validateTx, 'tx@0.len_ctrl');
    bad((c) => (c[0] |= 1 << 31), validateTx, 'tx@0.len_ctrl');
    bad((c) => (c[1] |= 1 << 2), validateTx, 'tx@0.meta_ctrl');
    bad((c) => (c[3] = 0x200000), validateTx, 'tx@0.buf_ptr');
    bad((c) => (c[0] |= LEN_CTRL.DMB), validateRx, 'rx@0.len_ctrl');
    bad((c) => (c[3] = 0xffffffff), validateRx, 'rx@0.buf1_ptr');
    const short = validateTx(new Uint8Array(15));
    expect(short.ok || short.error.code).toBe('OUT_OF_RANGE');
  });

  it('lenient decode keeps reserved bits visible but throws on an unrepresentable address', () => {
    const u = new Uint32Array([0xa0ff0010, 0xffffffff, 0, 0]);
    const d = decodeTx(u);
    expect(d.len).toBe(16);
    expect(d.len_ctrl).toBe(0xa0ff0010);
    expect(thrown(() => decodeTx(new Uint32Array([0, 0, 0, 0x200000]))).code).toBe(
      'DESCRIPTOR_INVALID',
    );
  });

  it('property: decode of random bytes lets only NxdmaError escape; valid bytes round-trip exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.boolean(), (bytes, tx) => {
        for (const dec of tx ? [decodeTx, decodeCompletion] : [decodeRx]) {
          try {
            dec(bytes);
          } catch (e) {
            if (!(e instanceof NxdmaError)) throw e;
          }
        }
        const r = tx ? validateTx(bytes) : validateRx(bytes);
        if (r.ok) {
          const out = new Uint8Array(16);
          if (tx) encodeTx(out, 0, r.value as ReturnType<typeof decodeTx>);
          else encodeRx(out, 0, r.value as ReturnType<typeof decodeRx>);
          expect(hexBytes(out)).toBe(hexBytes(bytes));
        } else {
          expect(r.error).toBeInstanceOf(NxdmaError);
        }
      }),
      { seed: 4004, numRuns: 2000 },
    );
  });

  it('property: encode then validate returns the fields (TX and RX round trip)', () => {
    const fields = fc.record({
      len: fc.integer({ min: 1, max: 65536 }),
      ring_id: fc.integer({ min: 0, max: 3 }),
      first: fc.boolean(),
      last: fc.boolean(),
      int_en: fc.boolean(),
      dmb: fc.boolean(),
      addr: fc.maxSafeNat(),
    });
    fc.assert(
      fc.property(fields, fc.integer({ min: 0, max: 3 }), (f, slot) => {
        const ring = new Uint8Array(4 * BD_SIZE);
        encodeTx(ring, slot * BD_SIZE, { ...f, buf_ptr: f.addr });
        const t = validateTx(ring, slot * BD_SIZE);
        expect(t.ok && t.value).toMatchObject({
          len: f.len,
          ring_id: f.ring_id,
          first: f.first,
          last: f.last,
          int_en: f.int_en,
          dmb: f.dmb,
          buf_ptr: f.addr,
          meta_ctrl: META_CTRL_PLAIN_COPY,
        });
        const { dmb: _dmb, ...rxf } = f;
        encodeRx(ring, slot * BD_SIZE, { ...rxf, buf1_ptr: f.addr });
        const r = validateRx(ring, slot * BD_SIZE);
        expect(r.ok && r.value).toMatchObject({
          len: f.len,
          ring_id: f.ring_id,
          first: f.first,
          last: f.last,
          int_en: f.int_en,
          buf1_ptr: f.addr,
          buf2_ptr_lo: 0,
        });
      }),
      { seed: 4005, numRuns: 1000 },
    );
  });
});

describe('positional encoders putTx / putRx', () => {
  it('write the same bytes as encodeTx / encodeRx', () => {
    const a = new Uint8Array(32);
    const b = new Uint32Array(8);
    encodeTx(a, 0, {
      len: 65536,
      ring_id: 1,
      first: true,
      last: true,
      dmb: true,
      buf_ptr: 0x1_2345_6780,
    });
    putTx(b, 0, 65536, 1, LEN_CTRL.FIRST | LEN_CTRL.LAST | LEN_CTRL.DMB, 0x1_2345_6780);
    encodeRx(a, 16, { len: 3, ring_id: 2, int_en: true, buf1_ptr: 0x40, buf2_ptr_lo: 9 });
    putRx(b, 16, 3, 2, LEN_CTRL.INT_EN, 0x40, 9);
    expect(hexBytes(new Uint8Array(b.buffer))).toBe(hexBytes(a));
    expect(LEN_CTRL_TX_FLAGS).toBe(
      (LEN_CTRL.FIRST | LEN_CTRL.LAST | LEN_CTRL.INT_EN | LEN_CTRL.DMB) >>> 0,
    );
    expect(LEN_CTRL_RX_FLAGS).toBe((LEN_CTRL.FIRST | LEN_CTRL.LAST | LEN_CTRL.INT_EN) >>> 0);
  });

  it('refuse flags outside their side, naming the field; nothing is written', () => {
    const b = new Uint32Array(4);
    expect(thrown(() => putRx(b, 0, 1, 0, LEN_CTRL.DMB, 0)).details.where).toBe('rx.len_ctrl.dmb');
    expect(thrown(() => putTx(b, 0, 1, 0, 1 << 16, 0)).details.where).toBe('tx.len_ctrl.flags');
    expect(thrown(() => putTx(b, 0, 1, 0, 0, 0, -1)).details.where).toBe('tx.meta_ctrl');
    expect(thrown(() => putTx(b, 4.5, 1, 0, 0, 0)).code).toBe('OUT_OF_RANGE');
    expect(thrown(() => putTx(b, 4, 1, 0, 0, 0)).code).toBe('OUT_OF_RANGE');
    expect(Array.from(b)).toEqual([0, 0, 0, 0]);
  });
});

describe('BdRings (emission loops)', () => {
  it('putCopyPair writes the TX and RX descriptors encodeTx / encodeRx write (RX without dmb)', () => {
    const rings = new BdRings(new Uint32Array(64), new Uint8Array(256));
    const tx = new Uint8Array(256);
    const rx = new Uint8Array(256);
    const flags = LEN_CTRL.FIRST | LEN_CTRL.LAST | LEN_CTRL.DMB | LEN_CTRL.INT_EN;
    rings.putCopyPair(3, 1, 7, 2, 65536, flags, 0x1000, 0x20_0000_0000);
    encodeTx(tx, 3 * 16, {
      len: 65536,
      ring_id: 1,
      first: true,
      last: true,
      dmb: true,
      int_en: true,
      buf_ptr: 0x1000,
    });
    encodeRx(rx, 7 * 16, {
      len: 65536,
      ring_id: 2,
      first: true,
      last: true,
      int_en: true,
      buf1_ptr: 0x20_0000_0000,
    });
    expect(hexBytes(new Uint8Array(rings.tx.buffer))).toBe(hexBytes(tx));
    expect(hexBytes(new Uint8Array(rings.rx.buffer))).toBe(hexBytes(rx));
    expect([rings.txSlots, rings.rxSlots]).toEqual([16, 16]);
  });

  it('refuses a bad slot or field before writing either descriptor', () => {
    const rings = new BdRings(new Uint32Array(64), new Uint32Array(64));
    const cases: Array<[() => void, string]> = [
      [() => rings.putCopyPair(16, 1, 0, 1, 8, 0, 0, 0), 'tx.slot'],
      [() => rings.putCopyPair(0, 1, -1, 1, 8, 0, 0, 0), 'rx.slot'],
      [() => rings.putCopyPair(0.5, 1, 0, 1, 8, 0, 0, 0), 'tx.slot'],
      [() => rings.putCopyPair(0, 4, 0, 1, 8, 0, 0, 0), 'tx.len_ctrl.ring_id'],
      [() => rings.putCopyPair(0, 1, 0, 4, 8, 0, 0, 0), 'rx.len_ctrl.ring_id'],
      [() => rings.putCopyPair(0, 1, 0, 1, 0, 0, 0, 0), 'tx.len_ctrl.len'],
      [() => rings.putCopyPair(0, 1, 0, 1, 8, 1, 0, 0), 'tx.len_ctrl.flags'],
      [() => rings.putCopyPair(0, 1, 0, 1, 8, 0, 2 ** 53, 0), 'tx.buf_ptr'],
      [() => rings.putCopyPair(0, 1, 0, 1, 8, 0, 0, -8), 'rx.buf1_ptr'],
      [() => rings.putTx(16, 8, 1, 0, 0), 'tx.slot'],
      [() => rings.putRx(0, 8, 1, LEN_CTRL.DMB, 0), 'rx.len_ctrl.dmb'],
    ];
    for (const [fn, where] of cases) expect(thrown(fn).details.where).toBe(where);
    expect(rings.tx.every((w) => w === 0) && rings.rx.every((w) => w === 0)).toBe(true);
  });

  it('takes 4-byte aligned Uint8Array / DataView rings over the same memory, refuses misaligned ones', () => {
    const buf = new ArrayBuffer(272);
    const rings = new BdRings(new Uint8Array(buf, 16, 128), new DataView(buf, 144, 128));
    rings.putTx(1, 16, 1, 0, 0x1000);
    expect(decodeTx(new Uint8Array(buf), 32)).toMatchObject({
      len: 16,
      ring_id: 1,
      buf_ptr: 0x1000,
    });
    expect(thrown(() => new BdRings(new Uint8Array(buf, 2, 16), new Uint32Array(4))).code).toBe(
      'BAD_ARGUMENT',
    );
  });

  it('property: putCopyPair equals encodeTx + encodeRx for every valid input', () => {
    const rings = new BdRings(new Uint32Array(32), new Uint32Array(32));
    const tx = new Uint8Array(128);
    const rx = new Uint8Array(128);
    fc.assert(
      fc.property(
        fc.nat({ max: 7 }),
        fc.nat({ max: 7 }),
        fc.nat({ max: 3 }),
        fc.nat({ max: 3 }),
        fc.integer({ min: 1, max: 65536 }),
        fc.nat({ max: 15 }),
        fc.maxSafeNat(),
        fc.maxSafeNat(),
        (ts, rs, tr, rr, len, fl, src, dst) => {
          const first = (fl & 1) !== 0;
          const last = (fl & 2) !== 0;
          const int_en = (fl & 4) !== 0;
          const dmb = (fl & 8) !== 0;
          const flags =
            (first ? LEN_CTRL.FIRST : 0) |
            (last ? LEN_CTRL.LAST : 0) |
            (int_en ? LEN_CTRL.INT_EN : 0) |
            (dmb ? LEN_CTRL.DMB : 0);
          rings.putCopyPair(ts, tr, rs, rr, len, flags, src, dst);
          encodeTx(tx, ts * 16, { len, ring_id: tr, first, last, int_en, dmb, buf_ptr: src });
          encodeRx(rx, rs * 16, { len, ring_id: rr, first, last, int_en, buf1_ptr: dst });
          expect(hexBytes(new Uint8Array(rings.tx.buffer, ts * 16, 16))).toBe(
            hexBytes(tx.subarray(ts * 16, ts * 16 + 16)),
          );
          expect(hexBytes(new Uint8Array(rings.rx.buffer, rs * 16, 16))).toBe(
            hexBytes(rx.subarray(rs * 16, rs * 16 + 16)),
          );
        },
      ),
      { seed: 4013, numRuns: 1000 },
    );
  });
});
