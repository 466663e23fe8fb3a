import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate } from '../../../csr/codegen/main.ts';
import { emitMapModule } from '../../../csr/codegen/emit.ts';
import { parseRegFile } from '../../../csr/schema/loader.ts';

describe('codegen', () => {
  it('the committed generated files are what `npm run gen` writes (the CI drift check)', async () => {
    const files = await generate();
    expect(files.map((f) => f.path).sort()).toEqual([
      'csr/generated/dge_host.ts',
      'csr/generated/index.ts',
      'csr/generated/udma_m2s.ts',
      'csr/generated/udma_s2m.ts',
      'csr/schemas/regfile.schema.json',
    ]);
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.text);
  });

  it('a map module carries the layout as constants and the provenance as doc comments', () => {
    const model = parseRegFile(
      {
        RegFile: {
          Name: 'tiny',
          Description: 'one block',
          SizeInBytes: 0x100,
          RegistersBundleArrays: [
            {
              Name: 'B',
              Description: 'block',
              AddressOffset: '0x40',
              ArraySize: 2,
              BundleSizeInBytes: 0x20,
              Provenance: 'inferred',
              Registers: [
                {
                  Name: 'r',
                  AddressOffset: '0x4',
                  Description: 'a register',
                  Fields: [
                    {
                      Name: 'f',
                      Bits: '9:8',
                      Access: 'RW',
                      ResetValue: '0x2',
                      Description: 'a field',
                      Provenance: 'seed',
                    },
                  ],
                },
              ],
            },
          ],
          KnownGaps: [{ Name: 'g', Block: 'B', Description: 'somewhere', Provenance: 'seed' }],
        },
      },
      'tiny.json',
    );
    const text = emitMapModule(model, 'tiny.json');
    expect(text).toContain('from tiny.json');
    expect(text).toContain('export const tiny = {');
    expect(text).toContain('} as const satisfies RegFileMap;');
    expect(text).toMatch(/base: 0x40,\s+count: 2,\s+stride: 0x20,\s+indexed: true/);
    expect(text).toContain("f: { lsb: 8, width: 2, access: 'RW', reset: 0x2, inferred: false }");
    expect(text).toContain('provenance inferred (block base)');
    expect(text).toContain('B.g (seed): somewhere');
  });
});
