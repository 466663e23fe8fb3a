/**
 * Queue data safety (docs/testing.md "Queue data-safety attack classes"): private snapshots of
 * batch and ring inputs, refused batches that write nothing, resets and re-initializations that
 * account for every copy they drop and leave no stale descriptor a stray doorbell could serve,
 * and copies that may not touch the engine's own rings. On the mock and, where the check needs no
 * engine, on the mapped back end over a sparse file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BD_SIZE } from '../../../csr/formats/bd.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { UdmaEngine, type CopyRequest, type QueueRings } from '../../../driver/udma/index.ts';
import { queueRegs } from '../../../driver/udma/queue-regs.ts';
import { fileBytes, removeFiles, sparseFile } from '../mmio/helpers.ts';
import { expectCode, pattern, readMem, rig, rings, same } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

/** Rings `n` extra descriptors on both doorbells of queue q, behind the driver (a stray doorbell). */
function strayDoorbell(r: ReturnType<typeof rig>, q: number, n: number): void {
  const Q = queueRegs(q);
  const unit = r.dev.udma(0);
  unit.s2m.write32(Q.s2m.doorbell.reg.offset, Q.s2m.doorbell.place(n));
  unit.m2s.write32(Q.m2s.doorbell.reg.offset, Q.m2s.doorbell.place(n));
}

function untouched(dev: ReturnType<typeof rig>['dev'], addr: number, n: number): boolean {
  return readMem(dev, addr, n).every((b) => b === 0);
}

