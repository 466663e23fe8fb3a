/**
 * XML for tests of generated SVG and register interchange files, read with fast-xml-parser: the
 * document is first checked for well-formedness (XMLValidator: tags closed and nested, attributes
 * quoted and not repeated, a single root, no entity XML does not define), then parsed in document order into a small tree of
 * elements, attributes and text. Entities are decoded once; comments are dropped.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const TEXT = '#text';
const ATTRS = ':@';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  // Numeric character references (&#xfffd;); named ones other than XML's five are refused first.
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  textNodeName: TEXT,
});

type Ordered = Record<string, unknown>;

function toNode(o: Ordered): XmlNode | null {
  const name = Object.keys(o).find((k) => k !== ATTRS);
  if (name === undefined) return null;
  if (name === TEXT) return String(o[TEXT]);
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries((o[ATTRS] ?? {}) as Record<string, unknown>))
    attrs[k] = String(v);
  const children = (o[name] as Ordered[]).map(toNode).filter((n): n is XmlNode => n !== null);
  return { name, attrs, children };
}

/** Parses a whole document; returns its root element. Malformed XML throws with line:column. */
export function parseXml(src: string): XmlElement {
  const ok = XMLValidator.validate(src, { allowBooleanAttributes: false });
  if (ok !== true) throw new Error(`XML ${ok.err.line}:${ok.err.col}: ${ok.err.msg}`);
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)[^;\s]*;?/.exec(src);
  if (entity) throw new Error(`XML: ${entity[0]} is not an XML entity (offset ${entity.index})`);
  const roots = (parser.parse(src) as Ordered[])
    .map(toNode)
    .filter((n): n is XmlElement => n !== null && typeof n !== 'string');
  if (roots.length !== 1) throw new Error(`XML: ${roots.length} root elements`);
  return roots[0];
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
