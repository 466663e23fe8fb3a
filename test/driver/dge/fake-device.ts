/**
 * A tiny in-test Device for the DGE host API: one flat memory (MemoryIO over a Uint8Array that
 * records every access) and DGE cores with a dram window inside it. Not the mock device.
 */
import { NxdmaError } from '../../../common/errors.ts';
import type { DgeCoreIO, Device, MemoryIO, RegisterIO, UdmaUnitIO } from '../../../csr/io.ts';

export interface Access {
  op: 'read' | 'write';
  addr: number;
  length: number;
}

export class FakeMemory implements MemoryIO {
  readonly bytes: Uint8Array;
  readonly log: Access[] = [];
  constructor(
    readonly base: number,
    size: number,
  ) {
    this.bytes = new Uint8Array(size);
  }
  isMapped(addr: number, length: number): boolean {
    return addr >= this.base && addr + length <= this.base + this.bytes.length;
  }
  private check(addr: number, length: number): void {
    if (!this.isMapped(addr, length)) {
      throw new NxdmaError('MEMORY_UNMAPPED', `fake memory: [${addr}, +${length}) is unmapped`, {
        where: String(addr),
      });
    }
  }
  read(addr: number, dst: Uint8Array): void {
    this.check(addr, dst.length);
    this.log.push({ op: 'read', addr, length: dst.length });
    dst.set(this.bytes.subarray(addr - this.base, addr - this.base + dst.length));
  }
  write(addr: number, src: Uint8Array): void {
    this.check(addr, src.length);
    this.log.push({ op: 'write', addr, length: src.length });
    this.bytes.set(src, addr - this.base);
  }
  writes(): Access[] {
    return this.log.filter((a) => a.op === 'write');
  }
}

class WindowIO implements RegisterIO {
  constructor(
    private readonly mem: FakeMemory,
    private readonly at: number,
    readonly size: number,
  ) {}
  read32(offset: number): number {
    const b = new Uint8Array(4);
    this.mem.read(this.at + offset, b);
    return new DataView(b.buffer).getUint32(0, true);
  }
  write32(offset: number, value: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value >>> 0, true);
    this.mem.write(this.at + offset, b);
  }
  readBytes(offset: number, dst: Uint8Array): void {
    this.mem.read(this.at + offset, dst);
  }
  writeBytes(offset: number, src: Uint8Array): void {
    this.mem.write(this.at + offset, src);
  }
}

export interface FakeCoreSpec {
  kind: number;
  bootState?: number;
  dramBase?: number;
}

export function fakeDevice(
  cores: FakeCoreSpec[],
  memBase = 0x1_0000_0000,
  memSize = 0x1000,
): {
  device: Device;
  memory: FakeMemory;
  cores: DgeCoreIO[];
} {
  const memory = new FakeMemory(memBase, memSize);
  const coreIOs: DgeCoreIO[] = cores.map((c, i) => {
    const dramBase = c.dramBase ?? memBase + i * 0x100;
    return {
      core: i,
      dram: new WindowIO(memory, dramBase, 0x40),
      dramBase,
      kind: c.kind,
      bootState: c.bootState ?? 1,
    };
  });
  const device: Device = {
    name: 'fake',
    profile: 'test',
    isHardware: false,
    memory,
    udma(engine: number): UdmaUnitIO {
      throw new NxdmaError('BAD_ARGUMENT', `fake device has no engine ${engine}`);
    },
    engines: () => [],
    dgeCore(core: number): DgeCoreIO {
      const c = coreIOs[core];
      if (!c)
        throw new NxdmaError('BAD_ARGUMENT', `fake device has no DGE core ${core}`, {
          where: 'core',
        });
      return c;
    },
    dgeCores: () => coreIOs.map((c) => c.core),
  };
  return { device, memory, cores: coreIOs };
}
