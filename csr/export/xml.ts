/**
 * A small XML writer for the exporters: elements with attributes, text children, two-space
 * indentation, a UTF-8 declaration. Text and attribute values are escaped (& < > " ') and
 * characters XML 1.0 forbids are replaced by U+FFFD, so schema text can never become markup.
 */

export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlChild[];
}
/** A child: an element, or text (a string or number). */
export type XmlChild = XmlElement | string | number;

/** An element; `null` / `undefined` children are dropped (optional elements). */
export function el(
  name: string,
  attrs: Record<string, string> | null,
  ...children: (XmlChild | null | undefined | false | readonly (XmlChild | null)[])[]
): XmlElement {
  const flat: XmlChild[] = [];
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) {
      for (const x of c as readonly (XmlChild | null)[]) if (x !== null) flat.push(x);
      continue;
    }
    flat.push(c as XmlChild);
  }
  return { name, attrs: attrs ?? {}, children: flat };
}

/** `<name>text</name>`, or nothing when `text` is null or undefined. */
export function leaf(name: string, text: string | number | null | undefined): XmlElement | null {
  return text === null || text === undefined ? null : el(name, null, text);
}

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udfff]/g;

function clean(s: string): string {
  // Lone surrogates are forbidden; well-formed pairs are kept.
  return s.replace(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g, (ch) =>
    ch.length === 2 ? ch : ch.replace(FORBIDDEN, '\ufffd'),
  );
}

export function escapeXml(s: string): string {
  return clean(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function write(e: XmlElement, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  const attrs = Object.entries(e.attrs)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  if (e.children.length === 0) {
    out.push(`${pad}<${e.name}${attrs}/>`);
    return;
  }
  if (e.children.every((c) => typeof c !== 'object')) {
    const text = e.children.map((c) => escapeXml(String(c))).join('');
    out.push(`${pad}<${e.name}${attrs}>${text}</${e.name}>`);
    return;
  }
  out.push(`${pad}<${e.name}${attrs}>`);
  for (const c of e.children) {
    if (typeof c === 'object') write(c, depth + 1, out);
    else out.push(`${pad}  ${escapeXml(String(c))}`);
  }
  out.push(`${pad}</${e.name}>`);
}

/** The whole document: declaration, optional leading comment, the root element, a final newline. */
export function xmlDocument(root: XmlElement, comment?: string): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  if (comment) out.push(`<!-- ${clean(comment).replace(/-(?=-)/g, '- ')} -->`);
  write(root, 0, out);
  return out.join('\n') + '\n';
}
