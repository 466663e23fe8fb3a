/**
 * openDevice: a `Device` (csr/io.ts) over a mapped device file. Each opened engine's M2S and S2M
 * register files, each DGE core's host table and each DMA-visible memory window are mapped on
 * their own (only what is asked for), so every layer above runs unchanged on the mock or on
 * hardware.
 */
import type { DgeCoreIO, Device, RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import { NxdmaError, hex } from '../../common/errors.ts';
import { DeviceFile, checkWindowRequest, closedError, windowName } from './mapping.ts';
import { MmioMemoryIO, type MemoryWindow } from './memory-io.ts';
import {
  barRegisterWindows,
  getProfile,
  registerFileOffset,
  type DeviceProfile,
  type ProfileName,
  type UdmaRegisterFile,
} from './profiles.ts';
import { MappedRegion } from './region.ts';
import { checkInsideMemory, checkLayout, type LayoutWindow } from './layout.ts';
import { safetyFlag } from '../../common/flags.ts';

/** A DGE core whose host table (the dge_host register file at dram_base) is mapped. */
export interface DgeCoreSpec {
  core: number;
  /** nrtucode core kind (SUNDA 2, CAYMAN 9, MARIANA 17, MARIANA_PLUS 25, MAVERICK 32). */
  kind: number;
  /** Boot state; 1 is booted. */
  bootState: number;
  /** Byte offset of dram_base in the device file (`path` unless given). */
  barOffset?: number;
  /**
   * Device address of dram_base. Without `barOffset` it must lie inside one `memory` window, which
   * then provides the mapping. Reported as `dramBase` (default: `barOffset`).
   */
  deviceAddress?: number;
  /** File holding `barOffset` when it is not the device's `path`. */
  path?: string;
}

/** A DMA-visible memory window: `size` bytes at `fileOffset` of a file, placed at `deviceAddress`. */
export interface MemorySpec {
  deviceAddress: number;
  fileOffset: number;
  size: number;
  /** File holding the window when it is not the device's `path` (another BAR, /dev/mem, ...). */
  path?: string;
}

export interface OpenDeviceOptions {
  /** The BAR0 file: /sys/bus/pci/devices/<bdf>/resource0, /dev/mem, a UIO device, ... */
  path: string;
  profile: ProfileName | DeviceProfile;
  /** Engines whose M2S / S2M register files are mapped (only these). */
  engines: readonly number[];
  dgeCores?: readonly DgeCoreSpec[];
  memory?: readonly MemorySpec[];
  /** Map everything read-only: every write is refused with DEVICE_READ_ONLY. */
  readOnly?: boolean;
  /** Device name (default `<profile>:<path>`). */
  name?: string;
}

const UDMA_FILES: readonly UdmaRegisterFile[] = ['udma_m2s', 'udma_s2m'];

export class MmioDevice implements Device, Disposable {
  readonly name: string;
  readonly profile: string;
  readonly isHardware = true;
  readonly memory: MmioMemoryIO;
  readonly readOnly: boolean;
  /** The BAR0 file. */
  readonly path: string;
  private readonly prof: DeviceProfile;
  private readonly units: ReadonlyMap<number, UdmaUnitIO>;
  private readonly cores: ReadonlyMap<number, DgeCoreIO>;
  private readonly files: readonly DeviceFile[];
  private closed = false;

  /** @internal Use `openDevice`. */
  constructor(init: {
    name: string;
    path: string;
    profile: DeviceProfile;
    readOnly: boolean;
    memory: MmioMemoryIO;
    units: ReadonlyMap<number, UdmaUnitIO>;
    cores: ReadonlyMap<number, DgeCoreIO>;
    files: readonly DeviceFile[];
  }) {
    this.name = init.name;
    this.path = init.path;
    this.prof = init.profile;
    this.profile = init.profile.name;
    this.readOnly = init.readOnly;
    this.memory = init.memory;
    this.units = init.units;
    this.cores = init.cores;
    this.files = init.files;
  }

  get disposed(): boolean {
    return this.closed;
  }

  /** The engine's M2S / S2M windows. @throws DEVICE_PROFILE (not in the profile or not opened), DEVICE_CLOSED */
  udma(engine: number): UdmaUnitIO {
    if (this.closed) throw closedError(this.name);
    const u = this.units.get(engine);
    if (u === undefined) throw this.notOpened('engine', engine, this.engines());
    return u;
  }

  engines(): number[] {
    return [...this.units.keys()].sort((a, b) => a - b);
  }

  /** The core's host table window. @throws DEVICE_PROFILE (not opened), DEVICE_CLOSED */
  dgeCore(core: number): DgeCoreIO {
    if (this.closed) throw closedError(this.name);
    const c = this.cores.get(core);
    if (c === undefined) throw this.notOpened('DGE core', core, this.dgeCores());
    return c;
  }

  dgeCores(): number[] {
    return [...this.cores.keys()].sort((a, b) => a - b);
  }

  /** BAR0 offset of an engine's UDMA unit in this device's profile. */
  unitOffset(engine: number): number {
    return registerFileOffset(this.prof, engine, 'udma_m2s') - this.prof.windows.udma_m2s.offset;
  }

  /** Unmaps every window and closes every file. Safe to call twice. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.files) f.close();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  private notOpened(what: string, id: number, opened: number[]): NxdmaError {
    return new NxdmaError(
      'DEVICE_PROFILE',
      `${this.name}: ${what} ${String(id)} was not opened (opened: ${opened.join(', ') || 'none'})`,
      {
        where: `${what} ${String(id)}`,
        expected: `one of: ${opened.join(', ') || 'none'}`,
        actual: id,
      },
    );
  }
}

function badArgument(
  where: string,
  message: string,
  expected: string,
  actual: unknown,
): NxdmaError {
  return new NxdmaError('BAD_ARGUMENT', `${where}: ${message}`, { where, expected, actual });
}

/** An element of `memory` or `dgeCores` must be an object (null, numbers and holes are refused). */
function specObject(v: unknown, where: string, expected: string): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw badArgument(
      where,
      `${v === null ? 'null' : typeof v} is not a window description`,
      expected,
      v === undefined ? 'undefined' : v,
    );
  }
}

