import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import type { Out } from '../../cli/output.ts';
import type { RegsListEntry } from '../../cli/commands/regs.ts';
import { getInstance, regFile } from '../../csr/index.ts';

async function run(...args: string[]) {
  const lines: string[] = [];
  const errs: string[] = [];
  let json: unknown;
  const out: Out = {
    color: false,
    tty: false,
    log: (l = '') => void lines.push(l),
    err: (l) => void errs.push(l),
    json: (v) => {
      json = v;
    },
  };
  const code = await main(['node', 'nxdma', ...args], out);
  return { code, text: lines.join('\n'), errs: errs.join('\n'), json };
}

describe('nxdma regs list', () => {
  it('--json lists every register instance with its absolute offset', async () => {
    const { code, json } = await run('regs', 'list', '--file', 'udma_m2s', '--json');
    expect(code).toBe(0);
    const list = json as RegsListEntry[];
    expect(list.length).toBe(regFile('udma_m2s').instances.length);
    const q = list.find((e) => e.path === 'M2S_Q[3].dwrr_cfg_2')!;
    expect(q).toMatchObject({ file: 'udma_m2s', offset: 0x4084, access: 'RW', provenance: 'seed' });
    expect(q.fields).toEqual([
      {
        name: 'q_qos',
        lsb: 0,
        width: 8,
        access: 'RW',
        reset: 0,
        resetKnown: false,
        provenance: 'seed',
      },
    ]);
    const rr = list.find((e) => e.path === 'M2S_rd.desc_pref_cfg_2')!;
    expect(rr.offset).toBe(getInstance(regFile('udma_m2s'), 'M2S_rd.desc_pref_cfg_2').offset);
    expect(rr.fields.find((f) => f.name === 'pref_force_rr')).toMatchObject({ lsb: 16, reset: 1 });
    expect(list.find((e) => e.path === 'M2S_Q[15].tdrtp_inc')).toMatchObject({
      access: 'INC',
      incrementTarget: 'tdrtp.offset',
      offset: 0x10038,
    });
  });

  it('without --file lists all three files; dge_host tables carry their entry index', async () => {
    const { json } = await run('regs', 'list', '--json');
    const list = json as RegsListEntry[];
    expect(new Set(list.map((e) => e.file))).toEqual(new Set(['udma_m2s', 'udma_s2m', 'dge_host']));
    expect(list.filter((e) => e.file === 'dge_host').map((e) => [e.path, e.offset])).toEqual([
      ['priority_class_map[0]', 0x18],
      ['priority_class_map[1]', 0x1c],
      ['priority_class_map[2]', 0x20],
      ['priority_class_map[3]', 0x24],
      ['mailbox[0]', 0x28],
      ['mailbox[1]', 0x2c],
      ['mailbox[2]', 0x30],
      ['mailbox[3]', 0x34],
    ]);
  });

  it('--inferred and --match filter the list', async () => {
    const { json } = await run('regs', 'list', '--inferred', '--json');
    const list = json as RegsListEntry[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((e) => e.inferred && e.provenance === 'inferred')).toBe(true);
    expect(list.some((e) => e.path === 'AXI_M2S_MLA.high_priority')).toBe(true);
    const m = (await run('regs', 'list', '--file', 'udma_m2s', '--match', 'DWRR_CFG_2', '--json'))
      .json as RegsListEntry[];
    expect(m.map((e) => e.path)).toEqual(
      Array.from({ length: 16 }, (_, i) => `M2S_Q[${i}].dwrr_cfg_2`),
    );
  });

  it('prints a readable table with the known gaps', async () => {
    const { code, text } = await run('regs', 'list', '--file', 'udma_s2m');
    expect(code).toBe(0);
    expect(text).toMatch(/^file\s+path\s+offset\s+access\s+reset\s+provenance\s+fields/);
    expect(text).toMatch(/udma_s2m\s+S2M_Q\[15\]\.rdrtp_inc\s+0x10038\s+INC>rdrtp/);
    expect(text).toContain('known gap: S2M_Q.q_qos (seed)');
  });

  it('rejects an unknown --file with exit code 2', async () => {
    const { code, errs } = await run('regs', 'list', '--file', 'udma_x');
    expect(code).toBe(2);
    expect(errs).toContain('BAD_ARGUMENT');
    expect(errs).toContain('udma_m2s, udma_s2m, dge_host');
  });

  it('--help shows an example', async () => {
    const { code, text } = await run('regs', 'list', '--help');
    expect(code).toBe(0);
    expect(text).toContain('Example:');
    expect(text).toContain('nxdma regs list');
  });
});
