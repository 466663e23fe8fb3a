/**
 * Device layout validation: the one place that decides whether a set of windows may be mapped
 * together. It runs before anything is opened, mapped or written (openDevice, and a program run
 * on a mapped device), and is pure.
 *
 * Rules (docs/device.md, "Layout rules"):
 *
 * 1. No two windows share a byte of the same file: the profile's register windows (every engine's
 *    UDMA unit and SDMA wrapper in BAR0, opened or not), memory windows and DGE host-table windows
 *    given by `barOffset`.
 * 2. No two windows share a device address: memory windows, DGE host tables (at dram_base) and
 *    program regions (rings included). The one exception: a DGE core given only by a device
 *    address is carved out of the memory window that holds it (that window maps its table).
 * 3. Every program region lies entirely inside memory the device profile or the user declares as
 *    DMA-visible.
 *
 * Every violation is a typed error that names both windows.
 */
import fs from 'node:fs';
import { NxdmaError, hex } from '../../common/errors.ts';

export type LayoutKind = 'registers' | 'memory' | 'dge' | 'program';

/** One window of a device layout, in file space, in device-address space, or both. */
export interface LayoutWindow {
  kind: LayoutKind;
  /** How messages name it: "engine 80 UDMA unit + SDMA wrapper", "memory[0]", "region SB". */
  name: string;
  /** The bytes of a file the window maps. */
  file?: { path: string; offset: number; size: number };
  /** The device addresses the window occupies. */
  device?: { address: number; size: number };
  /**
   * A DGE host table given only by a device address: it lies inside (and is mapped from) a memory
   * window, so that overlap is expected.
   */
  carved?: boolean;
}

/** `name (file path @ 0x..+0x..)` or `name (device 0x..+0x..)`. */
function describe(w: LayoutWindow, space: 'file' | 'device'): string {
  if (space === 'file' && w.file)
    return `${w.name} (${w.file.path} @ ${hex(w.file.offset)}+${hex(w.file.size)})`;
  if (w.device) return `${w.name} (device ${hex(w.device.address)}+${hex(w.device.size)})`;
  return w.name;
}

/** The path as the kernel sees it, so two spellings of one file compare equal. */
function canonical(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path;
  }
}

function overlapError(a: LayoutWindow, b: LayoutWindow, space: 'file' | 'device'): NxdmaError {
  const what = space === 'file' ? 'file bytes' : 'device addresses';
  return new NxdmaError(
    'MEMORY_OVERLAP',
    `${describe(a, space)} overlaps ${describe(b, space)}: windows may not share ${what}`,
    {
      where: a.name,
      expected: `${a.name} and ${b.name} share no ${space === 'file' ? 'byte of the file' : 'device address'}`,
      actual: { first: describe(a, space), second: describe(b, space) },
      windows: [a.name, b.name],
    },
  );
}

interface Span {
  start: number;
  end: number;
  w: LayoutWindow;
}

/** Sorted sweep: the first pair of spans that intersect and `clash` says may not, or null. */
function firstClash(
  spans: Span[],
  clash: (a: LayoutWindow, b: LayoutWindow) => boolean,
): [LayoutWindow, LayoutWindow] | null {
  spans.sort((x, y) => x.start - y.start || x.end - y.end);
  // Windows still open at the sweep position (few at a time: windows rarely nest).
  const open: Span[] = [];
  for (const s of spans) {
    for (let i = open.length - 1; i >= 0; i--) if (open[i]!.end <= s.start) open.splice(i, 1);
    for (const o of open) if (clash(o.w, s.w)) return [o.w, s.w];
    open.push(s);
  }
  return null;
}

/** True when `dge` is a carved DGE table and `other` is a memory window (rule 2's exception). */
function carvedPair(a: LayoutWindow, b: LayoutWindow): boolean {
  return (a.carved === true && b.kind === 'memory') || (b.carved === true && a.kind === 'memory');
}

/**
 * Checks rules 1 and 2 over `windows`.
 * @throws NxdmaError MEMORY_OVERLAP naming both windows.
 */
export function checkLayout(windows: readonly LayoutWindow[]): void {
  // 1. File space, per file.
  const byFile = new Map<string, Span[]>();
  for (const w of windows) {
    if (!w.file) continue;
    const key = canonical(w.file.path);
    let list = byFile.get(key);
    if (!list) byFile.set(key, (list = []));
    list.push({ start: w.file.offset, end: w.file.offset + w.file.size, w });
  }
  for (const spans of byFile.values()) {
    const c = firstClash(spans, () => true);
    if (c) throw overlapError(c[0], c[1], 'file');
  }
  // 2. Device-address space. Memory windows that the caller lays out back to back are fine;
  // program regions are compared with DGE tables and each other here, with memory by rule 3.
  const spans: Span[] = [];
  for (const w of windows) {
    if (w.device) spans.push({ start: w.device.address, end: w.device.address + w.device.size, w });
  }
  const c = firstClash(spans, (a, b) => {
    if (carvedPair(a, b)) return false;
    if (
      (a.kind === 'program' && b.kind === 'memory') ||
      (a.kind === 'memory' && b.kind === 'program')
    )
      return false;
    return true;
  });
  if (c) throw overlapError(c[0], c[1], 'device');
}

/** A window of DMA-visible memory as rule 3 sees it. */
export interface DeclaredMemory {
  name: string;
  deviceAddress: number;
  size: number;
}

/**
 * Rule 3: `region` lies entirely inside one declared memory window (adjacent declared windows
 * count as one range). Returns the window holding its first byte.
 * @throws NxdmaError MEMORY_UNMAPPED naming the region and the declared memory.
 */
export function checkInsideMemory(
  region: { name: string; address: number; size: number },
  declared: readonly DeclaredMemory[],
): DeclaredMemory {
  const sorted = [...declared].sort((a, b) => a.deviceAddress - b.deviceAddress);
  const end = region.address + region.size;
  const first = sorted.findIndex(
    (d) => region.address >= d.deviceAddress && region.address < d.deviceAddress + d.size,
  );
  if (first >= 0) {
    let reach = sorted[first]!.deviceAddress + sorted[first]!.size;
    for (let i = first + 1; reach < end && i < sorted.length; i++) {
      if (sorted[i]!.deviceAddress !== reach) break;
      reach += sorted[i]!.size;
    }
    if (reach >= end) return sorted[first]!;
  }
  const list = sorted.map((d) => `${d.name} ${hex(d.deviceAddress)}+${hex(d.size)}`);
  const near = sorted.find(
    (d) => region.address < d.deviceAddress + d.size && end > d.deviceAddress,
  );
  throw new NxdmaError(
    'MEMORY_UNMAPPED',
    `${region.name} [${hex(region.address)}, ${hex(end)}) is not inside the DMA-visible memory ` +
      (list.length
        ? `declared for the device (${list.join(', ')})` +
          (near ? `: it runs past ${near.name}` : '')
        : 'declared for the device: none is declared (declare it: --memory <addr>+<size>, or `memory` of openDevice)'),
    {
      where: region.name,
      expected: list.length ? `a range inside ${list.join(' or ')}` : 'declared DMA-visible memory',
      actual: { address: hex(region.address), size: region.size },
      windows: near ? [region.name, near.name] : [region.name],
    },
  );
}
