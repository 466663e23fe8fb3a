/**
 * One test per structural schema rule (csr/schema/rules.ts), named after the rule: a valid sample
 * document broken in exactly the way the rule forbids is refused with an issue naming the rule,
 * its JSON path and its message.
 */
import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { buildRegFile, type SchemaIssue } from '../../../csr/schema/builder.ts';
import type { RegFileJson } from '../../../csr/schema/format.ts';
import { SCHEMA_RULES, SCHEMA_RULE_LIST } from '../../../csr/schema/rules.ts';
import { sample, type Doc } from './sample.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- documents are broken on purpose */
type AnyDoc = any;

const Q = (d: Doc): AnyDoc => d.RegFile.RegistersBundleArrays[0];
const ENG = (d: Doc): AnyDoc => d.RegFile.RegistersBundleArrays[1];
const reg = (d: Doc, i: number): AnyDoc => Q(d).Registers[i];
const field = (d: Doc, r: number, f: number): AnyDoc => reg(d, r).Fields[f];
const version = (d: Doc): AnyDoc => ENG(d).Registers[0];
const QP = '$.RegFile.RegistersBundleArrays[0]';
const EP = '$.RegFile.RegistersBundleArrays[1]';

interface Case {
  /** Breaks the sample. */
  readonly mutate: (d: Doc) => void;
  /** JSON path of the issue. */
  readonly path: string;
  readonly message: string | RegExp;
}

const gap = (Name: string, Block?: string) => ({
  Name,
  ...(Block ? { Block } : {}),
  Description: '',
  Provenance: 'public',
});

/** Every rule of the table, with the document that breaks it (TypeScript asks for each one). */
const CASES: { readonly [K in keyof typeof SCHEMA_RULES]: Case } = {
  fieldBitsInWord: {
    mutate: (d) => (field(d, 0, 0).Bits = '32:0'),
    path: `${QP}.Registers[0].Fields[0].Bits`,
    message: 'field bits 32:0 go beyond bit 31',
  },
  fieldHiNotBelowLo: {
    mutate: (d) => (field(d, 0, 0).Bits = '3:7'),
    path: `${QP}.Registers[0].Fields[0].Bits`,
    message: 'field bits 3:7 have hi below lo',
  },
  fieldResetFits: {
    mutate: (d) => (field(d, 0, 0).ResetValue = '0x100'),
    path: `${QP}.Registers[0].Fields[0].ResetValue`,
    message: /^reset value 0x100 is wider than the 8-bit field lo$/,
  },
  enumValueFits: {
    mutate: (d) => (field(d, 0, 0).EnumeratedValues = [{ Name: 'big', Value: '0x100' }]),
    path: `${QP}.Registers[0].Fields[0].EnumeratedValues[0].Value`,
    message: /^enumerated value 0x100 does not fit the 8-bit field$/,
  },
  enumNameUnique: {
    mutate: (d) =>
      (field(d, 0, 0).EnumeratedValues = [
        { Name: 'a', Value: 1 },
        { Name: 'a', Value: 2 },
      ]),
    path: `${QP}.Registers[0].Fields[0].EnumeratedValues[1].Name`,
    message: "duplicate enumerated value name 'a'",
  },
  enumValueUnique: {
    mutate: (d) =>
      (field(d, 0, 0).EnumeratedValues = [
        { Name: 'a', Value: 1 },
        { Name: 'b', Value: '0x1' },
      ]),
    path: `${QP}.Registers[0].Fields[0].EnumeratedValues[1].Value`,
    message: 'duplicate enumerated value 1',
  },
  registerAligned: {
    mutate: (d) => (reg(d, 0).AddressOffset = '0x2'),
    path: `${QP}.Registers[0].AddressOffset`,
    message: 'register offset 0x2 is not 4-byte aligned',
  },
  registerArrayComplete: {
    mutate: (d) => (reg(d, 0).ArraySize = 2),
    path: `${QP}.Registers[0]`,
    message: 'a register array needs both ArraySize and ArrayStride',
  },
  registerArrayStrideAligned: {
    mutate: (d) => Object.assign(reg(d, 0), { ArraySize: 2, ArrayStride: 6 }),
    path: `${QP}.Registers[0].ArrayStride`,
    message: 'register array stride 6 is not a multiple of 4',
  },
  registerInsideScope: {
    mutate: (d) => (reg(d, 0).AddressOffset = '0x40'),
    path: `${QP}.Registers[0].AddressOffset`,
    message: 'register cfg (0x40..0x43) lies past its bundle (0x40 bytes)',
  },
  fieldNameUnique: {
    mutate: (d) => (field(d, 0, 1).Name = 'lo'),
    path: `${QP}.Registers[0].Fields[1].Name`,
    message: "duplicate field name 'lo' (also Fields[0])",
  },
  fieldsDisjoint: {
    mutate: (d) => (field(d, 0, 1).Bits = '7:4'),
    path: `${QP}.Registers[0].Fields[1].Bits`,
    message: 'field hi bits 7:4 overlap field lo bits 7:0',
  },
  wholeWordAccessStated: {
    mutate: (d) => delete version(d).Access,
    path: `${EP}.Registers[0]`,
    message: 'a register without fields must state its Access',
  },
  wholeWordProvenanceStated: {
    mutate: (d) => delete version(d).Provenance,
    path: `${EP}.Registers[0]`,
    message: 'a register without fields must state its Provenance',
  },
  wholeWordResetFits: {
    mutate: (d) => (version(d).ResetValue = '0x1ffffffff'),
    path: `${EP}.Registers[0].ResetValue`,
    message: /^reset value 0x1ffffffff is wider than 32 bits$/,
  },
  resetOnFields: {
    mutate: (d) => (reg(d, 0).ResetValue = '0x0'),
    path: `${QP}.Registers[0].ResetValue`,
    message: 'a register with fields takes its reset value from its fields',
  },
  incAlone: {
    mutate: (d) =>
      reg(d, 1).Fields.push({
        Name: 'x',
        Bits: '31:24',
        Access: 'RW',
        ResetValue: '0x0',
        Description: '',
        Provenance: 'seed',
      }),
    path: `${QP}.Registers[1]`,
    message: 'an INC (doorbell) field shares its register with other access kinds',
  },
  registerAccessAgrees: {
    mutate: (d) => (reg(d, 0).Access = 'RO'),
    path: `${QP}.Registers[0].Access`,
    message: 'register Access RO disagrees with its fields (RW)',
  },
  incNamesTarget: {
    mutate: (d) => delete reg(d, 1).IncrementTarget,
    path: `${QP}.Registers[1]`,
    message: 'an INC (doorbell) register must name its IncrementTarget',
  },
  targetOnlyOnInc: {
    mutate: (d) => (reg(d, 0).IncrementTarget = 'tail.offset'),
    path: `${QP}.Registers[0].IncrementTarget`,
    message: 'IncrementTarget on a RW register',
  },
  registerNameUnique: {
    mutate: (d) => (reg(d, 2).Name = 'cfg'),
    path: `${QP}.Registers[2].Name`,
    message: `duplicate name 'cfg' (also at ${QP}.Registers[0])`,
  },
  registersDisjoint: {
    mutate: (d) => (reg(d, 2).AddressOffset = '0x8'),
    path: `${QP}.Registers[2].AddressOffset`,
    message: `register tail at 0x8 overlaps register tail_inc (${QP}.Registers[1])`,
  },
  incTargetExists: {
    mutate: (d) => (reg(d, 1).IncrementTarget = 'tail.nope'),
    path: `${QP}.Registers[1].IncrementTarget`,
    message: 'IncrementTarget tail.nope does not exist in Q',
  },
  incTargetPlain: {
    mutate: (d) => (reg(d, 1).IncrementTarget = 'tail_inc.val'),
    path: `${QP}.Registers[1].IncrementTarget`,
    message: 'IncrementTarget tail_inc.val must be a plain (non-INC, non-array) register field',
  },
  windowSizeAligned: {
    mutate: (d) => (d.RegFile.SizeInBytes = 0x3fe),
    path: '$.RegFile.SizeInBytes',
    message: 'window size 1022 is not a multiple of 4',
  },
  bundleNameUnique: {
    mutate: (d) => (ENG(d).Name = 'Q'),
    path: `${EP}.Name`,
    message: `duplicate name 'Q' (also at ${QP})`,
  },
  bundleAligned: {
    mutate: (d) => (Q(d).AddressOffset = '0x102'),
    path: `${QP}.AddressOffset`,
    message: 'bundle base 0x102 is not 4-byte aligned',
  },
  bundleSizeAligned: {
    mutate: (d) => (Q(d).BundleSizeInBytes = 0x42),
    path: `${QP}.BundleSizeInBytes`,
    message: 'bundle size 66 is not a multiple of 4',
  },
  bundleInsideWindow: {
    mutate: (d) => (Q(d).ArraySize = 20),
    path: `${QP}.AddressOffset`,
    message: /^bundle Q \(0x100\.\.0x5ff, 20 x 0x40\) lies past the window \(0x400 bytes\)$/,
  },
  spansDisjoint: {
    mutate: (d) => (Q(d).AddressOffset = '0xc0'),
    path: `${QP}.AddressOffset`,
    message: `bundle Q at 0xc0 overlaps bundle ENG (0x0..0xff, ${EP})`,
  },
  gapBlockExists: {
    mutate: (d) => ((d.RegFile as AnyDoc).KnownGaps = [gap('g', 'NOPE')]),
    path: '$.RegFile.KnownGaps[0].Block',
    message: "known gap names unknown block 'NOPE'",
  },
  gapNotARegister: {
    mutate: (d) => ((d.RegFile as AnyDoc).KnownGaps = [gap('cfg', 'Q')]),
    path: '$.RegFile.KnownGaps[0].Name',
    message: "known gap 'cfg' is also a register",
  },
};

