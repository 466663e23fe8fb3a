/**
 * The CLI contract a CI pipeline relies on (docs/cli.md, Conventions): comparing commands exit 1
 * on a difference; --json prints exactly one JSON document carrying `format`, for a success and
 * for every error ({ code, message, where, expected }); a directory run counts invalid programs
 * as failures; human errors use one prefix and show what was expected; JSON input errors name
 * line:column; enum and range errors name the allowed values; programs and plans take `$schema`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JSON_FORMAT } from '../../cli/contract.ts';
import { main } from '../../cli/main.ts';
import type { Out } from '../../cli/output.ts';
import { applyQos, openDevice, registerFileOffset } from '../../driver/index.ts';
import { parseQosPlan } from '../../driver/qos/index.ts';
import { nxdma } from './helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PROGRAMS = path.join(ROOT, 'examples/programs');
const QOS_MIX = path.join(PROGRAMS, 'qos-mix.json');
const PLAN = path.join(ROOT, 'examples/qos-plan.json');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nxdma-contract-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** `nxdma <args>` with stdout lines and JSON documents kept apart, in the order printed. */
async function raw(...args: string[]) {
  const stdout: string[] = [];
  const docs: unknown[] = [];
  const errs: string[] = [];
  const out: Out = {
    color: false,
    tty: false,
    log: (l = '') => void stdout.push(l),
    err: (l) => void errs.push(l),
    json: (v) => void docs.push(JSON.parse(JSON.stringify(v))),
  };
  const code = await main(['node', 'nxdma', ...args], out);
  return { code, stdout, docs, errs: errs.join('\n') };
}

function write(name: string, value: unknown): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return p;
}

const program = () => JSON.parse(fs.readFileSync(QOS_MIX, 'utf8'));

describe('exit codes: a comparing command exits 1 on a difference', () => {
  it('qos diff exits 1 when a planned field differs, 0 with --no-exit-code; the help says so', async () => {
    const r = await nxdma('qos', 'diff', PLAN, '--mock', '--json');
    expect((r.json as { differences: number }).differences).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    const h = await nxdma('qos', 'diff', PLAN, '--mock');
    expect(h.code).toBe(1);
    expect((await nxdma('qos', 'diff', PLAN, '--mock', '--no-exit-code')).code).toBe(0);
    const help = await nxdma('qos', 'diff', '--help');
    expect(help.text).toMatch(/--no-exit-code/);
    expect(help.text).toMatch(/Exits 1 when any planned field differs/);
    expect(help.text).toMatch(/1 {2}verification failed, or a comparing command \(qos diff\)/);
    // every command's help carries the same exit-code table
    expect((await nxdma('run', '--help')).text).toMatch(/comparing command \(qos diff\)/);
  });

  it('qos diff exits 0 when the device holds the plan', async () => {
    const bar0 = path.join(tmp, 'bar0');
    fs.writeFileSync(bar0, '');
    fs.truncateSync(bar0, registerFileOffset('trn2', 2, 'udma_s2m') + 0x20000);
    const dev = openDevice({ path: bar0, profile: 'trn2', engines: [0, 1, 2] });
    try {
      applyQos(dev, parseQosPlan(JSON.parse(fs.readFileSync(PLAN, 'utf8'))), {
        allowInferred: true,
      });
    } finally {
      dev.dispose();
    }
    const args = ['qos', 'diff', PLAN, '--device', bar0, '--profile', 'trn2', '--allow-inferred'];
    const r = await nxdma(...args, '--json');
    expect((r.json as { differences: number }).differences).toBe(0);
    expect(r.code).toBe(0);
  });
});

