/**
 * The queue-service timeline: a picture of the mock's service trace (mocks/service-trace.ts) as a
 * self-contained SVG, so a QoS plan can be judged at a glance.
 *
 *   x = engine cycles; one lane per (engine, queue) that was served; each served packet a bar as
 *   wide as the cycles it occupied, coloured by the queue's q_qos level at grant time
 *   (M2S_Q[q].dwrr_cfg_2.q_qos, with a legend), with a thin strip under it in the colour of the
 *   arbitration stage that decided the grant (prefetch, scheduler, completion, rate-limiter;
 *   flow/timeline-stage.ts), so a reader sees why a queue waited; at each lane's end its bytes,
 *   its share of its engine's bytes and the cycle its last packet ended.
 *
 * Pure and deterministic: the same trace and options give the same bytes (no clock, no
 * randomness, fixed number formatting). Every text that reaches the SVG is XML-escaped. Packets
 * of one lane that would be narrower than a pixel are drawn as one bar together with their
 * neighbours (same q_qos, gaps under a pixel), so thousands of packets stay readable and the
 * file stays small; each bar carries its exact bytes, packets and cycles as data attributes and
 * a tooltip.
 */
import { NxdmaError } from '../common/errors.ts';
import type { ServiceTraceReader } from '../csr/io.ts';
import {
  clip,
  defaultQosClasses,
  formatBytes,
  formatCycles,
  n,
  niceStep,
  qosColor,
  round2,
  x,
} from './timeline-format.ts';
import { readTimelineEntries, type TimelineEntry } from './timeline-input.ts';
import {
  countStage,
  emptyTally,
  stageLegend,
  stageStrip,
  stagesPresent,
  tallyStage,
  tallyText,
  type StageTally,
} from './timeline-stage.ts';

export { defaultQosClasses, formatBytes, formatCycles, qosColor } from './timeline-format.ts';

export type { TimelineEntry } from './timeline-input.ts';

export interface TimelineOptions {
  /** Heading (default "Queue service timeline"). */
  title?: string;
  /** Line under the heading (default: packets, bytes, queues, engines, cycle range). */
  subtitle?: string;
  /** Width of the picture in pixels (default 1200; 600..20000). */
  width?: number;
  /** Name shown next to a lane, e.g. the DMAQueue a flow placed there. */
  laneName?: (engine: number, queue: number) => string | undefined;
  /**
   * Legend text after "q_qos N" (default: the DMAQoSClass names the default mapping gives that
   * level, "P0", "P3–P14"; csr/formats/qos-class.ts). Return undefined for none.
   */
  qosLabel?: (qQos: number) => string | undefined;
  /** Entries the trace could not keep (ServiceTrace.dropped; read from a ServiceTrace by default). */
  dropped?: number;
}

/** One lane of the picture: an (engine, queue) that was served. */
export interface TimelineLane {
  engine: number;
  queue: number;
  name: string | null;
  bytes: number;
  packets: number;
  descriptors: number;
  /** bytes / bytes of the lane's engine (0..1; 0 when the engine moved no bytes). */
  share: number;
  firstCycle: number;
  lastCycle: number;
  /** Distinct q_qos levels its packets were granted at, ascending. */
  qQos: number[];
  /** Bars drawn for it (after aggregation). */
  bars: number;
}

export interface TimelineResult {
  svg: string;
  lanes: TimelineLane[];
  /** Bars drawn in all (each one packet or an aggregate of narrow neighbours). */
  bars: number;
  packets: number;
  bytes: number;
  /** Cycle range drawn: [startCycle, endCycle]. */
  startCycle: number;
  endCycle: number;
}

export const TIMELINE_DEFAULT_WIDTH = 1200;

// ---------------------------------------------------------------------------------------------
// layout

