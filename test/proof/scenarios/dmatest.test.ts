/**
 * The Linux dmatest scenario (drivers/dma/dmatest.c) through driver/udma on the mock: copies of
 * random lengths at random source and destination offsets inside buffers surrounded by guard
 * bytes, on several queues ("threads") at once.
 *
 * After every round: the source buffer and its guards are untouched; in the destination, the bytes
 * before the offset and after the copied range, and both guards, hold their old pattern; the copied
 * range equals the source range. The same device is reused across rounds, so the rings wrap many
 * times. Random draws come from fast-check with fixed seeds (NXDMA_FUZZ_RUNS raises the count).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import { MockDevice } from '../../../mocks/device.ts';
import { pattern } from '../../support/bytes.ts';
import { fuzz } from '../../support/fuzz.ts';

const GUARD = 4096;
const THREADS = 4;

/** One "thread": a queue with its own source and destination buffers, each inside two guards. */
interface Lane {
  q: number;
  srcArea: Uint8Array; // guard | buffer | guard
  dstArea: Uint8Array;
  srcAddr: number; // device address of the buffer (after the first guard)
  dstAddr: number;
}

function fill(b: Uint8Array, seed: number): void {
  b.set(pattern(b.length, seed));
}

function rig(bufSize: number) {
  const area = bufSize + 2 * GUARD;
  const dev = new MockDevice({
    engines: [0],
    autoRun: 'none',
    memory: [
      { name: 'host', base: 0, size: 0x20_0000 + THREADS * area },
      { name: 'dram', base: 2 ** 32, size: THREADS * area },
    ],
  });
  const eng = new UdmaEngine(dev, 0);
  eng.bringUp();
  const lanes: Lane[] = [];
  for (let t = 0; t < THREADS; t++) {
    const q = t * 5; // spread over the queue indices
    eng.initQueue(q, {
      tx: { base: 0x1_0000 + t * 0x1_0000, size: 64 },
      rx: { base: 0x1_0000 + t * 0x1_0000 + 0x8000, size: 64 },
    });
    const s = 0x20_0000 + t * area;
    const d = 2 ** 32 + t * area;
    lanes.push({
      q,
      srcArea: dev.memory.view(s, area)!,
      dstArea: dev.memory.view(d, area)!,
      srcAddr: s + GUARD,
      dstAddr: d + GUARD,
    });
  }
  return { dev, eng, lanes };
}

const copyArb = (bufSize: number) =>
  fc
    .record({
      len: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 1, max: bufSize }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 64 }) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(1, 15, 16, 17, 4095, 4096, 65535, 65536, 65537, bufSize),
        },
      ),
      a: fc.double({ min: 0, max: 1, noNaN: true }),
      b: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ len, a, b }) => {
      const l = Math.min(len, bufSize);
      return {
        len: l,
        srcOff: Math.floor(a * (bufSize - l)),
        dstOff: Math.floor(b * (bufSize - l)),
      };
    });

async function roundProperty(bufSize: number, seed: number, runs: number) {
  const { dev, eng, lanes } = rig(bufSize);
  let round = 0;
  let bytes = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(copyArb(bufSize), { minLength: THREADS, maxLength: THREADS }),
      async (copies) => {
        round++;
        // fresh patterns: the source (buffer and guards) and the destination (buffer and guards)
        const before = lanes.map((l, t) => {
          fill(l.srcArea, round * 7919 + t * 2 + 1);
          fill(l.dstArea, round * 7919 + t * 2 + 2);
          return { src: l.srcArea.slice(), dst: l.dstArea.slice() };
        });
        // every thread submits, then all run together (the arbiter interleaves the queues)
        lanes.forEach((l, t) => {
          const c = copies[t];
          eng.copy(l.srcAddr + c.srcOff, l.dstAddr + c.dstOff, c.len, { queue: l.q });
        });
        await eng.waitIdle({ timeoutMs: 5000 });
        lanes.forEach((l, t) => {
          const c = copies[t];
          bytes += c.len;
          const s = before[t].src;
          const d = before[t].dst;
          // the source and its guards are untouched
          expect(Buffer.from(l.srcArea).equals(Buffer.from(s)), `thread ${t}: source changed`).toBe(
            true,
          );
          const lo = GUARD + c.dstOff;
          const hi = lo + c.len;
          const got = l.dstArea;
          // guard and buffer head before the range, range == source, buffer tail and guard after
          expect(
            Buffer.from(got.subarray(0, lo)).equals(Buffer.from(d.subarray(0, lo))),
            `thread ${t}: before the range`,
          ).toBe(true);
          expect(
            Buffer.from(got.subarray(lo, hi)).equals(
              Buffer.from(s.subarray(GUARD + c.srcOff, GUARD + c.srcOff + c.len)),
            ),
            `thread ${t}: the copied range`,
          ).toBe(true);
          expect(
            Buffer.from(got.subarray(hi)).equals(Buffer.from(d.subarray(hi))),
            `thread ${t}: after the range`,
          ).toBe(true);
        });
      },
    ),
    fuzz(seed, runs, 5000),
  );
  expect(dev.faults()).toEqual([]);
  for (const l of lanes) {
    expect(eng.queue(l.q).stats()).toMatchObject({
      submitted: round,
      completed: round,
      errors: 0,
      refused: 0,
    });
  }
  return { round, bytes };
}

describe('dmatest: random lengths and offsets with guard bytes', () => {
  it('16 KiB buffers (the dmatest default), 4 threads', async () => {
    const { round } = await roundProperty(16384, 0xd4a7e501, 250);
    expect(round).toBeGreaterThan(0);
  });

  it('256 KiB buffers: copies of several 64 KiB chunks, 4 threads', async () => {
    const { round } = await roundProperty(256 * 1024, 0xd4a7e502, 60);
    expect(round).toBeGreaterThan(0);
  });
});
