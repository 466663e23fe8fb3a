/**
 * The mapped memory windows' bounds (driver/mmio/memory-io.ts, docs/device.md "Memory is
 * bytes"), fuzzed: test/driver/mmio/region.property.test.ts fuzzes register windows; this suite
 * fuzzes byte reads, writes, views and register sub-windows at device addresses over three
 * windows (two adjacent, one apart, one of them a sub-range of its mapping) in one sparse file.
 *
 * Properties: only NxdmaError escapes; an access succeeds exactly when every byte lies in the
 * windows (adjacent windows act as one range); a refused write writes nothing; the file outside
 * the windows never changes and inside it equals a byte model; a view never reaches past its
 * window; a register sub-window keeps every word inside itself.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../common/errors.ts';
import { MmioMemoryIO } from '../../../driver/mmio/memory-io.ts';
import { openRegion } from '../../../driver/mmio/region.ts';
import { removeFiles, sparseFile } from '../../driver/mmio/helpers.ts';
import { fuzz, outcome } from '../../support/fuzz.ts';

afterAll(removeFiles);

const FILE = 0x10000;
/** [device address, file offset, size] of each window. */
const WINDOWS: [number, number, number][] = [
  [0x10000, 0x0000, 0x1000],
  [0x11000, 0x4000, 0x1000],
  [0x20000, 0x9000, 0x1000], // a sub-range of a 0x2000 mapping at 0x8000
];

function fileOffsetOf(addr: number): number {
  for (const [d, f, s] of WINDOWS) if (addr >= d && addr < d + s) return f + (addr - d);
  return -1;
}

function mapped(addr: number, len: number): boolean {
  if (!Number.isSafeInteger(addr) || !Number.isSafeInteger(len) || addr < 0 || len < 0)
    return false;
  for (let a = addr; a < addr + len; a++) if (fileOffsetOf(a) < 0) return false;
  return true;
}

const addrArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x0fff0, max: 0x12010 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0x1fff0, max: 0x21010 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(-1, 0.5, 0x10000 + 0.5, 2 ** 53, Number.NaN, Infinity, 0),
  },
);
const opArb = fc.record({
  kind: fc.constantFrom('read', 'write', 'write', 'view', 'isMapped'),
  addr: addrArb,
  len: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constantFrom(0x1000, 0x1001, 0x2000, 0x2001)),
  byte: fc.nat({ max: 255 }),
});

describe('mapped memory windows (fuzz)', () => {
  it('reads, writes, views and isMapped agree with a byte model; nothing outside the windows changes', () => {
    const p = sparseFile(FILE, 'memfuzz');
    const init = Buffer.alloc(FILE);
    for (let i = 0; i < FILE; i++) init[i] = (i * 13 + 5) & 0xff;
    fs.writeFileSync(p, init);
    const model = Buffer.from(init);
    using a = openRegion(p, { offset: 0x0000, size: 0x1000 });
    using b = openRegion(p, { offset: 0x4000, size: 0x1000 });
    using c = openRegion(p, { offset: 0x8000, size: 0x2000 });
    const mem = new MmioMemoryIO([
      { deviceAddress: 0x11000, region: b },
      { deviceAddress: 0x10000, region: a },
      { deviceAddress: 0x20000, region: c, offset: 0x1000, size: 0x1000 },
    ]);
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        for (const o of ops) {
          const ok = mapped(o.addr, o.len);
          if (o.kind === 'isMapped') {
            const r = outcome(() => mem.isMapped(o.addr, o.len));
            if (r.ok) expect(r.value, `isMapped(${o.addr}, ${o.len})`).toBe(ok);
            else expect(['BAD_ARGUMENT', 'MEMORY_UNMAPPED']).toContain(r.error.code);
            continue;
          }
          if (o.kind === 'view') {
            const r = outcome(() => mem.view(o.addr, o.len));
            if (!r.ok) {
              expect(['BAD_ARGUMENT', 'MEMORY_UNMAPPED'] as ErrorCode[]).toContain(r.error.code);
              continue;
            }
            const v = r.value;
            if (v === undefined) continue; // not one window: no view (allowed)
            expect(ok, 'a view of unmapped bytes').toBe(true);
            expect(v.length).toBe(o.len);
            // the whole view lies in the window holding its first byte
            if (o.len > 0) {
              const f0 = fileOffsetOf(o.addr);
              expect(fileOffsetOf(o.addr + o.len - 1)).toBe(f0 + o.len - 1);
              for (let i = 0; i < o.len; i++) expect(v[i]).toBe(model[f0 + i]);
            }
            continue;
          }
          const data = new Uint8Array(Math.max(0, Math.min(o.len, 0x2001))).fill(o.byte);
          const r = outcome(() =>
            o.kind === 'read' ? mem.read(o.addr, data) : mem.write(o.addr, data),
          );
          expect(r.ok, `${o.kind} ${o.addr}+${data.length}`).toBe(mapped(o.addr, data.length));
          if (!r.ok) {
            expect(['MEMORY_UNMAPPED', 'BAD_ARGUMENT'] as ErrorCode[]).toContain(r.error.code);
            continue;
          }
          for (let i = 0; i < data.length; i++) {
            const f = fileOffsetOf(o.addr + i);
            if (o.kind === 'write') model[f] = o.byte;
            else expect(data[i]).toBe(model[f]);
          }
        }
        // the whole file equals the model: nothing outside the windows, nothing refused, written
        expect(fs.readFileSync(p).equals(model)).toBe(true);
      }),
      fuzz(0x3e3a0001, 150),
    );
  });

  it('register sub-windows of device memory: created inside the windows only; every word stays inside', () => {
    const p = sparseFile(FILE, 'memregs');
    using a = openRegion(p, { offset: 0x0000, size: 0x1000 });
    using b = openRegion(p, { offset: 0x4000, size: 0x1000 });
    const mem = new MmioMemoryIO([
      { deviceAddress: 0x10000, region: a },
      { deviceAddress: 0x11000, region: b },
    ]);
    fc.assert(
      fc.property(
        fc.integer({ min: 0x0ff00, max: 0x12100 }),
        fc.integer({ min: -4, max: 0x1100 }),
        fc.array(
          fc.record({ off: fc.integer({ min: -8, max: 0x1108 }), v: fc.nat({ max: 0xffffffff }) }),
          {
            maxLength: 10,
          },
        ),
        (base, size, writes) => {
          const before = fs.readFileSync(p);
          const r = outcome(() => mem.registers(base, size, 'fuzz'));
          if (!r.ok) {
            expect([
              'MEMORY_UNMAPPED',
              'BAD_ARGUMENT',
              'MISALIGNED',
              'OUT_OF_WINDOW',
              'DEVICE_OPEN',
            ] as ErrorCode[]).toContain(r.error.code);
            expect(fs.readFileSync(p).equals(before)).toBe(true);
            return;
          }
          const io = r.value;
          expect(mapped(base, io.size)).toBe(true);
          const model = Buffer.from(before);
          for (const w of writes) {
            const ok =
              Number.isInteger(w.off) && w.off >= 0 && w.off % 4 === 0 && w.off + 4 <= io.size;
            const res = outcome(() => io.write32(w.off, w.v));
            expect(res.ok).toBe(ok);
            if (res.ok) model.writeUInt32LE(w.v, fileOffsetOf(base + w.off));
          }
          expect(fs.readFileSync(p).equals(model)).toBe(true);
        },
      ),
      fuzz(0x3e3a0002, 150),
    );
  });
});
