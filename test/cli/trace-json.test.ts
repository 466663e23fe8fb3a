/**
 * `--trace-json`: the mock's service trace in the Chrome trace event format (Perfetto,
 * chrome://tracing): one process per engine, one thread per queue, one complete event per packet.
 * The file is loaded back and checked against the trace it came from.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateQosPlan } from '../../flow/qos-scenario.ts';
import { parseQosPlan } from '../../driver/qos/index.ts';
import type { FlowReport } from '../../flow/index.ts';
import type { ChromeTraceDocument, ChromeTraceEvent } from '../../flow/chrome-trace.ts';
import { nxdma } from './helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const QOS_MIX = path.join(ROOT, 'examples/programs/qos-mix.json');
const PLAN = path.join(ROOT, 'examples/qos-plan.json');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nxdma-trace-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function load(file: string): ChromeTraceDocument {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as ChromeTraceDocument;
  expect(Array.isArray(doc.traceEvents)).toBe(true);
  return doc;
}

const packets = (d: ChromeTraceDocument) =>
  d.traceEvents
    .filter((e) => e.ph === 'X')
    .sort((a, b) => (a.args.order as number) - (b.args.order as number));

/** What Perfetto's JSON importer needs: well-formed events, complete events that nest per track. */
function expectWellFormed(d: ChromeTraceDocument): void {
  for (const e of d.traceEvents) {
    expect(typeof e.name).toBe('string');
    expect(['X', 'M']).toContain(e.ph);
    expect(Number.isInteger(e.pid) && Number.isInteger(e.tid)).toBe(true);
    if (e.ph === 'X') {
      expect(e.ts! >= 0 && e.dur! >= 0).toBe(true);
    }
  }
  const byTrack = new Map<string, ChromeTraceEvent[]>();
  for (const e of packets(d)) {
    const k = `${e.pid}/${e.tid}`;
    byTrack.set(k, [...(byTrack.get(k) ?? []), e]);
  }
  for (const evs of byTrack.values()) {
    evs.sort((a, b) => a.ts! - b.ts!);
    for (let i = 1; i < evs.length; i++) {
      expect(evs[i].ts!).toBeGreaterThanOrEqual(evs[i - 1].ts! + evs[i - 1].dur!);
    }
  }
  // every track has its names
  for (const k of byTrack.keys()) {
    const [pid, tid] = k.split('/').map(Number);
    expect(
      d.traceEvents.filter((e) => e.name === 'thread_name' && e.pid === pid && e.tid === tid),
    ).toHaveLength(1);
    expect(d.traceEvents.find((e) => e.name === 'process_name' && e.pid === pid)?.args.name).toBe(
      `udma${pid}`,
    );
  }
}

describe('qos show --trace-json', () => {
  it('holds one complete event per packet of the simulated trace, on its engine/queue track', async () => {
    const file = path.join(tmp, 'qos.trace.json');
    const r = await nxdma('qos', 'show', PLAN, '--trace-json', file, '--json');
    expect(r.code).toBe(0);
    const doc = load(file);
    expectWellFormed(doc);
    const plan = parseQosPlan(JSON.parse(fs.readFileSync(PLAN, 'utf8')));
    const trace = simulateQosPlan(plan).serviceTrace;
    const entries = Array.from({ length: trace.length }, (_, i) => trace.at(i));
    expect(entries.length).toBeGreaterThan(100);
    expect(packets(doc).map((e) => [e.pid, e.tid, e.ts, e.dur, e.args])).toEqual(
      entries.map((t) => [
        t.engine,
        t.queue,
        t.startCycle,
        t.endCycle - t.startCycle,
        {
          order: t.order,
          bytes: t.bytes,
          descriptors: t.descriptors,
          qQos: t.qQos,
          stage: t.stage,
        },
      ]),
    );
    // the tracks are the planned queues, named by their class
    const names = doc.traceEvents.filter((e) => e.name === 'thread_name');
    expect(names.find((e) => e.pid === 0 && e.tid === 0)?.args.name).toBe('q0 P0');
    expect((r.json as { traceJson: { packets: number } }).traceJson.packets).toBe(entries.length);
  });

  it('refuses to write over the plan', async () => {
    const plan = path.join(tmp, 'plan.json');
    fs.copyFileSync(PLAN, plan);
    const r = await nxdma('qos', 'show', plan, '--trace-json', plan);
    expect(r.code).toBe(2);
    expect(fs.readFileSync(plan, 'utf8')).toBe(fs.readFileSync(PLAN, 'utf8'));
  });
});

describe('run --trace-json', () => {
  it('per queue, the bytes and packets of the events are those the report says were served', async () => {
    const file = path.join(tmp, 'run.trace.json');
    const r = await nxdma('run', QOS_MIX, '--mock', '--json', '--trace-json', file);
    expect(r.code).toBe(0);
    const report = r.json as FlowReport;
    const doc = load(file);
    expectWellFormed(doc);
    const served = report.arbitration.queues.filter((q) => q.packets > 0);
    expect(served.length).toBeGreaterThan(1);
    for (const q of served) {
      const evs = packets(doc).filter((e) => e.pid === q.engine && e.tid === q.qid);
      expect(evs.length).toBe(q.packets);
      expect(evs.reduce((s, e) => s + (e.args.bytes as number), 0)).toBe(q.bytes);
      expect(Math.min(...evs.map((e) => e.ts!))).toBe(q.firstCycle);
      const name = doc.traceEvents.find(
        (e) => e.name === 'thread_name' && e.pid === q.engine && e.tid === q.qid,
      )!.args.name;
      expect(name).toBe(`q${q.qid} ${q.name}`);
    }
    expect(packets(doc).reduce((s, e) => s + (e.args.bytes as number), 0)).toBe(report.bytesMoved);
  });

  it('is refused on a mapped device and, in a directory run, inside the program folder', async () => {
    const dev = await nxdma(
      'run',
      QOS_MIX,
      '--device',
      '/dev/null',
      '--profile',
      'trn2',
      '--i-understand-this-writes-to-hardware',
      '--trace-json',
      'x.json',
    );
    expect(dev.code).toBe(2);
    expect(dev.errs).toMatch(/--trace-json/);
    const d = path.join(tmp, 'progs');
    fs.mkdirSync(d);
    fs.copyFileSync(QOS_MIX, path.join(d, 'a.json'));
    const r = await nxdma('run', d, '--mock', '--trace-json', path.join(d, 't.json'));
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/program directory/);
    expect(fs.readdirSync(d)).toEqual(['a.json']);
    const out = path.join(tmp, 'traces', 't.json');
    const ok = await nxdma('run', d, '--mock', '--trace-json', out);
    expect(ok.code).toBe(0);
    expect(fs.readdirSync(path.join(tmp, 'traces'))).toEqual(['t.a.json']);
  });
});
