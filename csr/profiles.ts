/**
 * Device profiles: where each UDMA engine's register unit sits in BAR0. The one home of the
 * engine -> BAR0 offset rule (spec/UDMA-FACTS.md, "Device profile: trn2") and of the unit layout
 * (spec/REGISTERS.md, "How a UDMA unit is laid out"). Register window sizes come from the register
 * schemas, never from here.
 */
import { NxdmaError, hex } from '../common/errors.ts';
import { dge_host, udma_m2s, udma_s2m } from './generated/index.ts';

/** The register files a UDMA unit holds that nxdma maps. */
export type UdmaRegisterFile = 'udma_m2s' | 'udma_s2m';

/** Byte offsets inside one UDMA unit (REGISTERS.md, "How a UDMA unit is laid out"). */
export interface UdmaUnitLayout {
  /** Bytes one unit spans. */
  readonly unitSize: number;
  /** M2S (TX) register file. */
  readonly m2s: number;
  /** S2M (RX) register file. */
  readonly s2m: number;
  /** Generic block. */
  readonly generic: number;
  /** Generic-ex block. */
  readonly genericEx: number;
  /** The SDMA wrapper block (event_accel, rob_cfg, wob_cfg), right after the unit. */
  readonly sdmaWrapper: number;
}

/** A run of engines whose units are `stride` apart from `base` in BAR0. */
export interface EngineGroup {
  readonly name: string;
  /** First engine id of the group. */
  readonly first: number;
  /** Number of engines. */
  readonly count: number;
  /** BAR0 offset of the first engine's unit. */
  readonly base: number;
  /** Bytes between consecutive engines' units. */
  readonly stride: number;
  readonly kind: 'sdma' | 'host';
  readonly description: string;
}

/** A register window of a unit: offset inside the unit and size (from the register schema). */
export interface UnitWindow {
  readonly offset: number;
  readonly size: number;
}

export interface DeviceProfile {
  readonly name: string;
  readonly archLevel: number;
  readonly codename: string;
  readonly queuesPerEngine: number;
  readonly engineGroups: readonly EngineGroup[];
  readonly unit: UdmaUnitLayout;
  /** The register windows mapped per engine; sizes from the csr schemas (SizeInBytes). */
  readonly windows: Readonly<Record<UdmaRegisterFile, UnitWindow>>;
  /** Size of a DGE core's host table window at dram_base (the dge_host schema's SizeInBytes). */
  readonly dgeHostSize: number;
  /**
   * Bytes reserved for each engine's SDMA wrapper block at unit + unit.sdmaWrapper (the spec names
   * registers up to +0x20 and no size; one 4 KiB page is reserved).
   */
  readonly sdmaWrapperSize: number;
  /**
   * DMA-visible memory the profile itself declares, as BAR0 windows (none known for trn2: a run on
   * a device then needs memory the user declares).
   */
  readonly dmaMemory: readonly DmaMemoryWindow[];
}

/** A window of DMA-visible memory: `size` bytes at `deviceAddress`, at `fileOffset` of the BAR file. */
export interface DmaMemoryWindow {
  readonly name: string;
  readonly deviceAddress: number;
  readonly fileOffset: number;
  readonly size: number;
}

/** One register window of BAR0 that no memory window may overlap. */
export interface BarRegisterWindow {
  /** "engine 80 UDMA unit + SDMA wrapper". */
  readonly name: string;
  readonly engine: number;
  /** BAR0 offset. */
  readonly offset: number;
  readonly size: number;
}

const UDMA_UNIT: UdmaUnitLayout = Object.freeze({
  unitSize: 0x40000,
  m2s: 0x00000,
  s2m: 0x20000,
  generic: 0x38000,
  genericEx: 0x3c000,
  sdmaWrapper: 0x40000,
});

function seng(index: number, base: number): EngineGroup {
  return {
    name: `SENG ${index}`,
    first: index * 32,
    count: 32,
    base,
    stride: 0x100000,
    kind: 'sdma',
    description: `SDMA engine group ${index}: engines ${index * 32}-${index * 32 + 31}`,
  };
}

function host(engine: number, base: number, description: string): EngineGroup {
  return {
    name: `host ${engine}`,
    first: engine,
    count: 1,
    base,
    stride: 0,
    kind: 'host',
    description,
  };
}

/** trn2 (ArchLevel 30, "Cayman"): spec/UDMA-FACTS.md. */
const TRN2: DeviceProfile = deepFreeze({
  name: 'trn2',
  archLevel: 30,
  codename: 'Cayman',
  queuesPerEngine: 16,
  engineGroups: [
    seng(0, 0x82000000),
    seng(1, 0x94000000),
    seng(2, 0xa2000000),
    seng(3, 0xb4000000),
    host(128, 0x06800000, 'device-to-host 0'),
    host(129, 0x06900000, 'host-to-device 0'),
    host(130, 0x46800000, 'device-to-host 1'),
    host(131, 0x46900000, 'host-to-device 1'),
  ],
  unit: UDMA_UNIT,
  windows: {
    udma_m2s: { offset: UDMA_UNIT.m2s, size: udma_m2s.size },
    udma_s2m: { offset: UDMA_UNIT.s2m, size: udma_s2m.size },
  },
  dgeHostSize: dge_host.size,
  sdmaWrapperSize: 0x1000,
  dmaMemory: [],
});

/** Every known profile by name. */
export const PROFILES: Readonly<Record<string, DeviceProfile>> = Object.freeze({ trn2: TRN2 });

export type ProfileName = 'trn2';

