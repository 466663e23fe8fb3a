/**
 * Builds the frozen model of `model.ts` from a register-file document already in the zod format
 * (`format.ts`) by the structural rules of `rules.ts`. Every problem is reported with the file, the JSON
 * path, the register path and what was expected; all problems of a file are reported in one
 * NxdmaError SCHEMA_INVALID (details.issues lists them).
 *
 * The structural rules themselves are a named table (SCHEMA_RULES, rules.ts): this module walks
 * the document, applies each rule where it belongs and builds the model; each issue names its rule.
 *
 * This module does not load zod: `loader.ts` checks the format of any document first;
 * `files.ts` builds the shipped schemas directly (the build and the test suite check them with the
 * full loader), so commands that only read the shipped registers start fast.
 */
import { NxdmaError } from '../../common/errors.ts';
import { jsonPath, type PathSeg } from '../../common/zod-issues.ts';
import type { AccessKind, FieldJson, Provenance, RegFileJson, RegisterJson } from './format.ts';
import { SCHEMA_RULES, type RegisterScope, type SchemaRule } from './rules.ts';
import {
  REGISTER_BYTES,
  absoluteOffset,
  blockPath,
  fieldMax,
  isReadableAccess,
  isWritableAccess,
  registerPath,
  type BlockModel,
  type EnumValue,
  type FieldModel,
  type KnownGap,
  type RegFileModel,
  type RegisterInstance,
  type RegisterModel,
} from './model.ts';

export { jsonPath, type PathSeg };

/** One problem found in a schema file. */
export interface SchemaIssue {
  /** JSON path, "$.RegFile.RegistersBundleArrays[5].Registers[2].Fields[0].Bits". */
  readonly path: string;
  /** Register or field path in domain terms ("M2S_Q.cfg.AXI_qos"), when known. */
  readonly where: string | null;
  readonly message: string;
  readonly expected: string;
  readonly actual?: unknown;
  /** The broken rule's name in SCHEMA_RULES (rules.ts), e.g. "fields-disjoint". */
  readonly rule?: string;
}

function formatIssues(file: string, issues: readonly SchemaIssue[]): string {
  const lines = issues.map(
    (i) =>
      `${file}: ${i.path}${i.where ? ` (${i.where})` : ''}: ${i.message}; expected ${i.expected}`,
  );
  return lines.length === 1
    ? lines[0]
    : `${file}: ${lines.length} schema problems:\n  ` + lines.join('\n  ');
}

export function fail(file: string, issues: readonly SchemaIssue[]): never {
  const first = issues[0];
  throw new NxdmaError('SCHEMA_INVALID', formatIssues(file, issues), {
    where: `${file}:${first.path}`,
    expected: first.expected,
    actual: first.actual,
    file,
    issues: issues.map((i) => ({ ...i })),
  });
}

/** Parses "0x1f", "0b11" or a JSON integer. */
export function parseNumberLike(v: number | string): number {
  if (typeof v === 'number') return v;
  if (v.startsWith('0x')) return parseInt(v.slice(2), 16);
  return parseInt(v.slice(2), 2);
}

interface Span {
  start: number;
  end: number;
  what: string;
  path: string;
}

/** Derives a register's access from its fields (see RegisterModel.access). */
export function deriveAccess(kinds: readonly AccessKind[]): AccessKind {
  const first = kinds[0];
  if (kinds.every((k) => k === first)) return first;
  const r = kinds.some(isReadableAccess);
  const w = kinds.some(isWritableAccess);
  return r && w ? 'RW' : r ? 'RO' : 'WO';
}

const PROVENANCE_ORDER: readonly Provenance[] = ['seed', 'public', 'inferred'];

const R = SCHEMA_RULES;

class Builder {
  readonly issues: SchemaIssue[] = [];
  constructor(
    readonly file: string,
    readonly doc: RegFileJson,
  ) {}

  /**
   * Applies `rule` to the element at `base` (its JSON path, as segments or as a path string) named
   * `where`; records the problem when it is broken. True when the rule holds.
   */
  apply<C>(rule: SchemaRule<C>, c: C, base: readonly PathSeg[] | string, where: string | null) {
    const p = rule.check(c);
    if (p === null) return true;
    const at = p.at ?? [];
    this.issues.push({
      path: typeof base === 'string' ? base + jsonPath(at).slice(1) : jsonPath([...base, ...at]),
      where: p.where !== undefined ? p.where : where,
      message: p.message,
      expected: p.expected,
      actual: p.actual,
      rule: rule.name,
    });
    return false;
  }

