/**
 * Structured mutations of JSON documents for the parser fuzz suites: start from a valid document
 * (a shipped schema, an example program or plan) and change a few places in it, so that most
 * inputs get past the first checks and reach the deep ones. Random JSON alone rarely does.
 */
import fc from 'fast-check';

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** Values that break parsers: boundaries, wrong types, hostile keys, non-JSON numbers. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Json>(
      0,
      -1,
      1,
      -0,
      0.5,
      31,
      32,
      255,
      256,
      0xffff,
      0x10000,
      2 ** 24,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 53,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_VALUE,
      Number.NaN,
      Infinity,
      -Infinity,
      '',
      '0x',
      '0x0',
      '0xFFFFFFFF',
      '0x100000000',
      '0b101',
      '-0x1',
      '31:0',
      '32:0',
      '0:31',
      '7:0',
      'unknown',
      'RW',
      'RO',
      'INC',
      'constructor',
      '__proto__',
      'toString',
      null,
      true,
      false,
      [],
      {},
      undefined,
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constant<Json>(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 1}')),
  },
);

/** One edit at the `at`-th place (in a depth-first list of every place) of the document. */
export type Mutation =
  | { kind: 'replace'; at: number; value: Json }
  | { kind: 'delete'; at: number }
  | { kind: 'insert'; at: number; key: string; value: Json }
  | { kind: 'duplicate'; at: number }
  | { kind: 'numberNudge'; at: number; delta: number }
  /** The value found at another place of the same document (a valid word in the wrong place). */
  | { kind: 'borrow'; at: number; from: number };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(),
      value: hostileValue,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      key: fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.constantFrom('__proto__', 'constructor', 'Name', 'op'),
      ),
      value: hostileValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('borrow' as const), at: fc.nat(), from: fc.nat() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('numberNudge' as const),
      at: fc.nat(),
      delta: fc.constantFrom(-4096, -256, -16, -4, -2, -1, 1, 2, 3, 4, 16, 256, 4096, 0.5),
    }),
  },
);

interface Place {
  parent: Container;
  key: string | number;
}

function places(doc: Json): Place[] {
  const out: Place[] = [];
  const walk = (v: Json): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push({ parent: v, key: i });
        walk(x);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        out.push({ parent: v as Record<string, Json>, key: k });
        walk((v as Record<string, Json>)[k]);
      }
    }
  };
  walk(doc);
  return out;
}

function numberLike(v: Json): boolean {
  return (
    typeof v === 'number' ||
    (typeof v === 'string' && (/^0x[0-9a-f]+$/i.test(v) || /^\d+:\d+$/.test(v)))
  );
}

function isLeaf(v: Json): boolean {
  return v === null || typeof v !== 'object';
}

function get(p: Place): Json {
  return (p.parent as Record<string | number, Json>)[p.key];
}

function set(p: Place, v: Json): void {
  if (Array.isArray(p.parent)) p.parent[p.key as number] = v;
  else
    Object.defineProperty(p.parent, p.key, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
}

/** A deep copy of `doc` with `muts` applied (the original is never touched). */
export function mutate(doc: Json, muts: readonly Mutation[]): Json {
  const out = structuredClone(doc);
  for (const m of muts) {
    const all = places(out);
    // Nudges go to numbers and number-like strings (offsets, sizes, bit ranges), where the deep
    // checks live; other edits go anywhere.
    const ps =
      m.kind === 'numberNudge'
        ? all.filter((p) => numberLike(get(p)))
        : m.kind === 'borrow'
          ? all.filter((p) => isLeaf(get(p)))
          : all;
    if (ps.length === 0) continue;
    const p = ps[m.at % ps.length];
    switch (m.kind) {
      case 'replace':
        set(p, structuredClone(m.value));
        break;
      case 'delete':
        if (Array.isArray(p.parent)) p.parent.splice(p.key as number, 1);
        else delete (p.parent as Record<string, Json>)[p.key as string];
        break;
      case 'insert': {
        const target = get(p);
        if (Array.isArray(target)) target.push(structuredClone(m.value));
        else if (target !== null && typeof target === 'object')
          set({ parent: target as Record<string, Json>, key: m.key }, structuredClone(m.value));
        else set(p, structuredClone(m.value));
        break;
      }
      case 'borrow': {
        // Half the time a value found under the same key elsewhere (a valid word in the wrong
        // place), else any leaf of the same type.
        const v = get(p);
        const sameKey = all.filter((q) => q.key === p.key && isLeaf(get(q)) && get(q) !== v);
        const sameType = all.filter((q) => isLeaf(get(q)) && typeof get(q) === typeof v);
        const pool = m.from % 2 === 0 && sameKey.length > 0 ? sameKey : sameType;
        if (pool.length > 0) set(p, structuredClone(get(pool[(m.from >>> 1) % pool.length])));
        break;
      }
      case 'duplicate':
        if (Array.isArray(p.parent)) p.parent.splice(p.key as number, 0, structuredClone(get(p)));
        else set(p, [structuredClone(get(p)), structuredClone(get(p))]);
        break;
      case 'numberNudge': {
        const v = get(p);
        if (typeof v === 'number') set(p, v + m.delta);
        else if (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v))
          set(p, '0x' + Math.max(0, parseInt(v.slice(2), 16) + Math.trunc(m.delta)).toString(16));
        else if (typeof v === 'string' && /^\d+:\d+$/.test(v)) {
          const [hi, lo] = v.split(':').map(Number);
          set(p, `${hi + Math.trunc(m.delta)}:${lo}`);
        }
        break;
      }
    }
  }
  return out;
}

/** Nudges of numbers only: documents that pass the format checks and reach the deep ones. */
export const nudgeArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constant('numberNudge' as const),
  at: fc.nat(),
  delta: fc.constantFrom(-4096, -256, -16, -4, -2, -1, 1, 2, 3, 4, 16, 256, 4096),
});

/**
 * A document: a base document with a few edits of any kind, a base document with a few numbers
 * nudged (well-formed, often semantically wrong), arbitrary JSON, or one hostile value.
 */
export function documentArb(bases: readonly Json[], maxMutations = 3): fc.Arbitrary<Json> {
  const base = fc.nat({ max: bases.length - 1 });
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(base, fc.array(mutationArb, { minLength: 1, maxLength: maxMutations }))
        .map(([i, muts]) => mutate(bases[i], muts)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(base, fc.array(nudgeArb, { minLength: 1, maxLength: maxMutations }))
        .map(([i, muts]) => mutate(bases[i], muts)),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: hostileValue },
  );
}
