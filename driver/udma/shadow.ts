/**
 * RegisterShadow: what the driver knows a device's UDMA registers hold because it wrote them (or
 * read them) itself. MMIO reads of a real device are slow (a round trip over PCIe each), so the
 * layers that compose register words (queue pause/resume, QoS programming) take the current word
 * from the shadow when it is known and read the device only when it is not.
 *
 * A shadow is a promise: nothing else writes these registers behind the driver's back. Share one
 * shadow between the engine driver and `applyQos` for a device, and `forget` what another agent
 * may have changed.
 */
import type { UdmaFileName } from './regs.ts';

export class RegisterShadow {
  private readonly words = new Map<number, Map<number, number>>();

  private static key(engine: number, file: UdmaFileName): number {
    return engine * 2 + (file === 'udma_m2s' ? 0 : 1);
  }

  /** The word the register at `offset` of `engine`'s `file` is known to hold, or undefined. */
  get(engine: number, file: UdmaFileName, offset: number): number | undefined {
    return this.words.get(RegisterShadow.key(engine, file))?.get(offset);
  }

  /** Records that the register holds `value` (after a write or a read). */
  set(engine: number, file: UdmaFileName, offset: number, value: number): void {
    const k = RegisterShadow.key(engine, file);
    let m = this.words.get(k);
    if (!m) {
      m = new Map();
      this.words.set(k, m);
    }
    m.set(offset, value >>> 0);
  }

  /**
   * Forgets one register, every register of one file of an engine, every register of an engine,
   * or everything.
   */
  forget(engine?: number, file?: UdmaFileName, offset?: number): void {
    if (engine === undefined) {
      this.words.clear();
      return;
    }
    for (const f of file === undefined ? (['udma_m2s', 'udma_s2m'] as const) : [file]) {
      const k = RegisterShadow.key(engine, f);
      if (offset === undefined) this.words.delete(k);
      else this.words.get(k)?.delete(offset);
    }
  }

  /** Number of registers known. */
  get size(): number {
    let n = 0;
    for (const m of this.words.values()) n += m.size;
    return n;
  }
}
