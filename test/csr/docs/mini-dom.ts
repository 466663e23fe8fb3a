/**
 * A small HTML parser and DOM, enough to check the structure of the generated pages and to run
 * their inline script (csr/docs/client/ui.js) when no browser is available: elements, text,
 * attributes, getElementById, querySelector(All) with simple selectors (tag, #id, .class, [attr],
 * [attr="v"], compounds and the descendant combinator), textContent, value, hidden, classList,
 * events with bubbling, createElement.
 */
import { runInNewContext } from 'node:vm';

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
const RAW = new Set(['script', 'style']);

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, ent: string) => {
    const l = ent.toLowerCase();
    if (l === 'amp') return '&';
    if (l === 'lt') return '<';
    if (l === 'gt') return '>';
    if (l === 'quot') return '"';
    if (l === 'apos') return "'";
    if (l.startsWith('#x')) return String.fromCodePoint(parseInt(l.slice(2), 16));
    return String.fromCodePoint(parseInt(l.slice(1), 10));
  });
}

export interface MiniEvent {
  type: string;
  target: MElement | null;
  key?: string;
  defaultPrevented: boolean;
  preventDefault(): void;
}

type Listener = (ev: MiniEvent) => void;

class Listeners {
  private map = new Map<string, Listener[]>();
  addEventListener(type: string, fn: Listener): void {
    const l = this.map.get(type) ?? [];
    l.push(fn);
    this.map.set(type, l);
  }
  removeEventListener(type: string, fn: Listener): void {
    this.map.set(
      type,
      (this.map.get(type) ?? []).filter((f) => f !== fn),
    );
  }
  fire(ev: MiniEvent): void {
    for (const fn of [...(this.map.get(ev.type) ?? [])]) fn(ev);
  }
}

export class MText {
  parentNode: MElement | null = null;
  constructor(public data: string) {}
  get textContent(): string {
    return this.data;
  }
}

export type MNode = MElement | MText;

interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  attrs: { name: string; value: string | null }[];
}

function parseCompound(s: string): Compound {
  const c: Compound = { tag: null, id: null, classes: [], attrs: [] };
  const re = /([a-zA-Z][\w-]*)|#([\w.[\]-]+)|\.([\w-]+)|\[([\w-]+)(?:="([^"]*)")?\]/y;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) throw new Error(`unsupported selector: ${s}`);
    if (m[1]) c.tag = m[1].toLowerCase();
    else if (m[2]) c.id = m[2];
    else if (m[3]) c.classes.push(m[3]);
    else c.attrs.push({ name: m[4], value: m[5] ?? null });
    i = re.lastIndex;
  }
  return c;
}

function matches(el: MElement, c: Compound): boolean {
  if (c.tag && el.localName !== c.tag) return false;
  if (c.id !== null && el.getAttribute('id') !== c.id) return false;
  for (const k of c.classes) if (!el.classList.contains(k)) return false;
  for (const a of c.attrs) {
    const v = el.getAttribute(a.name);
    if (v === null || (a.value !== null && v !== a.value)) return false;
  }
  return true;
}

function matchesSelector(el: MElement, chain: Compound[]): boolean {
  if (!matches(el, chain[chain.length - 1])) return false;
  let i = chain.length - 2;
  let p = el.parentNode;
  while (i >= 0 && p) {
    if (matches(p, chain[i])) i--;
    p = p.parentNode;
  }
  return i < 0;
}

export class MElement extends Listeners {
  parentNode: MElement | null = null;
  childNodes: MNode[] = [];
  readonly attributes = new Map<string, string>();
  readonly localName: string;
  ownerDocument: MDocument | null = null;
  private valueSet: string | null = null;
  focused = 0;
  scrolled = 0;

  constructor(name: string) {
    super();
    this.localName = name.toLowerCase();
  }

  get tagName(): string {
    return this.localName.toUpperCase();
  }

