/**
 * The generated pages in a DOM without a browser (happy-dom): parsing them to check their
 * structure, and running their inline script (csr/docs/client/ui.js) against the parsed page.
 *
 * happy-dom does not evaluate scripts itself here: runPage runs the page's inline scripts in a
 * fresh VM context whose `document` and `window` are happy-dom's and whose `location` is a plain
 * object the test reads (so that `location.href = ...` records where the page would go instead of
 * navigating). The real browser runs the same pages in chromium.test.ts.
 */
import { runInNewContext } from 'node:vm';
import { HTMLElement, Window, type Document, type HTMLInputElement } from 'happy-dom';

/**
 * An element as the tests use it: attributes, text, `value` (inputs, selects), `hidden`,
 * `classList`. Typed as an input element because happy-dom's query methods return `Element`.
 */
export type El = HTMLInputElement;
export type Doc = Document;

interface Root {
  querySelectorAll(selector: string): Iterable<unknown>;
  querySelector(selector: string): unknown;
}

/** Every element under `root` matching `selector`, in document order, as an array. */
export function all(root: Root, selector: string): El[] {
  return [...root.querySelectorAll(selector)] as El[];
}

/** The first element under `root` matching `selector`; throws naming the selector when none. */
export function one(root: Root, selector: string): El {
  const e = root.querySelector(selector) as El | null;
  if (!e) throw new Error(`no element matches ${selector}`);
  return e;
}

/** The first element under `root` matching `selector`, or null. */
export function maybe(root: Root, selector: string): El | null {
  return root.querySelector(selector) as El | null;
}

/** The element with this id; throws naming the id when there is none. */
export function byId(doc: Doc, id: string): El {
  const e = doc.getElementById(id) as El | null;
  if (!e) throw new Error(`no element with id ${id}`);
  return e;
}

let parsing: Window | undefined;

/** Calls of focus() and scrollIntoView() per element (happy-dom's classes are shared by windows). */
const focused = new WeakMap<object, number>();
const scrolled = new WeakMap<object, number>();
function counting(m: WeakMap<object, number>, name: 'focus' | 'scrollIntoView'): void {
  const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
  const original = proto[name] as (this: object, ...a: unknown[]) => unknown;
  proto[name] = function (this: object, ...a: unknown[]) {
    m.set(this, (m.get(this) ?? 0) + 1);
    return original.apply(this, a);
  };
}
counting(focused, 'focus');
counting(scrolled, 'scrollIntoView');

/** Parses an HTML document (or fragment, e.g. an inline SVG) as a browser would. */
export function parseHtml(html: string): Doc {
  parsing ??= new Window();
  return new parsing.DOMParser().parseFromString(html, 'text/html') as unknown as Doc;
}

export interface PageLocation {
  hash: string;
  search: string;
  href: string;
}

export interface PageRun {
  readonly document: Doc;
  readonly window: Window;
  readonly location: PageLocation;
  /** Sets an input's value as typing would, and fires `input` (and `change` when asked). */
  type(el: El, value: string, change?: boolean): void;
  click(el: El): void;
  key(el: El, key: string): void;
  /** Fires `change` on `el` (after a selection was made by setting its value). */
  change(el: El): void;
  /** Changes location.hash and fires hashchange. */
  navigate(hash: string): void;
  /** How often the page's script called focus() / scrollIntoView() on `el`. */
  focusCount(el: El): number;
  scrollCount(el: El): number;
}

/**
 * Parses a generated page and runs its inline (non-JSON) scripts. `url` gives location.search
 * and location.hash.
 */
export function runPage(html: string, url: { search?: string; hash?: string } = {}): PageRun {
  const window = new Window({ url: 'file:///site/html/page.html' });
  const document = window.document as unknown as Doc;
  document.write(html);
  const location: PageLocation = { hash: url.hash ?? '', search: url.search ?? '', href: '' };
  const scripts = all(document, 'script').filter(
    (s) => (s.getAttribute('type') ?? 'text/javascript') === 'text/javascript',
  );
  const context = { document, window, location, console };
  for (const s of scripts) runInNewContext(s.textContent, context);
  const fire = (el: El, type: string) =>
    el.dispatchEvent(new window.Event(type, { bubbles: true }));
  return {
    document,
    window,
    location,
    type(el, value, change = false) {
      el.value = value;
      fire(el, 'input');
      if (change) fire(el, 'change');
    },
    click(el) {
      el.dispatchEvent(new window.MouseEvent('click', { bubbles: true, cancelable: true }));
    },
    key(el, key) {
      el.dispatchEvent(
        new window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }),
      );
    },
    change(el) {
      fire(el, 'change');
    },
    navigate(hash) {
      location.hash = hash;
      window.dispatchEvent(new window.HashChangeEvent('hashchange'));
    },
    focusCount: (el) => focused.get(el) ?? 0,
    scrollCount: (el) => scrolled.get(el) ?? 0,
  };
}
