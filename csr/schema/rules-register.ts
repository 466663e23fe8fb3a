/**
 * The schema rules for fields and registers (entries of SCHEMA_RULES, rules.ts): bit ranges,
 * reset values, enumerated values, register alignment and placement, field overlap, access and
 * doorbell (INC) consistency.
 */
import { hex } from '../../common/errors.ts';
import { REGISTER_BYTES } from './model.ts';
import {
  rule,
  type AccessCtx,
  type EnumCtx,
  type FieldBitsCtx,
  type FieldedRegisterCtx,
  type FieldInRegisterCtx,
  type FieldValueCtx,
  type RegisterCtx,
} from './rule.ts';
import type { RegisterJson } from './format.ts';

export const FIELD_RULES = {
  // --- fields -------------------------------------------------------------------------------
  fieldBitsInWord: rule<FieldBitsCtx>(
    'field-bits-in-word',
    'a field lies within bits 31:0 of its 32-bit register',
    ({ f, hi, lo }) =>
      hi > 31 || lo > 31
        ? {
            at: ['Bits'],
            message: `field bits ${f.Bits} go beyond bit 31`,
            expected: 'bits within 31:0 of a 32-bit register',
            actual: f.Bits,
          }
        : null,
  ),
  fieldHiNotBelowLo: rule<FieldBitsCtx>(
    'field-hi-not-below-lo',
    'a field\'s "hi:lo" has hi >= lo',
    ({ f, hi, lo }) =>
      hi < lo
        ? {
            at: ['Bits'],
            message: `field bits ${f.Bits} have hi below lo`,
            expected: '"hi:lo" with hi >= lo',
            actual: f.Bits,
          }
        : null,
  ),
  fieldResetFits: rule<FieldValueCtx>(
    'field-reset-fits',
    "a field's reset value fits its width",
    ({ f, width, max, reset }) =>
      reset > max
        ? {
            at: ['ResetValue'],
            message: `reset value ${hex(reset)} is wider than the ${width}-bit field ${f.Name}`,
            expected: `a reset value within 0..${hex(max)}`,
            actual: f.ResetValue,
          }
        : null,
  ),
  enumValueFits: rule<EnumCtx>(
    'enum-value-fits',
    "an enumerated value fits its field's width",
    ({ value, raw, width, max }) =>
      value > max
        ? {
            at: ['Value'],
            message: `enumerated value ${hex(value)} does not fit the ${width}-bit field`,
            expected: `a value within 0..${hex(max)}`,
            actual: raw,
          }
        : null,
  ),
  enumNameUnique: rule<EnumCtx>(
    'enum-name-unique',
    'the enumerated values of a field have unique names',
    ({ name, seenNames }) =>
      seenNames.has(name)
        ? {
            at: ['Name'],
            message: `duplicate enumerated value name '${name}'`,
            expected: 'unique names within a field',
            actual: name,
          }
        : null,
  ),
  enumValueUnique: rule<EnumCtx>(
    'enum-value-unique',
    'the enumerated values of a field have unique values',
    ({ value, raw, seenValues }) =>
      seenValues.has(value)
        ? {
            at: ['Value'],
            message: `duplicate enumerated value ${value}`,
            expected: 'unique values within a field',
            actual: raw,
          }
        : null,
  ),
} as const;

