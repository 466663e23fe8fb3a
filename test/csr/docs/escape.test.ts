import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  escapeMarkdown,
  jsonForScript,
  markdownCode,
} from '../../../csr/docs/escape.ts';
import type { PageData } from '../../../csr/docs/client.ts';
import { buildFixture, fixtureModel } from './helpers.ts';
import { all, byId, one, parseHtml, runPage } from './dom.ts';

const TITLE = 'Site <script>alert("title")</script>';
const build = buildFixture('hostile.json', { title: TITLE });
const model = fixtureModel('hostile.json');

/** Every free text of the fixture schema that carries markup. */
function hostileTexts(): string[] {
  const out = [model.description];
  for (const b of model.blocks) out.push(b.description, b.provenanceNote ?? '');
  for (const r of [...model.blocks.flatMap((b) => b.registers), ...model.registers]) {
    out.push(r.description, r.provenanceNote ?? '');
    for (const f of r.fields) {
      out.push(f.description, f.provenanceNote ?? '');
      for (const e of f.enums) out.push(e.description);
    }
  }
  for (const g of model.knownGaps) out.push(g.name, g.description);
  return out.filter((t) => /[<>"']/.test(t));
}

describe('schema text is rendered inert', () => {
  it('the fixture really carries markup in every kind of text', () => {
    expect(hostileTexts().length).toBeGreaterThanOrEqual(12);
    expect(model.knownGaps[0].name).toContain('<script>');
  });

  it('HTML: a description containing <script> is escaped, no element or attribute comes from a schema', () => {
    for (const f of build.files.filter((x) => x.path.endsWith('.html'))) {
      expect(f.content, f.path).not.toMatch(/<script>alert|<img|<iframe|<svg onload|<style>body/i);
      const doc = parseHtml(f.content);
      // Exactly the page's own two scripts: the JSON data and the code.
      expect(all(doc, 'script').map((s) => s.getAttribute('type'))).toEqual([
        'application/json',
        null,
      ]);
      for (const el of all(doc, '*')) {
        expect(['img', 'iframe', 'b'], `${f.path}: <${el.localName}>`).not.toContain(el.localName);
        for (const name of el.getAttributeNames()) expect(name, f.path).not.toMatch(/^on/i);
      }
      expect(
        one(doc, 'title').textContent.startsWith('Site <script>') ||
          one(doc, 'title').textContent.includes(' · Site <script>'),
      ).toBe(true);
    }
    const page = build.files.find((f) => f.path === 'html/hostile.html')!.content;
    expect(page).toContain('Register &lt;script&gt;alert(&#39;reg&#39;)&lt;/script&gt;');
    const doc = parseHtml(page);
    // The text reads back exactly as the schema wrote it.
    const ctrl = model.blocks[0].registers.find((r) => r.name === 'ctrl')!;
    expect(byId(doc, 'BLK.ctrl').querySelector('p.desc')!.textContent).toBe(ctrl.description);
  });

  it('HTML: the embedded JSON cannot close its script element and parses back to the schema text', () => {
    const page = build.files.find((f) => f.path === 'html/hostile.html')!.content;
    const doc = parseHtml(page);
    const raw = byId(doc, 'nxdma-data').textContent;
    expect(raw).not.toMatch(/<\/script|<!--|[<>]/i);
    const data = JSON.parse(raw) as PageData;
    const gap = data.search.gaps[0];
    expect(gap.name).toBe(model.knownGaps[0].name);
    expect(data.search.files[0].blocks[0].regs[0].text).toContain("<script>alert('reg')</script>");
  });

  it('HTML: the page script shows hostile search input and schema text as text only', () => {
    const page = build.files.find((f) => f.path === 'html/hostile.html')!.content;
    const run = runPage(page);
    const box = byId(run.document, 'search');
    const results = byId(run.document, 'search-results');
    run.type(box, '<img src=x onerror=alert(1)>');
    expect(results.hidden).toBe(false);
    expect(all(results, 'img')).toHaveLength(0);
    expect(results.textContent).toContain('<img src=x onerror=alert(1)>');
    run.type(box, 'alert gap');
    const hits = all(results, 'a');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((a) => a.textContent).join(' ')).toContain(
      "q_qos<script>alert('gapname')</script>",
    );
    expect(all(results, 'script')).toHaveLength(0);
  });

  it('Markdown: schema text is HTML-escaped and cannot open a tag, a link or a table cell', () => {
    for (const f of build.files.filter((x) => x.path.endsWith('.md'))) {
      // The only tags are the generator's own anchors.
      const tags = f.content.match(/<[a-z/!][^>]*>/gi) ?? [];
      for (const t of tags) expect(t, f.path).toMatch(/^(<a id="[^"<>]*">|<\/a>)$/);
      // Brackets from a schema are escaped, so no link or image syntax survives.
      expect(f.content).not.toMatch(/(?<!\\)\]\((javascript:|http:\/\/example)/);
    }
    const md = build.files.find((f) => f.path === 'md/hostile.md')!.content;
    expect(md).toContain('\\[x\\](javascript:');
    expect(md).toContain('Register &lt;script&gt;alert(');
    // Every table row has as many cells as its header (no "|" from a description splits a cell).
    const gaps = build.files.find((f) => f.path === 'md/gaps.md')!.content.split('\n');
    const row = gaps.find((l) => l.includes('Gap &lt;script&gt;'))!;
    expect(row.replace(/\\\|/g, '').split('|').length).toBe(7);
  });

  it('SVG diagrams carry no schema text', () => {
    for (const f of build.files.filter((x) => x.path.endsWith('.svg'))) {
      expect(f.content).not.toMatch(/alert|<script|onload/i);
    }
  });
});

describe('escaping helpers', () => {
  it('escapeHtml escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    expect(escapeHtml(42)).toBe('42');
  });

  it('escapeMarkdown folds lines, escapes Markdown syntax and HTML, keeps intraword underscores', () => {
    expect(escapeMarkdown('dwrr_cfg_2 | *x* [l](u) `c`\n<b>&')).toBe(
      'dwrr_cfg_2 \\| \\*x\\* \\[l\\](u) \\`c\\` &lt;b&gt;&amp;',
    );
    expect(escapeMarkdown('_lead and trail_')).toBe('\\_lead and trail\\_');
  });

  it('markdownCode keeps names in a code span and writes anything else as escaped text', () => {
    expect(markdownCode('M2S_Q[3].dwrr_cfg_2')).toBe('`M2S_Q[3].dwrr_cfg_2`');
    expect(markdownCode('x`<y>|')).toBe('x\\`&lt;y&gt;\\|');
  });

  it('jsonForScript round-trips and never contains <, > or &', () => {
    const v = { a: '</script><!-- & \u2028 \u2029 >' };
    const s = jsonForScript(v);
    expect(s).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(s)).toEqual(v);
  });
});
