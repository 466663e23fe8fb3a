/**
 * RegisterShadow: what the driver knows a device's UDMA registers hold, for every engine and both
 * register files, as one csr ShadowIO (csr/runtime/shadow.ts) per register window. MMIO reads of a
 * real device are slow (a PCIe round trip each), so the layers that compose register words (queue
 * pause and resume, QoS programming) go through these windows: a word the shadow knows is served
 * without a device read. Only plain registers (RW, every field RW) are shadowed; heads, status,
 * doorbells and change_state always reach the device.
 *
 * One shadow per device: the known words belong to the device's register windows themselves (one
 * csr ShadowIO per window, kept beside the window for as long as the device handle lives), so
 * every RegisterShadow bound to the same window, and so every layer (UdmaEngine bring-up, queue
 * init / pause / resume / reset, applyQos, restoreRegisters, `nxdma regs write`), reads and
 * updates the same words: no layer can rewrite a field from a stale copy of its own.
 * `deviceShadow(device)` is the device's RegisterShadow, the default of every layer.
 *
 * A shadow is a promise: nothing else writes these registers behind the driver's back. Write
 * through the shadow (or `set` / `forget` what another agent may have changed).
 */
import type { Device, RegisterIO } from '../../csr/io.ts';
import { ShadowIO } from '../../csr/runtime/shadow.ts';
import { udmaModel, type UdmaFileName } from './regs.ts';

/** The one shadow of each register window (weakly held: it lives as long as the window). */
const windowShadows = new WeakMap<RegisterIO, ShadowIO>();

/** The shadow of one register window, created on first use. */
function windowShadow(inner: RegisterIO, file: UdmaFileName): ShadowIO {
  let s = windowShadows.get(inner);
  if (s === undefined) {
    s = new ShadowIO(inner, udmaModel(file));
    windowShadows.set(inner, s);
  }
  return s;
}

export class RegisterShadow {
  private readonly windows = new Map<number, ShadowIO>();

  private static key(engine: number, file: UdmaFileName): number {
    return engine * 2 + (file === 'udma_m2s' ? 0 : 1);
  }

  /**
   * The shadowed window of `engine`'s `file` over `inner` (the device's RegisterIO): the window's
   * one shadow, shared with every other RegisterShadow bound to it. Binding a different `inner`
   * for the same engine and file (another device handle) switches to that window's shadow.
   */
  bind(engine: number, file: UdmaFileName, inner: RegisterIO): ShadowIO {
    const k = RegisterShadow.key(engine, file);
    let s = this.windows.get(k);
    if (!s || s.inner !== inner) {
      s = windowShadow(inner, file);
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

const deviceShadows = new WeakMap<Device, RegisterShadow>();

/**
 * The device's register shadow: the same RegisterShadow for every caller, bound lazily to the
 * device's windows. The default shadow of UdmaEngine, applyQos and the flow.
 */
export function deviceShadow(device: Device): RegisterShadow {
  let s = deviceShadows.get(device);
  if (s === undefined) {
    s = new RegisterShadow();
    deviceShadows.set(device, s);
  }
  return s;
}
