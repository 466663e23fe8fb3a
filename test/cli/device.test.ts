/**
 * The CLI on a device file (a sparse file of the trn2 BAR0 size): read-only commands open the
 * device read-only, every writing command needs the one confirmation flag, `qos apply
 * --save-previous` / `qos restore` undo a plan exactly, and `run --device` maps only declared
 * DMA-visible memory that overlaps no register window.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerFileOffset } from '../../driver/index.ts';
import { nxdma as run } from './helpers.ts';

const EXAMPLE = new URL('../../examples/qos-plan.json', import.meta.url).pathname;
const PROGRAM = new URL('../../examples/programs/qos-mix.json', import.meta.url).pathname;
const CONFIRM = '--i-understand-this-writes-to-hardware';
const BAR0_SIZE = 0xb4000000 + 32 * 0x100000;
const dir = fs.mkdtempSync(
  path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'nxdma-cli-device-'),
);
const made: string[] = [];
afterEach(() => {
  for (const f of made.splice(0)) fs.rmSync(f, { force: true, recursive: true });
});

function bar0(mode?: number): string {
  const p = path.join(dir, `bar0-${made.length}`);
  fs.writeFileSync(p, '');
  fs.truncateSync(p, BAR0_SIZE);
  if (mode !== undefined) fs.chmodSync(p, mode);
  made.push(p);
  return p;
}

function readAt(p: string, offset: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const fd = fs.openSync(p, 'r');
  try {
    fs.readSync(fd, b, 0, length, offset);
  } finally {
    fs.closeSync(fd);
  }
  return b;
}

function writeWord(p: string, offset: number, value: number): void {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  const fd = fs.openSync(p, 'r+');
  try {
    fs.writeSync(fd, b, 0, 4, offset);
  } finally {
    fs.closeSync(fd);
  }
}

/** The M2S and S2M windows of engines 0..2 (what the example plan touches), as bytes. */
function image(p: string): Buffer {
  const parts: Buffer[] = [];
  for (const e of [0, 1, 2]) {
    parts.push(readAt(p, registerFileOffset('trn2', e, 'udma_m2s'), 0x20000));
    parts.push(readAt(p, registerFileOffset('trn2', e, 'udma_s2m'), 0x18000));
  }
  return Buffer.concat(parts);
}

const dev = (p: string) => ['--device', p, '--profile', 'trn2'];

describe('read-only commands work on a 0444 device file', () => {
  it('regs read, regs dump, qos diff, qos apply --dry-run and regs write --dry-run', async () => {
    const p = bar0(0o444);
    const cmds = [
      ['regs', 'read', 'M2S_Q[0].cfg', ...dev(p), '--json'],
      ['regs', 'dump', '--block', 'M2S_dwrr', ...dev(p), '--json'],
      ['qos', 'diff', EXAMPLE, ...dev(p), '--json', '--no-exit-code'], // a zero file differs
      ['qos', 'apply', EXAMPLE, ...dev(p), '--dry-run', '--json'],
      ['regs', 'write', 'M2S_Q[3].dwrr_cfg_2', 'q_qos=5', ...dev(p), '--dry-run', '--json'],
    ];
    for (const c of cmds) {
      const r = await run(...c);
      expect(r.code, `${c.join(' ')}: ${r.errs}`).toBe(0);
    }
    expect(image(p).every((x) => x === 0)).toBe(true);
  });

  it('a writing command on the 0444 file is refused by the open (never written)', async () => {
    const p = bar0(0o444);
    const r = await run('regs', 'write', 'M2S_Q[3].dwrr_cfg_2', 'q_qos=5', ...dev(p), CONFIRM);
    expect(r.code).toBe(3);
    expect(r.errs).toMatch(/DEVICE_OPEN/);
  });
});

