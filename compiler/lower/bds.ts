/**
 * Pieces -> descriptor streams (UDMA-FACTS.md "The 16-byte descriptor", "Memory-to-memory copy"):
 * each piece becomes one descriptor pair, a TX descriptor on the M2S ring (reading the source)
 * and an RX descriptor on the S2M ring of the same queue (writing the destination), with the same
 * length. The pieces of one descriptor program form packets of at most `maxPerPacket`
 * descriptors: FIRST on a packet's first pair, LAST on its last (both on a one-pair packet).
 *
 * This is where the lowering ends: a DescriptorStream holds pairs in typed arrays and knows
 * nothing of rings. The driver's BD writer (driver/udma/bd-writer.ts) encodes them at a queue's
 * producer position, with the ring id of the lap each lands on; producer state lives there only.
 */
import { NxdmaError } from '../../common/errors.ts';
import { BD_MAX_LEN, LEN_CTRL } from '../../csr/formats/bd.ts';
import type { PieceSink } from './expand.ts';

const FIRST = LEN_CTRL.FIRST;
const LAST = LEN_CTRL.LAST;

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
    // the pairs, then their packet bits packet by packet (no per-pair branch)
    const at0 = this.length;
    let at = at0;
    let s = src;
    let d = dst;
    for (let i = 0; i < n; i++, at++) {
      S[at] = s;
      D[at] = d;
      L[at] = len;
      F[at] = 0;
      s += srcStride;
      d += dstStride;
    }
    const m = at - at0;
    if (m > 0) L[at - 1] = lastLen;
    // FIRST where a packet opens, LAST where it closes: after maxPerPacket pieces, or at the
    // program's last piece (lastJ, counted from the first of these)
    const max = this.maxPerPacket;
    const lastJ = this.total - 1 - this.k;
    let left = this.left;
    let packets = this.packets;
    let j = 0;
    while (j < m) {
      if (left === 0) {
        F[at0 + j] = FIRST;
        left = max;
      }
      let close = j + left - 1;
      if (lastJ >= j && lastJ < close) close = lastJ;
      if (close >= m) {
        left -= m - j;
        break;
      }
      F[at0 + close] |= LAST;
      left = 0;
      packets++;
      j = close + 1;
    }
    this.length = at;
    this.k += m;
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