export const REGISTER_RULES = {
  // --- registers ----------------------------------------------------------------------------
  registerAligned: rule<RegisterCtx>(
    'register-aligned',
    'a register offset is 4-byte aligned (one aligned 32-bit word)',
    ({ r, offset }) =>
      offset % REGISTER_BYTES !== 0
        ? {
            at: ['AddressOffset'],
            message: `register offset ${hex(offset)} is not 4-byte aligned`,
            expected: 'an offset that is a multiple of 4 (one aligned 32-bit word)',
            actual: r.AddressOffset,
          }
        : null,
  ),
  registerArrayComplete: rule<RegisterCtx>(
    'register-array-complete',
    'a register array states both ArraySize and ArrayStride',
    ({ r }) =>
      (r.ArraySize === undefined) !== (r.ArrayStride === undefined)
        ? {
            message: 'a register array needs both ArraySize and ArrayStride',
            expected: 'ArraySize and ArrayStride together, or neither',
            actual: { ArraySize: r.ArraySize, ArrayStride: r.ArrayStride },
          }
        : null,
  ),
  registerArrayStrideAligned: rule<RegisterCtx>(
    'register-array-stride-aligned',
    'a register array stride is a multiple of 4',
    ({ r }) =>
      r.ArrayStride !== undefined && r.ArrayStride % REGISTER_BYTES !== 0
        ? {
            at: ['ArrayStride'],
            message: `register array stride ${r.ArrayStride} is not a multiple of 4`,
            expected: 'a stride that is a multiple of 4',
            actual: r.ArrayStride,
          }
        : null,
  ),
  registerInsideScope: rule<RegisterCtx>(
    'register-inside-scope',
    'a register (all of its array) lies inside its bundle, or inside the window for a top-level one',
    ({ r, offset, last, scope }) =>
      last > scope.size
        ? {
            at: ['AddressOffset'],
            message:
              `register ${r.Name} (${hex(offset)}..${hex(last - 1)}) lies past its ${scope.kind} ` +
              `(${hex(scope.size)} bytes)`,
            expected: `a register inside the ${scope.kind} (offset + 4 <= ${hex(scope.size)})`,
            actual: r.AddressOffset,
          }
        : null,
  ),
  fieldNameUnique: rule<FieldInRegisterCtx>(
    'field-name-unique',
    'the fields of a register have unique names',
    ({ f, sameName }) =>
      sameName !== undefined
        ? {
            at: ['Name'],
            message: `duplicate field name '${f.Name}' (also Fields[${sameName}])`,
            expected: 'unique field names within a register',
            actual: f.Name,
          }
        : null,
  ),
  fieldsDisjoint: rule<FieldInRegisterCtx>(
    'fields-disjoint',
    'the fields of a register share no bit',
    ({ f, bits, others }) => {
      const other = bits && others?.find((o) => (o.mask & bits.mask) !== 0);
      return bits && other
        ? {
            at: ['Bits'],
            message: `field ${f.Name} bits ${bits.msb}:${bits.lsb} overlap field ${other.name} bits ${other.msb}:${other.lsb}`,
            expected: 'fields that do not share any bit',
            actual: f.Bits,
          }
        : null;
    },
  ),
  wholeWordAccessStated: rule<RegisterCtx>(
    'whole-word-access-stated',
    'a register without fields states its Access',
    ({ r }) =>
      !r.Access
        ? {
            message: 'a register without fields must state its Access',
            expected: 'an Access on a whole-word register',
            actual: undefined,
          }
        : null,
  ),
  wholeWordProvenanceStated: rule<RegisterCtx>(
    'whole-word-provenance-stated',
    'a register without fields states its Provenance',
    ({ r }) =>
      !r.Provenance
        ? {
            message: 'a register without fields must state its Provenance',
            expected: 'a Provenance on a whole-word register',
            actual: undefined,
          }
        : null,
  ),
  wholeWordResetFits: rule<{ r: RegisterJson; reset: number }>(
    'whole-word-reset-fits',
    "a whole-word register's reset value fits 32 bits",
    ({ r, reset }) =>
      reset > 0xffffffff
        ? {
            at: ['ResetValue'],
            message: `reset value ${hex(reset)} is wider than 32 bits`,
            expected: 'a reset value within 0..0xffffffff',
            actual: r.ResetValue,
          }
        : null,
  ),
  resetOnFields: rule<FieldedRegisterCtx>(
    'reset-on-fields',
    'a register with fields takes its reset value from its fields (no register ResetValue)',
    ({ r }) =>
      r.ResetValue !== undefined
        ? {
            at: ['ResetValue'],
            message: 'a register with fields takes its reset value from its fields',
            expected: 'ResetValue on the fields, not on the register',
            actual: r.ResetValue,
          }
        : null,
  ),
  incAlone: rule<FieldedRegisterCtx>(
    'inc-alone',
    'an INC (doorbell) field shares its register with INC fields only',
    ({ kinds }) =>
      kinds.includes('INC') && kinds.some((k) => k !== 'INC')
        ? {
            message: 'an INC (doorbell) field shares its register with other access kinds',
            expected: 'INC registers whose fields are all INC',
            actual: kinds,
          }
        : null,
  ),
  registerAccessAgrees: rule<FieldedRegisterCtx>(
    'register-access-agrees',
    "a register-level Access agrees with the access derived from the register's fields",
    ({ r, derived }) =>
      r.Access && r.Access !== derived
        ? {
            at: ['Access'],
            message: `register Access ${r.Access} disagrees with its fields (${derived})`,
            expected: `Access ${derived} or no register-level Access`,
            actual: r.Access,
          }
        : null,
  ),
  incNamesTarget: rule<AccessCtx>(
    'inc-names-target',
    'an INC (doorbell) register names its IncrementTarget',
    ({ r, access }) =>
      access === 'INC' && !r.IncrementTarget
        ? {
            message: 'an INC (doorbell) register must name its IncrementTarget',
            expected: 'IncrementTarget "register.field"',
            actual: undefined,
          }
        : null,
  ),
  targetOnlyOnInc: rule<AccessCtx>(
    'target-only-on-inc',
    'only INC registers have an IncrementTarget',
    ({ r, access }) =>
      r.IncrementTarget && access !== 'INC'
        ? {
            at: ['IncrementTarget'],
            message: `IncrementTarget on a ${access} register`,
            expected: 'IncrementTarget only on INC registers',
            actual: r.IncrementTarget,
          }
        : null,
  ),
} as const;
