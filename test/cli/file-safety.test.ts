/**
 * CLI file handling (docs/testing.md, "CLI file-handling attack classes"): outputs never
 * overwrite the command's own inputs and never go through symbolic links; files are written
 * atomically; `docs --out` writes the whole site or nothing; a directory run leaves nothing in the
 * program folder that its next run would read; inputs must be regular files (a FIFO, a device, a
 * dangling link get a typed error, never a hang or an internal error); resource budgets refuse
 * work that would take hours or gigabytes with LIMIT_EXCEEDED naming the option that raises them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDocs, writeDocs, type DocsBuild } from '../../csr/docs/index.ts';
import { regFiles } from '../../csr/schema/files.ts';
import { nxdma } from './helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PROGRAMS = path.join(ROOT, 'examples/programs');
const TILED = path.join(PROGRAMS, 'tiled-load-save.json');
const PLAN = path.join(ROOT, 'examples/qos-plan.json');
const M2S = path.join(ROOT, 'csr/schemas/udma_m2s.json');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nxdma-files-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A fresh folder under the test's temporary folder. */
function folder(): string {
  const d = path.join(tmp, `case-${++n}`);
  fs.mkdirSync(d);
  return d;
}

/** Every entry under `dir`, recursively, relative, sorted (links not followed). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      out.push(path.relative(dir, p));
      if (fs.lstatSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** `node bin/nxdma.mjs ...` in a child process, killed after `ms` (a hang fails, not blocks). */
function spawnCli(args: string[], ms = 60_000) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/nxdma.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: ms,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, error: r.error };
}

describe('outputs never overwrite an input', () => {
  it('run --timeline naming the program itself (as given, by another spelling, by a hard link) is refused before anything runs', async () => {
    const d = folder();
    const prog = path.join(d, 'p.json');
    fs.copyFileSync(TILED, prog);
    const before = fs.readFileSync(prog, 'utf8');
    fs.mkdirSync(path.join(d, 'sub'));
    fs.linkSync(prog, path.join(d, 'hard.json'));
    for (const target of [prog, path.join(d, 'sub', '..', 'p.json'), path.join(d, 'hard.json')]) {
      const r = await nxdma('run', prog, '--mock', '--timeline', target);
      expect(r.code, target).toBe(2);
      expect(r.errs).toMatch(/BAD_ARGUMENT.*input .*p\.json.*refusing to overwrite/);
      expect(r.text).toBe(''); // nothing ran
    }
    expect(fs.readFileSync(prog, 'utf8')).toBe(before);
  });

  it('qos show --timeline naming the plan is refused; the plan is unchanged', async () => {
    const d = folder();
    const plan = path.join(d, 'plan.json');
    fs.copyFileSync(PLAN, plan);
    const r = await nxdma('qos', 'show', plan, '--timeline', plan);
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/refusing to overwrite/);
    expect(fs.readFileSync(plan, 'utf8')).toBe(fs.readFileSync(PLAN, 'utf8'));
  });

  it('docs --out holding a --schema input among the files of the site is refused; nothing is written', async () => {
    const d = folder();
    fs.mkdirSync(path.join(d, 'md'));
    const schema = path.join(d, 'md', 'udma_m2s.md');
    fs.copyFileSync(M2S, schema);
    const r = await nxdma('docs', '--out', d, '--format', 'md', '--schema', schema);
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/refusing to overwrite/);
    expect(fs.readFileSync(schema, 'utf8')).toBe(fs.readFileSync(M2S, 'utf8'));
    expect(tree(d)).toEqual(['md', 'md/udma_m2s.md']);
  });
});

describe('outputs never follow a symbolic link', () => {
  it('run --timeline onto a link to a file outside is refused; the file outside is unchanged', async () => {
    const d = folder();
    const outside = path.join(folder(), 'precious.txt');
    fs.writeFileSync(outside, 'keep me');
    fs.symlinkSync(outside, path.join(d, 'tl.svg'));
    const r = await nxdma('run', TILED, '--mock', '--timeline', path.join(d, 'tl.svg'));
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/symbolic link/);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    expect(fs.lstatSync(path.join(d, 'tl.svg')).isSymbolicLink()).toBe(true);
  });

  it('docs --out with a link to a file outside, or a folder that is a link outside, is refused; nothing is written', async () => {
    const out = folder();
    const elsewhere = folder();
    const victim = path.join(elsewhere, 'victim.html');
    fs.writeFileSync(victim, 'keep me');
    fs.mkdirSync(path.join(out, 'html'));
    fs.symlinkSync(victim, path.join(out, 'html', 'index.html'));
    const r = await nxdma('docs', '--out', out, '--format', 'html');
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/BAD_ARGUMENT.*index\.html is a symbolic link/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me');
    expect(tree(out)).toEqual(['html', 'html/index.html']);

    const out2 = folder();
    fs.symlinkSync(elsewhere, path.join(out2, 'md'));
    const r2 = await nxdma('docs', '--out', out2, '--format', 'md');
    expect(r2.code).toBe(2);
    expect(r2.errs).toMatch(/md is a symbolic link/);
    expect(tree(elsewhere)).toEqual(['victim.html']);
  });

  it('a dangling link left in the site folder is reported as stale, not a crash', async () => {
    const out = folder();
    expect((await nxdma('docs', '--out', out, '--format', 'md')).code).toBe(0);
    fs.symlinkSync(path.join(out, 'nothing-here'), path.join(out, 'md', 'old.md'));
    const r = await nxdma('docs', '--out', out, '--format', 'md', '--json');
    expect(r.code).toBe(0);
    expect((r.json as { stale: string[] }).stale).toContain('md/old.md');
  });
});

