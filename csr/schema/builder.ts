/**
 * Builds the frozen model of `model.ts` from a register-file document already in the zod format
 * (`format.ts`): the structural rules below. Every problem is reported with the file, the JSON
 * path, the register path and what was expected; all problems of a file are reported in one
 * NxdmaError SCHEMA_INVALID (details.issues lists them).
 *
 * Structural rules: fields must not overlap nor pass bit 31 and must have hi >= lo; a reset value
 * must fit its field; registers must be 4-aligned, must not overlap and must lie inside their
 * bundle (top-level registers: inside the window); bundles must be 4-aligned, must not overlap and
 * must lie inside the window; names are unique per scope (bundles and top-level registers, the
 * registers of a bundle, the fields of a register, the values of an enum); a register without
 * fields states its Access and Provenance; INC registers name an existing IncrementTarget.
 *
 * This module does not load zod: `loader.ts` checks the format of any document first;
 * `files.ts` builds the shipped schemas directly (the build and the test suite check them with the
 * full loader), so commands that only read the shipped registers start fast.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { jsonPath, type PathSeg } from '../../common/zod-issues.ts';
import type { AccessKind, FieldJson, Provenance, RegFileJson, RegisterJson } from './format.ts';
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

/** The bundle (or top-level window) a register must fit in. */
interface RegisterScope {
  name: string | null;
  size: number;
  kind: 'bundle' | 'window';
  provenance: Provenance | null;
}

class Builder {
  readonly issues: SchemaIssue[] = [];
  constructor(
    readonly file: string,
    readonly doc: RegFileJson,
  ) {}

  issue(
    segs: readonly PathSeg[],
    where: string | null,
    message: string,
    expected: string,
    actual?: unknown,
  ) {
    this.issues.push({ path: jsonPath(segs), where, message, expected, actual });
  }

