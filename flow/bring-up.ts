/**
 * Engine bring-up and ring layout, once for every caller that sets up queues on a Device: the
 * compile-to-ring flow, the QoS scenario runner, the scale bench and test. Every engine named by
 * a queue is brought up through the driver (UdmaEngine.bringUp, the public driver's order), then
 * every queue gets a TX ring and an RX ring laid out one after the other from `base`, in the
 * order the queues are given (initQueue validates each ring against the device's memory).
 *
 *   const up = bringUpQueues(dev, [{ engine: 0, queue: 0, size: 256 }], { base: 0x2000_0000 });
 *   up.queues[0].copy(src, dst, 4096);
 */
import { BD_SIZE } from '../csr/formats/bd.ts';
import type { Device } from '../csr/io.ts';
import { UdmaEngine } from '../driver/udma/engine.ts';
import type { UdmaQueue } from '../driver/udma/queue.ts';
import type { RingSpec } from '../driver/udma/ring.ts';
import type { RegisterShadow } from '../driver/udma/shadow.ts';

/** One queue to set up: its engine, queue number and ring size in descriptors (TX and RX alike). */
export interface QueueRingSpec {
  engine: number;
  queue: number;
  size: number;
}

export interface BringUpQueuesOptions {
  /** Device address of the first ring (256-byte aligned; the rings follow one another). */
  base: number;
  /** Write registers holding inferred facts during bring-up (a real boolean; default false). */
  allowInferred?: boolean;
  /** Register shadow of every engine. Default: the device's own. */
  shadow?: RegisterShadow;
  /** M2S_rd.desc_pref_cfg_2.max_desc_per_pkt written by bring-up (BringUpOptions). */
  maxDescPerPkt?: number;
  /**
   * Engines to bring up first, in this order, queues or not (an engine the queues name and this
   * list lacks is brought up after them). Default: the engines the queues name.
   */
  engines?: readonly number[];
}

export interface BroughtUpQueues {
  /** Every engine brought up, by engine id, in bring-up order. */
  engines: Map<number, UdmaEngine>;
  /** The initialized queues, in the order of the specs. */
  queues: UdmaQueue[];
  /** Bytes of memory the rings take from `base`. */
  bytes: number;
}

/** Bytes of memory the rings of `sizes` take (a TX and an RX ring per queue). */
export function ringBytes(sizes: readonly number[]): number {
  let n = 0;
  for (const s of sizes) n += 2 * s * BD_SIZE;
  return n;
}

/** The TX and RX rings of each queue of `sizes`, laid out one after the other from `base`. */
export function layRings(base: number, sizes: readonly number[]): { tx: RingSpec; rx: RingSpec }[] {
  let addr = base;
  return sizes.map((size) => {
    const tx = { base: addr, size };
    addr += size * BD_SIZE;
    const rx = { base: addr, size };
    addr += size * BD_SIZE;
    return { tx, rx };
  });
}

/**
 * Brings up every engine of `opts.engines` and every engine the queues name (in order of first
 * appearance), then initializes each
 * queue on its laid-out rings. Throws what UdmaEngine throws (an engine the device lacks, a ring
 * outside mapped memory or overlapping another, an inferred register without allowInferred).
 */
export function bringUpQueues(
  device: Device,
  specs: readonly QueueRingSpec[],
  opts: BringUpQueuesOptions,
): BroughtUpQueues {
  const engines = new Map<number, UdmaEngine>();
  for (const id of [...(opts.engines ?? []), ...specs.map((s) => s.engine)]) {
    if (engines.has(id)) continue;
    const e = new UdmaEngine(device, id, {
      allowInferred: opts.allowInferred,
      shadow: opts.shadow,
    });
    e.bringUp(opts.maxDescPerPkt === undefined ? {} : { maxDescPerPkt: opts.maxDescPerPkt });
    engines.set(id, e);
  }
  const sizes = specs.map((s) => s.size);
  const rings = layRings(opts.base, sizes);
  const queues = specs.map((s, i) => engines.get(s.engine)!.initQueue(s.queue, rings[i]));
  return { engines, queues, bytes: ringBytes(sizes) };
}
