/**
 * The generated site in a real browser: headless Chromium (Debian's /usr/bin/chromium, which
 * `.ci/run` installs when it is missing) driven with playwright-core opens the pages from the
 * file system, runs their script (search, decoder) and the test reads the resulting DOM. Pages
 * opened at a register are also looked at: their screenshots (kept under test/artifacts/,
 * gitignored) must show that register where the page's layout puts it, not a blank page.
 *
 * Without the browser these tests FAIL (they never skip): install it with
 * `apt-get install chromium`. The same pages also run without a browser in page.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDocs } from '../../../csr/docs/index.ts';
import { shippedBuild } from './helpers.ts';
import { countColour, cssRgb, decodePng, inkShare, type Box, type Png } from './png.ts';

const CHROMIUM = '/usr/bin/chromium';
/** The switches the browser runs with (a fresh --user-data-dir is given by the launch). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Start-up of a browser on a loaded 2-core machine, and one page's work. */
const LAUNCH_MS = 120_000;
const PAGE_MS = 60_000;
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
const VIEWPORT = { width: 1280, height: 1600 };
/**
 * Least share of pixels off the background colour in a screenshot and in the register's box:
 * 0 for a blank render, about 0.1 and more for the docs' text, tables and diagrams.
 */
const MIN_INK = 0.02;

/** Where things are on a page opened at `anchor`, as its layout has them (CSS pixels). */
interface Shown {
  readonly scrollTop: number;
  readonly viewport: { readonly width: number; readonly height: number };
  readonly headerBottom: number;
  readonly section: {
    readonly box: Box;
    readonly hit: boolean;
    readonly borderLeft: string;
    readonly word: string | null;
    readonly codec: { readonly box: Box; readonly raw: string } | null;
  } | null;
  readonly search: { readonly hidden: boolean; readonly first: string | null; readonly box: Box };
}

function shownExpression(anchor: string): string {
  return `(() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, width: r.width, height: r.height }; };
    const t = document.getElementById(${JSON.stringify(anchor)});
    const sec = t && t.closest('section.reg');
    const sel = sec && sec.querySelector('select.inst');
    const codec = sec && sec.querySelector('.codec');
    const list = document.getElementById('search-results');
    const first = list.querySelector('a');
    return {
      scrollTop: document.scrollingElement.scrollTop,
      viewport: { width: innerWidth, height: innerHeight },
      headerBottom: document.querySelector('header.top').getBoundingClientRect().bottom,
      section: sec && {
        box: box(sec),
        hit: sec.classList.contains('hit'),
        borderLeft: getComputedStyle(sec).borderLeftColor,
        word: sel ? sel.value : null,
        codec: codec && { box: box(codec), raw: codec.querySelector('input.raw').value },
      },
      search: { hidden: list.hidden, first: first && first.getAttribute('href'), box: box(list) },
    };
  })()`;
}

/** The part of `b` the reader sees: below the sticky header, inside the viewport. */
function visiblePart(b: Box, shown: Shown): Box {
  const top = Math.max(b.y, shown.headerBottom);
  const bottom = Math.min(b.y + b.height, shown.viewport.height);
  return { x: b.x, y: top, width: b.width, height: Math.max(0, bottom - top) };
}

/**
 * The screenshot is the viewport, not blank, and shows the register's section where the layout
 * puts it: ink inside its box, and its left border drawn in the border's computed colour.
 */
function expectSectionShown(png: Png, shown: Shown): void {
  const sec = shown.section!;
  expect([png.width, png.height]).toEqual([shown.viewport.width, shown.viewport.height]);
  expect(inkShare(png)).toBeGreaterThan(MIN_INK);
  const seen = visiblePart(sec.box, shown);
  expect(seen.height).toBeGreaterThan(shown.viewport.height / 4);
  expect(inkShare(png, seen)).toBeGreaterThan(MIN_INK);
  const edge = { x: Math.floor(sec.box.x) - 1, y: seen.y + 10, width: 3, height: seen.height - 20 };
  expect(countColour(png, cssRgb(sec.borderLeft), edge)).toBeGreaterThanOrEqual(edge.height * 0.9);
}

