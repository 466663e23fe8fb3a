/**
 * Descriptor rings (UDMA-FACTS.md "Rings"; the rules themselves in csr/formats/ring.ts):
 * validation (each ring, and a queue's pair against the engine's other rings), the producer side,
 * and the guard that keeps copies out of every ring. The driver keeps the producer state (next
 * free slot, ring id) itself, so submitting descriptors never reads the device; the engine's head
 * is read only when the driver needs room or completion.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { BD_SIZE } from '../../csr/formats/bd.ts';
import {
  INITIAL_RING_ID,
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_SIZE_MULTIPLE,
  inFlight,
  nextRingId,
  prevRingId,
  ringIdAfter,
} from '../../csr/formats/ring.ts';
import type { MemoryIO } from '../../csr/io.ts';
import type { QueueRings } from './queue-types.ts';

// The ring rules live in csr/formats/ring.ts; the driver's modules and public API take them from here.
export * from '../../csr/formats/ring.ts';

/** Where a ring lives: `size` descriptors of 16 bytes at device address `base`. */
export interface RingSpec {
  base: number;
  size: number;
}

export type RingKind = 'tx' | 'rx';

function ringError(where: string, message: string, expected: string, actual: unknown): NxdmaError {
  return new NxdmaError('RING_INVALID', `${where}: ${message}`, { where, expected, actual });
}

/**
 * Checks a ring against the hardware's rules and the device's memory, naming the offending value:
 * base a non-negative safe integer; size an integer with 32 <= size <= 2^24 - 16; base 256-byte
 * aligned; end (base + size * 16) 256-byte aligned, that is size a multiple of 16; every byte
 * mapped. Checked in that order; the first failure is reported.
 */
export function validateRing(spec: RingSpec, memory: MemoryIO | null, where: string): void {
  const { base, size } = spec ?? ({} as RingSpec);
  if (typeof base !== 'number' || !Number.isSafeInteger(base) || base < 0) {
    throw ringError(
      where,
      `ring base ${String(base)} is not a device address`,
      'a non-negative safe integer',
      base,
    );
  }
  if (typeof size !== 'number' || !Number.isInteger(size)) {
    throw ringError(
      where,
      `ring size ${String(size)} is not an integer number of descriptors`,
      'an integer',
      size,
    );
  }
  if (size < MIN_RING_SIZE) {
    throw ringError(
      where,
      `ring size ${size} is below the minimum of ${MIN_RING_SIZE} descriptors`,
      `>= ${MIN_RING_SIZE}`,
      size,
    );
  }
  if (size > MAX_RING_SIZE) {
    throw ringError(
      where,
      `ring size ${size} exceeds the maximum of ${MAX_RING_SIZE} (2^24 - 16) descriptors`,
      `<= ${MAX_RING_SIZE}`,
      size,
    );
  }
  if (base % RING_ALIGN !== 0) {
    throw ringError(
      where,
      `ring base ${hex(base)} is not 256-byte aligned (${hex(base % RING_ALIGN)} past a boundary)`,
      'a multiple of 0x100',
      hex(base),
    );
  }
  const end = base + size * BD_SIZE;
  if (size % RING_SIZE_MULTIPLE !== 0) {
    // With an aligned base, the end is aligned exactly when the size is a multiple of 16.
    throw ringError(
      where,
      `ring end ${hex(end)} (base + ${size} descriptors) is not 256-byte aligned: ` +
        `the size must be a multiple of ${RING_SIZE_MULTIPLE} descriptors`,
      `a size that is a multiple of ${RING_SIZE_MULTIPLE} (end on a 0x100 boundary)`,
      size,
    );
  }
  if (!Number.isSafeInteger(end)) {
    throw ringError(
      where,
      `ring end ${String(end)} is not a device address`,
      'base + size * 16 < 2^53',
      end,
    );
  }
  if (memory && !memory.isMapped(base, end - base)) {
    throw ringError(
      where,
      `ring ${hex(base)}..${hex(end)} (${size} descriptors) is not inside mapped device memory`,
      'a ring inside one of the device memory windows',
      { base: hex(base), end: hex(end) },
    );
  }
}

/** Two rings overlap when their byte ranges intersect. */
export function ringsOverlap(a: RingSpec, b: RingSpec): boolean {
  return a.base < b.base + b.size * BD_SIZE && b.base < a.base + a.size * BD_SIZE;
}

