/**
 * The codec of one record layout (layout.ts): encoder, lenient decoder, validating decoder, the
 * reserved-byte rule and the Markdown table of the layout. Byte access never allocates.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import {
  TYPE_RANGE,
  TYPE_SIZE,
  decodeBoundCheck,
  encodeBoundCheck,
  isValidDmaConfigs,
  type BoundCheck,
  type FieldDef,
  type FieldType,
  type Problem,
  type RecordLayout,
  type RecordValue,
} from './layout.ts';
import { MAX_PRIORITY_CLASS } from './qos-class.ts';
import { type ByteView, type DecodeResult, TWO_POW_32, fail, ok } from './wire.ts';

// --- byte access without allocation ---------------------------------------------------------

export function bytesOf(v: ByteView): Uint8Array | DataView {
  return v instanceof Uint32Array ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v;
}

export function get8(v: Uint8Array | DataView, o: number): number {
  return v instanceof Uint8Array ? v[o] : v.getUint8(o);
}

function put8(v: Uint8Array | DataView, o: number, x: number): void {
  if (v instanceof Uint8Array) v[o] = x;
  else v.setUint8(o, x);
}

function getU(v: Uint8Array | DataView, o: number, n: number): number {
  let x = 0;
  for (let i = n - 1; i >= 0; i--) x = x * 256 + get8(v, o + i);
  return x;
}

function putU(v: Uint8Array | DataView, o: number, n: number, x: number): void {
  for (let i = 0; i < n; i++) {
    put8(v, o + i, x & 0xff);
    x = Math.floor(x / 256);
  }
}

// --- the codec ------------------------------------------------------------------------------

export type SemanticCheck<L extends RecordLayout> = (v: RecordValue<L>) => Problem | undefined;

/** One field with its computed position, for iteration and documentation. */
interface FlatField {
  name: string;
  def: FieldDef;
  count: number;
  size: number;
}

/**
 * Encoder / decoders of one record layout. Construct once at module load: the constructor checks
 * the layout itself (fields inside the record, no overlaps) and throws a plain Error if the
 * layout is wrong (a programming error, caught by the tests).
 */
export class RecordCodec<L extends RecordLayout> {
  readonly layout: L;
  readonly fields: readonly FlatField[];
  /** Offsets of the bytes no field covers: they must be zero. */
  readonly reservedBytes: readonly number[];
  private readonly check: SemanticCheck<L> | undefined;

  constructor(layout: L, check?: SemanticCheck<L>) {
    this.layout = layout;
    this.check = check;
    const owner = new Array<string | undefined>(layout.size);
    const claim = (name: string, off: number, size: number) => {
      if (!Number.isInteger(off) || off < 0 || off + size > layout.size) {
        throw new Error(
          `layout ${layout.name}: ${name} at +${off} (${size} B) is outside the record`,
        );
      }
      for (let i = off; i < off + size; i++) {
        if (owner[i] !== undefined) {
          throw new Error(`layout ${layout.name}: ${name} overlaps ${owner[i]} at +${i}`);
        }
        owner[i] = name;
      }
    };
    claim(layout.tag.name, layout.tag.offset, 1);
    const flat: FlatField[] = [];
    for (const [name, def] of Object.entries(layout.fields)) {
      const count = def.count ?? 1;
      const size = TYPE_SIZE[def.type];
      if (def.type === 'u64' && def.offset % 8 !== 0) {
        throw new Error(
          `layout ${layout.name}: u64 ${name} at +${def.offset} is not 8-byte aligned`,
        );
      }
      claim(name, def.offset, size * count);
      flat.push({ name, def, count, size });
    }
    flat.sort((a, b) => a.def.offset - b.def.offset);
    this.fields = flat;
    const reserved: number[] = [];
    for (let i = 0; i < layout.size; i++) if (owner[i] === undefined) reserved.push(i);
    this.reservedBytes = reserved;
  }

