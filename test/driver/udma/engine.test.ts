/** driver/udma/engine.ts: stop / start (dmadev rte_dma_stop / rte_dma_start) recovering an aborted engine. */
import { describe, expect, it } from 'vitest';
import { pattern, readMem, rig, rings, same } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

describe('stop / start', () => {
  it('stop / start on an aborted engine recover both halves (change_state.normal on M2S and S2M) and every queue', async () => {
    const { dev, eng, trace } = rig({ autoRun: 'none', strict: false }, { checkBuffers: false });
    const a = eng.initQueue(0, rings(0));
    const b = eng.initQueue(1, rings(1));
    a.copy(SRC, 0x7000_0000, 64);
    b.copy(SRC, DST, 64);
    dev.runUntilIdle();
    expect(eng.health().aborted).toBe(true);
    trace.length = 0;
    const r = eng.start();
    expect(r.recovered).toBe(true);
    expect(r.queuesReset).toEqual([0, 1]);
    const w = trace.filter((t) => t.op === 'write').map((t) => t.path);
    expect(w.slice(-2)).toEqual(['M2S.change_state', 'S2M.change_state']);
    expect(eng.health()).toMatchObject({ aborted: false });
    dev.memory.write(SRC, pattern(256, 3));
    const s1 = a.copy(SRC, DST + 0x1000, 256);
    const s2 = b.copy(SRC, DST + 0x2000, 256);
    await a.done(s1);
    await b.done(s2);
    expect(same(readMem(dev, DST + 0x2000, 256), pattern(256, 3))).toBe(true);
    // the abort a second time is a new fault, attributed again
    a.copy(SRC, 0x7100_0000, 64);
    dev.runUntilIdle();
    expect(a.completedStatus().statuses.at(-1)).toMatchObject({
      status: 'aborted',
      fault: { address: 0x7100_0000 },
    });
  });
});
