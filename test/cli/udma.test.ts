import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerFileOffset } from '../../driver/index.ts';
import { nxdma } from './helpers.ts';

const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const files: string[] = [];
afterEach(() => {
  for (const f of files.splice(0)) {
    fs.chmodSync(f, 0o644);
    fs.rmSync(f, { force: true });
  }
});

/** A sparse trn2 BAR0 stand-in covering engine 0, read-only (0444). */
function readOnlyBar0(): string {
  const p = path.join(dir, `nxdma-cli-udma-${process.pid}-${files.length}-bar0`);
  fs.writeFileSync(p, '');
  fs.truncateSync(p, registerFileOffset('trn2', 0, 'udma_s2m') + 0x20000);
  fs.chmodSync(p, 0o444);
  files.push(p);
  return p;
}

describe('nxdma udma', () => {
  it('info --json: queues, ring limits, descriptors per packet', async () => {
    const r = await nxdma('udma', 'info', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      engine: 0,
      queues: 16,
      maxRingSize: 2 ** 24 - 16,
      maxDescPerPkt: 65,
      maxBytesPerDescriptor: 65536,
    });
    const t = await nxdma('udma', 'info');
    expect(t.text).toContain('descriptors per packet  65');
  });

  it('dump --mock --json: the engine state and 16 queues; text without --json', async () => {
    const r = await nxdma('udma', 'dump', '--mock', '--json');
    expect(r.code).toBe(0);
    const d = r.json as { queues: unknown[]; health: { aborted: boolean } };
    expect(d.queues).toHaveLength(16);
    expect(d.health.aborted).toBe(false);
    const q = await nxdma('udma', 'dump', '--mock', '--queue', '3', '--json');
    expect((q.json as { queues: { queue: number }[] }).queues.map((x) => x.queue)).toEqual([3]);
    const t = await nxdma('udma', 'dump', '--mock');
    expect(t.text).toContain('udma0 on');
  });

  it('dump --device maps the device read-only: works on a 0444 file and leaves it unchanged', async () => {
    const bar0 = readOnlyBar0();
    const before = fs.statSync(bar0);
    const r = await nxdma('udma', 'dump', '--device', bar0, '--profile', 'trn2', '--json');
    expect(r.errs).toBe('');
    expect(r.code).toBe(0);
    expect((r.json as { device: { isHardware: boolean } }).device.isHardware).toBe(true);
    expect(fs.statSync(bar0).mtimeMs).toBe(before.mtimeMs);
    // engine 0's register windows still hold zeros (tmpfs may allocate pages on a read fault)
    const unit = Buffer.alloc(0x40000);
    const fd = fs.openSync(bar0, 'r');
    try {
      fs.readSync(fd, unit, 0, unit.length, registerFileOffset('trn2', 0, 'udma_m2s'));
    } finally {
      fs.closeSync(fd);
    }
    expect(unit.every((b) => b === 0)).toBe(true);
  });

  it('bad arguments exit 2: --device without --profile, both --mock and --device, a bad engine or queue', async () => {
    const bar0 = readOnlyBar0();
    expect((await nxdma('udma', 'dump', '--device', bar0)).code).toBe(2);
    expect(
      (await nxdma('udma', 'dump', '--mock', '--device', bar0, '--profile', 'trn2')).code,
    ).toBe(2);
    expect((await nxdma('udma', 'info', '--engine', 'x')).code).toBe(2);
    expect((await nxdma('udma', 'dump', '--mock', '--queue', '16')).code).toBe(2);
    expect((await nxdma('udma', 'dump')).code).toBe(2);
  });
});
