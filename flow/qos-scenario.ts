/**
 * The QoS scenario runner: what a plan does on a fresh mock. The mock holding the plan's engines
 * is brought up, every queue the plan names gets rings and the same backlog of copies (`packets`
 * copies of `bytes` each, all queued before the engines run), the plan is applied, and the engines
 * run until idle; the mock's service trace then says who was served when (flow/timeline.ts draws
 * it, flow/chrome-trace.ts exports it). Since every queue has the same work, the differences come
 * from the plan alone: which level is served first, how DWRR weights split the bytes, where a rate
 * limiter holds a queue back.
 *
 *   const dev = simulateQosPlan(plan, { packets: 64, bytes: 4096 });
 *   dev.serviceTrace.bytesPerQueue(0);
 */
import { NxdmaError } from '../common/errors.ts';
import { BD_SIZE, bdCount } from '../csr/formats/bd.ts';
import { applyQos, type QosPlan } from '../driver/qos/index.ts';
import { UdmaEngine } from '../driver/udma/engine.ts';
import { ringSizeFor } from '../csr/formats/ring.ts';
import { MockDevice } from '../mocks/device.ts';

export interface QosWorkload {
  /** Copies per queue (1..4096, default 64). */
  packets?: number;
  /** Bytes per copy (1..1 MiB, default 4096). */
  bytes?: number;
}

export const QOS_TIMELINE_PACKETS = 64;
export const QOS_TIMELINE_BYTES = 4096;

const SRC = 0x1000_0000;
const DST = 2 ** 32;
const RINGS = 0x2000_0000;
/** Bytes one queue's backlog may hold (the mock really copies them). */
export const QOS_TIMELINE_MAX_QUEUE_BYTES = 64 * 2 ** 20;

function checkCount(v: number, where: string, max: number): void {
  if (!Number.isInteger(v) || v < 1 || v > max) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where} must be an integer 1..${max}, got ${String(v)}`,
      {
        where,
        expected: `1..${max}`,
        actual: v,
      },
    );
  }
}

/**
 * Runs the workload under the plan on a fresh mock (engines = `engines` or all of the plan's)
 * and returns the device, its service trace filled. Throws BAD_ARGUMENT for a bad workload.
 */
export function simulateQosPlan(
  plan: QosPlan,
  opts: QosWorkload & { engines?: readonly number[]; allowInferred?: boolean } = {},
): MockDevice {
  const packets = opts.packets ?? QOS_TIMELINE_PACKETS;
  const bytes = opts.bytes ?? QOS_TIMELINE_BYTES;
  checkCount(packets, '--timeline-packets', 4096);
  checkCount(bytes, '--timeline-bytes', 1 << 20);
  if (packets * bytes > QOS_TIMELINE_MAX_QUEUE_BYTES) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `a backlog of ${packets} copies of ${bytes} bytes per queue is more than ${QOS_TIMELINE_MAX_QUEUE_BYTES} bytes`,
      {
        where: '--timeline-packets/--timeline-bytes',
        expected: `packets x bytes <= ${QOS_TIMELINE_MAX_QUEUE_BYTES}`,
        actual: packets * bytes,
      },
    );
  }
  const entries = plan.engines.filter((e) => !opts.engines || opts.engines.includes(e.engine));
  // a ring holds the whole backlog (and one free slot)
  const ring = ringSizeFor(packets * bdCount(bytes) + 1);
  const ringPair = 2 * ring * BD_SIZE;
  const queues = entries.reduce((s, e) => s + e.queues.length, 0);
  const page = (n: number): number => Math.ceil(n / 4096) * 4096;
  const dev = new MockDevice({
    name: 'mock:qos-timeline',
    engines: entries.map((e) => e.engine),
    autoRun: 'none',
    memory: [
      { name: 'src', base: SRC, size: page(bytes) },
      { name: 'dst', base: DST, size: page(bytes) },
      { name: 'rings', kind: 'rings', base: RINGS, size: Math.max(4096, queues * ringPair) },
    ],
  });
  let base = RINGS;
  const engines = entries.map((e) => {
    const eng = new UdmaEngine(dev, e.engine, { allowInferred: opts.allowInferred });
    eng.bringUp();
    for (const q of e.queues) {
      eng.initQueue(q.queue, {
        tx: { base, size: ring },
        rx: { base: base + ring * BD_SIZE, size: ring },
      });
      base += ringPair;
    }
    return { eng, entry: e };
  });
  for (const { eng } of engines) {
    applyQos(dev, plan, {
      engines: [eng.engine],
      shadow: eng.shadow,
      allowInferred: opts.allowInferred,
    });
  }
  for (const { eng, entry } of engines) {
    for (const q of entry.queues) {
      eng.copyBatch(
        q.queue,
        Array.from({ length: packets }, () => ({ src: SRC, dst: DST, bytes })),
      );
    }
  }
  dev.runUntilIdle();
  return dev;
}
