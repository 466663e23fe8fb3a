import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NxdmaError } from '../../../common/errors.ts';
import {
  DgeCoreKind,
  MAX_DGE_MAILBOXES,
  MAX_PRIORITY_CLASS_MAP_ENTRIES,
  NRTUCODE_RESULT,
  NX_POOL_KIND_MASK,
  isNxPoolKind,
  readMailboxes,
  readPriorityClassMap,
  setPriorityClassMap,
  writeMailbox,
  writeMailboxes,
  MAILBOX_NEVER_MASKS,
} from '../../../driver/dge/index.ts';
import { dgeHostLayout } from '../../../csr/formats/dge-host.ts';
import { fakeDevice } from './fake-device.ts';
import { thrown } from '../../support/errors.ts';

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

const CAYMAN = { kind: DgeCoreKind.CAYMAN };

describe('core kinds and build masks', () => {
  it('core kinds SUNDA 2, CAYMAN 9, MARIANA 17, MARIANA_PLUS 25, MAVERICK 32', () => {
    expect(DgeCoreKind).toEqual({
      SUNDA: 2,
      CAYMAN: 9,
      MARIANA: 17,
      MARIANA_PLUS: 25,
      MAVERICK: 32,
    });
  });
  it('customop mask 0x2020204 = {2, 9, 17, 25}; internal 0x102020204 adds 32', () => {
    expect(NX_POOL_KIND_MASK.customop).toBe(0x2020204n);
    expect(NX_POOL_KIND_MASK.internal).toBe(0x102020204n);
    const accepted = (b: 'customop' | 'internal') =>
      Array.from({ length: 70 }, (_, k) => k - 2).filter((k) => isNxPoolKind(k, b));
    expect(accepted('customop')).toEqual([2, 9, 17, 25]);
    expect(accepted('internal')).toEqual([2, 9, 17, 25, 32]);
    expect(isNxPoolKind(9.5, 'internal')).toBe(false);
    expect(isNxPoolKind(NaN)).toBe(false);
  });
});

