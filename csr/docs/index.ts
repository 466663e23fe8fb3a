/**
 * The CSR documentation generator: an offline HTML site and a Markdown edition of the register
 * files, rendered from the loaded models only (csr/schema).
 *
 *   const docs = buildDocs(Object.values(regFiles()), { formats: ['html', 'md'] });
 *   const report = writeDocs(docs, 'docs/site');
 *
 * `buildDocs` is pure: the same models give byte-identical files (no dates, no absolute paths, a
 * fixed order), so a generated site can be committed and diffed. `writeDocs` validates the output
 * directory first, then writes, leaving files whose content is unchanged untouched. The write is
 * all or nothing: every changed file is first written to a temporary file next to its target, and
 * only when all of them are written are they renamed into place; a failure removes the temporary
 * files and the folders it created, leaving the site as it was. Nothing is written through a
 * symbolic link under the output directory, and no file of the site may be one of `inputs`.
 *
 * Layout of the output directory:
 *   html/index.html, html/<file>.html, html/gaps.html           (self-contained pages)
 *   md/index.md, md/<file>.md, md/gaps.md, md/svg/<file>/<register>.svg
 */
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  type Stats,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { NxdmaError } from '../../common/errors.ts';
import { type InputSet, kindOf, writeTemp } from '../../common/files.ts';
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
    const st = lstatSync(p);
    if (st.isDirectory()) out.push(...listFiles(p, base));
    else out.push(relative(base, p).split(sep).join('/'));
  }
  return out;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function writeError(out: string, path: string, e: unknown): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `cannot write ${path}: ${(e as Error).message}`, {
    where: out,
    expected: 'a writable output directory',
    actual: path,
  });
}

export interface WriteDocsOptions {
  /** Files the site may not overwrite (the schemas it documents, say). */
  readonly inputs?: InputSet;
}

/**
 * Writes a build under `outDir` (created if needed). Everything is checked first: no folder of
 * the site may be a file or a symbolic link, no file of the site may be a symbolic link, a folder
 * or one of `opts.inputs`. Then the changed files are written all or nothing (see the module
 * comment); files whose content is already the same are not touched.
 * @throws NxdmaError BAD_ARGUMENT when the directory cannot hold the site or a write fails.
 */
export function writeDocs(
  build: DocsBuild,
  outDir: string,
  opts: WriteDocsOptions = {},
): WriteReport {
  let out = resolve(outDir);
  // --out itself may be a link the user made to a folder; nothing below it is followed.
  const top = lstatOrNull(out);
  if (top?.isSymbolicLink()) {
    try {
      out = realpathSync(out);
    } catch (e) {
      throw writeError(out, out, e);
    }
  }
  const refuse = (message: string, expected: string, actual: string): never => {
    throw new NxdmaError('BAD_ARGUMENT', message, { where: '--out', expected, actual });
  };
  const dirs = new Set<string>([out]);
  for (const f of build.files) {
    for (let d = dirname(join(out, f.path)); d.length > out.length; d = dirname(d)) dirs.add(d);
  }
  for (const d of [...dirs].sort()) {
    const st = lstatOrNull(d);
    if (st === null) continue;
    if (d !== out && st.isSymbolicLink()) {
      refuse(
        `${d} is a symbolic link; the docs are not written through links`,
        'a directory inside --out (not a symbolic link)',
        d,
      );
    }
    if (d === out ? !realStatIsDir(d) : !st.isDirectory()) {
      refuse(
        `${d} exists and is not a directory`,
        'a directory (or a path that does not exist yet)',
        d,
      );
    }
  }
  const pending: { file: DocFile; target: string }[] = [];
  const files: WrittenFile[] = [];
  for (const f of build.files) {
    const p = join(out, f.path);
    const st = lstatOrNull(p);
    if (st?.isSymbolicLink()) {
      refuse(
        `${p} is a symbolic link; the docs are not written through links`,
        'a regular file inside --out (not a symbolic link)',
        p,
      );
    }
    if (st && !st.isFile()) {
      refuse(`${p} is ${kindOf(st)}, where the docs put a file`, 'a regular file or nothing', p);
    }
    const input = opts.inputs?.inputAt(p);
    if (input !== undefined) {
      refuse(
        `${p} is the input ${input} of this command; refusing to overwrite it`,
        'an output directory that holds none of the inputs',
        p,
      );
    }
    let same = false;
    if (st) {
      try {
        same = readFileSync(p, 'utf8') === f.content;
      } catch {
        same = false;
      }
    }
    if (!same) pending.push({ file: f, target: p });
    files.push({
      path: f.path,
      format: f.format,
      kind: f.kind,
      bytes: Buffer.byteLength(f.content, 'utf8'),
      changed: !same,
    });
  }
  // Stage every changed file next to its target, then rename them all into place.
  const created: string[] = [];
  const staged: { tmp: string; target: string }[] = [];
  try {
    for (const { file, target } of pending) {
      const dir = dirname(target);
      const missing: string[] = [];
      for (let d = dir; lstatOrNull(d) === null && d.length >= out.length; d = dirname(d)) {
        missing.unshift(d);
      }
      for (const d of missing) {
        mkdirSync(d);
        created.push(d);
      }
      staged.push({ tmp: writeTemp(target, file.content), target });
    }
  } catch (e) {
    for (const s of staged) rmSync(s.tmp, { force: true });
    for (const d of created.reverse()) {
      try {
        rmdirSync(d);
      } catch {
        // not empty or gone: leave it
      }
    }
    throw writeError(out, staged.length < pending.length ? pending[staged.length].target : out, e);
  }
  for (let i = 0; i < staged.length; i++) {
    try {
      renameSync(staged[i].tmp, staged[i].target);
    } catch (e) {
      for (const s of staged.slice(i)) rmSync(s.tmp, { force: true });
      throw writeError(out, staged[i].target, e);
    }
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

function realStatIsDir(p: string): boolean {
  try {
    return realpathSync(p) !== '' && lstatSync(realpathSync(p)).isDirectory();
  } catch {
    return false;
  }
}