  field(f: FieldJson, segs: PathSeg[], where: string): FieldModel | null {
    const [hiS, loS] = f.Bits.split(':');
    const hi = Number(hiS);
    const lo = Number(loS);
    let ok = true;
    if (hi > 31 || lo > 31) {
      this.issue(
        [...segs, 'Bits'],
        where,
        `field bits ${f.Bits} go beyond bit 31`,
        'bits within 31:0 of a 32-bit register',
        f.Bits,
      );
      ok = false;
    } else if (hi < lo) {
      this.issue(
        [...segs, 'Bits'],
        where,
        `field bits ${f.Bits} have hi below lo`,
        '"hi:lo" with hi >= lo',
        f.Bits,
      );
      ok = false;
    }
    if (!ok) return null;
    const width = hi - lo + 1;
    const max = fieldMax(width);
    const resetKnown = f.ResetValue !== 'unknown';
    const reset = resetKnown ? parseNumberLike(f.ResetValue as number | string) : 0;
    if (reset > max) {
      this.issue(
        [...segs, 'ResetValue'],
        where,
        `reset value ${hex(reset)} is wider than the ${width}-bit field ${f.Name}`,
        `a reset value within 0..${hex(max)}`,
        f.ResetValue,
      );
      ok = false;
    }
    const enums: EnumValue[] = [];
    const seenNames = new Set<string>();
    const seenValues = new Set<number>();
    (f.EnumeratedValues ?? []).forEach((e, i) => {
      const v = parseNumberLike(e.Value);
      const es = [...segs, 'EnumeratedValues', i];
      if (v > max) {
        this.issue(
          [...es, 'Value'],
          `${where}.${e.Name}`,
          `enumerated value ${hex(v)} does not fit the ${width}-bit field`,
          `a value within 0..${hex(max)}`,
          e.Value,
        );
        ok = false;
      }
      if (seenNames.has(e.Name)) {
        this.issue(
          [...es, 'Name'],
          where,
          `duplicate enumerated value name '${e.Name}'`,
          'unique names within a field',
          e.Name,
        );
        ok = false;
      }
      if (seenValues.has(v)) {
        this.issue(
          [...es, 'Value'],
          where,
          `duplicate enumerated value ${v}`,
          'unique values within a field',
          e.Value,
        );
        ok = false;
      }
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
    if (offset % REGISTER_BYTES !== 0) {
      this.issue(
        [...segs, 'AddressOffset'],
        where,
        `register offset ${hex(offset)} is not 4-byte aligned`,
        'an offset that is a multiple of 4 (one aligned 32-bit word)',
        r.AddressOffset,
      );
      ok = false;
    }
    let array: { size: number; stride: number } | null = null;
    if ((r.ArraySize === undefined) !== (r.ArrayStride === undefined)) {
      this.issue(
        segs,
        where,
        'a register array needs both ArraySize and ArrayStride',
        'ArraySize and ArrayStride together, or neither',
        { ArraySize: r.ArraySize, ArrayStride: r.ArrayStride },
      );
      ok = false;
    } else if (r.ArraySize !== undefined && r.ArrayStride !== undefined) {
      if (r.ArrayStride % REGISTER_BYTES !== 0) {
        this.issue(
          [...segs, 'ArrayStride'],
          where,
          `register array stride ${r.ArrayStride} is not a multiple of 4`,
          'a stride that is a multiple of 4',
          r.ArrayStride,
        );
        ok = false;
      }
      array = { size: r.ArraySize, stride: r.ArrayStride };
    }
    const last = offset + (array ? (array.size - 1) * array.stride : 0) + REGISTER_BYTES;
    if (ok && last > block.size) {
      this.issue(
        [...segs, 'AddressOffset'],
        where,
        `register ${r.Name} (${hex(offset)}..${hex(last - 1)}) lies past its ${block.kind} ` +
          `(${hex(block.size)} bytes)`,
        `a register inside the ${block.kind} (offset + 4 <= ${hex(block.size)})`,
        r.AddressOffset,
      );
      ok = false;
    }

    // Fields: each valid, no duplicates, no overlaps.
    const fields: FieldModel[] = [];
    const names = new Map<string, number>();
    r.Fields.forEach((f, i) => {
      const fs: PathSeg[] = [...segs, 'Fields', i];
      if (names.has(f.Name)) {
        this.issue(
          [...fs, 'Name'],
          `${where}.${f.Name}`,
          `duplicate field name '${f.Name}' (also Fields[${names.get(f.Name)}])`,
          'unique field names within a register',
          f.Name,
        );
        ok = false;
      } else names.set(f.Name, i);
      const fm = this.field(f, fs, `${where}.${f.Name}`);
      if (!fm) {
        ok = false;
        return;
      }
      const other = fields.find((o) => (o.mask & fm.mask) !== 0);
      if (other) {
        this.issue(
          [...fs, 'Bits'],
          `${where}.${f.Name}`,
          `field ${f.Name} bits ${fm.msb}:${fm.lsb} overlap field ${other.name} bits ${other.msb}:${other.lsb}`,
          'fields that do not share any bit',
          f.Bits,
        );
        ok = false;
      }
      fields.push(fm);
    });

    // Access, reset, provenance of the whole register.
    let access: AccessKind;
    let reset = 0;
    let resetKnownMask = 0;
    if (fields.length === 0 && r.Fields.length === 0) {
      if (!r.Access) {
        this.issue(
          segs,
          where,
          'a register without fields must state its Access',
          'an Access on a whole-word register',
          undefined,
        );
        ok = false;
      }
      if (!r.Provenance) {
        this.issue(
          segs,
          where,
          'a register without fields must state its Provenance',
          'a Provenance on a whole-word register',
          undefined,
        );
        ok = false;
      }
      access = r.Access ?? 'RW';
      if (r.ResetValue !== undefined && r.ResetValue !== 'unknown') {
        reset = parseNumberLike(r.ResetValue);
        if (reset > 0xffffffff) {
          this.issue(
            [...segs, 'ResetValue'],
            where,
            `reset value ${hex(reset)} is wider than 32 bits`,
            'a reset value within 0..0xffffffff',
            r.ResetValue,
          );
          ok = false;
        }
        resetKnownMask = 0xffffffff;
      }
    } else {
      if (r.ResetValue !== undefined) {
        this.issue(
          [...segs, 'ResetValue'],
          where,
          'a register with fields takes its reset value from its fields',
          'ResetValue on the fields, not on the register',
          r.ResetValue,
        );
        ok = false;
      }
      const kinds = r.Fields.map((f) => f.Access);
      if (kinds.includes('INC') && kinds.some((k) => k !== 'INC')) {
        this.issue(
          segs,
          where,
          'an INC (doorbell) field shares its register with other access kinds',
          'INC registers whose fields are all INC',
          kinds,
        );
        ok = false;
      }
      access = deriveAccess(kinds);
      if (r.Access && r.Access !== access) {
        this.issue(
          [...segs, 'Access'],
          where,
          `register Access ${r.Access} disagrees with its fields (${access})`,
          `Access ${access} or no register-level Access`,
          r.Access,
        );
        ok = false;
      }
      for (const f of fields) {
        reset = (reset | (f.reset << f.lsb)) >>> 0;
        if (f.resetKnown) resetKnownMask = (resetKnownMask | f.mask) >>> 0;
      }
    }
    if (access === 'INC' && !r.IncrementTarget) {
      this.issue(
        segs,
        where,
        'an INC (doorbell) register must name its IncrementTarget',
        'IncrementTarget "register.field"',
        undefined,
      );
      ok = false;
    }
    if (r.IncrementTarget && access !== 'INC') {
      this.issue(
        [...segs, 'IncrementTarget'],
        where,
        `IncrementTarget on a ${access} register`,
        'IncrementTarget only on INC registers',
        r.IncrementTarget,
      );
      ok = false;
    }
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
      const prev = names.get(r.Name);
      if (prev) {
        this.issue(
          [...rs, 'Name'],
          where,
          `duplicate name '${r.Name}' (also at ${prev})`,
          `names unique within ${block.name ?? 'the file'}`,
          r.Name,
        );
      } else names.set(r.Name, jsonPath(rs));
      const m = this.register(r, rs, block);
      if (!m) return;
      const n = m.array ? m.array.size : 1;
      for (let k = 0; k < n; k++) {
        const off = m.offset + (m.array ? k * m.array.stride : 0);
        const clash = words.get(off);
        if (clash) {
          this.issue(
            [...rs, 'AddressOffset'],
            where,
            `register ${registerPath(m, k)} at ${hex(off)} overlaps register ${clash.name} (${clash.path})`,
            'registers that do not share a word',
            r.AddressOffset,
          );
          return;
        }
        words.set(off, { name: registerPath(m, k), path: jsonPath(rs) });
      }
      out.push(m);
    });
    // Doorbell targets resolve within the same scope.
    for (const m of out) {
      const t = m.incrementTarget;
      if (!t) continue;
      const idx = regs.findIndex((r) => r.Name === m.name);
      const rs: PathSeg[] = [...segs, idx, 'IncrementTarget'];
      const where = block.name ? `${block.name}.${m.name}` : m.name;
      const target = out.find((o) => o.name === t.register);
      const tf = target?.fields.find((f) => f.name === t.field);
      if (!target || !tf) {
        this.issue(
          rs,
          where,
          `IncrementTarget ${t.register}.${t.field} does not exist in ${block.name ?? 'the file'}`,
          'an existing register.field in the same block',
          `${t.register}.${t.field}`,
        );
      } else if (target.access === 'INC' || target.array || m.array) {
        this.issue(
          rs,
          where,
          `IncrementTarget ${t.register}.${t.field} must be a plain (non-INC, non-array) register field`,
          'a non-INC register field outside register arrays',
          `${t.register}.${t.field}`,
        );
      }
    }
    return out.sort((a, b) => a.offset - b.offset);
  }

