/**
 * The profile summary of bench/profile.ts on a synthetic V8 CPU profile: self samples per
 * function, idle and the benches' wait (bench/settle.ts) left out of the total, Node internals
 * counted but not listed. No profiler runs.
 */
import { describe, expect, it } from 'vitest';
import { topFrames } from '../../bench/profile.ts';

const frame = (id: number, functionName: string, url: string) => ({
  id,
  callFrame: { functionName, url },
});

describe('topFrames', () => {
  it('ranks functions by self samples over the busy samples', () => {
    const root = process.cwd();
    const profile = {
      nodes: [
        frame(1, '(idle)', ''),
        frame(2, 'step', `file://${root}/mocks/udma/arbitration.ts`),
        frame(3, 'servePacket', `file://${root}/mocks/udma/walk.ts`),
        frame(4, 'step', `file://${root}/mocks/udma/arbitration.ts`), // another call site
        frame(5, 'loadESM', 'node:internal/modules/esm/loader'),
        frame(6, '(garbage collector)', ''),
      ],
      samples: [1, 1, 1, 1, 2, 2, 4, 3, 5, 6, 2, 3],
    };
    const top = topFrames(profile, 2);
    expect(top).toEqual([
      { fn: 'step', where: 'mocks/udma/arbitration.ts', self: 4 / 8 },
      { fn: 'servePacket', where: 'mocks/udma/walk.ts', self: 2 / 8 },
    ]);
    const all = topFrames(profile, 10);
    expect(all.map((f) => f.fn)).toEqual(['step', 'servePacket', '(garbage collector)']);
  });

  it("leaves the benches' wait before a timed run out of the busy samples, as idle is", () => {
    const root = process.cwd();
    const profile = {
      nodes: [
        frame(1, 'settle', `file://${root}/bench/settle.ts`),
        frame(2, 'compile', `file://${root}/compiler/passes/pipeline.ts`),
        frame(3, 'settle', `file://${root}/compiler/other.ts`), // not the bench's wait
      ],
      samples: [1, 1, 1, 1, 1, 1, 2, 2, 3, 1],
    };
    expect(topFrames(profile, 5)).toEqual([
      { fn: 'compile', where: 'compiler/passes/pipeline.ts', self: 2 / 3 },
      { fn: 'settle', where: 'compiler/other.ts', self: 1 / 3 },
    ]);
  });
});
