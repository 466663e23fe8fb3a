import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../common/errors.ts';
import { DMA_QOS_CLASS_NAMES, DMAQoSClass, defaultQueueQos } from '../../csr/formats/qos-class.ts';
import { applyQos } from '../../driver/qos/index.ts';
import { MockDevice } from '../../mocks/device.ts';
import {
  defaultQosClasses,
  formatBytes,
  qosColor,
  renderTimeline,
  timelineSvg,
  type TimelineEntry,
} from '../../flow/timeline.ts';
import { QueuePair, bringUp } from '../mocks/helpers.ts';
import { classes, findAll, parseXml, textOf, type XmlElement } from '../mocks/xml.ts';

const SRC = 0x400000;
const DST = 2 ** 32;

/**
 * Engine 0 with queues armed for QoS from their classes (all work queued before the engine
 * runs), `count` packets of mixed sizes on each.
 */
function armedRun(queues: Record<number, 'P0' | 'P1' | 'P3' | 'Default'>, count = 120) {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  const u = dev.udma(0);
  bringUp(u);
  applyQos(dev, {
    version: 1,
    engines: [
      {
        engine: 0,
        arbiters: { prefetch: 'qos', dwrr: 'on', completion: 'qos' },
        queues: Object.entries(queues).map(([q, c]) => ({ queue: Number(q), class: c })),
      },
    ],
  });
  for (const q of Object.keys(queues).map(Number)) {
    const qp = new QueuePair(dev, u, q, 1024, 0x10000 + q * 2 * 1024 * 16);
    for (let i = 0; i < count; i++) {
      const s = 256 * (1 + ((i * 5 + q) % 8));
      qp.putRx(DST, s);
      qp.putTx(SRC, s);
    }
    qp.ringRx(count);
    qp.ringTx(count);
  }
  dev.runUntilIdle();
  return dev;
}

/** Round robin (reset arbiters) on two engines, packets of 64 KiB down to 512 bytes. */
function roundRobinRun() {
  const dev = new MockDevice({ engines: [0, 1], autoRun: 'none' });
  for (const e of [0, 1]) {
    const u = dev.udma(e);
    bringUp(u);
    for (let q = 0; q < 3; q++) {
      const qp = new QueuePair(dev, u, q + e, 256, 0x10000 + e * 0x100000 + q * 2 * 256 * 16);
      for (let i = 0; i < 20; i++) {
        const s = e === 0 ? 512 << q : 65536;
        qp.putRx(DST, s);
        qp.putTx(SRC, s);
      }
      qp.ringRx(20);
      qp.ringTx(20);
    }
  }
  dev.runUntilIdle();
  return dev;
}

const bars = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'rect' && classes(e).includes('bar'));
const lanes = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'g' && classes(e).includes('lane'));
const num = (e: XmlElement, a: string) => Number(e.attrs[a]);