  /** Byte offset of a field (or of element `index` of an array field). */
  offsetOf(field: keyof L['fields'] & string, index = 0): number {
    const def = this.layout.fields[field];
    return def.offset + index * TYPE_SIZE[def.type];
  }

  /** Checks a value against the layout: every field present and in range, then the semantic rule. */
  problem(v: unknown): Problem | undefined {
    if (typeof v !== 'object' || v === null) {
      return { field: '', expected: `a ${this.layout.name} record object`, actual: v };
    }
    const rec = v as Record<string, unknown>;
    for (const f of this.fields) {
      const x = rec[f.name];
      if (f.def.count === undefined) {
        const p = scalarProblem(f.def, x, f.name);
        if (p) return p;
      } else {
        if (!Array.isArray(x) || x.length !== f.count) {
          return { field: f.name, expected: `an array of ${f.count} ${f.def.type}`, actual: x };
        }
        for (let i = 0; i < f.count; i++) {
          const p = scalarProblem(f.def, x[i], `${f.name}[${i}]`);
          if (p) return p;
        }
      }
    }
    return this.check ? this.check(v as RecordValue<L>) : undefined;
  }

  /** Validates `v` (BAD_ARGUMENT naming the field), then writes the record: nothing on error. */
  encode(dst: ByteView, byteOffset: number, v: RecordValue<L>): void {
    const p = this.problem(v);
    if (p) throw toError('BAD_ARGUMENT', `${this.layout.name}${p.field ? '.' + p.field : ''}`, p);
    this.span(dst, byteOffset);
    const b = bytesOf(dst);
    for (let i = 0; i < this.layout.size; i++) put8(b, byteOffset + i, 0);
    put8(b, byteOffset + this.layout.tag.offset, this.layout.tag.value);
    const rec = v as Record<string, unknown>;
    for (const f of this.fields) {
      if (f.def.count === undefined) {
        writeScalar(b, byteOffset + f.def.offset, f.def.type, rec[f.name] as number | BoundCheck);
      } else {
        const arr = rec[f.name] as ReadonlyArray<number | BoundCheck>;
        for (let i = 0; i < f.count; i++) {
          writeScalar(b, byteOffset + f.def.offset + i * f.size, f.def.type, arr[i]);
        }
      }
    }
  }

  /** A fresh `size`-byte array holding the encoded record. */
  encodeBytes(v: RecordValue<L>): Uint8Array {
    const out = new Uint8Array(this.layout.size);
    this.encode(out, 0, v);
    return out;
  }

  /**
   * Lenient decoder: reads every field as stored (reserved bytes ignored, DMA_CONFIGS read as its
   * low 3 bits). Throws OUT_OF_RANGE when the view is too short, DESCRIPTOR_INVALID when the tag
   * byte is not this record's or a 64-bit address is not representable.
   */
  decode(src: ByteView, byteOffset = 0): RecordValue<L> {
    const r = this.read(src, byteOffset, false);
    if (!r.ok) throw r.error;
    return r.value;
  }

  /**
   * Validating decoder for untrusted bytes: never throws; returns the record only when it is one
   * the encoder could have written (tag, reserved bytes zero, every field in range, the semantic
   * rule), so that re-encoding it gives back the same bytes.
   */
  validate(src: ByteView, byteOffset = 0): DecodeResult<RecordValue<L>> {
    return this.read(src, byteOffset, true);
  }

  private span(v: ByteView, byteOffset: number): void {
    const size = this.layout.size;
    if (
      !Number.isInteger(byteOffset) ||
      byteOffset < 0 ||
      byteOffset + size > v.byteLength ||
      (v instanceof Uint32Array && (byteOffset & 3) !== 0)
    ) {
      throw new NxdmaError(
        'OUT_OF_RANGE',
        `${this.layout.name}: a ${size}-byte record at byte offset ${String(byteOffset)} does not fit a ${v.byteLength}-byte view`,
        {
          where: `${this.layout.name}@${String(byteOffset)}`,
          expected: `0 <= offset <= ${v.byteLength - size}${v instanceof Uint32Array ? ', offset % 4 == 0' : ''}`,
          actual: byteOffset,
        },
      );
    }
  }

