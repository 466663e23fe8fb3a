/**
 * Specialises a register layout into straight-line read/write/modify functions at bind time.
 *
 * The generic path (RegisterSpec.encode) walks the update object's keys; that costs a keyed
 * lookup per key and keeps the update object alive. For a known layout, named property loads
 * (`u.q_qos`) with the field constants in place let the engine inline the whole modify and drop
 * the update object: one read32, a few integer operations, one write32. The generated code is
 * built from the register map only (field names are validated identifiers), once per layout, and
 * shared by every instance of the register. Where the host forbids code generation the runtime
 * keeps the generic path (same behaviour, slower).
 *
 * Semantics are the generic path's, with one difference documented in docs/csr.md: an update key
 * that is not a field of the register is rejected only when the update names no writable field
 * (TypeScript rejects unknown keys at compile time; path-based accessors check every key).
 */
import type { RegisterIO } from '../io.ts';
import type { RegisterSpec } from './fields.ts';

/** What the generated code calls on its slow (throwing) paths. */
export interface CompiledErrors {
  /**
   * A value that is not a plain in-range number: a value name gives its value; anything else
   * throws FieldRangeError.
   */
  input(field: string, value: unknown): number;
  /** A read-only field named in an update: throws. */
  notWritable(field: string): never;
  /** The update named no writable field: throws if it names anything else, else returns. */
  noField(update: object): void;
  /** readField of a name that is not a readable field of the register: throws, reads nothing. */
  notReadable(field: unknown): never;
}

export interface CompiledOps {
  read?: () => Readonly<Record<string, number>>;
  readField?: (name: string) => number;
  write?: (update: object) => void;
  modify?: (update: object) => void;
}

type Factory = (
  io: RegisterIO,
  off: number,
  words: Uint32Array | null,
  idx: number,
  h: CompiledErrors,
) => CompiledOps;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const cache = new WeakMap<RegisterSpec, { io?: Factory | null; direct?: Factory | null }>();

function source(spec: RegisterSpec, direct: boolean): string | null {
  for (const f of spec.fields) {
    if (!IDENT.test(f.name) || f.name in Object.prototype) return null;
  }
  const lines: string[] = [];
  const encode: string[] = ['let m = 0, v = 0, n = 0, x;'];
  for (const f of spec.fields) {
    if (f.writable) {
      encode.push(
        `x = u.${f.name};`,
        `if (x !== undefined) {`,
        `  if (typeof x !== 'number' || (x >>> 0) !== x || x > ${f.max}) x = h.input('${f.name}', x);`,
        `  m |= ${f.mask | 0}; v |= x << ${f.lsb}; n++;`,
        `}`,
      );
    } else {
      encode.push(`if (u.${f.name} !== undefined) h.notWritable('${f.name}');`);
    }
  }
  encode.push('if (n === 0) h.noField(u);');
  const load = direct ? 'words[idx]' : 'io.read32(off)';
  const store = (expr: string) =>
    direct ? `words[idx] = ${expr};` : `io.write32(off, (${expr}) >>> 0);`;

  const extract = (f: { width: number; lsb: number; max: number }, w: string) =>
    f.width >= 32 ? `${w} >>> 0` : `(${w} >>> ${f.lsb}) & ${f.max}`;

  lines.push('const ops = {};');
  if (spec.readable) {
    // A fresh plain object of one shape per layout (readonly by type): no freeze, so an inlined
    // read() whose result does not escape costs the load and the extractions only.
    const props = spec.readFields.map((f) => `${f.name}: ${extract(f, 'w')}`);
    lines.push(
      `ops.read = function read() { const w = ${load}; return { ${props.join(', ')} }; };`,
    );
    // One field: the name is checked before the word is read (an RC register clears on read).
    const cases = spec.readFields.map((f) => `case '${f.name}': return ${extract(f, load)};`);
    lines.push(
      `ops.readField = function readField(name) { switch (name) { ${cases.join(' ')} default: return h.notReadable(name); } };`,
    );
  }
  if (spec.writable) {
    lines.push(
      `ops.write = function write(u) { ${encode.join(' ')} ${store(`(${spec.writeBase | 0} & ~m) | v`)} };`,
    );
  }
  if (spec.modifiable) {
    lines.push(
      `ops.modify = function modify(u) { ${encode.join(' ')} ${store(`(${load} & ~(m | ${spec.volatileMask | 0})) | v`)} };`,
    );
  }
  lines.push('return ops;');
  return lines.join('\n');
}

/**
 * The specialised operations of `spec` bound to one register word, or null when code generation
 * is unavailable. `words` (with `idx` = offset / 4) is a plain-memory view to use instead of io.
 */
export function compiledOps(
  spec: RegisterSpec,
  io: RegisterIO,
  off: number,
  words: Uint32Array | undefined,
  h: CompiledErrors,
): CompiledOps | null {
  const direct = words !== undefined;
  let entry = cache.get(spec);
  if (!entry) {
    entry = {};
    cache.set(spec, entry);
  }
  let f = direct ? entry.direct : entry.io;
  if (f === undefined) {
    const src = source(spec, direct);
    try {
      f = src === null ? null : (new Function('io', 'off', 'words', 'idx', 'h', src) as Factory);
    } catch {
      f = null; // code generation disallowed: the generic path serves
    }
    if (direct) entry.direct = f;
    else entry.io = f;
  }
  return f ? f(io, off, words ?? null, off >>> 2, h) : null;
}
