/**
 * A strict, minimal XML parser for tests of generated SVG: elements, attributes, text, the
 * XML declaration and comments. Anything outside well-formed XML 1.0 (an unescaped `<` or `&`,
 * an unknown entity, an unquoted or repeated attribute, a mismatched or unclosed tag, a second
 * root, a character XML forbids) throws, naming the offset. CDATA, DOCTYPE and processing
 * instructions other than the declaration are refused: the generators emit none.
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const PREDEFINED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

function decode(raw: string, at: number): string {
  if (FORBIDDEN.test(raw)) throw new Error(`XML: forbidden character near offset ${at}`);
  return raw.replace(/&([^;]*);|&/g, (m, ent: string | undefined) => {
    if (ent === undefined) throw new Error(`XML: bare & near offset ${at}`);
    if (ent in PREDEFINED) return PREDEFINED[ent];
    const num = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ent);
    if (!num) throw new Error(`XML: unknown entity &${ent}; near offset ${at}`);
    return String.fromCodePoint(num[1] ? parseInt(num[1], 16) : parseInt(num[2], 10));
  });
}

/** Parses a whole document; returns its root element. */
export function parseXml(src: string): XmlElement {
  let i = 0;
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(src);
    if (!m) throw new Error(`XML: name expected at offset ${i}`);
    i += m[0].length;
    return m[0];
  };
  const ws = (): void => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  const misc = (): void => {
    for (;;) {
      ws();
      if (src.startsWith('<!--', i)) {
        const end = src.indexOf('-->', i + 4);
        if (end < 0) throw new Error(`XML: unclosed comment at ${i}`);
        i = end + 3;
      } else return;
    }
  };
  if (src.startsWith('<?xml', 0)) {
    const end = src.indexOf('?>');
    if (end < 0) throw new Error('XML: unclosed declaration');
    i = end + 2;
  }
  misc();
  const element = (): XmlElement => {
    if (src[i] !== '<') throw new Error(`XML: < expected at offset ${i}`);
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [] };
    for (;;) {
      const before = i;
      ws();
      if (src.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (src[i] === '>') {
        i++;
        break;
      }
      if (i === before) throw new Error(`XML: space expected before attribute at ${i}`);
      const a = name();
      ws();
      if (src[i] !== '=') throw new Error(`XML: = expected after ${a} at ${i}`);
      i++;
      ws();
      const q = src[i];
      if (q !== '"' && q !== "'") throw new Error(`XML: quoted value expected for ${a} at ${i}`);
      const end = src.indexOf(q, i + 1);
      if (end < 0) throw new Error(`XML: unclosed attribute ${a} at ${i}`);
      const raw = src.slice(i + 1, end);
      if (raw.includes('<')) throw new Error(`XML: < in attribute ${a} at ${i}`);
      if (a in el.attrs) throw new Error(`XML: repeated attribute ${a} at ${i}`);
      el.attrs[a] = decode(raw, i);
      i = end + 1;
    }
    // content
    for (;;) {
      if (i >= src.length) throw new Error(`XML: <${el.name}> not closed`);
      if (src.startsWith('</', i)) {
        i += 2;
        const close = name();
        if (close !== el.name) throw new Error(`XML: </${close}> closes <${el.name}> at ${i}`);
        ws();
        if (src[i] !== '>') throw new Error(`XML: > expected at ${i}`);
        i++;
        return el;
      }
      if (src.startsWith('<!--', i)) {
        const end = src.indexOf('-->', i + 4);
        if (end < 0) throw new Error(`XML: unclosed comment at ${i}`);
        i = end + 3;
        continue;
      }
      if (src.startsWith('<!', i) || src.startsWith('<?', i)) {
        throw new Error(`XML: unsupported markup at ${i}`);
      }
      if (src[i] === '<') {
        el.children.push(element());
        continue;
      }
      const next = src.indexOf('<', i);
      const end = next < 0 ? src.length : next;
      const raw = src.slice(i, end);
      if (raw.includes(']]>')) throw new Error(`XML: ]]> in text at ${i}`);
      el.children.push(decode(raw, i));
      i = end;
    }
  };
  const root = element();
  misc();
  if (i !== src.length) throw new Error(`XML: content after the root element at offset ${i}`);
  return root;
}

/** Every element of the tree (depth first, document order) that satisfies `pred`. */
export function findAll(root: XmlElement, pred: (e: XmlElement) => boolean): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    if (pred(e)) out.push(e);
    for (const c of e.children) if (typeof c !== 'string') walk(c);
  };
  walk(root);
  return out;
}

/** The text content of an element (all descendant text, concatenated). */
export function textOf(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

/** The class list of an element. */
export function classes(e: XmlElement): string[] {
  return (e.attrs.class ?? '').split(/\s+/).filter(Boolean);
}
