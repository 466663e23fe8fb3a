/**
 * The driver's one BD writer: encodes TX / RX descriptors (csr/formats/bd.ts, the one home of the
 * 16-byte layout) at the tails of a queue's two RingProducers and advances them by the ring rules
 * (csr/formats/ring.ts: next slot, wrap to 0, next ring id). Every descriptor carries the ring id
 * of the lap it is written on.
 *
 * `UdmaQueue` writes its copies and scatter-gather packets through it, and the flow writes the
 * lowering's descriptor streams through it: producer state (tails, ring ids, produced counts) lives
 * in the producers only and is never copied elsewhere. The writer rings no doorbell (the caller
 * hands `produced - rung` descriptors over, queue-regs.ts ringDoorbells) and never overwrites a
 * descriptor the engine may not have consumed: each call checks the producers' room (as far as the
 * driver knows; read the heads first to learn more) and throws RING_FULL, writing nothing, when it
 * is short. Field values are validated by the encoders; a refused descriptor throws before it is
 * written. It allocates nothing per descriptor.
 */
import { NxdmaError } from '../../common/errors.ts';
import { BD_MAX_LEN, BD_SIZE, BdRings, LEN_CTRL, putRx, putTx } from '../../csr/formats/bd.ts';
import { HOST_LITTLE_ENDIAN } from '../../csr/formats/wire.ts';
import { RING_ID_MASK } from '../../csr/formats/ring.ts';
import type { RingProducer } from './ring.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const encTx = putTx;
const encRx = putRx;
const SIZE = BD_SIZE;
const FIRST_LAST = LEN_CTRL.FIRST | LEN_CTRL.LAST;
const DMB = LEN_CTRL.DMB;
const INT_EN = LEN_CTRL.INT_EN;
const MAX_LEN = BD_MAX_LEN;
const RID = RING_ID_MASK;
/** len_ctrl flag bits an RX descriptor keeps from a stream's flags (all but the TX-only dmb). */
const RX_KEEP = ~LEN_CTRL.DMB;

/**
 * A stream of descriptor pairs, what the lowering ends in (any object of this shape): pair i moves
 * `len[i]` bytes (1..65536) from `src[i]` to `dst[i]` as one TX descriptor on the M2S ring and one
 * RX descriptor on the S2M ring; `flags[i]` holds its len_ctrl flag bits (LEN_CTRL.FIRST, LAST,
 * INT_EN, DMB) for TX, and for RX without dmb. Pairs 0 .. length - 1 are valid.
 */
export interface PairStream {
  readonly length: number;
  readonly src: ArrayLike<number>;
  readonly dst: ArrayLike<number>;
  readonly len: ArrayLike<number>;
  readonly flags: ArrayLike<number>;
}

/** One side of a scatter-gather copy: segment addresses and lengths, and the descriptors they take. */
export interface SegmentRuns {
  readonly addr: ArrayLike<number>;
  readonly len: ArrayLike<number>;
  readonly descs: number;
}

export class BdWriter {
  /** The TX (M2S) ring's producer. */
  readonly tx: RingProducer;
  /** The RX (S2M) ring's producer. */
  readonly rx: RingProducer;
  /** Both rings as word views (the stream fast path), once known; null when either has none. */
  private rings: BdRings | null | undefined = undefined;

  constructor(tx: RingProducer, rx: RingProducer) {
    this.tx = tx;
    this.rx = rx;
  }

  /** One TX descriptor at the TX tail (which then advances): `len` bytes read from `src`. */
  putTx(len: number, flags: number, src: number): void {
    const p = this.tx;
    if (p.produced - p.consumed >= p.size) throw this.full(p, 1);
    put(p, true, len, flags, src);
  }

  /** One RX descriptor at the RX tail (which then advances): `len` bytes written to `dst`. */
  putRx(len: number, flags: number, dst: number): void {
    const p = this.rx;
    if (p.produced - p.consumed >= p.size) throw this.full(p, 1);
    put(p, false, len, flags, dst);
  }

  /**
   * One TX and one RX descriptor of `len` bytes (a copy chunk, a lowered piece): TX reads `src`
   * with `txFlags`, RX writes `dst` with `rxFlags`. Both are validated before either is written.
   */
  pair(len: number, txFlags: number, rxFlags: number, src: number, dst: number): void {
    this.room(1, 1);
    checkPair(len, txFlags, rxFlags, src, dst);
    put(this.tx, true, len, txFlags, src);
    put(this.rx, false, len, rxFlags, dst);
  }

