/**
 * The two narrow interfaces through which everything above talks to a device. The mock device
 * and a memory-mapped real device both implement them; nothing above knows which it has.
 */

/**
 * One register file's window (udma_m2s, udma_s2m, dge_host). Offsets are bytes from the start of
 * the window. Every access is one aligned 32-bit load or store: implementations must reject an
 * offset that is not a multiple of 4 or lies outside the window, and must never split a word.
 */
export interface RegisterIO {
  /** Size of the window in bytes. */
  readonly size: number;
  read32(offset: number): number;
  write32(offset: number, value: number): void;
}

/**
 * Byte access at device addresses (rings and data buffers). Addresses are JavaScript numbers:
 * non-negative safe integers (< 2^53), which covers every address the supported devices expose.
 */
export interface MemoryIO {
  /** Fills `dst` with the bytes at `addr`. Throws NxdmaError MEMORY_UNMAPPED if any byte is unmapped. */
  read(addr: number, dst: Uint8Array): void;
  /** Writes `src` at `addr`. Throws NxdmaError MEMORY_UNMAPPED (writing nothing) if any byte is unmapped. */
  write(addr: number, src: Uint8Array): void;
  /** True when every byte of [addr, addr + length) is mapped. */
  isMapped(addr: number, length: number): boolean;
  /**
   * Optional fast path: a live view of [addr, addr + length) when the range lies inside one backing
   * store, or undefined. Writes through the view land in device memory.
   */
  view?(addr: number, length: number): Uint8Array | undefined;
}

/** One UDMA engine's register unit: the M2S (TX) and S2M (RX) halves. */
export interface UdmaUnitIO {
  readonly engine: number;
  readonly m2s: RegisterIO;
  readonly s2m: RegisterIO;
}

/**
 * A register window over memory (a DGE core's host tables in device DRAM) may also copy bytes in
 * bulk, as the host library's table writes do. Offsets are bytes from the window start; an access
 * with any byte outside the window is refused whole.
 */
export interface BulkWindowIO {
  readBytes(offset: number, dst: Uint8Array): void;
  writeBytes(offset: number, src: Uint8Array): void;
}

/** True when a window offers bulk byte copies (BulkWindowIO). */
export function isBulkWindow(io: RegisterIO): io is RegisterIO & BulkWindowIO {
  const b = io as RegisterIO & Partial<BulkWindowIO>;
  return typeof b.readBytes === 'function' && typeof b.writeBytes === 'function';
}

/** One DGE core's host-private table window in device DRAM (the dge_host layout). */
export interface DgeCoreIO {
  readonly core: number;
  /**
   * The window at dram_base (dge_host register file). The host API writes the tables through it
   * (in bulk when it is a BulkWindowIO, else as aligned words), never through `Device.memory`.
   */
  readonly dram: RegisterIO;
  /** Device address of dram_base. */
  readonly dramBase: number;
  /** nrtucode core kind (SUNDA 2, CAYMAN 9, MARIANA 17, MARIANA_PLUS 25, MAVERICK 32). */
  readonly kind: number;
  /** Boot state; 1 is booted (the only state in which the host tables may be written). */
  readonly bootState: number;
  /**
   * Executes one 64-byte DIRECT2D descriptor on the core's Pool backend, compute_op included (seed
   * 004 §4.1). Offered by the mock's DGE core; a back end without it cannot run a destination
   * reduce, and the flow refuses such a program before writing anything.
   */
  executeDescriptor?(desc: Uint8Array): void;
}

/** A whole device as the driver sees it: UDMA units by engine id, DGE cores, DMA-visible memory. */
export interface Device {
  readonly name: string;
  /** Device profile name (for example 'trn2'). */
  readonly profile: string;
  /** True for a real mapped device: inferred registers are then refused unless the user opts in. */
  readonly isHardware: boolean;
  readonly memory: MemoryIO;
  udma(engine: number): UdmaUnitIO;
  engines(): number[];
  dgeCore(core: number): DgeCoreIO;
  dgeCores(): number[];
}

/**
 * One packet a simulated device's M2S arbiter granted, in grant order: the engine, queue, bytes,
 * descriptors, the engine-cycle interval it occupied and the queue's q_qos at the time.
 */
export interface ServiceTraceEntry {
  /** Grant order across the whole device, from 0. */
  order: number;
  engine: number;
  queue: number;
  bytes: number;
  descriptors: number;
  /** Engine cycle at which the packet started and ended (end exclusive). */
  startCycle: number;
  endCycle: number;
  /** M2S_Q[queue].dwrr_cfg_2.q_qos when the packet was granted. */
  qQos: number;
}

/** The read side of a simulated device's service trace. */
export interface ServiceTraceReader {
  /** Entries stored. */
  readonly length: number;
  /** Entries not stored (over the trace's limit, or recorded while it was off). */
  readonly dropped: number;
  /** Entry i as an object (0 <= i < length). */
  at(i: number): ServiceTraceEntry;
  /** All stored entries, optionally only those of one engine. */
  entries(filter?: { engine?: number }): ServiceTraceEntry[];
}

/**
 * An engine error a simulated device recorded: a memory fault (the engine aborts) or a queue
 * stall (a descriptor the engine refused).
 */
export interface DeviceFault {
  readonly engine: number;
  readonly half: 'm2s' | 's2m';
  readonly queue: number;
  readonly kind: string;
  /** True when the engine was aborted (memory faults); false for a queue stall. */
  readonly aborted: boolean;
  /** Faulting address (unmapped memory) or the descriptor's address. */
  readonly address: number;
  readonly message: string;
}

/**
 * What a simulated device (the mock) offers beyond `Device`: it makes progress only when told to,
 * records the engine errors it hits, and keeps a trace of what its arbiters served. A real device
 * runs by itself and offers none of it. Test for it with `isSimulated`.
 */
export interface Simulation {
  /** Moves at most one packet per engine; false when nothing can move. */
  step(): boolean;
  /** Runs every engine until nothing can move (or `maxPackets` were served); returns the packets served. */
  runUntilIdle(opts?: { maxPackets?: number }): number;
  /** Every engine error so far, engine by engine. */
  faults(): readonly DeviceFault[];
  /** The packets the M2S arbiters granted. */
  readonly serviceTrace: ServiceTraceReader;
}

/** A Device that is also a Simulation. */
export type SimulatedDevice = Device & Simulation;

/** True when a device is a simulation (not hardware, and offers every Simulation member). */
export function isSimulated(device: Device): device is SimulatedDevice {
  const s = device as Device & Partial<Simulation>;
  const t = s.serviceTrace as Partial<ServiceTraceReader> | null | undefined;
  return (
    !device.isHardware &&
    typeof s.step === 'function' &&
    typeof s.runUntilIdle === 'function' &&
    typeof s.faults === 'function' &&
    typeof t === 'object' &&
    t !== null &&
    typeof t.at === 'function' &&
    typeof t.length === 'number'
  );
}

/** The service trace a device keeps (a simulation), or null for one that keeps none (hardware). */
export function serviceTraceOf(device: Device): ServiceTraceReader | null {
  return isSimulated(device) ? device.serviceTrace : null;
}
