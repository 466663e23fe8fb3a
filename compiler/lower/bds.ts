/**
 * Pieces -> 16-byte ring descriptors (UDMA-FACTS.md "The 16-byte descriptor", "Memory-to-memory
 * copy"): each piece is one TX descriptor on the M2S ring (reading the source) and one RX
 * descriptor on the S2M ring of the same queue (writing the destination), with the same length.
 * The pieces of one descriptor program form packets of at most `maxPerPacket` descriptors: FIRST on
 * a packet's first descriptor, LAST on its last (both on a one-descriptor packet), on both rings.
 * Every descriptor carries the ring id of the lap it is written on; the ring id advances (mod 4)
 * when the producer wraps (the ring rules of csr/formats/ring.ts).
 *
 * The writer encodes with `putTx` / `putRx` of csr/formats/bd.ts (the one home of the BD layout)
 * straight into the rings' memory. It allocates nothing per descriptor.
 */
import { NxdmaError } from '../../common/errors.ts';
import {
  BD_MAX_LEN,
  BD_SIZE,
  BdRings,
  LEN_CTRL,
  META_CTRL_PLAIN_COPY,
  putRx,
  putTx,
} from '../../csr/formats/bd.ts';
import { INITIAL_RING_ID, RING_ID_MASK } from '../../csr/formats/ring.ts';
import { HOST_LITTLE_ENDIAN } from '../../csr/formats/wire.ts';
import type { PieceSink } from './expand.ts';

const FIRST = LEN_CTRL.FIRST;
const LAST = LEN_CTRL.LAST;
const RID = RING_ID_MASK;

/** One ring as the writer sees it: a word view (or a fallback store) and the producer position. */
export interface RingCursor {
  /** Word view of the whole ring, or null (then `store` is called per descriptor). */
  words: Uint32Array | null;
  /** Ring size in descriptors. */
  size: number;
  /** Next free slot. */
  tail: number;
  /** Ring id of the current lap. */
  ringId: number;
  /** Fallback: writes the 16 bytes of `slot`. */
  store?: (slot: number, bytes: Uint8Array) => void;
}

/** Writes the TX / RX descriptor pairs of pieces into two rings. */
export class BdWriter implements PieceSink {
  readonly maxPerPacket: number;
  tx: RingCursor;
  rx: RingCursor;
  /** Descriptor pairs written since construction. */
  written = 0;
  /** Packets closed since construction. */
  packets = 0;
  private k = 0;
  private total = 0;
  /** Pieces left in the current packet. */
  private left = 0;
  /** Both rings as word views (the emission fast path), or null. */
  private readonly rings: BdRings | null;
  private readonly scratch = new Uint32Array(4);
  private readonly scratchBytes = new Uint8Array(this.scratch.buffer);