  build(): RegFileModel {
    const rf = this.doc.RegFile;
    const root: PathSeg[] = ['RegFile'];
    const size = rf.SizeInBytes;
    const spans: Span[] = [];
    const topNames = new Map<string, string>();
    if (size % REGISTER_BYTES !== 0) {
      this.issue(
        [...root, 'SizeInBytes'],
        rf.Name,
        `window size ${size} is not a multiple of 4`,
        'a window of whole 32-bit words',
        size,
      );
    }

    const blocks: BlockModel[] = [];
    (rf.RegistersBundleArrays ?? []).forEach((b, i) => {
      const bs: PathSeg[] = [...root, 'RegistersBundleArrays', i];
      const base = parseNumberLike(b.AddressOffset);
      let ok = true;
      const prev = topNames.get(b.Name);
      if (prev) {
        this.issue(
          [...bs, 'Name'],
          b.Name,
          `duplicate name '${b.Name}' (also at ${prev})`,
          'bundle and top-level register names unique within the file',
          b.Name,
        );
        ok = false;
      } else topNames.set(b.Name, jsonPath(bs));
      if (base % REGISTER_BYTES !== 0) {
        this.issue(
          [...bs, 'AddressOffset'],
          b.Name,
          `bundle base ${hex(base)} is not 4-byte aligned`,
          'a base that is a multiple of 4',
          b.AddressOffset,
        );
        ok = false;
      }
      if (b.BundleSizeInBytes % REGISTER_BYTES !== 0) {
        this.issue(
          [...bs, 'BundleSizeInBytes'],
          b.Name,
          `bundle size ${b.BundleSizeInBytes} is not a multiple of 4`,
          'a bundle size that is a multiple of 4',
          b.BundleSizeInBytes,
        );
        ok = false;
      }
      const end = base + b.ArraySize * b.BundleSizeInBytes;
      if (end > size) {
        this.issue(
          [...bs, 'AddressOffset'],
          b.Name,
          `bundle ${b.Name} (${hex(base)}..${hex(end - 1)}, ${b.ArraySize} x ${hex(b.BundleSizeInBytes)}) lies past the window (${hex(size)} bytes)`,
          `base + ArraySize * BundleSizeInBytes <= SizeInBytes (${hex(size)})`,
          b.AddressOffset,
        );
        ok = false;
      }
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
      const a = sorted[i - 1];
      const b = sorted[i];
      if (b.start < a.end) {
        this.issues.push({
          path: `${b.path}.AddressOffset`,
          where: b.what.replace(/^(bundle|register) /, ''),
          message: `${b.what} at ${hex(b.start)} overlaps ${a.what} (${hex(a.start)}..${hex(a.end - 1)}, ${a.path})`,
          expected: 'bundles and top-level registers that do not share bytes',
          actual: hex(b.start),
        });
      }
    }

    const gaps: KnownGap[] = [];
    (rf.KnownGaps ?? []).forEach((g, i) => {
      const gs: PathSeg[] = [...root, 'KnownGaps', i];
      const blk = g.Block
        ? (rf.RegistersBundleArrays ?? []).find((b) => b.Name === g.Block)
        : undefined;
      if (g.Block && !blk) {
        this.issue(
          [...gs, 'Block'],
          g.Name,
          `known gap names unknown block '${g.Block}'`,
          'a block of this file',
          g.Block,
        );
        return;
      }
      const regs = blk ? blk.Registers : (rf.Registers ?? []);
      if (regs.some((r) => r.Name === g.Name)) {
        this.issue(
          [...gs, 'Name'],
          g.Name,
          `known gap '${g.Name}' is also a register`,
          'a gap that is not placed as a register',
          g.Name,
        );
        return;
      }
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
