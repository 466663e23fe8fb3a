import { describe, expect, it } from 'vitest';
import { UdmaEngine, applyQos, type QosPlanInput } from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';

const A = 0;
const B = 3;
const queues: NonNullable<QosPlanInput['engines'][number]['queues']> = [
  { queue: A, class: 'P0' },
  { queue: B, class: 'P3' },
];

/** Equal traffic on A and B (interleaved submission), run on the mock; the grant order. */
async function serve(plan: QosPlanInput): Promise<number[]> {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  const eng = new UdmaEngine(dev, 0);
  eng.bringUp();
  eng.initQueue(A, { tx: { base: 0x100000, size: 64 }, rx: { base: 0x108000, size: 64 } });
  eng.initQueue(B, { tx: { base: 0x110000, size: 64 }, rx: { base: 0x118000, size: 64 } });
  const r = applyQos(dev, plan, { shadow: eng.shadow });
  for (let i = 0; i < 16; i++) {
    eng.copy(0x200000 + i * 0x2000, 0x400000 + i * 0x2000, 0x2000, { queue: A });
    eng.copy(0x600000 + i * 0x2000, 0x800000 + i * 0x2000, 0x2000, { queue: B });
  }
  await eng.waitIdle({ timeoutMs: 2000 });
  expect(eng.stats().map((s) => s.completed)).toEqual([16, 16]);
  expect(r.writes.length).toBeGreaterThan(0);
  return dev.serviceTrace.entries({ engine: 0 }).map((e) => e.queue);
}

describe('end to end on the mock: queue A at P0, queue B at P3, equal traffic', () => {
  it('with the arbiters armed the service trace favours A', async () => {
    const order = await serve({
      version: 1,
      engines: [{ engine: 0, arbiters: { prefetch: 'qos', dwrr: 'on' }, queues }],
    });
    expect(order).toHaveLength(32);
    // Every A packet is granted before any B packet (A's level 4 beats B's level 1).
    expect(order.slice(0, 16).every((q) => q === A)).toBe(true);
    expect(order.slice(16).every((q) => q === B)).toBe(true);
  });

  it('the same traffic unarmed is round robin', async () => {
    const order = await serve({ version: 1, engines: [{ engine: 0, queues }] });
    expect(order).toHaveLength(32);
    for (let i = 1; i < order.length; i++) expect(order[i], `grant ${i}`).not.toBe(order[i - 1]);
    expect(order.filter((q) => q === A)).toHaveLength(16);
  });
});
