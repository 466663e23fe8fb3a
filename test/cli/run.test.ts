import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlowReport, FlowTotals } from '../../flow/index.ts';
import { SERVICE_STAGES } from '../../csr/io.ts';
import { nxdma as run } from './helpers.ts';

const EXAMPLES = join(import.meta.dirname, '../../examples/programs');

function tmpProgram(p: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'nxdma-run-'));
  const f = join(dir, 'prog.json');
  writeFileSync(f, JSON.stringify(p));
  return f;
}

/** An in-place copy that shifts 1024 fp32 elements up by one: the result depends on the copy order. */
const overlapping = {
  name: 'overlap',
  arch: 30,
  memory: {
    regions: [{ name: 'sb', type: 'sb', base: '0x4000000', size: '0x10000' }],
    tensors: [{ name: 't', region: 'sb', dtype: 'fp32', shape: [2048] }],
  },
  functions: [
    {
      name: 'main',
      blocks: [
        {
          name: 'entry',
          instructions: [
            {
              op: 'DMACopy',
              src: { tensor: 't', offset: 0, partition: [1, 1024] },
              dst: { tensor: 't', offset: 1, partition: [1, 1024] },
            },
          ],
        },
      ],
    },
  ],
};

describe('nxdma run', () => {
  it('runs every example program of a directory: one report each and a total, exit 0', async () => {
    const { code, json } = await run('run', EXAMPLES, '--mock', '--json');
    expect(code).toBe(0);
    const { reports, total, failures } = json as {
      reports: FlowReport[];
      total: FlowTotals;
      failures: unknown[];
    };
    expect(reports.length).toBeGreaterThanOrEqual(5);
    expect(failures).toEqual([]);
    expect(total.programs).toBe(reports.length);
    expect(total.mismatches).toBe(0);
    expect(total.passed).toBe(reports.length);
    for (const r of reports) expect(r.mismatches).toBe(0);
  });

  it('--json of one program: { passes, queues: [{ name, engine, qid, descriptors, bytes }], bytesMoved, verifiedBytes, mismatches, arbitration }', async () => {
    const { code, json } = await run(
      'run',
      join(EXAMPLES, 'tiled-load-save.json'),
      '--mock',
      '--json',
    );
    expect(code).toBe(0);
    const r = json as FlowReport;
    expect(Object.keys(r)).toEqual(
      expect.arrayContaining([
        'passes',
        'queues',
        'bytesMoved',
        'verifiedBytes',
        'mismatches',
        'arbitration',
      ]),
    );
    for (const q of r.queues) {
      expect(Object.keys(q)).toEqual(
        expect.arrayContaining(['name', 'engine', 'qid', 'descriptors', 'bytes']),
      );
    }
    expect(r.mismatches).toBe(0);
    expect(r.bytesMoved).toBe(r.queues.reduce((a, q) => a + q.bytes, 0));
  });

  it('prints a readable report: queues, arbitration, verdict; --trace adds the micro-ops', async () => {
    const { code, text } = await run('run', join(EXAMPLES, 'qos-mix.json'), '--mock', '--trace');
    expect(code).toBe(0);
    expect(text).toMatch(/queue\s+engine\s+qid\s+qos\s+dmas\s+descriptors\s+bytes/);
    expect(text).toMatch(/arbitration \(QoS/);
    expect(text).toMatch(/0 mismatches OK/);
    expect(text).toMatch(/packets served/);
    const dyn = await run('run', join(EXAMPLES, 'dynamic-offset.json'), '--mock', '--trace');
    expect(dyn.text).toMatch(/S: push GENERATE to DMA\[0\]: RD : addr=0x/);
    expect(dyn.text).toMatch(/-> INDIRECT1D/);
  });

  it('--trace names the stage that decided each packet served, in the text and the JSON', async () => {
    const t = await run('run', join(EXAMPLES, 'qos-mix.json'), '--mock', '--trace');
    expect(t.code).toBe(0);
    expect(t.text).toMatch(/packets served \(.*deciding stage\)/);
    const lines = t.text.split('\n').filter((l) => /^ {4}#\d+ udma\d+ q\d+ /.test(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toMatch(/ q_qos \d+ decided by (prefetch|scheduler|completion|rate-limiter)$/);
    }
    const j = await run('run', join(EXAMPLES, 'qos-mix.json'), '--mock', '--trace', '--json');
    expect(j.code).toBe(0);
    const service = (j.json as FlowReport).trace!.service;
    expect(service.length).toBeGreaterThan(0);
    for (const e of service) expect(SERVICE_STAGES).toContain(e.stage);
    // the text shows the same stage as the JSON, packet by packet
    lines.forEach((l, i) => expect(l.endsWith(`decided by ${service[i].stage}`)).toBe(true));
  });

  it('exit 1 when a destination byte differs from the reference', async () => {
    const f = tmpProgram(overlapping);
    const { code, text } = await run('run', f, '--mock');
    expect(code).toBe(1);
    expect(text).toMatch(/MISMATCH/);
    const j = await run('run', f, '--mock', '--json');
    expect(j.code).toBe(1);
    expect((j.json as FlowReport).mismatches).toBeGreaterThan(0);
  });

  it('exit 2 on bad input: unreadable file, invalid program, no device chosen', async () => {
    expect((await run('run', join(EXAMPLES, 'nope.json'), '--mock')).code).toBe(2);
    const bad = tmpProgram({ name: 'x', arch: 30, memory: {}, functions: [] });
    const r = await run('run', bad, '--mock');
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/PROGRAM_INVALID/);
    const none = await run('run', join(EXAMPLES, 'qos-mix.json'));
    expect(none.code).toBe(2);
    expect(none.errs).toMatch(/--mock for the mock device/);
  });

  it('--device is refused without the hardware confirmation, before anything is opened', async () => {
    const r = await run(
      'run',
      join(EXAMPLES, 'qos-mix.json'),
      '--device',
      '/nonexistent/resource0',
      '--profile',
      'trn2',
    );
    expect(r.code).toBe(2);
    expect(r.errs).toMatch(/--i-understand-this-writes-to-hardware/);
    expect(r.errs).not.toMatch(/DEVICE_OPEN/);
    const noProfile = await run(
      'run',
      join(EXAMPLES, 'qos-mix.json'),
      '--device',
      '/x',
      '--i-understand-this-writes-to-hardware',
    );
    expect(noProfile.code).toBe(2);
    expect(noProfile.errs).toMatch(/--profile/);
    const both = await run('run', join(EXAMPLES, 'qos-mix.json'), '--mock', '--device', '/x');
    expect(both.code).toBe(2);
  });

  it('--device with the confirmation opens the device (a missing file is a device error, exit 3)', async () => {
    const r = await run(
      'run',
      join(EXAMPLES, 'qos-mix.json'),
      '--device',
      '/nonexistent/resource0',
      '--profile',
      'trn2',
      '--memory',
      '0x4000000+0x40000',
      '--memory',
      '0x100000000+0x200000',
      '--i-understand-this-writes-to-hardware',
    );
    expect(r.code).toBe(3);
    expect(r.errs).toMatch(/DEVICE_OPEN/);
  });

  it('--help shows an example', async () => {
    const { code, text } = await run('run', '--help');
    expect(code).toBe(0);
    expect(text).toMatch(/\$ nxdma run examples\/programs --mock/);
  });
});
