/**
 * Where the benches are: their folder (`HERE`), the extension of their files (`EXT`: `.ts` run
 * from the sources, `.js` compiled under out/bench-js/ by `npm run bench`), and the repository
 * root (`ROOT`: the nearest folder above holding nxdma's package.json), where out/ and bin/ are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);

export const HERE = dirname(self);
export const EXT = extname(self);

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'nxdma'
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`bench: no nxdma package.json above ${from}`);
  }
}

export const ROOT = findRoot(HERE);