  private read(src: ByteView, byteOffset: number, strict: boolean): DecodeResult<RecordValue<L>> {
    const name = this.layout.name;
    const at = `${name}@${String(byteOffset)}`;
    try {
      this.span(src, byteOffset);
    } catch (e) {
      return fail(e as NxdmaError);
    }
    const b = bytesOf(src);
    const tag = get8(b, byteOffset + this.layout.tag.offset);
    if (tag !== this.layout.tag.value) {
      return fail(
        toError('DESCRIPTOR_INVALID', `${at}.${this.layout.tag.name}`, {
          field: this.layout.tag.name,
          expected: `${this.layout.tag.value} (${name})`,
          actual: tag,
        }),
      );
    }
    if (strict) {
      for (const i of this.reservedBytes) {
        const x = get8(b, byteOffset + i);
        if (x !== 0) {
          return fail(
            toError('DESCRIPTOR_INVALID', `${at}+${i}`, {
              field: `+${i}`,
              expected: 'a reserved byte of 0',
              actual: hex(x, 2),
            }),
          );
        }
      }
    }
    const out: Record<string, unknown> = {};
    for (const f of this.fields) {
      const vals: Array<number | BoundCheck> = [];
      for (let i = 0; i < f.count; i++) {
        const o = byteOffset + f.def.offset + i * f.size;
        const path = f.def.count === undefined ? f.name : `${f.name}[${i}]`;
        const t = f.def.type;
        let x: number | BoundCheck;
        if (t === 'u64') {
          const hi = getU(b, o + 4, 4);
          if (hi > 0x1fffff) {
            return fail(
              toError('DESCRIPTOR_INVALID', `${at}.${path}`, {
                field: path,
                expected: 'an address below 2^53',
                actual: `high word ${hex(hi, 8)}`,
              }),
            );
          }
          x = hi * TWO_POW_32 + getU(b, o, 4);
        } else if (t === 'bound_check') {
          x = decodeBoundCheck(get8(b, o));
        } else if (t === 'dma_configs') {
          const byte = get8(b, o);
          if (strict && !isValidDmaConfigs(byte)) {
            return fail(
              toError('DESCRIPTOR_INVALID', `${at}.${path}`, {
                field: path,
                expected: `DMA_CONFIGS with priority_class <= ${MAX_PRIORITY_CLASS} and reserved bits [7:3] zero`,
                actual: hex(byte, 2),
              }),
            );
          }
          x = byte & 7;
        } else {
          const u = getU(b, o, f.size);
          x = t === 'i16' ? (u << 16) >> 16 : t === 'i32' ? u | 0 : u;
        }
        if (strict) {
          const p = scalarProblem(f.def, x, path);
          if (p) return fail(toError('DESCRIPTOR_INVALID', `${at}.${p.field}`, p));
        }
        vals.push(x);
      }
      out[f.name] = f.def.count === undefined ? vals[0] : vals;
    }
    const value = out as RecordValue<L>;
    if (strict && this.check) {
      const p = this.check(value);
      if (p) return fail(toError('DESCRIPTOR_INVALID', `${at}.${p.field}`, p));
    }
    return ok(value);
  }

