/**
 * The pictures of the QoS cookbook (docs/qos.md "What each arbiter mode does to a 4-queue mix")
 * are what the commands printed above them make: each command is run again (into a temporary
 * file) and its SVG must equal the committed one byte for byte. Regenerate a stale picture by
 * running its command from the repository root.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nxdma } from '../cli/helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/qos.md'), 'utf8');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'nxdma-cookbook-'));
afterAll(() => fs.rmSync(TMP, { recursive: true, force: true }));

interface Picture {
  command: string;
  args: string[];
  svg: string;
}

/** Every `nxdma qos show ... --timeline docs/img/....svg ...` line of the doc. */
function pictures(): Picture[] {
  const out: Picture[] = [];
  for (const line of DOC.split('\n')) {
    if (!/^nxdma qos show .* --timeline docs\/img\/\S+\.svg/.test(line)) continue;
    const args = line.trim().split(/\s+/).slice(1);
    const i = args.indexOf('--timeline');
    out.push({ command: line, args, svg: args[i + 1] });
  }
  return out;
}

describe('docs/qos.md cookbook pictures', () => {
  const list = pictures();

  it('shows every arbiter mode of the 4-queue mix, each picture embedded under its command', () => {
    expect(list.map((p) => path.basename(p.svg))).toEqual([
      'qos-rr.svg',
      'qos-strict.svg',
      'qos-dwrr.svg',
      'qos-mixed.svg',
      'qos-rate-limit.svg',
    ]);
    for (const p of list) expect(DOC).toContain(`](${p.svg.replace(/^docs\//, '')})`);
    // no committed picture without its command
    const committed = fs
      .readdirSync(path.join(ROOT, 'docs/img'))
      .filter((f) => /^qos-.*\.svg$/.test(f))
      .sort();
    expect(committed).toEqual(list.map((p) => path.basename(p.svg)).sort());
  });

  for (const p of list) {
    it(`${path.basename(p.svg)} is what its command makes`, async () => {
      const tmp = path.join(TMP, path.basename(p.svg));
      // paths of the doc are relative to the repository root
      const args = p.args.map((a) =>
        a === p.svg ? tmp : a.startsWith('examples/') ? path.join(ROOT, a) : a,
      );
      const r = await nxdma(...args);
      expect(r.code, r.errs).toBe(0);
      const made = fs.readFileSync(tmp, 'utf8');
      expect(made.startsWith('<svg'), p.command).toBe(true);
      expect(
        made === fs.readFileSync(path.join(ROOT, p.svg), 'utf8'),
        `${p.svg} is stale: run ${p.command}`,
      ).toBe(true);
    });
  }
});