  constructor(tx: RingCursor, rx: RingCursor, maxPerPacket: number) {
    if (!Number.isInteger(maxPerPacket) || maxPerPacket < 1) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `maxPerPacket ${String(maxPerPacket)} is not a positive integer`,
        {
          where: 'BdWriter.maxPerPacket',
          expected: 'an integer >= 1',
          actual: maxPerPacket,
        },
      );
    }
    this.tx = tx;
    this.rx = rx;
    this.maxPerPacket = maxPerPacket;
    this.rings =
      tx.words !== null && rx.words !== null && HOST_LITTLE_ENDIAN
        ? new BdRings(tx.words.subarray(0, tx.size * 4), rx.words.subarray(0, rx.size * 4))
        : null;
  }

  /** Starts a descriptor program of `total` pieces (the count decides where the last packet ends). */
  begin(total: number): void {
    this.k = 0;
    this.total = total;
    this.left = 0;
  }

  piece(src: number, dst: number, len: number, closes = false): void {
    const k = this.k;
    let flags = 0;
    if (this.left === 0) {
      flags = FIRST;
      this.left = this.maxPerPacket;
    }
    if (--this.left === 0 || k === this.total - 1 || closes) {
      flags |= LAST;
      this.left = 0;
      this.packets++;
    }
    const tx = this.tx;
    const rx = this.rx;
    const rings = this.rings;
    if (rings !== null) {
      rings.putCopyPair(tx.tail, tx.ringId, rx.tail, rx.ringId, len, flags, src, dst);
    } else {
      this.slow(src, dst, len, flags);
    }
    if (++tx.tail === tx.size) {
      tx.tail = 0;
      tx.ringId = (tx.ringId + 1) & RID;
    }
    if (++rx.tail === rx.size) {
      rx.tail = 0;
      rx.ringId = (rx.ringId + 1) & RID;
    }
    this.k = k + 1;
    this.written++;
  }

  /**
   * `n` pieces at src + i * srcStride, dst + i * dstStride, `len` bytes each but the last
   * (`lastLen`); see PieceSink.pieces.
   */
  pieces(
    src: number,
    dst: number,
    len: number,
    n: number,
    srcStride: number,
    dstStride: number,
    lastLen: number,
  ): void {
    const rings = this.rings;
    if (rings === null) {
      for (let i = 0; i < n; i++) {
        this.piece(src + i * srcStride, dst + i * dstStride, i === n - 1 ? lastLen : len);
      }
      return;
    }
    const tx = this.tx;
    const rx = this.rx;
    const max = this.maxPerPacket;
    const lastK = this.total - 1;
    let k = this.k;
    let left = this.left;
    let packets = this.packets;
    let tt = tx.tail;
    let tr = tx.ringId;
    let rt = rx.tail;
    let rr = rx.ringId;
    const ts = tx.size;
    const rs = rx.size;
    let s = src;
    let d = dst;
    const m = n - 1;
    if (tt === rt && tr === rr && ts === rs) {
      // both rings at the same position (the flow writes them in step): one slot, one ring id
      for (let i = 0; i < n; i++) {
        let flags = 0;
        if (left === 0) {
          flags = FIRST;
          left = max;
        }
        if (--left === 0 || k === lastK) {
          flags |= LAST;
          left = 0;
          packets++;
        }
        rings.putCopyPair(tt, tr, tt, tr, i === m ? lastLen : len, flags, s, d);
        if (++tt === ts) {
          tt = 0;
          tr = (tr + 1) & RID;
        }
        k++;
        s += srcStride;
        d += dstStride;
      }
      rt = tt;
      rr = tr;
    } else {
      for (let i = 0; i < n; i++) {
        let flags = 0;
        if (left === 0) {
          flags = FIRST;
          left = max;
        }
        if (--left === 0 || k === lastK) {
          flags |= LAST;
          left = 0;
          packets++;
        }
        rings.putCopyPair(tt, tr, rt, rr, i === m ? lastLen : len, flags, s, d);
        if (++tt === ts) {
          tt = 0;
          tr = (tr + 1) & RID;
        }
        if (++rt === rs) {
          rt = 0;
          rr = (rr + 1) & RID;
        }
        k++;
        s += srcStride;
        d += dstStride;
      }
    }
    tx.tail = tt;
    tx.ringId = tr;
    rx.tail = rt;
    rx.ringId = rr;
    this.k = k;
    this.left = left;
    this.packets = packets;
    this.written += n;
  }

  /** One pair through putTx / putRx (a ring without a word view: MemoryIO stores). */
  private slow(src: number, dst: number, len: number, flags: number): void {
    const tx = this.tx;
    const rx = this.rx;
    if (tx.words !== null) {
      putTx(tx.words, tx.tail * BD_SIZE, len, tx.ringId, flags, src, META_CTRL_PLAIN_COPY);
    } else {
      putTx(this.scratch, 0, len, tx.ringId, flags, src, META_CTRL_PLAIN_COPY);
      tx.store!(tx.tail, this.scratchBytes);
    }
    if (rx.words !== null) {
      putRx(rx.words, rx.tail * BD_SIZE, len, rx.ringId, flags, dst, 0);
    } else {
      putRx(this.scratch, 0, len, rx.ringId, flags, dst, 0);
      rx.store!(rx.tail, this.scratchBytes);
    }
  }

  /**
   * Ends the descriptor program: the DescriptorStream guard (seed 004 §5.5, "DescriptorStream
   * wrote %d descriptors, expected %d").
   */
  end(): void {
    if (this.k !== this.total) {
      throw new NxdmaError(
        'LOWER_ERROR',
        `DescriptorStream wrote ${this.k} descriptors, expected ${this.total}`,
        { where: 'DescriptorStream', expected: `${this.total} descriptors`, actual: this.k },
      );
    }
  }
}

/** A ring cursor over a fresh buffer of `size` descriptors (tests, dry runs). */
export function bufferCursor(size: number, ringId = INITIAL_RING_ID): RingCursor {
  return {
    words: new Uint32Array(Math.max(1, size) * 4),
    size: Math.max(1, size),
    tail: 0,
    ringId,
  };
}

/** Pairs a new stream has room for before it first grows. */
const INITIAL_CAPACITY = 256;

/**
 * A descriptor stream: the pairs of one or more descriptor programs in typed arrays, what the
 * lowering ends in. Pair i moves `len[i]` bytes from `src[i]` to `dst[i]`; `flags[i]` holds its
 * len_ctrl packet bits (LEN_CTRL.FIRST on a packet's first pair, LAST on its last, both on a
 * one-pair packet). It knows nothing of rings: the driver's BD writer writes the pairs at a
 * queue's producer position. Reused by `clear()`; it grows by doubling and allocates nothing per
 * pair.
 */
