/**
 * The vocabulary of the queue-service timeline (flow/timeline.ts): the colour of each q_qos level
 * and the classes the default mapping sends there, SVG-safe text, coordinates, byte and cycle
 * labels and axis ticks.
 */
import { escapeHtml } from '../csr/docs/escape.ts';
import { DMA_QOS_CLASS_NAMES, DMAQoSClass, defaultQueueQos } from '../csr/formats/qos-class.ts';

/** Colours of q_qos 0..7 (0 = best effort, grey; higher levels warmer). */
const QOS_PALETTE = [
  '#8e9aa6',
  '#4e79a7',
  '#59a14f',
  '#f28e2b',
  '#e15759',
  '#b07aa1',
  '#9c755f',
  '#d4a017',
] as const;

/** The colour of a q_qos level: a fixed palette for 0..7, a golden-angle hue for 8..255. */
export function qosColor(qQos: number): string {
  if (qQos >= 0 && qQos < QOS_PALETTE.length) return QOS_PALETTE[qQos];
  return hslHex((qQos * 137.508) % 360, 0.55, 0.45);
}

export function hslHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): string => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/**
 * The DMAQoSClass names the default mapping (defaultQueueQos) sends to a q_qos level, with runs
 * of P classes folded: 4 -> "P0", 1 -> "P3–P14", 0 -> "Unassigned, Default"; undefined when no
 * class maps there.
 */
export function defaultQosClasses(qQos: number): string | undefined {
  const names = DMA_QOS_CLASS_NAMES.filter((n) => defaultQueueQos(DMAQoSClass[n]).qQos === qQos);
  if (names.length === 0) return undefined;
  const ps = names.filter((n) => /^P\d+$/.test(n));
  const others = names.filter((n) => !/^P\d+$/.test(n));
  const parts: string[] = [...others];
  if (ps.length === 1) parts.push(ps[0]);
  else if (ps.length > 1) parts.push(`${ps[0]}–${ps[ps.length - 1]}`);
  return parts.join(', ');
}

// ---------------------------------------------------------------------------------------------
// text and numbers

/** Text for an SVG text node or attribute: XML-escaped, characters XML 1.0 forbids replaced. */
export function x(text: string | number): string {
  return escapeHtml(
    String(text).replace(
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    ),
  );
}

export function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** A coordinate with at most two decimals, no trailing zeros. */
export function n(v: number): string {
  const r = round2(v);
  return Object.is(r, -0) ? '0' : String(r);
}

/** Bytes in binary units: "512 B", "1.5 KiB", "12.0 MiB". */
export function formatBytes(b: number): string {
  if (b < 1024) return `${b} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = b / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** A cycle count for axis labels: 950, 12k, 1.5M. */
export function formatCycles(c: number): string {
  const a = Math.abs(c);
  const trim = (s: string): string => s.replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
  if (a >= 1e9) return `${trim((c / 1e9).toFixed(2))}G`;
  if (a >= 1e6) return `${trim((c / 1e6).toFixed(2))}M`;
  if (a >= 1e3) return `${trim((c / 1e3).toFixed(1))}k`;
  return String(Math.round(c));
}

/** Tick step: 1, 2 or 5 times a power of ten, about `target` ticks over `span`. */
export function niceStep(span: number, target: number): number {
  const raw = span / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  const step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  return Math.max(1, step);
}

/** Cuts text to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}
