import { describe, expect, it } from 'vitest';
import { MockDevice } from '../../../mocks/device.ts';
import { bindRegFile } from '../../../csr/runtime/accessor.ts';
import { dge_host } from '../../../csr/generated/dge_host.ts';
import {
  DgeCoreKind,
  NRTUCODE_RESULT,
  effectiveDmaMask,
  readMailboxes,
  setPriorityClassMap,
  writeMailboxes,
} from '../../../driver/dge/index.ts';

describe('DGE host API on the mock device (dge_host accessors see what the bulk writes wrote)', () => {
  it('the priority-class map lands in priority_class_map[0..n-1]', () => {
    const dev = new MockDevice({ engines: [0], dgeCores: 2 });
    const host = bindRegFile(dge_host, dev.dgeCore(1).dram);
    expect(setPriorityClassMap(dev, 1, [4096, 2048, 1024, 512])).toBe(NRTUCODE_RESULT.OK);
    expect([0, 1, 2, 3].map((i) => host.priority_class_map[i].read().bytes_per_packet)).toEqual([
      4096, 2048, 1024, 512,
    ]);
    const other = bindRegFile(dge_host, dev.dgeCore(0).dram);
    expect(other.priority_class_map[0].read().bytes_per_packet).toBe(0);
  });

  it('mailboxes land in mailbox[i] and drive the channel mask', () => {
    const dev = new MockDevice({ engines: [0], dgeCores: 1 });
    const host = bindRegFile(dge_host, dev.dgeCore(0).dram);
    const mbs = [
      { reserved: 0, priority: 1, bitmask: 0x00ff },
      { reserved: 0, priority: 0xff, bitmask: 0xffff },
    ];
    expect(writeMailboxes(dev, 0, mbs)).toBe(0);
    expect(host.mailbox[0].read()).toEqual(mbs[0]);
    expect(host.mailbox[1].read()).toEqual(mbs[1]);
    const back = readMailboxes(dev, 0, 2);
    expect(effectiveDmaMask(back, 2)).toBe(0x00ff);
    expect(effectiveDmaMask(back, 1)).toBe(0xffff);
  });

  it('the mock core kind and boot state gate as the library does', () => {
    const dev = new MockDevice({
      engines: [0],
      dgeCores: [
        { core: 0, kind: DgeCoreKind.MAVERICK },
        { core: 1, bootState: 0 },
      ],
    });
    expect(setPriorityClassMap(dev, 0, [1])).toBe(8);
    expect(setPriorityClassMap(dev, 0, [1], { build: 'internal' })).toBe(0);
    expect(setPriorityClassMap(dev, 1, [1])).toBe(8);
  });
});
