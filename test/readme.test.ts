/**
 * Every example in the README runs as written, against the mock: each command of a `sh` block
 * (except the install and test commands, which CI itself runs) and each `ts` block, saved as a
 * script inside the checkout and run with tsx.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

interface Block {
  lang: string;
  code: string;
  line: number;
}

function blocks(md: string): Block[] {
  const out: Block[] = [];
  const re = /^```(\w+)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(md); m; m = re.exec(md)) {
    out.push({ lang: m[1], code: m[2], line: md.slice(0, m.index).split('\n').length });
  }
  return out;
}

/** Commands CI runs itself (installing, and the test command that runs this very test). */
function runnable(command: string): string | null {
  if (command === 'npm test') return null;
  return command.replace(/^npm ci && /, '');
}

const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };

function run(cmd: string, args: string[]) {
  return spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
}

const all = blocks(readme);

describe('README', () => {
  it('has the two quick-start commands and examples in sh and ts', () => {
    const sh = all.filter((b) => b.lang === 'sh').map((b) => b.code.trim());
    expect(sh[0]).toBe('npm ci && npm start');
    expect(sh[1]).toBe('npm test');
    expect(all.filter((b) => b.lang === 'ts').length).toBeGreaterThanOrEqual(3);
  });

  for (const b of all.filter((x) => x.lang === 'sh')) {
    for (const command of b.code.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
      const cmd = runnable(command.trim());
      if (cmd === null) continue;
      it(`runs \`${cmd}\` (README line ${b.line})`, () => {
        const r = run('bash', ['-c', cmd]);
        expect(r.stderr + r.stdout).not.toMatch(/internal error/);
        expect(r.status, `${cmd}\n${r.stderr}`).toBe(0);
        expect(r.stdout.length).toBeGreaterThan(0);
        if (cmd.includes('--json')) expect(() => JSON.parse(r.stdout)).not.toThrow();
      });
    }
  }

  all
    .filter((x) => x.lang === 'ts')
    .forEach((b, i) => {
      it(`runs the TypeScript example at README line ${b.line}`, () => {
        const dir = join(root, 'out', 'readme');
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `example-${i}.ts`);
        writeFileSync(file, b.code);
        const r = run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), file]);
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout.length).toBeGreaterThan(0);
      });
    });
});