  get children(): MElement[] {
    return this.childNodes.filter((n): n is MElement => n instanceof MElement);
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name.toLowerCase()) ?? null;
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name.toLowerCase(), String(value));
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name.toLowerCase());
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name.toLowerCase());
  }

  get id(): string {
    return this.getAttribute('id') ?? '';
  }

  get classList() {
    const get = () => (this.getAttribute('class') ?? '').split(/\s+/).filter(Boolean);
    const set = (l: string[]) => this.setAttribute('class', l.join(' '));
    return {
      contains: (c: string) => get().includes(c),
      add: (c: string) => {
        if (!get().includes(c)) set([...get(), c]);
      },
      remove: (c: string) => set(get().filter((x) => x !== c)),
      toggle: (c: string) => {
        if (get().includes(c)) set(get().filter((x) => x !== c));
        else set([...get(), c]);
      },
    };
  }

  get hidden(): boolean {
    return this.hasAttribute('hidden');
  }
  set hidden(v: boolean) {
    if (v) this.setAttribute('hidden', '');
    else this.removeAttribute('hidden');
  }

  get textContent(): string {
    return this.childNodes.map((n) => n.textContent).join('');
  }
  set textContent(v: string) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = [];
    if (v !== '') this.appendChild(new MText(String(v)));
  }

  get value(): string {
    if (this.localName === 'select') {
      const opts = this.querySelectorAll('option');
      const sel = opts.find((o) => o.hasAttribute('selected')) ?? opts[0];
      return sel ? (sel.getAttribute('value') ?? sel.textContent) : '';
    }
    return this.valueSet ?? this.getAttribute('value') ?? '';
  }
  set value(v: string) {
    if (this.localName === 'select') {
      for (const o of this.querySelectorAll('option')) {
        if ((o.getAttribute('value') ?? o.textContent) === v) o.setAttribute('selected', '');
        else o.removeAttribute('selected');
      }
      return;
    }
    this.valueSet = String(v);
  }

  appendChild<T extends MNode>(n: T): T {
    if (n.parentNode) {
      const p = n.parentNode;
      p.childNodes = p.childNodes.filter((x) => x !== n);
    }
    n.parentNode = this;
    this.childNodes.push(n);
    return n;
  }

  /** Every element below this one, in document order. */
  descendants(): MElement[] {
    const out: MElement[] = [];
    const walk = (e: MElement) => {
      for (const c of e.children) {
        out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }

  querySelectorAll(selector: string): MElement[] {
    const groups = selector.split(',').map((g) => g.trim().split(/\s+/).map(parseCompound));
    return this.descendants().filter((d) => groups.some((g) => matchesSelector(d, g)));
  }

  querySelector(selector: string): MElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }

  dispatchEvent(ev: MiniEvent): boolean {
    ev.target ??= this;
    for (let n: MElement | null = this; n; n = n.parentNode) n.fire(ev);
    this.ownerDocument?.fire(ev);
    return !ev.defaultPrevented;
  }

  focus(): void {
    this.focused++;
  }
  scrollIntoView(): void {
    this.scrolled++;
  }
}

export class MDocument extends Listeners {
  readonly root = new MElement('#root');
  constructor() {
    super();
    this.root.ownerDocument = this;
  }
  get documentElement(): MElement | null {
    return this.root.children[0] ?? null;
  }
  get body(): MElement | null {
    return this.root.querySelector('body');
  }
  getElementById(id: string): MElement | null {
    return this.root.descendants().find((e) => e.getAttribute('id') === id) ?? null;
  }
  querySelectorAll(s: string): MElement[] {
    return this.root.querySelectorAll(s);
  }
  querySelector(s: string): MElement | null {
    return this.root.querySelector(s);
  }
  createElement(tag: string): MElement {
    const e = new MElement(tag);
    e.ownerDocument = this;
    return e;
  }
  createTextNode(text: string): MText {
    return new MText(text);
  }
}

