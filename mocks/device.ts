/**
 * MockDevice: a whole device in memory, implementing the same `Device` interface the mapped
 * (FFI) back end does. It assembles, per a device profile (default trn2, csr/profiles.ts),
 * the UDMA units of the engines a test asks for, the DGE cores and the DMA-visible memory.
 *
 *   const dev = new MockDevice({ engines: [0, 1], dgeCores: 1 });
 *   dev.udma(0).m2s.write32(...);      // registers, from the csr schemas
 *   dev.memory.write(addr, bytes);     // host memory / device DRAM
 *   dev.runUntilIdle();                // run every engine until nothing can move
 *   dev.serviceTrace.entries();        // who was served when
 */
import { NxdmaError } from '../common/errors.ts';
import type { Device, Simulation } from '../csr/io.ts';
import { regFile } from '../csr/schema/files.ts';
import type { RegFileModel } from '../csr/schema/model.ts';
import { getProfile, hasEngine, profileEngines, type DeviceProfile } from '../csr/profiles.ts';
import { MockDgeCore, type MockDgeCoreSpec } from './dge-core.ts';
import { MockMemory, type MemoryRegionSpec } from './memory.ts';
import type { BadAccess, RegisterAccessEvent } from './register-file.ts';
import { ServiceTrace } from './service-trace.ts';
import type { AutoRun, UdmaFault } from './udma/types.ts';
import { MockUdmaUnit } from './udma/unit.ts';

/** Host memory region of the default layout: 64 MiB at address 0. */
export const DEFAULT_HOST_REGION: MemoryRegionSpec = {
  name: 'host',
  kind: 'host',
  base: 0,
  size: 64 * 2 ** 20,
};
/** Device DRAM region of the default layout: 64 MiB at 4 GiB. */
export const DEFAULT_DRAM_REGION: MemoryRegionSpec = {
  name: 'dram',
  kind: 'dram',
  base: 2 ** 32,
  size: 64 * 2 ** 20,
};
/** Default spacing of DGE cores' dram_base inside the 'dram' region. */
export const DEFAULT_DGE_CORE_STRIDE = 0x10000;

export interface MockDeviceOptions {
  /** Device name (default 'mock:<profile>'). */
  name?: string;
  /** Device profile (default 'trn2'). */
  profile?: string | DeviceProfile;
  /**
   * Engines to create: a list of engine ids of the profile, or a count n (the profile's first n
   * engines). Default [0].
   */
  engines?: readonly number[] | number;
  /** Memory regions (default: DEFAULT_HOST_REGION and DEFAULT_DRAM_REGION). */
  memory?: readonly MemoryRegionSpec[];
  /**
   * DGE cores: a count n (cores 0..n-1, kind CAYMAN, booted), or specs. A core without
   * `dramBase` sits at the 'dram' region's base + core * DEFAULT_DGE_CORE_STRIDE. Default none.
   */
  dgeCores?: number | readonly (Partial<MockDgeCoreSpec> & { core: number })[];
  /** When engines run by themselves (default 'on-read'; see MockUdmaUnit). */
  autoRun?: AutoRun;
  /** Bytes per engine cycle (default 64). */
  bytesPerCycle?: number;
  /** Register windows throw on bad accesses instead of logging them. Default false. */
  strict?: boolean;
  /**
   * Service trace: false disables it; `{ limit }` bounds it (default 1,000,000 entries). The
   * engines' event logs (`prefetches`, `completions`) follow it: off with it, bounded by its limit.
   */
  serviceTrace?: boolean | { limit?: number };
  /** Called for every register access of every window. */
  registerTrace?: (ev: RegisterAccessEvent) => void;
}

export class MockDevice implements Device, Simulation {
  readonly name: string;
  readonly profile: string;
  readonly isHardware = false;
  readonly memory: MockMemory;
  readonly serviceTrace: ServiceTrace;
  readonly profileInfo: DeviceProfile;
  private readonly units = new Map<number, MockUdmaUnit>();
  private readonly cores = new Map<number, MockDgeCore>();