  /** The layout as a Markdown table (the form docs/descriptors.md shows it in). */
  markdown(): string {
    const rows: string[] = ['| offset | type | field | meaning |', '|---|---|---|---|'];
    const items: Array<{ off: number; end: number; row: string }> = [];
    const t = this.layout.tag;
    items.push({
      off: t.offset,
      end: t.offset + 1,
      row: `| +${t.offset} | u8 | ${t.name} = ${t.value} | ${t.doc} |`,
    });
    for (const f of this.fields) {
      const end = f.def.offset + f.size * f.count;
      const type = f.def.count === undefined ? f.def.type : `${f.def.type}[${f.count}]`;
      const pos = end - f.def.offset > 1 ? `+${f.def.offset}..+${end - 1}` : `+${f.def.offset}`;
      items.push({
        off: f.def.offset,
        end,
        row: `| ${pos} | ${type} | ${f.name} | ${rangeText(f.def)}${f.def.doc} |`,
      });
    }
    let run: number[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const a = run[0];
      const z = run[run.length - 1];
      items.push({
        off: a,
        end: z + 1,
        row: `| ${a === z ? `+${a}` : `+${a}..+${z}`} | - | reserved | must be zero |`,
      });
      run = [];
    };
    for (const i of this.reservedBytes) {
      if (run.length > 0 && run[run.length - 1] !== i - 1) flush();
      run.push(i);
    }
    flush();
    items.sort((a, b) => a.off - b.off);
    for (const it of items) rows.push(it.row);
    return rows.join('\n');
  }
}

function rangeText(def: FieldDef): string {
  const parts: string[] = [];
  if (def.enum) {
    parts.push(
      Object.entries(def.enum)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    );
  } else if (def.min !== undefined || def.max !== undefined) {
    const [lo, hi] = def.type === 'bound_check' ? [0, 0] : TYPE_RANGE[def.type];
    parts.push(`${def.min ?? lo}..${def.max ?? hi}`);
  }
  return parts.length ? `(${parts.join('; ')}) ` : '';
}

function scalarProblem(def: FieldDef, x: unknown, field: string): Problem | undefined {
  if (def.type === 'bound_check') {
    const b = x as BoundCheck | null | undefined;
    if (
      typeof b !== 'object' ||
      b === null ||
      !Number.isInteger(b.bc_reg) ||
      b.bc_reg < 0 ||
      b.bc_reg > 63 ||
      typeof b.bc_disable_oob_error_notif !== 'boolean' ||
      typeof b.bc_enabled !== 'boolean'
    ) {
      return {
        field,
        expected: '{ bc_reg: 0..63, bc_disable_oob_error_notif: boolean, bc_enabled: boolean }',
        actual: x,
      };
    }
    return undefined;
  }
  const [lo, hi] = TYPE_RANGE[def.type];
  const min = Math.max(lo, def.min ?? lo);
  const max = Math.min(hi, def.max ?? hi);
  if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) {
    const what =
      def.type === 'dma_configs'
        ? `a priority_class ${min}..${max}`
        : `an integer ${min}..${max} (${def.type})`;
    return { field, expected: what, actual: x };
  }
  if (def.enum && !Object.values(def.enum).includes(x)) {
    return {
      field,
      expected: `one of ${Object.entries(def.enum)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      actual: x,
    };
  }
  return undefined;
}

function writeScalar(
  b: Uint8Array | DataView,
  o: number,
  t: FieldType,
  x: number | BoundCheck,
): void {
  switch (t) {
    case 'bound_check':
      put8(b, o, encodeBoundCheck(x as BoundCheck));
      return;
    case 'u64':
      putU(b, o, 4, (x as number) >>> 0);
      putU(b, o + 4, 4, Math.floor((x as number) / TWO_POW_32));
      return;
    case 'i16':
      putU(b, o, 2, (x as number) & 0xffff);
      return;
    case 'i32':
      putU(b, o, 4, (x as number) >>> 0);
      return;
    default:
      putU(b, o, TYPE_SIZE[t], x as number);
  }
}

function toError(
  code: 'BAD_ARGUMENT' | 'DESCRIPTOR_INVALID',
  where: string,
  p: Problem,
): NxdmaError {
  return new NxdmaError(code, `${where}: expected ${p.expected}, got ${show(p.actual)}`, {
    where,
    expected: p.expected,
    actual: p.actual,
  });
}

export function show(v: unknown): string {
  if (typeof v === 'object' && v !== null) {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}
