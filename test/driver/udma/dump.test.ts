/** driver/udma/dump.ts: info() and dump() of an engine, on the mock and over a read-only device. */
import { afterEach, describe, expect, it } from 'vitest';
import { openDevice } from '../../../driver/mmio/device.ts';
import { UdmaEngine, formatDump } from '../../../driver/udma/index.ts';
import { removeFiles, sparseFile } from '../mmio/helpers.ts';
import { expectCode, rig, rings } from './helpers.ts';

const SRC = 0x0100_0000;
const DST = 0x0200_0000;

describe('info, dump', () => {
  it('info(): queues, ring limits, max descriptors per packet and bytes per descriptor', () => {
    const { eng } = rig();
    eng.initQueue(3, rings(3, 64));
    expect(eng.info()).toMatchObject({
      engine: 0,
      queues: 16,
      initializedQueues: [3],
      minRingSize: 32,
      maxRingSize: 2 ** 24 - 16,
      maxDescPerPkt: 65,
      maxBytesPerDescriptor: 65536,
      maxCopyBytes: 64 * 65536,
      broughtUp: true,
    });
  });

  it('dump(): reads only; the registers of every queue and the driver view; text names the queue', () => {
    const { dev, eng, trace } = rig({ autoRun: 'none' });
    const q = eng.initQueue(2, rings(2, 32));
    q.copy(SRC, DST, 100);
    q.enqueueCopy(SRC, DST + 0x100, 100);
    trace.length = 0;
    const d = eng.dump();
    expect(trace.filter((t) => t.op === 'write')).toEqual([]);
    const q2 = d.queues[2];
    expect(q2.m2s).toMatchObject({ ringBase: rings(2).tx.base, ringSize: 32, enabled: true });
    expect(q2.m2s.tail).toEqual({ offset: 1, ringId: 1 });
    expect(q2.driver?.stats).toMatchObject({ submitted: 1, enqueued: 1, inFlight: 2 });
    expect(d.queues[5].driver).toBeNull();
    const text = eng.dump({ format: 'text' });
    expect(text).toContain('queue 2:');
    expect(text).not.toContain('queue 5:');
    expect(text).toBe(formatDump(d));
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    dev.runUntilIdle();
    expect(eng.dump({ queues: [2] }).queues).toHaveLength(1);
    expectCode(() => eng.dump({ format: 'xml' as never }), 'BAD_ARGUMENT');
  });
});

describe('dump over a read-only device', () => {
  afterEach(removeFiles);
  it('dump() on a device opened read-only reads and never writes', () => {
    const bar0 = sparseFile(0x82000000 + 32 * 0x100000);
    using dev = openDevice({ path: bar0, profile: 'trn2', engines: [0], readOnly: true });
    const eng = new UdmaEngine(dev, 0, { clock: null });
    const d = eng.dump();
    expect(d.queues).toHaveLength(16);
    expect(d.health.aborted).toBe(false);
    expect(eng.mmio.writes).toBe(0);
    expect(eng.dump({ format: 'text' })).toContain('no queue programmed');
  });
});
