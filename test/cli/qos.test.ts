import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { QosJsonWrite } from '../../cli/commands/qos.ts';
import { planQos, registerFileOffset } from '../../driver/index.ts';
import { nxdma as run } from './helpers.ts';

const EXAMPLE = fileURL('../../examples/qos-plan.json');
const RATE_LIMIT_PLAN = fileURL('../../examples/qos-cookbook/rate-limit.json');
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const files: string[] = [];
afterEach(() => {
  for (const f of files.splice(0)) fs.rmSync(f, { force: true });
});

function fileURL(rel: string): string {
  return new URL(rel, import.meta.url).pathname;
}

function tempFile(name: string, content?: string, size?: number): string {
  const p = path.join(dir, `nxdma-cli-qos-${process.pid}-${files.length}-${name}`);
  fs.writeFileSync(p, content ?? '');
  if (size !== undefined) fs.truncateSync(p, size);
  files.push(p);
  return p;
}

/** A sparse stand-in for a trn2 BAR0 covering engines 0..2. */
function bar0(): string {
  return tempFile('bar0', '', registerFileOffset('trn2', 2, 'udma_s2m') + 0x20000);
}

function word(file: string, offset: number): number {
  const b = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, b, 0, 4, offset);
  } finally {
    fs.closeSync(fd);
  }
  return b.readUInt32LE(0);
}