function checkPath(v: unknown, where: string): void {
  if (v !== undefined && (typeof v !== 'string' || v.length === 0)) {
    throw badArgument(
      where,
      `${JSON.stringify(v)} is not a file path`,
      'a non-empty path (or the option left out)',
      v,
    );
  }
}

/**
 * The windows of a device as the layout check sees them: the profile's register windows in the
 * BAR file, each memory window (file bytes and device addresses) and each DGE host table.
 */
export function deviceLayout(
  profile: DeviceProfile,
  path: string,
  memory: readonly MemorySpec[],
  dgeCores: readonly DgeCoreSpec[],
): LayoutWindow[] {
  const out: LayoutWindow[] = barRegisterWindows(profile).map((r) => ({
    kind: 'registers',
    name: r.name,
    file: { path, offset: r.offset, size: r.size },
  }));
  memory.forEach((m, i) =>
    out.push({
      kind: 'memory',
      name: `memory[${i}]`,
      file: { path: m.path ?? path, offset: m.fileOffset, size: m.size },
      device: { address: m.deviceAddress, size: m.size },
    }),
  );
  dgeCores.forEach((c, i) => {
    const name = `dgeCores[${i}] (DGE core ${c.core} dge_host)`;
    const address = c.deviceAddress ?? c.barOffset!;
    out.push({
      kind: 'dge',
      name,
      ...(c.barOffset !== undefined
        ? { file: { path: c.path ?? path, offset: c.barOffset, size: profile.dgeHostSize } }
        : { carved: true }),
      device: { address, size: profile.dgeHostSize },
    });
  });
  return out;
}

function checkInt(where: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw badArgument(
      where,
      `${String(v)} is not a non-negative integer`,
      'a non-negative integer',
      v,
    );
  }
  return v;
}

/**
 * Maps a device per `profile`: for each engine in `engines`, its udma_m2s and udma_s2m windows
 * (sizes from the register schemas); for each DGE core, its dge_host window at dram_base (from the
 * BAR, or inside a memory window); each memory window at its device address.
 *
 * Everything is validated before anything is mapped; if any mapping fails, all mappings made so far
 * are undone.
 *
 * @throws NxdmaError DEVICE_PROFILE (unknown profile, engine not in the profile), BAD_ARGUMENT,
 *   DEVICE_OPEN, DEVICE_UNAVAILABLE, MEMORY_OVERLAP, MEMORY_UNMAPPED (a DGE core address outside
 *   the memory windows).
 */
