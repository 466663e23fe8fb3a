import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { programJsonSchema, SCHEMA_PATH } from '../../../compiler/ir/gen-schema.ts';
import {
  DGEType,
  DMAQoSClass,
  InstructionType,
  MemoryType,
  TensorKind,
} from '../../../compiler/ir/enums.ts';
import { parseProgram } from '../../../compiler/ir/to-module.ts';
import { fixture, load, thrown } from '../helpers.ts';

const EXAMPLES = new URL('../../../examples/programs/', import.meta.url);

function minimal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    arch: 30,
    memory: {
      regions: [
        { name: 'host', type: 'dram', base: '0x100000000', size: '0x10000' },
        { name: 'sb', type: 'sb', base: 0x4000000, size: 0x10000 },
      ],
      tensors: [
        { name: 'x', region: 'host', dtype: 'fp32', shape: [16, 16], kind: 'Input' },
        { name: 't', region: 'sb', dtype: 'fp32', shape: [16, 16] },
      ],
    },
    functions: [
      {
        name: 'main',
        blocks: [
          {
            name: 'entry',
            instructions: [
              {
                op: 'Load',
                name: 'ld',
                src: { tensor: 'x', partition: [16, 16], free: [[1, 16]] },
                dst: { tensor: 't', partition: [16, 16], free: [[1, 16]] },
              },
            ],
          },
        ],
      },
    ],
    ...extra,
  };
}

function issuesOf(e: unknown): { path: string; message: string }[] {
  expect(e).toBeInstanceOf(NxdmaError);
  expect((e as NxdmaError).code).toBe('PROGRAM_INVALID');
  return (e as NxdmaError).details.issues as { path: string; message: string }[];
}