/** Reads `rings` once (each property once) into plain numbers; RING_INVALID when it has no shape. */
export function snapshotQueueRings(rings: unknown, where: string): QueueRings {
  const bad = (what: string, actual: unknown): NxdmaError =>
    new NxdmaError(
      'RING_INVALID',
      `${where}: ${what} must be { tx: { base, size }, rx: { base, size } }`,
      { where, expected: '{ tx: RingSpec, rx: RingSpec }', actual },
    );
  if (!rings || typeof rings !== 'object') throw bad('rings', rings);
  const r = rings as Partial<QueueRings>;
  const tx: unknown = r.tx;
  const rx: unknown = r.rx;
  // A ring that is not an object is left to validateRing, which names the ring and the field.
  const one = (spec: unknown): RingSpec => {
    if (!spec || typeof spec !== 'object') return {} as RingSpec;
    const { base, size } = spec as RingSpec;
    return { base, size };
  };
  return { tx: one(tx), rx: one(rx) };
}

/**
 * Refuses a queue's rings (`snap`, validated) that share a byte with each other or with `others`
 * (the rings of the engine's other queues, named): MEMORY_OVERLAP naming both rings.
 */
export function checkRingOverlap(
  where: string,
  snap: QueueRings,
  others: readonly [string, RingSpec][],
): void {
  const mine: [string, RingSpec][] = [
    ['TX', snap.tx],
    ['RX', snap.rx],
  ];
  const all = [...others];
  if (ringsOverlap(snap.tx, snap.rx)) all.unshift(['its own TX', snap.tx]);
  for (const [name, ring] of mine) {
    for (const [oname, o] of all) {
      if (o === ring) continue;
      if (ringsOverlap(ring, o)) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `${where}: the ${name} ring ${hex(ring.base)}+${ring.size * 16} overlaps the ${oname} ring ${hex(o.base)}+${o.size * 16}`,
          {
            where: `${where} ${name} ring`,
            expected: 'rings that share no byte',
            actual: { base: hex(ring.base), other: oname },
          },
        );
      }
    }
  }
}

/**
 * The producer side of one ring: where the next descriptor goes, with which ring id, and how many
 * descriptors were handed over in total (`produced`) and are known to be consumed (`consumed`).
 * Descriptors are written through a live view of the ring when the memory offers one (a plain
 * store per word), else one 16-byte `MemoryIO.write` per descriptor from a reused scratch buffer.
 */
export class RingProducer {
  readonly kind: RingKind;
  readonly base: number;
  readonly size: number;
  /** Next free slot. */
  tail = 0;
  /** Ring id the next descriptor is written under. */
  ringId = INITIAL_RING_ID;
  /** Descriptors written since init (monotonic). */
  produced = 0;
  /** Descriptors the engine is known to have consumed (monotonic, <= produced). */
  consumed = 0;
  /** Live word view of the whole ring, or null (then `scratch` + MemoryIO.write). */
  readonly words: Uint32Array | null;
  readonly bytes: Uint8Array | null;
  private readonly memory: MemoryIO;
  private readonly scratch = new Uint8Array(BD_SIZE);

  constructor(kind: RingKind, spec: RingSpec, memory: MemoryIO) {
    this.kind = kind;
    this.base = spec.base;
    this.size = spec.size;
    this.memory = memory;
    const len = spec.size * BD_SIZE;
    const v = memory.view ? memory.view(spec.base, len) : undefined;
    if (
      v &&
      v.length === len &&
      (v.byteOffset & 3) === 0 &&
      new Uint8Array(new Uint32Array([1]).buffer)[0] === 1
    ) {
      this.words = new Uint32Array(v.buffer, v.byteOffset, len >>> 2);
      this.bytes = v;
    } else {
      this.words = null;
      this.bytes = null;
    }
  }

  /** Free slots as far as the driver knows (the engine may have consumed more since). */
  get room(): number {
    return this.size - (this.produced - this.consumed);
  }

  /** Descriptors handed over and not known to be consumed. */
  get pending(): number {
    return this.produced - this.consumed;
  }

  /**
   * Updates `consumed` from the engine's head position. Returns false (changing nothing) when the
   * head is inconsistent with the producer state.
   */
  observeHead(head: number, headRid: number): boolean {
    const p = inFlight(this.size, this.tail, this.ringId, head, headRid);
    if (p > this.size || p > this.produced - this.consumed) return false;
    this.consumed = this.produced - p;
    return true;
  }

  /** Raises `consumed` to at least `n` (a lower bound learnt elsewhere). */
  consumedAtLeast(n: number): void {
    if (n > this.consumed && n <= this.produced) this.consumed = n;
  }

