/**
 * One bit-field diagram per register, rendered at build time with the `bit-field` package
 * (WaveDrom's renderer: `bit-field/lib/render` builds an onml tree, `onml` stringifies it).
 *
 * Layout: two lanes of 16 bits (bits 31..16 above 15..0), field names trimmed to their boxes (the
 * field table next to the diagram has the full names), the reset value under each field when a
 * source states it. Bits no field covers are drawn as grey gaps; inferred fields are tinted amber.
 * A white background keeps the lines visible on dark pages.
 */
import { createRequire } from 'node:module';
import type { RegisterModel } from '../schema/model.ts';
import { escapeHtml } from './escape.ts';
import { valueText } from './data.ts';

/** An entry of bit-field's input: `bits` wide, from the previous entry's end. */
interface BitFieldEntry {
  bits: number;
  name?: string;
  attr?: string | string[];
  type?: number;
}

interface BitFieldOptions {
  hspace?: number;
  vspace?: number;
  lanes?: number;
  bits?: number;
  fontsize?: number;
  fontfamily?: string;
  trim?: number;
  compact?: boolean;
}

/** An onml tree: [tag, attributes?, ...children]. */
type OnmlNode = [string, ...unknown[]];

const require = createRequire(import.meta.url);
const render = require('bit-field/lib/render') as (
  desc: BitFieldEntry[],
  opt: BitFieldOptions,
) => OnmlNode;
const onml = require('onml') as { stringify(tree: unknown, indent?: number): string };

/** bit-field's type 5: amber (the colour of the "inferred" badge). */
const INFERRED_TYPE = 5;

export const DIAGRAM_OPTIONS: Readonly<BitFieldOptions> = Object.freeze({
  hspace: 800,
  lanes: 2,
  bits: 32,
  fontsize: 12,
  fontfamily: 'sans-serif',
  trim: 7.2,
});

/** bit-field's input for a register: its fields in bit order, gaps filled with unnamed entries. */
export function bitFieldEntries(reg: RegisterModel): BitFieldEntry[] {
  const out: BitFieldEntry[] = [];
  let next = 0;
  if (reg.fields.length === 0) {
    return [{ bits: 32, name: 'whole word (no fields known)', attr: reg.access }];
  }
  for (const f of reg.fields) {
    if (f.lsb > next) out.push({ bits: f.lsb - next });
    const e: BitFieldEntry = { bits: f.width, name: f.name };
    if (f.resetKnown) e.attr = valueText(f.reset);
    if (f.inferred) e.type = INFERRED_TYPE;
    out.push(e);
    next = f.msb + 1;
  }
  if (next < 32) out.push({ bits: 32 - next });
  return out;
}

/**
 * Attribute values in the onml tree, escaped: onml writes them as given, and bit-field copies a
 * field's name into a `field` attribute. (Text nodes are escaped by bit-field itself, via tspan.)
 */
function escapeAttributes(node: unknown): void {
  if (!Array.isArray(node)) return;
  const attrs: unknown = node[1];
  if (attrs && typeof attrs === 'object' && !Array.isArray(attrs)) {
    const a = attrs as Record<string, unknown>;
    for (const k of Object.keys(a)) {
      if (typeof a[k] === 'string') a[k] = escapeHtml(a[k]);
    }
  }
  for (let i = 1; i < node.length; i++) escapeAttributes(node[i]);
}

const cache = new WeakMap<RegisterModel, Map<string, string>>();

/**
 * The SVG text of a register's diagram (a standalone document: it carries its xmlns). `title`
 * labels it (default "<name> bit fields"). Rendered once per register and title.
 */
export function registerDiagram(reg: RegisterModel, title?: string): string {
  const label = escapeHtml(title ?? `${reg.name} bit fields`);
  let byTitle = cache.get(reg);
  if (!byTitle) {
    byTitle = new Map();
    cache.set(reg, byTitle);
  }
  let svg = byTitle.get(label);
  if (svg === undefined) {
    svg = renderDiagram(reg, label);
    byTitle.set(label, svg);
  }
  return svg;
}

function renderDiagram(reg: RegisterModel, label: string): string {
  const tree = render(bitFieldEntries(reg), { ...DIAGRAM_OPTIONS });
  escapeAttributes(tree);
  const svgAttrs = tree[1] as Record<string, unknown>;
  svgAttrs.role = 'img';
  svgAttrs['aria-label'] = label;
  svgAttrs.class = 'bitfield';
  // A background under everything else, and a <title> for tooltips and screen readers.
  tree.splice(
    2,
    0,
    ['title', {}, label],
    ['rect', { width: '100%', height: '100%', fill: '#ffffff' }],
  );
  return onml.stringify(tree);
}
