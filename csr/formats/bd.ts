/**
 * The 16-byte UDMA ring descriptor (UDMA-FACTS.md "The 16-byte descriptor"): the one encoder and
 * decoder shared by the driver that writes rings, the lowering that emits BD streams and the mock
 * that executes them. Little-endian, 16 bytes, 16-byte aligned in the ring.
 *
 * | kind                | word 0   | word 1      | words 2-3                          |
 * |---------------------|----------|-------------|------------------------------------|
 * | M2S / TX (source)   | len_ctrl | meta_ctrl   | buf_ptr (u64 source address)       |
 * | S2M / RX (dest.)    | len_ctrl | buf2_ptr_lo | buf1_ptr (u64 destination address) |
 * | completion          | word 0: first[26], last[27] (ring_id[25:24] by analogy); rest opaque |
 *
 * len_ctrl: len[15:0] (65536 is encoded as 0, M2S.cfg_len.encode_64k), ring_id[25:24],
 * first[26], last[27], int_en[28], dmb[30] (TX only).
 *
 * Three encoder forms, all validating every field before writing and none allocating:
 * encodeTx / encodeRx take a fields object; putTx / putRx take positional arguments; BdRings holds
 * a TX and an RX ring whose views it checks once, for emission loops (putCopyPair writes both
 * descriptors of one copy chunk, putCopyPairs a descriptor stream's run of pairs in one pass).
 * decode* read leniently, validate* check untrusted bytes.
 */
export {
  BD_SIZE,
  BD_MAX_LEN,
  LEN_CTRL,
  LEN_CTRL_TX_RESERVED,
  LEN_CTRL_RX_RESERVED,
  META_CTRL,
  META_CTRL_OP,
  META_CTRL_PLAIN_COPY,
  META_CTRL_RESERVED,
  type LenCtrlFields,
  type TxFields,
  type RxFields,
  type TxBd,
  type RxBd,
  type CompletionFields,
  type CompletionBd,
  type MetaCtrlFields,
  bdLen,
  bdRingId,
  bdCount,
  encodeLenCtrl,
  encodeMetaCtrl,
  decodeMetaCtrl,
} from './bd-words.ts';
export {
  writeBdWords,
  readBdWords,
  LEN_CTRL_TX_FLAGS,
  LEN_CTRL_RX_FLAGS,
  putTx,
  putRx,
  encodeTx,
  encodeRx,
  encodeCompletion,
} from './bd-encode.ts';
export { decodeTx, decodeRx, decodeCompletion, validateTx, validateRx } from './bd-decode.ts';
export { BdRings } from './bd-rings.ts';