describe('private snapshots of batch and ring inputs', () => {
  it('copyBatch reads every field once: a getter turning a copy into an overlapping one after validation cannot reach the ring', async () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng } = r;
    const q = eng.initQueue(0, rings(0));
    const data = pattern(4096, 1);
    dev.memory.write(SRC, data);
    // What copy() refuses outright:
    expectCode(() => q.copy(SRC, SRC + 2048, 4096), 'MEMORY_OVERLAP');
    let reads = 0;
    const tricky = {
      src: SRC,
      bytes: 4096,
      get dst(): number {
        reads++;
        return reads === 1 ? DST : SRC + 2048; // first look: fine; later looks: overlapping
      },
    };
    q.copyBatch([tricky]);
    expect(reads).toBe(1);
    await eng.waitIdle();
    expect(same(readMem(dev, DST, 4096), data)).toBe(true);
    // The source was not overwritten by a copy onto itself.
    expect(same(readMem(dev, SRC, 4096), data)).toBe(true);
    // The other order: the first look is the overlapping one, refused as copy() refuses it.
    let reads2 = 0;
    const tricky2 = {
      src: SRC,
      bytes: 4096,
      get dst(): number {
        reads2++;
        return reads2 === 1 ? SRC + 2048 : DST + 0x10000;
      },
    };
    const e = expectCode(() => q.copyBatch([tricky2]), 'MEMORY_OVERLAP');
    expect(e.message).toContain('batch[0]');
    expect(reads2).toBe(1);
    expect(q.stats().submitted).toBe(1);
  });

  it('copyBatch snapshot: a getter submitting batches on this and another queue while the batch is read changes none of its copies', async () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng } = r;
    const q0 = eng.initQueue(0, rings(0));
    const q1 = eng.initQueue(1, rings(1));
    dev.memory.write(SRC, pattern(0x4000, 3));
    const inner = (k: number): CopyRequest[] =>
      Array.from({ length: 4 }, (_, i) => ({
        src: SRC + 0x2000 + i * 64,
        dst: DST + 0x10000 * k + i * 64,
        bytes: 64,
      }));
    const batch: CopyRequest[] = Array.from({ length: 6 }, (_, i) => ({
      src: SRC + i * 256,
      dst: DST + i * 256,
      bytes: 256,
    }));
    let nested = 0;
    // Entry 3's source is read after entries 0-2 are in the snapshot: it submits two batches.
    Object.defineProperty(batch[3], 'src', {
      get(): number {
        if (nested++ === 0) {
          q1.copyBatch(inner(1));
          q0.copyBatch(inner(2));
        }
        return SRC + 3 * 256;
      },
    });
    q0.copyBatch(batch);
    expect(nested).toBe(1);
    expect(q0.stats().submitted).toBe(4 + 6);
    expect(q1.stats().submitted).toBe(4);
    await eng.waitIdle();
    const src = readMem(dev, SRC, 0x4000);
    for (let i = 0; i < 6; i++)
      expect(same(readMem(dev, DST + i * 256, 256), src.subarray(i * 256, (i + 1) * 256))).toBe(
        true,
      );
    for (const k of [1, 2])
      expect(same(readMem(dev, DST + 0x10000 * k, 256), src.subarray(0x2000, 0x2100))).toBe(true);
  });

  it('copyBatch reads the length once: a Proxy whose length grows after validation submits only what was validated', async () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng } = r;
    const ring = rings(0, 32);
    const q = eng.initQueue(0, ring);
    const txBefore = readMem(dev, ring.tx.base, 32 * BD_SIZE).slice();
    // Entry 1 would write 64 bytes of zeros over the TX ring.
    const entries: CopyRequest[] = [
      { src: SRC, dst: DST, bytes: 64 },
      { src: SRC + 0x1000, dst: ring.tx.base, bytes: 64 },
    ];
    let lengthReads = 0;
    const growing = new Proxy(entries, {
      get(target, key, recv) {
        if (key === 'length') return ++lengthReads <= 2 ? 1 : 2;
        return Reflect.get(target, key, recv) as unknown;
      },
    });
    q.copyBatch(growing);
    expect(lengthReads).toBe(1);
    expect(q.stats()).toMatchObject({ submitted: 1, descriptors: 1 });
    // Only slot 0 of the TX ring was written; no doorbell counted the extra entry.
    const txAfter = readMem(dev, ring.tx.base, 32 * BD_SIZE);
    expect(same(txAfter.subarray(BD_SIZE), txBefore.subarray(BD_SIZE))).toBe(true);
    await eng.waitIdle();
    expect(dev.serviceTrace.entries()).toHaveLength(1);
  });

  it('initQueue reads the rings once: a getter cannot move queue 1 onto queue 0 rings after validation', () => {
    const r = rig({ autoRun: 'none' });
    const { eng, trace } = r;
    eng.initQueue(0, rings(0));
    const good = rings(1);
    let reads = 0;
    const tricky = {
      get tx() {
        reads++;
        return reads === 1 ? good.tx : rings(0).tx; // queue 0's TX ring on every later look
      },
      rx: good.rx,
    } as QueueRings;
    trace.length = 0;
    const q1 = eng.initQueue(1, tricky);
    expect(reads).toBe(1);
    expect(q1.rings.tx).toEqual(good.tx);
    const low = trace.find((t) => t.op === 'write' && t.path === 'M2S_Q[1].tdrbp_low');
    expect(low?.value).toBe(good.tx.base);
  });

  it('a refused initQueue changes nothing, also on an initialized busy queue', () => {
    const r = rig({ autoRun: 'none' });
    const { eng, trace } = r;
    const q = eng.initQueue(0, rings(0));
    q.copy(SRC, DST, 100);
    trace.length = 0;
    expectCode(
      () => eng.initQueue(0, { tx: { base: 0x100000, size: 31 }, rx: rings(0).rx }),
      'RING_INVALID',
    );
    expectCode(() => eng.initQueue(0, { tx: rings(0).tx, rx: rings(0).tx }), 'MEMORY_OVERLAP');
    expect(trace).toEqual([]);
    expect(q.stats()).toMatchObject({ submitted: 1, inFlight: 1, discarded: 0 });
  });
});

describe('a refused batch writes nothing', () => {
  it('a batch whose last entry targets a ring: no descriptor written, no doorbell; the next copy completes and the refused data never lands', async () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng, trace } = r;
    const ring = rings(0, 32);
    const q = eng.initQueue(0, ring);
    dev.memory.write(SRC, pattern(0x4000, 2));
    const txBefore = readMem(dev, ring.tx.base, 32 * BD_SIZE).slice();
    const rxBefore = readMem(dev, ring.rx.base, 32 * BD_SIZE).slice();
    trace.length = 0;
    const e = expectCode(
      () =>
        q.copyBatch([
          { src: SRC, dst: DST, bytes: 256 },
          { src: SRC + 0x1000, dst: DST + 0x1000, bytes: 256 },
          { src: SRC + 0x2000, dst: ring.rx.base + 0x100, bytes: 256 },
        ]),
      'MEMORY_OVERLAP',
    );
    expect(e.message).toContain('batch[2]');
    expect(e.message).toContain('queue 0 RX ring');
    expect(trace).toEqual([]);
    expect(same(readMem(dev, ring.tx.base, 32 * BD_SIZE), txBefore)).toBe(true);
    expect(same(readMem(dev, ring.rx.base, 32 * BD_SIZE), rxBefore)).toBe(true);
    const seq = q.copy(SRC + 0x3000, DST + 0x3000, 512);
    await eng.waitIdle({ timeoutMs: 1000 });
    expect(q.isComplete(seq)).toBe(true);
    expect(same(readMem(dev, DST + 0x3000, 512), pattern(0x4000, 2).subarray(0x3000, 0x3200))).toBe(
      true,
    );
    expect(untouched(dev, DST, 0x2000)).toBe(true);
    expect(dev.serviceTrace.entries()).toHaveLength(1);
  });
});