/** Parses an HTML document (as the generator writes it: well-formed, quoted attributes). */
export function parseHtml(html: string): MDocument {
  const doc = new MDocument();
  const stack: MElement[] = [doc.root];
  const top = () => stack[stack.length - 1];
  let i = 0;
  const text = (s: string) => {
    if (s) top().appendChild(new MText(decodeEntities(s)));
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith('<!', lt)) {
      i = html.indexOf('>', lt) + 1;
      continue;
    }
    if (html.startsWith('</', lt)) {
      const end = html.indexOf('>', lt);
      const name = html
        .slice(lt + 2, end)
        .trim()
        .toLowerCase();
      const at = stack.map((e) => e.localName).lastIndexOf(name);
      if (at > 0) stack.length = at;
      i = end + 1;
      continue;
    }
    const tagRe = /<([a-zA-Z][\w:-]*)/y;
    tagRe.lastIndex = lt;
    const tm = tagRe.exec(html);
    if (!tm) {
      text('<');
      i = lt + 1;
      continue;
    }
    const el = doc.createElement(tm[1]);
    let j = tagRe.lastIndex;
    const attrRe = /\s*(?:([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?)?/y;
    let selfClosing = false;
    for (;;) {
      attrRe.lastIndex = j;
      const am = attrRe.exec(html)!;
      j = attrRe.lastIndex;
      if (am[1]) {
        const v = am[2] ?? am[3] ?? am[4] ?? '';
        el.attributes.set(am[1].toLowerCase(), decodeEntities(v));
        continue;
      }
      if (html.startsWith('/>', j)) {
        selfClosing = true;
        j += 2;
        break;
      }
      if (html[j] === '>') {
        j += 1;
        break;
      }
      if (j >= html.length) break;
      j++; // stray character
    }
    top().appendChild(el);
    i = j;
    if (selfClosing || VOID.has(el.localName)) continue;
    if (RAW.has(el.localName)) {
      const close = html.toLowerCase().indexOf(`</${el.localName}`, i);
      const end = close < 0 ? html.length : close;
      if (end > i) el.appendChild(new MText(html.slice(i, end)));
      i = close < 0 ? html.length : html.indexOf('>', close) + 1;
      continue;
    }
    stack.push(el);
  }
  return doc;
}

export function makeEvent(type: string, init: { key?: string } = {}): MiniEvent {
  const ev: MiniEvent = {
    type,
    target: null,
    key: init.key,
    defaultPrevented: false,
    preventDefault() {
      ev.defaultPrevented = true;
    },
  };
  return ev;
}

export interface PageRun {
  readonly document: MDocument;
  readonly window: Listeners & { location: MiniLocation };
  readonly location: MiniLocation;
  /** Sets an input's value as typing would, and fires `input` (and `change` when asked). */
  type(el: MElement, value: string, change?: boolean): void;
  click(el: MElement): void;
  key(el: MElement, key: string): void;
  /** Changes location.hash and fires hashchange. */
  navigate(hash: string): void;
}

export interface MiniLocation {
  hash: string;
  search: string;
  href: string;
}

/**
 * Parses a generated page and runs its inline (non-JSON) scripts in a fresh VM context whose
 * document is the parsed page. `url` gives location.search and location.hash.
 */
export function runPage(html: string, url: { search?: string; hash?: string } = {}): PageRun {
  const document = parseHtml(html);
  const location: MiniLocation = { hash: url.hash ?? '', search: url.search ?? '', href: '' };
  const win = Object.assign(new Listeners(), { location });
  const scripts = document
    .querySelectorAll('script')
    .filter((s) => (s.getAttribute('type') ?? 'text/javascript') === 'text/javascript');
  const context = { document, window: win, location, console };
  for (const s of scripts) runInNewContext(s.textContent, context);
  return {
    document,
    window: win,
    location,
    type(el, value, change = false) {
      el.value = value;
      el.dispatchEvent(makeEvent('input'));
      if (change) el.dispatchEvent(makeEvent('change'));
    },
    click(el) {
      el.dispatchEvent(makeEvent('click'));
    },
    key(el, key) {
      el.dispatchEvent(makeEvent('keydown', { key }));
    },
    navigate(hash) {
      location.hash = hash;
      win.fire(makeEvent('hashchange'));
    },
  };
}
