import { describe, expect, it } from 'vitest';
import type { RegsListEntry, RegsValue } from '../../cli/commands/regs.ts';
import { decodeFields, encodeFields, getInstance, regFile, regFileMaps } from '../../csr/index.ts';
import { nxdma as run } from './helpers.ts';

describe('nxdma regs list', () => {
  it('--json lists every register instance with its absolute offset', async () => {
    const { code, json } = await run('regs', 'list', '--file', 'udma_m2s', '--json');
    expect(code).toBe(0);
    const list = (json as { registers: RegsListEntry[] }).registers;
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
    const list = (json as { registers: RegsListEntry[] }).registers;
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
    const list = (json as { registers: RegsListEntry[] }).registers;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((e) => e.inferred && e.provenance === 'inferred')).toBe(true);
    expect(list.some((e) => e.path === 'AXI_M2S_MLA.high_priority')).toBe(true);
    const m = (
      (await run('regs', 'list', '--file', 'udma_m2s', '--match', 'DWRR_CFG_2', '--json')).json as {
        registers: RegsListEntry[];
      }
    ).registers;
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

const m2s = regFile('udma_m2s');
const cfgSchedMap = regFileMaps.udma_m2s.blocks.M2S_dwrr.registers.cfg_sched;
const cfgSched = getInstance(m2s, 'M2S_dwrr.cfg_sched');

describe('nxdma regs read / write / dump / decode', () => {
  it('read --json gives the word and its decoded fields (mock: the reset word)', async () => {
    const { code, json } = await run('regs', 'read', 'M2S_rd.desc_pref_cfg_2', '--mock', '--json');
    expect(code).toBe(0);
    const v = json as RegsValue & { device: string; engine: number };
    const inst = getInstance(m2s, 'M2S_rd.desc_pref_cfg_2');
    expect(v).toMatchObject({ file: 'udma_m2s', path: inst.path, offset: inst.offset, engine: 0 });
    expect(v.value).toBe(inst.register.reset);
    const rr = v.fields.find((f) => f.name === 'pref_force_rr')!;
    expect(rr).toMatchObject({ bits: '16:16', value: 1, enum: 'round_robin' });
  });

  it('read finds dge_host words and takes a file prefix; an unknown path is exit 2', async () => {
    const dge = await run('regs', 'read', 'priority_class_map[2]', '--mock', '--json');
    expect(dge.code).toBe(0);
    expect((dge.json as RegsValue).offset).toBe(
      getInstance(regFile('dge_host'), 'priority_class_map[2]').offset,
    );
    const s2m = await run('regs', 'read', 'udma_s2m:S2M_Q[1].cfg', '--mock', '--json');
    expect((s2m.json as RegsValue).file).toBe('udma_s2m');
    const bad = await run('regs', 'read', 'M2S_Q[16].cfg', '--mock', '--json');
    expect(bad.code).toBe(2);
    expect(bad.errs).toContain('REGISTER_UNKNOWN');
    const wo = await run('regs', 'read', 'M2S_Q[0].q_sw_ctrl', '--mock');
    expect(wo.code).toBe(2);
    expect(wo.errs).toContain('REGISTER_WRITE_ONLY');
  });

  it('read needs exactly one device; a device that cannot be opened is exit 3', async () => {
    expect((await run('regs', 'read', 'M2S_Q[0].cfg')).code).toBe(2);
    const r = await run('regs', 'read', 'M2S_Q[0].cfg', '--device', '/nonexistent/resource0');
    expect(r.code).toBe(3);
    expect(r.errs).toContain('DEVICE_OPEN');
    expect((await run('regs', 'read', 'M2S_Q[0].cfg', '--mock', '--engine', 'x')).code).toBe(2);
  });

  it('write --json: read-modify-write through the runtime, read back; names and numbers', async () => {
    const { code, json } = await run(
      'regs',
      'write',
      'M2S_dwrr.cfg_sched',
      'en_dwrr=dwrr',
      'inc_factor=0x5',
      '--mock',
      '--json',
    );
    expect(code).toBe(0);
    const w = json as RegsValue & {
      before: number;
      written: number;
      after: number;
      dryRun: boolean;
    };
    const expected = encodeFields(
      cfgSchedMap,
      { en_dwrr: 1, inc_factor: 5 },
      cfgSched.register.reset,
    );
    expect(w).toMatchObject({
      before: cfgSched.register.reset,
      written: expected,
      after: expected,
      dryRun: false,
    });
    expect(w.offset).toBe(cfgSched.offset);
    expect(Object.fromEntries(w.fields.map((f) => [f.name, f.value]))).toEqual(
      decodeFields(cfgSchedMap, expected),
    );
  });

  it('write --dry-run shows the word and writes nothing', async () => {
    const { code, json } = await run(
      'regs',
      'write',
      'M2S_Q[3].dwrr_cfg_2',
      'q_qos=5',
      '--mock',
      '--dry-run',
      '--json',
    );
    expect(code).toBe(0);
    expect(json).toMatchObject({ dryRun: true, written: 5, after: null, before: 0 });
  });

  it('write refuses RO fields, inferred registers without --allow-inferred, bad values: exit 2', async () => {
    const ro = await run('regs', 'write', 'M2S.state', 'comp_ctrl=1', '--mock');
    expect(ro.code).toBe(2);
    expect(ro.errs).toContain('REGISTER_READ_ONLY');
    const inf = await run('regs', 'write', 'S2M_Q[0].cfg', 'en_stream=1', '--mock', '--json');
    expect(inf.code).toBe(2);
    expect(inf.errs).toContain('REGISTER_INFERRED');
    expect(inf.errs).toContain('AXI_qos');
    const ok = await run(
      'regs',
      'write',
      'S2M_Q[0].cfg',
      'en_stream=1',
      '--mock',
      '--allow-inferred',
      '--json',
    );
    expect(ok.code).toBe(0);
    const range = await run('regs', 'write', 'M2S_dwrr.cfg_sched', 'weight_inc=4', '--mock');
    expect(range.code).toBe(2);
    expect(range.errs).toContain('OUT_OF_RANGE');
    expect((await run('regs', 'write', 'M2S_dwrr.cfg_sched', 'nope=1', '--mock')).code).toBe(2);
    expect((await run('regs', 'write', 'M2S_dwrr.cfg_sched', 'weight_inc', '--mock')).code).toBe(2);
  });

  it('dump --block decodes every word of the block; an unknown block is exit 2', async () => {
    const { code, json } = await run('regs', 'dump', '--mock', '--block', 'M2S_dwrr', '--json');
    expect(code).toBe(0);
    const list = (json as { registers: RegsValue[] }).registers;
    const block = m2s.instances.filter((i) => i.block?.name === 'M2S_dwrr');
    expect(list.map((v) => [v.path, v.offset, v.value])).toEqual(
      block.map((i) => [i.path, i.offset, i.register.reset]),
    );
    const q = (
      (await run('regs', 'dump', '--mock', '--block', 'S2M_Q', '--json')).json as {
        registers: RegsValue[];
      }
    ).registers;
    const wo = q.filter((v) => v.value === null).map((v) => v.access);
    expect(new Set(wo)).toEqual(new Set(['WO', 'INC']));
    const bad = await run('regs', 'dump', '--mock', '--block', 'NOPE');
    expect(bad.code).toBe(2);
    expect(bad.errs).toContain('BAD_ARGUMENT');
  });

  it('decode --json needs no device; a value wider than 32 bits is exit 2', async () => {
    const { code, json } = await run(
      'regs',
      'decode',
      'M2S_dwrr.cfg_sched',
      '0x00030111',
      '--json',
    );
    expect(code).toBe(0);
    const v = json as RegsValue;
    expect(v.value).toBe(0x00030111);
    expect(Object.fromEntries(v.fields.map((f) => [f.name, f.value]))).toEqual(
      decodeFields(cfgSchedMap, 0x00030111),
    );
    expect(v.fields.find((f) => f.name === 'pkt_mode_en')!.enum).toBe('packet');
    const bad = await run('regs', 'decode', 'M2S_dwrr.cfg_sched', '0x100000000');
    expect(bad.code).toBe(2);
    expect((await run('regs', 'decode', 'M2S_dwrr.cfg_sched', 'zz')).code).toBe(2);
  });

  it("each sub-command's --help shows an example and the exit codes", async () => {
    for (const sub of ['read', 'write', 'dump', 'decode']) {
      const { code, text } = await run('regs', sub, '--help');
      expect(code).toBe(0);
      expect(text).toContain('Example:');
      expect(text).toContain(`$ nxdma regs ${sub}`);
      expect(text).toContain('Exit codes:');
    }
  });
});
