/**
 * The conventions every nxdma command follows (docs/cli.md), checked over the whole command tree
 * as buildProgram builds it, so a new command is held to them without a test of its own:
 * help lists the options, an example and the exit codes; every command that reports takes
 * --json; the examples in the help run as written (those that need no hardware and write no
 * file); output is plain (no ANSI escape) when stdout is not a terminal or NO_COLOR is set.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, EXIT_CODES_HELP } from '../../cli/exit.ts';
import { commands } from '../../cli/commands/index.ts';
import { buildProgram, main, subcommandOf } from '../../cli/main.ts';
import { type Out, makeOut } from '../../cli/output.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function quietOut(): { out: Out; text: () => string } {
  const lines: string[] = [];
  return {
    out: {
      color: false,
      tty: false,
      log: (l = '') => void lines.push(l),
      err: (l) => void lines.push(l),
      json: (v) => void lines.push(JSON.stringify(v)),
    },
    text: () => lines.join('\n'),
  };
}

/** Every command of the tree with its full name ("nxdma qos show"), depth first. */
async function walk(): Promise<{ cmd: Command; path: string[] }[]> {
  const program = await buildProgram({ out: quietOut().out });
  const all: { cmd: Command; path: string[] }[] = [];
  const visit = (cmd: Command, path: string[]): void => {
    all.push({ cmd, path });
    for (const c of cmd.commands) visit(c, [...path, c.name()]);
  };
  visit(program, []);
  return all;
}

/** The full --help text of `nxdma <path>` (as the user sees it, with the texts added after it). */
async function helpOf(path: string[]): Promise<{ code: number; text: string }> {
  const q = quietOut();
  const code = await main(['node', 'nxdma', ...path, '--help'], q.out);
  return { code, text: q.text() };
}