const MARGIN = 16;
/** The label column: at least this wide, at most this (and 30% of the width). */
const LABEL_MIN_W = 120;
const LABEL_MAX_W = 380;
/** Approximate advance of a character of the label fonts (11 px monospace, 12 px sans). */
const MONO_CHAR_W = 6.7;
const TEXT_CHAR_W = 6.9;
const TOTALS_W = 250;
const LANE_H = 22;
const BAR_H = 14;
const HEADER_H = 70;
const AXIS_H = 40;
const LEGEND_ROW_H = 20;
/** Bars narrower than this are drawn this wide, so a lone short packet stays visible. */
const MIN_BAR_W = 1;
/** Bars at least this wide get a white outline, so neighbouring packets stay apart. */
const WIDE_BAR_W = 6;

interface Bar {
  x0: number;
  x1: number;
  start: number;
  end: number;
  bytes: number;
  packets: number;
  descriptors: number;
  qQos: number;
  /** Packets per deciding stage (entries without a stage count nowhere). */
  stages: StageTally;
}

/**
 * Renders a service trace as an SVG timeline (see the module comment). `trace` is a
 * MockDevice's `serviceTrace`, or entries of it (`serviceTrace.entries({ engine })`, a flow
 * report's `trace.service`). Throws BAD_ARGUMENT for an entry with a missing or negative field.
 */
