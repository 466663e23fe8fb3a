/**
 * `nxdma qos show <plan> --timeline out.svg`: what a plan does, as a picture. The plan runs on a
 * fresh mock through the QoS scenario runner (flow/qos-scenario.ts) and the mock's service trace
 * is drawn (flow/timeline.ts) or exported (--trace-json, flow/chrome-trace.ts).
 */
import { basename } from 'node:path';
import { NxdmaError } from '../common/errors.ts';
import type { QosPlan } from '../driver/qos/index.ts';
import { QOS_TIMELINE_BYTES, QOS_TIMELINE_PACKETS, simulateQosPlan } from '../flow/qos-scenario.ts';
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
