/** Test helpers for driver/udma and driver/qos: a brought-up engine on the mock, typed errors, data. */
import { expect } from 'vitest';
import { NxdmaError, type ErrorCode } from '../../../common/errors.ts';
import {
  MockDevice,
  type MockDeviceOptions,
  type RegisterAccessEvent,
} from '../../../mocks/index.ts';
import { UdmaEngine, type UdmaEngineOptions } from '../../../driver/udma/index.ts';

/** Runs `fn`, expects an NxdmaError with `code`, returns it. */
export function expectCode(fn: () => unknown, code: ErrorCode): NxdmaError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected NxdmaError ${code}`).toBeInstanceOf(NxdmaError);
  expect((caught as NxdmaError).code, (caught as Error).message).toBe(code);
  return caught as NxdmaError;
}

/** Awaits `p`, expects it to reject with an NxdmaError with `code`, returns it. */
export async function expectReject(p: Promise<unknown>, code: ErrorCode): Promise<NxdmaError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected NxdmaError ${code}`).toBeInstanceOf(NxdmaError);
  expect((caught as NxdmaError).code, (caught as Error).message).toBe(code);
  return caught as NxdmaError;
}

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

/** Deterministic pseudo-random bytes. */
export function pattern(n: number, seed = 1): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
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