describe('--json: exactly one JSON document on stdout, with a format version', () => {
  it('successes of every kind carry format first', async () => {
    for (const args of [
      ['run', QOS_MIX, '--mock', '--json'],
      ['compile', QOS_MIX, '--json'],
      ['regs', 'list', '--file', 'dge_host', '--json'],
      ['regs', 'dump', '--mock', '--block', 'M2S_dwrr', '--json'],
      ['regs', 'decode', 'M2S_dwrr.cfg_sched', '0x00070211', '--json'],
      ['qos', 'show', PLAN, '--json'],
      ['docs', '--out', path.join(tmp, 'site'), '--format', 'md', '--json'],
    ]) {
      const r = await raw(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toEqual([]);
      expect(r.docs).toHaveLength(1);
      const doc = r.docs[0] as Record<string, unknown>;
      expect(Object.keys(doc)[0]).toBe('format');
      expect(doc.format).toBe(JSON_FORMAT);
    }
  });

  it('every error prints one document { format, error: { code, message, where, expected } }', async () => {
    const bad = write('bad-program.json', { ...program(), arch: 35 });
    const cases: [string[], string, number][] = [
      [['run', bad, '--mock', '--json'], 'PROGRAM_INVALID', 2],
      [['run', path.join(tmp, 'missing.json'), '--mock', '--json'], 'BAD_ARGUMENT', 2],
      [['run', QOS_MIX, '--json'], 'BAD_ARGUMENT', 2],
      [['qos', 'show', path.join(tmp, 'missing.json'), '--json'], 'BAD_ARGUMENT', 2],
      [['regs', 'read', 'M2S_Q[0].nope', '--mock', '--json'], 'REGISTER_UNKNOWN', 2],
      [
        ['regs', 'read', 'M2S_Q[0].dwrr_cfg_2', '--mock', '--engine', '200', '--json'],
        'DEVICE_PROFILE',
        2,
      ],
      [['docs', '--format', 'pdf', '--json'], 'BAD_ARGUMENT', 2],
      [['run', '--no-such-option', '--json'], 'BAD_ARGUMENT', 2],
      [['qos', 'apply', PLAN, '--json'], 'BAD_ARGUMENT', 2],
    ];
    for (const [args, code, exit] of cases) {
      const r = await raw(...args);
      const name = args.join(' ');
      expect(r.code, name).toBe(exit);
      expect(r.stdout, name).toEqual([]);
      expect(r.docs, name).toHaveLength(1);
      const doc = r.docs[0] as { format: string; error: Record<string, unknown> };
      expect(doc.format).toBe(JSON_FORMAT);
      expect(doc.error.code, name).toBe(code);
      expect(typeof doc.error.message).toBe('string');
      expect(typeof doc.error.where, name).toBe('string');
      expect(typeof doc.error.expected, name).toBe('string');
    }
  });

  it('compile --json on an invalid program keeps its report shape and names the error fully', async () => {
    const bad = write('bad-compile.json', { ...program(), arch: 35 });
    const r = await raw('compile', bad, '--json');
    expect(r.code).toBe(2);
    expect(r.docs).toHaveLength(1);
    const doc = r.docs[0] as { format: string; errors: Record<string, unknown>[] };
    expect(doc.format).toBe(JSON_FORMAT);
    expect(doc.errors[0]).toMatchObject({ code: 'PROGRAM_INVALID' });
    expect(typeof doc.errors[0].where).toBe('string');
    expect(typeof doc.errors[0].expected).toBe('string');
  });

  it('a directory run counts an invalid program as a program and as a failure', async () => {
    const d = path.join(tmp, 'dir-run');
    fs.mkdirSync(d);
    fs.copyFileSync(QOS_MIX, path.join(d, 'good.json'));
    fs.writeFileSync(path.join(d, 'bad.json'), '{ "arch": 35 ');
    const r = await nxdma('run', d, '--mock', '--json');
    expect(r.code).toBe(2);
    const j = r.json as {
      total: { programs: number; passed: number; failed: number; invalid: number };
      failures: { file: string; error: { code: string; where: string } }[];
    };
    expect(j.total).toMatchObject({ programs: 2, passed: 1, failed: 1, invalid: 1 });
    expect(j.failures[0].error.code).toBe('PROGRAM_INVALID');
    expect(j.failures[0].error.where).toMatch(/bad\.json:1:\d+/);
    const h = await nxdma('run', d, '--mock');
    expect(h.text).toMatch(/total: 2 programs, 1 passed, 1 failed/);
  });
});

describe('human errors: one prefix, and what was expected', () => {
  it('every error line starts with "nxdma: error [CODE]:" and the expected detail follows', async () => {
    const e = await nxdma('regs', 'read', 'M2S_Q[0].dwrr_cfg_2', '--mock', '--engine', '200');
    expect(e.code).toBe(2);
    expect(e.errs).toMatch(/^nxdma: error \[DEVICE_PROFILE\]: profile trn2 has no engine 200$/m);
    expect(e.errs).toMatch(/^ {2}expected: engine ids of trn2/m);
    const u = await nxdma('run', '--no-such-option');
    expect(u.errs).toMatch(/^nxdma: error \[BAD_ARGUMENT\]: unknown option '--no-such-option'/);
    const d = path.join(tmp, 'dir-human');
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'bad.json'), '[');
    const r = await nxdma('run', d, '--mock');
    for (const line of r.errs.split('\n').filter((l) => l && !l.startsWith('  ')))
      expect(line).toMatch(/^nxdma: error \[[A-Z_]+\]: /);
  });
});

