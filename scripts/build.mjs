#!/usr/bin/env node
// Builds the published package into dist/: JavaScript and declaration files from tsc, plus the
// non-TypeScript files the built code reads at run time (register schemas, JSON Schemas, the docs
// site's client scripts). docs/packaging.md explains the choices.
//
//   node scripts/build.mjs          build dist/ (what `npm ci` runs through `prepare`)
//   node scripts/build.mjs --bench  build out/bench-js/: the same, with bench/ (what `npm run
//                                   bench` runs: the benchmarks measure the JavaScript that ships)
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bench = process.argv.includes('--bench');
const dist = bench ? join(root, 'out', 'bench-js') : join(root, 'dist');
const staging = `${dist}.tmp`;
const project = join(root, bench ? 'tsconfig.bench.json' : 'tsconfig.build.json');

/** Files the built code opens by path at run time, copied beside the modules that open them. */
const ASSETS = [
  'csr/schemas/udma_m2s.json',
  'csr/schemas/udma_s2m.json',
  'csr/schemas/dge_host.json',
  'csr/schemas/regfile.schema.json',
  'csr/docs/client/words.js',
  'csr/docs/client/results.js',
  'csr/docs/client/search.js',
  'csr/docs/client/ui.js',
  'compiler/ir/program.schema.json',
  'driver/qos/plan.schema.json',
];

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

rmSync(staging, { recursive: true, force: true });

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', staging], {
  stdio: 'inherit',
});
if (r.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}

// tsc rewrites relative `.ts` specifiers in JavaScript (rewriteRelativeImportExtensions) but not in
// every declaration file (type-only imports keep `.ts`), which a consumer's tsc refuses (TS5097).
const SPECIFIER = /((?:from\s+|import\s*\(\s*)['"])(\.{1,2}\/[^'"]+?)\.ts(['"])/g;
let leftovers = 0;
for (const file of walk(staging)) {
  if (!file.endsWith('.d.ts') && !file.endsWith('.js')) continue;
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(SPECIFIER, '$1$2.js$3');
  if (file.endsWith('.js') && fixed !== text) leftovers++;
  if (fixed !== text) writeFileSync(file, fixed);
}
if (leftovers > 0) {
  console.error(`build: ${leftovers} JavaScript files kept a .ts import specifier`);
  process.exit(1);
}

for (const asset of ASSETS) {
  const src = join(root, asset);
  if (!existsSync(src)) {
    console.error(`build: missing asset ${asset}`);
    process.exit(1);
  }
  const dst = join(staging, asset);
  mkdirSync(dirname(dst), { recursive: true });
  copyFileSync(src, dst);
}

// Replace dist/ only once the whole build succeeded.
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
const files = walk(dist);
console.log(`build: ${files.length} files in ${relative(process.cwd(), dist) || '.'}/`);