describe('setPriorityClassMap (nrtucode_core_dge_set_priority_class_map)', () => {
  it('result codes are 0 ok and 8 invalid', () => {
    expect(NRTUCODE_RESULT).toEqual({ OK: 0, INVALID: 8 });
  });

  it('one bulk write of n*4 bytes at dram_base + 0x18', () => {
    for (let n = 1; n <= 4; n++) {
      const { device, memory, cores } = fakeDevice([CAYMAN, CAYMAN]);
      const classes = [0x1000, 0x2000, 0xdeadbeef, 7].slice(0, n);
      expect(setPriorityClassMap(device, 1, classes)).toBe(0);
      expect(memory.writes()).toEqual([
        { op: 'write', addr: cores[1].dramBase + 0x18, length: n * 4 },
      ]);
      expect(memory.log.filter((a) => a.op === 'read')).toEqual([]);
      const at = cores[1].dramBase - memory.base + 0x18;
      const want = ['00100000', '00200000', 'efbeadde', '07000000'].slice(0, n).join('');
      expect(hexOf(memory.bytes.subarray(at, at + 16))).toBe(want.padEnd(32, '0'));
      expect(readPriorityClassMap(device, 1, n)).toEqual(classes);
    }
  });

  it('accepts the classes as a Uint32Array and the core as its DgeCoreIO', () => {
    const { device, memory, cores } = fakeDevice([CAYMAN]);
    expect(setPriorityClassMap(device, cores[0], new Uint32Array([1, 2, 3]))).toBe(0);
    expect(memory.writes()).toHaveLength(1);
    expect(readPriorityClassMap(device, 0, 3)).toEqual([1, 2, 3]);
  });

  it('null core or classes is a typed error instead of an abort; nothing is written', () => {
    const { device, memory } = fakeDevice([CAYMAN]);
    expect(thrown(() => setPriorityClassMap(device, null, [1])).details.where).toBe(
      'setPriorityClassMap.core',
    );
    expect(thrown(() => setPriorityClassMap(device, undefined, [1])).code).toBe('BAD_ARGUMENT');
    expect(thrown(() => setPriorityClassMap(device, 0, null)).details.where).toBe(
      'setPriorityClassMap.classes',
    );
    expect(thrown(() => setPriorityClassMap(device, 0, undefined)).code).toBe('BAD_ARGUMENT');
    expect(memory.log).toEqual([]);
  });

  it('boot_state != 1 returns 8 and writes nothing', () => {
    for (const bootState of [0, 2, 3, -1]) {
      const { device, memory } = fakeDevice([{ kind: DgeCoreKind.CAYMAN, bootState }]);
      expect(setPriorityClassMap(device, 0, [1, 2])).toBe(NRTUCODE_RESULT.INVALID);
      expect(memory.log).toEqual([]);
    }
  });

  it('core kind outside the mask returns 8 (customop build by default; internal accepts MAVERICK)', () => {
    for (const kind of [0, 1, 3, 8, 10, 24, 26, 31, 32, 33, 64]) {
      const { device, memory } = fakeDevice([{ kind }]);
      expect(setPriorityClassMap(device, 0, [1])).toBe(8);
      expect(memory.log).toEqual([]);
    }
    for (const kind of [2, 9, 17, 25]) {
      const { device } = fakeDevice([{ kind }]);
      expect(setPriorityClassMap(device, 0, [1])).toBe(0);
    }
    const { device, memory } = fakeDevice([{ kind: DgeCoreKind.MAVERICK }]);
    expect(setPriorityClassMap(device, 0, [1], { build: 'customop' })).toBe(8);
    expect(setPriorityClassMap(device, 0, [1], { build: 'internal' })).toBe(0);
    expect(memory.writes()).toHaveLength(1);
    expect(
      thrown(() => setPriorityClassMap(device, 0, [1], { build: 'debug' as never })).code,
    ).toBe('BAD_ARGUMENT');
  });

  it('n > 4 returns 8 and writes nothing', () => {
    const { device, memory } = fakeDevice([CAYMAN]);
    expect(MAX_PRIORITY_CLASS_MAP_ENTRIES).toBe(4);
    expect(setPriorityClassMap(device, 0, [1, 2, 3, 4, 5])).toBe(8);
    expect(setPriorityClassMap(device, 0, new Array(100).fill(0))).toBe(8);
    expect(memory.log).toEqual([]);
  });

  it('gates run in the binary order: boot_state, core kind, null classes, n > 4', () => {
    const notBooted = fakeDevice([{ kind: DgeCoreKind.CAYMAN, bootState: 0 }]);
    expect(setPriorityClassMap(notBooted.device, 0, null)).toBe(8); // boot gate before the classes check
    const wrongKind = fakeDevice([{ kind: 3 }]);
    expect(setPriorityClassMap(wrongKind.device, 0, null)).toBe(8); // kind gate before the classes check
    expect(setPriorityClassMap(wrongKind.device, 0, [1, 2, 3, 4, 5, 6])).toBe(8);
  });

  it('n = 0 passes the gates and writes nothing', () => {
    const { device, memory } = fakeDevice([CAYMAN]);
    expect(setPriorityClassMap(device, 0, [])).toBe(0);
    expect(memory.log).toEqual([]);
  });

  it('a class value that is not a u32 is a typed error and nothing is written', () => {
    const { device, memory } = fakeDevice([CAYMAN]);
    for (const bad of [-1, 2 ** 32, 1.5, NaN]) {
      const e = thrown(() => setPriorityClassMap(device, 0, [1, bad]));
      expect(e.details.where).toBe('priority_class_map[1].bytes_per_packet');
    }
    expect(memory.log).toEqual([]);
  });

  it('an unknown core number is the device error', () => {
    const { device } = fakeDevice([CAYMAN]);
    expect(() => setPriorityClassMap(device, 5, [1])).toThrow(NxdmaError);
  });
});