describe('nxdma qos apply', () => {
  it('--mock --json prints { writes: [{ engine, file, path, offset, old, new }], warnings }', async () => {
    const r = await run('qos', 'apply', EXAMPLE, '--mock', '--json');
    expect(r.code).toBe(0);
    const j = r.json as { writes: QosJsonWrite[]; warnings: { code: string }[] };
    expect(Object.keys(j)).toEqual(['format', 'writes', 'warnings']);
    expect(j.writes.length).toBeGreaterThan(20);
    for (const w of j.writes)
      expect(Object.keys(w)).toEqual(['engine', 'file', 'path', 'offset', 'old', 'new']);
    // Offsets and paths are those of the plan (register-file relative, as regs list prints them).
    const planned = planQos(JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'))).writes;
    const cfg = j.writes.find((w) => w.engine === 0 && w.path === 'M2S_Q[0].cfg')!;
    expect(cfg).toEqual({
      engine: 0,
      file: 'udma_m2s',
      path: 'M2S_Q[0].cfg',
      offset: 0x1020,
      old: 0x03000000,
      new: 0x43000000,
    });
    for (const w of j.writes) {
      const p = planned.find((x) => x.engine === w.engine && x.path === w.path)!;
      expect(w.offset).toBe(p.offset);
      expect(w.file).toBe(p.file);
    }
    expect(j.warnings.map((w) => w.code)).toEqual(['INFERRED_SKIPPED']);
  });

  it('--allow-inferred writes the HP mask; text output is a table per engine', async () => {
    const r = await run('qos', 'apply', EXAMPLE, '--mock', '--allow-inferred', '--engine', '0');
    expect(r.code).toBe(0);
    expect(r.text).toContain('engine 0: prefetch qos, dwrr on');
    expect(r.text).toMatch(/0\s+P0\s+1\s+4\s+4\s+15\s+yes/);
    expect(r.text).toContain('AXI_M2S_MLA.high_priority');
    expect(r.text).not.toContain('engine 1:');
    expect(r.errs).toBe('');
  });

  it('on a device file: --dry-run touches nothing, apply writes the planned words, --verify reads back', async () => {
    const p = bar0();
    const m2s0 = registerFileOffset('trn2', 0, 'udma_m2s');
    const dry = await run(
      'qos',
      'apply',
      EXAMPLE,
      '--device',
      p,
      '--profile',
      'trn2',
      '--dry-run',
      '--json',
    );
    expect(dry.code).toBe(0);
    expect((dry.json as { writes: unknown[] }).writes.length).toBeGreaterThan(20);
    // Nothing written: every engine window still reads as zeros.
    for (const e of [0, 1, 2]) {
      for (const [file, size] of [
        ['udma_m2s', 0x20000],
        ['udma_s2m', 0x18000],
      ] as const) {
        const b = Buffer.alloc(size);
        const fd = fs.openSync(p, 'r');
        fs.readSync(fd, b, 0, size, registerFileOffset('trn2', e, file));
        fs.closeSync(fd);
        expect(b.every((x) => x === 0)).toBe(true);
      }
    }
    const real = await run(
      'qos',
      'apply',
      EXAMPLE,
      '--device',
      p,
      '--profile',
      'trn2',
      '--verify',
      '--json',
      '--i-understand-this-writes-to-hardware',
    );
    expect(real.code).toBe(0);
    expect((real.json as { writes: unknown[] }).writes).toEqual(
      (dry.json as { writes: unknown[] }).writes,
    );
    expect(word(p, m2s0 + 0x1084)).toBe(4); // M2S_Q[0].dwrr_cfg_2.q_qos of P0
    expect(word(p, m2s0 + 0x1020)).toBe(0x40000000); // AXI_qos 4 over a zero word
    // engine 1, M2S_Q[1].dwrr_cfg_2.q_qos (explicit qQos 3)
    expect(word(p, registerFileOffset('trn2', 1, 'udma_m2s') + 0x2084)).toBe(3);
    // diff after apply: nothing differs (HP read only with --allow-inferred).
    const d = await run('qos', 'diff', EXAMPLE, '--device', p, '--profile', 'trn2', '--json');
    const dj = d.json as { differences: number; notRead: { path: string }[] };
    expect(d.code).toBe(1); // the unread HP bits count as differing: exit 1
    expect(dj.notRead.map((x) => x.path)).toEqual(Array(3).fill('AXI_M2S_MLA.high_priority'));
    // Only the HP bits of the class queues (two per engine) are unknown.
    expect(dj.differences).toBe(6);
  });

  it('a real device only with --device; bad input exits 2', async () => {
    const none = await run('qos', 'apply', EXAMPLE);
    expect(none.code).toBe(2);
    expect(none.errs).toContain('--mock');
    expect((await run('qos', 'apply', EXAMPLE, '--mock', '--device', '/dev/null')).code).toBe(2);
    const noProfile = await run('qos', 'apply', EXAMPLE, '--device', '/dev/null');
    expect(noProfile.code).toBe(2);
    expect(noProfile.errs).toContain('--profile');
    expect((await run('qos', 'apply', EXAMPLE, '--mock', '--engine', '7')).code).toBe(2);
    const bad = tempFile(
      'bad.json',
      JSON.stringify({
        version: 1,
        engines: [{ engine: 0, queues: [{ queue: 1, class: 'P99' }] }],
      }),
    );
    const b = await run('qos', 'apply', bad, '--mock');
    expect(b.code).toBe(2);
    expect(b.errs).toContain('engines[0].queues[0].class');
    expect((await run('qos', 'apply', tempFile('x.json', '{ nope'), '--mock')).code).toBe(2);
    expect(
      (await run('qos', 'apply', path.join(dir, 'nxdma-no-such-plan.json'), '--mock')).code,
    ).toBe(2);
    const strict = await run('qos', 'apply', EXAMPLE, '--mock', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.errs).toContain('REGISTER_INFERRED');
    const explicitHp = tempFile(
      'hp.json',
      JSON.stringify({
        version: 1,
        engines: [{ engine: 0, queues: [{ queue: 1, qos: { highPriority: true } }] }],
      }),
    );
    expect((await run('qos', 'apply', explicitHp, '--mock')).code).toBe(2);
    expect((await run('qos', 'apply', explicitHp, '--mock', '--allow-inferred')).code).toBe(0);
    // An unopenable device file is a device error.
    expect(
      (
        await run(
          'qos',
          'apply',
          EXAMPLE,
          '--device',
          path.join(dir, 'nxdma-no-such-bar'),
          '--profile',
          'trn2',
          '--i-understand-this-writes-to-hardware',
        )
      ).code,
    ).toBe(3);
  });
});

describe('nxdma qos diff and show', () => {
  it('diff --mock lists every planned field with current and planned values', async () => {
    const r = await run('qos', 'diff', EXAMPLE, '--mock', '--engine', '0', '--json');
    expect(r.code).toBe(1); // a fresh mock differs from the plan
    const j = r.json as {
      fields: {
        path: string;
        field: string;
        current: number | null;
        planned: number;
        differs: boolean;
      }[];
      differences: number;
    };
    const f = j.fields.find((x) => x.path === 'M2S_rd.desc_pref_cfg_2')!;
    expect(f).toMatchObject({ field: 'pref_force_rr', current: 1, planned: 0, differs: true });
    expect(j.differences).toBe(j.fields.filter((x) => x.differs).length);
    const t = await run('qos', 'diff', EXAMPLE, '--mock', '--engine', '0');
    expect(t.text).toMatch(/\*\s+0\s+M2S_rd\.desc_pref_cfg_2\s+pref_force_rr\s+1\s+0/);
  });

  it('show needs no device: tables and planned writes', async () => {
    const r = await run('qos', 'show', EXAMPLE, '--json');
    expect(r.code).toBe(0);
    const j = r.json as {
      engines: { engine: number; armed: boolean }[];
      writes: { path: string; mask: number }[];
    };
    expect(j.engines.map((e) => [e.engine, e.armed])).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ]);
    expect(j.writes.find((w) => w.path === 'M2S_Q[0].cfg')!.mask).toBe(0x70000000);
    const t = await run('qos', 'show', EXAMPLE);
    expect(t.text).toContain('engine 1: prefetch qos, dwrr on [armed]');
    const rl = await run('qos', 'show', RATE_LIMIT_PLAN, '--allow-inferred');
    expect(rl.code).toBe(0);
    expect(rl.text).toContain(
      'engine 0: unchanged [not armed]; rate limit short_cycle 250, stream on burst 16384 refill 4096/short cycle',
    );
    expect(rl.text).toContain('on burst 4096 refill 512/short cycle');
  });

  it('--help shows an example', async () => {
    for (const sub of ['apply', 'diff', 'show']) {
      const r = await run('qos', sub, '--help');
      expect(r.code).toBe(0);
      expect(r.text).toContain(`$ nxdma qos ${sub}`);
    }
  });
});
