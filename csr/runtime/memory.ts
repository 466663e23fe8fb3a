/**
 * ArrayRegisterIO: a plain memory-backed RegisterIO (one Uint32Array word per register offset) for
 * tests and dry runs. It has no access semantics: every word reads back what was last written (the
 * mock device, not this, implements RO/WO/INC behaviour). It enforces the RegisterIO contract:
 * aligned 32-bit accesses inside the window, values that are 32-bit words.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { RegisterIO } from '../io.ts';
import type { RegFileModel } from '../schema/model.ts';

/**
 * A RegisterIO that is plain memory (its read32/write32 are exactly a load and a store of one
 * element of a Uint32Array, with no side effect) may expose that array under this key. Accessors
 * then load and store the element directly, after checking every offset once at bind time. Each
 * element access is still one aligned 32-bit load or store.
 */
export const PLAIN_WORDS: unique symbol = Symbol.for('nxdma.csr.plainWords');

/** The plain-memory words of `io`, when it declares them (see PLAIN_WORDS). */
export function plainWords(io: RegisterIO): Uint32Array | undefined {
  const w = (io as { [PLAIN_WORDS]?: unknown })[PLAIN_WORDS];
  return w instanceof Uint32Array ? w : undefined;
}

export class ArrayRegisterIO implements RegisterIO {
  readonly size: number;
  /** The backing words; word i is byte offset 4*i. */
  readonly words: Uint32Array;

  /**
   * A window of `size` bytes (a multiple of 4), zero-filled or copied from `init` (words).
   */
  constructor(size: number, init?: ArrayLike<number>) {
    if (!Number.isInteger(size) || size <= 0 || size % 4 !== 0) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `register window size ${size} is not a positive multiple of 4`,
        {
          where: 'ArrayRegisterIO',
          expected: 'a positive multiple of 4 bytes',
          actual: size,
        },
      );
    }
    this.size = size;
    this.words = new Uint32Array(size >>> 2);
    if (init) {
      if (init.length > this.words.length) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `initial image of ${init.length} words exceeds the ${size}-byte window`,
          {
            where: 'ArrayRegisterIO',
            expected: `at most ${this.words.length} words`,
            actual: init.length,
          },
        );
      }
      this.words.set(init);
    }
  }

  /** A window the size of `file`, holding every register's reset word (see resetImage). */
  static withResetValues(file: RegFileModel): ArrayRegisterIO {
    return new ArrayRegisterIO(file.size, resetImage(file));
  }

  /** The words, unless a subclass changed what read32/write32 do. */
  get [PLAIN_WORDS](): Uint32Array | undefined {
    return this.read32 === ArrayRegisterIO.prototype.read32 &&
      this.write32 === ArrayRegisterIO.prototype.write32
      ? this.words
      : undefined;
  }

  read32(offset: number): number {
    if (offset >>> 0 !== offset || (offset & 3) !== 0 || offset >= this.size)
      this.badOffset(offset);
    return this.words[offset >>> 2];
  }

  write32(offset: number, value: number): void {
    if (offset >>> 0 !== offset || (offset & 3) !== 0 || offset >= this.size)
      this.badOffset(offset);
    if (typeof value !== 'number' || (value >>> 0 !== value && (value | 0) !== value)) {
      throw new NxdmaError(
        'OUT_OF_RANGE',
        `write32 at ${hex(offset)}: ${String(value)} is not a 32-bit word`,
        {
          where: hex(offset),
          expected: 'an integer in -0x80000000..0xffffffff (stored as its unsigned 32-bit pattern)',
          actual: value,
        },
      );
    }
    this.words[offset >>> 2] = value;
  }

  private badOffset(offset: number): never {
    const aligned = Number.isInteger(offset) && offset % 4 === 0;
    throw new NxdmaError(
      aligned ? 'OUT_OF_WINDOW' : 'MISALIGNED',
      aligned
        ? `register offset ${hex(offset)} is outside the ${hex(this.size)}-byte window`
        : `register offset ${String(offset)} is not a 4-byte aligned integer`,
      {
        where:
          typeof offset === 'number' && Number.isInteger(offset) && offset >= 0
            ? hex(offset)
            : String(offset),
        expected: `a multiple of 4 in 0..${hex(this.size - 4)}`,
        actual: offset,
      },
    );
  }
}

/** The file's reset image: one word per 4 bytes of the window, each register at its reset value. */
export function resetImage(file: RegFileModel): Uint32Array {
  const words = new Uint32Array(file.size >>> 2);
  for (const i of file.instances) words[i.offset >>> 2] = i.register.reset;
  return words;
}
