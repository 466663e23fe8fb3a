/**
 * ProgramBuilder's instruction objects: the same keys, in the same order, with the same values as
 * the object spread the builder is specified by (`{ ...rest, deps, op, ... }` of
 * `{ deps, ...rest } = args`), so `program()` serialises to the same JSON and `build()` gives the
 * same IR.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProgramBuilder, type DepArgs } from '../../../compiler/ir/builder.ts';

type Args = Record<string, unknown> & { deps?: DepArgs[] };

/** The builder's instruction objects, written as the object spread they are specified by. */
function spread(args: Args, tail: Record<string, unknown>) {
  const { deps, ...rest } = args;
  const filled = deps ? { deps: deps.map((d) => ({ on: d.on, kind: d.kind ?? 'Flow' })) } : {};
  return { ...rest, ...filled, ...tail };
}
const spreadAP = (a: Record<string, unknown>) =>
  Object.assign(
    { tensor: a.tensor, offset: a.offset ?? 0, partition: a.partition, free: a.free ?? [] },
    a.dynamic ? { dynamic: a.dynamic } : {},
    a.indirect ? { indirect: a.indirect } : {},
  );
const spreadDma = (op: string, args: Args) =>
  spread(args, {
    op,
    src: spreadAP(args.src as Record<string, unknown>),
    dst: spreadAP(args.dst as Record<string, unknown>),
  });
const spreadCompute = (op: string, args: Args) =>
  spread(args, { op, reads: args.reads ?? [], writes: args.writes ?? [] });
const spreadCollective = (args: Args) =>
  spread(args, {
    op: 'CollectiveCompute',
    collective: args.collective ?? 'all_reduce',
    args: args.args ?? [],
    results: args.results ?? [],
  });

const ap = fc.record(
  {
    tensor: fc.constantFrom('a', 'b'),
    offset: fc.nat(64),
    partition: fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4 })),
    free: fc.array(fc.tuple(fc.integer({ min: -4, max: 4 }), fc.integer({ min: 1, max: 4 })), {
      maxLength: 2,
    }),
    dynamic: fc.constant({ scalar: { register: 'r0', value: 1 } }),
  },
  { requiredKeys: ['tensor', 'partition'] },
);
const deps = fc.array(
  fc.record(
    { on: fc.constantFrom('x', 'y'), kind: fc.constantFrom('Ordered', 'Anti', 'Output', 'Flow') },
    { requiredKeys: ['on'] },
  ),
  { maxLength: 3 },
);
/** Arguments with their keys in a random order (the order the output must keep). */
function shuffled(entries: [string, unknown][], order: number[]): Args {
  const keyed = entries.map((e, i) => [order[i % order.length] ?? i, i, e] as const);
  keyed.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Args = {};
  for (const [, , [k, v]] of keyed) if (v !== undefined) out[k] = v;
  return out;
}
const order = fc.array(fc.nat(20), { minLength: 8, maxLength: 8 });
const dmaArgs = fc
  .tuple(
    ap,
    ap,
    fc.option(fc.constantFrom('P0', 'P3', 2), { nil: undefined }),
    fc.option(fc.constantFrom('n1', 'n2'), { nil: undefined }),
    fc.option(deps, { nil: undefined }),
    fc.option(fc.constantFrom('Hwdge', 'Swdge'), { nil: undefined }),
    fc.option(fc.integer({ min: 1, max: 16 }), { nil: undefined }),
    order,
  )
  .map(([src, dst, qos, name, dp, dgeType, dmaEngines, o]) =>
    shuffled(
      [
        ['src', src],
        ['dst', dst],
        ['qos', qos],
        ['name', name],
        ['deps', dp],
        ['dgeType', dgeType],
        ['dmaEngines', dmaEngines],
      ],
      o,
    ),
  );
const computeArgs = fc
  .tuple(
    fc.option(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), { nil: undefined }),
    fc.option(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), { nil: undefined }),
    fc.option(fc.constantFrom('Act', 'Pool'), { nil: undefined }),
    fc.option(deps, { nil: undefined }),
    fc.option(fc.boolean(), { nil: undefined }),
    order,
  )
  .map(([reads, writes, engine, dp, accumulate, o]) =>
    shuffled(
      [
        ['reads', reads],
        ['writes', writes],
        ['engine', engine],
        ['deps', dp],
        ['accumulate', accumulate],
      ],
      o,
    ),
  );
const collectiveArgs = fc
  .tuple(
    fc.option(fc.constantFrom('all_gather'), { nil: undefined }),
    fc.option(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), { nil: undefined }),
    fc.option(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), { nil: undefined }),
    fc.option(deps, { nil: undefined }),
    order,
  )
  .map(([collective, args, results, dp, o]) =>
    shuffled(
      [
        ['collective', collective],
        ['args', args],
        ['results', results],
        ['deps', dp],
      ],
      o,
    ),
  );

type Made =
  | { kind: 'dma'; op: 'Load' | 'Save' | 'DMACopy'; args: Args }
  | { kind: 'compute'; args: Args }
  | { kind: 'collective'; args: Args };
const instruction: fc.Arbitrary<Made> = fc.oneof(
  fc
    .tuple(fc.constantFrom('Load' as const, 'Save' as const, 'DMACopy' as const), dmaArgs)
    .map(([op, args]) => ({ kind: 'dma' as const, op, args })),
  computeArgs.map((args) => ({ kind: 'compute' as const, args })),
  collectiveArgs.map((args) => ({ kind: 'collective' as const, args })),
);

describe('ProgramBuilder instructions', () => {
  it('hold the keys, key order and values of the object spread they are specified by', () => {
    fc.assert(
      fc.property(fc.array(instruction, { minLength: 1, maxLength: 12 }), (list) => {
        const b = new ProgramBuilder({ arch: 30 });
        const bb = b.function('main').block('entry');
        const want: unknown[] = [];
        for (const x of list) {
          if (x.kind === 'dma') {
            bb.dma(x.op, x.args as never);
            want.push(spreadDma(x.op, x.args));
          } else if (x.kind === 'compute') {
            bb.compute('Activation', x.args as never);
            want.push(spreadCompute('Activation', x.args));
          } else {
            bb.collective(x.args as never);
            want.push(spreadCollective(x.args));
          }
        }
        const got = b.program().functions[0].blocks[0].instructions;
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        for (let i = 0; i < got.length; i++) {
          expect(Object.keys(got[i])).toEqual(Object.keys(want[i] as object));
          expect(got[i]).toEqual(want[i]);
          // the access patterns' arrays are the caller's own, as before
          const w = list[i];
          if (w.kind === 'dma') {
            const g = got[i] as { src: { partition: unknown }; dst: { partition: unknown } };
            expect(g.src.partition).toBe((w.args.src as { partition: unknown }).partition);
            expect(g.dst.partition).toBe((w.args.dst as { partition: unknown }).partition);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("leaves the caller's arguments as they were", () => {
    const args = {
      deps: [{ on: 'x' }],
      src: { tensor: 'a', partition: [1, 1] as [number, number] },
      dst: { tensor: 'b', partition: [1, 1] as [number, number] },
    };
    const copy = structuredClone(args);
    new ProgramBuilder({ arch: 30 }).function('main').block('entry').load(args);
    expect(args).toEqual(copy);
  });
});