  field(f: FieldJson, segs: PathSeg[], where: string): FieldModel | null {
    const [hiS, loS] = f.Bits.split(':');
    const hi = Number(hiS);
    const lo = Number(loS);
    const bits = { f, hi, lo };
    let ok =
      this.apply(R.fieldBitsInWord, bits, segs, where) &&
      this.apply(R.fieldHiNotBelowLo, bits, segs, where);
    if (!ok) return null;
    const width = hi - lo + 1;
    const max = fieldMax(width);
    const resetKnown = f.ResetValue !== 'unknown';
    const reset = resetKnown ? parseNumberLike(f.ResetValue as number | string) : 0;
    if (!this.apply(R.fieldResetFits, { f, width, max, reset }, segs, where)) ok = false;
    const enums: EnumValue[] = [];
    const seenNames = new Set<string>();
    const seenValues = new Set<number>();
    (f.EnumeratedValues ?? []).forEach((e, i) => {
      const v = parseNumberLike(e.Value);
      const es = [...segs, 'EnumeratedValues', i];
      const ec = { name: e.Name, raw: e.Value, value: v, width, max, seenNames, seenValues };
      if (!this.apply(R.enumValueFits, ec, es, `${where}.${e.Name}`)) ok = false;
      if (!this.apply(R.enumNameUnique, ec, es, where)) ok = false;
      if (!this.apply(R.enumValueUnique, ec, es, where)) ok = false;
      seenNames.add(e.Name);
      seenValues.add(v);
      enums.push({ name: e.Name, value: v, description: e.Description ?? '' });
    });
    if (!ok) return null;
    return {
      name: f.Name,
      lsb: lo,
      msb: hi,
      width,
      max,
      mask: (max << lo) >>> 0,
      access: f.Access,
      readable: isReadableAccess(f.Access),
      writable: isWritableAccess(f.Access),
      reset,
      resetKnown,
      provenance: f.Provenance,
      provenanceNote: f.ProvenanceNote ?? null,
      inferred: f.Provenance === 'inferred',
      description: f.Description,
      enums,
    };
  }

  /**
   * Builds one register; `container` describes the bundle (or window) it must fit in.
   * Returns null when it has problems (already recorded).
   */
  register(r: RegisterJson, segs: PathSeg[], block: RegisterScope): RegisterModel | null {
    const where = block.name ? `${block.name}.${r.Name}` : r.Name;
    let ok = true;
    const offset = parseNumberLike(r.AddressOffset);
    const array =
      r.ArraySize !== undefined && r.ArrayStride !== undefined
        ? { size: r.ArraySize, stride: r.ArrayStride }
        : null;
    const last = offset + (array ? (array.size - 1) * array.stride : 0) + REGISTER_BYTES;
    const rc = { r, offset, scope: block, last };
    if (!this.apply(R.registerAligned, rc, segs, where)) ok = false;
    if (!this.apply(R.registerArrayComplete, rc, segs, where)) ok = false;
    else if (!this.apply(R.registerArrayStrideAligned, rc, segs, where)) ok = false;
    if (ok && !this.apply(R.registerInsideScope, rc, segs, where)) ok = false;

    // Fields: each valid, no duplicates, no overlaps.
    const fields: FieldModel[] = [];
    const names = new Map<string, number>();
    r.Fields.forEach((f, i) => {
      const fs: PathSeg[] = [...segs, 'Fields', i];
      const fw = `${where}.${f.Name}`;
      if (!this.apply(R.fieldNameUnique, { f, sameName: names.get(f.Name) }, fs, fw)) ok = false;
      else names.set(f.Name, i);
      const fm = this.field(f, fs, fw);
      if (!fm) {
        ok = false;
        return;
      }
      const others = fields;
      if (!this.apply(R.fieldsDisjoint, { f, sameName: undefined, bits: fm, others }, fs, fw)) {
        ok = false;
      }
      fields.push(fm);
    });

    // Access, reset, provenance of the whole register.
    let access: AccessKind;
    let reset = 0;
    let resetKnownMask = 0;
    if (fields.length === 0 && r.Fields.length === 0) {
      if (!this.apply(R.wholeWordAccessStated, rc, segs, where)) ok = false;
      if (!this.apply(R.wholeWordProvenanceStated, rc, segs, where)) ok = false;
      access = r.Access ?? 'RW';
      if (r.ResetValue !== undefined && r.ResetValue !== 'unknown') {
        reset = parseNumberLike(r.ResetValue);
        if (!this.apply(R.wholeWordResetFits, { r, reset }, segs, where)) ok = false;
        resetKnownMask = 0xffffffff;
      }
    } else {
      const kinds = r.Fields.map((f) => f.Access);
      const fc = { r, kinds, derived: deriveAccess(kinds) };
      if (!this.apply(R.resetOnFields, fc, segs, where)) ok = false;
      if (!this.apply(R.incAlone, fc, segs, where)) ok = false;
      access = fc.derived;
      if (!this.apply(R.registerAccessAgrees, fc, segs, where)) ok = false;
      for (const f of fields) {
        reset = (reset | (f.reset << f.lsb)) >>> 0;
        if (f.resetKnown) resetKnownMask = (resetKnownMask | f.mask) >>> 0;
      }
    }
    if (!this.apply(R.incNamesTarget, { r, access }, segs, where)) ok = false;
    if (!this.apply(R.targetOnlyOnInc, { r, access }, segs, where)) ok = false;
    if (!ok) return null;

    const inferredReasons: string[] = [];
    if (block.provenance === 'inferred') inferredReasons.push('block base');
    if (r.Provenance === 'inferred') inferredReasons.push('register placement');
    for (const f of fields) if (f.inferred) inferredReasons.push(`field ${f.name}`);
    const present = new Set<Provenance>(fields.map((f) => f.provenance));
    if (r.Provenance) present.add(r.Provenance);
    if (block.provenance) present.add(block.provenance);
    const sources = PROVENANCE_ORDER.filter((p) => present.has(p));
    const inferred = inferredReasons.length > 0;
    const fieldsSorted = [...fields].sort((a, b) => a.lsb - b.lsb);
    const [tReg, tField] = r.IncrementTarget ? r.IncrementTarget.split('.') : [];
    return {
      name: r.Name,
      block: block.name,
      offset,
      array,
      access,
      readable: isReadableAccess(access),
      writable: isWritableAccess(access),
      reset,
      resetKnownMask,
      resetKnown: fields.length > 0 ? fields.every((f) => f.resetKnown) : resetKnownMask !== 0,
      ownProvenance: r.Provenance ?? null,
      provenance: inferred ? 'inferred' : sources.includes('seed') ? 'seed' : 'public',
      sources,
      provenanceNote: r.ProvenanceNote ?? null,
      inferred,
      inferredReasons,
      addressInferred: block.provenance === 'inferred' || r.Provenance === 'inferred',
      description: r.Description,
      fields: fieldsSorted,
      incrementTarget: r.IncrementTarget ? { register: tReg, field: tField } : null,
      jsonPath: jsonPath(segs),
    };
  }