export function renderTimeline(
  trace: ServiceTraceReader | readonly TimelineEntry[],
  opts: TimelineOptions = {},
): TimelineResult {
  const { entries, dropped } = readTimelineEntries(trace, opts.dropped);
  const width = opts.width ?? TIMELINE_DEFAULT_WIDTH;
  if (!Number.isInteger(width) || width < 600 || width > 20000) {
    throw new NxdmaError('BAD_ARGUMENT', `timeline width must be 600..20000 pixels, got ${width}`, {
      where: 'width',
      expected: 'integer 600..20000',
      actual: width,
    });
  }
  const qosLabel = opts.qosLabel ?? defaultQosClasses;

  // --- lanes: (engine, queue) in ascending order, entry indices sorted by start cycle
  const byLane = new Map<number, number[]>();
  let t0 = Infinity;
  let t1 = -Infinity;
  let totalBytes = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const key = e.engine * 65536 + e.queue;
    let list = byLane.get(key);
    if (!list) byLane.set(key, (list = []));
    list.push(i);
    if (e.startCycle < t0) t0 = e.startCycle;
    if (e.endCycle > t1) t1 = e.endCycle;
    totalBytes += e.bytes;
  }
  if (entries.length === 0) {
    t0 = 0;
    t1 = 1;
  }
  if (t1 <= t0) t1 = t0 + 1;
  const keys = [...byLane.keys()].sort((a, b) => a - b);
  const engineBytes = new Map<number, number>();
  for (const e of entries) engineBytes.set(e.engine, (engineBytes.get(e.engine) ?? 0) + e.bytes);

  // --- lane labels: "udma<e> q<q>" and the lane's name; the label column fits them (capped)
  const names = keys.map((key) => {
    const name = opts.laneName?.(Math.floor(key / 65536), key % 65536);
    return name === undefined || name === '' ? null : name;
  });
  const labelCap = Math.min(LABEL_MAX_W, Math.floor(width * 0.3));
  let labelW = LABEL_MIN_W;
  keys.forEach((key, i) => {
    const id = `udma${Math.floor(key / 65536)} q${key % 65536}`.length * MONO_CHAR_W;
    const nm = names[i] === null ? 0 : 6 + Array.from(names[i]!).length * TEXT_CHAR_W;
    labelW = Math.max(labelW, Math.ceil(8 + id + nm + 8));
  });
  labelW = Math.min(labelW, labelCap);
  const plotX = MARGIN + labelW;
  const plotW = width - plotX - TOTALS_W - MARGIN;
  const px = (c: number): number => plotX + ((c - t0) / (t1 - t0)) * plotW;

  // --- bars, aggregated per lane
  const lanes: TimelineLane[] = [];
  const laneBars: Bar[][] = [];
  for (const key of keys) {
    const idx = byLane.get(key)!;
    let sorted = true;
    for (let k = 1; k < idx.length; k++)
      if (entries[idx[k]].startCycle < entries[idx[k - 1]].startCycle) sorted = false;
    if (!sorted) idx.sort((a, b) => entries[a].startCycle - entries[b].startCycle || a - b);
    const bars: Bar[] = [];
    let cur: Bar | null = null;
    const levels = new Set<number>();
    let bytes = 0;
    let descriptors = 0;
    let first = Infinity;
    let last = -Infinity;
    for (const i of idx) {
      const e = entries[i];
      const a = px(e.startCycle);
      const b = px(e.endCycle);
      const d = e.descriptors ?? 0;
      levels.add(e.qQos);
      bytes += e.bytes;
      descriptors += d;
      first = Math.min(first, e.startCycle);
      last = Math.max(last, e.endCycle);
      if (cur && cur.qQos === e.qQos && a - cur.x1 < 1 && (b - a < 1 || cur.x1 - cur.x0 < 1)) {
        cur.x1 = Math.max(cur.x1, b);
        cur.end = Math.max(cur.end, e.endCycle);
        cur.bytes += e.bytes;
        cur.packets++;
        cur.descriptors += d;
        if (e.stage !== undefined) countStage(cur.stages, e.stage);
        continue;
      }
      cur = {
        x0: a,
        x1: b,
        start: e.startCycle,
        end: e.endCycle,
        bytes: e.bytes,
        packets: 1,
        descriptors: d,
        qQos: e.qQos,
        stages: emptyTally(),
      };
      if (e.stage !== undefined) countStage(cur.stages, e.stage);
      bars.push(cur);
    }
    const engine = Math.floor(key / 65536);
    const queue = key % 65536;
    const eb = engineBytes.get(engine) ?? 0;
    const name = names[lanes.length];
    lanes.push({
      engine,
      queue,
      name,
      bytes,
      packets: idx.length,
      descriptors,
      share: eb > 0 ? bytes / eb : 0,
      firstCycle: first,
      lastCycle: last,
      qQos: [...levels].sort((a, b) => a - b),
      bars: bars.length,
    });
    laneBars.push(bars);
  }
  const stageTotal = emptyTally();
  let stageMixed = false;
  for (const bars of laneBars)
    for (const b of bars) {
      for (let k = 0; k < stageTotal.length; k++) stageTotal[k] += b.stages[k];
      if (tallyStage(b.stages) === 'mixed') stageMixed = true;
    }

  // --- legend entries: every level drawn, highest (served first) first
  const levels = [...new Set(entries.map((e) => e.qQos))].sort((a, b) => b - a);
  const legendItems = levels.map((q) => {
    const hint = qosLabel(q);
    return { q, text: `q_qos ${q}${hint ? ` (${hint})` : ''}` };
  });
  const legendX0 = plotX;
  const legendPerRow = Math.max(1, Math.floor((width - legendX0 - MARGIN) / 190));
  const legendRows = Math.max(1, Math.ceil(legendItems.length / legendPerRow));

  const laneCount = Math.max(1, lanes.length);
  const plotY = HEADER_H;
  const plotH = laneCount * LANE_H;
  const axisY = plotY + plotH;
  const legendY = axisY + AXIS_H;
  const stageRow = stagesPresent(stageTotal, stageMixed);
  const height = legendY + (legendRows + (stageRow.length > 0 ? 1 : 0)) * LEGEND_ROW_H + MARGIN;

  // --- text
  const engines = [...engineBytes.keys()].sort((a, b) => a - b);
  const title = opts.title ?? 'Queue service timeline';
  const subtitle =
    opts.subtitle ??
    (entries.length === 0
      ? 'no packets were served'
      : `${entries.length} packets, ${formatBytes(totalBytes)} (${totalBytes} bytes) on ` +
        `${lanes.length} queue${lanes.length === 1 ? '' : 's'} of ` +
        `${engines.length === 1 ? `engine ${engines[0]}` : `engines ${engines.join(', ')}`}; ` +
        `cycles ${t0}–${t1}` +
        (dropped > 0 ? `; ${dropped} packets not kept by the trace` : ''));

  const o: string[] = [];
  o.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="tl-title tl-desc">`,
  );
  o.push(`<title id="tl-title">${x(title)}</title>`);
  o.push(`<desc id="tl-desc">${x(subtitle)}</desc>`);
  o.push(
    '<style>' +
      '.bar{shape-rendering:crispEdges}' +
      'text{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;fill:#1f2328;font-size:12px}' +
      '.t{font-size:16px;font-weight:bold}.s{fill:#57606a}.m{font-family:"DejaVu Sans Mono",' +
      'Menlo,Consolas,monospace;font-size:11px}.ax{fill:#57606a;font-size:11px}' +
      '.grid{stroke:#d0d7de;stroke-width:1}.eng{stroke:#8c959f;stroke-width:1}' +
      '.bar.w{stroke:#ffffff;stroke-width:1}' +
      '</style>',
  );
  o.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  o.push(`<text class="t" x="${MARGIN}" y="24">${x(title)}</text>`);
  o.push(`<text class="s" x="${MARGIN}" y="44">${x(subtitle)}</text>`);
  // column headings
  o.push(`<text class="ax" x="${MARGIN}" y="${plotY - 6}">engine / queue</text>`);
  o.push(
    `<text class="ax" x="${n(plotX + plotW + 8)}" y="${plotY - 6}">bytes, share of engine, last cycle</text>`,
  );

  // lane backgrounds, labels, totals
  lanes.forEach((l, i) => {
    const y = plotY + i * LANE_H;
    if (i % 2 === 1)
      o.push(
        `<rect x="${MARGIN}" y="${y}" width="${width - 2 * MARGIN}" height="${LANE_H}" fill="#f6f8fa"/>`,
      );
    const label = `udma${l.engine} q${l.queue}`;
    const full = l.name ? `${label} ${l.name}` : label;
    o.push(
      `<text x="${MARGIN + 4}" y="${n(y + LANE_H / 2 + 4)}"><title>${x(full)}</title>` +
        `<tspan class="m">${x(label)}</tspan>` +
        (l.name
          ? `<tspan class="s" dx="6">${x(clip(l.name, Math.max(4, Math.floor((labelW - 22 - label.length * MONO_CHAR_W) / TEXT_CHAR_W))))}</tspan>`
          : '') +
        '</text>',
    );
  });
  if (lanes.length === 0) {
    o.push(
      `<text class="s" x="${n(plotX + plotW / 2)}" y="${n(plotY + LANE_H / 2 + 4)}" text-anchor="middle">no packets were served</text>`,
    );
  }

  // grid and axis
  const step = niceStep(t1 - t0, Math.max(2, Math.floor(plotW / 110)));
  const ticks: number[] = [];
  for (let c = Math.ceil(t0 / step) * step; c <= t1 + 1e-9; c += step) ticks.push(c);
  o.push('<g class="axis">');
  for (const c of ticks) {
    const tx = n(px(c));
    o.push(`<line class="grid" x1="${tx}" y1="${plotY}" x2="${tx}" y2="${axisY + 4}"/>`);
    o.push(
      `<text class="ax" x="${tx}" y="${axisY + 16}" text-anchor="middle">${x(formatCycles(c))}</text>`,
    );
  }
  o.push(
    `<line class="eng" x1="${plotX}" y1="${axisY}" x2="${n(plotX + plotW)}" y2="${axisY}"/>` +
      `<line class="eng" x1="${plotX}" y1="${plotY}" x2="${plotX}" y2="${axisY}"/>` +
      `<text class="ax" x="${n(plotX + plotW / 2)}" y="${axisY + 32}" text-anchor="middle">engine cycles</text>`,
  );
  o.push('</g>');

  // engine separators
  for (let i = 1; i < lanes.length; i++) {
    if (lanes[i].engine !== lanes[i - 1].engine) {
      const y = plotY + i * LANE_H;
      o.push(`<line class="eng" x1="${MARGIN}" y1="${y}" x2="${width - MARGIN}" y2="${y}"/>`);
    }
  }

  // bars
  let barCount = 0;
  lanes.forEach((l, i) => {
    const y = plotY + i * LANE_H + (LANE_H - BAR_H) / 2;
    const label = `udma${l.engine} q${l.queue}`;
    o.push(
      `<g class="lane" data-engine="${l.engine}" data-queue="${l.queue}" data-bytes="${l.bytes}" ` +
        `data-packets="${l.packets}">`,
    );
    for (const b of laneBars[i]) {
      barCount++;
      // edges rounded once, so neighbouring bars meet exactly
      const w = Math.max(MIN_BAR_W, round2(b.x1) - round2(b.x0));
      const stage = tallyStage(b.stages);
      const tip =
        `${label}${l.name ? ` ${l.name}` : ''}: ${b.packets} packet${b.packets === 1 ? '' : 's'}, ` +
        `${b.bytes} bytes, cycles ${b.start}–${b.end}, q_qos ${b.qQos}` +
        (stage === undefined ? '' : `, ${tallyText(b.stages)}`);
      o.push(
        `<rect class="${w >= WIDE_BAR_W ? 'bar w' : 'bar'}" x="${n(b.x0)}" y="${n(y)}" width="${n(w)}" height="${BAR_H}" ` +
          `fill="${qosColor(b.qQos)}" data-qqos="${b.qQos}" data-bytes="${b.bytes}" ` +
          `data-packets="${b.packets}" data-start="${b.start}" data-end="${b.end}"` +
          (stage === undefined ? '' : ` data-stage="${stage}"`) +
          '>' +
          `<title>${x(tip)}</title></rect>` +
          (stage === undefined ? '' : stageStrip(stage, n(b.x0), n(y + BAR_H + 1), n(w))),
      );
    }
    o.push('</g>');
    // totals at the lane end: a share gauge, bytes, share of the engine, last cycle
    const ty = plotY + i * LANE_H;
    const gx = plotX + plotW + 8;
    const ly = n(ty + LANE_H / 2 + 4);
    o.push(
      `<g class="totals" data-engine="${l.engine}" data-queue="${l.queue}">` +
        `<rect x="${n(gx)}" y="${n(ty + 6)}" width="40" height="10" fill="#eaeef2"/>` +
        `<rect x="${n(gx)}" y="${n(ty + 6)}" width="${n(40 * l.share)}" height="10" ` +
        `fill="${qosColor(l.qQos[l.qQos.length - 1])}"/>` +
        `<text class="m" x="${n(gx + 118)}" y="${ly}" text-anchor="end">${x(formatBytes(l.bytes))}</text>` +
        `<text class="m" x="${n(gx + 172)}" y="${ly}" text-anchor="end">${x(`${(l.share * 100).toFixed(1)}%`)}</text>` +
        `<text class="m s" x="${n(gx + 226)}" y="${ly}" text-anchor="end">${x(l.lastCycle < 1e5 ? String(l.lastCycle) : formatCycles(l.lastCycle))}</text>` +
        '</g>',
    );
  });

  // legend
  o.push(`<g class="legend">`);
  o.push(`<text class="ax" x="${MARGIN}" y="${legendY + 12}">colour = q_qos level</text>`);
  legendItems.forEach((it, k) => {
    const lx = legendX0 + (k % legendPerRow) * 190;
    const ly = legendY + Math.floor(k / legendPerRow) * LEGEND_ROW_H;
    o.push(
      `<rect x="${lx}" y="${ly + 2}" width="14" height="12" fill="${qosColor(it.q)}" data-qqos="${it.q}"/>` +
        `<text x="${lx + 20}" y="${ly + 12}">${x(it.text)}</text>`,
    );
  });
  o.push('</g>');
  if (stageRow.length > 0)
    o.push(stageLegend(stageRow, MARGIN, legendX0, legendY + legendRows * LEGEND_ROW_H));
  o.push('</svg>');

  return {
    svg: o.join('\n') + '\n',
    lanes,
    bars: barCount,
    packets: entries.length,
    bytes: totalBytes,
    startCycle: t0,
    endCycle: t1,
  };
}

/** renderTimeline(...).svg. */
export function timelineSvg(
  trace: ServiceTraceReader | readonly TimelineEntry[],
  opts: TimelineOptions = {},
): string {
  return renderTimeline(trace, opts).svg;
}
