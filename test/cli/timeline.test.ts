import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimelineJson } from '../../cli/timeline.ts';
import type { FlowReport } from '../../flow/index.ts';
import { qosColor } from '../../flow/timeline.ts';
import { classes, findAll, parseXml, type XmlElement } from '../mocks/xml.ts';
import { nxdma } from './helpers.ts';

const PROGRAMS = new URL('../../examples/programs/', import.meta.url).pathname;
const QOS_MIX = path.join(PROGRAMS, 'qos-mix.json');
const PLAN = new URL('../../examples/qos-plan.json', import.meta.url).pathname;

const tmp = fs.mkdtempSync(
  path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'nxdma-tl-'),
);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lanes = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'g' && classes(e).includes('lane'));
const bars = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'rect' && classes(e).includes('bar'));
const num = (e: XmlElement, a: string) => Number(e.attrs[a]);

describe('nxdma run --timeline', () => {
  it('draws one lane per queue that moved bytes; bar totals, q_qos colours as the report says', async () => {
    const file = path.join(tmp, 'qos-mix.svg');
    const r = await nxdma('run', QOS_MIX, '--mock', '--json', '--timeline', file);
    expect(r.code).toBe(0);
    const report = r.json as FlowReport;
    const root = parseXml(fs.readFileSync(file, 'utf8'));
    expect(root.name).toBe('svg');
    const moved = report.arbitration.queues.filter((q) => q.bytes > 0);
    expect(moved.length).toBeGreaterThan(1);
    const ls = lanes(root);
    expect(ls.map((g) => `${g.attrs['data-engine']}/${g.attrs['data-queue']}`).sort()).toEqual(
      moved.map((q) => `${q.engine}/${q.qid}`).sort(),
    );
    for (const q of moved) {
      const g = ls.find(
        (x) => num(x, 'data-engine') === q.engine && num(x, 'data-queue') === q.qid,
      )!;
      const bs = bars(g);
      expect(bs.reduce((s, b) => s + num(b, 'data-bytes'), 0)).toBe(q.bytes);
      expect(bs.reduce((s, b) => s + num(b, 'data-packets'), 0)).toBe(q.packets);
      for (const b of bs) {
        expect(num(b, 'data-qqos')).toBe(q.qQos);
        expect(b.attrs.fill).toBe(qosColor(q.qQos!));
      }
    }
    expect(ls.reduce((s, g) => s + num(g, 'data-bytes'), 0)).toBe(report.bytesMoved);
    // the queue names of the program label the lanes
    for (const q of moved) expect(fs.readFileSync(file, 'utf8')).toContain(q.name);
  });

  it('is deterministic: two runs write the same file', async () => {
    const a = path.join(tmp, 'a.svg');
    const b = path.join(tmp, 'b.svg');
    expect((await nxdma('run', QOS_MIX, '--mock', '--timeline', a)).code).toBe(0);
    const r = await nxdma('run', QOS_MIX, '--mock', '--timeline', b);
    expect(r.text).toContain(`timeline: ${b}`);
    expect(fs.readFileSync(a, 'utf8')).toBe(fs.readFileSync(b, 'utf8'));
  });

  it('a directory run writes one timeline per program', async () => {
    const base = path.join(tmp, 'dir.svg');
    const r = await nxdma('run', PROGRAMS, '--mock', '--timeline', base);
    expect(r.code).toBe(0);
    const programs = fs.readdirSync(PROGRAMS).filter((f) => f.endsWith('.json'));
    for (const p of programs) {
      const f = path.join(tmp, `dir.${p.replace(/\.json$/, '')}.svg`);
      expect(fs.existsSync(f), f).toBe(true);
      parseXml(fs.readFileSync(f, 'utf8'));
    }
  });

  it('refuses --timeline on a mapped device and a missing directory (exit 2), writing nothing', async () => {
    const f = path.join(tmp, 'never.svg');
    const dev = await nxdma(
      'run',
      QOS_MIX,
      '--device',
      path.join(tmp, 'bar0'),
      '--profile',
      'trn2',
      '--i-understand-this-writes-to-hardware',
      '--timeline',
      f,
    );
    expect(dev.code).toBe(2);
    expect(dev.errs).toMatch(/--timeline/);
    expect(fs.existsSync(f)).toBe(false);
    const plain = path.join(tmp, 'plain-file');
    fs.writeFileSync(plain, 'x');
    const throughFile = await nxdma(
      'run',
      QOS_MIX,
      '--mock',
      '--timeline',
      path.join(plain, 'sub', 'x.svg'),
    );
    expect(throughFile.code).toBe(2);
    expect(throughFile.errs).toMatch(/is not a directory/);
    const nested = path.join(tmp, 'new', 'folder', 'x.svg');
    const created = await nxdma('run', QOS_MIX, '--mock', '--timeline', nested);
    expect(created.code).toBe(0);
    expect(fs.readFileSync(nested, 'utf8')).toMatch(/^<svg/);
  });
});

describe('nxdma qos show --timeline', () => {
  it('runs the plan on a mock with every planned queue backlogged and draws it', async () => {
    const file = path.join(tmp, 'plan.svg');
    const r = await nxdma(
      'qos',
      'show',
      PLAN,
      '--json',
      '--timeline',
      file,
      '--timeline-packets',
      '16',
    );
    expect(r.code).toBe(0);
    const j = r.json as {
      timeline: TimelineJson;
      engines: { engine: number; queues: { queue: number }[] }[];
    };
    const planned = j.engines.flatMap((e) => e.queues.map((q) => `${e.engine}/${q.queue}`));
    expect(j.timeline.file).toBe(file);
    expect(j.timeline.lanes).toBe(planned.length);
    expect(j.timeline.packets).toBe(16 * planned.length);
    expect(j.timeline.bytes).toBe(16 * 4096 * planned.length);
    const root = parseXml(fs.readFileSync(file, 'utf8'));
    const ls = lanes(root);
    expect(ls.map((g) => `${g.attrs['data-engine']}/${g.attrs['data-queue']}`).sort()).toEqual(
      planned.sort(),
    );
    // engine 0: queue 0 (P0) is served before queue 1 (P3) starts
    const lane = (q: number) =>
      ls.find((g) => num(g, 'data-engine') === 0 && num(g, 'data-queue') === q)!;
    const p0End = Math.max(...bars(lane(0)).map((b) => num(b, 'data-end')));
    const p3Start = Math.min(...bars(lane(1)).map((b) => num(b, 'data-start')));
    expect(p0End).toBeLessThanOrEqual(p3Start);
  });

  it('--timeline-packets without --timeline, or a bad count, is bad input (exit 2)', async () => {
    expect((await nxdma('qos', 'show', PLAN, '--timeline-packets', '4')).code).toBe(2);
    const r = await nxdma(
      'qos',
      'show',
      PLAN,
      '--timeline',
      path.join(tmp, 'x.svg'),
      '--timeline-bytes',
      '0',
    );
    expect(r.code).toBe(2);
    expect(fs.existsSync(path.join(tmp, 'x.svg'))).toBe(false);
  });
});