describe('atomic writes', () => {
  it('run --timeline replaces an existing file by rename (a new inode) and leaves no temporary file', async () => {
    const d = folder();
    const tl = path.join(d, 'tl.svg');
    fs.writeFileSync(tl, 'old');
    const ino = fs.statSync(tl).ino;
    const keep = path.join(d, 'reader-view.svg');
    fs.linkSync(tl, keep); // a reader holding the old file sees it whole
    const r = await nxdma('run', TILED, '--mock', '--timeline', tl);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(tl, 'utf8')).toMatch(/^<svg/);
    expect(fs.statSync(tl).ino).not.toBe(ino);
    expect(fs.readFileSync(keep, 'utf8')).toBe('old');
    expect(tree(d)).toEqual(['reader-view.svg', 'tl.svg']);
  });

  it('docs --out: a write that fails part-way leaves no half-written site (new folder and over an old site)', () => {
    const site = buildDocs(Object.values(regFiles()), { formats: ['md'] });
    // the last file of the build cannot be created (a name longer than the file system allows)
    const broken: DocsBuild = {
      ...site,
      files: [
        ...site.files,
        { path: `md/${'x'.repeat(300)}.md`, format: 'md', kind: 'page', content: 'x' },
      ],
    };
    const fresh = path.join(folder(), 'site');
    expect(() => writeDocs(broken, fresh)).toThrow(/cannot write/);
    expect(fs.existsSync(fresh)).toBe(false);

    const old = folder();
    writeDocs(site, old);
    const index = path.join(old, 'md', 'index.md');
    fs.writeFileSync(index, 'an older index');
    const before = tree(old);
    let err: unknown;
    try {
      writeDocs(broken, old);
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('BAD_ARGUMENT');
    expect(fs.readFileSync(index, 'utf8')).toBe('an older index');
    expect(tree(old)).toEqual(before);
  });
});

describe('a directory run leaves the program folder runnable', () => {
  it('--timeline with a .json name inside the program folder is refused; an .svg name there is written and the next run passes', async () => {
    const d = folder();
    fs.copyFileSync(TILED, path.join(d, 'a.json'));
    fs.copyFileSync(path.join(PROGRAMS, 'qos-mix.json'), path.join(d, 'b.json'));
    const r = await nxdma('run', d, '--mock', '--timeline', path.join(d, 'tl.json'));
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/program directory/);
    expect(tree(d)).toEqual(['a.json', 'b.json']);

    const ok = await nxdma('run', d, '--mock', '--json', '--timeline', path.join(d, 'tl.svg'));
    expect(ok.code).toBe(0);
    expect(tree(d)).toEqual(['a.json', 'b.json', 'tl.a.svg', 'tl.b.svg']);
    const again = await nxdma('run', d, '--mock', '--json');
    expect(again.code).toBe(0);
    expect((again.json as { total: { programs: number } }).total.programs).toBe(2);
  });
});

