/**
 * The hand-written instruction checker against zod: on valid instructions and on instructions with
 * one or more random mutations (a key removed, an unknown key, a field given a value of another
 * type, range or length, at any depth), isValidInstruction says what InstructionSchema says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidInstruction } from '../../../compiler/ir/program-check.ts';
import {
  AccessPatternSchema,
  CollectiveInstructionSchema,
  ComputeInstructionSchema,
  DmaInstructionSchema,
  InstructionSchema,
} from '../../../compiler/ir/program.ts';

const name = fc.constantFrom('t', 'x', 'ab', 'n'.repeat(200));
const dim = fc.tuple(fc.integer({ min: -64, max: 64 }), fc.integer({ min: 1, max: 64 }));
const ap = fc.record(
  {
    tensor: name,
    offset: fc.integer({ min: -10, max: 1000 }),
    partition: dim,
    free: fc.array(dim, { maxLength: 3 }),
    dynamic: fc.oneof(
      fc.record({ scalar: fc.record({ register: name, value: fc.integer() }) }),
      fc.record({ vector: fc.record({ indexTensor: name }) }),
    ),
    indirect: fc.record({ indexTensor: name }),
  },
  { requiredKeys: ['tensor', 'partition'] },
);
const deps = fc.array(
  fc.record(
    { on: name, kind: fc.constantFrom('Ordered', 'Anti', 'Output', 'Flow') },
    { requiredKeys: ['on'] },
  ),
  { maxLength: 2 },
);
const engine = fc.constantFrom('Unassigned', 'Pool', 'Activation', 'PE', 'DMA', 'DVE', 'SP');
const dma = fc.record(
  {
    op: fc.constantFrom('Load', 'Save', 'DMACopy', 'DMA', 'GenericLoad', 'CollectiveDMA'),
    name,
    subId: fc.integer({ min: 0, max: 255 }),
    deps,
    engine,
    src: ap,
    dst: ap,
    qos: fc.oneof(
      fc.constantFrom('P0', 'P14', 'Default', 'Unassigned'),
      fc.integer({ min: 0, max: 16 }),
    ),
    dgeType: fc.constantFrom('None', 'SWDGE', 'HWDGE', 'Unassigned'),
    dmaKind: fc.constantFrom('Generic', 'IO', 'DGE', 'CCE'),
    transpose: fc.constantFrom('dma', 'xbar'),
    dstReduce: fc.constantFrom('add', 'multiply', 'max', 'min'),
    dmaEngines: fc.integer({ min: 1, max: 1024 }),
  },
  { requiredKeys: ['op', 'src', 'dst'] },
);
const compute = fc.record(
  {
    op: fc.constantFrom('Activation', 'TensorTensor', 'Matmult', 'Iota'),
    name,
    subId: fc.integer({ min: 0, max: 255 }),
    deps,
    engine,
    reads: fc.array(name, { maxLength: 3 }),
    writes: fc.array(name, { maxLength: 3 }),
    accumulate: fc.boolean(),
  },
  { requiredKeys: ['op'] },
);
const collective = fc.record(
  {
    op: fc.constant('CollectiveCompute'),
    name,
    deps,
    engine,
    collective: fc.constantFrom('all_reduce', 'x'),
    args: fc.array(name, { maxLength: 2 }),
    results: fc.array(name, { maxLength: 2 }),
  },
  { requiredKeys: ['op'] },
);
const instruction = fc.oneof(dma, compute, collective);

/** Values a mutated field may take: other types, out-of-range numbers, bad lengths and names. */
const BAD: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'n'.repeat(201),
  'SP',
  'P15',
  'Flow',
  'xbar',
  'Load',
  -1,
  0,
  1,
  1.5,
  16,
  17,
  255,
  256,
  1024,
  1025,
  -(2 ** 31) - 1,
  2 ** 31,
  2 ** 53,
  Number.NaN,
  true,
  false,
  [],
  [1],
  [1, 2],
  [0, 0],
  [1, 2, 3],
  [[1, 2]],
  Array(9).fill([1, 1]),
  ['a', 1],
  {},
  { indexTensor: 't' },
  { register: 'r', value: 1 },
  { scalar: { register: 'r', value: 1 } },
  { on: 'x' },
  new Date(0),
  Object.create({ inherited: 1 }),
];

/** Every key the instruction schemas know, and one they do not. */
const KEYS = [
  ...new Set([
    ...Object.keys(DmaInstructionSchema.shape),
    ...Object.keys(ComputeInstructionSchema.shape),
    ...Object.keys(CollectiveInstructionSchema.shape),
    ...Object.keys(AccessPatternSchema.shape),
    'scalar',
    'vector',
    'register',
    'value',
    'indexTensor',
    'on',
    'kind',
    'zz',
  ]),
];

/** The paths of every plain object and array inside `v` (the root included). */
function containers(v: unknown, at: string[] = [], out: string[][] = []) {
  if (typeof v !== 'object' || v === null) return out;
  if (!Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) return out; // BAD's own
  out.push(at);
  for (const [k, x] of Object.entries(v)) containers(x, [...at, k], out);
  return out;
}

/**
 * Applies mutations to a deep copy of `v`, three picks each: which container, which key of it,
 * and what to do (remove the key, give it a value of BAD, or add a key of KEYS with such a value).
 */