describe('renderTimeline', () => {
  it('is well-formed XML: one svg root with a title', () => {
    for (const dev of [armedRun({ 0: 'P3', 1: 'P0' }), roundRobinRun()]) {
      const root = parseXml(timelineSvg(dev.serviceTrace));
      expect(root.name).toBe('svg');
      expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
      expect(Number(root.attrs.width)).toBeGreaterThan(0);
      expect(Number(root.attrs.height)).toBeGreaterThan(0);
      expect(findAll(root, (e) => e.name === 'title').length).toBeGreaterThan(0);
    }
    expect(parseXml(timelineSvg([])).name).toBe('svg');
  });

  it('draws one lane per (engine, queue) that moved bytes, in engine then queue order', () => {
    const dev = roundRobinRun();
    const trace = dev.serviceTrace.entries();
    const want = [
      ...new Set(trace.filter((e) => e.bytes > 0).map((e) => `${e.engine}/${e.queue}`)),
    ];
    const root = parseXml(timelineSvg(dev.serviceTrace));
    const got = lanes(root).map((g) => `${g.attrs['data-engine']}/${g.attrs['data-queue']}`);
    expect(new Set(got)).toEqual(new Set(want));
    expect(got.length).toBe(want.length);
    const sorted = [...got].sort((a, b) => {
      const [ea, qa] = a.split('/').map(Number);
      const [eb, qb] = b.split('/').map(Number);
      return ea - eb || qa - qb;
    });
    expect(got).toEqual(sorted);
  });

  it("the bars of a lane add up to the trace's bytes and packets of that queue", () => {
    for (const dev of [armedRun({ 0: 'P3', 1: 'P0', 2: 'Default', 3: 'P1' }), roundRobinRun()]) {
      const t = dev.serviceTrace;
      const root = parseXml(timelineSvg(t));
      let all = 0;
      for (const g of lanes(root)) {
        const e = num(g, 'data-engine');
        const q = num(g, 'data-queue');
        const bs = bars(g);
        const bytes = bs.reduce((s, b) => s + num(b, 'data-bytes'), 0);
        const packets = bs.reduce((s, b) => s + num(b, 'data-packets'), 0);
        expect(bytes).toBe(t.bytesPerQueue(e)[q]);
        expect(num(g, 'data-bytes')).toBe(bytes);
        expect(packets).toBe(t.packetsPerQueue(e)[q]);
        all += bytes;
      }
      expect(all).toBe(t.entries().reduce((s, x) => s + x.bytes, 0));
    }
  });

  it('colours every bar by its q_qos and lists each level once in the legend', () => {
    const dev = armedRun({ 0: 'P3', 1: 'P0', 2: 'Default', 3: 'P1' });
    const trace = dev.serviceTrace.entries();
    const root = parseXml(timelineSvg(dev.serviceTrace));
    const levels = new Set(trace.map((e) => e.qQos));
    // the default mapping: P0 4, P1 3, P3 1, Default 0
    expect(levels).toEqual(new Set([4, 3, 1, 0]));
    for (const g of lanes(root)) {
      const q = num(g, 'data-queue');
      const queueLevels = new Set(trace.filter((e) => e.queue === q).map((e) => e.qQos));
      for (const b of bars(g)) {
        expect(b.attrs.fill).toBe(qosColor(num(b, 'data-qqos')));
        expect(queueLevels.has(num(b, 'data-qqos'))).toBe(true);
      }
    }
    const legend = findAll(root, (e) => e.name === 'g' && classes(e).includes('legend'))[0];
    const swatches = findAll(legend, (e) => e.name === 'rect');
    expect(swatches.map((s) => num(s, 'data-qqos'))).toEqual([4, 3, 1, 0]);
    for (const s of swatches) expect(s.attrs.fill).toBe(qosColor(num(s, 'data-qqos')));
    expect(textOf(legend)).toContain('q_qos 4 (P0)');
    // distinct levels get distinct colours
    const colours = new Set(Array.from({ length: 256 }, (_, i) => qosColor(i)));
    expect(colours.size).toBeGreaterThan(200);
  });

  it('P0 vs P3 armed: the P0 lane finishes before the P3 lane starts', () => {
    const dev = armedRun({ 0: 'P3', 1: 'P0' });
    const r = renderTimeline(dev.serviceTrace);
    const p3 = r.lanes.find((l) => l.queue === 0)!;
    const p0 = r.lanes.find((l) => l.queue === 1)!;
    expect(p0.qQos).toEqual([defaultQueueQos(DMAQoSClass.P0).qQos]);
    expect(p3.qQos).toEqual([defaultQueueQos(DMAQoSClass.P3).qQos]);
    expect(p0.lastCycle).toBeLessThanOrEqual(p3.firstCycle);
    // and so in the picture: every P0 bar lies left of every P3 bar
    const root = parseXml(r.svg);
    const laneOf = (q: number) => lanes(root).find((g) => num(g, 'data-queue') === q)!;
    const right = (b: XmlElement) => num(b, 'x') + num(b, 'width');
    const p0End = Math.max(...bars(laneOf(1)).map(right));
    const p3Start = Math.min(...bars(laneOf(0)).map((b) => num(b, 'x')));
    expect(p0End).toBeLessThanOrEqual(p3Start + 1);
  });

  it('reports each queue total and its share of its engine at the lane end', () => {
    const dev = roundRobinRun();
    const r = renderTimeline(dev.serviceTrace);
    for (const e of [0, 1]) {
      const per = dev.serviceTrace.bytesPerQueue(e);
      const total = per.reduce((s, b) => s + b, 0);
      const ls = r.lanes.filter((l) => l.engine === e);
      expect(ls.reduce((s, l) => s + l.share, 0)).toBeCloseTo(1, 9);
      for (const l of ls) expect(l.share).toBeCloseTo(per[l.queue] / total, 9);
    }
    const root = parseXml(r.svg);
    const totals = findAll(root, (e) => e.name === 'g' && classes(e).includes('totals'));
    expect(totals.length).toBe(r.lanes.length);
    for (const [i, g] of totals.entries()) {
      const l = r.lanes[i];
      expect(textOf(g)).toContain(formatBytes(l.bytes));
      expect(textOf(g)).toContain(`${(l.share * 100).toFixed(1)}%`);
    }
  });

  it('is deterministic: the same run gives the same bytes', () => {
    const a = timelineSvg(armedRun({ 0: 'P3', 1: 'P0', 3: 'P1' }).serviceTrace, { title: 't' });
    const b = timelineSvg(armedRun({ 0: 'P3', 1: 'P0', 3: 'P1' }).serviceTrace, { title: 't' });
    expect(a).toBe(b);
    // entries in another order draw the same picture
    const entries = armedRun({ 0: 'P3', 1: 'P0' }).serviceTrace.entries();
    expect(timelineSvg([...entries].reverse())).toBe(timelineSvg(entries));
  });

  it('aggregates packets narrower than a pixel, keeps wide ones apart', () => {
    // 5000 back-to-back packets of 4 cycles on one queue: far narrower than a pixel each
    const tiny: TimelineEntry[] = Array.from({ length: 5000 }, (_, i) => ({
      engine: 0,
      queue: 2,
      bytes: 192,
      descriptors: 1,
      startCycle: i * 4,
      endCycle: i * 4 + 4,
      qQos: 1,
    }));
    const r = renderTimeline(tiny);
    expect(r.bars).toBe(1);
    expect(r.lanes[0].packets).toBe(5000);
    // gaps of two pixels between narrow packets keep them apart, each at least a pixel wide
    const spaced = tiny
      .slice(0, 40)
      .map((e, i) => ({ ...e, startCycle: i * 1000, endCycle: i * 1000 + 4 }));
    const rs = renderTimeline(spaced, { width: 1200 });
    expect(rs.bars).toBe(40);
    for (const b of bars(parseXml(rs.svg))) expect(num(b, 'width')).toBeGreaterThanOrEqual(1);
    // ten wide packets: one bar each
    const wide = tiny
      .slice(0, 10)
      .map((e, i) => ({ ...e, startCycle: i * 100, endCycle: i * 100 + 100 }));
    expect(renderTimeline(wide).bars).toBe(10);
    // a level change is never merged away
    const mixed = tiny.map((e, i) => ({ ...e, qQos: i < 2500 ? 1 : 4 }));
    const rm = renderTimeline(mixed);
    expect(rm.bars).toBe(2);
    expect(rm.lanes[0].qQos).toEqual([1, 4]);
    expect(bars(parseXml(rm.svg)).map((b) => b.attrs.fill)).toEqual([qosColor(1), qosColor(4)]);
  });

  it('stays small and bounded for a large trace', () => {
    const big: TimelineEntry[] = [];
    let c = 0;
    for (let i = 0; i < 50_000; i++) {
      const len = 2 + (i % 7);
      big.push({
        engine: 0,
        queue: i % 4,
        bytes: 64 * len,
        startCycle: c,
        endCycle: c + len,
        qQos: i % 4,
      });
      c += len;
    }
    const r = renderTimeline(big);
    expect(r.packets).toBe(50_000);
    // at most about one bar per pixel column per lane
    expect(r.bars).toBeLessThanOrEqual(4 * 1200);
    expect(r.bytes).toBe(big.reduce((s, e) => s + e.bytes, 0));
    parseXml(r.svg);
  });

  it('escapes every text: title, subtitle, lane names', () => {
    const hostile = `</text><script>alert("x")</script>&amp; 'q' \u0001`;
    const dev = armedRun({ 0: 'P3', 1: 'P0' }, 4);
    const svg = timelineSvg(dev.serviceTrace, {
      title: hostile,
      subtitle: hostile,
      laneName: () => hostile,
    });
    expect(svg).not.toContain('<script');
    const root = parseXml(svg);
    expect(findAll(root, (e) => e.name === 'script')).toEqual([]);
    const titles = findAll(root, (e) => e.name === 'title').map(textOf);
    expect(titles).toContain(hostile.replace('\u0001', '\ufffd'));
    expect(textOf(root)).toContain('&amp;');
  });

  it('rejects a malformed entry before drawing, naming it', () => {
    const ok: TimelineEntry = {
      engine: 0,
      queue: 0,
      bytes: 1,
      startCycle: 0,
      endCycle: 2,
      qQos: 0,
    };
    const bad = [ok, { ...ok, bytes: -1 }];
    try {
      renderTimeline(bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NxdmaError);
      expect((e as NxdmaError).code).toBe('BAD_ARGUMENT');
      expect((e as NxdmaError).details.where).toBe('trace[1].bytes');
    }
    expect(() => renderTimeline([{ ...ok, endCycle: -0.5 + ok.startCycle }])).toThrow(/endCycle/);
    expect(() => renderTimeline([{ ...ok, qQos: 1.5 }])).toThrow(/qQos/);
    expect(() => renderTimeline([ok], { width: 10 })).toThrow(/width/);
  });

  it('names the DMAQoSClasses the default mapping gives each level', () => {
    for (const name of DMA_QOS_CLASS_NAMES) {
      const level = defaultQueueQos(DMAQoSClass[name]).qQos;
      const label = defaultQosClasses(level)!;
      const p = /^P(\d+)$/.exec(name);
      const range = /P(\d+)–P(\d+)/.exec(label);
      if (p && range) {
        expect(Number(p[1])).toBeGreaterThanOrEqual(Number(range[1]));
        expect(Number(p[1])).toBeLessThanOrEqual(Number(range[2]));
      } else {
        expect(label.split(', ')).toContain(name);
      }
    }
    expect(defaultQosClasses(200)).toBeUndefined();
  });
});