describe('mailboxes at dram_base + 0x28 + 4*i', () => {
  it('the offsets, strides and counts come from the dge_host schema (0x18 / 0x28, stride 4, 4 entries)', () => {
    const l = dgeHostLayout();
    expect([
      l.priorityClassMap.offset,
      l.priorityClassMap.stride,
      l.priorityClassMap.entries,
    ]).toEqual([0x18, 4, 4]);
    expect([l.mailbox.offset, l.mailbox.stride, l.mailbox.entries]).toEqual([0x28, 4, 4]);
    expect(MAX_DGE_MAILBOXES).toBe(l.mailbox.entries);
    expect(MAX_PRIORITY_CLASS_MAP_ENTRIES).toBe(l.priorityClassMap.entries);
  });

  it('writeMailboxes writes {reserved u8, priority u8, bitmask u16} little-endian in one write; readMailboxes reads them back', () => {
    const { device, memory, cores } = fakeDevice([CAYMAN]);
    const mbs = [
      { reserved: 0, priority: 2, bitmask: 0x00ff },
      { reserved: 0, priority: 0x10, bitmask: 0xf0f0 },
      MAILBOX_NEVER_MASKS,
    ];
    expect(writeMailboxes(device, 0, mbs)).toBe(0);
    expect(memory.writes()).toEqual([{ op: 'write', addr: cores[0].dramBase + 0x28, length: 12 }]);
    const at = cores[0].dramBase - memory.base + 0x28;
    expect(hexOf(memory.bytes.subarray(at, at + 12))).toBe('0002ff00' + '0010f0f0' + '00ffffff');
    expect(readMailboxes(device, 0, 3)).toEqual(mbs);
    expect(readMailboxes(device, 0)).toHaveLength(4);
  });

  it('writeMailbox i writes 4 bytes at +0x28 + 4*i', () => {
    const { device, memory, cores } = fakeDevice([CAYMAN]);
    for (let i = 0; i < 4; i++) {
      expect(writeMailbox(device, 0, i, { reserved: 0, priority: i, bitmask: 1 << i })).toBe(0);
      expect(memory.writes()[i]).toEqual({
        op: 'write',
        addr: cores[0].dramBase + 0x28 + 4 * i,
        length: 4,
      });
    }
    expect(readMailboxes(device, 0).map((m) => m.bitmask)).toEqual([1, 2, 4, 8]);
  });

  it('at most four mailboxes; the same gates as the priority-class map', () => {
    const { device, memory } = fakeDevice([CAYMAN, { kind: 9, bootState: 0 }, { kind: 32 }]);
    expect(writeMailboxes(device, 0, new Array(5).fill(MAILBOX_NEVER_MASKS))).toBe(8);
    expect(writeMailbox(device, 0, 4, MAILBOX_NEVER_MASKS)).toBe(8);
    expect(writeMailboxes(device, 1, [MAILBOX_NEVER_MASKS])).toBe(8);
    expect(writeMailboxes(device, 2, [MAILBOX_NEVER_MASKS])).toBe(8);
    expect(writeMailboxes(device, 2, [MAILBOX_NEVER_MASKS], { build: 'internal' })).toBe(0);
    expect(memory.writes()).toHaveLength(1);
    expect(() => readMailboxes(device, 0, 5)).toThrow(NxdmaError);
  });

  it('invalid entries and null arguments are typed errors; nothing is written', () => {
    const { device, memory } = fakeDevice([CAYMAN]);
    expect(
      thrown(() =>
        writeMailboxes(device, 0, [
          MAILBOX_NEVER_MASKS,
          { reserved: 0, priority: 256, bitmask: 0 },
        ]),
      ).details.where,
    ).toBe('mailboxes[1].priority');
    expect(
      thrown(() => writeMailbox(device, 0, 0, { reserved: 0, priority: 0, bitmask: 0x10000 }))
        .details.where,
    ).toBe('writeMailbox.entry.bitmask');
    expect(thrown(() => writeMailboxes(device, null, [])).code).toBe('BAD_ARGUMENT');
    expect(thrown(() => writeMailboxes(device, 0, null)).code).toBe('BAD_ARGUMENT');
    expect(thrown(() => writeMailbox(device, 0, -1, MAILBOX_NEVER_MASKS)).code).toBe(
      'BAD_ARGUMENT',
    );
    expect(memory.writes()).toEqual([]);
  });

  it('property: whatever is written reads back', () => {
    const mb = fc.record({
      reserved: fc.constant(0),
      priority: fc.nat({ max: 255 }),
      bitmask: fc.nat({ max: 0xffff }),
    });
    fc.assert(
      fc.property(fc.array(mb, { maxLength: 4 }), (mbs) => {
        const { device } = fakeDevice([CAYMAN]);
        expect(writeMailboxes(device, 0, mbs)).toBe(0);
        expect(readMailboxes(device, 0, mbs.length)).toEqual(mbs);
      }),
      { seed: 4009, numRuns: 200 },
    );
  });
});