  /** Registers of one scope: no duplicate names, no overlapping words; INC targets resolve. */
  scope(
    regs: readonly RegisterJson[],
    segs: PathSeg[],
    block: RegisterScope,
    taken: Map<string, string>,
  ): RegisterModel[] {
    const out: RegisterModel[] = [];
    const words = new Map<number, { name: string; path: string }>();
    const names = new Map<string, string>(taken);
    regs.forEach((r, i) => {
      const rs: PathSeg[] = [...segs, i];
      const where = block.name ? `${block.name}.${r.Name}` : r.Name;
      const nc = { name: r.Name, prev: names.get(r.Name), scope: block.name };
      if (this.apply(R.registerNameUnique, nc, rs, where)) names.set(r.Name, jsonPath(rs));
      const m = this.register(r, rs, block);
      if (!m) return;
      const n = m.array ? m.array.size : 1;
      for (let k = 0; k < n; k++) {
        const off = m.offset + (m.array ? k * m.array.stride : 0);
        const wc = { r, name: registerPath(m, k), offset: off, clash: words.get(off) };
        if (!this.apply(R.registersDisjoint, wc, rs, where)) return;
        words.set(off, { name: registerPath(m, k), path: jsonPath(rs) });
      }
      out.push(m);
    });
    // Doorbell targets resolve within the same scope.
    for (const m of out) {
      const t = m.incrementTarget;
      if (!t) continue;
      const idx = regs.findIndex((r) => r.Name === m.name);
      const rs: PathSeg[] = [...segs, idx];
      const where = block.name ? `${block.name}.${m.name}` : m.name;
      const target = out.find((o) => o.name === t.register);
      const found = target?.fields.some((f) => f.name === t.field) === true;
      const tc = { m, scope: block.name, target, found };
      if (this.apply(R.incTargetExists, tc, rs, where)) this.apply(R.incTargetPlain, tc, rs, where);
    }
    return out.sort((a, b) => a.offset - b.offset);
  }

