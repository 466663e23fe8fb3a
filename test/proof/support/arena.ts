/**
 * Guarded memory for the failure-mode and scenario suites: a destination arena filled with a
 * known byte, a patterned source, and checks that every byte outside the ranges a test expects to
 * change still holds what it held, and that the source is untouched.
 */
import { expect } from 'vitest';
import type { MockDevice } from '../../../mocks/device.ts';

export { pattern } from '../../support/bytes.ts';

/** A byte range of device memory and, optionally, what it must hold. */
export interface Expected {
  addr: number;
  len: number;
  /** The bytes the range must hold; omitted: the range may hold anything. */
  data?: Uint8Array;
}

/** A live window of device memory with a known initial content. */
export class Arena {
  readonly view: Uint8Array;
  private readonly initial: Uint8Array;

  constructor(
    readonly dev: MockDevice,
    readonly base: number,
    readonly size: number,
    content: Uint8Array | number = 0xa5,
  ) {
    const v = dev.memory.view(base, size);
    if (!v) throw new Error(`arena ${base.toString(16)}+${size} is not one mapped region`);
    this.view = v;
    if (typeof content === 'number') v.fill(content);
    else v.set(content.subarray(0, size));
    this.initial = v.slice();
  }

  /** The initial bytes of [addr, addr + len). */
  initialBytes(addr: number, len: number): Uint8Array {
    return this.initial.subarray(addr - this.base, addr - this.base + len);
  }

  /** Current bytes of [addr, addr + len) (a copy). */
  bytes(addr: number, len: number): Uint8Array {
    return this.view.slice(addr - this.base, addr - this.base + len);
  }

  /** True when nothing changed since construction. */
  untouched(): boolean {
    return Buffer.from(this.view).equals(Buffer.from(this.initial));
  }

  /**
   * Every byte outside `ranges` holds its initial value; each range with `data` holds exactly it.
   * Reports the first offending address.
   */
  expectOnly(ranges: readonly Expected[]): void {
    const allowed = new Uint8Array(this.size);
    for (const r of ranges) {
      const lo = Math.max(0, r.addr - this.base);
      const hi = Math.min(this.size, r.addr + r.len - this.base);
      if (hi > lo) allowed.fill(1, lo, hi);
      if (r.data) {
        const got = this.bytes(r.addr, r.len);
        const i = got.findIndex((b, k) => b !== r.data![k]);
        expect(i, `range 0x${r.addr.toString(16)}+${r.len}: first wrong byte at +${i}`).toBe(-1);
      }
    }
    const v = this.view;
    const init = this.initial;
    let bad = -1;
    for (let i = 0; i < v.length; i++) {
      if (v[i] !== init[i] && allowed[i] === 0) {
        bad = i;
        break;
      }
    }
    expect(
      bad,
      `byte 0x${(this.base + bad).toString(16)} outside every expected range changed`,
    ).toBe(-1);
  }
}