export function openDevice(options: OpenDeviceOptions): MmioDevice {
  if (options === null || typeof options !== 'object') {
    throw badArgument(
      'openDevice',
      'options must be an object',
      '{ path, profile, engines }',
      options,
    );
  }
  if (options.profile === null || options.profile === undefined) {
    throw new NxdmaError('DEVICE_PROFILE', 'openDevice: no device profile given', {
      where: 'openDevice.profile',
      expected: 'a profile name (trn2) or a DeviceProfile',
      actual: options.profile === null ? null : 'undefined',
    });
  }
  const profile = getProfile(options.profile);
  const path = options.path;
  const readOnly = safetyFlag(options.readOnly, 'openDevice.readOnly');
  const name = options.name ?? `${profile.name}:${String(path)}`;
  if (typeof path !== 'string' || path.length === 0) {
    throw new NxdmaError(
      'DEVICE_OPEN',
      `device path ${JSON.stringify(path)} is not a non-empty string`,
      {
        where: 'openDevice.path',
        expected: 'a path to a device resource file',
        actual: path === undefined ? 'undefined' : path,
      },
    );
  }

  // 1. Validate everything (pure).
  if (!Array.isArray(options.engines)) {
    throw badArgument('engines', 'must be an array of engine ids', 'number[]', options.engines);
  }
  const engines: {
    engine: number;
    windows: { file: UdmaRegisterFile; offset: number; size: number }[];
  }[] = [];
  const seenEngines = new Set<number>();
  options.engines.forEach((e, i) => {
    const windows = UDMA_FILES.map((file) => ({
      file,
      offset: registerFileOffset(profile, e, file), // DEVICE_PROFILE for an engine the profile lacks
      size: profile.windows[file].size,
    }));
    if (seenEngines.has(e))
      throw badArgument(`engines[${i}]`, `engine ${e} is listed twice`, 'distinct engine ids', e);
    seenEngines.add(e);
    for (const w of windows)
      checkWindowRequest(String(path), w.offset, w.size, `engine ${e} ${w.file}`);
    engines.push({ engine: e, windows });
  });

  // Private snapshots of the window descriptions: each field is read once, validated, and
  // everything after (layout check, mapping) uses the snapshot only.
  const memoryIn = options.memory ?? [];
  if (!Array.isArray(memoryIn))
    throw badArgument('memory', 'must be an array', 'MemorySpec[]', memoryIn);
  const memory: MemorySpec[] = Array.from(memoryIn, (m: MemorySpec, i) => {
    specObject(m, `memory[${i}]`, '{ deviceAddress, fileOffset, size, path? }');
    const { deviceAddress, fileOffset, size, path: p } = m;
    return Object.freeze(
      p === undefined
        ? { deviceAddress, fileOffset, size }
        : { deviceAddress, fileOffset, size, path: p },
    );
  });
  memory.forEach((m, i) => {
    const where = `memory[${i}]`;
    checkInt(`${where}.deviceAddress`, m.deviceAddress);
    checkPath(m.path, `${where}.path`);
    checkWindowRequest(m.path ?? String(path), m.fileOffset, m.size, where);
  });

  const dgeIn = options.dgeCores ?? [];
  if (!Array.isArray(dgeIn))
    throw badArgument('dgeCores', 'must be an array', 'DgeCoreSpec[]', dgeIn);
  const dgeCores: DgeCoreSpec[] = Array.from(dgeIn, (c: DgeCoreSpec, i) => {
    specObject(c, `dgeCores[${i}]`, '{ core, kind, bootState, barOffset? | deviceAddress? }');
    const { core, kind, bootState, barOffset, deviceAddress, path: p } = c;
    const out: DgeCoreSpec = { core, kind, bootState };
    if (barOffset !== undefined) out.barOffset = barOffset;
    if (deviceAddress !== undefined) out.deviceAddress = deviceAddress;
    if (p !== undefined) out.path = p;
    return Object.freeze(out);
  });
  const seenCores = new Set<number>();
  dgeCores.forEach((c, i) => {
    const where = `dgeCores[${i}]`;
    checkInt(`${where}.core`, c.core);
    checkInt(`${where}.kind`, c.kind);
    checkInt(`${where}.bootState`, c.bootState);
    if (seenCores.has(c.core))
      throw badArgument(where, `DGE core ${c.core} is listed twice`, 'distinct core ids', c.core);
    seenCores.add(c.core);
    if (c.barOffset === undefined && c.deviceAddress === undefined) {
      throw badArgument(
        where,
        'needs barOffset or deviceAddress',
        'barOffset (file offset) or deviceAddress (inside memory)',
        c,
      );
    }
    if (c.deviceAddress !== undefined) checkInt(`${where}.deviceAddress`, c.deviceAddress);
    checkPath(c.path, `${where}.path`);
    if (c.barOffset !== undefined)
      checkWindowRequest(c.path ?? String(path), c.barOffset, profile.dgeHostSize, where);
  });

  // The layout as a whole (docs/device.md, "Layout rules"): nothing mapped may overlap anything
  // else, and the profile's register windows (every engine, opened or not) are off limits.
  checkLayout(deviceLayout(profile, path, memory, dgeCores));
  const declared = memory.map((m, i) => ({
    name: `memory[${i}]`,
    deviceAddress: m.deviceAddress,
    size: m.size,
  }));
  dgeCores.forEach((c, i) => {
    if (c.barOffset === undefined) {
      checkInsideMemory(
        {
          name: `dgeCores[${i}] (DGE core ${c.core} dge_host)`,
          address: c.deviceAddress!,
          size: profile.dgeHostSize,
        },
        declared,
      );
    }
  });

  // 2. Open and map; undo everything on any failure.
  const files = new Map<string, DeviceFile>();
  const fileFor = (p: string): DeviceFile => {
    let f = files.get(p);
    if (f === undefined) {
      f = DeviceFile.open(p, readOnly);
      files.set(p, f);
    }
    return f;
  };
  const region = (p: string, offset: number, size: number, label: string): MappedRegion => {
    const f = fileFor(p);
    return new MappedRegion(
      f,
      f.map(offset, size, `${windowName(p, offset, size)} (${label})`),
      false,
    );
  };
  try {
    const barFile = fileFor(path);
    const units = new Map<number, UdmaUnitIO>();
    for (const { engine, windows } of engines) {
      const io: Partial<Record<UdmaRegisterFile, RegisterIO>> = {};
      for (const w of windows) {
        const label = `engine ${engine} ${w.file}`;
        io[w.file] = region(barFile.path, w.offset, w.size, label).registers(0, w.size, label);
      }
      units.set(engine, Object.freeze({ engine, m2s: io.udma_m2s!, s2m: io.udma_s2m! }));
    }

    const windows: MemoryWindow[] = memory.map((m, i) => ({
      deviceAddress: m.deviceAddress,
      region: region(
        m.path ?? path,
        m.fileOffset,
        m.size,
        `memory[${i}] at ${hex(m.deviceAddress)}`,
      ),
    }));
    const mem = new MmioMemoryIO(windows);

    const cores = new Map<number, DgeCoreIO>();
    for (const c of dgeCores) {
      const label = `DGE core ${c.core} dge_host`;
      const dram =
        c.barOffset !== undefined
          ? region(c.path ?? path, c.barOffset, profile.dgeHostSize, label).registers(
              0,
              profile.dgeHostSize,
              label,
            )
          : mem.registers(c.deviceAddress!, profile.dgeHostSize, label);
      cores.set(
        c.core,
        Object.freeze({
          core: c.core,
          dram,
          dramBase: c.deviceAddress ?? c.barOffset!,
          kind: c.kind,
          bootState: c.bootState,
        }),
      );
    }

    return new MmioDevice({
      name,
      path,
      profile,
      readOnly,
      memory: mem,
      units,
      cores,
      files: [...files.values()],
    });
  } catch (e) {
    for (const f of files.values()) f.close();
    throw e;
  }
}
