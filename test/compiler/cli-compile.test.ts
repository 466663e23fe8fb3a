import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import type { Out } from '../../cli/output.ts';
import { fixture, save } from './helpers.ts';

function capture(): Out & { stdout: string[]; stderr: string[]; values: unknown[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const values: unknown[] = [];
  return {
    stdout,
    stderr,
    values,
    color: false,
    tty: false,
    log: (l = '') => void stdout.push(l),
    err: (l) => void stderr.push(l),
    json: (v) => void values.push(v),
  };
}

async function nxdma(...args: string[]) {
  const out = capture();
  const code = await main(['node', 'nxdma', ...args], out);
  return { code, out };
}

const EX = 'examples/programs';

describe('nxdma compile', () => {
  it('prints a readable summary', async () => {
    const { code, out } = await nxdma('compile', `${EX}/tiled-load-save.json`);
    expect(code).toBe(0);
    const text = out.stdout.join('\n');
    expect(text).toContain('ArchLevel 30 (Cayman)');
    expect(text).toContain('assign_hwdge_engine');
    expect(text).toContain('SP:0/input/P1/16/16');
    expect(text).toContain('inserted: 1 SwitchQueueInstance');
  });

  it('--json gives { arch, instructions, queues, inserted, passes, errors }', async () => {
    const { code, out } = await nxdma('compile', `${EX}/transpose-chain.json`, '--json');
    expect(code).toBe(0);
    const j = out.values[0] as Record<string, any>;
    expect(Object.keys(j)).toEqual([
      'format',
      'arch',
      'instructions',
      'queues',
      'inserted',
      'passes',
      'errors',
    ]);
    expect(j.arch).toBe(30);
    const x2 = j.instructions.find((i: any) => i.name === 'xpose_2');
    expect(x2).toMatchObject({
      op: 'DMACopy',
      engine: 'SP',
      dgeType: 'HWDGE',
      eligible: ['None', 'HWDGE'],
      queueType: 'data',
    });
    expect(x2.deps).toContainEqual({
      on: j.instructions.find((i: any) => i.name === 'xpose_1').id,
      kind: 'Output',
    });
    expect(j.queues[0]).toEqual(
      expect.objectContaining({
        name: expect.any(String),
        type: 'input',
        engine: 'SP',
        instructions: 1,
      }),
    );
    expect(j.inserted[0]).toEqual(
      expect.objectContaining({ op: 'SwitchQueueInstance', block: 'main/entry' }),
    );
    expect(j.errors).toEqual([]);
  });

  it('--arch overrides the program ArchLevel', async () => {
    const { out } = await nxdma('compile', `${EX}/transpose-chain.json`, '--arch', '20', '--json');
    const j = out.values[0] as Record<string, any>;
    expect(j.arch).toBe(20);
    expect(j.instructions.find((i: any) => i.name === 'xpose_1').dgeType).toBe('None'); // no HWDGE below 30
    expect((await nxdma('compile', `${EX}/qos-mix.json`, '--arch', '35')).code).toBe(2);
  });

  it('exit code 2 on a compile error, with every error of the failing pass', async () => {
    const b = fixture(30);
    b.function('main')
      .block('e')
      .compute('Matmult', { writes: ['s0'] })
      .save({ ...save('s0', 'h'), dgeType: 'HWDGE' });
    const dir = mkdtempSync(join(tmpdir(), 'nxdma-compile-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(b.program()));
    const human = await nxdma('compile', file);
    expect(human.code).toBe(2);
    expect(human.out.stderr.join('\n')).toContain('[DMA_ON_PE_ENGINE]');
    const { code, out } = await nxdma('compile', file, '--json');
    expect(code).toBe(2);
    const j = out.values[0] as Record<string, any>;
    expect(j.errors).toEqual([
      expect.objectContaining({
        code: 'COMPILE_ERROR',
        subCode: 'DMA_ON_PE_ENGINE',
        pass: 'assign_hwdge_engine',
      }),
    ]);
    expect(j.passes.at(-1).name).toBe('assign_hwdge_engine');
  });

  it('exit code 2 on a program error, naming the JSON path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nxdma-compile-'));
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        arch: 30,
        memory: {},
        functions: [{ name: 'main', blocks: [{ name: 'e', instructions: [{ op: 'Load' }] }] }],
      }),
    );
    const { code, out } = await nxdma('compile', file);
    expect(code).toBe(2);
    expect(out.stderr.join('\n')).toContain('$.functions[0].blocks[0].instructions[0].src');
    writeFileSync(file, '{ not json');
    expect((await nxdma('compile', file)).code).toBe(2);
    expect((await nxdma('compile', join(dir, 'missing.json'))).code).toBe(2);
  });

  it('--help shows an example', async () => {
    const { code, out } = await nxdma('compile', '--help');
    expect(code).toBe(0);
    expect(out.stdout.join('\n')).toContain('$ nxdma compile examples/programs/');
  });
});
