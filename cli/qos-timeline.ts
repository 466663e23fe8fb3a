/**
 * `nxdma qos show <plan> --timeline out.svg`: what a plan does, as a picture. A fresh mock device
 * holding the plan's engines is brought up, every queue the plan names gets rings and the same
 * backlog of copies (`packets` copies of `bytes` each, all queued before the engines run), the
 * plan is applied, the engines run until idle, and the mock's service trace is drawn
 * (mocks/timeline.ts). Since every queue has the same work, the differences in the picture come
 * from the plan alone: which level is served first, how DWRR weights split the bytes, where a
 * rate limiter holds a queue back.
 */
import { basename } from 'node:path';
import { NxdmaError } from '../common/errors.ts';
import { BD_SIZE, bdCount } from '../csr/formats/bd.ts';
import { applyQos, type QosPlan } from '../driver/qos/index.ts';
import { UdmaEngine } from '../driver/udma/engine.ts';
import { ringSizeFor } from '../driver/udma/ring.ts';
import { MockDevice } from '../mocks/device.ts';
import { numberArg } from './input.ts';
import type { InputSet } from '../common/files.ts';
import {
  checkTraceJsonOption,
  writeTraceJson,
  type TraceJsonReport,
  checkTimelineOption,
  timelineJson,
  writeTimeline,
  type TimelineJson,
} from './timeline.ts';

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

/** The --timeline options of `nxdma qos show`. */
export interface QosTimelineOptions {
  timeline?: string;
  /** --trace-json: the same simulation written in the Chrome trace event format. */
  traceJson?: string;
  timelinePackets?: string;
  timelineBytes?: string;
}

function parseCount(v: string | undefined, where: string): number | undefined {
  if (v === undefined) return undefined;
  const n = numberArg(v);
  if (!Number.isSafeInteger(n)) {
    throw new NxdmaError('BAD_ARGUMENT', `${where} must be an integer, got ${JSON.stringify(v)}`, {
      where,
      expected: 'an integer',
      actual: v,
    });
  }
  return n;
}

/**
 * `qos show --timeline`: validates the options, simulates the plan on a mock and writes the
 * picture; returns what was written (undefined without --timeline).
 */
export function qosShowTimeline(
  plan: QosPlan,
  planFile: string,
  opts: QosTimelineOptions & { allowInferred?: boolean },
  engines: readonly number[] | undefined,
  inputs?: InputSet,
): TimelineJson | undefined {
  if (opts.timeline === undefined) {
    if (
      opts.traceJson === undefined &&
      (opts.timelinePackets !== undefined || opts.timelineBytes !== undefined)
    ) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        '--timeline-packets and --timeline-bytes need --timeline <file> or --trace-json <file>',
        {
          where: '--timeline',
          expected: '--timeline <file> or --trace-json <file>',
          actual: undefined,
        },
      );
    }
    return undefined;
  }
  checkTimelineOption(opts.timeline, { mock: true, inputs });
  const packets = parseCount(opts.timelinePackets, '--timeline-packets') ?? QOS_TIMELINE_PACKETS;
  const bytes = parseCount(opts.timelineBytes, '--timeline-bytes') ?? QOS_TIMELINE_BYTES;
  const dev = simulateQosPlan(plan, { engines, packets, bytes, allowInferred: opts.allowInferred });
  const r = writeTimeline(
    opts.timeline,
    dev,
    {
      title: `QoS plan ${basename(planFile)} on the mock: ${packets} copies of ${bytes} bytes queued on each planned queue`,
      laneName: planLaneName(plan),
    },
    inputs,
  );
  return timelineJson(r);
}

/** The track name of a planned queue: its class, or its explicit values. */
function planLaneName(plan: QosPlan): (engine: number, queue: number) => string | undefined {
  return (engine, queue) => {
    const q = plan.engines.find((e) => e.engine === engine)?.queues.find((x) => x.queue === queue);
    if (!q) return undefined;
    if (q.class !== undefined) return q.class;
    return [
      q.qos?.qQos !== undefined ? `q_qos ${q.qos.qQos}` : '',
      q.qos?.weight !== undefined ? `weight ${q.qos.weight}` : '',
    ]
      .filter(Boolean)
      .join(', ');
  };
}

/**
 * `qos show --trace-json`: the plan simulated as for --timeline (same workload options), the
 * service trace written in the Chrome trace event format; undefined without --trace-json.
 */
export function qosShowTraceJson(
  plan: QosPlan,
  planFile: string,
  opts: QosTimelineOptions & { allowInferred?: boolean },
  engines: readonly number[] | undefined,
  inputs?: InputSet,
): TraceJsonReport | undefined {
  if (opts.traceJson === undefined) return undefined;
  checkTraceJsonOption(opts.traceJson, { mock: true, inputs });
  const packets = parseCount(opts.timelinePackets, '--timeline-packets') ?? QOS_TIMELINE_PACKETS;
  const bytes = parseCount(opts.timelineBytes, '--timeline-bytes') ?? QOS_TIMELINE_BYTES;
  const dev = simulateQosPlan(plan, { engines, packets, bytes, allowInferred: opts.allowInferred });
  return writeTraceJson(
    opts.traceJson,
    dev,
    {
      title: `QoS plan ${basename(planFile)} on the mock: ${packets} copies of ${bytes} bytes queued on each planned queue`,
      laneName: planLaneName(plan),
    },
    inputs,
  );
}