export class DescriptorStream implements PieceSink {
  readonly maxPerPacket: number;
  /** Valid pairs. */
  length = 0;
  src: Float64Array;
  dst: Float64Array;
  len: Uint32Array;
  flags: Uint32Array;
  /** Packets closed since the last clear(). */
  packets = 0;
  /** Pieces of the current descriptor program so far, and announced. */
  private k = 0;
  private total = 0;
  /** Pieces left in the current packet. */
  private left = 0;

  constructor(maxPerPacket: number, capacity = INITIAL_CAPACITY) {
    if (!Number.isInteger(maxPerPacket) || maxPerPacket < 1) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `maxPerPacket ${String(maxPerPacket)} is not a positive integer`,
        {
          where: 'DescriptorStream.maxPerPacket',
          expected: 'an integer >= 1',
          actual: maxPerPacket,
        },
      );
    }
    this.maxPerPacket = maxPerPacket;
    const n = Math.max(1, capacity);
    this.src = new Float64Array(n);
    this.dst = new Float64Array(n);
    this.len = new Uint32Array(n);
    this.flags = new Uint32Array(n);
  }

  /** Empties the stream (its buffers are kept). */
  clear(): void {
    this.length = 0;
    this.packets = 0;
    this.k = 0;
    this.total = 0;
    this.left = 0;
  }

  /** Starts a descriptor program of `total` pieces (the count decides where the last packet ends). */
  begin(total: number): void {
    this.k = 0;
    this.total = total;
    this.left = 0;
    this.reserve(total);
  }

  piece(src: number, dst: number, len: number, closes = false): void {
    if (!(len >= 1 && len <= BD_MAX_LEN)) throw badLen(len);
    const k = this.k;
    let flags = 0;
    if (this.left === 0) {
      flags = FIRST;
      this.left = this.maxPerPacket;
    }
    if (--this.left === 0 || k === this.total - 1 || closes) {
      flags |= LAST;
      this.left = 0;
      this.packets++;
    }
    const i = this.length;
    if (i === this.src.length) this.reserve(1);
    this.src[i] = src;
    this.dst[i] = dst;
    this.len[i] = len;
    this.flags[i] = flags;
    this.length = i + 1;
    this.k = k + 1;
  }

  /**
   * `n` pieces at src + i * srcStride, dst + i * dstStride, `len` bytes each but the last
   * (`lastLen`); see PieceSink.pieces.
   */
  pieces(
    src: number,
    dst: number,
    len: number,
    n: number,
    srcStride: number,
    dstStride: number,
    lastLen: number,
  ): void {
    if (!(len >= 1 && len <= BD_MAX_LEN)) throw badLen(len);
    if (!(lastLen >= 1 && lastLen <= BD_MAX_LEN)) throw badLen(lastLen);
    this.reserve(n);
    const S = this.src;
    const D = this.dst;
    const L = this.len;
    const F = this.flags;
    const max = this.maxPerPacket;
    const lastK = this.total - 1;
    let k = this.k;
    let left = this.left;
    let packets = this.packets;
    let at = this.length;
    let s = src;
    let d = dst;
    for (let i = 0; i < n; i++, at++) {
      let flags = 0;
      if (left === 0) {
        flags = FIRST;
        left = max;
      }
      if (--left === 0 || k === lastK) {
        flags |= LAST;
        left = 0;
        packets++;
      }
      S[at] = s;
      D[at] = d;
      L[at] = len;
      F[at] = flags;
      k++;
      s += srcStride;
      d += dstStride;
    }
    if (n > 0) L[at - 1] = lastLen;
    this.length = at;
    this.k = k;
    this.left = left;
    this.packets = packets;
  }

  /**
   * Ends the descriptor program: the DescriptorStream guard (seed 004 §5.5, "DescriptorStream
   * wrote %d descriptors, expected %d").
   */
  end(): void {
    if (this.k !== this.total) {
      throw new NxdmaError(
        'LOWER_ERROR',
        `DescriptorStream wrote ${this.k} descriptors, expected ${this.total}`,
        { where: 'DescriptorStream', expected: `${this.total} descriptors`, actual: this.k },
      );
    }
  }

  /** Makes room for `n` more pairs. */
  private reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.src.length) return;
    let cap = this.src.length * 2;
    while (cap < need) cap *= 2;
    this.src = grow(this.src, new Float64Array(cap), this.length);
    this.dst = grow(this.dst, new Float64Array(cap), this.length);
    this.len = grow(this.len, new Uint32Array(cap), this.length);
    this.flags = grow(this.flags, new Uint32Array(cap), this.length);
  }
}

function grow<T extends Float64Array | Uint32Array>(old: T, next: T, n: number): T {
  next.set(old.subarray(0, n));
  return next;
}

function badLen(len: number): NxdmaError {
  return new NxdmaError(
    'LOWER_ERROR',
    `a piece of ${String(len)} bytes does not fit a ring descriptor (len 1..${BD_MAX_LEN})`,
    { where: 'DescriptorStream.piece', expected: `1..${BD_MAX_LEN} bytes`, actual: len },
  );
}