  /**
   * A contiguous copy of `bytes` from `src` to `dst` in chunks of at most 64 KiB, each chunk one
   * packet: its TX descriptor carries first | last (and dmb on the copy's first chunk when
   * `barrier`), its RX descriptor int_en on the copy's last chunk when `interrupt`. Returns the
   * number of chunks (descriptors written on each ring). Addresses must be checked by the caller
   * (safe integers, the range inside 2^53); the encoders refuse anything else.
   */
  copy(src: number, dst: number, bytes: number, barrier: boolean, interrupt: boolean): number {
    const tx = this.tx;
    const rx = this.rx;
    const chunks = bytes <= MAX_LEN ? 1 : Math.ceil(bytes / MAX_LEN);
    if (
      tx.size - (tx.produced - tx.consumed) < chunks ||
      rx.size - (rx.produced - rx.consumed) < chunks
    )
      this.room(chunks, chunks);
    const txw = tx.words;
    const rxw = rx.words;
    if (bytes <= MAX_LEN && txw !== null && rxw !== null) {
      // One chunk through the rings' word views (the common copy).
      const tt = tx.tail;
      const rt = rx.tail;
      encTx(txw, tt * SIZE, bytes, tx.ringId, barrier ? FIRST_LAST | DMB : FIRST_LAST, src);
      encRx(rxw, rt * SIZE, bytes, rx.ringId, interrupt ? INT_EN : 0, dst);
      if (tt + 1 === tx.size) {
        tx.tail = 0;
        tx.ringId = (tx.ringId + 1) & RID;
      } else tx.tail = tt + 1;
      if (rt + 1 === rx.size) {
        rx.tail = 0;
        rx.ringId = (rx.ringId + 1) & RID;
      } else rx.tail = rt + 1;
      tx.produced++;
      rx.produced++;
      return 1;
    }
    // Producer state in locals for the loop; stored back once.
    let tt = tx.tail;
    let tr = tx.ringId;
    let rt = rx.tail;
    let rr = rx.ringId;
    const tsize = tx.size;
    const rsize = rx.size;
    // A refused chunk throws before the tails move: what was written is never handed over.
    let off = 0;
    while (off < bytes) {
      const len = bytes - off < MAX_LEN ? bytes - off : MAX_LEN;
      const tf = off === 0 && barrier ? FIRST_LAST | DMB : FIRST_LAST;
      const rf = interrupt && off + len === bytes ? INT_EN : 0;
      if (txw !== null) {
        encTx(txw, tt * SIZE, len, tr, tf, src + off);
      } else {
        encTx(tx.scratchBuffer, 0, len, tr, tf, src + off);
        tx.flushScratch(tt);
      }
      if (rxw !== null) {
        encRx(rxw, rt * SIZE, len, rr, rf, dst + off);
      } else {
        encRx(rx.scratchBuffer, 0, len, rr, rf, dst + off);
        rx.flushScratch(rt);
      }
      if (++tt === tsize) {
        tt = 0;
        tr = (tr + 1) & RID;
      }
      if (++rt === rsize) {
        rt = 0;
        rr = (rr + 1) & RID;
      }
      off += len;
    }
    tx.tail = tt;
    tx.ringId = tr;
    tx.produced += chunks;
    rx.tail = rt;
    rx.ringId = rr;
    rx.produced += chunks;
    return chunks;
  }

