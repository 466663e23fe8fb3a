/** Test helpers for driver/udma and driver/qos: a brought-up engine on the mock, typed errors, data. */
import {
  MockDevice,
  type MockDeviceOptions,
  type RegisterAccessEvent,
} from '../../../mocks/index.ts';
import { UdmaEngine, type UdmaEngineOptions } from '../../../driver/udma/index.ts';

export { expectCode, expectReject } from '../../support/errors.ts';
export { pattern } from '../../support/bytes.ts';

export interface Rig {
  dev: MockDevice;
  eng: UdmaEngine;
  /** Every register access of every window, in order. */
  trace: RegisterAccessEvent[];
}

/** A mock device with a brought-up engine 0 and a register trace. */
export function rig(dev: MockDeviceOptions = {}, eng: UdmaEngineOptions = {}, bringUp = true): Rig {
  const trace: RegisterAccessEvent[] = [];
  const d = new MockDevice({
    engines: [0],
    strict: true,
    registerTrace: (e) => trace.push(e),
    ...dev,
  });
  const e = new UdmaEngine(d, (dev.engines as number[] | undefined)?.[0] ?? 0, eng);
  if (bringUp) e.bringUp();
  trace.length = 0;
  return { dev: d, eng: e, trace };
}

/** Standard rings for queue q: TX at 1 MiB + q * 64 KiB, RX 32 KiB above it. */
export function rings(
  q: number,
  size = 256,
): { tx: { base: number; size: number }; rx: { base: number; size: number } } {
  const base = 0x100000 + q * 0x10000;
  return { tx: { base, size }, rx: { base: base + 0x8000, size } };
}

/** Bytes of the device memory at addr. */
export function readMem(dev: MockDevice, addr: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  dev.memory.read(addr, out);
  return out;
}

export function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

/** Writes of the trace (dropped ones excluded), as [path, value]. */
export function writes(trace: readonly RegisterAccessEvent[]): [string, number][] {
  return trace
    .filter((e) => e.op === 'write' && !e.dropped)
    .map((e) => [`${e.file.endsWith('s2m') ? 's2m' : 'm2s'}:${e.path}`, e.value]);
}