describe('every writing command on --device takes the same confirmation', () => {
  it('regs write --device without the flag is refused before opening; with it, it writes', async () => {
    const p = bar0();
    const no = await run('regs', 'write', 'M2S_Q[3].dwrr_cfg_2', 'q_qos=5', ...dev(p));
    expect(no.code).toBe(2);
    expect(no.errs).toContain(CONFIRM);
    expect(readAt(p, registerFileOffset('trn2', 0, 'udma_m2s') + 0x4084, 4).readUInt32LE(0)).toBe(
      0,
    );
    const yes = await run('regs', 'write', 'M2S_Q[3].dwrr_cfg_2', 'q_qos=5', ...dev(p), CONFIRM);
    expect(yes.code, yes.errs).toBe(0);
    expect(readAt(p, registerFileOffset('trn2', 0, 'udma_m2s') + 0x4084, 4).readUInt32LE(0)).toBe(
      5,
    );
  });

  it('qos apply and qos restore --device without the flag are refused; --mock needs none', async () => {
    const p = bar0();
    const a = await run('qos', 'apply', EXAMPLE, ...dev(p));
    expect(a.code).toBe(2);
    expect(a.errs).toContain(CONFIRM);
    expect(image(p).every((x) => x === 0)).toBe(true);
    expect((await run('qos', 'apply', EXAMPLE, '--mock')).code).toBe(0);
    const r = await run('run', PROGRAM, ...dev(p));
    expect(r.code).toBe(2);
    expect(r.errs).toContain(CONFIRM);
  });
});

describe('qos apply --save-previous / qos restore', () => {
  it('a plan applied over non-zero registers is undone word for word', async () => {
    const p = bar0();
    const m2s0 = registerFileOffset('trn2', 0, 'udma_m2s');
    writeWord(p, m2s0 + 0x1020, 0x03030000); // M2S_Q[0].cfg: some bits already set
    writeWord(p, m2s0 + 0x340, 0x00070211); // M2S_dwrr.cfg_sched
    writeWord(p, m2s0 + 0x1084, 0x7); // M2S_Q[0].dwrr_cfg_2
    const before = image(p);
    const prev = path.join(dir, 'prev.json');
    made.push(prev);
    const a = await run(
      'qos',
      'apply',
      EXAMPLE,
      ...dev(p),
      '--save-previous',
      prev,
      CONFIRM,
      '--json',
    );
    expect(a.code, a.errs).toBe(0);
    const aj = a.json as {
      writes: { path: string; old: number }[];
      previous: { registers: number };
    };
    expect(aj.previous.registers).toBe(aj.writes.length);
    expect(image(p).equals(before)).toBe(false);
    const snap = JSON.parse(fs.readFileSync(prev, 'utf8'));
    expect(snap.format).toBe('nxdma-register-snapshot');
    expect(snap.registers).toHaveLength(aj.writes.length);
    expect(
      snap.registers.find(
        (r: { path: string; engine: number }) => r.path === 'M2S_Q[0].cfg' && r.engine === 0,
      ).value,
    ).toBe(0x03030000);
    // no temporary file left beside it
    expect(fs.readdirSync(dir).filter((f) => f.includes('prev.json'))).toEqual(['prev.json']);

    const dry = await run('qos', 'restore', prev, ...dev(p), '--dry-run', '--json');
    expect(dry.code, dry.errs).toBe(0);
    const dj = dry.json as { writes: { path: string; old: number; new: number }[] };
    expect(dj.writes.length).toBe(aj.writes.length);
    expect(image(p).equals(before)).toBe(false);

    const noConfirm = await run('qos', 'restore', prev, ...dev(p));
    expect(noConfirm.code).toBe(2);
    const r = await run('qos', 'restore', prev, ...dev(p), '--verify', CONFIRM, '--json');
    expect(r.code, r.errs).toBe(0);
    expect((r.json as { verified: boolean }).verified).toBe(true);
    expect(image(p).equals(before)).toBe(true);
    // restoring again changes nothing
    const again = await run('qos', 'restore', prev, ...dev(p), CONFIRM, '--json');
    expect((again.json as { writes: unknown[]; unchanged: number }).writes).toEqual([]);
  });

  it('--save-previous never overwrites the plan or an existing file; nothing is written then', async () => {
    const p = bar0();
    const planCopy = path.join(dir, 'plan.json');
    fs.copyFileSync(EXAMPLE, planCopy);
    made.push(planCopy);
    const planText = fs.readFileSync(planCopy, 'utf8');
    const over = await run(
      'qos',
      'apply',
      planCopy,
      ...dev(p),
      '--save-previous',
      planCopy,
      CONFIRM,
    );
    expect(over.code).toBe(2);
    expect(fs.readFileSync(planCopy, 'utf8')).toBe(planText);
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(planCopy, link);
    made.push(link);
    expect(
      (await run('qos', 'apply', planCopy, ...dev(p), '--save-previous', link, CONFIRM)).code,
    ).toBe(2);
    const old = path.join(dir, 'old.json');
    fs.writeFileSync(old, 'an older snapshot');
    made.push(old);
    const exists = await run('qos', 'apply', EXAMPLE, ...dev(p), '--save-previous', old, CONFIRM);
    expect(exists.code).toBe(2);
    expect(exists.errs).toMatch(/already exists/);
    expect(fs.readFileSync(old, 'utf8')).toBe('an older snapshot');
    expect(fs.readFileSync(planCopy, 'utf8')).toBe(planText);
    expect(image(p).every((x) => x === 0)).toBe(true);
  });

  it('a snapshot that names a doorbell or a wrong offset is refused before anything is written', async () => {
    const p = bar0();
    const bad = path.join(dir, 'bad.json');
    made.push(bad);
    const base = { format: 'nxdma-register-snapshot', version: 1, device: 'x', profile: 'trn2' };
    fs.writeFileSync(
      bad,
      JSON.stringify({
        ...base,
        registers: [
          { engine: 0, file: 'udma_m2s', path: 'M2S_Q[0].cfg', offset: 0x1020, value: 1 },
          { engine: 0, file: 'udma_m2s', path: 'M2S_Q[0].tdrtp_inc', offset: 0x1038, value: 5 },
        ],
      }),
    );
    const r = await run('qos', 'restore', bad, ...dev(p), CONFIRM);
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/REGISTER_READ_ONLY|not a plain read-write/);
    fs.writeFileSync(
      bad,
      JSON.stringify({
        ...base,
        registers: [
          { engine: 0, file: 'udma_m2s', path: 'M2S_Q[0].cfg', offset: 0x1024, value: 1 },
        ],
      }),
    );
    expect((await run('qos', 'restore', bad, ...dev(p), CONFIRM)).code).toBe(2);
    expect(image(p).every((x) => x === 0)).toBe(true);
  });
});

