import { describe, expect, it } from 'vitest';
import { AccessPattern } from '../../../compiler/ir/access-pattern.ts';
import { lower } from '../../../compiler/lower/lower.ts';
import { compiled } from './helpers.ts';

const rows = (offset: number) => ({
  offset,
  partition: [16, 4] as [number, number],
  free: [[1, 4]] as [number, number][],
});

describe('host-built transfers (backend none): one plan per pair of shapes, moved to each DMA', () => {
  it('DMAs of one shape at different offsets walk their own addresses, with the counts and ranges of each lowered alone', () => {
    const body = (offsets: number[]) =>
      compiled((bb) => {
        offsets.forEach((o, i) =>
          bb.load({
            name: `l${i}`,
            src: { tensor: 'x', ...rows(o) },
            dst: { tensor: 't', ...rows(2 * o) },
          }),
        );
      });
    const both = lower(body([0, 640]));
    const alone = lower(body([640]));
    expect(both.dmas.map((d) => d.backend)).toEqual(['none', 'none']);
    const [a, b] = both.dmas;
    const c = alone.dmas[0];
    expect(a.walks[0]).toMatchObject({ srcAddr: 0x1_0000_0000, dstAddr: 0x400_0000 });
    expect(b.walks[0]).toMatchObject({
      srcAddr: 0x1_0000_0000 + 640 * 4,
      dstAddr: 0x400_0000 + 1280 * 4,
    });
    for (const key of [
      'walks',
      'pieces',
      'descriptors',
      'srcLo',
      'srcHi',
      'dstLo',
      'dstHi',
    ] as const)
      expect(b[key]).toEqual(c[key]);
  });

  it('a DMA of a planned shape that leaves its region is still rejected (bound layer 1 per DMA)', () => {
    const m = compiled((bb) => {
      bb.load({ name: 'in', src: { tensor: 'x', ...rows(0) }, dst: { tensor: 't', ...rows(0) } });
      bb.load({
        name: 'out',
        src: { tensor: 'x', ...rows(64) },
        dst: { tensor: 't', ...rows(64) },
      });
    });
    const I = m.instrByName.get('out')!;
    const t = m.tensorByName.get('t')!;
    // the same dims, 0x40000 elements (1 MiB) past t's start: outside the sb region
    (I as { dst: AccessPattern | null }).dst = new AccessPattern(t, 0x40000, 16, 4, [1, 4]);
    expect(() => lower(m)).toThrow(/#1 \(out\): bound layer 1/);
  });
});
