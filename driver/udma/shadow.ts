/**
 * RegisterShadow: what the driver knows a device's UDMA registers hold, for every engine and both
 * register files, as one csr ShadowIO (csr/runtime/shadow.ts) per register window. MMIO reads of a
 * real device are slow (a PCIe round trip each), so the layers that compose register words (queue
 * pause and resume, QoS programming) go through these windows: a word the shadow knows is served
 * without a device read. Only plain registers (RW, every field RW) are shadowed; heads, status,
 * doorbells and change_state always reach the device.
 *
 * A shadow is a promise: nothing else writes these registers behind the driver's back. Use one
 * shadow per device, share it between the engine drivers and `applyQos`, and `forget` what another
 * agent may have changed.
 */
import type { RegisterIO } from '../../csr/io.ts';
import { ShadowIO } from '../../csr/runtime/shadow.ts';
import { udmaModel, type UdmaFileName } from './regs.ts';

export class RegisterShadow {
  private readonly windows = new Map<number, ShadowIO>();

  private static key(engine: number, file: UdmaFileName): number {
    return engine * 2 + (file === 'udma_m2s' ? 0 : 1);
  }

  /**
   * The shadowed window of `engine`'s `file` over `inner` (the device's RegisterIO). Created on
   * first use; binding a different `inner` for the same window starts a fresh shadow for it.
   */
  bind(engine: number, file: UdmaFileName, inner: RegisterIO): ShadowIO {
    const k = RegisterShadow.key(engine, file);
    let s = this.windows.get(k);
    if (!s || s.inner !== inner) {
      s = new ShadowIO(inner, udmaModel(file));
      this.windows.set(k, s);
    }
    return s;
  }

  /** The word the register at `offset` is known to hold, or undefined (never reads the device). */
  get(engine: number, file: UdmaFileName, offset: number): number | undefined {
    return this.windows.get(RegisterShadow.key(engine, file))?.peek(offset);
  }

  /** Declares the word of a plain register of a bound window (ignored otherwise). */
  set(engine: number, file: UdmaFileName, offset: number, value: number): void {
    this.windows.get(RegisterShadow.key(engine, file))?.assume(offset, value);
  }

  /**
   * Forgets one register, every register of one file of an engine, every register of an engine,
   * or everything.
   */
  forget(engine?: number, file?: UdmaFileName, offset?: number): void {
    if (engine === undefined) {
      for (const s of this.windows.values()) s.forget();
      return;
    }
    for (const f of file === undefined ? (['udma_m2s', 'udma_s2m'] as const) : [file]) {
      this.windows.get(RegisterShadow.key(engine, f))?.forget(offset);
    }
  }
}