describe('JSON inputs: line:column, allowed values, $schema', () => {
  it('a syntax error names file:line:column (program, plan, schema)', async () => {
    const prog = write('syntax.json', '{\n  "name": "x",\n  "arch": 50,,\n}\n');
    const r = await raw('compile', prog, '--json');
    expect(r.code).toBe(2);
    const err = (r.docs[0] as { errors: { where: string; message: string }[] }).errors[0];
    expect(err.where).toBe(`${prog}:3:14`);
    expect(err.message).toMatch(/line 3, column 14/);
    const plan = write('syntax-plan.json', '{ "version": 1,\n "engines": [ }');
    const p = await nxdma('qos', 'show', plan);
    expect(p.errs).toMatch(new RegExp(`PLAN_INVALID.*${plan}:2:15`));
    const schema = write('syntax-schema.json', '{"RegFile": {\n\n   "Name": tru }}');
    const s = await nxdma('docs', '--out', path.join(tmp, 's'), '--schema', schema);
    expect(s.errs).toMatch(new RegExp(`SCHEMA_INVALID.*${schema}:3:`));
  });

  it('an invalid value names its line:column and the allowed values', async () => {
    const p = program();
    p.functions[0].blocks[0].instructions.find((i: { qos?: unknown }) => i.qos !== undefined).qos =
      'P15';
    const file = write('p15.json', p);
    const r = await nxdma('compile', file);
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(
      /qos one of P0\.\.P14, Default, Unassigned \(or an ordinal 0\.\.16\), got "P15"/,
    );
    const text = fs.readFileSync(file, 'utf8').split('\n');
    const m = new RegExp(`${file}:(\\d+):(\\d+)`).exec(r.errs)!;
    expect(text[Number(m[1]) - 1].slice(Number(m[2]) - 1)).toMatch(/^"qos": "P15"/);

    const a = await nxdma('compile', write('a35.json', { ...program(), arch: 35 }));
    expect(a.errs).toMatch(/arch one of 10, 20, 30, 40, 50 .*got 35/);

    const plan = JSON.parse(fs.readFileSync(PLAN, 'utf8'));
    plan.engines[0].queues[0].class = 'P15';
    const q = await nxdma('qos', 'show', write('q15.json', plan));
    expect(q.code).toBe(2);
    expect(q.errs).toMatch(/class one of P0\.\.P14, Default, Unassigned, got "P15"/);
    expect(q.errs).toMatch(/q15\.json:\d+:\d+/);
  });

  it('programs and plans accept a $schema key; the JSON Schemas list it', async () => {
    const p = { $schema: '../compiler/ir/program.schema.json', ...program() };
    expect((await nxdma('run', write('with-schema.json', p), '--mock', '--json')).code).toBe(0);
    const plan = {
      $schema: '../driver/qos/plan.schema.json',
      ...JSON.parse(fs.readFileSync(PLAN, 'utf8')),
    };
    expect((await nxdma('qos', 'show', write('plan-schema.json', plan), '--json')).code).toBe(0);
    const progSchema = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'compiler/ir/program.schema.json'), 'utf8'),
    );
    expect(progSchema.properties.$schema).toMatchObject({ type: 'string' });
  });
});
