// No hand-written source file over 500 lines: a file that grows past that holds two concepts
// (ARCHITECTURE.md, "Folders"). Generated register maps (csr/generated/) are exempt.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_FOLDERS = [
  'test',
  'examples',
  'common',
  'csr',
  'compiler',
  'driver',
  'mocks',
  'flow',
  'cli',
  'bin',
  'scripts',
  'bench',
];
const LIMIT = 500;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (relative(ROOT, path) === join('csr', 'generated')) continue;
      yield* sources(path);
    } else if (/\.(ts|js|mjs|cjs)$/.test(entry.name)) yield path;
  }
}

describe('file size', () => {
  it(`no hand-written source file is over ${LIMIT} lines`, () => {
    const over: string[] = [];
    let seen = 0;
    for (const folder of SOURCE_FOLDERS) {
      for (const path of sources(join(ROOT, folder))) {
        seen++;
        const lines = readFileSync(path, 'utf8').split('\n').length - 1;
        if (lines > LIMIT) over.push(`${relative(ROOT, path)}: ${lines} lines`);
      }
    }
    expect(seen).toBeGreaterThan(100);
    expect(over).toEqual([]);
  });
});