  /** Byte offset in the ring of slot `slot`. */
  slotOffset(slot: number): number {
    return slot * BD_SIZE;
  }

  /** Device address of slot `slot`. */
  slotAddress(slot: number): number {
    return this.base + slot * BD_SIZE;
  }

  /** Writes the scratch descriptor (fallback path) at slot `slot`. */
  flushScratch(slot: number): void {
    this.memory.write(this.base + slot * BD_SIZE, this.scratch);
  }

  /** The 16-byte scratch buffer the fallback path encodes into. */
  get scratchBuffer(): Uint8Array {
    return this.scratch;
  }

  /** One descriptor written: advance the tail, wrapping with a new ring id. */
  advance(): void {
    this.produced++;
    if (++this.tail === this.size) {
      this.tail = 0;
      this.ringId = nextRingId(this.ringId);
    }
  }

  /**
   * `n` descriptors written from the tail on (at most the ring's size): advance the tail by `n`,
   * wrapping with a new ring id at each end of the ring passed.
   */
  advanceBy(n: number): void {
    const to = this.tail + n;
    const laps = Math.floor(to / this.size);
    this.produced += n;
    this.tail = to - laps * this.size;
    this.ringId = ringIdAfter(this.ringId, laps);
  }

  /** Moves the tail back by `n` descriptors (undoing writes not handed over). */
  retreat(n: number): void {
    for (let i = 0; i < n; i++) {
      this.produced--;
      if (this.tail === 0) {
        this.tail = this.size - 1;
        this.ringId = prevRingId(this.ringId);
      } else {
        this.tail--;
      }
    }
  }

  /**
   * Byte range of the slots written since the last reset: the producer starts at slot 0, so the
   * first min(size, produced) slots.
   */
  writtenRange(): { base: number; end: number } {
    return { base: this.base, end: this.base + Math.min(this.size, this.produced) * BD_SIZE };
  }

  /** Back to the state after a queue reset (q_sw_ctrl.rst_q): slot 0, ring id 1, nothing in flight. */
  reset(): void {
    this.tail = 0;
    this.ringId = INITIAL_RING_ID;
    this.produced = 0;
    this.consumed = 0;
  }
}

/** One ring a RingGuard protects: its byte range and how messages name it. */
export interface GuardedRing {
  base: number;
  /** First byte past the ring. */
  end: number;
  /** "queue 3 TX ring". */
  name: string;
}

/**
 * The rings an engine has programmed, as byte ranges a copy may neither read nor write: a copy
 * into a ring would rewrite descriptors the engine fetches, a copy out of one would move
 * descriptor bytes as data. The bounding range [lo, hi) answers the common case (a buffer far from
 * every ring) with two comparisons; `hit` looks at each ring only inside it.
 */
export class RingGuard {
  /** Lowest ring base (Infinity when no ring is guarded). */
  lo = Infinity;
  /** Highest ring end (-Infinity when no ring is guarded). */
  hi = -Infinity;
  private rings: GuardedRing[] = [];

  /** Replaces the guarded rings. */
  set(rings: readonly GuardedRing[]): void {
    this.rings = rings.map((r) => ({ ...r }));
    this.lo = Infinity;
    this.hi = -Infinity;
    for (const r of this.rings) {
      if (r.base < this.lo) this.lo = r.base;
      if (r.end > this.hi) this.hi = r.end;
    }
  }

  /** The first guarded ring sharing a byte with [addr, addr + bytes), or undefined. */
  hit(addr: number, bytes: number): GuardedRing | undefined {
    if (addr + bytes <= this.lo || addr >= this.hi) return undefined;
    for (const r of this.rings) if (addr < r.end && r.base < addr + bytes) return r;
    return undefined;
  }

  /** Every guarded ring (copies). */
  list(): GuardedRing[] {
    return this.rings.map((r) => ({ ...r }));
  }
}

const ZEROS = new Uint8Array(65536);

/**
 * Zeroes [addr, addr + bytes) of device memory (through a live view when the memory offers one,
 * else in 64 KiB writes). Used to scrub descriptors a reset dropped: a zero descriptor carries
 * ring id 0, which a restarted ring expects only on its fourth lap.
 */
export function zeroMemory(memory: MemoryIO, addr: number, bytes: number): void {
  let off = 0;
  while (off < bytes) {
    const n = Math.min(bytes - off, ZEROS.length);
    const v = memory.view ? memory.view(addr + off, n) : undefined;
    if (v && v.length === n) v.fill(0);
    else memory.write(addr + off, ZEROS.subarray(0, n));
    off += n;
  }
}
