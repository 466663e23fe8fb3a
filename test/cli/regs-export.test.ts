/**
 * `nxdma regs export`: the export on stdout, in a --json report, or written atomically to --out;
 * bad options, a symbolic link, a directory or a register schema as --out are refused before
 * anything is written.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RegsExportJson } from '../../cli/commands/regs-export.ts';
import { EXIT } from '../../cli/exit.ts';
import { exportRegisters } from '../../csr/export/index.ts';
import { schemaPath } from '../../csr/schema/files.ts';
import { nxdma as run } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'nxdma-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nxdma regs export', () => {
  it('prints the export on stdout; --json carries it in content with the counts', async () => {
    const plain = await run('regs', 'export', '--format', 'svd');
    expect(plain.code).toBe(EXIT.OK);
    const expected = exportRegisters('svd').content;
    expect(plain.text + '\n').toBe(expected);
    const j = await run('regs', 'export', '--format', 'ipxact', '--file', 'udma_s2m', '--json');
    expect(j.code).toBe(EXIT.OK);
    const report = j.json as RegsExportJson;
    expect(report).toMatchObject({
      exportFormat: 'ipxact',
      out: null,
      profile: null,
      engine: null,
      files: [{ name: 'udma_s2m', base: 0 }],
    });
    expect(report.content).toBe(exportRegisters('ipxact', { files: ['udma_s2m'] }).content);
    expect(report.bytes).toBe(Buffer.byteLength(report.content!));
  });

  it('--out writes the file atomically (replacing an old one, no temporary left behind)', async () => {
    const out = join(dir, 'sub', 'nxdma_trn2_engine4_regs.h');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(out, 'old');
    const r = await run(
      'regs',
      'export',
      '--format',
      'c-header',
      '--profile',
      'trn2',
      '--engine',
      '4',
      '--out',
      out,
      '--json',
    );
    expect(r.code, r.errs).toBe(EXIT.OK);
    const report = r.json as RegsExportJson;
    expect(report.content).toBeUndefined();
    expect(report.engine).toBe(4);
    expect(report.files.map((f) => [f.name, f.base])).toEqual([
      ['udma_m2s', 0x82400000],
      ['udma_s2m', 0x82420000],
    ]);
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(exportRegisters('c-header', { profile: 'trn2', engine: 4 }).content);
    expect(report.bytes).toBe(statSync(out).size);
    expect(readdirSync(join(dir, 'sub'))).toEqual(['nxdma_trn2_engine4_regs.h']);
    const human = await run('regs', 'export', '--format', 'svd', '--out', join(dir, 'n.svd'));
    expect(human.code).toBe(EXIT.OK);
    expect(human.text).toMatch(
      /svd of udma_m2s at 0x0, udma_s2m at 0x0, dge_host at 0x0: 100 registers/,
    );
  });

  it('refuses a register schema, a symbolic link or a directory as --out, writing nothing', async () => {
    const schema = schemaPath('udma_m2s');
    const before = readFileSync(schema, 'utf8');
    const a = await run('regs', 'export', '--format', 'svd', '--out', schema);
    expect(a.code).toBe(EXIT.BAD_INPUT);
    expect(a.errs).toMatch(/is the input .*udma_m2s\.json/);
    expect(readFileSync(schema, 'utf8')).toBe(before);

    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep');
    const link = join(dir, 'link.svd');
    symlinkSync(victim, link);
    const b = await run('regs', 'export', '--format', 'svd', '--out', link);
    expect(b.code).toBe(EXIT.BAD_INPUT);
    expect(b.errs).toMatch(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('keep');

    const c = await run('regs', 'export', '--format', 'svd', '--out', dir);
    expect(c.code).toBe(EXIT.BAD_INPUT);
    expect(c.errs).toMatch(/is a directory/);
    expect(readdirSync(dir).sort()).toEqual(['link.svd', 'n.svd', 'sub', 'victim.txt']);
  });

  it('bad options are typed errors naming what was expected', async () => {
    const cases: [string[], RegExp][] = [
      [['--format', 'rdl'], /--format must be one of svd, ipxact, c-header/],
      [[], /--format is required/],
      [['--format', 'svd', '--profile', 'trn2'], /--profile needs --engine/],
      [['--format', 'svd', '--engine', '200'], /DEVICE_PROFILE.*no engine 200/],
      [['--format', 'svd', '--engine', '-1'], /--engine must be an engine id/],
      [['--format', 'svd', '--engine', '4', '--file', 'dge_host'], /dge_host has no BAR0 address/],
      [['--format', 'svd', '--file', 'udma_x'], /unknown register file 'udma_x'/],
    ];
    for (const [args, msg] of cases) {
      const r = await run('regs', 'export', ...args, '--out', join(dir, 'never.svd'));
      expect(r.code, args.join(' ')).toBe(EXIT.BAD_INPUT);
      expect(r.errs, args.join(' ')).toMatch(msg);
    }
    expect(readdirSync(dir)).not.toContain('never.svd');
  });
});
