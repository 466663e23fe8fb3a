/**
 * The deciding stage on the queue-service timeline (flow/timeline.ts): which arbitration stage
 * granted each packet (ServiceTraceEntry.stage: prefetch, scheduler, completion, rate-limiter),
 * drawn as a thin strip under each bar in the stage's colour, named in the bar's tooltip and
 * listed in a legend row, so a reader can see why a queue waited.
 */
import { SERVICE_STAGES, type ServiceStage } from '../csr/io.ts';
import { x } from './timeline-format.ts';

/** Colours of the stage strips, in SERVICE_STAGES order. */
const STAGE_COLORS: Record<ServiceStage, string> = {
  prefetch: '#17becf',
  scheduler: '#24292f',
  completion: '#bcbd22',
  'rate-limiter': '#d62728',
};

/** Colour of the strip of an aggregated bar whose packets were decided by more than one stage. */
export const MIXED_STAGE_COLOR = '#d0d7de';

export function stageColor(stage: ServiceStage | 'mixed'): string {
  return stage === 'mixed' ? MIXED_STAGE_COLOR : STAGE_COLORS[stage];
}

/** Packets per deciding stage, in SERVICE_STAGES order (one counter per stage, no allocation). */
export type StageTally = [number, number, number, number];

export function emptyTally(): StageTally {
  return [0, 0, 0, 0];
}

export function countStage(t: StageTally, stage: ServiceStage): void {
  t[SERVICE_STAGES.indexOf(stage)]++;
}

/** The one stage of a tally, "mixed" when it holds several, undefined when it holds none. */
export function tallyStage(t: StageTally): ServiceStage | 'mixed' | undefined {
  let found: ServiceStage | undefined;
  for (let k = 0; k < SERVICE_STAGES.length; k++) {
    if (t[k] === 0) continue;
    if (found !== undefined) return 'mixed';
    found = SERVICE_STAGES[k];
  }
  return found;
}

/** Tooltip text: "decided by scheduler", or "decided by scheduler 10, prefetch 2" for several. */
export function tallyText(t: StageTally): string {
  const s = tallyStage(t);
  if (s === undefined) return '';
  if (s !== 'mixed') return `decided by ${s}`;
  const parts: string[] = [];
  for (let k = 0; k < SERVICE_STAGES.length; k++)
    if (t[k] > 0) parts.push(`${SERVICE_STAGES[k]} ${t[k]}`);
  return `decided by ${parts.join(', ')}`;
}

/** The stages any packet of the trace names, in SERVICE_STAGES order, and whether bars mixed them. */
export function stagesPresent(total: StageTally, mixed: boolean): (ServiceStage | 'mixed')[] {
  const out: (ServiceStage | 'mixed')[] = SERVICE_STAGES.filter((_, k) => total[k] > 0);
  if (mixed) out.push('mixed');
  return out;
}

/** The strip under a bar, coloured by its deciding stage. */
export function stageStrip(
  stage: ServiceStage | 'mixed',
  x0: string,
  y: string,
  w: string,
): string {
  return (
    `<rect class="stage" x="${x0}" y="${y}" width="${w}" height="2" fill="${stageColor(stage)}" ` +
    `data-stage="${stage}"/>`
  );
}

/** The legend row naming each stage drawn: a swatch and the stage's name, 150 px apart. */
export function stageLegend(
  stages: readonly (ServiceStage | 'mixed')[],
  labelX: number,
  x0: number,
  y: number,
): string {
  const o: string[] = [`<g class="stage-legend">`];
  o.push(`<text class="ax" x="${labelX}" y="${y + 12}">strip = deciding stage</text>`);
  stages.forEach((s, k) => {
    const lx = x0 + k * 150;
    o.push(
      `<rect x="${lx}" y="${y + 6}" width="14" height="4" fill="${stageColor(s)}" data-stage="${s}"/>` +
        `<text x="${lx + 20}" y="${y + 12}">${x(s === 'mixed' ? 'mixed (several packets)' : s)}</text>`,
    );
  });
  o.push('</g>');
  return o.join('\n');
}
