import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NxdmaError } from '../../../common/errors.ts';
import {
  MAILBOX_NEVER_MASKS,
  decodeMailbox,
  decodeMailboxes,
  decodePriorityClassMap,
  dgeHostLayout,
  encodeMailbox,
  encodeMailboxes,
  encodePriorityClassMap,
  mailboxAddress,
  packMailbox,
  priorityClassMapAddress,
  unpackMailbox,
  validateMailbox,
} from '../../../csr/formats/dge-host.ts';

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('dge_host table formats', () => {
  it('layout from the schema: priority_class_map[4] @0x18 and mailbox[4] @0x28, stride 4', () => {
    const l = dgeHostLayout();
    expect(l.priorityClassMap).toMatchObject({
      name: 'priority_class_map',
      offset: 0x18,
      entries: 4,
      stride: 4,
      entrySize: 4,
    });
    expect(l.mailbox).toMatchObject({
      name: 'mailbox',
      offset: 0x28,
      entries: 4,
      stride: 4,
      entrySize: 4,
    });
    expect([l.mailbox.reserved.lsb, l.mailbox.priority.lsb, l.mailbox.bitmask.lsb]).toEqual([
      0, 8, 16,
    ]);
    expect(priorityClassMapAddress(0x1000, 3)).toBe(0x1000 + 0x18 + 12);
    expect(mailboxAddress(0x1_0000_0000, 2)).toBe(0x1_0000_0000 + 0x28 + 8);
  });

  it('mailbox entry {reserved u8, priority u8, bitmask u16} is 4 bytes, little-endian', () => {
    expect(packMailbox(MAILBOX_NEVER_MASKS)).toBe(0xffffff00);
    expect(packMailbox({ reserved: 0, priority: 3, bitmask: 0x00f0 })).toBe(0x00f00300);
    expect(packMailbox({ reserved: 0xaa, priority: 0x55, bitmask: 0x1234 })).toBe(0x123455aa);
    const b = new Uint8Array(8);
    encodeMailbox(b, 4, { reserved: 0xaa, priority: 0x55, bitmask: 0x1234 });
    expect(hexOf(b)).toBe('00000000' + 'aa553412');
    expect(decodeMailbox(b, 4)).toEqual({ reserved: 0xaa, priority: 0x55, bitmask: 0x1234 });
    expect(unpackMailbox(0xffffff00)).toEqual(MAILBOX_NEVER_MASKS);
    expect(
      hexOf(encodeMailboxes([MAILBOX_NEVER_MASKS, { reserved: 0, priority: 1, bitmask: 2 }])),
    ).toBe('00ffffff' + '00010200');
  });

  it('mailbox fields are range-checked; more than four entries are refused', () => {
    expect(() => packMailbox({ reserved: 0, priority: 256, bitmask: 0 })).toThrow(NxdmaError);
    expect(() => packMailbox({ reserved: -1, priority: 0, bitmask: 0 })).toThrow(NxdmaError);
    expect(() => packMailbox({ reserved: 0, priority: 0, bitmask: 0x10000 })).toThrow(NxdmaError);
    expect(() => unpackMailbox(-1)).toThrow(NxdmaError);
    expect(() => encodeMailboxes(new Array(5).fill(MAILBOX_NEVER_MASKS))).toThrow(NxdmaError);
    expect(() => encodeMailbox(new Uint8Array(3), 0, MAILBOX_NEVER_MASKS)).toThrow(NxdmaError);
  });

  it('validateMailbox accepts what nxdma writes (reserved 0) and never throws', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 8 }), fc.nat({ max: 8 }), (b, off) => {
        const r = validateMailbox(b, off);
        if (r.ok) {
          const out = new Uint8Array(4);
          encodeMailbox(out, 0, r.value);
          expect(hexOf(out)).toBe(hexOf(b.subarray(off, off + 4)));
        } else expect(r.error).toBeInstanceOf(NxdmaError);
        try {
          decodeMailboxes(b, 1, off);
        } catch (e) {
          if (!(e instanceof NxdmaError)) throw e;
        }
      }),
      { seed: 4011, numRuns: 500 },
    );
  });

  it('priority-class map entries are u32 bytes-per-packet, little-endian, n*4 bytes', () => {
    const b = encodePriorityClassMap([0x1000, 0xffffffff, 0]);
    expect(hexOf(b)).toBe('00100000' + 'ffffffff' + '00000000');
    expect(decodePriorityClassMap(b)).toEqual([0x1000, 0xffffffff, 0]);
    expect(encodePriorityClassMap([]).length).toBe(0);
    expect(() => encodePriorityClassMap([2 ** 32])).toThrow(NxdmaError);
    expect(() => decodePriorityClassMap(new Uint8Array(6))).toThrow(NxdmaError);
  });
});
