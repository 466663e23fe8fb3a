/**
 * `nxdma run` of the DGE fixture programs (test/fixtures/programs/dge): the Pool
 * destination reduce, the host-path gather transpose, the 5-dim RTL program, the software backend,
 * the host tables and the CCE packets each verify with 0 mismatches or are refused with a typed
 * error before anything is written.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlowReport } from '../../flow/index.ts';
import { nxdma as run } from './helpers.ts';

const DIR = join(import.meta.dirname, '../fixtures/programs/dge');

describe('nxdma run: the DGE fixture programs', () => {
  it('every fixture verifies with 0 mismatches, each on the backend its rule names', async () => {
    const { code, json } = await run('run', DIR, '--mock', '--json');
    expect(code).toBe(0);
    const { reports, failures } = json as { reports: FlowReport[]; failures: unknown[] };
    expect(failures).toEqual([]);
    const by = new Map(reports.map((r) => [r.program, r]));
    for (const r of reports) expect(r.mismatches).toBe(0);
    expect(by.get('pool-reduce')!.lowering.poolExecuted).toBe(8);
    expect(by.get('gather-transpose-host')!.lowering.byBackend.none).toBe(1);
    expect(by.get('rtl-five-dims')!.lowering.byBackend.rtl).toBe(1);
    expect(by.get('software-backend')!.lowering.byBackend.software).toBe(1);
    expect(by.get('host-tables')!.arbitration.queues.reduce((a, q) => a + q.packets, 0)).toBe(48);
    expect(by.get('cce-packets')!.arbitration.queues.reduce((a, q) => a + q.packets, 0)).toBe(6);
  });

  it('--dge-backends gives the availability table: software only moves the SWDGE loads to the Q7 backend', async () => {
    const { code, json } = await run(
      'run',
      join(DIR, 'host-tables.json'),
      '--mock',
      '--json',
      '--dge-backends',
      'software',
    );
    expect(code).toBe(0);
    const r = json as FlowReport;
    expect(r.lowering.byBackend).toMatchObject({ pool: 0, software: 2 });
    expect(r.mismatches).toBe(0);
  });

  it('--dge-backends without pool refuses a destination reduce before anything is written (exit 2)', async () => {
    const { code, errs } = await run(
      'run',
      join(DIR, 'pool-reduce.json'),
      '--mock',
      '--dge-backends',
      'rtl,software',
    );
    expect(code).toBe(2);
    expect(errs).toMatch(/LOWER_ERROR|destination reduce needs the Pool backend/);
  });

  it('--dge-backends with an unknown backend is a bad argument (exit 2)', async () => {
    const { code, errs } = await run('run', DIR, '--mock', '--dge-backends', 'pool,gpu');
    expect(code).toBe(2);
    expect(errs).toMatch(/unknown DGE backend "gpu"/);
  });
});
