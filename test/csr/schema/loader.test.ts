import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { loadRegFile, parseRegFile } from '../../../csr/schema/loader.ts';
import { sample, type Doc } from './sample.ts';

const FILE = 'fixtures/sample.json';

/** Parses a mutated sample and returns the SCHEMA_INVALID error it must raise. */
function rejection(mutate: (d: Doc) => void): NxdmaError {
  const d = sample();
  mutate(d);
  try {
    parseRegFile(d, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(NxdmaError);
    expect((e as NxdmaError).code).toBe('SCHEMA_INVALID');
    expect((e as NxdmaError).message).toContain(FILE);
    return e as NxdmaError;
  }
  throw new Error('expected the schema to be rejected');
}

const Q = (d: Doc) => d.RegFile.RegistersBundleArrays[0];
const QPATH = '$.RegFile.RegistersBundleArrays[0]';

describe('loader accepts a valid file', () => {
  it('builds blocks, registers, instances and provenance', () => {
    const m = parseRegFile(sample(), FILE);
    expect(m.blocks.map((b) => b.name)).toEqual(['ENG', 'Q']); // ascending base
    expect(m.instances.length).toBe(1 + 4 * 3 + 1);
    expect(m.instances.map((i) => i.offset)).toEqual(
      [...m.instances.map((i) => i.offset)].sort((a, b) => a - b),
    );
    const cfg = m.blocks[1].registers[0];
    expect(cfg.reset).toBe(0x40);
    expect(cfg.resetKnownMask).toBe(0xff);
    expect(cfg.resetKnown).toBe(false);
    expect(cfg.sources).toEqual(['seed', 'public']);
    expect(cfg.provenance).toBe('seed');
    const hi = cfg.fields.find((f) => f.name === 'hi')!;
    expect([hi.reset, hi.resetKnown]).toEqual([0, false]);
    expect(m.blocks[0].registers[0].inferred).toBe(true);
    expect(m.blocks[0].registers[0].inferredReasons).toEqual(['block base']);
    expect(Object.isFrozen(m.blocks[1].registers[0].fields[0])).toBe(true);
  });
});

describe('loader rejections name the file, the JSON path and what was expected', () => {
  it('rejects overlapping fields', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[1].Bits = '8:4';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[1].Bits`);
    expect(e.message).toMatch(/overlap field lo/);
    expect(e.message).toContain('Q.cfg.hi');
  });

  it('rejects fields beyond bit 31', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[1].Bits = '32:28';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[1].Bits`);
    expect(e.message).toMatch(/beyond bit 31/);
  });

  it('rejects a field whose hi is below its lo', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[1].Bits = '28:31';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[1].Bits`);
  });

  it('rejects a reset value wider than its field', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[0].ResetValue = '0x100';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[0].ResetValue`);
    expect(e.message).toMatch(/wider than the 8-bit field lo/);
    expect(e.details.expected).toMatch(/0\.\.0xff/);
  });

  it('rejects misaligned registers', () => {
    const e = rejection((d) => {
      Q(d).Registers[1].AddressOffset = '0x6';
    });
    expect(e.message).toContain(`${QPATH}.Registers[1].AddressOffset`);
    expect(e.message).toMatch(/not 4-byte aligned/);
    expect(e.message).toContain('Q.tail_inc');
  });

  it('rejects overlapping registers', () => {
    const e = rejection((d) => {
      Q(d).Registers[2].AddressOffset = '0x8';
    });
    expect(e.message).toContain(`${QPATH}.Registers[2].AddressOffset`);
    expect(e.message).toMatch(/overlaps register tail_inc/);
  });

  it('rejects overlapping entries of a register array', () => {
    const e = rejection((d) => {
      Object.assign(Q(d).Registers[0], { ArraySize: 3, ArrayStride: 4 });
    });
    expect(e.message).toContain(`${QPATH}.Registers[1].AddressOffset`);
    expect(e.message).toMatch(/overlaps register cfg\[2\]/);
  });

  it('rejects registers past their bundle', () => {
    const e = rejection((d) => {
      Q(d).Registers[2].AddressOffset = '0x40';
    });
    expect(e.message).toContain(`${QPATH}.Registers[2].AddressOffset`);
    expect(e.message).toMatch(/past its bundle/);
  });

  it('rejects top-level registers past the window', () => {
    const e = rejection((d) => {
      d.RegFile.Registers[0].AddressOffset = '0x400';
    });
    expect(e.message).toContain('$.RegFile.Registers[0].AddressOffset');
    expect(e.message).toMatch(/past its window/);
  });

  it('rejects bundles past the window', () => {
    const e = rejection((d) => {
      Q(d).ArraySize = 16;
    });
    expect(e.message).toContain(`${QPATH}.AddressOffset`);
    expect(e.message).toMatch(/lies past the window \(0x400 bytes\)/);
  });

  it('rejects overlapping bundles', () => {
    const e = rejection((d) => {
      d.RegFile.RegistersBundleArrays[1].BundleSizeInBytes = 0x104;
    });
    expect(e.message).toMatch(/bundle Q at 0x100 overlaps bundle ENG/);
    expect(e.message).toContain(`${QPATH}.AddressOffset`);
  });

  it('rejects duplicate register names', () => {
    const e = rejection((d) => {
      Q(d).Registers[2].Name = 'cfg';
    });
    expect(e.message).toContain(`${QPATH}.Registers[2].Name`);
    expect(e.message).toMatch(/duplicate name 'cfg'/);
  });

  it('rejects duplicate field names', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[1].Name = 'lo';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[1].Name`);
    expect(e.message).toMatch(/duplicate field name 'lo'/);
  });

  it('rejects duplicate bundle and top-level names', () => {
    const e = rejection((d) => {
      d.RegFile.Registers[0].Name = 'Q';
    });
    expect(e.message).toContain('$.RegFile.Registers[0].Name');
    expect(e.message).toMatch(/duplicate name 'Q'/);
  });

  it('rejects unknown access kinds', () => {
    const e = rejection((d) => {
      (Q(d).Registers[0].Fields[0] as { Access: string }).Access = 'RWX';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[0].Access`);
    expect(e.message).toContain('Q.cfg.lo');
    expect(e.details.expected).toMatch(/"RW", "RO", "WO", "INC"/);
  });

  it('rejects unknown keys (a misspelt property)', () => {
    const e = rejection((d) => {
      Object.assign(Q(d).Registers[0].Fields[0], { Acess: 'RW' });
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[0]`);
    expect(e.message).toContain('Acess');
  });

  it('rejects names every JavaScript object has', () => {
    const e = rejection((d) => {
      Q(d).Registers[0].Fields[0].Name = 'constructor';
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[0].Name`);
  });

  it('rejects an INC register without an IncrementTarget, and a target that does not exist', () => {
    let e = rejection((d) => {
      delete (Q(d).Registers[1] as { IncrementTarget?: string }).IncrementTarget;
    });
    expect(e.message).toContain(`${QPATH}.Registers[1]`);
    expect(e.message).toMatch(/IncrementTarget/);
    e = rejection((d) => {
      (Q(d).Registers[1] as { IncrementTarget?: string }).IncrementTarget = 'tail.nope';
    });
    expect(e.message).toContain(`${QPATH}.Registers[1].IncrementTarget`);
    expect(e.message).toMatch(/tail\.nope does not exist/);
  });

  it('rejects a whole-word register without Access or Provenance', () => {
    const e = rejection((d) => {
      delete (d.RegFile.RegistersBundleArrays[1].Registers[0] as { Access?: string }).Access;
    });
    expect(e.message).toContain('$.RegFile.RegistersBundleArrays[1].Registers[0]');
    expect(e.message).toMatch(/must state its Access/);
  });

  it('rejects an enumerated value that does not fit its field', () => {
    const e = rejection((d) => {
      Object.assign(Q(d).Registers[0].Fields[0], {
        EnumeratedValues: [{ Name: 'big', Value: '0x100' }],
      });
    });
    expect(e.message).toContain(`${QPATH}.Registers[0].Fields[0].EnumeratedValues[0].Value`);
  });

  it('reports every problem of a file at once', () => {
    const e = rejection((d) => {
      Q(d).Registers[1].AddressOffset = '0x6';
      Q(d).Registers[0].Fields[0].ResetValue = '0x100';
    });
    expect((e.details.issues as unknown[]).length).toBe(2);
    expect(e.message).toMatch(/2 schema problems/);
  });

  it('a rejected file names the file on disk and the position of bad JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nxdma-schema-'));
    const p = join(dir, 'broken.json');
    writeFileSync(p, '{"RegFile": ');
    expect(() => loadRegFile(p)).toThrow(/broken\.json: \$: not valid JSON/);
    const q = join(dir, 'bad.json');
    const d = sample();
    Q(d).Registers[0].Fields[1].Bits = '8:4';
    writeFileSync(q, JSON.stringify(d));
    expect(() => loadRegFile(q)).toThrow(/bad\.json: \$\.RegFile\.RegistersBundleArrays\[0\]/);
  });
});
