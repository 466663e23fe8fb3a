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

/** Plain-register flags per policy and window size (shared read-only by every window shadow). */
const plainCache = new WeakMap<RegFileModel | RegFileMap, Map<number, Uint8Array>>();

/** One flag per word of a `size`-byte window: 1 where a plain register lives (computed once). */
function plainOffsets(policy: RegFileModel | RegFileMap, size: number): Uint8Array {
  let bySize = plainCache.get(policy);
  if (bySize === undefined) {
    bySize = new Map();
    plainCache.set(policy, bySize);
  }
  let flags = bySize.get(size);
  if (flags === undefined) {
    flags = scanPlainOffsets(policy, size);
    bySize.set(size, flags);
  }
  return flags;
}

function scanPlainOffsets(policy: RegFileModel | RegFileMap, size: number): Uint8Array {
  const flags = new Uint8Array(Math.ceil(size / 4));
  if ('instances' in policy) {
    for (const i of policy.instances) if (isPlain(i.register)) flags[i.offset >>> 2] = 1;
  } else {
    for (const i of mapInstances(policy)) {
      const r: RegisterMap = i.register;
      if (isPlain({ access: r.access, fields: Object.values(r.fields) })) flags[i.offset >>> 2] = 1;
    }
  }
  return flags;
}

export class ShadowIO implements RegisterIO {
  readonly size: number;
  readonly stats: ShadowStats = { reads: 0, hits: 0, writes: 0 };
  private readonly cacheable: (offset: number) => boolean;
  private readonly values = new Map<number, number>();

  constructor(
    readonly inner: RegisterIO,
    policy: ShadowPolicy,
  ) {
    this.size = inner.size;
    if (typeof policy === 'function') {
      this.cacheable = policy;
    } else {
      const flags = plainOffsets(policy, inner.size);
      this.cacheable = (o) => (o & 3) === 0 && flags[o >>> 2] === 1;
    }
  }

  read32(offset: number): number {
    this.stats.reads++;
    const known = this.values.get(offset);
    if (known !== undefined) {
      this.stats.hits++;
      return known;
    }
    const v = this.inner.read32(offset) >>> 0;
    if (this.cacheable(offset)) this.values.set(offset, v);
    return v;
  }

  write32(offset: number, value: number): void {
    this.stats.writes++;
    this.inner.write32(offset, value);
    if (this.cacheable(offset)) this.values.set(offset, value >>> 0);
  }

  /** True when the shadow holds the word at `offset`. */
  knows(offset: number): boolean {
    return this.values.has(offset);
  }

  /** The shadowed word at `offset`, or undefined (never reads the device). */
  peek(offset: number): number | undefined {
    return this.values.get(offset);
  }

  /**
   * Declares the device word at `offset` (for example a reset value just established); ignored
   * for offsets that are not shadowed.
   */
  assume(offset: number, value: number): void {
    if (this.cacheable(offset)) this.values.set(offset, value >>> 0);
  }

  /** Drops the shadow of one word, or of every word. */
  forget(offset?: number): void {
    if (offset === undefined) this.values.clear();
    else this.values.delete(offset);
  }
}