  build(): RegFileModel {
    const rf = this.doc.RegFile;
    const root: PathSeg[] = ['RegFile'];
    const size = rf.SizeInBytes;
    const spans: Span[] = [];
    const topNames = new Map<string, string>();
    this.apply(R.windowSizeAligned, { size }, root, rf.Name);

    const blocks: BlockModel[] = [];
    (rf.RegistersBundleArrays ?? []).forEach((b, i) => {
      const bs: PathSeg[] = [...root, 'RegistersBundleArrays', i];
      const base = parseNumberLike(b.AddressOffset);
      let ok = true;
      const nc = { name: b.Name, prev: topNames.get(b.Name), scope: null };
      if (!this.apply(R.bundleNameUnique, nc, bs, b.Name)) ok = false;
      else topNames.set(b.Name, jsonPath(bs));
      const end = base + b.ArraySize * b.BundleSizeInBytes;
      const bc = { name: b.Name, raw: b, base, end, window: size };
      if (!this.apply(R.bundleAligned, bc, bs, b.Name)) ok = false;
      if (!this.apply(R.bundleSizeAligned, bc, bs, b.Name)) ok = false;
      if (!this.apply(R.bundleInsideWindow, bc, bs, b.Name)) ok = false;
      spans.push({ start: base, end, what: `bundle ${b.Name}`, path: jsonPath(bs) });
      const regs = this.scope(
        b.Registers,
        [...bs, 'Registers'],
        { name: b.Name, size: b.BundleSizeInBytes, kind: 'bundle', provenance: b.Provenance },
        new Map(),
      );
      if (!ok) return;
      blocks.push({
        name: b.Name,
        description: b.Description,
        base,
        arraySize: b.ArraySize,
        stride: b.BundleSizeInBytes,
        indexed: b.ArraySize > 1,
        provenance: b.Provenance,
        provenanceNote: b.ProvenanceNote ?? null,
        registers: regs,
        jsonPath: jsonPath(bs),
      });
    });

    const top = this.scope(
      rf.Registers ?? [],
      [...root, 'Registers'],
      { name: null, size, kind: 'window', provenance: null },
      topNames,
    );
    for (const r of top) {
      const idx = (rf.Registers ?? []).findIndex((x) => x.Name === r.name);
      const n = r.array ? r.array.size : 1;
      for (let k = 0; k < n; k++) {
        const off = absoluteOffset(null, 0, r, k);
        spans.push({
          start: off,
          end: off + REGISTER_BYTES,
          what: `register ${registerPath(r, k)}`,
          path: jsonPath([...root, 'Registers', idx]),
        });
      }
    }

    // Bundles and top-level registers must not share bytes.
    const sorted = [...spans].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      this.apply(R.spansDisjoint, { a: sorted[i - 1], b: sorted[i] }, sorted[i].path, null);
    }

    const gaps: KnownGap[] = [];
    (rf.KnownGaps ?? []).forEach((g, i) => {
      const gs: PathSeg[] = [...root, 'KnownGaps', i];
      const blk = g.Block
        ? (rf.RegistersBundleArrays ?? []).find((b) => b.Name === g.Block)
        : undefined;
      const gc = { block: g.Block, blockFound: blk !== undefined, name: g.Name, isRegister: false };
      if (!this.apply(R.gapBlockExists, gc, gs, g.Name)) return;
      const regs = blk ? blk.Registers : (rf.Registers ?? []);
      const isRegister = regs.some((r) => r.Name === g.Name);
      if (!this.apply(R.gapNotARegister, { ...gc, isRegister }, gs, g.Name)) return;
      gaps.push({
        name: g.Name,
        block: g.Block ?? null,
        description: g.Description,
        provenance: g.Provenance,
      });
    });

    if (this.issues.length) fail(this.file, this.issues);

    blocks.sort((a, b) => a.base - b.base);
    const insts: RegisterInstance[] = [];
    for (const b of blocks) {
      for (let bi = 0; bi < b.arraySize; bi++) {
        for (const r of b.registers) {
          const n = r.array ? r.array.size : 1;
          for (let k = 0; k < n; k++) {
            insts.push({
              file: rf.Name,
              path: `${blockPath(b, bi)}.${registerPath(r, k)}`,
              block: b,
              blockIndex: b.indexed ? bi : null,
              register: r,
              index: r.array ? k : null,
              offset: absoluteOffset(b, bi, r, k),
            });
          }
        }
      }
    }
    for (const r of top) {
      const n = r.array ? r.array.size : 1;
      for (let k = 0; k < n; k++) {
        insts.push({
          file: rf.Name,
          path: registerPath(r, k),
          block: null,
          blockIndex: null,
          register: r,
          index: r.array ? k : null,
          offset: absoluteOffset(null, 0, r, k),
        });
      }
    }
    insts.sort((a, b) => a.offset - b.offset);

    return deepFreeze({
      name: rf.Name,
      description: rf.Description,
      size,
      source: this.file,
      blocks,
      registers: top,
      knownGaps: gaps,
      instances: insts,
    });
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * Validates and builds a model from an already parsed JSON document. `source` names the file in
 * messages. Throws NxdmaError SCHEMA_INVALID listing every problem.

/**
 * Builds the model of a document that is already in the register-file format (the structural
 * rules only). Throws NxdmaError SCHEMA_INVALID listing every problem.
 */
export function buildRegFile(json: RegFileJson, source: string): RegFileModel {
  return new Builder(source, json).build();
}
