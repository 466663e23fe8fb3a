/**
 * BdRings: a TX and an RX ring seen as 32-bit words for emission loops (bd.ts); the views are
 * checked once, each put checks only its fields and slot. putCopyPairs writes a run of copy pairs
 * from columns (a descriptor stream's) in one pass, wrapping each ring by the ring rules (ring.ts).
 */
import { NxdmaError } from '../../common/errors.ts';
import { type ByteView, HOST_LITTLE_ENDIAN, TWO_POW_32, badField } from './wire.ts';
import { BD_SIZE, LEN_CTRL, META_CTRL_PLAIN_COPY, RING_ID_MASK } from './bd-words.ts';
import { LEN_CTRL_TX_FLAGS, putRx as putRxAt, putTx as putTxAt } from './bd-encode.ts';
import { nextRingId } from './ring.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const LITTLE_ENDIAN_HOST = HOST_LITTLE_ENDIAN;
const TWO32 = TWO_POW_32;
const txPut = putTxAt;
const rxPut = putRxAt;
const RID = RING_ID_MASK;
const TX_FLAGS = LEN_CTRL_TX_FLAGS;
const META_COPY = META_CTRL_PLAIN_COPY;
const RID_SHIFT = LEN_CTRL.RING_ID_SHIFT;
const nextRid = nextRingId;
/** Bits of a buffer address's high word: addresses stay below 2^53. */
const HI_BITS = 21;

// ---------------------------------------------------------------------------------------------
// Ring views for emission loops.

/**
 * A TX (M2S) ring and an RX (S2M) ring seen as 32-bit words, for emission loops. The views' type,
 * alignment and size are checked once, here; each put then checks only its own fields and slot,
 * and writes four words per descriptor (bench/bd.bench.ts measures it against a raw fill). Slots
 * are descriptor indices (byte offset / 16). Little-endian hosts only (every platform Node runs
 * on); elsewhere use putTx / putRx.
 */
export class BdRings {
  /** The TX ring's words. */
  readonly tx: Uint32Array;
  /** The RX ring's words. */
  readonly rx: Uint32Array;
  /** Whole descriptors in each ring. */
  readonly txSlots: number;
  readonly rxSlots: number;

