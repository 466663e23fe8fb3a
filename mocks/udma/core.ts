/**
 * The state one mock UDMA engine runs on, shared by its parts (mocks/udma/): the register files'
 * word arrays and resolved field references, the ring pointers and counters of both halves, the
 * head-packet cache, the clock and the fault log. The parts are functions and small classes over
 * this one object: the register glue and the run loop (unit.ts), the decoded configuration
 * (config.ts), the prefetch (prefetch.ts), the packet walk (walk.ts), completions
 * (completion.ts), the faults (faults.ts), the rate-limit stage (rate-limit-stage.ts) and the
 * arbitration (arbiter.ts, arbitration.ts).
 *
 * Also here: the ring arithmetic every part uses (pending descriptors, ring base, head advance).
 */
import { LEN_CTRL } from '../../csr/formats/bd.ts';
import { inFlight, nextRingId } from '../../csr/formats/ring.ts';
import type { MemoryRegion, MockMemory } from '../memory.ts';
import type { ServiceTrace } from '../service-trace.ts';
import type { HalfRefs, M2SRefs, RingRefs } from './refs.ts';
import type { UdmaFault, UdmaHalf } from './types.ts';

export const TWO_POW_32 = 4294967296;

/** Ring pointers, flags and counters of one half's queues. */
export class HalfState {
  readonly headOff: Int32Array;
  readonly headRid: Int32Array;
  readonly tailOff: Int32Array;
  readonly tailRid: Int32Array;
  readonly compOff: Int32Array;
  readonly compRid: Int32Array;
  /** Sticky error bits (MOCK_QUEUE_STATUS). */
  readonly err: Uint32Array;
  readonly stalled: Uint8Array;
  readonly faulted: Uint8Array;
  readonly bytes: Float64Array;
  readonly descs: Float64Array;
  readonly packets: Float64Array;
  readonly interrupts: Float64Array;

  constructor(n: number) {
    this.headOff = new Int32Array(n);
    this.headRid = new Int32Array(n);
    this.tailOff = new Int32Array(n);
    this.tailRid = new Int32Array(n);
    this.compOff = new Int32Array(n);
    this.compRid = new Int32Array(n);
    this.err = new Uint32Array(n);
    this.stalled = new Uint8Array(n);
    this.faulted = new Uint8Array(n);
    this.bytes = new Float64Array(n);
    this.descs = new Float64Array(n);
    this.packets = new Float64Array(n);
    this.interrupts = new Float64Array(n);
  }
}

/** Everything the engine's parts read and update. */
export class UdmaCore {
  readonly engine: number;
  readonly mem: MockMemory;
  readonly trace: ServiceTrace;
  readonly M: M2SRefs;
  readonly S: HalfRefs;
  /** The M2S and S2M register files' word arrays. */
  readonly mw: Uint32Array;
  readonly sw: Uint32Array;
  readonly tx: HalfState;
  readonly rx: HalfState;
  readonly queues: number;
  readonly bytesPerCycle: number;
  /** log2(bytesPerCycle) when that is a power of two (byteCycles is then a shift), else -1. */
  private readonly bpcShift: number;
  /** Engine cycles elapsed (see bytesPerCycle). */
  cycle = 0;
  /** Packets served since construction. */
  packetsServed = 0;
  /** The errors raised so far (the last 256), oldest first. */
  readonly faults: UdmaFault[] = [];
  /** Errors raised since construction (stalls and aborts). */
  raised = 0;
  // The state words and the value they hold in the normal state (every field = normal).
  private readonly mState: number;
  private readonly mStateMask: number;
  private readonly mStateNormal: number;
  private readonly sState: number;
  private readonly sStateMask: number;
  private readonly sStateNormal: number;
  /** The regions the last packet's source and destination buffers lay in (walk.ts). */
  srcRegion: MemoryRegion | null = null;
  dstRegion: MemoryRegion | null = null;
  /** The last descriptor gathered across a region seam (descRegion in memory-access.ts). */
  seam: MemoryRegion | null = null;

