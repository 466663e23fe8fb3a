import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, run } from '../../scripts/gen.ts';

describe('scripts/gen.ts, the one generator', () => {
  it('generates every generated file of the repository, and the committed ones are current', async () => {
    const files = await generate();
    expect(files.map((f) => f.path).sort()).toEqual([
      'compiler/ir/program.schema.json',
      'csr/generated/dge_host.ts',
      'csr/generated/index.ts',
      'csr/generated/udma_m2s.ts',
      'csr/generated/udma_s2m.ts',
      'csr/schemas/regfile.schema.json',
      'driver/qos/plan.schema.json',
    ]);
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.text);
    expect(await run(true)).toEqual([]);
  });
});
