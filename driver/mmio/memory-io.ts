/**
 * MemoryIO over mapped windows placed at device addresses: the DMA-visible memory (rings, data
 * buffers) of a mapped device. This is memory, not registers, so bytes are copied in bulk. Every
 * access is checked first; a write with any byte unmapped writes nothing.
 */
import type { MemoryIO } from '../../csr/io.ts';
import { NxdmaError, hex } from '../../common/errors.ts';
import { closedError } from './mapping.ts';
import type { MappedRegion } from './region.ts';
import type { MmioRegisterIO } from './register-io.ts';

/** One mapped window placed at a device address. */
export interface MemoryWindow {
  /** Device address of the window's first byte. */
  deviceAddress: number;
  region: MappedRegion;
  /** Byte offset inside the region. Default 0. */
  offset?: number;
  /** Bytes. Default: the rest of the region. */
  size?: number;
}

/** A placed window as `windows()` reports it. */
export interface PlacedWindow {
  readonly deviceAddress: number;
  readonly size: number;
  readonly readOnly: boolean;
  /** The file window behind it (`path @ 0xoffset+0xsize`). */
  readonly where: string;
}

interface Win {
  readonly start: number;
  readonly end: number;
  readonly region: MappedRegion;
  /** Offset inside the region. */
  readonly offset: number;
}

export class MmioMemoryIO implements MemoryIO {
  private readonly wins: readonly Win[];