  constructor(tx: ByteView, rx: ByteView) {
    if (!LITTLE_ENDIAN_HOST) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        'BdRings needs a little-endian host; use putTx / putRx',
        {
          where: 'BdRings',
          expected: 'a little-endian host',
          actual: 'big-endian',
        },
      );
    }
    this.tx = words(tx, 'BdRings.tx');
    this.rx = words(rx, 'BdRings.rx');
    this.txSlots = this.tx.length >>> 2;
    this.rxSlots = this.rx.length >>> 2;
  }

  /**
   * Writes the TX and RX descriptors of one chunk of a memory-to-memory copy (UDMA-FACTS "Memory-
   * to-memory copy": the M2S half reads `src`, the S2M half of the same queue writes `dst`, with
   * the same chunking): TX in slot `txSlot` under `txRingId`, RX in slot `rxSlot` under
   * `rxRingId`, both `len` bytes. `flags` (first | last | int_en | dmb) apply to TX and, without
   * dmb, to RX; meta_ctrl is META_CTRL_PLAIN_COPY and buf2_ptr_lo 0. Both are validated before
   * either is written.
   */
  putCopyPair(
    txSlot: number,
    txRingId: number,
    rxSlot: number,
    rxRingId: number,
    len: number,
    flags: number,
    src: number,
    dst: number,
  ): void {
    if (
      this.placeOk(txSlot, txRingId, rxSlot, rxRingId) &&
      storePair(
        this.tx,
        txSlot << 2,
        txRingId << RID_SHIFT,
        this.rx,
        rxSlot << 2,
        rxRingId << RID_SHIFT,
        len,
        flags,
        src,
        dst,
      )
    ) {
      return;
    }
    throw this.pairError(txSlot, txRingId, rxSlot, rxRingId, len, flags, src, dst);
  }

  /**
   * Writes pairs `from` .. `from + count - 1` of `pairs` in one pass, each as putCopyPair would
   * write it: pair `from` in TX slot `txSlot` under `txRingId` and RX slot `rxSlot` under
   * `rxRingId`, each next pair in the next slot of each ring, and at a ring's end slot 0 under the
   * next ring id (ring.ts nextRingId). The start (slots, ring ids, the range of pairs) is checked
   * first and throws, writing nothing. Each pair is validated before it is written; the first one
   * with a bad field stops the run, unwritten. Returns the pairs written: `count`, or the index
   * (from `from`) of the refused pair, whose error `pairError` gives at the slots it would take.
   */
  putCopyPairs(
    pairs: CopyPairColumns,
    from: number,
    count: number,
    txSlot: number,
    txRingId: number,
    rxSlot: number,
    rxRingId: number,
  ): number {
    const { src, dst, len, flags } = pairs;
    const n = Math.min(src.length, dst.length, len.length, flags.length);
    if (!(Number.isSafeInteger(from) && Number.isSafeInteger(count) && from >= 0 && count >= 0)) {
      throw rangeError(from, count, n);
    }
    if (count === 0) return 0;
    if (from + count > n) throw rangeError(from, count, n);
    if (!this.placeOk(txSlot, txRingId, rxSlot, rxRingId)) {
      throw this.pairError(
        txSlot,
        txRingId,
        rxSlot,
        rxRingId,
        len[from],
        flags[from],
        src[from],
        dst[from],
      );
    }
    const { tx, rx, txSlots, rxSlots } = this;
    let t = txSlot;
    let tr = txRingId;
    let r = rxSlot;
    let rr = rxRingId;
    for (let i = from, end = from + count; i < end;) {
      // the pairs up to the nearer ring end: one ring id each, slots in range
      const stop = Math.min(end, i + txSlots - t, i + rxSlots - r);
      const tid = tr << RID_SHIFT;
      const rid = rr << RID_SHIFT;
      let tw = t << 2;
      let rw = r << 2;
      const start = i;
      for (; i < stop; i++, tw += 4, rw += 4) {
        if (!storePair(tx, tw, tid, rx, rw, rid, len[i], flags[i], src[i], dst[i])) {
          return i - from;
        }
      }
      t += i - start;
      r += i - start;
      if (t === txSlots) {
        t = 0;
        tr = nextRid(tr);
      }
      if (r === rxSlots) {
        r = 0;
        rr = nextRid(rr);
      }
    }
    return count;
  }

  /** True when both slots are descriptors of their rings and both ring ids are 0..3. */
  private placeOk(txSlot: number, txRingId: number, rxSlot: number, rxRingId: number): boolean {
    return (
      (txRingId & RID) === txRingId &&
      (rxRingId & RID) === rxRingId &&
      txSlot >>> 0 === txSlot &&
      txSlot < this.txSlots &&
      rxSlot >>> 0 === rxSlot &&
      rxSlot < this.rxSlots
    );
  }

  /** putTx into slot `slot` of the TX ring. */
  putTx(
    slot: number,
    len: number,
    ring_id: number,
    flags: number,
    buf_ptr: number,
    meta_ctrl = META_CTRL_PLAIN_COPY,
  ): void {
    if (slot >>> 0 !== slot || slot >= this.txSlots) throw slotError('tx', slot, this.txSlots);
    txPut(this.tx, slot * BD_SIZE, len, ring_id, flags, buf_ptr, meta_ctrl);
  }

  /** putRx into slot `slot` of the RX ring. */
  putRx(
    slot: number,
    len: number,
    ring_id: number,
    flags: number,
    buf1_ptr: number,
    buf2_ptr_lo = 0,
  ): void {
    if (slot >>> 0 !== slot || slot >= this.rxSlots) throw slotError('rx', slot, this.rxSlots);
    rxPut(this.rx, slot * BD_SIZE, len, ring_id, flags, buf1_ptr, buf2_ptr_lo);
  }

  /**
   * The error putCopyPair throws for these arguments (a slot outside its ring, else the first bad
   * field, as putTx / putRx name it).
   */
  pairError(
    txSlot: number,
    txRingId: number,
    rxSlot: number,
    rxRingId: number,
    len: number,
    flags: number,
    src: number,
    dst: number,
  ): NxdmaError {
    if (txSlot >>> 0 !== txSlot || txSlot >= this.txSlots)
      return slotError('tx', txSlot, this.txSlots);
    if (rxSlot >>> 0 !== rxSlot || rxSlot >= this.rxSlots)
      return slotError('rx', rxSlot, this.rxSlots);
    const probe = new Uint32Array(4);
    try {
      txPut(probe, 0, len, txRingId, flags, src);
      rxPut(probe, 0, len, rxRingId, flags & RX_KEEP, dst);
    } catch (e) {
      return e as NxdmaError;
    }
    return badField('copy pair', 'valid fields', { len, flags });
  }
}

