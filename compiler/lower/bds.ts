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
import { grown } from '../../common/typed-arrays.ts';
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
  /** moved()'s two start addresses, for movedAt. */
  private readonly bases = new Float64Array(2);
  /** Pieces of the current descriptor program so far, and announced. */
  private k = 0;
  private total = 0;
  /** Index of the program's last piece (-1 when `total` is no count: no piece is the last). */
  private lastK = -1;
  /** Index of the current packet's last piece (below `k`: no packet open). */
  private closeAt = -1;

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
    this.lastK = -1;
    this.closeAt = -1;
  }

  /** Starts a descriptor program of `total` pieces (the count decides where the last packet ends). */
  begin(total: number): void {
    this.k = 0;
    this.total = total;
    this.lastK = Number.isInteger(total) ? total - 1 : -1;
    this.closeAt = -1;
    this.reserve(total);
  }

  piece(src: number, dst: number, len: number, closes = false): void {
    if (!(len >= 1 && len <= BD_MAX_LEN)) throw badLen(len);
    const k = this.k;
    let flags = 0;
    if (k > this.closeAt) {
      flags = FIRST;
      this.closeAt = this.packetEnd(k);
    }
    if (k === this.closeAt || closes) {
      flags |= LAST;
      this.closeAt = k;
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
    this.length = at;
    this.markPackets(at0, m);
  }

  /**
   * `n` pieces laid out already, moved: piece i at srcBase + src[from + i], dstBase +
   * dst[from + i], `len[from + i]` bytes (the pieces of a walk expanded at offsets relative to two
   * start addresses, table.ts PlanPieces; the same as n calls of `piece` with the moved addresses).
   * The lengths are the caller's to have checked (1..64 KiB).
   */
  moved(
    src: Float64Array,
    dst: Float64Array,
    len: Uint32Array,
    from: number,
    n: number,
    srcBase: number,
    dstBase: number,
  ): void {
    const b = this.bases;
    b[0] = srcBase;
    b[1] = dstBase;
    this.movedAt(src, dst, len, from, n, b, b, 0, 1);
  }

  /**
   * moved() with the two start addresses read where they are held: srcBases[srcAt] and
   * dstBases[dstAt] (an address passed as a number to a call that is not inlined is boxed, one heap
   * number per call: the lowering's table passes its columns and the row).
   */
  movedAt(
    src: Float64Array,
    dst: Float64Array,
    len: Uint32Array,
    from: number,
    n: number,
    srcBases: Float64Array,
    dstBases: Float64Array,
    srcAt: number,
    dstAt: number,
  ): void {
    const srcBase = srcBases[srcAt];
    const dstBase = dstBases[dstAt];
    if (n === 1 && this.k === 0 && this.lastK === 0) {
      // a program of one piece (most of a flow's): one packet, first and last; markPackets' state
      const at = this.length;
      if (at === this.src.length) this.reserve(1);
      this.src[at] = srcBase + src[from];
      this.dst[at] = dstBase + dst[from];
      this.len[at] = len[from];
      this.flags[at] = FIRST | LAST;
      this.length = at + 1;
      this.k = 1;
      this.closeAt = 0;
      this.packets++;
      return;
    }
    this.reserve(n);
    const { src: S, dst: D, len: L, flags: F, length: at0 } = this;
    for (let i = 0, at = at0, j = from; i < n; i++, at++, j++) {
      S[at] = srcBase + src[j];
      D[at] = dstBase + dst[j];
      L[at] = len[j];
      F[at] = 0;
    }
    this.length = at0 + n;
    this.markPackets(at0, n);
  }

  /**
   * The packet bits of the `m` pairs from pair `at0` on, the program's next pieces (piece k0 + j is
   * pair at0 + j): FIRST where a packet opens, LAST where it closes (no per-pair branch).
   */
  private markPackets(at0: number, m: number): void {
    const F = this.flags;
    const k0 = this.k;
    let closeAt = this.closeAt;
    let packets = this.packets;
    let j = 0;
    while (j < m) {
      if (k0 + j > closeAt) {
        F[at0 + j] = FIRST;
        closeAt = this.packetEnd(k0 + j);
      }
      j = closeAt - k0;
      if (j >= m) break;
      F[at0 + j] |= LAST;
      packets++;
      j++;
    }
    this.k = k0 + m;
    this.closeAt = closeAt;
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

  /**
   * Index of the last piece of a packet opened at piece `k`: its maxPerPacket-th, or the program's
   * last piece if that comes first.
   */
  private packetEnd(k: number): number {
    const full = k + this.maxPerPacket - 1;
    const last = this.lastK;
    return last >= k && last < full ? last : full;
  }

  /** Makes room for `n` more pairs. */
  private reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.src.length) return;
    let cap = this.src.length * 2;
    while (cap < need) cap *= 2;
    this.src = grown(this.src, cap, this.length);
    this.dst = grown(this.dst, cap, this.length);
    this.len = grown(this.len, cap, this.length);
    this.flags = grown(this.flags, cap, this.length);
  }
}

function badLen(len: number): NxdmaError {
  return new NxdmaError(
    'LOWER_ERROR',
    `a piece of ${String(len)} bytes does not fit a ring descriptor (len 1..${BD_MAX_LEN})`,
    { where: 'DescriptorStream.piece', expected: `1..${BD_MAX_LEN} bytes`, actual: len },
  );
}
