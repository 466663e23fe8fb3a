import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../common/errors.ts';
import { SERVICE_STAGES, type ServiceStage } from '../../csr/io.ts';
import { parseQosPlan } from '../../driver/qos/index.ts';
import { simulateQosPlan } from '../../flow/qos-scenario.ts';
import { renderTimeline, type TimelineEntry } from '../../flow/timeline.ts';
import { stageColor, tallyText } from '../../flow/timeline-stage.ts';
import { classes, findAll, parseXml, textOf, type XmlElement } from '../mocks/xml.ts';

/** One wide packet per stage, each on its own queue of engine 0, 1000 cycles apart. */
function onePerStage(): TimelineEntry[] {
  return SERVICE_STAGES.map((stage, q) => ({
    engine: 0,
    queue: q,
    bytes: 4096,
    descriptors: 1,
    startCycle: q * 1000,
    endCycle: q * 1000 + 900,
    qQos: 1,
    stage,
  }));
}

const bars = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'rect' && classes(e).includes('bar'));
const strips = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'rect' && classes(e).includes('stage'));
const legend = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'g' && classes(e).includes('stage-legend'))[0];

describe('timeline: the stage that decided each packet', () => {
  it("names each packet's deciding stage in its tooltip and data-stage", () => {
    const root = parseXml(renderTimeline(onePerStage()).svg);
    const bs = bars(root);
    expect(bs.map((b) => b.attrs['data-stage'])).toEqual([...SERVICE_STAGES]);
    bs.forEach((b, k) => {
      const title = findAll(b, (e) => e.name === 'title')[0];
      expect(textOf(title)).toMatch(new RegExp(`, decided by ${SERVICE_STAGES[k]}$`));
    });
  });

  it("draws a strip under each bar in its stage's colour, one colour per stage", () => {
    const root = parseXml(renderTimeline(onePerStage()).svg);
    const bs = bars(root);
    const ss = strips(root);
    expect(ss.length).toBe(bs.length);
    ss.forEach((s, k) => {
      expect(s.attrs['data-stage']).toBe(SERVICE_STAGES[k]);
      expect(s.attrs.fill).toBe(stageColor(SERVICE_STAGES[k]));
      expect(s.attrs.x).toBe(bs[k].attrs.x);
      expect(s.attrs.width).toBe(bs[k].attrs.width);
      // just under the bar, inside the lane
      expect(Number(s.attrs.y)).toBe(Number(bs[k].attrs.y) + Number(bs[k].attrs.height) + 1);
    });
    expect(new Set(SERVICE_STAGES.map(stageColor)).size).toBe(SERVICE_STAGES.length);
  });

  it('lists exactly the stages drawn in a legend row, in stage order', () => {
    const only: ServiceStage[] = ['rate-limiter', 'prefetch'];
    const entries = onePerStage().filter((e) => only.includes(e.stage!));
    const root = parseXml(renderTimeline(entries).svg);
    const g = legend(root);
    expect(g).toBeDefined();
    const texts = findAll(g, (e) => e.name === 'text').map(textOf);
    expect(texts).toEqual(['strip = deciding stage', 'prefetch', 'rate-limiter']);
    const swatches = findAll(g, (e) => e.name === 'rect');
    expect(swatches.map((r) => r.attrs.fill)).toEqual([
      stageColor('prefetch'),
      stageColor('rate-limiter'),
    ]);
    // the legend row fits in the picture
    const svg = root;
    const ys = findAll(g, (e) => e.name === 'text').map((t) => Number(t.attrs.y));
    expect(Math.max(...ys)).toBeLessThan(Number(svg.attrs.height));
  });

  it('counts the stages of an aggregated bar in its tooltip and marks its strip mixed', () => {
    // 40 one-cycle packets over 40000 cycles: narrower than a pixel, drawn as one bar
    const entries: TimelineEntry[] = [];
    for (let i = 0; i < 40; i++) {
      entries.push({
        engine: 0,
        queue: 0,
        bytes: 64,
        startCycle: i,
        endCycle: i + 1,
        qQos: 0,
        stage: i % 4 === 0 ? 'prefetch' : 'scheduler',
      });
    }
    entries.push({ engine: 0, queue: 1, bytes: 64, startCycle: 0, endCycle: 40000, qQos: 0 });
    const root = parseXml(renderTimeline(entries).svg);
    const lane0 = bars(root).filter((b) => textOf(b).startsWith('udma0 q0'));
    expect(lane0.length).toBe(1);
    expect(lane0[0].attrs['data-stage']).toBe('mixed');
    expect(textOf(lane0[0])).toMatch(/40 packets, .*decided by prefetch 10, scheduler 30$/);
    const texts = findAll(legend(root), (e) => e.name === 'text').map(textOf);
    expect(texts).toEqual([
      'strip = deciding stage',
      'prefetch',
      'scheduler',
      'mixed (several packets)',
    ]);
  });

  it('draws no strip and no stage legend for entries that name no stage', () => {
    const entries = onePerStage().map(({ stage: _s, ...e }) => e);
    const out = renderTimeline(entries);
    const root = parseXml(out.svg);
    expect(strips(root)).toEqual([]);
    expect(legend(root)).toBeUndefined();
    expect(out.svg).not.toMatch(/decided by|data-stage/);
    // one legend row fewer than with stages
    const withStages = parseXml(renderTimeline(onePerStage()).svg);
    expect(Number(withStages.attrs.height) - Number(root.attrs.height)).toBe(20);
  });

  it("draws the mock's own stages: a rate-limited plan shows rate-limiter and scheduler", () => {
    const file = new URL('../../examples/qos-cookbook/rate-limit.json', import.meta.url);
    const plan = parseQosPlan(JSON.parse(fs.readFileSync(file, 'utf8')));
    const trace = simulateQosPlan(plan, { packets: 16, allowInferred: true }).serviceTrace;
    const byStage = new Map<string, number>();
    for (let i = 0; i < trace.length; i++) {
      const s = trace.at(i).stage;
      byStage.set(s, (byStage.get(s) ?? 0) + 1);
    }
    expect(byStage.get('rate-limiter')).toBeGreaterThan(0);
    expect(byStage.get('scheduler')).toBeGreaterThan(0);
    const root = parseXml(renderTimeline(trace).svg);
    // every packet counted once under the stage the trace names for it
    const drawn = new Map<string, number>();
    for (const b of bars(root)) {
      const tip = textOf(b);
      const m = /decided by (.*)$/.exec(tip)!;
      const packets = Number(b.attrs['data-packets']);
      if (b.attrs['data-stage'] !== 'mixed') {
        drawn.set(m[1], (drawn.get(m[1]) ?? 0) + packets);
      } else {
        for (const part of m[1].split(', ')) {
          const [st, c] = part.split(' ');
          drawn.set(st, (drawn.get(st) ?? 0) + Number(c));
        }
      }
    }
    expect(drawn).toEqual(byStage);
    const texts = findAll(legend(root), (e) => e.name === 'text').map(textOf);
    expect(texts).toContain('rate-limiter');
    expect(texts).toContain('scheduler');
  });

  it('is deterministic with stages', () => {
    expect(renderTimeline(onePerStage()).svg).toBe(renderTimeline(onePerStage()).svg);
  });

  it('rejects an unknown stage before drawing, naming the entry', () => {
    const entries = onePerStage();
    (entries[2] as { stage: string }).stage = 'dwrr';
    let err: unknown;
    try {
      renderTimeline(entries);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NxdmaError);
    expect((err as NxdmaError).code).toBe('BAD_ARGUMENT');
    expect((err as Error).message).toMatch(/trace\[2\]\.stage must be one of prefetch, scheduler/);
  });

  it('tallyText names one stage plainly and several with their counts', () => {
    expect(tallyText([0, 3, 0, 0])).toBe('decided by scheduler');
    expect(tallyText([1, 0, 2, 5])).toBe('decided by prefetch 1, completion 2, rate-limiter 5');
    expect(tallyText([0, 0, 0, 0])).toBe('');
  });
});
