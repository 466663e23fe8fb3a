/**
 * Fixed-size little-endian record layouts described as data: the one home of the 64-byte DGE
 * descriptors and the 16-byte micro-op records. A layout lists each field's offset, type, count
 * and range; from it come the encoder, the lenient and the validating decoder, the reserved-byte
 * rule (every byte no field covers must be zero) and the Markdown table in docs/descriptors.md.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import { MAX_PRIORITY_CLASS } from './qos-class.ts';
import { type ByteView, type DecodeResult, TWO_POW_32, fail, ok } from './wire.ts';

export type FieldType =
  | 'u8'
  | 'u16'
  | 'u32'
  | 'i16'
  | 'i32'
  | 'u64'
  /** NEURON_ISA_TPB_DMA_CONFIGS: priority_class[2:0], reserved[7:3] must be zero; valid <= 4. */
  | 'dma_configs'
  /** BOUND_CHECK_REG: bc_reg[5:0], bc_disable_oob_error_notif[6], bc_enabled[7]. */
  | 'bound_check';

export interface FieldDef {
  readonly type: FieldType;
  /** Byte offset in the record. */
  readonly offset: number;
  /** Number of consecutive elements (an array field). */
  readonly count?: number;
  /** Allowed range (inclusive) within the type's own range. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values by name (an enumeration). */
  readonly enum?: Readonly<Record<string, number>>;
  readonly doc: string;
}

/** The tag byte that says which record this is (DGE opcode, micro-op code). */
export interface TagDef {
  readonly name: string;
  readonly offset: number;
  readonly value: number;
  readonly doc: string;
}

export interface RecordLayout {
  readonly name: string;
  readonly size: number;
  readonly tag: TagDef;
  readonly fields: Readonly<Record<string, FieldDef>>;
}

/** The decoded BOUND_CHECK_REG byte. */
export interface BoundCheck {
  /** bc_reg[5:0]: which bound register holds the limit. */
  bc_reg: number;
  /** bc_disable_oob_error_notif[6]. */
  bc_disable_oob_error_notif: boolean;
  /** bc_enabled[7]. */
  bc_enabled: boolean;
}

type Scalar<T extends FieldType> = T extends 'bound_check' ? BoundCheck : number;
type Tuple<N extends number, V, A extends V[] = []> = A['length'] extends N
  ? A
  : Tuple<N, V, [...A, V]>;
type ValueOf<F extends FieldDef> = F extends { readonly count: infer N extends number }
  ? Readonly<Tuple<N, Scalar<F['type']>>>
  : Scalar<F['type']>;

/** The typed value of a layout: one property per field (arrays as fixed-length tuples). */
export type RecordValue<L extends RecordLayout> = {
  -readonly [K in keyof L['fields']]: ValueOf<L['fields'][K]>;
};

/** A field-level problem found by a semantic check. */
export interface Problem {
  /** Field path inside the record ('src_num_elem[1]'). */
  field: string;
  expected: string;
  actual: unknown;
}

const TYPE_SIZE: Record<FieldType, number> = {
  u8: 1,
  u16: 2,
  u32: 4,
  i16: 2,
  i32: 4,
  u64: 8,
  dma_configs: 1,
  bound_check: 1,
};

const TYPE_RANGE: Record<Exclude<FieldType, 'bound_check'>, [number, number]> = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  i16: [-0x8000, 0x7fff],
  i32: [-0x80000000, 0x7fffffff],
  u64: [0, Number.MAX_SAFE_INTEGER],
  dma_configs: [0, MAX_PRIORITY_CLASS],
};

export function typeSize(t: FieldType): number {
  return TYPE_SIZE[t];
}

// --- DMA_CONFIGS and BOUND_CHECK_REG bytes --------------------------------------------------

/** Reserved bits [7:3] of DMA_CONFIGS (must be zero). */
export const DMA_CONFIGS_RESERVED_MASK = 0xf8;

/** The DMA_CONFIGS byte of a priority class (validates 0..4). */
export function encodeDmaConfigs(priority_class: number): number {
  if (
    !Number.isInteger(priority_class) ||
    priority_class < 0 ||
    priority_class > MAX_PRIORITY_CLASS
  ) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `dma_configs.priority_class: expected an integer 0..${MAX_PRIORITY_CLASS}, got ${String(priority_class)}`,
      {
        where: 'dma_configs.priority_class',
        expected: `0..${MAX_PRIORITY_CLASS}`,
        actual: priority_class,
      },
    );
  }
  return priority_class;
}

export function decodeDmaConfigs(byte: number): {
  priority_class: number;
  reserved_bitfield: number;
} {
  return { priority_class: byte & 7, reserved_bitfield: (byte >>> 3) & 0x1f };
}

/** is_valid_dma_configs: priority_class <= 4 and reserved_bitfield == 0 (seed 004 §7.1). */
export function isValidDmaConfigs(byte: number): boolean {
  return (byte & DMA_CONFIGS_RESERVED_MASK) === 0 && (byte & 7) <= MAX_PRIORITY_CLASS;
}

export function encodeBoundCheck(b: BoundCheck): number {
  return (b.bc_reg & 0x3f) | (b.bc_disable_oob_error_notif ? 0x40 : 0) | (b.bc_enabled ? 0x80 : 0);
}