  /**
   * @throws NxdmaError BAD_ARGUMENT (bad device address), OUT_OF_WINDOW (a window outside its
   *   region), MEMORY_OVERLAP (two windows share device addresses).
   */
  constructor(windows: readonly MemoryWindow[] = []) {
    const wins: Win[] = [];
    windows.forEach((w, i) => {
      const where = `memory[${i}]`;
      const offset = w.offset ?? 0;
      const size = w.size ?? w.region.size - offset;
      if (!Number.isSafeInteger(w.deviceAddress) || w.deviceAddress < 0) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `${where}: device address ${String(w.deviceAddress)} is not a non-negative safe integer`,
          {
            where,
            expected: 'an integer in [0, 2^53)',
            actual: w.deviceAddress,
          },
        );
      }
      if (
        !Number.isSafeInteger(offset) ||
        !Number.isSafeInteger(size) ||
        offset < 0 ||
        size <= 0 ||
        offset + size > w.region.size
      ) {
        throw new NxdmaError(
          'OUT_OF_WINDOW',
          `${where}: ${String(offset)}+${String(size)} does not lie inside ${w.region.where}`,
          {
            where,
            expected: `a non-empty range inside [0, ${hex(w.region.size)})`,
            actual: { offset, size },
          },
        );
      }
      if (w.deviceAddress + size > Number.MAX_SAFE_INTEGER) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `${where}: window end ${hex(w.deviceAddress)} + ${hex(size)} is beyond 2^53`,
          {
            where,
            expected: 'deviceAddress + size < 2^53',
            actual: { deviceAddress: w.deviceAddress, size },
          },
        );
      }
      wins.push({ start: w.deviceAddress, end: w.deviceAddress + size, region: w.region, offset });
    });
    wins.sort((a, b) => a.start - b.start);
    for (let i = 1; i < wins.length; i++) {
      const a = wins[i - 1]!;
      const b = wins[i]!;
      if (b.start < a.end) {
        throw new NxdmaError(
          'MEMORY_OVERLAP',
          `memory windows [${hex(a.start)}, ${hex(a.end)}) and [${hex(b.start)}, ${hex(b.end)}) overlap`,
          {
            where: 'memory',
            expected: 'disjoint device address ranges',
            actual: [a.start, b.start],
          },
        );
      }
    }
    this.wins = Object.freeze(wins);
  }

  /** The placed windows, by ascending device address. */
  windows(): PlacedWindow[] {
    return this.wins.map((w) => ({
      deviceAddress: w.start,
      size: w.end - w.start,
      readOnly: w.region.readOnly,
      where: w.region.where,
    }));
  }

  read(addr: number, dst: Uint8Array): void {
    const first = this.locate('read', addr, dst, false);
    if (first < 0) return;
    let pos = 0;
    for (let i = first; pos < dst.length; i++) {
      const w = this.wins[i]!;
      const at = addr + pos;
      const n = Math.min(dst.length - pos, w.end - at);
      const from = w.offset + (at - w.start);
      w.region.mapping.bytes!.copy(dst, pos, from, from + n);
      pos += n;
    }
  }

  write(addr: number, src: Uint8Array): void {
    const first = this.locate('write', addr, src, true);
    if (first < 0) return;
    let pos = 0;
    for (let i = first; pos < src.length; i++) {
      const w = this.wins[i]!;
      const at = addr + pos;
      const n = Math.min(src.length - pos, w.end - at);
      const bytes = w.region.mapping.bytes!;
      const to = w.offset + (at - w.start);
      bytes.set(pos === 0 && n === src.length ? src : src.subarray(pos, pos + n), to);
      pos += n;
    }
  }

  isMapped(addr: number, length: number): boolean {
    if (!Number.isSafeInteger(addr) || addr < 0 || !Number.isSafeInteger(length) || length < 0)
      return false;
    if (length === 0) return true;
    return this.cover(addr, length) >= 0;
  }

  /**
   * A live view of [addr, addr + length) when it lies inside one window, else undefined. Also
   * undefined for a read-only window (a store through the view would fault); use `write`, which
   * refuses with a typed error.
   */
  view(addr: number, length: number): Uint8Array | undefined {
    if (!Number.isSafeInteger(addr) || addr < 0 || !Number.isSafeInteger(length) || length < 0)
      return undefined;
    const i = this.find(addr);
    if (i < 0) return undefined;
    const w = this.wins[i]!;
    if (addr + length > w.end) return undefined;
    if (w.region.disposed) throw closedError(w.region.where);
    if (w.region.readOnly) return undefined;
    return w.region.view(w.offset + (addr - w.start), length);
  }

  /**
   * A RegisterIO over [addr, addr + size) of device memory (aligned 32-bit words), for register-like
   * tables that live in DMA-visible memory (a DGE core's host table at dram_base).
   * @throws NxdmaError MEMORY_UNMAPPED unless the range lies inside one window; MISALIGNED.
   */
  registers(addr: number, size: number, name?: string): MmioRegisterIO {
    const i = Number.isSafeInteger(addr) && addr >= 0 ? this.find(addr) : -1;
    const w = i >= 0 ? this.wins[i]! : undefined;
    if (w === undefined || !Number.isSafeInteger(size) || size <= 0 || addr + size > w.end) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `${name ?? 'register window'}: [${String(addr)}, +${String(size)}) does not lie inside one mapped memory window`,
        {
          where: name ?? `memory @ ${String(addr)}`,
          expected: 'a range inside one memory window',
          actual: { addr, size },
        },
      );
    }
    return w.region.registers(w.offset + (addr - w.start), size, name);
  }

  /** Index of the window containing `addr`, or -1. */
  private find(addr: number): number {
    const wins = this.wins;
    let lo = 0;
    let hi = wins.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const w = wins[mid]!;
      if (addr < w.start) hi = mid - 1;
      else if (addr >= w.end) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** Index of the first window when [addr, addr + length) is covered by open, adjacent windows, else -1. */
  private cover(addr: number, length: number): number {
    const first = this.find(addr);
    if (first < 0) return -1;
    const end = addr + length;
    for (let i = first; ; i++) {
      const w = this.wins[i];
      if (w === undefined || w.region.disposed) return -1;
      if (i > first && w.start !== this.wins[i - 1]!.end) return -1;
      if (end <= w.end) return first;
    }
  }

  /** Checks a whole access (nothing touched yet); returns the first window's index, or -1 for an empty access. */
  private locate(op: 'read' | 'write', addr: number, data: Uint8Array, writing: boolean): number {
    if (!(data instanceof Uint8Array)) {
      throw new NxdmaError('BAD_ARGUMENT', `memory ${op}: needs a Uint8Array`, {
        where: `memory ${op}`,
        expected: 'Uint8Array',
        actual: typeof data,
      });
    }
    const length = data.length;
    if (!Number.isSafeInteger(addr) || addr < 0 || addr + length > Number.MAX_SAFE_INTEGER) {
      throw new NxdmaError(
        'MEMORY_UNMAPPED',
        `memory ${op}: address ${String(addr)} is not a device address`,
        {
          where: `memory ${op} @ ${String(addr)}`,
          expected: 'a non-negative safe integer address',
          actual: addr,
        },
      );
    }
    if (length === 0) return -1;
    const first = this.find(addr);
    const end = addr + length;
    if (first >= 0) {
      for (let i = first; ; i++) {
        const w = this.wins[i];
        if (w === undefined || (i > first && w.start !== this.wins[i - 1]!.end)) break;
        if (w.region.disposed) throw closedError(w.region.where);
        if (writing && w.region.readOnly) {
          throw new NxdmaError(
            'DEVICE_READ_ONLY',
            `memory write at ${hex(addr)} refused: ${w.region.where} is mapped read-only`,
            {
              where: `memory @ ${hex(addr)}`,
              expected: 'a device opened read-write',
              actual: 'readOnly',
            },
          );
        }
        if (end <= w.end) return first;
      }
    }
    throw new NxdmaError(
      'MEMORY_UNMAPPED',
      `memory ${op} of ${length} bytes at ${hex(addr)}: [${hex(addr)}, ${hex(end)}) is not entirely mapped`,
      {
        where: `memory @ ${hex(addr)}`,
        expected: 'a range inside the mapped memory windows',
        actual: { addr, length },
      },
    );
  }
}
