import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialImage } from '../../compiler/interp/memory.ts';
import type { Device } from '../../csr/io.ts';
import { applyQos } from '../../driver/qos/index.ts';
import { checkDevice, poolCoreFor } from '../../flow/device-check.ts';
import { deviceIndexValues } from '../../flow/flow.ts';
import { EpochHazards } from '../../flow/hazards.ts';
import { flowMock } from '../../flow/mock.ts';
import {
  defaultRingBase,
  flowQosPlan,
  prepareFlow,
  type PreparedFlow,
} from '../../flow/prepare.ts';
import { FlowRings, type FlowQueue } from '../../flow/rings.ts';
import { Submission } from '../../flow/submit.ts';
import type { LoweredProgram } from '../../compiler/lower/types.ts';
import { randomKnobs, randomProgram } from './random-program.ts';

/** Everything a submission leaves for the device to see, at each point it hands over. */
interface Seen {
  /** Per stop (each advance() return and each onProgress call): what, and the ring memory. */
  stops: { what: string; rings: Uint8Array }[];
  memory: Uint8Array[];
  epochs: number;
  poolExecuted: number;
  doorbells: number[];
  error: string | null;
}

/**
 * The lowering with walk `lie` (a row) claiming one piece more than it expands into, so that
 * its stream refuses it after its pieces are in (DescriptorStream's count guard).
 */
function miscounted(low: LoweredProgram, lie: number): LoweredProgram {
  const t = low.table;
  const table = new Proxy(t, {
    get: (target, key) => {
      if (key === 'piecesOf')
        return (i: number, k: number) => t.piecesOf(i, k) + (i === lie ? 1 : 0);
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return Object.create(low, { table: { value: table } }) as LoweredProgram;
}

/** Runs a prepared flow on a fresh mock as runPrepared does, with or without gathering. */
async function drive(p: PreparedFlow, gather: boolean, qos: boolean, lie = -1): Promise<Seen> {
  const m = p.module;
  const low = lie >= 0 ? miscounted(p.lowered, lie) : p.lowered;
  const ringBase = defaultRingBase(m);
  const device: Device = flowMock(p, ringBase, { traceLimit: 0 });
  checkDevice(device, p, ringBase);
  const start = initialImage(m, 3);
  for (const r of start.regions) device.memory.write(r.base, r.bytes);
  const rings = new FlowRings(device, { maxPerPacket: p.lowered.maxDescPerPacket });
  rings.setup(p.active, { base: ringBase, sizes: p.ringSizes });
  if (qos && p.active.length > 0) applyQos(device, flowQosPlan(p, false), { shadow: rings.shadow });
  const fqByQueue: (FlowQueue | undefined)[] = new Array(m.queues.length);
  for (const q of rings.queues) fqByQueue[q.placement.queue.index] = q;
  const ringMemory = () => {
    const b = new Uint8Array(p.ringBytes);
    device.memory.read(ringBase, b);
    return b;
  };
  const stops: Seen['stops'] = [];
  const sub = new Submission(
    m,
    low,
    fqByQueue,
    new EpochHazards(m.queues.length),
    poolCoreFor(device, p),
    deviceIndexValues(device),
    (done, total) => stops.push({ what: `progress ${done}/${total}`, rings: ringMemory() }),
    gather,
  );
  let error: string | null = null;
  try {
    for (let wait = sub.advance(); ; wait = sub.advance()) {
      stops.push({ what: wait, rings: ringMemory() });
      await rings.drain(5000);
      if (wait === 'done') break;
      if (wait === 'epoch') sub.newEpoch();
    }
  } catch (e) {
    error = String(e);
    stops.push({ what: 'error', rings: ringMemory() });
  }
  const memory = m.regions.map((r) => {
    const b = new Uint8Array(r.size);
    device.memory.read(r.base, b);
    return b;
  });
  return {
    stops,
    memory,
    epochs: sub.epochs,
    poolExecuted: sub.poolExecuted,
    doorbells: rings.queues.map((q) => q.doorbells),
    error,
  };
}

describe('flow submission', () => {
  it('leaves in the rings, at every stop and progress report, what writing walk by walk leaves', async () => {
    let stops = 0;
    await fc.assert(
      fc.asyncProperty(
        randomKnobs(40),
        fc.record({
          pool: fc.boolean(),
          qos: fc.boolean(),
          ringSize: fc.constantFrom(32, 64, 256),
        }),
        async (program, k) => {
          let p: PreparedFlow;
          try {
            p = prepareFlow(randomProgram(program), {
              ringSize: k.ringSize,
              lower: { availability: { pool: k.pool } },
            });
          } catch {
            fc.pre(false); // a program the flow refuses before it runs
            return;
          }
          fc.pre(p.module.options.dgeHostTables !== 'device');
          const a = await drive(p, true, k.qos);
          const b = await drive(p, false, k.qos);
          expect(a.stops.map((s) => s.what)).toEqual(b.stops.map((s) => s.what));
          a.stops.forEach((s, i) =>
            expect(Buffer.from(s.rings).equals(b.stops[i].rings)).toBe(true),
          );
          a.memory.forEach((x, i) => expect(Buffer.from(x).equals(b.memory[i])).toBe(true));
          expect([a.epochs, a.poolExecuted, a.doorbells, a.error]).toEqual([
            b.epochs,
            b.poolExecuted,
            b.doorbells,
            b.error,
          ]);
          stops += a.stops.length;
        },
      ),
      { seed: 20261213, numRuns: 60 },
    );
    expect(stops).toBeGreaterThan(120);
  });

  it('writes what walk-by-walk writing wrote when a walk fails in its expansion', async () => {
    let failed = 0;
    await fc.assert(
      fc.asyncProperty(randomKnobs(30), fc.nat(), async (program, at) => {
        let p: PreparedFlow;
        try {
          p = prepareFlow(randomProgram(program), { ringSize: 64 });
        } catch {
          fc.pre(false);
          return;
        }
        const rows = p.lowered.table.size;
        fc.pre(p.module.options.dgeHostTables !== 'device' && rows > 0);
        const lie = at % rows;
        const a = await drive(p, true, true, lie);
        const b = await drive(p, false, true, lie);
        expect(a.stops.map((s) => s.what)).toEqual(b.stops.map((s) => s.what));
        a.stops.forEach((s, i) => expect(Buffer.from(s.rings).equals(b.stops[i].rings)).toBe(true));
        expect(a.error).toEqual(b.error);
        if (a.error !== null) failed++;
      }),
      { seed: 20261216, numRuns: 30 },
    );
    expect(failed).toBeGreaterThan(10);
  });
});