/** The `$ nxdma ...` example lines of a help text, continuation lines joined. */
function examplesIn(help: string): string[][] {
  const out: string[][] = [];
  const lines = help.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*\$ nxdma\b(.*)$/.exec(lines[i]);
    if (!m) continue;
    let cmd = m[1];
    while (cmd.endsWith('\\') && i + 1 < lines.length) cmd = cmd.slice(0, -1) + lines[++i];
    const words = cmd.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
    out.push(words.map((w) => w.replace(/^(["'])(.*)\1$/, '$2')));
  }
  return out;
}

const tree = await walk();
const leaves = tree.filter(({ cmd }) => cmd.commands.length === 0);

describe('every command of nxdma', () => {
  it('the tree holds the documented commands', () => {
    const names = tree.map((t) => t.path.join(' '));
    for (const n of ['run', 'compile', 'docs', 'regs list', 'regs read', 'qos show', 'qos apply'])
      expect(names).toContain(n);
    expect(leaves.length).toBeGreaterThanOrEqual(10);
  });

  it('each sub-command summary (listed by `nxdma --help` without loading it) is its description', async () => {
    for (const entry of commands) {
      const lazy = await buildProgram({ out: quietOut().out }, '');
      const full = await buildProgram({ out: quietOut().out }, entry.name);
      const stub = lazy.commands.find((c) => c.name() === entry.name);
      const real = full.commands.find((c) => c.name() === entry.name);
      expect(real, entry.name).toBeDefined();
      expect(stub?.description(), entry.name).toBe(real?.description());
    }
  });

  it('loads only the sub-command argv names', () => {
    expect(subcommandOf(['node', 'nxdma', '--help'])).toBe('');
    expect(subcommandOf(['node', 'nxdma', '--version'])).toBe('');
    expect(subcommandOf(['node', 'nxdma', 'regs', 'decode', 'M2S_dwrr.cfg_sched', '7'])).toBe(
      'regs',
    );
    expect(subcommandOf(['node', 'nxdma', 'help', 'qos'])).toBe('qos');
  });

  for (const { cmd, path } of tree) {
    const name = ['nxdma', ...path].join(' ');
    it(`${name} --help lists its options, an example and the exit codes`, async () => {
      const { code, text } = await helpOf(path);
      expect(code).toBe(EXIT.OK);
      expect(text).toMatch(/^Usage: /m);
      for (const o of cmd.options) expect(text, `${name}: option ${o.flags}`).toContain(o.flags);
      expect(text).toContain('-h, --help');
      expect(text).toMatch(/^Examples?:$/m);
      // an example of this very command (a group may show one of its sub-commands)
      const examples = examplesIn(text);
      expect(examples.length, `${name}: no "$ nxdma ..." example`).toBeGreaterThan(0);
      expect(
        examples.some((e) => path.every((p, i) => e[i] === p)),
        `${name}: no example starts with "nxdma ${path.join(' ')}"`,
      ).toBe(true);
      expect(text).toContain(EXIT_CODES_HELP);
      // the exit codes appear once
      expect(text.split('Exit codes:').length).toBe(2);
    });
  }

  for (const { cmd, path } of leaves) {
    const name = ['nxdma', ...path].join(' ');
    it(`${name} reports and takes --json, with an example of it`, async () => {
      expect(cmd.options.map((o) => o.long)).toContain('--json');
      const examples = examplesIn((await helpOf(path)).text);
      expect(
        examples.some((e) => path.every((p, i) => e[i] === p) && e.includes('--json')),
        `${name}: no --json example`,
      ).toBe(true);
    });
    it(`${name}: an unknown option is bad input (exit 2)`, async () => {
      const q = quietOut();
      expect(await main(['node', 'nxdma', ...path, '--no-such-option'], q.out)).toBe(
        EXIT.BAD_INPUT,
      );
    });
  }
});

describe('docs/cli.md', () => {
  const doc = readFileSync(ROOT + 'docs/cli.md', 'utf8');
  for (const { cmd, path } of tree.filter((t) => t.path.length > 0)) {
    const name = ['nxdma', ...path].join(' ');
    it(`describes ${name} and each of its options`, () => {
      expect(doc).toMatch(new RegExp(`^#+ \`${name}[ \`]`, 'm'));
      if (cmd.commands.length > 0) return;
      const section = doc.slice(doc.search(new RegExp(`^#+ \`${name}[ \`]`, 'm')));
      const parent = doc.slice(doc.search(new RegExp(`^## \`nxdma ${path[0]}\``, 'm')));
      for (const o of cmd.options) {
        const flag = o.long ?? o.flags;
        // the option is named in the command's section (or, for shared options, its group's)
        expect(
          section.includes(`\`${flag}`) || parent.includes(`\`${flag}`),
          `${name} ${flag}`,
        ).toBe(true);
      }
    });
  }
});

/**
 * The help examples that run anywhere: on the mock or no device, writing no file. The others
 * name hardware (--device), placeholder files (plan.json, prog.json) or write files (docs,
 * --timeline, --out).
 */
async function runnableExamples(): Promise<string[][]> {
  const all: string[][] = [];
  for (const { path } of tree) all.push(...examplesIn((await helpOf(path)).text));
  const seen = new Set<string>();
  return all.filter((e) => {
    const key = e.join(' ');
    if (seen.has(key)) return false;
    seen.add(key);
    if (e[0] === 'docs') return false;
    if (e.some((w) => w === '--device' || w === '--timeline' || w === '--out')) return false;
    return e.every((w) => !/\.json$/.test(w) || w.startsWith('examples/'));
  });
}

const withRoot = (args: string[]): string[] =>
  args.map((w) => (w.startsWith('examples/') || w === 'examples' ? ROOT + w : w));

describe('the examples of the help texts', () => {
  it('run as written (exit 0), and their --json forms print JSON', async () => {
    const examples = await runnableExamples();
    expect(examples.length).toBeGreaterThanOrEqual(15);
    for (const e of examples) {
      const lines: string[] = [];
      const json: unknown[] = [];
      const out: Out = {
        color: false,
        tty: false,
        log: (l = '') => void lines.push(l),
        err: () => undefined,
        json: (v) => void json.push(v),
      };
      const code = await main(['node', 'nxdma', ...withRoot(e)], out);
      expect(code, `nxdma ${e.join(' ')}\n${lines.join('\n')}`).toBe(EXIT.OK);
      if (e.includes('--json')) {
        // stdout is exactly one JSON document
        expect(lines, `nxdma ${e.join(' ')}`).toEqual([]);
        expect(json.length).toBe(1);
        expect(typeof json[0]).toBe('object');
      } else {
        expect(json).toEqual([]);
        expect(lines.join('\n').length).toBeGreaterThan(0);
      }
    }
    expect(examples.filter((e) => e.includes('--json')).length).toBeGreaterThanOrEqual(5);
  });
});

/** A stdout/stderr pair that records bytes; a terminal when `tty`. */
function streams(tty: boolean) {
  const chunks: string[] = [];
  const make = () => {
    const s = new Writable({
      write(chunk, _e, cb) {
        chunks.push(String(chunk));
        cb();
      },
    }) as Writable & { isTTY?: boolean };
    if (tty) s.isTTY = true;
    return s;
  };
  return { stdout: make(), stderr: make(), text: () => chunks.join('') };
}

describe('plain output', () => {
  const saved = process.env.NO_COLOR;
  afterEach(() => {
    if (saved === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved;
  });

  // eslint-disable-next-line no-control-regex
  const ANSI = /\u001b\[/;

  async function outputOf(tty: boolean, noColor: boolean): Promise<string> {
    if (noColor) process.env.NO_COLOR = '1';
    else delete process.env.NO_COLOR;
    const s = streams(tty);
    const out = makeOut(s.stdout, s.stderr);
    expect(out.color).toBe(tty && !noColor);
    const examples = await runnableExamples();
    for (const e of examples) await main(['node', 'nxdma', ...withRoot(e)], out);
    // errors are printed plain too
    await main(['node', 'nxdma', 'qos', 'show', ROOT + 'examples/no-such-plan.json'], out);
    return s.text();
  }

  it('has no ANSI escape when stdout is not a terminal', async () => {
    const text = await outputOf(false, false);
    expect(text.length).toBeGreaterThan(1000);
    expect(text).not.toMatch(ANSI);
  });

  it('has no ANSI escape on a terminal when NO_COLOR is set', async () => {
    const text = await outputOf(true, true);
    expect(text.length).toBeGreaterThan(1000);
    expect(text).not.toMatch(ANSI);
  });

  it('uses colour on a terminal without NO_COLOR (the check above can fail)', async () => {
    expect(await outputOf(true, false)).toMatch(ANSI);
  });
});