  constructor(opts: MockDeviceOptions = {}) {
    const prof = getProfile(opts.profile ?? 'trn2');
    const all = profileEngines(prof);
    const engines = MockDevice.engineList(opts.engines ?? [0], prof, all);
    const bpc = opts.bytesPerCycle ?? 64;
    if (!Number.isSafeInteger(bpc) || bpc < 1) {
      throw new NxdmaError('BAD_ARGUMENT', `bytesPerCycle must be a positive integer`, {
        where: 'MockDevice.bytesPerCycle',
        expected: 'integer >= 1',
        actual: opts.bytesPerCycle,
      });
    }
    const autoRun = opts.autoRun ?? 'on-read';
    if (autoRun !== 'none' && autoRun !== 'on-doorbell' && autoRun !== 'on-read') {
      throw new NxdmaError('BAD_ARGUMENT', `unknown autoRun mode ${JSON.stringify(autoRun)}`, {
        where: 'MockDevice.autoRun',
        expected: "'none' | 'on-doorbell' | 'on-read'",
        actual: autoRun,
      });
    }
    this.profileInfo = prof;
    this.profile = prof.name;
    this.name = opts.name ?? `mock:${prof.name}`;
    this.memory = new MockMemory(opts.memory ?? [DEFAULT_HOST_REGION, DEFAULT_DRAM_REGION]);
    const t = opts.serviceTrace ?? true;
    this.serviceTrace = new ServiceTrace(
      t === false ? { enabled: false } : { enabled: true, limit: t === true ? undefined : t.limit },
    );
    const models = { m2s: regFile('udma_m2s'), s2m: regFile('udma_s2m') };
    const coreSpecs = this.coreSpecs(opts.dgeCores);
    const dge: RegFileModel = regFile('dge_host');
    // Everything validated: build.
    for (const e of engines) {
      this.units.set(
        e,
        new MockUdmaUnit(e, models, this.memory, this.serviceTrace, {
          autoRun,
          bytesPerCycle: bpc,
          strict: opts.strict,
          registerTrace: opts.registerTrace ?? null,
        }),
      );
    }
    const built: MockDgeCore[] = [];
    for (const spec of coreSpecs) {
      built.push(
        new MockDgeCore(spec, this.memory, dge, {
          strict: opts.strict,
          trace: opts.registerTrace ?? null,
        }),
      );
    }
    for (const c of built) this.cores.set(c.core, c);
    this.memory.beforeRead = () => this.catchUp();
  }

  /** In 'on-read' mode, lets every engine with new work run until idle (see MockUdmaUnit.catchUp). */
  catchUp(): void {
    for (const u of this.units.values()) u.catchUp();
  }