describe('qos restore input', () => {
  it('bad JSON names line:column; a FIFO is refused at once; a bad entry names its JSON path', async () => {
    const p = bar0();
    const bad = path.join(dir, 'bad-json.json');
    made.push(bad);
    fs.writeFileSync(bad, '{\n  "format": nope\n}\n');
    const r = await run('qos', 'restore', bad, ...dev(p), CONFIRM);
    expect(r.code).toBe(2);
    expect(r.errs).toContain(`${bad}:2:`);
    const fifo = path.join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    made.push(fifo);
    const f = await run('qos', 'restore', fifo, ...dev(p), CONFIRM);
    expect(f.code).toBe(2);
    expect(f.errs).toMatch(/FIFO/);
    fs.writeFileSync(
      bad,
      JSON.stringify(
        {
          format: 'nxdma-register-snapshot',
          version: 1,
          device: 'x',
          profile: 'trn2',
          registers: [
            { engine: 0, file: 'udma_m2s', path: 'M2S_Q[0].cfg', offset: 0x1020, value: -1 },
          ],
        },
        null,
        2,
      ),
    );
    const v = await run('qos', 'restore', bad, ...dev(p), CONFIRM);
    expect(v.code).toBe(2);
    expect(v.errs).toMatch(/registers\[0\]\.value/);
    expect(v.errs).toContain(`${bad}:12:7`);
  });
});

describe('run --device maps only declared DMA-visible memory', () => {
  it('no memory declared: refused naming the region, nothing opened', async () => {
    const p = bar0();
    const r = await run('run', PROGRAM, ...dev(p), CONFIRM);
    expect(r.code).toBe(3);
    expect(r.errs).toMatch(/MEMORY_UNMAPPED/);
    expect(r.errs).toMatch(/region "(host|sb)"/);
    expect(fs.statSync(p).blocks).toBe(0);
  });

  it("memory declared over engine 80's registers is refused naming both windows; no byte written", async () => {
    const p = bar0();
    const r = await run(
      'run',
      PROGRAM,
      ...dev(p),
      '--memory',
      '0x4000000+0x40000@0xa3000000',
      '--memory',
      '0x100000000+0x200000@0x10000000',
      CONFIRM,
    );
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/MEMORY_OVERLAP/);
    expect(r.errs).toMatch(/engine 80 UDMA unit/);
    expect(r.errs).toMatch(/memory\[\d\]/);
    expect(fs.statSync(p).blocks).toBe(0);
  });

  it('a bad --memory is bad input', async () => {
    const p = bar0();
    expect((await run('run', PROGRAM, ...dev(p), '--memory', '0x1000', CONFIRM)).code).toBe(2);
    expect((await run('run', PROGRAM, '--mock', '--memory', '0x0+0x1000')).code).toBe(2);
  });
});
