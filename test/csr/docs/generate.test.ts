import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hex } from '../../../common/errors.ts';
import { buildDocs, parseFormats } from '../../../csr/docs/index.ts';
import { pageRegisters, registerAnchor, svgPath } from '../../../csr/docs/data.ts';
import { REGFILE_NAMES, schemaDisplayPath, schemaPath } from '../../../csr/schema/files.ts';
import { parseRegFile } from '../../../csr/schema/loader.ts';
import { NxdmaError } from '../../../common/errors.ts';
import { fileOf, shippedBuild, shippedModels, trn2Unit } from './helpers.ts';
import { all, byId, maybe, one, parseHtml, type Doc } from './dom.ts';

const build = shippedBuild();
const models = shippedModels();
const pages = new Map<string, Doc>();
function page(path: string): Doc {
  let d = pages.get(path);
  if (!d) {
    d = parseHtml(fileOf(build, path));
    pages.set(path, d);
  }
  return d;
}

describe('nxdma docs: generation for the three register files', () => {
  it('writes an index, a page per register file and the gaps page, in both formats', () => {
    const paths = build.files.map((f) => f.path);
    for (const name of REGFILE_NAMES) {
      expect(paths).toContain(`html/${name}.html`);
      expect(paths).toContain(`md/${name}.md`);
    }
    for (const p of ['html/index.html', 'html/gaps.html', 'md/index.md', 'md/gaps.md']) {
      expect(paths).toContain(p);
    }
    expect([...paths].sort()).toEqual(paths);
    expect(build.counts.registerFiles).toBe(3);
    expect(build.counts.registers).toBe(models.flatMap(pageRegisters).length);
    expect(build.counts.words).toBe(models.reduce((n, m) => n + m.instances.length, 0));
  });

  it('the HTML has exactly one bit-field diagram per register, inside its section', () => {
    let total = 0;
    for (const m of models) {
      const doc = page(`html/${m.name}.html`);
      const sections = all(doc, 'section.reg');
      const regs = pageRegisters(m);
      expect(sections.map((s) => s.id)).toEqual(regs.map(registerAnchor));
      for (const s of sections) {
        const svgs = all(s, 'svg');
        expect(svgs, s.id).toHaveLength(1);
        expect(one(svgs[0], 'title').textContent).toBe(`${s.id} bit fields`);
        expect(svgs[0].getAttribute('xmlns')).toBe('http://www.w3.org/2000/svg');
      }
      // No diagram outside a register section.
      expect(all(doc, 'svg')).toHaveLength(sections.length);
      total += sections.length;
    }
    expect(total).toBe(build.counts.registers);
    for (const p of ['html/index.html', 'html/gaps.html']) {
      expect(all(page(p), 'svg')).toHaveLength(0);
    }
  });

  it('each register shows offset, address, access, reset, provenance, fields and an encoder/decoder from the model', () => {
    for (const m of models) {
      const doc = page(`html/${m.name}.html`);
      for (const reg of pageRegisters(m)) {
        const anchor = registerAnchor(reg);
        const s = byId(doc, anchor);
        const props = Object.fromEntries(
          all(one(s, 'table.props'), 'tr').map((tr) => [
            one(tr, 'th').textContent,
            one(tr, 'td').textContent,
          ]),
        );
        expect(props.Offset, anchor).toContain(hex(reg.offset));
        const words = m.instances.filter((i) => i.register === reg);
        expect(props.Address, anchor).toContain(hex(words[0].offset));
        expect(props.Access.startsWith(reg.access), anchor).toBe(true);
        if (reg.resetKnown) expect(props.Reset).toContain(hex(reg.reset, 8));
        else expect(props.Reset).toMatch(/unknown/);
        for (const p of reg.sources) {
          expect(one(s, 'table.props').querySelector(`span.prov-${p}`), anchor).not.toBeNull();
        }
        expect(one(s, 'h3').querySelector(`span.prov-${reg.provenance}`)).not.toBeNull();
        expect(s.classList.contains('inferred')).toBe(reg.inferred);
        // Field table: the model's fields, in bit order, with their bits.
        const rows = all(s, 'tr[data-field-row]');
        expect(rows.map((r) => r.getAttribute('data-field-row'))).toEqual(
          reg.fields.map((f) => f.name),
        );
        rows.forEach((r, k) => {
          const f = reg.fields[k];
          expect(one(r, 'td.bits').textContent).toBe(
            f.msb === f.lsb ? String(f.lsb) : `${f.msb}:${f.lsb}`,
          );
          expect(maybe(r, `span.prov-${f.provenance}`)).not.toBeNull();
          expect(all(r, 'table.enums tr')).toHaveLength(f.enums.length);
          for (const en of f.enums) expect(r.textContent).toContain(en.name);
        });
        // Encoder/decoder starts at the reset word, one input per field.
        const codec = one(s, '.codec');
        expect(codec.getAttribute('data-reg')).toBe(anchor);
        expect(one(codec, 'input.raw').value).toBe(hex(reg.reset, 8));
        expect(all(codec, 'input.fv').map((i) => i.getAttribute('data-field'))).toEqual(
          reg.fields.map((f) => f.name),
        );
        // Repeated registers: a selector of every word with its absolute offset.
        const sel = maybe(s, 'select.inst');
        if (words.length > 1) {
          const opts = all(sel!, 'option');
          expect(opts.map((o) => [o.getAttribute('value'), o.getAttribute('data-offset')])).toEqual(
            words.map((w) => [w.path, hex(w.offset)]),
          );
        } else {
          expect(sel).toBeNull();
        }
        if (reg.incrementTarget) {
          expect(props.Doorbell).toContain(
            `${reg.incrementTarget.register}.${reg.incrementTarget.field}`,
          );
        }
      }
    }
  });

  it('the M2S page places dwrr_cfg_2 at 0x84 of each queue with the seed badge', () => {
    const s = byId(page('html/udma_m2s.html'), 'M2S_Q.dwrr_cfg_2');
    expect(one(s, 'table.props').textContent).toContain('0x1084 + i × 0x1000');
    expect(one(s, 'select.inst').querySelectorAll('option')).toHaveLength(16);
    expect(maybe(s, 'h3 span.prov-seed')).not.toBeNull();
  });

  it('the index lists every register file and block with a link to its page', () => {
    const doc = page('html/index.html');
    const hrefs = all(doc, 'a').map((a) => a.getAttribute('href'));
    for (const m of models) {
      expect(hrefs).toContain(`${m.name}.html`);
      for (const b of m.blocks) expect(hrefs).toContain(`${m.name}.html#block-${b.name}`);
      for (const r of m.registers) expect(hrefs).toContain(`${m.name}.html#${r.name}`);
    }
    expect(hrefs).toContain('gaps.html');
  });

  it('the gaps page lists the unplaced S2M q_qos, every inferred register and field, and invents no offset', () => {
    const doc = page('html/gaps.html');
    const gap = byId(doc, 'gap-udma_s2m-S2M_Q.q_qos');
    expect(gap.textContent).toContain('q_qos');
    expect(gap.textContent).toContain('S2M_Q');
    expect(gap.textContent).not.toMatch(/0x[0-9a-f]+/);
    expect(page('html/udma_s2m.html').getElementById('S2M_Q.q_qos')).toBeNull();
    const inferredText = all(byId(doc, 'inferred-registers').parentElement!, 'table')
      .map((t) => t.textContent)
      .join('\n');
    for (const m of models) {
      for (const r of pageRegisters(m).filter((x) => x.inferred)) {
        expect(inferredText).toContain(`${m.name}:${registerAnchor(r)}`);
        for (const f of r.fields.filter((x) => x.inferred)) {
          expect(inferredText).toContain(`${m.name}:${registerAnchor(r)}.${f.name}`);
        }
      }
    }
    expect(build.counts.unplaced).toBe(1);
    expect(build.counts.inferredRegisters).toBe(
      models.flatMap(pageRegisters).filter((r) => r.inferred).length,
    );
  });

  it('every link of the HTML site resolves to a page and an element of it', () => {
    const htmlPages = build.files.filter((f) => f.path.startsWith('html/'));
    let checked = 0;
    for (const f of htmlPages) {
      for (const a of all(page(f.path), 'a[href]')) {
        const href = a.getAttribute('href')!;
        expect(href, `${f.path}: ${href}`).not.toMatch(/^[a-z]+:/i);
        const [file, frag] = href.includes('#') ? href.split('#') : [href, ''];
        const target = `html/${file || f.path.slice(5)}`;
        expect(
          build.files.some((x) => x.path === target),
          `${f.path}: ${href}`,
        ).toBe(true);
        if (frag) {
          const id = decodeURIComponent(frag).replace(/\[\d+\]/g, '');
          expect(page(target).getElementById(id), `${f.path}: ${href}`).not.toBeNull();
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('pages work offline: no network, no external resource, one script allowed by its CSP hash', () => {
    for (const f of build.files.filter((x) => x.path.endsWith('.html'))) {
      const doc = page(f.path);
      const urls = f.content.match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
      for (const u of urls) expect(u, f.path).toBe('http://www.w3.org/2000/svg');
      for (const el of all(doc, '*')) {
        expect(el.hasAttribute('src'), f.path).toBe(false);
        expect(el.localName).not.toBe('link');
      }
      const scripts = all(doc, 'script');
      expect(scripts.map((s) => s.getAttribute('type'))).toEqual(['application/json', null]);
      const code = scripts[1].textContent;
      expect(code).not.toMatch(/\bfetch\s*\(|XMLHttpRequest|import\s*\(|\beval\s*\(/);
      const data = JSON.parse(scripts[0].textContent) as { search: { files: unknown[] } };
      expect(data.search.files).toHaveLength(3);
      const csp = all(doc, 'meta')
        .find((m) => m.getAttribute('http-equiv') === 'Content-Security-Policy')!
        .getAttribute('content')!;
      const hash = createHash('sha256').update(code, 'utf8').digest('base64');
      expect(csp).toContain(`script-src 'sha256-${hash}'`);
      expect(csp).toContain("default-src 'none'");
    }
  });

  it('is deterministic: freshly loaded models give byte-identical files', () => {
    const fresh = REGFILE_NAMES.map((n) =>
      parseRegFile(JSON.parse(readFileSync(schemaPath(n), 'utf8')), schemaDisplayPath(n)),
    );
    const again = buildDocs(fresh, { unit: trn2Unit() });
    expect(again.files.map((f) => f.path)).toEqual(build.files.map((f) => f.path));
    again.files.forEach((f, i) => expect(f.content === build.files[i].content, f.path).toBe(true));
  });

  it('Markdown has the same content: tables per register and one linked SVG file per register', () => {
    const svgs = build.files.filter((f) => f.kind === 'diagram');
    expect(svgs).toHaveLength(build.counts.registers);
    for (const m of models) {
      const md = fileOf(build, `md/${m.name}.md`);
      for (const reg of pageRegisters(m)) {
        const anchor = registerAnchor(reg);
        expect(md).toContain(`<a id="${anchor}"></a>\n### \`${anchor}\``);
        const img = `](${svgPath(m, reg)})`;
        expect(md.split(img).length - 1, anchor).toBe(1);
        const svg = fileOf(build, `md/${svgPath(m, reg)}`);
        expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
        for (const f of reg.fields) expect(md).toContain(`\`${f.name}\``);
        for (const f of reg.fields)
          for (const en of f.enums) expect(md).toContain(`\`${en.name}\``);
      }
    }
    expect(fileOf(build, 'md/gaps.md')).toContain('`q_qos`');
  });

  it('every Markdown link resolves to a file (and an anchor in it)', () => {
    for (const f of build.files.filter((x) => x.path.endsWith('.md'))) {
      for (const [, target] of f.content.matchAll(/\]\(([^)]+)\)/g)) {
        const [file, frag] = target.split('#');
        const path = `md/${file || f.path.slice(3)}`;
        expect(
          build.files.some((x) => x.path === path),
          `${f.path}: ${target}`,
        ).toBe(true);
        if (frag)
          expect(fileOf(build, path), `${f.path}: ${target}`).toContain(`<a id="${frag}"></a>`);
      }
    }
  });

  it('formats: html only, md only, unknown names refused (BAD_ARGUMENT)', () => {
    const html = buildDocs(models, { formats: ['html'] });
    expect(html.files.every((f) => f.format === 'html')).toBe(true);
    const md = buildDocs(models, { formats: parseFormats('md') });
    expect(md.files.every((f) => f.path.startsWith('md/'))).toBe(true);
    expect(parseFormats(' md , html ')).toEqual(['html', 'md']);
    for (const bad of ['pdf', 'html,pdf', '', ',']) {
      expect(() => parseFormats(bad)).toThrow(NxdmaError);
    }
    try {
      parseFormats('html,pdf');
    } catch (e) {
      expect((e as NxdmaError).code).toBe('BAD_ARGUMENT');
      expect((e as NxdmaError).message).toContain('"pdf"');
    }
  });

  it('refuses register files that would collide with each other or with a page of the site', () => {
    const m2s = models[0];
    expect(() => buildDocs([m2s, m2s])).toThrow(/documented twice/);
    expect(() => buildDocs([{ ...m2s, name: 'index' }])).toThrow(/page name/);
    expect(() => buildDocs([])).toThrow(NxdmaError);
  });
});