function issuesOf(mutate: (d: Doc) => void): SchemaIssue[] {
  const d = sample();
  mutate(d);
  try {
    buildRegFile(d as unknown as RegFileJson, 'sample.json');
  } catch (e) {
    expect(e).toBeInstanceOf(NxdmaError);
    expect((e as NxdmaError).code).toBe('SCHEMA_INVALID');
    return (e as NxdmaError).details.issues as SchemaIssue[];
  }
  return [];
}

describe('schema rules (csr/schema/rules.ts)', () => {
  it('the sample document keeps every rule', () => {
    expect(issuesOf(() => {})).toEqual([]);
  });

  it('every rule has a unique name, a requirement and a case below', () => {
    const names = SCHEMA_RULE_LIST.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const r of SCHEMA_RULE_LIST) {
      expect(r.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(r.requires.length).toBeGreaterThan(10);
    }
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(SCHEMA_RULES).sort());
  });

  for (const [key, rule] of Object.entries(SCHEMA_RULES)) {
    const c = CASES[key as keyof typeof SCHEMA_RULES];
    it(`${rule.name}: ${rule.requires}`, () => {
      const issues = issuesOf(c.mutate);
      const mine = issues.filter((i) => i.rule === rule.name);
      expect(mine.length, JSON.stringify(issues, null, 1)).toBe(1);
      expect(mine[0].path).toBe(c.path);
      if (typeof c.message === 'string') expect(mine[0].message).toBe(c.message);
      else expect(mine[0].message).toMatch(c.message);
      expect(mine[0].expected.length).toBeGreaterThan(0);
    });
  }
});
