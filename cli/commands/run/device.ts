/**
 * The device of `nxdma run`: its options checked before anything runs, the memory windows a
 * program needs on a mapped device (inside the DMA-visible memory the profile or --memory
 * declares), and the device itself (a mock laid out for the program, or the mapped device).
 */
import type { Device } from '../../../csr/io.ts';
import { checkInsideMemory, getProfile, type MemorySpec } from '../../../driver/mmio/index.ts';
import { checkDeviceChoice, declaredMemory, memoryText } from '../../options.ts';
import { openCliDevice } from '../../device-open.ts';
import { flowMock, type PreparedFlow } from '../../../flow/index.ts';
import { badArg } from '../../input.ts';

export interface RunOptions {
  mock?: boolean;
  device?: string;
  profile?: string;
  json?: boolean;
  trace?: boolean;
  timeline?: string;
  ringBase?: string;
  seed?: string;
  qos?: boolean;
  allowInferred?: boolean;
  iUnderstandThisWritesToHardware?: boolean;
  memory?: string[];
  maxIterations?: string;
  maxRingBytes?: string;
  traceJson?: string;
  dgeBackends?: string;
}

/** Checks the device options before anything is read or opened. */
export function checkDeviceOptions(o: RunOptions): void {
  checkDeviceChoice(o, true);
  if (o.device !== undefined) {
    getProfile(o.profile!);
    declaredMemory(o);
  } else if (o.memory !== undefined) {
    throw badArg(
      '--memory',
      '--memory declares memory of --device; the mock lays out its own',
      '--device',
      o.memory,
    );
  }
}

/**
 * The memory windows of one program on --device: each region and the rings, each inside the
 * DMA-visible memory the profile or --memory declares, mapped at the matching file offset.
 * @throws NxdmaError MEMORY_UNMAPPED naming the region and the declared memory.
 */
export function programMemory(o: RunOptions, p: PreparedFlow, ringBase: number): MemorySpec[] {
  const profile = getProfile(o.profile!);
  const declared: (MemorySpec & { name: string })[] = [
    ...(profile.dmaMemory ?? []).map((m) => ({ ...m, name: `profile ${profile.name} ${m.name}` })),
    ...declaredMemory(o).map((m, i) => ({
      ...m,
      name: `--memory ${memoryText(m)}` + (i > 0 ? ` (#${i + 1})` : ''),
    })),
  ];
  const wanted = p.module.regions.map((r) => ({
    name: `region "${r.name}"`,
    address: r.base,
    size: r.size,
  }));
  if (p.ringBytes > 0) wanted.push({ name: 'the rings', address: ringBase, size: p.ringBytes });
  return wanted.map((w) => {
    const d = checkInsideMemory(w, declared) as MemorySpec & { name: string };
    return {
      deviceAddress: w.address,
      fileOffset: d.fileOffset + (w.address - d.deviceAddress),
      size: w.size,
    };
  });
}

/** The device of one program: a mock laid out for it, or the mapped device. */
export function deviceFor(o: RunOptions, p: PreparedFlow, ringBase: number): Device {
  if (o.mock) return flowMock(p, ringBase);
  return openCliDevice(o, {
    engines: [...new Set(p.active.map((a) => a.engine))],
    memory: programMemory(o, p, ringBase),
    writes: true,
  });
}