/** The profile called `name`. @throws NxdmaError DEVICE_PROFILE for an unknown name. */
export function getProfile(name: string | DeviceProfile): DeviceProfile {
  if (typeof name !== 'string') {
    const o = name as Partial<DeviceProfile> | null | undefined;
    if (
      o !== null &&
      typeof o === 'object' &&
      typeof o.name === 'string' &&
      Array.isArray(o.engineGroups) &&
      typeof o.unit === 'object' &&
      o.unit !== null &&
      typeof o.windows === 'object' &&
      o.windows !== null
    )
      return name as DeviceProfile;
    throw new NxdmaError('DEVICE_PROFILE', `device profile ${String(name)} is not a profile`, {
      where: 'profile',
      expected: `a profile name (${Object.keys(PROFILES).join(' | ')}) or a DeviceProfile`,
      actual: name === null ? null : typeof name,
    });
  }
  const p = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined;
  if (p === undefined) {
    throw new NxdmaError('DEVICE_PROFILE', `unknown device profile ${JSON.stringify(name)}`, {
      where: 'profile',
      expected: Object.keys(PROFILES).join(' | '),
      actual: name,
    });
  }
  return p;
}

/** Every engine id of the profile, ascending. */
export function profileEngines(profile: string | DeviceProfile): number[] {
  const p = getProfile(profile);
  const out: number[] = [];
  for (const g of p.engineGroups) for (let i = 0; i < g.count; i++) out.push(g.first + i);
  return out.sort((a, b) => a - b);
}

function groupOf(p: DeviceProfile, engine: number): EngineGroup | undefined {
  if (!Number.isSafeInteger(engine)) return undefined;
  return p.engineGroups.find((g) => engine >= g.first && engine < g.first + g.count);
}

/** True when the profile has engine `engine`. */
export function hasEngine(profile: string | DeviceProfile, engine: number): boolean {
  return groupOf(getProfile(profile), engine) !== undefined;
}

/** The group engine `engine` belongs to. @throws NxdmaError DEVICE_PROFILE */
export function engineGroup(profile: string | DeviceProfile, engine: number): EngineGroup {
  const p = getProfile(profile);
  const g = groupOf(p, engine);
  if (g === undefined) {
    const ids = p.engineGroups.map((x) =>
      x.count === 1 ? `${x.first}` : `${x.first}-${x.first + x.count - 1}`,
    );
    throw new NxdmaError('DEVICE_PROFILE', `profile ${p.name} has no engine ${String(engine)}`, {
      where: `engine ${String(engine)}`,
      expected: `an engine of ${p.name}: ${ids.join(', ')}`,
      actual: engine,
    });
  }
  return g;
}

/**
 * BAR0 offset of engine `engine`'s UDMA unit. trn2: SENG k (engines 32k..32k+31) at
 * base_k + (e % 32) * 0x100000 with base = 0x82000000, 0x94000000, 0xa2000000, 0xb4000000; host
 * engines 128-131 at 0x06800000, 0x06900000, 0x46800000, 0x46900000.
 * @throws NxdmaError DEVICE_PROFILE for an engine the profile lacks.
 */
export function unitOffset(profile: string | DeviceProfile, engine: number): number {
  const g = engineGroup(profile, engine);
  return g.base + (engine - g.first) * g.stride;
}

/** BAR0 offset of one register file of engine `engine` (udma_m2s or udma_s2m). */
export function registerFileOffset(
  profile: string | DeviceProfile,
  engine: number,
  file: UdmaRegisterFile,
): number {
  const p = getProfile(profile);
  return unitOffset(p, engine) + p.windows[file].offset;
}

/** BAR0 offset of engine `engine`'s SDMA wrapper block (unit + 0x40000). */
export function sdmaWrapperOffset(profile: string | DeviceProfile, engine: number): number {
  const p = getProfile(profile);
  return unitOffset(p, engine) + p.unit.sdmaWrapper;
}

/**
 * Every register window the profile places in BAR0, by ascending offset: each engine's UDMA unit
 * (unit.unitSize bytes) together with its SDMA wrapper block right after it (sdmaWrapperSize). A
 * memory or DGE window mapped from BAR0 may overlap none of them, whether its engine is opened or
 * not.
 */
export function barRegisterWindows(profile: string | DeviceProfile): readonly BarRegisterWindow[] {
  const p = getProfile(profile);
  let list = barWindowCache.get(p);
  if (list === undefined) {
    const out: BarRegisterWindow[] = [];
    for (const e of profileEngines(p)) {
      out.push({
        name: `engine ${e} UDMA unit + SDMA wrapper`,
        engine: e,
        offset: unitOffset(p, e),
        size: p.unit.sdmaWrapper + (p.sdmaWrapperSize ?? 0x1000),
      });
    }
    out.sort((a, b) => a.offset - b.offset);
    list = Object.freeze(out.map((w) => Object.freeze(w)));
    barWindowCache.set(p, list);
  }
  return list;
}

const barWindowCache = new WeakMap<DeviceProfile, readonly BarRegisterWindow[]>();

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

// The register windows must fit inside the unit (checked once, at load).
for (const p of Object.values(PROFILES)) {
  for (const [file, w] of Object.entries(p.windows)) {
    if (w.offset + w.size > p.unit.unitSize) {
      throw new NxdmaError(
        'SCHEMA_INVALID',
        `${p.name}: ${file} window ${hex(w.offset)}+${hex(w.size)} exceeds the unit`,
        {
          where: `${p.name}.windows.${file}`,
          expected: `offset + size <= ${hex(p.unit.unitSize)}`,
          actual: w,
        },
      );
    }
  }
}
