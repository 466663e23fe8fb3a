/**
 * ShadowIO: a RegisterIO that remembers the words written to (and read from) plain registers, so a
 * read of a register whose value it knows (for example the read half of a modify) needs no device
 * read. Only "plain" registers are shadowed: RW registers whose fields are all RW (or whole-word
 * RW registers), whose value is exactly what was last written. RO, WO, INC, W1C and RC registers,
 * and offsets that are not registers, always go to the device.
 *
 * The shadow does not know about side effects outside the written word: after anything that
 * resets registers (a queue reset through q_sw_ctrl.rst_q, an engine reset, a device reset) call
 * forget().
 */
import type { RegisterIO } from '../io.ts';
import { mapInstances, type RegFileMap, type RegisterMap } from '../schema/map.ts';
import type { RegFileModel } from '../schema/model.ts';

/** Which offsets may be shadowed: a register file (model or map) or a predicate. */
export type ShadowPolicy = RegFileModel | RegFileMap | ((offset: number) => boolean);

export interface ShadowStats {
  /** read32 calls. */
  reads: number;
  /** read32 calls served from the shadow (no device read). */
  hits: number;
  /** write32 calls. */
  writes: number;
}

function isPlain(r: { access: string; fields: Iterable<{ access: string }> }): boolean {
  if (r.access !== 'RW') return false;
  for (const f of r.fields) if (f.access !== 'RW') return false;
  return true;
}

/**
 * Where the plain registers of a window live: per word of a `size`-byte window, the slot of its
 * plain register in a shadow's word table, or -1; and how many there are. Computed once per policy
 * and window size, shared read-only by every window shadow.
 */
interface PlainSlots {
  readonly slot: Int32Array;
  readonly count: number;
  /** An empty word table (count elements, each -0: not known), copied by every window shadow. */
  readonly empty: readonly number[];
}

const plainCache = new WeakMap<RegFileModel | RegFileMap, Map<number, PlainSlots>>();

function plainSlots(policy: RegFileModel | RegFileMap, size: number): PlainSlots {
  let bySize = plainCache.get(policy);
  if (bySize === undefined) {
    bySize = new Map();
    plainCache.set(policy, bySize);
  }
  let slots = bySize.get(size);
  if (slots === undefined) {
    slots = scanPlainSlots(policy, size);
    bySize.set(size, slots);
  }
  return slots;
}

function scanPlainSlots(policy: RegFileModel | RegFileMap, size: number): PlainSlots {
  const slot = new Int32Array(Math.ceil(size / 4)).fill(-1);
  const mark = (offset: number) => {
    if (slot[offset >>> 2] < 0) slot[offset >>> 2] = 0;
  };
  if ('instances' in policy) {
    for (const i of policy.instances) if (isPlain(i.register)) mark(i.offset);
  } else {
    for (const i of mapInstances(policy)) {
      const r: RegisterMap = i.register;
      if (isPlain({ access: r.access, fields: Object.values(r.fields) })) mark(i.offset);
    }
  }
  let count = 0;
  for (let w = 0; w < slot.length; w++) if (slot[w] === 0) slot[w] = count++;
  return { slot, count, empty: new Array<number>(count).fill(-0) };
}

export class ShadowIO implements RegisterIO {
  readonly size: number;
  readonly stats: ShadowStats = { reads: 0, hits: 0, writes: 0 };
  /** A predicate policy (null for a register-file policy: its slots say what is shadowed). */
  private readonly rule: ((offset: number) => boolean) | null = null;
  /**
   * A register-file policy's plain registers, by word: their slot in `words`, or -1 (null for a
   * predicate policy).
   */
  private readonly slots: Int32Array | null = null;
  /**
   * Per slot: the known word + 1, or 0 when it is not known. A plain array of doubles (filled with
   * -0, which is 0): a window's table is small, and made with every window shadow.
   */
  private readonly words: number[] | null = null;
  /**
   * Known words of a predicate policy, and of shadowed offsets that are not a word's byte offset
   * (a fraction, or past 2^32): what the slots do not hold. Made on the first such word.
   */
  private values: Map<number, number> | null = null;

  constructor(
    readonly inner: RegisterIO,
    policy: ShadowPolicy,
  ) {
    this.size = inner.size;
    if (typeof policy === 'function') {
      this.rule = policy;
    } else {
      const p = plainSlots(policy, inner.size);
      this.slots = p.slot;
      this.words = p.empty.slice();
    }
  }

  /** True when the word at `offset` may be shadowed (the policy's rule). */
  private cacheable(offset: number): boolean {
    if (this.rule !== null) return this.rule(offset);
    const slot = this.slots!;
    return (offset & 3) === 0 && slot[offset >>> 2] >= 0;
  }

  /** Remembers `value` for an offset the word table does not hold. */
  private remember(offset: number, value: number): void {
    (this.values ??= new Map()).set(offset, value);
  }

  /** The slot of the plain register at byte offset `offset` in `words`, or -1. */
  private slotOf(offset: number): number {
    const slots = this.slots;
    if (slots === null) return -1;
    const w = offset >>> 2;
    return w * 4 === offset && w < slots.length ? slots[w] : -1;
  }

  read32(offset: number): number {
    this.stats.reads++;
    const s = this.slotOf(offset);
    if (s >= 0) {
      const words = this.words!;
      const known = words[s];
      if (known !== 0) {
        this.stats.hits++;
        return known - 1;
      }
      const v = this.inner.read32(offset) >>> 0;
      words[s] = v + 1;
      return v;
    }
    const known = this.values?.get(offset);
    if (known !== undefined) {
      this.stats.hits++;
      return known;
    }
    const v = this.inner.read32(offset) >>> 0;
    if (this.cacheable(offset)) this.remember(offset, v);
    return v;
  }

  write32(offset: number, value: number): void {
    this.stats.writes++;
    this.inner.write32(offset, value);
    const s = this.slotOf(offset);
    if (s >= 0) this.words![s] = (value >>> 0) + 1;
    else if (this.cacheable(offset)) this.remember(offset, value >>> 0);
  }

  /** True when the shadow holds the word at `offset`. */
  knows(offset: number): boolean {
    const s = this.slotOf(offset);
    return s >= 0 ? this.words![s] !== 0 : this.values !== null && this.values.has(offset);
  }

  /** The shadowed word at `offset`, or undefined (never reads the device). */
  peek(offset: number): number | undefined {
    const s = this.slotOf(offset);
    if (s < 0) return this.values?.get(offset);
    const known = this.words![s];
    return known !== 0 ? known - 1 : undefined;
  }

  /**
   * Declares the device word at `offset` (for example a reset value just established); ignored
   * for offsets that are not shadowed.
   */
  assume(offset: number, value: number): void {
    const s = this.slotOf(offset);
    if (s >= 0) this.words![s] = (value >>> 0) + 1;
    else if (this.cacheable(offset)) this.remember(offset, value >>> 0);
  }

  /** Drops the shadow of one word, or of every word. */
  forget(offset?: number): void {
    if (offset === undefined) {
      this.words?.fill(-0);
      this.values?.clear();
      return;
    }
    const s = this.slotOf(offset);
    if (s >= 0) this.words![s] = 0;
    else this.values?.delete(offset);
  }
}
