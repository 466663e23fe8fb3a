/**
 * The CSR documentation generator: an offline HTML site and a Markdown edition of the register
 * files, rendered from the loaded models only (csr/schema).
 *
 *   const docs = buildDocs(Object.values(regFiles()), { formats: ['html', 'md'] });
 *   const report = writeDocs(docs, 'docs/site');
 *
 * `buildDocs` is pure: the same models give byte-identical files (no dates, no absolute paths, a
 * fixed order), so a generated site can be committed and diffed. `writeDocs` validates the output
 * directory first, then writes, leaving files whose content is unchanged untouched.
 *
 * Layout of the output directory:
 *   html/index.html, html/<file>.html, html/gaps.html           (self-contained pages)
 *   md/index.md, md/<file>.md, md/gaps.md, md/svg/<file>/<register>.svg
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { NxdmaError } from '../../common/errors.ts';
import type { RegFileModel } from '../schema/model.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { buildSite, type DocsCounts, type SiteOptions } from './site.ts';

export type { DocsCounts, DocsSite, GapsReport, SiteOptions } from './site.ts';
export type { SearchIndex, SearchResult, SearchUnit, ClientLogic } from './client.ts';
export { loadClientLogic } from './client.ts';
export { buildSite } from './site.ts';

export const DOCS_FORMATS = ['html', 'md'] as const;
export type DocsFormat = (typeof DOCS_FORMATS)[number];

export function isDocsFormat(v: string): v is DocsFormat {
  return (DOCS_FORMATS as readonly string[]).includes(v);
}

/**
 * Parses a format list as the CLI takes it ("html,md", "md"): known names, no duplicates, at
 * least one. @throws NxdmaError BAD_ARGUMENT naming the unknown format.
 */
export function parseFormats(text: string): DocsFormat[] {
  const parts = text
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const bad = parts.filter((p) => !isDocsFormat(p));
  if (parts.length === 0 || bad.length) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      parts.length === 0
        ? 'no docs format given'
        : `unknown docs format ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
      {
        where: '--format',
        expected: `a comma-separated list of ${DOCS_FORMATS.join(', ')}`,
        actual: text,
      },
    );
  }
  return DOCS_FORMATS.filter((f) => parts.includes(f));
}

export interface DocsOptions extends SiteOptions {
  /** Formats to render (default both). */
  readonly formats?: readonly DocsFormat[];
}

/** One generated file, its path relative to the output directory (always with "/"). */
export interface DocFile {
  readonly path: string;
  readonly format: DocsFormat;
  readonly kind: 'page' | 'diagram';
  readonly content: string;
}

export interface DocsBuild {
  readonly formats: readonly DocsFormat[];
  /** Sorted by path. */
  readonly files: readonly DocFile[];
  readonly counts: DocsCounts;
}

/** Renders the docs of `files` in memory. Pure and deterministic. */
export function buildDocs(files: readonly RegFileModel[], opts: DocsOptions = {}): DocsBuild {
  const formats = DOCS_FORMATS.filter((f) => (opts.formats ?? DOCS_FORMATS).includes(f));
  if (formats.length === 0) {
    throw new NxdmaError('BAD_ARGUMENT', 'no docs format selected', {
      where: 'formats',
      expected: DOCS_FORMATS.join(', '),
      actual: opts.formats,
    });
  }
  const site = buildSite(files, opts);
  const out: DocFile[] = [];
  for (const format of formats) {
    const rendered = format === 'html' ? renderHtml(site) : renderMarkdown(site);
    for (const [path, content] of rendered) {
      out.push({
        path: `${format}/${path}`,
        format,
        kind: path.endsWith('.svg') ? 'diagram' : 'page',
        content,
      });
    }
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { formats, files: out, counts: site.counts };
}

export interface WrittenFile {
  readonly path: string;
  readonly format: DocsFormat;
  readonly kind: 'page' | 'diagram';
  readonly bytes: number;
  /** False when the file already had this content (it was left untouched). */
  readonly changed: boolean;
}

export interface WriteReport {
  /** The output directory, absolute. */
  readonly out: string;
  readonly formats: readonly DocsFormat[];
  readonly files: readonly WrittenFile[];
  readonly written: number;
  readonly unchanged: number;
  /**
   * Files under the format directories that this build did not produce (left from an earlier
   * build, say of a register that no longer exists). Reported, never deleted.
   */
  readonly stale: readonly string[];
  readonly counts: DocsCounts;
}

function listFiles(dir: string, base: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names.sort()) {
    const p = join(dir, n);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...listFiles(p, base));
    else out.push(relative(base, p).split(sep).join('/'));
  }
  return out;
}

function writeError(out: string, path: string, e: unknown): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `cannot write ${path}: ${(e as Error).message}`, {
    where: out,
    expected: 'a writable output directory',
    actual: path,
  });
}

/**
 * Writes a build under `outDir` (created if needed). The directory is checked first (it must not
 * be a file, nor contain a file where a directory of the site goes); then every file is written,
 * except those whose content is already the same.
 * @throws NxdmaError BAD_ARGUMENT when the directory cannot hold the site or a write fails.
 */
export function writeDocs(build: DocsBuild, outDir: string): WriteReport {
  const out = resolve(outDir);
  // Validate: every directory on the way must be a directory (or not exist yet).
  const dirs = new Set<string>([out]);
  for (const f of build.files) {
    for (let d = dirname(join(out, f.path)); d.length > out.length; d = dirname(d)) dirs.add(d);
  }
  for (const d of [...dirs].sort()) {
    let st;
    try {
      st = statSync(d);
    } catch {
      continue;
    }
    if (!st.isDirectory()) {
      throw new NxdmaError('BAD_ARGUMENT', `${d} exists and is not a directory`, {
        where: '--out',
        expected: 'a directory (or a path that does not exist yet)',
        actual: d,
      });
    }
  }
  const files: WrittenFile[] = [];
  for (const f of build.files) {
    const p = join(out, f.path);
    let same = false;
    try {
      same = readFileSync(p, 'utf8') === f.content;
    } catch {
      same = false;
    }
    if (!same) {
      try {
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, f.content, 'utf8');
      } catch (e) {
        throw writeError(out, p, e);
      }
    }
    files.push({
      path: f.path,
      format: f.format,
      kind: f.kind,
      bytes: Buffer.byteLength(f.content, 'utf8'),
      changed: !same,
    });
  }
  const produced = new Set(build.files.map((f) => f.path));
  const stale = build.formats
    .flatMap((fmt) => listFiles(join(out, fmt), out))
    .filter((p) => !produced.has(p));
  const written = files.filter((f) => f.changed).length;
  return {
    out,
    formats: build.formats,
    files,
    written,
    unchanged: files.length - written,
    stale,
    counts: build.counts,
  };
}
