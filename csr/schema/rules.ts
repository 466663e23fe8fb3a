/**
 * The structural rules of a register-file schema, as one named table (SCHEMA_RULES): one entry
 * per rule, each with its name (the `rule` of the SchemaIssue it reports), what it requires, and
 * its check. The builder (builder.ts) walks a document and applies each rule where it belongs;
 * test/csr/schema/rules.test.ts has one test per rule, named after it.
 *
 *   SCHEMA_RULES.fieldsDisjoint.name      // "fields-disjoint"
 *   SCHEMA_RULES.fieldsDisjoint.requires  // "the fields of a register share no bit"
 */
import type { SchemaRule } from './rule.ts';
import { FILE_RULES } from './rules-file.ts';
import { FIELD_RULES, REGISTER_RULES } from './rules-register.ts';

export type { PathSeg, RegisterScope, RuleProblem, SchemaRule } from './rule.ts';

export const SCHEMA_RULES = { ...FIELD_RULES, ...REGISTER_RULES, ...FILE_RULES } as const;

/** Every rule, in table order. */
export const SCHEMA_RULE_LIST: readonly SchemaRule<never>[] = Object.values(SCHEMA_RULES);