/** len_ctrl bits an RX descriptor of a copy keeps from the TX flags (all but dmb). */
const RX_KEEP = ~LEN_CTRL.DMB;

/**
 * Columns of copy pairs (a descriptor stream's): pair i moves `len[i]` bytes from `src[i]` to
 * `dst[i]`, with the len_ctrl flag bits `flags[i]`.
 */
export interface CopyPairColumns {
  readonly src: ArrayLike<number>;
  readonly dst: ArrayLike<number>;
  readonly len: ArrayLike<number>;
  readonly flags: ArrayLike<number>;
}

/**
 * The one body of putCopyPair and putCopyPairs: when the length, flags and both addresses fit
 * their descriptors, stores the TX words at word `t` of `tx` under the ring id bits `tid` and the
 * RX words at word `r` of `rx` under `rid`, and returns true; else stores nothing and returns
 * false. Slots and ring ids are the caller's to check.
 */
function storePair(
  tx: Uint32Array,
  t: number,
  tid: number,
  rx: Uint32Array,
  r: number,
  rid: number,
  len: number,
  flags: number,
  src: number,
  dst: number,
): boolean {
  const slo = src >>> 0;
  const shi = (src / TWO32) >>> 0;
  const dlo = dst >>> 0;
  const dhi = (dst / TWO32) >>> 0;
  // len - 1 in 0..65535, both high words below 2^21 (one test of their bits), then an integer
  // length, no flag outside the TX ones, and each address rebuilt exactly from its two words
  if (
    (((len - 1) >>> 16) | (shi >>> HI_BITS) | (dhi >>> HI_BITS)) === 0 &&
    (len | 0) === len &&
    (flags & TX_FLAGS) === flags &&
    shi * TWO32 + slo === src &&
    dhi * TWO32 + dlo === dst
  ) {
    const w0 = (len & 0xffff) | flags;
    tx[t] = w0 | tid;
    tx[t + 1] = META_COPY;
    tx[t + 2] = slo;
    tx[t + 3] = shi;
    rx[r] = (w0 & RX_KEEP) | rid;
    rx[r + 1] = 0;
    rx[r + 2] = dlo;
    rx[r + 3] = dhi;
    return true;
  }
  return false;
}

function rangeError(from: number, count: number, n: number): NxdmaError {
  return new NxdmaError(
    'BAD_ARGUMENT',
    `putCopyPairs: pairs ${String(from)} + ${String(count)} are outside the columns of ${n}`,
    {
      where: 'BdRings.putCopyPairs',
      expected: `0 <= from, 0 <= count, from + count <= ${n}`,
      actual: { from, count },
    },
  );
}

function slotError(side: 'tx' | 'rx', slot: number, slots: number): NxdmaError {
  return new NxdmaError(
    'OUT_OF_RANGE',
    `${side} ring: slot ${String(slot)} is outside the ring (0..${slots - 1})`,
    { where: `${side}.slot`, expected: `an integer 0..${slots - 1}`, actual: slot },
  );
}

function words(v: ByteView, where: string): Uint32Array {
  if (v instanceof Uint32Array) return v;
  if (
    (v instanceof Uint8Array || v instanceof DataView) &&
    v.byteOffset % 4 === 0 &&
    v.byteLength % 4 === 0
  ) {
    return new Uint32Array(v.buffer, v.byteOffset, v.byteLength / 4);
  }
  throw new NxdmaError(
    'BAD_ARGUMENT',
    `${where}: a ring view must be a Uint32Array, or a Uint8Array / DataView 4-byte aligned in its buffer`,
    {
      where,
      expected: 'a 4-byte aligned view',
      actual:
        v && typeof v === 'object'
          ? `${v.constructor.name} at byteOffset ${String((v as { byteOffset?: number }).byteOffset)}`
          : String(v),
    },
  );
}