export function decodeBoundCheck(byte: number): BoundCheck {
  return {
    bc_reg: byte & 0x3f,
    bc_disable_oob_error_notif: (byte & 0x40) !== 0,
    bc_enabled: (byte & 0x80) !== 0,
  };
}

/** A BOUND_CHECK_REG that checks nothing. */
export const NO_BOUND_CHECK: Readonly<BoundCheck> = Object.freeze({
  bc_reg: 0,
  bc_disable_oob_error_notif: false,
  bc_enabled: false,
});

// --- byte access without allocation ---------------------------------------------------------

function bytesOf(v: ByteView): Uint8Array | DataView {
  return v instanceof Uint32Array ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v;
}

function get8(v: Uint8Array | DataView, o: number): number {
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

function show(v: unknown): string {
  if (typeof v === 'object' && v !== null) {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

/**
 * A family of record layouts told apart by their tag byte (the four DGE descriptors, the three
 * micro-ops). Values carry the layout name in a discriminator property (`kind`, `op`).
 */
export class RecordFamily {
  readonly name: string;
  readonly discriminator: string;
  readonly size: number;
  private readonly byTag = new Map<number, RecordCodec<RecordLayout>>();
  private readonly byName = new Map<string, RecordCodec<RecordLayout>>();
  private readonly tagOffset: number;

  constructor(
    name: string,
    discriminator: string,
    codecs: ReadonlyArray<RecordCodec<RecordLayout>>,
  ) {
    this.name = name;
    this.discriminator = discriminator;
    this.size = codecs[0].layout.size;
    this.tagOffset = codecs[0].layout.tag.offset;
    for (const c of codecs) {
      if (c.layout.size !== this.size || c.layout.tag.offset !== this.tagOffset) {
        throw new Error(`family ${name}: ${c.layout.name} differs in size or tag offset`);
      }
      if (this.byTag.has(c.layout.tag.value)) throw new Error(`family ${name}: duplicate tag`);
      this.byTag.set(c.layout.tag.value, c);
      this.byName.set(c.layout.name, c);
    }
  }

  private tags(): string {
    return [...this.byTag.values()].map((c) => `${c.layout.tag.value} ${c.layout.name}`).join(', ');
  }

  private codecOf(v: unknown): { codec: RecordCodec<RecordLayout>; rest: Record<string, unknown> } {
    const d = this.discriminator;
    const name =
      typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[d] : undefined;
    const codec = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!codec) {
      throw new NxdmaError('BAD_ARGUMENT', `${this.name}: unknown ${d} ${show(name)}`, {
        where: `${this.name}.${d}`,
        expected: [...this.byName.keys()].join(' | '),
        actual: typeof name === 'string' ? name : String(name),
      });
    }
    const { [d]: _tag, ...rest } = v as Record<string, unknown>;
    return { codec, rest };
  }

  /** The range or semantic problem of a value (throws BAD_ARGUMENT on an unknown discriminator). */
  problem(v: unknown): Problem | undefined {
    const { codec, rest } = this.codecOf(v);
    return codec.problem(rest);
  }

  encode(dst: ByteView, byteOffset: number, v: unknown): void {
    const { codec, rest } = this.codecOf(v);
    codec.encode(dst, byteOffset, rest as RecordValue<RecordLayout>);
  }

  private pick(src: ByteView, byteOffset: number): DecodeResult<RecordCodec<RecordLayout>> {
    if (
      !Number.isInteger(byteOffset) ||
      byteOffset < 0 ||
      byteOffset + this.size > src.byteLength
    ) {
      return fail(
        new NxdmaError(
          'OUT_OF_RANGE',
          `${this.name}: a ${this.size}-byte record at byte offset ${String(byteOffset)} does not fit a ${src.byteLength}-byte view`,
          {
            where: `${this.name}@${String(byteOffset)}`,
            expected: `0 <= offset <= ${src.byteLength - this.size}`,
            actual: byteOffset,
          },
        ),
      );
    }
    const tag = get8(bytesOf(src), byteOffset + this.tagOffset);
    const codec = this.byTag.get(tag);
    if (!codec) {
      return fail(
        new NxdmaError(
          'DESCRIPTOR_INVALID',
          `${this.name}@${byteOffset}: unknown tag byte ${tag} (expected ${this.tags()})`,
          {
            where: `${this.name}@${byteOffset}+${this.tagOffset}`,
            expected: this.tags(),
            actual: tag,
          },
        ),
      );
    }
    return ok(codec);
  }

  /** Lenient decode of the record at `byteOffset` (throws only NxdmaError). */
  decode(src: ByteView, byteOffset = 0): Record<string, unknown> {
    const c = this.pick(src, byteOffset);
    if (!c.ok) throw c.error;
    return { [this.discriminator]: c.value.layout.name, ...c.value.decode(src, byteOffset) };
  }

  /** Validating decode (never throws). */
  validate(src: ByteView, byteOffset = 0): DecodeResult<Record<string, unknown>> {
    const c = this.pick(src, byteOffset);
    if (!c.ok) return c;
    const r = c.value.validate(src, byteOffset);
    if (!r.ok) return r;
    return ok({ [this.discriminator]: c.value.layout.name, ...r.value });
  }
}
