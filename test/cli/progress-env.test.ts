/**
 * Progress on stderr of a terminal, by phase (parse, compile, lower, run, verify; docs: parse,
 * render, write); colour per FORCE_COLOR / NO_COLOR; NXDMA_DEVICE / NXDMA_PROFILE as the defaults
 * of --device / --profile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { colorEnabled, makeOut } from '../../cli/output.ts';
import { PROGRESS_DELAY_MS, phases, progressDelay } from '../../cli/progress.ts';
import { registerFileOffset } from '../../driver/index.ts';
import { nxdma } from './helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const QOS_MIX = path.join(ROOT, 'examples/programs/qos-mix.json');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nxdma-progress-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const saved = { ...process.env };
afterEach(() => {
  for (const k of [
    'NXDMA_DEVICE',
    'NXDMA_PROFILE',
    'NXDMA_PROGRESS_DELAY_MS',
    'NO_COLOR',
    'FORCE_COLOR',
  ]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

function sink(tty: boolean) {
  const chunks: string[] = [];
  const s = new Writable({
    write(chunk, _e, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (tty) {
    s.isTTY = true;
    s.columns = 120;
  }
  return { stream: s, text: () => chunks.join('') };
}

/** Runs nxdma with real Out streams: stdout a pipe, stderr a terminal when `ttyErr`. */
async function withStreams(ttyErr: boolean, ...args: string[]) {
  const out = sink(false);
  const err = sink(ttyErr);
  const code = await main(['node', 'nxdma', ...args], makeOut(out.stream, err.stream));
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('colour: FORCE_COLOR and NO_COLOR', () => {
  it('a terminal colours unless NO_COLOR; FORCE_COLOR forces on (0/false: off) and wins', () => {
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '' }, true)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '' }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: 'false' }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
  });

  it('FORCE_COLOR colours the output of a pipe; without it a pipe stays plain', async () => {
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = '1';
    const forced = await withStreams(false, 'run', QOS_MIX, '--mock');
    expect(forced.stdout).toMatch(/\u001b\[/);
    delete process.env.FORCE_COLOR;
    const plain = await withStreams(false, 'run', QOS_MIX, '--mock');
    expect(plain.stdout).not.toMatch(/\u001b\[/);
  });
});

describe('progress by phase on stderr of a terminal', () => {
  it('phases() shows nothing before the delay, then the current phase; stop clears it', () => {
    const { stream, text } = sink(true);
    let t = 0;
    const p = phases({ label: 'p.json', stream, now: () => t });
    p.phase('parse');
    p.phase('compile', 'passes', 9);
    p.update(3, 9);
    expect(p.shown).toBe(false);
    expect(text()).toBe('');
    t = PROGRESS_DELAY_MS + 1;
    p.update(4, 9);
    expect(p.shown).toBe(true);
    expect(text()).toContain('p.json  compile');
    expect(text()).toContain('4/9 passes');
    p.phase('lower');
    expect(text()).toContain('p.json  lower');
    p.stop();
    p.stop();
    expect(p.phases).toEqual(['parse', 'compile', 'lower']);
    const pipe = sink(false);
    const q = phases({ label: 'x', stream: pipe.stream, delayMs: 0 });
    q.phase('parse');
    q.stop();
    expect(pipe.text()).toBe('');
  });

  it('NXDMA_PROGRESS_DELAY_MS sets the delay (0: at once); anything else keeps the default', () => {
    expect(progressDelay({ NXDMA_PROGRESS_DELAY_MS: '0' })).toBe(0);
    expect(progressDelay({ NXDMA_PROGRESS_DELAY_MS: '1500' })).toBe(1500);
    expect(progressDelay({ NXDMA_PROGRESS_DELAY_MS: 'soon' })).toBe(PROGRESS_DELAY_MS);
    expect(progressDelay({})).toBe(PROGRESS_DELAY_MS);
  });

  it('run, compile and docs draw every phase on a terminal stderr (not on stdout, not on a pipe)', async () => {
    process.env.NXDMA_PROGRESS_DELAY_MS = '0';
    const run = await withStreams(true, 'run', QOS_MIX, '--mock', '--json');
    expect(run.code).toBe(0);
    for (const ph of ['parse', 'compile', 'lower', 'reference', 'run', 'drain', 'verify'])
      expect(run.stderr, ph).toContain(`qos-mix.json  ${ph} [`);
    expect(() => JSON.parse(run.stdout)).not.toThrow(); // stdout: the one document only
    const compile = await withStreams(true, 'compile', QOS_MIX);
    for (const ph of ['parse', 'compile'])
      expect(compile.stderr).toContain(`qos-mix.json  ${ph} [`);
    expect(compile.stdout).not.toContain('[=');
    const docs = await withStreams(true, 'docs', '--out', path.join(tmp, 'site'), '--format', 'md');
    for (const ph of ['parse', 'render', 'write']) expect(docs.stderr).toContain(`docs  ${ph} [`);
    const piped = await withStreams(false, 'run', QOS_MIX, '--mock');
    expect(piped.stderr).toBe('');
  });
});

describe('NXDMA_DEVICE and NXDMA_PROFILE', () => {
  it('are the defaults of --device and --profile; --mock and given options win', async () => {
    const bar0 = path.join(tmp, 'bar0');
    fs.writeFileSync(bar0, '');
    fs.truncateSync(bar0, registerFileOffset('trn2', 0, 'udma_s2m') + 0x20000);
    const fd = fs.openSync(bar0, 'r+');
    const b = Buffer.alloc(4);
    b.writeUInt32LE(5);
    fs.writeSync(fd, b, 0, 4, registerFileOffset('trn2', 0, 'udma_m2s') + 0x1084);
    fs.closeSync(fd);
    process.env.NXDMA_DEVICE = bar0;
    process.env.NXDMA_PROFILE = 'trn2';
    const r = await nxdma('regs', 'read', '0x82001084', '--json');
    expect(r.code, r.errs).toBe(0);
    expect(r.json).toMatchObject({ path: 'M2S_Q[0].dwrr_cfg_2', value: 5 });
    expect((r.json as { device: string }).device).toContain(bar0);
    const mock = await nxdma('regs', 'read', '0x82001084', '--mock', '--json');
    expect(mock.code).toBe(0);
    expect(mock.json).toMatchObject({ value: 0 });
    process.env.NXDMA_PROFILE = 'nope';
    const bad = await nxdma('regs', 'read', '0x1084', '--json');
    expect(bad.code).toBe(2);
    expect((bad.json as { error: { code: string } }).error.code).toBe('DEVICE_PROFILE');
    const given = await nxdma('regs', 'read', '0x1084', '--profile', 'trn2', '--json');
    expect(given.code).toBe(0);
  });
});