describe('program format', () => {
  it('parses a minimal program into IR with addresses, dtypes and kinds', () => {
    const m = parseProgram(minimal());
    expect(m.arch).toBe(30);
    const x = m.tensorByName.get('x')!;
    expect(x.address).toBe(0x1_0000_0000);
    expect(x.elemSize).toBe(4);
    expect(x.kind).toBe(TensorKind.Input);
    expect(x.memType).toBe(MemoryType.DRAM);
    const ld = m.instrByName.get('ld')!;
    expect(ld.op).toBe(InstructionType.Load);
    expect(ld.dgeType).toBe(DGEType.Unassigned);
    expect(ld.qos).toBe(DMAQoSClass.Default);
    expect(ld.src!.dims()).toEqual([
      [16, 16],
      [1, 16],
    ]);
    expect(ld.src!.numElements).toBe(256);
  });

  it('accepts an ArchLevel codename and the --arch override', () => {
    expect(parseProgram(minimal({ arch: 'CoreV5' })).arch).toBe(50);
    expect(parseProgram(minimal(), { arch: 20 }).arch).toBe(20);
    expect(issuesOf(thrown(() => parseProgram(minimal(), { arch: 35 })))[0].path).toBe('--arch');
  });

  it('parse errors name the JSON path', () => {
    const p = minimal();
    (p.functions as any)[0].blocks[0].instructions[0].src.partition = [16, 0];
    const issues = issuesOf(thrown(() => parseProgram(p, { file: 'p.json' })));
    expect(issues[0].path).toBe('$.functions[0].blocks[0].instructions[0].src.partition[1]');
    const e = thrown(() => parseProgram(p, { file: 'p.json' })) as NxdmaError;
    expect(e.message).toContain('p.json');
  });

  it('rejects an unknown opcode, and SwitchQueueInstance in input (the pass inserts it)', () => {
    for (const op of ['Frobnicate', 'SwitchQueueInstance']) {
      const p = minimal();
      (p.functions as any)[0].blocks[0].instructions[0].op = op;
      expect(issuesOf(thrown(() => parseProgram(p)))[0].path).toBe(
        '$.functions[0].blocks[0].instructions[0].op',
      );
    }
  });

  it('semantic errors: unknown tensor, out-of-bounds pattern, element count mismatch, all reported with paths', () => {
    const p = minimal();
    const ins = (p.functions as any)[0].blocks[0].instructions;
    ins.push({
      op: 'Save',
      src: { tensor: 'nope', partition: [1, 1] },
      dst: { tensor: 'x', partition: [1, 1] },
    });
    ins.push({
      op: 'Save',
      src: { tensor: 't', offset: 250, partition: [16, 1], free: [[1, 16]] },
      dst: { tensor: 'x', partition: [16, 1], free: [[1, 16]] },
    });
    ins.push({
      op: 'Save',
      src: { tensor: 't', partition: [16, 2], free: [[1, 16]] },
      dst: { tensor: 'x', partition: [16, 1], free: [[1, 16]] },
    });
    const issues = issuesOf(thrown(() => parseProgram(p)));
    expect(issues.map((i) => i.path)).toEqual([
      '$.functions[0].blocks[0].instructions[1].src.tensor',
      '$.functions[0].blocks[0].instructions[2].src',
      '$.functions[0].blocks[0].instructions[3]',
    ]);
    expect(issues[1].message).toContain('250..265');
  });

  it('negative steps are allowed and bounds-checked', () => {
    const p = minimal();
    const ld = (p.functions as any)[0].blocks[0].instructions[0];
    ld.src = { tensor: 'x', offset: 255, partition: [-16, 16], free: [[-1, 16]] };
    expect(() => parseProgram(p)).not.toThrow();
    ld.src.offset = 254;
    expect(issuesOf(thrown(() => parseProgram(p)))[0].message).toContain('-1..');
  });

  it('a tensor must fit its region; regions must not overlap', () => {
    const p = minimal();
    (p.memory as any).tensors[0].shape = [1024, 1024];
    (p.memory as any).regions.push({ name: 'dup', type: 'dram', base: '0x100008000', size: 16 });
    const paths = issuesOf(thrown(() => parseProgram(p))).map((i) => i.path);
    expect(paths).toContain('$.memory.regions[2]');
    expect(paths).toContain('$.memory.tensors[0]');
  });

  it('_validateOnlyOneOfScalarAndVectorDynamicOffsetIsProvided: exactly one offset flavour', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ src: { ...load().src, dynamic: {} }, dst: load().dst })
      .load({
        src: {
          ...load().src,
          dynamic: { scalar: { register: 'r0', value: 0 }, vector: { indexTensor: 'idx' } },
        },
        dst: load().dst,
      });
    const issues = issuesOf(thrown(() => b.build()));
    expect(issues.map((i) => i.path)).toEqual([
      '$.functions[0].blocks[0].instructions[0].src.dynamic',
      '$.functions[0].blocks[0].instructions[1].src.dynamic',
    ]);
  });

  it('index tensors: uint32/int32, init values cover the partitions, read-only, values bound the walk', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({
        src: { ...load().src, dynamic: { vector: { indexTensor: 'idx' } } },
        dst: load().dst,
      })
      .copy({ src: load().src, dst: { tensor: 'idx', partition: [1, 128] } } as any);
    const issues = issuesOf(thrown(() => b.build()));
    expect(issues.some((i) => i.message.includes('source visits'))).toBe(true);
    expect(issues.some((i) => i.message.includes('read-only'))).toBe(true);
  });

  it('a SWDGE/HWDGE route may be preset on every DMA-family opcode (41-46 and 67 included)', () => {
    const b = fixture();
    const e = b.function('main').block('e');
    const ops = ['IndirectLoad', 'AbstractCopy', 'CollectiveDMA', 'DMATrigger'] as const;
    ops.forEach((op, k) => e.dma(op, { ...load(`s${k}`), dgeType: k % 2 ? 'SWDGE' : 'HWDGE' }));
    const m = b.build();
    expect(m.instrs.map((i) => i.dgeType)).toEqual([2, 1, 2, 1]);
  });

  it('dependences name earlier instructions', () => {
    const b = fixture();
    const e = b.function('main').block('e');
    e.load({ ...load(), name: 'a', deps: [{ on: 'b' }] });
    e.load({ ...load('s1'), name: 'b', deps: [{ on: 'a', kind: 'Anti' }, { on: 'zz' }] });
    const paths = issuesOf(thrown(() => b.build())).map((i) => i.path);
    expect(paths).toEqual([
      '$.functions[0].blocks[0].instructions[0].deps[0].on',
      '$.functions[0].blocks[0].instructions[1].deps[1].on',
    ]);
  });

  it('needs a main function and unique names', () => {
    const p = minimal();
    (p.functions as any)[0].name = 'other';
    (p.functions as any)[0].blocks[0].instructions.push({
      ...(p.functions as any)[0].blocks[0].instructions[0],
    });
    const paths = issuesOf(thrown(() => parseProgram(p))).map((i) => i.path);
    expect(paths).toContain('$.functions');
    expect(paths).toContain('$.functions[0].blocks[0].instructions[1].name');
  });

  it('the builder and the JSON format give the same IR', () => {
    const b = fixture(40, { dgeLevels: ['transpose'] });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'l', qos: 'P3' })
      .compute('Activation', { reads: ['s0'], writes: ['s0'] });
    const fromBuilder = b.build();
    const fromJson = parseProgram(JSON.parse(JSON.stringify(b.program())));
    expect(fromJson.arch).toBe(fromBuilder.arch);
    expect(fromJson.options).toEqual(fromBuilder.options);
    expect(fromJson.instrs.map((i) => [i.op, i.engine, i.qos, i.src?.dims()])).toEqual(
      fromBuilder.instrs.map((i) => [i.op, i.engine, i.qos, i.src?.dims()]),
    );
  });

  it('every example program parses', () => {
    const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      const m = parseProgram(JSON.parse(readFileSync(new URL(f, EXAMPLES), 'utf8')), { file: f });
      expect(m.instrs.length).toBeGreaterThan(0);
      for (const I of m.instrs) {
        for (const ap of [I.src, I.dst]) {
          if (ap) expect(ap.tensor.address).toBeGreaterThanOrEqual(ap.tensor.region.base);
        }
      }
    }
  });

  it('program.schema.json is generated from the zod schema (no drift)', async () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(await programJsonSchema());
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
    expect(schema.required).toEqual(expect.arrayContaining(['arch', 'memory', 'functions']));
  });
});
