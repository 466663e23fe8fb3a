import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../common/errors.ts';
import { BD_SIZE } from '../../csr/formats/bd.ts';
import { bringUpQueues, layRings, ringBytes } from '../../flow/bring-up.ts';
import { MockDevice } from '../../mocks/device.ts';

const RINGS = 0x2000_0000;

function device(engines: number[], ringBytesMapped: number): MockDevice {
  return new MockDevice({
    engines,
    autoRun: 'none',
    memory: [
      { name: 'rings', base: RINGS, size: ringBytesMapped },
      { name: 'data', base: 0x1000_0000, size: 1 << 16 },
    ],
  });
}

describe('ring layout', () => {
  it('lays each queue a TX ring then an RX ring, one after the other from the base', () => {
    const rings = layRings(RINGS, [256, 64]);
    expect(rings).toEqual([
      { tx: { base: RINGS, size: 256 }, rx: { base: RINGS + 256 * BD_SIZE, size: 256 } },
      {
        tx: { base: RINGS + 512 * BD_SIZE, size: 64 },
        rx: { base: RINGS + 576 * BD_SIZE, size: 64 },
      },
    ]);
    expect(ringBytes([256, 64])).toBe(2 * (256 + 64) * BD_SIZE);
  });
});

describe('bringUpQueues', () => {
  it('brings up every engine the queues name and initializes each queue on its laid-out rings', () => {
    const dev = device([0, 1], ringBytes([256, 256, 64]));
    const up = bringUpQueues(
      dev,
      [
        { engine: 1, queue: 3, size: 256 },
        { engine: 0, queue: 0, size: 256 },
        { engine: 1, queue: 0, size: 64 },
      ],
      { base: RINGS },
    );
    expect([...up.engines.keys()]).toEqual([1, 0]);
    expect(up.engines.get(1)!.initializedQueues()).toEqual([0, 3]);
    expect(up.engines.get(0)!.initializedQueues()).toEqual([0]);
    expect(up.queues.map((q) => [q.tx.base, q.rx.base])).toEqual(
      layRings(RINGS, [256, 256, 64]).map((r) => [r.tx.base, r.rx.base]),
    );
    expect(up.bytes).toBe(ringBytes([256, 256, 64]));
    // the queues copy
    const src = new Uint8Array(4096).map((_, i) => i * 7);
    dev.memory.write(0x1000_0000, src);
    up.queues[1].copy(0x1000_0000, 0x1000_8000, 4096);
    dev.runUntilIdle();
    const got = new Uint8Array(4096);
    dev.memory.read(0x1000_8000, got);
    expect(got).toEqual(src);
  });

  it('brings up the engines of opts.engines too, first and in that order, queues or not', () => {
    const dev = device([0, 1, 2], ringBytes([64]));
    const up = bringUpQueues(dev, [{ engine: 0, queue: 1, size: 64 }], {
      base: RINGS,
      engines: [2, 1],
    });
    expect([...up.engines.keys()]).toEqual([2, 1, 0]);
    expect(up.engines.get(2)!.initializedQueues()).toEqual([]);
    expect(up.queues).toHaveLength(1);
  });

  it('a ring outside the mapped memory is refused by the driver, naming the queue', () => {
    const dev = device([0], ringBytes([64]));
    let err: unknown;
    try {
      bringUpQueues(
        dev,
        [
          { engine: 0, queue: 0, size: 64 },
          { engine: 0, queue: 1, size: 64 },
        ],
        { base: RINGS },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NxdmaError);
    expect((err as NxdmaError).message).toMatch(/udma0 queue 1/);
  });

  it('passes allowInferred to the driver as a real boolean only', () => {
    const dev = device([0], ringBytes([64]));
    expect(() =>
      bringUpQueues(dev, [{ engine: 0, queue: 0, size: 64 }], {
        base: RINGS,
        allowInferred: 'yes' as unknown as boolean,
      }),
    ).toThrow(/allowInferred must be true or false/);
  });
});
