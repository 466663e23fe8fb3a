/** common/zod-issues.ts: the one reading of a zod issue (path, message, expected, value found). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonPath, valueAt, zodIssues } from '../../common/zod-issues.ts';

const FORMAT = { name: 'the test format', schema: 'test.schema.json' };

describe('zod issues', () => {
  it('jsonPath: identifier keys with a dot, other keys quoted, indices in brackets', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['functions', 0, 'blocks', 12, '$schema'])).toBe(
      '$.functions[0].blocks[12].$schema',
    );
    expect(jsonPath(['a b', 'x-y', 3])).toBe('$["a b"]["x-y"][3]');
  });

  it('valueAt: the value at a path, undefined once the path leaves the document', () => {
    const doc = { a: [{ b: 5 }] };
    expect(valueAt(doc, ['a', 0, 'b'])).toBe(5);
    expect(valueAt(doc, ['a', 0, 'b', 'c'])).toBeUndefined();
    expect(valueAt(doc, ['z', 1])).toBeUndefined();
  });

  it('zodIssues: path, message, unknown keys, what was expected and what was found', () => {
    const schema = z
      .object({
        kind: z.enum(['rr', 'qos']),
        n: z.number().int().max(4),
        list: z.array(z.string()).min(1),
        inner: z.object({ x: z.boolean() }).strict(),
      })
      .strict();
    const doc = { kind: 'dwrr', n: 9, list: [], inner: { x: true, y: 1, z: 2 }, extra: 0 };
    const r = schema.safeParse(doc);
    expect(r.success).toBe(false);
    const issues = zodIssues(r.error!, doc, FORMAT);
    const at = (path: string) => issues.find((i) => i.path === path)!;
    expect(at('$.kind')).toMatchObject({
      segments: ['kind'],
      expected: 'one of "rr", "qos"',
      actual: 'dwrr',
      keys: [],
    });
    expect(at('$.n')).toMatchObject({ expected: 'at most 4', actual: 9 });
    expect(at('$.list')).toMatchObject({ expected: 'at least 1', actual: [] });
    expect(at('$.inner')).toMatchObject({
      keys: ['y', 'z'],
      actual: ['y', 'z'],
      expected: 'only the keys of the test format (see test.schema.json)',
    });
    expect(at('$')).toMatchObject({ keys: ['extra'] });
    issues.forEach((i, k) => expect(i.message).toBe(r.error!.issues[k].message));
  });

  it('zodIssues: a type error names the type; a custom check names the format', () => {
    const schema = z.object({ a: z.string(), b: z.number().refine((v) => v > 0) });
    const doc = { a: 1, b: -1 };
    const issues = zodIssues(schema.safeParse(doc).error!, doc, FORMAT);
    expect(issues.map((i) => [i.path, i.expected])).toEqual([
      ['$.a', 'a value of type string'],
      ['$.b', 'a value of the test format'],
    ]);
  });
});