describe('reset and re-initialization account for every copy they drop', () => {
  it('initQueue on a busy queue: the same handle, the dropped copies counted and never complete; the queue runs again', async () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng } = r;
    const q = eng.initQueue(0, rings(0, 32));
    const seqs = [0, 1, 2].map((i) => q.copy(SRC + i * 0x1000, DST + i * 0x1000, 1000));
    const again = eng.initQueue(0, rings(0, 64));
    expect(again).toBe(q);
    expect(q.stats()).toMatchObject({ submitted: 3, inFlight: 0, discarded: 3, completed: 0 });
    for (const s of seqs) expect(q.isComplete(s)).toBe(false);
    expect(q.rings.tx.size).toBe(64);
    dev.memory.write(SRC + 0x8000, pattern(2000, 4));
    const next = q.copy(SRC + 0x8000, DST + 0x8000, 2000);
    expect(next).toBe(4);
    await eng.waitIdle({ timeoutMs: 1000 });
    expect(q.isComplete(next)).toBe(true);
    expect(q.stats()).toMatchObject({ submitted: 4, completed: 1, inFlight: 0, discarded: 3 });
    expect(untouched(dev, DST, 0x3000)).toBe(true);
    expect(eng.stats()).toHaveLength(1);
  });

  for (const how of ['reset', 'initQueue again'] as const) {
    it(`${how}: a stray doorbell past the producer meets a scrubbed slot and stalls; no dropped copy is served`, async () => {
      const r = rig({ autoRun: 'none' });
      const { dev, eng } = r;
      const ring = rings(0, 32);
      const q = eng.initQueue(0, ring);
      dev.memory.write(SRC, pattern(0x8000, 5));
      for (let i = 0; i < 4; i++) q.copy(SRC + i * 0x1000, DST + i * 0x1000, 0x800);
      if (how === 'reset') eng.reset(0);
      else eng.initQueue(0, ring);
      expect(q.stats()).toMatchObject({ discarded: 4, inFlight: 0 });
      // Every slot the dropped copies used is zero (ring id 0) on both rings.
      expect(untouched(dev, ring.tx.base, 4 * BD_SIZE)).toBe(true);
      expect(untouched(dev, ring.rx.base, 4 * BD_SIZE)).toBe(true);
      const seq = q.copy(SRC + 0x6000, DST + 0x6000, 0x800);
      strayDoorbell(r, 0, 2); // two slots past the producer: dropped copies 2 and 3 lived there
      await eng.waitIdle({ timeoutMs: 1000 });
      expect(q.isComplete(seq)).toBe(true);
      expect(dev.serviceTrace.entries()).toHaveLength(1);
      expect(untouched(dev, DST, 0x4000)).toBe(true);
      expect(
        dev.faults().some((f) => f.kind === 'ring-id' && f.expected === 1 && f.actual === 0),
      ).toBe(true);
    });
  }
});

