/**
 * Docs generation time: `buildDocs` of the three register files (HTML site + Markdown with its SVG
 * diagrams, in memory, no file system), against JSON.stringify of the same loaded models measured
 * in the same run (the cost of merely serialising what the docs render).
 *
 * Two figures: cold (every run on freshly parsed models, so every bit-field diagram is rendered;
 * parsing is done before timing) and warm (the same models again: diagrams come from the
 * per-register cache, the page text is rebuilt).
 *
 * Standalone: npx tsx bench/docs.bench.ts [--quick]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildDocs } from '../csr/docs/index.ts';
import { REGFILE_NAMES, schemaDisplayPath, schemaPath } from '../csr/schema/files.ts';
import { parseRegFile } from '../csr/schema/loader.ts';
import type { RegFileModel } from '../csr/schema/model.ts';
import { MIN_RUNS, measureAll, timedResult } from './measure.ts';
import type { BenchResult } from './types.ts';

function loadFresh(): RegFileModel[] {
  return REGFILE_NAMES.map((n) =>
    parseRegFile(JSON.parse(readFileSync(schemaPath(n), 'utf8')), schemaDisplayPath(n)),
  );
}

export async function run(opts: { quick?: boolean }): Promise<BenchResult[]> {
  const reps = opts.quick ? MIN_RUNS : 10;
  const fresh = Array.from({ length: reps + 1 }, loadFresh);
  const models = fresh[0];

  // Warm up both, and check the build is what the docs promise.
  const first = buildDocs(models);
  const bytes = first.files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
  const svgs = first.files.filter((f) => f.kind === 'diagram').length;
  if (svgs !== first.counts.registers) {
    throw new Error(`docs bench: ${svgs} diagrams for ${first.counts.registers} registers`);
  }
  const jsonBytes = JSON.stringify(models).length;
  let sink = jsonBytes;

  // Already warmed by the build above; cold runs each get freshly parsed models.
  const t = measureAll(
    {
      cold: (i) => buildDocs(fresh[i + 1]),
      warm: () => buildDocs(models),
      json: () => {
        sink += JSON.stringify(models).length;
      },
    },
    { runs: reps, warmup: 0 },
  );
  if (sink <= 0) throw new Error('unreachable');
  const baseline = { name: 'JSON.stringify of the three loaded models' };
  const common = `${first.files.length} files, ${(bytes / 1024).toFixed(0)} KiB, ${svgs} SVG diagrams per format`;
  return [
    timedResult({
      metric: 'docs.build.cold.time',
      name: 'nxdma docs build, cold (3 register files, html + md, every diagram rendered)',
      unit: 'ms',
      items: 1,
      timing: { value: t.cold, baseline: t.json },
      baseline,
      notes: `${common}; models parsed before timing; the baseline writes ${(jsonBytes / 1048576).toFixed(1)} MiB (each word's instance repeats its block)`,
    }),
    timedResult({
      metric: 'docs.build.warm.time',
      name: 'nxdma docs build, warm (diagrams cached per register)',
      unit: 'ms',
      items: 1,
      timing: { value: t.warm, baseline: t.json },
      baseline,
      notes: common,
    }),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ quick: process.argv.includes('--quick') }).then((r) =>
    console.log(JSON.stringify(r, null, 2)),
  );
}
