/**
 * The shape of a schema rule (rules.ts holds the table) and the context each kind of rule checks:
 * a check returns null when the element keeps the rule, or the problem: `at` is the JSON path
 * below the element's own path, `where` overrides the element's register/field path.
 */
import type { AccessKind, FieldJson, Provenance, RegisterJson } from './format.ts';
import type { PathSeg } from '../../common/zod-issues.ts';
import type { RegisterModel } from './model.ts';

export type { PathSeg };

/** What a broken rule reports (the builder adds the file, the JSON path and the rule name). */
export interface RuleProblem {
  readonly at?: readonly PathSeg[];
  readonly where?: string | null;
  readonly message: string;
  readonly expected: string;
  readonly actual?: unknown;
}

export interface SchemaRule<C> {
  /** Stable kebab-case name ("fields-disjoint"). */
  readonly name: string;
  /** What the rule requires, in one sentence. */
  readonly requires: string;
  readonly check: (c: C) => RuleProblem | null;
}

export function rule<C>(
  name: string,
  requires: string,
  check: (c: C) => RuleProblem | null,
): SchemaRule<C> {
  return { name, requires, check };
}

/** A field's bits as parsed from "hi:lo". */
export interface FieldBitsCtx {
  readonly f: FieldJson;
  readonly hi: number;
  readonly lo: number;
}

export interface FieldValueCtx {
  readonly f: FieldJson;
  readonly width: number;
  readonly max: number;
  readonly reset: number;
}

export interface EnumCtx {
  readonly name: string;
  readonly raw: number | string;
  readonly value: number;
  readonly width: number;
  readonly max: number;
  readonly seenNames: ReadonlySet<string>;
  readonly seenValues: ReadonlySet<number>;
}

/** The bundle (or top-level window) a register must fit in. */
export interface RegisterScope {
  readonly name: string | null;
  readonly size: number;
  readonly kind: 'bundle' | 'window';
  readonly provenance: Provenance | null;
}

export interface RegisterCtx {
  readonly r: RegisterJson;
  readonly offset: number;
  readonly scope: RegisterScope;
  /** Last byte + 1 of the register (or its array). */
  readonly last: number;
}

export interface FieldInRegisterCtx {
  readonly f: FieldJson;
  /** JSON index of an earlier field of the same name, if any. */
  readonly sameName: number | undefined;
  readonly bits?: { readonly lsb: number; readonly msb: number; readonly mask: number };
  readonly others?: readonly { name: string; lsb: number; msb: number; mask: number }[];
}

export interface FieldedRegisterCtx {
  readonly r: RegisterJson;
  readonly kinds: readonly AccessKind[];
  /** The access derived from the fields. */
  readonly derived: AccessKind;
}

export interface AccessCtx {
  readonly r: RegisterJson;
  readonly access: AccessKind;
}

export interface NameCtx {
  readonly name: string;
  /** JSON path of an earlier element of the same name, if any. */
  readonly prev: string | undefined;
  readonly scope: string | null;
}

export interface WordClashCtx {
  readonly r: RegisterJson;
  readonly name: string;
  readonly offset: number;
  readonly clash: { name: string; path: string } | undefined;
}

export interface IncTargetCtx {
  readonly m: RegisterModel;
  readonly scope: string | null;
  readonly target: RegisterModel | undefined;
  readonly found: boolean;
}

export interface BundleCtx {
  readonly name: string;
  readonly raw: { AddressOffset: string | number; BundleSizeInBytes: number; ArraySize: number };
  readonly base: number;
  readonly end: number;
  readonly window: number;
}

export interface SpanCtx {
  readonly a: { start: number; end: number; what: string; path: string };
  readonly b: { start: number; end: number; what: string; path: string };
}

export interface GapCtx {
  readonly block: string | undefined;
  readonly blockFound: boolean;
  readonly name: string;
  readonly isRegister: boolean;
}