  private static engineList(
    e: readonly number[] | number,
    prof: DeviceProfile,
    all: number[],
  ): number[] {
    if (typeof e === 'number') {
      if (!Number.isSafeInteger(e) || e < 1 || e > all.length) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `engine count ${String(e)} is not valid for ${prof.name}`,
          {
            where: 'MockDevice.engines',
            expected: `1..${all.length}`,
            actual: e,
          },
        );
      }
      return all.slice(0, e);
    }
    const seen = new Set<number>();
    for (const id of e) {
      if (!hasEngine(prof, id)) {
        throw new NxdmaError('DEVICE_PROFILE', `profile ${prof.name} has no engine ${String(id)}`, {
          where: `MockDevice.engines`,
          expected: `engine ids of ${prof.name}`,
          actual: id,
        });
      }
      if (seen.has(id)) {
        throw new NxdmaError('BAD_ARGUMENT', `engine ${id} listed twice`, {
          where: 'MockDevice.engines',
          expected: 'distinct engine ids',
          actual: e,
        });
      }
      seen.add(id);
    }
    return [...seen].sort((a, b) => a - b);
  }

  private coreSpecs(c: MockDeviceOptions['dgeCores']): MockDgeCoreSpec[] {
    if (c === undefined) return [];
    if (typeof c === 'number' && (!Number.isSafeInteger(c) || c < 0)) {
      throw new NxdmaError('BAD_ARGUMENT', `DGE core count ${String(c)} is not valid`, {
        where: 'MockDevice.dgeCores',
        expected: 'integer >= 0',
        actual: c,
      });
    }
    const list: readonly (Partial<MockDgeCoreSpec> & { core: number })[] =
      typeof c === 'number' ? Array.from({ length: c }, (_, i) => ({ core: i })) : c;
    const seen = new Set<number>();
    return list.map((s) => {
      if (seen.has(s.core)) {
        throw new NxdmaError('BAD_ARGUMENT', `DGE core ${s.core} listed twice`, {
          where: 'MockDevice.dgeCores',
          expected: 'distinct core ids',
          actual: s.core,
        });
      }
      seen.add(s.core);
      let dramBase = s.dramBase;
      if (dramBase === undefined) {
        const dram = this.memory.regions().find((r) => r.name === 'dram');
        if (!dram) {
          throw new NxdmaError(
            'BAD_ARGUMENT',
            `DGE core ${s.core}: no dramBase and no 'dram' region`,
            {
              where: `MockDevice.dgeCores[${s.core}].dramBase`,
              expected: "a dramBase, or a memory region named 'dram'",
              actual: this.memory.describe(),
            },
          );
        }
        dramBase = dram.base + s.core * DEFAULT_DGE_CORE_STRIDE;
      }
      return { ...s, dramBase };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Device.

  udma(engine: number): MockUdmaUnit {
    const u = this.units.get(engine);
    if (u) return u;
    throw new NxdmaError(
      hasEngine(this.profileInfo, engine) ? 'BAD_ARGUMENT' : 'DEVICE_PROFILE',
      `engine ${String(engine)} is not part of this mock device`,
      {
        where: `${this.name}.udma(${String(engine)})`,
        expected: `one of ${this.engines().join(', ')}`,
        actual: engine,
      },
    );
  }

  engines(): number[] {
    return [...this.units.keys()];
  }

  dgeCore(core: number): MockDgeCore {
    const c = this.cores.get(core);
    if (c) return c;
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `DGE core ${String(core)} is not part of this mock device`,
      {
        where: `${this.name}.dgeCore(${String(core)})`,
        expected: this.cores.size
          ? `one of ${this.dgeCores().join(', ')}`
          : 'no DGE cores were declared',
        actual: core,
      },
    );
  }

  dgeCores(): number[] {
    return [...this.cores.keys()];
  }

  // -------------------------------------------------------------------------------------------
  // Running and observing.

  /** One packet on each engine that has one. Returns true when anything happened. */
  step(): boolean {
    let any = false;
    for (const u of this.units.values()) if (u.step()) any = true;
    return any;
  }

  /** Runs every engine until none can move. Returns the packets served. */
  runUntilIdle(opts: { maxPackets?: number } = {}): number {
    let served = 0;
    const max = opts.maxPackets ?? Infinity;
    for (const u of this.units.values()) {
      if (served >= max) break;
      served += u.runUntilIdle({ maxPackets: max - served });
    }
    return served;
  }

  /** Every engine error so far (memory faults and queue stalls), engine by engine. */
  faults(): UdmaFault[] {
    this.catchUp();
    return [...this.units.values()].flatMap((u) => u.faults);
  }

  /** Every dropped register access (and ignored RO write) across all windows. */
  badAccesses(): BadAccess[] {
    return [
      ...[...this.units.values()].flatMap((u) => [...u.m2s.badAccessLog, ...u.s2m.badAccessLog]),
      ...[...this.cores.values()].flatMap((c) => c.dram.badAccessLog),
    ];
  }
}
