import { describe, expect, it } from 'vitest';
import { NxdmaError } from '../../common/errors.ts';
import { parseMemoryOption, parseUint, uintOption } from '../../cli/options.ts';

function thrown(f: () => unknown): NxdmaError {
  try {
    f();
  } catch (e) {
    if (e instanceof NxdmaError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('numbers on the command line', () => {
  it('an unsigned integer is 0x..., 0b... or decimal, with _ between digits', () => {
    expect(parseUint('0x1f')).toBe(31);
    expect(parseUint('0X1F')).toBe(31);
    expect(parseUint('0b101')).toBe(5);
    expect(parseUint('31')).toBe(31);
    expect(parseUint(' 0x8000_0000 ')).toBe(0x8000_0000);
    expect(parseUint('1_000')).toBe(1000);
  });

  it('a sign, an exponent, a fraction, other radixes, an empty or unsafe number are not one', () => {
    for (const t of ['', ' ', '-1', '+1', '1e3', '1.5', '0o17', '0x', 'x1', '12abc', '2^8']) {
      expect(parseUint(t), t).toBeUndefined();
    }
    expect(parseUint('9007199254740992')).toBeUndefined(); // 2^53
    expect(parseUint('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('an option absent is undefined; present, it is read and checked against its limits', () => {
    expect(uintOption(undefined, '--seed')).toBeUndefined();
    expect(uintOption('0x10', '--seed')).toBe(16);
    expect(uintOption('0', '--seed')).toBe(0);
    expect(uintOption('4096', '--n', { min: 1, max: 4096 })).toBe(4096);
  });

  it('a bad option value is BAD_ARGUMENT naming the option, what it takes and what it got', () => {
    const e = thrown(() => uintOption('1e3', '--seed'));
    expect(e.code).toBe('BAD_ARGUMENT');
    expect(e.message).toBe(
      '--seed must be a non-negative integer (decimal, 0x... or 0b...), got "1e3"',
    );
    expect(e.details).toMatchObject({ where: '--seed', actual: '1e3' });
    expect(thrown(() => uintOption('0', '--max', { min: 1 })).message).toMatch(
      /^--max must be a positive integer/,
    );
    expect(thrown(() => uintOption('4097', '--n', { min: 1, max: 4096 })).message).toMatch(
      /^--n must be an integer 1\.\.4096/,
    );
    expect(thrown(() => uintOption('-1', '--engine', { what: 'an engine id' })).message).toMatch(
      /^--engine must be an engine id/,
    );
  });

  it('--memory reads its address, size and file offset the same way', () => {
    expect(parseMemoryOption('0x8000_0000+0b1000@4096')).toEqual({
      deviceAddress: 0x8000_0000,
      size: 8,
      fileOffset: 4096,
    });
    expect(parseMemoryOption('0x1000+0x100')).toEqual({
      deviceAddress: 0x1000,
      size: 0x100,
      fileOffset: 0x1000,
    });
    const e = thrown(() => parseMemoryOption('0x1000+1e3'));
    expect(e.code).toBe('BAD_ARGUMENT');
    expect(e.message).toMatch(/'1e3' is not an address or size/);
  });
});
