/**
 * Scale, through the public layers:
 *
 *  - 16 engines x 16 queues, each queue with a 65,536-descriptor TX ring and RX ring, brought up,
 *    initialized and exercised through driver/udma on the mock (every queue copies; one queue per
 *    engine runs more than a full lap of its ring so the ring id wraps);
 *  - the compiler's retained memory is linear in program size: bytes per DMA of the compiled and
 *    lowered IR are the same at 4,000 and 40,000 DMAs. Retained heap after a full collection does
 *    not depend on machine load (unlike time or peak heap, which the bench reports:
 *    bench/compile.bench.ts at 10k / 100k / 1M, bench/scale.bench.ts).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { generateProgram } from '../../../bench/compile.bench.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import { compile } from '../../../compiler/passes/pipeline.ts';
import { bringUpQueues } from '../../../flow/bring-up.ts';
import { MockDevice } from '../../../mocks/device.ts';

const ENGINES = 16;
const QUEUES = 16;
const RING = 65536;
const RING_BYTES = RING * 16;

describe('16 engines x 16 queues with 65,536-descriptor rings', () => {
  it('are brought up, initialized and exercised through the driver; one queue per engine wraps its ring', async () => {
    const ringsSize = ENGINES * QUEUES * 2 * RING_BYTES; // 512 MiB of rings (zero pages until touched)
    const SRC = 2 ** 34;
    const DST = 2 ** 35;
    const dev = new MockDevice({
      engines: ENGINES,
      autoRun: 'none',
      serviceTrace: false,
      memory: [
        { name: 'rings', base: 0, size: ringsSize },
        { name: 'src', base: SRC, size: 1 << 20 },
        { name: 'dst', base: DST, size: ENGINES * QUEUES * 0x1000 },
      ],
    });
    const src = new Uint8Array(1 << 20);
    for (let i = 0; i < src.length; i++) src[i] = (i * 31 + (i >>> 8)) & 0xff;
    dev.memory.write(SRC, src);

    const specs = dev
      .engines()
      .flatMap((engine) =>
        Array.from({ length: QUEUES }, (_, queue) => ({ engine, queue, size: RING })),
      );
    const up = bringUpQueues(dev, specs, { base: 0 });
    const engines = [...up.engines.values()];
    expect(engines).toHaveLength(ENGINES);
    for (const eng of engines) expect(eng.initializedQueues()).toHaveLength(QUEUES);
    expect(up.bytes).toBe(ringsSize);

    // Every queue: a batch of 8 copies into its own 4 KiB destination slot.
    const slot = (e: number, q: number) => DST + (e * QUEUES + q) * 0x1000;
    for (const eng of engines) {
      for (let q = 0; q < QUEUES; q++) {
        const base = slot(eng.engine, q);
        eng.copyBatch(
          q,
          Array.from({ length: 8 }, (_, i) => ({
            src: SRC + ((eng.engine * 97 + q * 13 + i) % 1000) * 512,
            dst: base + i * 512,
            bytes: 512,
          })),
        );
      }
    }
    for (const eng of engines) await eng.waitIdle({ timeoutMs: 30_000 });
    expect(dev.faults()).toEqual([]);
    const got = new Uint8Array(512);
    for (const eng of engines) {
      for (let q = 0; q < QUEUES; q++) {
        expect(eng.queue(q).stats()).toMatchObject({ submitted: 8, completed: 8, errors: 0 });
        for (const i of [0, 7]) {
          dev.memory.read(slot(eng.engine, q) + i * 512, got);
          const s = ((eng.engine * 97 + q * 13 + i) % 1000) * 512;
          expect(Buffer.from(got).equals(Buffer.from(src.subarray(s, s + 512)))).toBe(true);
        }
      }
    }

    // One queue per engine runs a full lap plus 16 descriptors: its ring id goes 1 -> 2.
    const LAP = RING + 16;
    const BATCH = 4096;
    const batch = Array.from({ length: BATCH }, (_, i) => ({
      src: SRC + (i % 1024) * 64,
      dst: 0,
      bytes: 64,
    }));
    for (const eng of engines) {
      const q = eng.engine % QUEUES;
      const queue = eng.queue(q);
      let left = LAP - 8;
      let k = 0;
      while (left > 0) {
        const n = Math.min(BATCH, left);
        for (let i = 0; i < n; i++) batch[i].dst = slot(eng.engine, q) + ((k + i) % 64) * 64;
        queue.copyBatch(n === BATCH ? batch : batch.slice(0, n));
        await eng.waitIdle({ timeoutMs: 30_000, queue: q });
        left -= n;
        k += n;
      }
      expect(queue.stats()).toMatchObject({
        submitted: LAP,
        completed: LAP,
        errors: 0,
        refused: 0,
      });
      expect([queue.tx.tail, queue.tx.ringId, queue.rx.tail, queue.rx.ringId]).toEqual([
        16, 2, 16, 2,
      ]);
      const hw = dev.udma(eng.engine).queueStats(q);
      expect([hw.m2s.headOffset, hw.m2s.headRingId, hw.s2m.headOffset, hw.s2m.headRingId]).toEqual([
        16, 2, 16, 2,
      ]);
    }
    expect(dev.faults()).toEqual([]);
  }, 120_000);
});

describe('compiler memory is linear in program size', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => getHeapStatistics().used_heap_size;

  /** Heap retained per DMA by the compiled and lowered program (after full collections). */
  function retainedPerDma(n: number): number {
    gc();
    gc();
    const h0 = used();
    const m = generateProgram(n).build();
    compile(m);
    const lp = lower(m, { keepRecords: false });
    gc();
    gc();
    const kept = used() - h0;
    expect(lp.totals.dmas).toBe(n); // keeps the program alive until after the measurement
    return kept / n;
  }

  it('bytes per DMA retained at 40,000 DMAs are those at 4,000 (within a factor of 1.5)', () => {
    retainedPerDma(2000); // warm-up: shared structures (schemas, targets) allocated once
    const small = Math.min(retainedPerDma(4000), retainedPerDma(4000));
    const large = retainedPerDma(40_000);
    expect(small).toBeGreaterThan(0);
    expect(large / small).toBeGreaterThan(1 / 1.5);
    expect(large / small).toBeLessThan(1.5);
  }, 120_000);
});
