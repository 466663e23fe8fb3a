/** driver/udma/alloc.ts: the allocator of rings and buffers over the DMA-visible memory. */
import { describe, expect, it } from 'vitest';
import { DmaAllocator } from '../../../driver/udma/index.ts';
import { expectCode, pattern, readMem, rig, rings, same } from './helpers.ts';

describe('the allocator over the DMA-visible memory', () => {
  it('places rings 256-byte aligned and buffers without overlap; avoids hand-placed rings; refuses overlapping reservations', async () => {
    const { dev, eng } = rig({ autoRun: 'none' });
    eng.initQueue(0, { tx: { base: 0x100, size: 32 }, rx: { base: 0x400, size: 32 } });
    const alloc = eng.allocator;
    expect(eng.allocator).toBe(alloc);
    const r = alloc.allocQueueRings(100);
    expect(r.tx.size).toBe(112);
    expect(r.tx.base % 256).toBe(0);
    expect(r.rx.base % 256).toBe(0);
    // clear of queue 0's rings at 0x100..0x300 and 0x400..0x600
    expect(r.tx.base).toBeGreaterThanOrEqual(0x600);
    const q = eng.initQueue(1, r);
    const src = alloc.alloc(5000, { name: 'src' });
    const dst = alloc.alloc(5000, { name: 'dst', align: 4096 });
    expect(dst.base % 4096).toBe(0);
    const all = alloc.placements();
    for (let i = 1; i < all.length; i++) expect(all[i].base).toBeGreaterThanOrEqual(all[i - 1].end);
    dev.memory.write(src.base, pattern(5000, 9));
    await q.done(q.copy(src.base, dst.base, 5000));
    expect(same(readMem(dev, dst.base, 5000), pattern(5000, 9))).toBe(true);
    expectCode(() => alloc.reserve(src.base + 10, 10), 'MEMORY_OVERLAP');
    expectCode(() => alloc.reserve(0x200, 16), 'MEMORY_OVERLAP'); // queue 0's TX ring
    expectCode(() => alloc.reserve(2 ** 40, 16), 'MEMORY_UNMAPPED');
    alloc.free(src);
    expect(alloc.reserve(src.base, 64).base).toBe(src.base);
    expectCode(() => alloc.alloc(2 ** 40), 'MEMORY_UNMAPPED');
    expectCode(() => alloc.alloc(64, { align: 3 }), 'BAD_ARGUMENT');
    expectCode(
      () =>
        new DmaAllocator([
          { base: 0, size: 10 },
          { base: 5, size: 10 },
        ]),
      'MEMORY_OVERLAP',
    );
  });
});

describe('the allocator keeps clear of DGE host tables', () => {
  it('a DGE core table inside the dram region is never handed out', () => {
    const { dev, eng } = rig({
      autoRun: 'none',
      dgeCores: 1,
      memory: [{ name: 'dram', base: 0x4000_0000, size: 0x10_0000 }],
    });
    const core = dev.dgeCore(dev.dgeCores()[0]!);
    const alloc = eng.allocator;
    const got = [];
    for (let i = 0; i < 40; i++) got.push(alloc.alloc(0x4000));
    for (const p of got)
      expect(p.end <= core.dramBase || p.base >= core.dramBase + core.dram.size).toBe(true);
    expectCode(() => alloc.reserve(core.dramBase, 4), 'MEMORY_OVERLAP');
  });
});