describe('inputs must be regular files', () => {
  it('a dangling link in run <dir> is a typed failure of that file (no internal error); the other programs run', async () => {
    const d = folder();
    fs.copyFileSync(TILED, path.join(d, 'a.json'));
    fs.symlinkSync(path.join(d, 'gone.json'), path.join(d, 'b.json'));
    const r = await nxdma('run', d, '--mock', '--json');
    expect(r.code).toBe(2);
    const j = r.json as {
      failures: { file: string; error: { code: string; message: string } }[];
      reports: unknown[];
    };
    expect(j.reports).toHaveLength(1);
    expect(j.failures).toHaveLength(1);
    expect(j.failures[0].error.code).toBe('BAD_ARGUMENT');
    expect(j.failures[0].error.message).toMatch(/symbolic link to a file that does not exist/);
    const human = await nxdma('run', d, '--mock');
    expect(human.errs).not.toMatch(/internal error|INTERNAL/);
  });

  it('a dangling link or a directory given as a program, plan or schema is BAD_ARGUMENT', async () => {
    const d = folder();
    const dangling = path.join(d, 'x.json');
    fs.symlinkSync(path.join(d, 'none.json'), dangling);
    for (const args of [
      ['compile', dangling],
      ['run', dangling, '--mock'],
      ['qos', 'show', dangling],
      ['qos', 'show', d],
    ]) {
      const r = await nxdma(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.errs).toMatch(/BAD_ARGUMENT/);
    }
    const s = await nxdma('docs', '--out', path.join(d, 'site'), '--schema', dangling);
    expect(s.code).toBe(2);
    expect(s.errs).toMatch(/symbolic link to a file that does not exist/);
  });

  it('a FIFO as compile, run, qos show or docs --schema input is refused at once (no hang); so is a character device', () => {
    const d = folder();
    const fifo = path.join(d, 'prog.json');
    const mk = spawnSync('mkfifo', [fifo]);
    expect(mk.status, 'mkfifo must exist for this test').toBe(0);
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
    for (const args of [
      ['compile', fifo],
      ['run', fifo, '--mock'],
      ['qos', 'show', fifo],
      ['docs', '--out', path.join(d, 'site'), '--schema', fifo],
      ['compile', '/dev/zero'],
    ]) {
      const r = spawnCli(args, 30_000);
      expect(r.signal, `${args.join(' ')} hung`).toBeNull();
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/is a (FIFO \(named pipe\)|character device), not a regular file/);
      expect(r.stderr).not.toMatch(/internal error/);
    }
    expect(fs.existsSync(path.join(d, 'site'))).toBe(false);
  }, 180_000);
});

describe('resource budgets', () => {
  const loopProgram = (iterations: number) => {
    const p = JSON.parse(fs.readFileSync(TILED, 'utf8'));
    for (const f of p.functions)
      for (const b of f.blocks) if (b.loop) b.loop.iterations = iterations;
    return p;
  };

  it('a loop of 2^31-1 iterations is refused with LIMIT_EXCEEDED naming the limit, --max-iterations and the line', async () => {
    const d = folder();
    const file = path.join(d, 'big.json');
    fs.writeFileSync(file, JSON.stringify(loopProgram(2 ** 31 - 1), null, 2));
    const r = await nxdma('run', file, '--mock');
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/LIMIT_EXCEEDED/);
    expect(r.errs).toMatch(/2,147,483,647 loop iterations, more than the limit of 1,000,000/);
    expect(r.errs).toMatch(/--max-iterations/);
    expect(r.errs).toMatch(/big\.json:\d+:\d+/);
  });

  it('--max-iterations moves the limit both ways', async () => {
    const d = folder();
    const file = path.join(d, 'p.json');
    fs.writeFileSync(file, JSON.stringify(loopProgram(8)));
    const low = await nxdma('run', file, '--mock', '--max-iterations', '7');
    expect(low.code).toBe(2);
    expect(low.errs).toMatch(/LIMIT_EXCEEDED.*8 loop iterations.*limit of 7/);
    expect((await nxdma('run', file, '--mock', '--max-iterations', '8')).code).toBe(0);
    const bad = await nxdma('run', file, '--mock', '--max-iterations', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.errs).toMatch(/BAD_ARGUMENT.*--max-iterations/);
  });

  it('ring memory past --max-ring-bytes is refused before a device is built', async () => {
    const r = await nxdma('run', TILED, '--mock', '--max-ring-bytes', '1024');
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(
      /LIMIT_EXCEEDED.*bytes of ring memory.*limit of 1,024.*--max-ring-bytes/,
    );
  });

  it('docs --schema with a register array of 10^6 entries is refused with LIMIT_EXCEEDED naming --max-register-words', async () => {
    const d = folder();
    const doc = JSON.parse(fs.readFileSync(M2S, 'utf8'));
    doc.RegFile.SizeInBytes = 8 * 2 ** 20;
    doc.RegFile.Registers = [
      {
        Name: 'huge_table',
        AddressOffset: '0x400000',
        Description: 'a table of a million words',
        ArraySize: 1_000_000,
        Access: 'RW',
        Provenance: 'seed',
        Fields: [],
      },
    ];
    const file = path.join(d, 'huge.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = await nxdma('docs', '--out', path.join(d, 'site'), '--schema', file);
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/LIMIT_EXCEEDED.*1,000,\d+ register words.*limit of 65,536/);
    expect(r.errs).toMatch(/--max-register-words/);
    expect(fs.existsSync(path.join(d, 'site'))).toBe(false);
    const raised = await nxdma(
      'docs',
      '--out',
      path.join(d, 'site'),
      '--schema',
      M2S,
      '--max-register-words',
      '100',
    );
    expect(raised.code).toBe(2);
    expect(raised.errs).toMatch(/LIMIT_EXCEEDED.*limit of 100/);
  });
});
