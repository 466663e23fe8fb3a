import { readFileSync } from 'node:fs';
import {
  buildDocs,
  type DocsBuild,
  type DocsOptions,
  type SearchUnit,
} from '../../../csr/docs/index.ts';
import { regFiles } from '../../../csr/schema/files.ts';
import { parseRegFile } from '../../../csr/schema/loader.ts';
import type { RegFileModel } from '../../../csr/schema/model.ts';
import { getProfile } from '../../../csr/profiles.ts';

/** The shipped register files, in their documented order. */
export function shippedModels(): RegFileModel[] {
  return Object.values(regFiles());
}

/** The trn2 unit layout, as the CLI passes it (from the device profile, not written here). */
export function trn2Unit(): SearchUnit {
  const p = getProfile('trn2');
  return {
    name: p.name,
    windows: Object.entries(p.windows)
      .map(([file, w]) => ({ file, offset: w.offset }))
      .sort((a, b) => a.offset - b.offset),
    groups: p.engineGroups.map((g) => ({
      first: g.first,
      count: g.count,
      base: g.base,
      stride: g.stride,
    })),
  };
}

let cached: DocsBuild | undefined;

/** The docs of the three shipped files, both formats, with the trn2 unit (built once per test file). */
export function shippedBuild(): DocsBuild {
  cached ??= buildDocs(shippedModels(), { unit: trn2Unit() });
  return cached;
}

export function fileOf(build: DocsBuild, path: string): string {
  const f = build.files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path} in the build (${build.files.map((x) => x.path).join(', ')})`);
  return f.content;
}

/** A model parsed from a fixture schema next to these tests. */
export function fixtureModel(name: string): RegFileModel {
  const url = new URL(`./fixtures/${name}`, import.meta.url);
  return parseRegFile(JSON.parse(readFileSync(url, 'utf8')), `test/csr/docs/fixtures/${name}`);
}

export function buildFixture(name: string, opts: DocsOptions = {}): DocsBuild {
  return buildDocs([fixtureModel(name)], opts);
}
