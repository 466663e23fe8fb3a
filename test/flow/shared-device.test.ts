/**
 * Flows on one mock device, one after the other: each report's arbitration (and --trace) counts
 * what the device served during that flow only, as the same flow on a fresh device reports it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceTraceOf } from '../../csr/io.ts';
import {
  defaultRingBase,
  flowMock,
  prepareFlow,
  runPrepared,
  type FlowReport,
} from '../../flow/index.ts';

const PROGRAM = JSON.parse(
  readFileSync(new URL('../../examples/programs/qos-mix.json', import.meta.url), 'utf8'),
) as unknown;

/** What a report says the arbiters served, cycles left out (a reused device's clock runs on). */
function served(r: FlowReport): unknown {
  return r.arbitration.queues.map((q) => ({
    name: q.name,
    qQos: q.qQos,
    packets: q.packets,
    bytes: q.bytes,
    span: q.firstCycle === null || q.lastCycle === null ? null : q.lastCycle - q.firstCycle,
  }));
}

describe('flows sharing one mock device', () => {
  it("each flow's arbitration and trace are its own: the second flow reports what a fresh device does", async () => {
    const p = prepareFlow(PROGRAM);
    const ringBase = defaultRingBase(p.module);
    const fresh = await runPrepared(p, flowMock(p, ringBase), { ringBase, trace: true });
    expect(fresh.mismatches).toBe(0);
    const packets = fresh.arbitration.queues.reduce((n, q) => n + q.packets, 0);
    expect(packets).toBeGreaterThan(0);

    const shared = flowMock(p, ringBase);
    const first = await runPrepared(p, shared, { ringBase, trace: true });
    const second = await runPrepared(p, shared, { ringBase, trace: true });
    expect(second.mismatches).toBe(0);
    expect(served(first)).toStrictEqual(served(fresh));
    expect(served(second)).toStrictEqual(served(fresh));
    expect(second.arbitration.firstGrants).toStrictEqual(fresh.arbitration.firstGrants);
    expect(second.arbitration.warnings).toStrictEqual(fresh.arbitration.warnings);
    // the device keeps both flows' entries; the second report's trace holds its own only
    expect(serviceTraceOf(shared)!.length).toBe(2 * packets);
    expect(second.trace!.service.length).toBe(fresh.trace!.service.length);
    expect(second.trace!.service[0].order).toBe(first.trace!.service.at(-1)!.order + 1);
  });

  it('a flow whose packets the trace could not store says so', async () => {
    const p = prepareFlow(PROGRAM);
    const ringBase = defaultRingBase(p.module);
    const fresh = await runPrepared(p, flowMock(p, ringBase), { ringBase });
    const packets = fresh.arbitration.queues.reduce((n, q) => n + q.packets, 0);
    // room for the first flow's packets and 3 more
    const dev = flowMock(p, ringBase, { traceLimit: packets + 3 });
    const first = await runPrepared(p, dev, { ringBase });
    expect(first.arbitration.warnings.filter((w) => w.includes('service trace'))).toEqual([]);
    const second = await runPrepared(p, dev, { ringBase });
    expect(second.mismatches).toBe(0);
    expect(second.arbitration.queues.reduce((n, q) => n + q.packets, 0)).toBe(3);
    const lost = second.arbitration.warnings.filter((w) => w.includes('service trace'));
    expect(lost).toEqual([
      `the device's service trace did not store ${packets - 3} of the flow's packets (over its limit, or off): the per-queue counts leave them out`,
    ]);
  });
});
