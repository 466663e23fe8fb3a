/**
 * The mock's service trace in the Chrome trace event format (the JSON that Perfetto and
 * chrome://tracing open): one process per UDMA engine ("udma3"), one thread per queue ("q1 P0"),
 * one complete event ("ph": "X") per packet granted, from its start cycle for its cycles.
 *
 *   const doc = chromeTrace(device.serviceTrace, { laneName: (e, q) => names.get(`${e}/${q}`) });
 *   writeFileSync('trace.json', JSON.stringify(doc));
 *
 * The format counts time in microseconds; an engine cycle is written as one microsecond, so the
 * time axis reads in cycles. Each event's args carry the packet's bytes, descriptors, q_qos,
 * grant order and the arbitration stage that decided the grant. The output is deterministic (the same trace gives the same document).
 */
import type { ServiceTraceEntry, ServiceTraceReader } from '../csr/io.ts';

/** One event of the Chrome trace event format (the subset written here). */
export interface ChromeTraceEvent {
  name: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args: Record<string, unknown>;
}

export interface ChromeTraceDocument {
  traceEvents: ChromeTraceEvent[];
  displayTimeUnit: 'ms' | 'ns';
  otherData: Record<string, unknown>;
}

export interface ChromeTraceOptions {
  /** A name for a queue's track ("load_x", "P0"); the track is "q<queue> <name>". */
  laneName?: (engine: number, queue: number) => string | undefined;
  /** Recorded in otherData.title. */
  title?: string;
}

function entriesOf(trace: ServiceTraceReader | readonly ServiceTraceEntry[]): ServiceTraceEntry[] {
  if (Array.isArray(trace)) return [...(trace as readonly ServiceTraceEntry[])];
  const t = trace as ServiceTraceReader;
  const out: ServiceTraceEntry[] = [];
  for (let i = 0; i < t.length; i++) out.push(t.at(i));
  return out;
}

/** The service trace as a Chrome trace event document (see the module comment). */
export function chromeTrace(
  trace: ServiceTraceReader | readonly ServiceTraceEntry[],
  opts: ChromeTraceOptions = {},
): ChromeTraceDocument {
  const entries = entriesOf(trace);
  const tracks = new Map<string, { engine: number; queue: number }>();
  for (const e of entries)
    tracks.set(`${e.engine}/${e.queue}`, { engine: e.engine, queue: e.queue });
  const sorted = [...tracks.values()].sort((a, b) => a.engine - b.engine || a.queue - b.queue);
  const events: ChromeTraceEvent[] = [];
  for (const engine of [...new Set(sorted.map((t) => t.engine))]) {
    events.push({
      name: 'process_name',
      ph: 'M',
      pid: engine,
      tid: 0,
      args: { name: `udma${engine}` },
    });
    events.push({
      name: 'process_sort_index',
      ph: 'M',
      pid: engine,
      tid: 0,
      args: { sort_index: engine },
    });
  }
  for (const t of sorted) {
    const name = opts.laneName?.(t.engine, t.queue);
    events.push({
      name: 'thread_name',
      ph: 'M',
      pid: t.engine,
      tid: t.queue,
      args: { name: `q${t.queue}${name ? ` ${name}` : ''}` },
    });
    events.push({
      name: 'thread_sort_index',
      ph: 'M',
      pid: t.engine,
      tid: t.queue,
      args: { sort_index: t.queue },
    });
  }
  for (const e of entries) {
    events.push({
      name: `${e.bytes} B`,
      cat: `q_qos ${e.qQos}`,
      ph: 'X',
      pid: e.engine,
      tid: e.queue,
      ts: e.startCycle,
      dur: Math.max(0, e.endCycle - e.startCycle),
      args: {
        order: e.order,
        bytes: e.bytes,
        descriptors: e.descriptors,
        qQos: e.qQos,
        stage: e.stage,
      },
    });
  }
  const dropped = Array.isArray(trace) ? 0 : (trace as ServiceTraceReader).dropped;
  return {
    traceEvents: events,
    displayTimeUnit: 'ns',
    otherData: {
      generator: 'nxdma',
      ...(opts.title ? { title: opts.title } : {}),
      timeUnit: '1 us in the trace = 1 engine cycle',
      packets: entries.length,
      dropped,
    },
  };
}
