/**
 * The register-file JSON format (csr/schemas/*.json), in the style of the Cayman UDMA CSR schema
 * the seed quotes (seed 004 §7.3, §8, "Reproduction"):
 *
 *   {"RegFile": {"Name", "Description", "SizeInBytes", "Registers": [...],
 *     "RegistersBundleArrays": [{"Name", "AddressOffset", "ArraySize", "BundleSizeInBytes",
 *                                "Registers": [...]}], "KnownGaps": [...]}}
 *
 * This zod schema is the one description of the format: the TypeScript types below are inferred
 * from it, and `csr/schemas/regfile.schema.json` (for editors) is exported from it by
 * `npm run gen`. The structural rules zod cannot express (overlaps, bounds, duplicates) live in
 * `loader.ts`.
 */
import { z } from 'zod';

/** Access kinds of a field (and, derived, of a register). */
export const ACCESS_KINDS = ['RW', 'RO', 'WO', 'INC', 'W1C', 'RC'] as const;
export const AccessSchema = z
  .enum(ACCESS_KINDS)
  .describe(
    'RW read/write; RO read-only (writes ignored); WO write-only (reads return 0); INC a write adds ' +
      'the written value to the IncrementTarget field (a doorbell; reads return 0); W1C read, write 1 ' +
      'to clear; RC read, a read clears.',
  );

/** Where a fact comes from (spec/REGISTERS.md "Provenance"). */
export const PROVENANCES = ['seed', 'public', 'inferred'] as const;
export const ProvenanceSchema = z
  .enum(PROVENANCES)
  .describe(
    'seed: stated in the vendor sources docs/sources.md lists (the Cayman UDMA CSR schemas, the DGE firmware and host API); public: stated in the public Linux ' +
      'driver; inferred: our own reading by analogy (never written to hardware without an opt-in).',
  );

/** A name usable as a TypeScript property: the domain's spelling (dwrr_cfg_2, AXI_qos, M2S_Q). */
export const NameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
  .refine((n) => !(n in Object.prototype), {
    message: 'a name that is not a JavaScript object property (constructor, toString, ...)',
  })
  .describe(
    'Identifier: letters, digits and _, not starting with a digit, and not a name every ' +
      'JavaScript object has (constructor, toString, valueOf, __proto__, ...).',
  );

/** A byte offset or value: a JSON integer, or a string "0x..." (hex) or "0b..." (binary). */
export const NumberLikeSchema = z
  .union([
    z.number().int().nonnegative(),
    z.string().regex(/^(0x[0-9a-fA-F]+|0b[01]+)$/, 'expected "0x..." or "0b..."'),
  ])
  .describe('A non-negative integer, or a string "0x..." (hex) or "0b..." (binary).');

export const EnumValueSchema = z.strictObject({
  Name: NameSchema,
  Value: NumberLikeSchema,
  Description: z.string().optional(),
});

export const FieldSchema = z.strictObject({
  Name: NameSchema,
  Bits: z
    .string()
    .regex(/^\d{1,2}:\d{1,2}$/, 'expected "hi:lo"')
    .describe('"hi:lo", inclusive, bit 0 is the least significant; a 1-bit field is "n:n".'),
  Access: AccessSchema,
  ResetValue: z
    .union([NumberLikeSchema, z.literal('unknown')])
    .describe('Value of the field after reset, or "unknown" (then 0 and marked unknown).'),
  Description: z.string(),
  Provenance: ProvenanceSchema,
  ProvenanceNote: z
    .string()
    .optional()
    .describe('What exactly the source states, when only part of the field is sourced.'),
  EnumeratedValues: z.array(EnumValueSchema).optional(),
});

export const RegisterSchema = z.strictObject({
  Name: NameSchema,
  AddressOffset: NumberLikeSchema.describe(
    'Byte offset from the start of the bundle (or of the file for top-level registers); 4-aligned.',
  ),
  Description: z.string(),
  Access: AccessSchema.optional().describe(
    'Required when Fields is empty (a whole-word register); otherwise derived from the fields and, ' +
      'when given, must agree with them.',
  ),
  ResetValue: z
    .union([NumberLikeSchema, z.literal('unknown')])
    .optional()
    .describe(
      'Only for a register without fields; a register with fields takes its reset from them.',
    ),
  Provenance: ProvenanceSchema.optional().describe(
    'Provenance of the register itself (its name and offset). Required when Fields is empty.',
  ),
  ProvenanceNote: z.string().optional(),
  ArraySize: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('A register repeated ArraySize times (a table of words); paths read name[i].'),
  ArrayStride: z
    .number()
    .int()
    .min(4)
    .optional()
    .describe('Bytes between consecutive entries of a register array; a multiple of 4.'),
  IncrementTarget: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, 'expected "register.field"')
    .optional()
    .describe(
      'For an INC register (doorbell): the "register.field" in the same bundle instance that a ' +
        'write adds its value to (tdrtp_inc -> "tdrtp.offset").',
    ),
  Fields: z.array(FieldSchema),
});

export const BundleSchema = z.strictObject({
  Name: NameSchema,
  Description: z.string(),
  AddressOffset: NumberLikeSchema.describe('Byte offset of instance 0 from the start of the file.'),
  ArraySize: z.number().int().min(1).describe('Number of instances; 1 for a single block.'),
  BundleSizeInBytes: z
    .number()
    .int()
    .min(4)
    .describe('Size of one instance, also the stride between instances.'),
  Provenance: ProvenanceSchema.describe('Provenance of the block base (AddressOffset).'),
  ProvenanceNote: z.string().optional(),
  Registers: z.array(RegisterSchema),
});

export const KnownGapSchema = z.strictObject({
  Name: z.string().describe('What is known to exist but cannot be placed (for example "q_qos").'),
  Block: z.string().optional().describe('The block it belongs to, when known.'),
  Description: z.string(),
  Provenance: ProvenanceSchema.describe('Who states that it exists.'),
});

export const RegFileBodySchema = z.strictObject({
  Name: NameSchema,
  Description: z.string(),
  SizeInBytes: z.number().int().min(4).describe('Size of the register window in bytes.'),
  Registers: z.array(RegisterSchema).optional(),
  RegistersBundleArrays: z.array(BundleSchema).optional(),
  KnownGaps: z
    .array(KnownGapSchema)
    .optional()
    .describe('Documented facts without a known place; never turned into guessed registers.'),
});

export const RegFileDocumentSchema = z.strictObject({
  $schema: z.string().optional(),
  RegFile: RegFileBodySchema,
});

export type AccessKind = z.infer<typeof AccessSchema>;
export type Provenance = z.infer<typeof ProvenanceSchema>;
export type FieldJson = z.infer<typeof FieldSchema>;
export type RegisterJson = z.infer<typeof RegisterSchema>;
export type BundleJson = z.infer<typeof BundleSchema>;
export type KnownGapJson = z.infer<typeof KnownGapSchema>;
export type RegFileJson = z.infer<typeof RegFileDocumentSchema>;

/** The JSON Schema (draft 2020-12) of the format, for editors; written by `npm run gen`. */
export function regFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RegFileDocumentSchema) as Record<string, unknown>;
  return {
    ...schema,
    title: 'nxdma register file',
    description:
      'A UDMA/DGE register file: blocks (bundles) of 32-bit registers made of bit fields, each ' +
      'with access, reset value and provenance. Generated from csr/schema/format.ts.',
  };
}
