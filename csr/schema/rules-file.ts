/**
 * The schema rules for scopes and the file (entries of SCHEMA_RULES, rules.ts): unique names,
 * registers that share no word, doorbell targets that resolve, bundle placement in the window,
 * bundles and top-level registers that share no byte, known gaps.
 */
import { hex } from '../../common/errors.ts';
import { REGISTER_BYTES } from './model.ts';
import {
  rule,
  type BundleCtx,
  type GapCtx,
  type IncTargetCtx,
  type NameCtx,
  type SpanCtx,
  type WordClashCtx,
} from './rule.ts';

export const FILE_RULES = {
  // --- scopes (the registers of a bundle, the top-level registers) ---------------------------
  registerNameUnique: rule<NameCtx>(
    'register-name-unique',
    'names are unique within their scope (the registers of a bundle; bundles and top-level registers)',
    ({ name, prev, scope }) =>
      prev
        ? {
            at: ['Name'],
            message: `duplicate name '${name}' (also at ${prev})`,
            expected: `names unique within ${scope ?? 'the file'}`,
            actual: name,
          }
        : null,
  ),
  registersDisjoint: rule<WordClashCtx>(
    'registers-disjoint',
    'the registers of a scope (array entries included) share no word',
    ({ r, name, offset, clash }) =>
      clash
        ? {
            at: ['AddressOffset'],
            message: `register ${name} at ${hex(offset)} overlaps register ${clash.name} (${clash.path})`,
            expected: 'registers that do not share a word',
            actual: r.AddressOffset,
          }
        : null,
  ),
  incTargetExists: rule<IncTargetCtx>(
    'inc-target-exists',
    "an IncrementTarget names an existing register.field of the doorbell's scope",
    ({ m, scope, found }) => {
      const t = m.incrementTarget!;
      return !found
        ? {
            at: ['IncrementTarget'],
            message: `IncrementTarget ${t.register}.${t.field} does not exist in ${scope ?? 'the file'}`,
            expected: 'an existing register.field in the same block',
            actual: `${t.register}.${t.field}`,
          }
        : null;
    },
  ),
  incTargetPlain: rule<IncTargetCtx>(
    'inc-target-plain',
    'an IncrementTarget is a field of a plain register (not INC), and neither side is a register array',
    ({ m, target }) => {
      const t = m.incrementTarget!;
      return target && (target.access === 'INC' || target.array || m.array)
        ? {
            at: ['IncrementTarget'],
            message: `IncrementTarget ${t.register}.${t.field} must be a plain (non-INC, non-array) register field`,
            expected: 'a non-INC register field outside register arrays',
            actual: `${t.register}.${t.field}`,
          }
        : null;
    },
  ),

  // --- the file and its bundles --------------------------------------------------------------
  windowSizeAligned: rule<{ size: number }>(
    'window-size-aligned',
    'the window size is a whole number of 32-bit words',
    ({ size }) =>
      size % REGISTER_BYTES !== 0
        ? {
            at: ['SizeInBytes'],
            message: `window size ${size} is not a multiple of 4`,
            expected: 'a window of whole 32-bit words',
            actual: size,
          }
        : null,
  ),
  bundleNameUnique: rule<NameCtx>(
    'bundle-name-unique',
    'bundle and top-level register names are unique within the file',
    ({ name, prev }) =>
      prev
        ? {
            at: ['Name'],
            message: `duplicate name '${name}' (also at ${prev})`,
            expected: 'bundle and top-level register names unique within the file',
            actual: name,
          }
        : null,
  ),
  bundleAligned: rule<BundleCtx>(
    'bundle-aligned',
    'a bundle base is 4-byte aligned',
    ({ base, raw }) =>
      base % REGISTER_BYTES !== 0
        ? {
            at: ['AddressOffset'],
            message: `bundle base ${hex(base)} is not 4-byte aligned`,
            expected: 'a base that is a multiple of 4',
            actual: raw.AddressOffset,
          }
        : null,
  ),
  bundleSizeAligned: rule<BundleCtx>(
    'bundle-size-aligned',
    'a bundle size (its stride) is a multiple of 4',
    ({ raw }) =>
      raw.BundleSizeInBytes % REGISTER_BYTES !== 0
        ? {
            at: ['BundleSizeInBytes'],
            message: `bundle size ${raw.BundleSizeInBytes} is not a multiple of 4`,
            expected: 'a bundle size that is a multiple of 4',
            actual: raw.BundleSizeInBytes,
          }
        : null,
  ),
  bundleInsideWindow: rule<BundleCtx>(
    'bundle-inside-window',
    'a bundle (all of its instances) lies inside the window',
    ({ name, raw, base, end, window }) =>
      end > window
        ? {
            at: ['AddressOffset'],
            message: `bundle ${name} (${hex(base)}..${hex(end - 1)}, ${raw.ArraySize} x ${hex(raw.BundleSizeInBytes)}) lies past the window (${hex(window)} bytes)`,
            expected: `base + ArraySize * BundleSizeInBytes <= SizeInBytes (${hex(window)})`,
            actual: raw.AddressOffset,
          }
        : null,
  ),
  spansDisjoint: rule<SpanCtx>(
    'spans-disjoint',
    'bundles and top-level registers share no byte',
    ({ a, b }) =>
      b.start < a.end
        ? {
            at: ['AddressOffset'],
            where: b.what.replace(/^(bundle|register) /, ''),
            message: `${b.what} at ${hex(b.start)} overlaps ${a.what} (${hex(a.start)}..${hex(a.end - 1)}, ${a.path})`,
            expected: 'bundles and top-level registers that do not share bytes',
            actual: hex(b.start),
          }
        : null,
  ),
  gapBlockExists: rule<GapCtx>(
    'gap-block-exists',
    'a known gap names a block of the file (or none)',
    ({ block, blockFound }) =>
      block && !blockFound
        ? {
            at: ['Block'],
            message: `known gap names unknown block '${block}'`,
            expected: 'a block of this file',
            actual: block,
          }
        : null,
  ),
  gapNotARegister: rule<GapCtx>(
    'gap-not-a-register',
    'a known gap is not also placed as a register',
    ({ name, isRegister }) =>
      isRegister
        ? {
            at: ['Name'],
            message: `known gap '${name}' is also a register`,
            expected: 'a gap that is not placed as a register',
            actual: name,
          }
        : null,
  ),
} as const;
