/**
 * The layers (docs/architecture-notes.md): cli/ on top; flow/ composing compiler/, driver/ and
 * mocks/, which sit side by side; csr/ and common/ at the bottom. Every source file's imports
 * (static, type-only, re-exports and dynamic `import()`, read with TypeScript's own pre-processor)
 * are resolved to the folder they land in and checked against the rules:
 *
 *  - nothing under driver/, compiler/ or csr/ imports from mocks/ or flow/;
 *  - mocks/ imports nothing from driver/, flow/ or csr/docs/;
 *  - compiler/ imports nothing from driver/, mocks/ or flow/;
 *  - flow/ is imported only by cli/ (nothing below it reaches up);
 *  - cli/ is imported by nobody;
 *  - csr/ and common/ import only each other.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_FOLDERS = ['csr', 'common', 'compiler', 'driver', 'mocks', 'flow', 'cli'] as const;
const SOURCE = /\.(ts|mts|js|mjs)$/;

interface Import {
  /** The importing file, relative to the repository root with '/' separators. */
  file: string;
  /** The specifier as written. */
  spec: string;
  /** The imported path, relative to the repository root with '/' separators. */
  target: string;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (SOURCE.test(e.name)) out.push(p);
  }
  return out;
}

const toPosix = (p: string): string => p.split(sep).join('/');

/** Every relative import of every source file. */
function sourceImports(): Import[] {
  const out: Import[] = [];
  for (const folder of SOURCE_FOLDERS) {
    for (const abs of walk(join(ROOT, folder))) {
      const file = toPosix(relative(ROOT, abs));
      const info = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
      for (const { fileName: spec } of info.importedFiles) {
        if (!spec.startsWith('.')) continue;
        out.push({ file, spec, target: toPosix(relative(ROOT, join(dirname(abs), spec))) });
      }
    }
  }
  return out;
}

const imports = sourceImports();

/** The imports from files under `from` that land under one of `to`. */
function crossing(from: string, to: readonly string[]): string[] {
  return imports
    .filter((i) => i.file.startsWith(`${from}/`))
    .filter((i) => to.some((t) => i.target === t || i.target.startsWith(`${t}/`)))
    .map((i) => `${i.file} imports ${i.spec}`);
}

describe('the import rules between layers', () => {
  it('reads the imports of every source file (static, type-only, re-export and dynamic)', () => {
    const of = (file: string) => imports.filter((i) => i.file === file).map((i) => i.target);
    // a static import, a type-only import and a re-export, each known to exist
    expect(of('flow/rings.ts')).toContain('driver/udma/engine.ts');
    expect(of('flow/report.ts')).toContain('csr/io.ts');
    expect(of('flow/index.ts')).toContain('flow/flow.ts');
    // the command table loads every sub-command lazily with import()
    expect(of('cli/commands/index.ts')).toContain('cli/commands/run.ts');
    for (const folder of SOURCE_FOLDERS) {
      expect(
        imports.some((i) => i.file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('driver/, compiler/ and csr/ import nothing from mocks/ or flow/', () => {
    for (const from of ['driver', 'compiler', 'csr']) {
      expect(crossing(from, ['mocks', 'flow']), from).toEqual([]);
    }
  });

  it('mocks/ imports nothing from driver/, flow/ or csr/docs/', () => {
    expect(crossing('mocks', ['driver', 'flow', 'csr/docs'])).toEqual([]);
  });

  it('compiler/ imports nothing from driver/, mocks/ or flow/', () => {
    expect(crossing('compiler', ['driver', 'mocks', 'flow'])).toEqual([]);
  });

  it('flow/ is imported by cli/ only, and cli/ by nobody', () => {
    for (const from of SOURCE_FOLDERS.filter((f) => f !== 'cli' && f !== 'flow')) {
      expect(crossing(from, ['flow', 'cli']), from).toEqual([]);
    }
    expect(crossing('flow', ['cli'])).toEqual([]);
  });

  it('csr/ and common/ import only each other', () => {
    const above = ['compiler', 'driver', 'mocks', 'flow', 'cli'];
    expect(crossing('csr', above)).toEqual([]);
    expect(crossing('common', above)).toEqual([]);
  });
});