  /**
   * Writes pairs `from` .. `from + count - 1` of a descriptor stream (see PairStream): one TX and
   * one RX descriptor each, the RX descriptor with the pair's flags less dmb. Room for all of them
   * is checked first; a pair with a bad field throws before it is written (on rings with word
   * views, neither of its two descriptors), after the pairs before it (which stay written and
   * counted in `produced`).
   */
  stream(s: PairStream, from = 0, count = s.length - from): void {
    if (
      !Number.isSafeInteger(from) ||
      !Number.isSafeInteger(count) ||
      from < 0 ||
      count < 0 ||
      from + count > s.length
    ) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `BdWriter.stream: pairs ${String(from)} + ${String(count)} are outside the stream of ${s.length}`,
        {
          where: 'BdWriter.stream',
          expected: `0 <= from, 0 <= count, from + count <= ${s.length}`,
          actual: { from, count },
        },
      );
    }
    if (count === 0) return;
    this.room(count, count);
    const { src, dst, len, flags } = s;
    const tx = this.tx;
    const rx = this.rx;
    const rings = this.wordRings();
    if (rings !== null) {
      // both rings as word views: the pairs encoded straight into the ring words in one pass
      // (BdRings.putCopyPairs validates each pair before writing it); the producers then advance
      // by what was written, also when a pair is refused (its error thrown at the slots it takes)
      const n = rings.putCopyPairs(s, from, count, tx.tail, tx.ringId, rx.tail, rx.ringId);
      tx.advanceBy(n);
      rx.advanceBy(n);
      if (n < count) {
        const i = from + n;
        throw rings.pairError(
          tx.tail,
          tx.ringId,
          rx.tail,
          rx.ringId,
          len[i],
          flags[i],
          src[i],
          dst[i],
        );
      }
      return;
    }
    for (let i = from, end = from + count; i < end; i++) {
      const f = flags[i];
      put(tx, true, len[i], f, src[i]);
      put(rx, false, len[i], f & RX_KEEP, dst[i]);
    }
  }

  /**
   * One scatter-gather packet: the source segments, in order, as TX descriptors (first on the
   * first, with dmb when `barrier`; last on the last), the destination segments, in order, as RX
   * descriptors (int_en on the last when `interrupt`), each segment in chunks of at most 64 KiB.
   * `descs` is each side's descriptor count. Room for both sides is checked first.
   */
  sg(src: SegmentRuns, dst: SegmentRuns, barrier: boolean, interrupt: boolean): void {
    this.room(src.descs, dst.descs);
    const tx = this.tx;
    const rx = this.rx;
    let k = 0;
    for (let i = 0; i < src.addr.length; i++) {
      for (let off = 0; off < src.len[i]; off += MAX_LEN) {
        const len = Math.min(MAX_LEN, src.len[i] - off);
        let f = 0;
        if (k === 0) f |= LEN_CTRL.FIRST | (barrier ? DMB : 0);
        if (k === src.descs - 1) f |= LEN_CTRL.LAST;
        put(tx, true, len, f, src.addr[i] + off);
        k++;
      }
    }
    let m = 0;
    for (let i = 0; i < dst.addr.length; i++) {
      for (let off = 0; off < dst.len[i]; off += MAX_LEN) {
        const len = Math.min(MAX_LEN, dst.len[i] - off);
        put(rx, false, len, interrupt && m === dst.descs - 1 ? INT_EN : 0, dst.addr[i] + off);
        m++;
      }
    }
  }

  /** Both rings' word views for the pair encoder (a little-endian host), or null. */
  private wordRings(): BdRings | null {
    if (this.rings === undefined) {
      const tw = this.tx.words;
      const rw = this.rx.words;
      this.rings =
        tw !== null && rw !== null && HOST_LITTLE_ENDIAN
          ? new BdRings(tw.subarray(0, this.tx.size * 4), rw.subarray(0, this.rx.size * 4))
          : null;
    }
    return this.rings;
  }

  /** Throws RING_FULL (nothing written) unless both rings have room for ntx / nrx descriptors. */
  room(ntx: number, nrx: number): void {
    const tx = this.tx;
    const rx = this.rx;
    if (tx.room < ntx) throw this.full(tx, ntx);
    if (rx.room < nrx) throw this.full(rx, nrx);
  }

  private full(p: RingProducer, n: number): NxdmaError {
    const where = `BdWriter ${p.kind.toUpperCase()} ring at 0x${p.base.toString(16)}`;
    return new NxdmaError(
      'RING_FULL',
      `${where}: room for ${p.room} descriptors, ${n} to write (ring of ${p.size}; ${p.pending} not known consumed)`,
      { where, expected: `${n} free descriptors`, actual: p.room, needed: n },
    );
  }
}

/** One descriptor at the producer's tail through the ring's word view or its scratch buffer. */
function put(p: RingProducer, isTx: boolean, len: number, flags: number, addr: number): void {
  const w = p.words;
  if (w !== null) {
    if (isTx) encTx(w, p.tail * SIZE, len, p.ringId, flags, addr);
    else encRx(w, p.tail * SIZE, len, p.ringId, flags, addr);
  } else {
    if (isTx) encTx(p.scratchBuffer, 0, len, p.ringId, flags, addr);
    else encRx(p.scratchBuffer, 0, len, p.ringId, flags, addr);
    p.flushScratch(p.tail);
  }
  p.advance();
}

/** Scratch for checking a pair before either half is written. */
const probe = new Uint32Array(4);

/** Validates both descriptors of a pair (into a scratch word buffer) so neither is half-written. */
function checkPair(len: number, txFlags: number, rxFlags: number, src: number, dst: number): void {
  encTx(probe, 0, len, 0, txFlags, src);
  encRx(probe, 0, len, 0, rxFlags, dst);
}