describe('a copy may not touch the engine rings', () => {
  it('source or destination overlapping its own TX or RX ring, or another queue ring: MEMORY_OVERLAP, nothing written', () => {
    const r = rig({ autoRun: 'none' });
    const { dev, eng, trace } = r;
    const r0 = rings(0, 32);
    const r1 = rings(1, 32);
    const q = eng.initQueue(0, r0);
    eng.initQueue(1, r1);
    const before = readMem(dev, 0x100000, 0x20000).slice();
    trace.length = 0;
    const cases: [number, number, number, string][] = [
      [SRC, r0.tx.base, 64, 'queue 0 TX ring'],
      [SRC, r0.tx.base + 32 * BD_SIZE - 1, 2, 'queue 0 TX ring'],
      [SRC, r0.tx.base - 8, 16, 'queue 0 TX ring'],
      [SRC, r0.rx.base + 0x10, 16, 'queue 0 RX ring'],
      [r0.tx.base, DST, 64, 'queue 0 TX ring'],
      [SRC, r1.tx.base, 16, 'queue 1 TX ring'],
      [r1.rx.base, DST, 16, 'queue 1 RX ring'],
    ];
    for (const [src, dst, bytes, name] of cases) {
      const e = expectCode(() => q.copy(src, dst, bytes), 'MEMORY_OVERLAP');
      expect(e.message).toContain(name);
      const b = expectCode(() => q.copyBatch([{ src, dst, bytes }]), 'MEMORY_OVERLAP');
      expect(b.message).toContain('batch[0]');
    }
    // Right next to a ring is fine.
    q.copy(SRC, r0.tx.base + 32 * BD_SIZE, 16);
    q.copy(SRC, r0.tx.base - 16, 16);
    expect(q.stats().submitted).toBe(2);
    // Nothing else was written: two descriptors of each ring and the destinations.
    trace.length = 0;
    const after = readMem(dev, 0x100000, 0x20000);
    let changed = 0;
    for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) changed++;
    expect(changed).toBeLessThanOrEqual(4 * BD_SIZE);
  });

  it('the guard follows re-initialization: the old ring place is free, the new one is guarded', () => {
    const { eng } = rig({ autoRun: 'none' });
    const q = eng.initQueue(0, rings(0, 32));
    eng.initQueue(0, rings(2, 32));
    q.copy(SRC, rings(0).tx.base, 64);
    expectCode(() => q.copy(SRC, rings(2).tx.base, 64), 'MEMORY_OVERLAP');
  });
});

describe('the mapped back end over a sparse file', () => {
  afterEach(removeFiles);
  const BAR0 = 0x82000000 + 32 * 0x100000;

  function mapped() {
    const bar0 = sparseFile(BAR0);
    const mem = sparseFile(0x20_0000, 'mem');
    const dev = openDevice({
      path: bar0,
      profile: 'trn2',
      engines: [0],
      memory: [{ deviceAddress: 2 ** 32, fileOffset: 0, size: 0x20_0000, path: mem }],
    });
    const eng = new UdmaEngine(dev, 0, { clock: null });
    eng.bringUp();
    const base = 2 ** 32;
    const ring = { tx: { base, size: 32 }, rx: { base: base + 0x1000, size: 32 } };
    return { dev, eng, mem, base, ring };
  }

  it('a copy into its own TX ring is refused; a reset zeroes the dropped descriptors in the file', () => {
    const { dev, eng, mem, base, ring } = mapped();
    try {
      const q = eng.initQueue(0, ring);
      expectCode(() => q.copy(base + 0x10_0000, base + 0x10, 16), 'MEMORY_OVERLAP');
      expectCode(
        () => q.copyBatch([{ src: base + 0x10_0000, dst: base + 0x1000, bytes: 16 }]),
        'MEMORY_OVERLAP',
      );
      for (let i = 0; i < 3; i++) q.copy(base + 0x10_0000 + i * 64, base + 0x18_0000 + i * 64, 64);
      expect(fileBytes(mem, 0, 3 * BD_SIZE).some((b) => b !== 0)).toBe(true);
      expect(fileBytes(mem, 0x1000, 3 * BD_SIZE).some((b) => b !== 0)).toBe(true);
      eng.reset(0);
      expect(q.stats()).toMatchObject({ submitted: 3, discarded: 3, inFlight: 0 });
      expect(fileBytes(mem, 0, 0x2000).every((b) => b === 0)).toBe(true);
    } finally {
      dev.dispose();
    }
  });

  it('copyBatch snapshot: a getter cannot redirect a validated copy into the ring', () => {
    const { dev, eng, mem, base, ring } = mapped();
    try {
      const q = eng.initQueue(0, ring);
      let reads = 0;
      q.copyBatch([
        {
          src: base + 0x10_0000,
          bytes: 64,
          get dst(): number {
            return ++reads === 1 ? base + 0x18_0000 : base + 0x20;
          },
        },
      ]);
      expect(reads).toBe(1);
      const rx = fileBytes(mem, 0x1000, 16);
      expect(rx.readUInt32LE(8) + rx.readUInt32LE(12) * 2 ** 32).toBe(base + 0x18_0000);
    } finally {
      dev.dispose();
    }
  });
});