describe('the site in headless Chromium', () => {
  let dir = '';
  let profile = '';
  let browser: BrowserContext | undefined;
  /** Why the browser could not be started: every test then fails with it (none skips). */
  let unavailable: Error | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nxdma-docs-'));
    profile = mkdtempSync(join(tmpdir(), 'nxdma-chromium-'));
    writeDocs(shippedBuild(), dir);
    if (!existsSync(CHROMIUM)) {
      unavailable = new Error(
        `${CHROMIUM} is missing: the browser tests need it (apt-get install chromium; .ci/run installs it)`,
      );
      return;
    }
    try {
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        viewport: VIEWPORT,
        deviceScaleFactor: 1,
        colorScheme: 'light',
        offline: true,
        timeout: LAUNCH_MS,
      });
    } catch (e) {
      unavailable = new Error(`cannot start ${CHROMIUM}: ${(e as Error).message}`);
    }
  }, LAUNCH_MS);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (profile) rmSync(profile, { recursive: true, force: true });
  }, LAUNCH_MS);

  function page(name: string, query: string): string {
    return `${pathToFileURL(join(dir, 'html', name)).href}${query}`;
  }

  /** Opens `url` in a new tab, waits for its load and two painted frames, and runs `fn` on it. */
  async function inTab<T>(url: string, fn: (tab: Page) => Promise<T>): Promise<T> {
    if (unavailable || !browser) throw unavailable ?? new Error('the browser was not started');
    const tab = await browser.newPage();
    try {
      await tab.goto(url, { waitUntil: 'load', timeout: PAGE_MS });
      await tab.evaluate(
        'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))',
      );
      return await fn(tab);
    } finally {
      await tab.close();
    }
  }

  it('search: 0x1084 lists M2S_Q[0].dwrr_cfg_2 first', { timeout: PAGE_MS }, async () => {
    const shown = await inTab(
      page('index.html', '?q=0x1084'),
      (tab) =>
        tab.evaluate(`(() => {
          const list = document.getElementById('search-results');
          const a = list.querySelector('a');
          return { hidden: list.hidden, first: a && a.getAttribute('href') };
        })()`) as Promise<{ hidden: boolean; first: string | null }>,
    );
    expect(shown.hidden).toBe(false);
    expect(shown.first).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
  });

  it(
    'decoder: a value given in the URL is decoded into named fields',
    { timeout: PAGE_MS },
    async () => {
      const shown = await inTab(
        page('udma_m2s.html', '?decode=M2S_dwrr.cfg_sched:0x00030111'),
        (tab) =>
          tab.evaluate(`(() => {
            const c = [...document.querySelectorAll('.codec')].find(
              (x) => x.getAttribute('data-reg') === 'M2S_dwrr.cfg_sched',
            );
            return {
              alt: c.querySelector('.alt').textContent,
              enums: [...c.querySelectorAll('td.en')].map((td) => td.textContent),
            };
          })()`) as Promise<{ alt: string; enums: string[] }>,
      );
      expect(shown.alt).toContain(`dec ${0x00030111}`);
      expect(shown.enums).toContain('dwrr');
      expect(shown.enums).toContain('packet');
    },
  );

  describe('pages opened at a register, seen in screenshots', () => {
    /** Opens the page, reads where `anchor`'s section is, keeps and returns the screenshot. */
    async function look(
      name: string,
      query: string,
      anchor: string,
      artifact: string,
    ): Promise<{ shown: Shown; png: Png }> {
      return inTab(page(name, query), async (tab) => {
        const shown = (await tab.evaluate(shownExpression(anchor))) as Shown;
        const shot = await tab.screenshot({ type: 'png' });
        mkdirSync(ARTIFACTS, { recursive: true });
        writeFileSync(join(ARTIFACTS, artifact), shot);
        return { shown, png: decodePng(shot) };
      });
    }

    it(
      'a fragment naming one word: that register at the top, highlighted, the word selected',
      { timeout: PAGE_MS },
      async () => {
        const word = 'M2S_Q[3].dwrr_cfg_2';
        const { shown, png } = await look(
          'udma_m2s.html',
          `#${word}`,
          'M2S_Q.dwrr_cfg_2',
          'docs-udma_m2s-fragment.png',
        );
        const sec = shown.section!;
        expect(sec).not.toBeNull();
        expect(shown.scrollTop).toBeGreaterThan(0);
        // Right under the sticky header, not hidden by it.
        expect(sec.box.y).toBeGreaterThanOrEqual(shown.headerBottom - 1);
        expect(sec.box.y).toBeLessThan(shown.viewport.height / 8);
        expect(sec.hit).toBe(true);
        expect(sec.word).toBe(word);
        expectSectionShown(png, shown);
      },
    );

    it(
      '?q= and ?decode=: the decoder filled and in view, the search results over the page',
      { timeout: PAGE_MS },
      async () => {
        const { shown, png } = await look(
          'udma_m2s.html',
          '?q=0x1084&decode=M2S_dwrr.cfg_sched:0x00030111',
          'M2S_dwrr.cfg_sched',
          'docs-udma_m2s.png',
        );
        const sec = shown.section!;
        expect(sec).not.toBeNull();
        expect(shown.scrollTop).toBeGreaterThan(0);
        expect(sec.codec!.raw).toBe('0x00030111');
        const codec = sec.codec!.box;
        expect(codec.y).toBeGreaterThanOrEqual(shown.headerBottom - 1);
        expect(codec.y + codec.height).toBeLessThanOrEqual(shown.viewport.height);
        expect(shown.search.hidden).toBe(false);
        expect(shown.search.first).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
        expectSectionShown(png, shown);
        expect(inkShare(png, codec)).toBeGreaterThan(MIN_INK);
        expect(inkShare(png, shown.search.box)).toBeGreaterThan(MIN_INK);
      },
    );
  });
});
