import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NxdmaError } from '../../../common/errors.ts';
import {
  ALL_DMA_CHANNELS,
  MAILBOX_NEVER_MASKS,
  effectiveDmaMask,
} from '../../../driver/dge/index.ts';

describe('effectiveDmaMask (the DGE mailbox rule)', () => {
  it('starts with all 16 DMA channels enabled (0xFFFF)', () => {
    expect(ALL_DMA_CHANNELS).toBe(0xffff);
    expect(effectiveDmaMask([], 0)).toBe(0xffff);
    expect(effectiveDmaMask([], 255)).toBe(0xffff);
  });

  it('ANDs the bitmask of every mailbox whose priority is lower than the operation priority value', () => {
    const mbs = [
      { reserved: 0, priority: 1, bitmask: 0x00ff },
      { reserved: 0, priority: 3, bitmask: 0x0f0f },
    ];
    expect(effectiveDmaMask(mbs, 0)).toBe(0xffff); // 0 > 1? no; 0 > 3? no
    expect(effectiveDmaMask(mbs, 1)).toBe(0xffff); // equal priority does not mask
    expect(effectiveDmaMask(mbs, 2)).toBe(0x00ff); // 2 > 1
    expect(effectiveDmaMask(mbs, 3)).toBe(0x00ff); // 3 > 1, 3 > 3? no
    expect(effectiveDmaMask(mbs, 4)).toBe(0x000f); // both
  });

  it('{0, 0xFF, 0xFFFF} never masks', () => {
    const mbs = [
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
      MAILBOX_NEVER_MASKS,
    ];
    for (let p = 0; p <= 255; p++) expect(effectiveDmaMask(mbs, p)).toBe(0xffff);
    // priority 0xFF alone never masks, whatever its bitmask
    for (let p = 0; p <= 255; p++)
      expect(effectiveDmaMask([{ reserved: 0, priority: 0xff, bitmask: 0 }], p)).toBe(0xffff);
  });

  it('at most four mailboxes; priority a u8; entries validated', () => {
    const m = MAILBOX_NEVER_MASKS;
    expect(() => effectiveDmaMask([m, m, m, m, m], 0)).toThrow(NxdmaError);
    expect(() => effectiveDmaMask([m], 256)).toThrow(NxdmaError);
    expect(() => effectiveDmaMask([m], -1)).toThrow(NxdmaError);
    expect(() => effectiveDmaMask([{ reserved: 0, priority: 1, bitmask: 0x1ffff }], 2)).toThrow(
      NxdmaError,
    );
  });

  it('property: a channel stays enabled exactly when every mailbox the op outranks enables it', () => {
    const mb = fc.record({
      reserved: fc.constant(0),
      priority: fc.nat({ max: 255 }),
      bitmask: fc.nat({ max: 0xffff }),
    });
    fc.assert(
      fc.property(fc.array(mb, { maxLength: 4 }), fc.nat({ max: 255 }), (mbs, p) => {
        const mask = effectiveDmaMask(mbs, p);
        for (let ch = 0; ch < 16; ch++) {
          const enabled = mbs.every((m) => !(p > m.priority) || ((m.bitmask >> ch) & 1) === 1);
          expect(((mask >> ch) & 1) === 1).toBe(enabled);
        }
      }),
      { seed: 4010, numRuns: 500 },
    );
  });
});
