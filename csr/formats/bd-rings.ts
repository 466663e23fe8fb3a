/**
 * BdRings: a TX and an RX ring seen as 32-bit words for emission loops (bd.ts); the views are
 * checked once, each put checks only its fields and slot.
 */
import { NxdmaError } from '../../common/errors.ts';
import { type ByteView, HOST_LITTLE_ENDIAN, TWO_POW_32, badField } from './wire.ts';
import { BD_SIZE, LEN_CTRL, META_CTRL_PLAIN_COPY, RING_ID_MASK } from './bd-words.ts';
import { LEN_CTRL_TX_FLAGS, putRx as putRxAt, putTx as putTxAt } from './bd-encode.ts';

// Imported bindings copied into module constants once: the hot path then reads plain locals
// (some loaders turn every access to an imported binding into a getter call).
const LITTLE_ENDIAN_HOST = HOST_LITTLE_ENDIAN;
const TWO32 = TWO_POW_32;
const txPut = putTxAt;
const rxPut = putRxAt;
const RID = RING_ID_MASK;

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
    const slo = src >>> 0;
    const shi = (src / TWO32) >>> 0;
    const dlo = dst >>> 0;
    const dhi = (dst / TWO32) >>> 0;
    if (
      (len | 0) === len &&
      (len - 1) >>> 16 === 0 &&
      (txRingId & RID) === txRingId &&
      (rxRingId & RID) === rxRingId &&
      (flags & LEN_CTRL_TX_FLAGS) === flags &&
      shi <= 0x1fffff &&
      shi * TWO32 + slo === src &&
      dhi <= 0x1fffff &&
      dhi * TWO32 + dlo === dst &&
      txSlot >>> 0 === txSlot &&
      txSlot < this.txSlots &&
      rxSlot >>> 0 === rxSlot &&
      rxSlot < this.rxSlots
    ) {
      const w0 = (len & 0xffff) | flags;
      const tx = this.tx;
      const rx = this.rx;
      let i = txSlot << 2;
      tx[i] = w0 | (txRingId << 24);
      tx[i + 1] = META_CTRL_PLAIN_COPY;
      tx[i + 2] = slo;
      tx[i + 3] = shi;
      i = rxSlot << 2;
      rx[i] = (w0 & RX_KEEP) | (rxRingId << 24);
      rx[i + 1] = 0;
      rx[i + 2] = dlo;
      rx[i + 3] = dhi;
      return;
    }
    throw this.pairError(txSlot, txRingId, rxSlot, rxRingId, len, flags, src, dst);
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

  private pairError(
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