  constructor(
    engine: number,
    refs: { M: M2SRefs; S: HalfRefs },
    words: { mw: Uint32Array; sw: Uint32Array },
    memory: MockMemory,
    trace: ServiceTrace,
    bytesPerCycle: number,
  ) {
    this.engine = engine;
    this.mem = memory;
    this.trace = trace;
    this.M = refs.M;
    this.S = refs.S;
    this.mw = words.mw;
    this.sw = words.sw;
    this.queues = refs.M.queues;
    this.bytesPerCycle = bytesPerCycle;
    this.bpcShift =
      Number.isInteger(bytesPerCycle) &&
      bytesPerCycle > 0 &&
      bytesPerCycle <= 2 ** 30 &&
      (bytesPerCycle & (bytesPerCycle - 1)) === 0
        ? 31 - Math.clz32(bytesPerCycle)
        : -1;
    this.tx = new HalfState(this.queues);
    this.rx = new HalfState(refs.S.queues);
    const stateWord = (R: HalfRefs) => ({
      word: R.state >>> 2,
      mask: R.stateFields.reduce((m, f) => (m | f.mask) >>> 0, 0),
      normal: R.stateFields.reduce((m, f) => (m | f.place(R.stateValues.normal)) >>> 0, 0),
    });
    const ms = stateWord(this.M);
    const ss = stateWord(this.S);
    this.mState = ms.word;
    this.mStateMask = ms.mask;
    this.mStateNormal = ms.normal;
    this.sState = ss.word;
    this.sStateMask = ss.mask;
    this.sStateNormal = ss.normal;
  }

  /**
   * The cycles `bytes` bytes take at bytesPerCycle: ceil(bytes / bytesPerCycle), by a shift for a
   * power of two and a whole number of bytes below 2^30 (the same number).
   */
  byteCycles(bytes: number): number {
    const s = this.bpcShift;
    return s >= 0 && (bytes | 0) === bytes && bytes >= 0 && bytes < 2 ** 30
      ? (bytes + this.bytesPerCycle - 1) >>> s
      : Math.ceil(bytes / this.bytesPerCycle);
  }

  /** Both halves are in the normal state and neither stream is disabled. */
  isRunning(): boolean {
    const mw = this.mw;
    const sw = this.sw;
    return (
      (mw[this.mState] & this.mStateMask) === this.mStateNormal &&
      (sw[this.sState] & this.sStateMask) === this.sStateNormal &&
      !this.M.streamDisable.isSet(mw) &&
      !this.S.streamDisable.isSet(sw)
    );
  }

  refsOf(half: UdmaHalf): HalfRefs {
    return half === 'm2s' ? this.M : this.S;
  }

  stateOf(half: UdmaHalf): HalfState {
    return half === 'm2s' ? this.tx : this.rx;
  }

  wordsOf(half: UdmaHalf): Uint32Array {
    return half === 'm2s' ? this.mw : this.sw;
  }

  /** TX byte count of a len_ctrl word: length 0 is 64 KiB only with M2S.cfg_len.encode_64k. */
  txLen(w0: number): number {
    const l = w0 & LEN_CTRL.LEN_MASK;
    return l !== 0 ? l : this.M.encode64k.isSet(this.mw) ? 65536 : 0;
  }
}

/** Descriptors handed over by doorbells and not yet consumed on queue q of a ring of `len`. */
export function pendingOf(st: HalfState, q: number, len: number): number {
  if (len === 0) return 0;
  return inFlight(len, st.tailOff[q], st.tailRid[q], st.headOff[q], st.headRid[q]);
}

/** The device address of a ring (its base registers). */
export function ringBase(r: RingRefs, w: Uint32Array): number {
  return r.baseLo.bits(w) + r.baseHi.read(w) * TWO_POW_32;
}

/**
 * Moves entry q of a ring pointer (offsets, ring ids) past one slot of a ring of `len`: the
 * offset wraps to 0 at the end and the ring id then advances (mod 4). Returns the slot left.
 */
export function advanceSlot(off: Int32Array, rid: Int32Array, q: number, len: number): number {
  const o = off[q];
  let next = o + 1;
  if (next >= len) {
    next = 0;
    rid[q] = nextRingId(rid[q]);
  }
  off[q] = next;
  return o;
}

/**
 * Moves queue `q`'s head past one descriptor of a ring of `len`; the head pointer register
 * (tdrhp / rdrhp) and the current-descriptor word follow. Returns the slot consumed.
 */
export function advanceHead(
  st: HalfState,
  r: RingRefs,
  words: Uint32Array,
  q: number,
  len: number,
): number {
  const off = advanceSlot(st.headOff, st.headRid, q, len);
  writeHead(st, r, words, q);
  return off;
}

/** Queue q's head pointer register (tdrhp / rdrhp) and current-descriptor word from its head. */
export function writeHead(st: HalfState, r: RingRefs, words: Uint32Array, q: number): void {
  const next = st.headOff[q];
  words[r.headOffset.word] = r.headOffset.place(next) | r.headRingId.place(st.headRid[q]);
  words[r.cp >>> 2] = next;
}
