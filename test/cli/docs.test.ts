import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocsJson } from '../../cli/commands/docs.ts';
import { regFiles } from '../../csr/schema/files.ts';
import { nxdma as run } from './helpers.ts';

const HOSTILE = fileURLToPath(new URL('../csr/docs/fixtures/hostile.json', import.meta.url));

describe('nxdma docs', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nxdma-docs-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--json lists the files written and the counts', async () => {
    const out = join(dir, 'site');
    const { code, json } = await run('docs', '--out', out, '--json');
    expect(code).toBe(0);
    const r = json as DocsJson;
    const models = Object.values(regFiles());
    const registers = models.reduce(
      (n, m) => n + m.blocks.reduce((k, b) => k + b.registers.length, 0) + m.registers.length,
      0,
    );
    expect(r.out).toBe(out);
    expect(r.formats).toEqual(['html', 'md']);
    expect(r.open).toBe('html/index.html');
    expect(r.counts).toMatchObject({ registerFiles: 3, registers, unplaced: 1 });
    // 5 HTML pages, 5 Markdown pages, one SVG per register.
    expect(r.files.filter((f) => f.kind === 'page')).toHaveLength(10);
    expect(r.files.filter((f) => f.kind === 'diagram')).toHaveLength(registers);
    expect(r.written).toBe(r.files.length);
    expect(r.stale).toEqual([]);
    for (const f of r.files) {
      expect(statSync(join(out, f.path)).size, f.path).toBe(f.bytes);
      expect(f.changed).toBe(true);
    }
    expect(readFileSync(join(out, 'html/index.html'), 'utf8')).toContain('<!DOCTYPE html>');
  });

  it('a second run writes nothing (same bytes) and reports files it did not produce', async () => {
    const out = join(dir, 'site');
    const before = statSync(join(out, 'html/udma_m2s.html')).mtimeMs;
    writeFileSync(join(out, 'html', 'old_register_file.html'), 'left over');
    const { code, json } = await run('docs', '--out', out, '--json');
    expect(code).toBe(0);
    const r = json as DocsJson;
    expect(r.written).toBe(0);
    expect(r.unchanged).toBe(r.files.length);
    expect(r.stale).toEqual(['html/old_register_file.html']);
    expect(statSync(join(out, 'html/udma_m2s.html')).mtimeMs).toBe(before);
    expect(existsSync(join(out, 'html', 'old_register_file.html'))).toBe(true);
  });

  it('--format md writes only the Markdown edition; the text report names what was written', async () => {
    const out = join(dir, 'md-only');
    const { code, text } = await run('docs', '--out', out, '--format', 'md');
    expect(code).toBe(0);
    expect(existsSync(join(out, 'md/index.md'))).toBe(true);
    expect(existsSync(join(out, 'md/svg/udma_m2s/M2S_Q.dwrr_cfg_2.svg'))).toBe(true);
    expect(existsSync(join(out, 'html'))).toBe(false);
    expect(text).toMatch(/md: 5 pages, \d+ diagrams in md\//);
    expect(text).not.toContain('Open ');
  });

  it('--schema documents another schema file (its text escaped)', async () => {
    const out = join(dir, 'hostile');
    const { code, json } = await run('docs', '--out', out, '--schema', HOSTILE, '--json');
    expect(code).toBe(0);
    expect((json as DocsJson).counts.registerFiles).toBe(1);
    const html = readFileSync(join(out, 'html/hostile.html'), 'utf8');
    expect(html).not.toContain("<script>alert('reg')");
    expect(html).toContain('&lt;script&gt;alert(&#39;reg&#39;)');
  });

  it('bad input exits 2 and writes nothing: unknown format', async () => {
    const out = join(dir, 'bad-format');
    const { code, errs } = await run('docs', '--out', out, '--format', 'html,pdf', '--json');
    expect(code).toBe(2);
    expect(errs).toMatch(/BAD_ARGUMENT.*unknown docs format "pdf"/);
    expect(existsSync(out)).toBe(false);
  });

  it('bad input exits 2: --out is a file, a schema that does not exist, an unknown profile', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r1 = await run('docs', '--out', file);
    expect(r1.code).toBe(2);
    expect(r1.errs).toMatch(/not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('x');
    const r2 = await run('docs', '--out', join(dir, 'x'), '--schema', join(dir, 'missing.json'));
    expect(r2.code).toBe(2);
    expect(r2.errs).toMatch(/SCHEMA_INVALID/);
    const r3 = await run('docs', '--out', join(dir, 'y'), '--profile', 'nope');
    expect(r3.code).toBe(2);
    expect(r3.errs).toMatch(/DEVICE_PROFILE/);
    expect(existsSync(join(dir, 'x'))).toBe(false);
    expect(existsSync(join(dir, 'y'))).toBe(false);
  });

  it('--help lists the options, an example and the exit codes', async () => {
    const { code, text } = await run('docs', '--help');
    expect(code).toBe(0);
    for (const s of [
      '--out',
      '--format',
      '--schema',
      '--profile',
      '--json',
      'Example:',
      '$ nxdma docs',
    ]) {
      expect(text).toContain(s);
    }
    expect(text).toMatch(/2 +bad input/);
  });
});
