/**
 * A family of record layouts told apart by their tag byte (the four DGE descriptors, the three
 * micro-ops), over the codecs of record-codec.ts.
 */
import { NxdmaError } from '../../common/errors.ts';
import type { Problem, RecordLayout, RecordValue } from './layout.ts';
import { RecordCodec, bytesOf, get8, show } from './record-codec.ts';
import { type ByteView, type DecodeResult, fail, ok } from './wire.ts';

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