function mutate(v: unknown, picks: number[]): unknown {
  const root = structuredClone(v) as Record<string | number, unknown>;
  for (let k = 0; k + 2 < picks.length; k += 3) {
    const paths = containers(root);
    let node = root;
    for (const seg of paths[picks[k] % paths.length]) node = node[seg] as typeof root;
    const keys = Object.keys(node);
    const pick = BAD[picks[k + 2] % BAD.length];
    // a plain value of BAD is copied, so a later mutation cannot change BAD itself
    const plain = Array.isArray(pick) || Object.getPrototypeOf(pick ?? 0) === Object.prototype;
    const bad = plain && typeof pick === 'object' ? structuredClone(pick) : pick;
    const action = picks[k + 2] % 3;
    if (action === 0 && keys.length > 0) delete node[keys[picks[k + 1] % keys.length]];
    else if (action === 1) node[KEYS[picks[k + 1] % KEYS.length]] = bad;
    else if (keys.length > 0) node[keys[picks[k + 1] % keys.length]] = bad;
  }
  return root;
}

/** [field, a valid value and an invalid one at each bound of the field] */
const BOUNDS: [string, unknown[], unknown[]][] = [
  ['subId', [0, 255], [-1, 256, 1.5, '1']],
  ['qos', [0, 16, 'P14', 'Default'], [-1, 17, 'P15', 'default']],
  ['dmaEngines', [1, 1024], [0, 1025]],
  ['name', ['x', 'n'.repeat(200)], ['', 'n'.repeat(201), 5]],
  ['engine', ['SP', 'Unassigned'], ['sp', 'Core']],
  ['src.offset', [-5, 2 ** 53 - 1], [2 ** 53, 1.5, '0']],
  [
    'src.partition',
    [
      [-(2 ** 31), 1],
      [2 ** 31 - 1, 2 ** 31 - 1],
    ],
    [[-(2 ** 31) - 1, 1], [0, 0], [0, 2 ** 31], [0, 1, 2], [0]],
  ],
  ['src.free', [Array(8).fill([1, 2]), []], [Array(9).fill([1, 2]), [[1, 0]], [[1]]]],
  [
    'src.dynamic',
    [{ scalar: { register: 'r', value: -3 } }, { vector: { indexTensor: 'i' } }, {}],
    [
      { scalar: { register: 'r', value: 0.5 } },
      { scalar: { register: '', value: 0 } },
      { vector: {} },
      { other: 1 },
    ],
  ],
  ['src.indirect', [{ indexTensor: 'i' }], [{ indexTensor: '' }, { indexTensor: 'i', x: 1 }, 'i']],
  [
    'deps',
    [[{ on: 'a' }, { on: 'b', kind: 'Anti' }], []],
    [[{ on: 'a', kind: 'flow' }], [{ kind: 'Flow' }], [{ on: 'a', x: 1 }], { on: 'a' }],
  ],
];

function withField(base: Record<string, unknown>, path: string, value: unknown): unknown {
  const out = structuredClone(base);
  const segs = path.split('.');
  let node = out as Record<string, unknown>;
  for (const s of segs.slice(0, -1)) node = node[s] as Record<string, unknown>;
  node[segs[segs.length - 1]] = value;
  return out;
}

describe('isValidInstruction (the hand-written checker) agrees with InstructionSchema', () => {
  it('on valid instructions: both accept', () => {
    fc.assert(
      fc.property(instruction, (ins) => {
        expect(InstructionSchema.safeParse(ins).success).toBe(true);
        expect(isValidInstruction(ins)).toBe(true);
      }),
      { seed: 20261201, numRuns: 2000 },
    );
  });

  it('on mutated instructions: the same verdict (never accepts what zod refuses)', () => {
    let refused = 0;
    fc.assert(
      fc.property(instruction, fc.array(fc.nat(), { minLength: 3, maxLength: 9 }), (ins, picks) => {
        const v = mutate(ins, picks);
        const zod = InstructionSchema.safeParse(v).success;
        if (!zod) refused++;
        expect(isValidInstruction(v)).toBe(zod);
      }),
      { seed: 20261202, numRuns: 6000 },
    );
    expect(refused).toBeGreaterThan(1500); // the mutations do reach zod's refusals
  }, 60_000);

  it('at the bounds of every field: the same verdict as zod, and the one the format states', () => {
    const base = {
      op: 'Load',
      src: { tensor: 't', partition: [1, 4] },
      dst: { tensor: 'u', partition: [1, 4] },
    };
    for (const [path, ok, bad] of BOUNDS) {
      for (const [values, want] of [
        [ok, true],
        [bad, false],
      ] as const) {
        for (const value of values) {
          const v = withField(base, path, value);
          const where = `${path} = ${JSON.stringify(value)}`;
          expect(InstructionSchema.safeParse(v).success, where).toBe(want);
          expect(isValidInstruction(v), where).toBe(want);
        }
      }
    }
  });

  it('refuses what it does not judge: objects that are not plain data', () => {
    const ok = { op: 'Iota' };
    expect(isValidInstruction(ok)).toBe(true);
    expect(isValidInstruction(Object.assign(new (class K {})(), ok))).toBe(false);
    expect(isValidInstruction(new Map())).toBe(false);
    expect(isValidInstruction([ok])).toBe(false);
  });
});
