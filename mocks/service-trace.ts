/**
 * The service trace: one entry per packet the mock's M2S arbiter granted, in grant order, with the
 * engine, queue, bytes, descriptors, the engine-cycle interval it occupied, the queue's q_qos
 * at the time and the pipeline stage that decided the grant. Tests use it to check
 * arbitration; tools draw timelines from it.
 *
 * Stored column-wise in typed arrays that grow by doubling, so recording a packet allocates
 * nothing in the steady state. Entries beyond `limit` are counted in `dropped`, not stored.
 */
import { SERVICE_STAGES, type ServiceTraceEntry, type ServiceTraceReader } from '../csr/io.ts';
import { grown } from '../common/typed-arrays.ts';

export type { ServiceTraceEntry } from '../csr/io.ts';

export class ServiceTrace implements ServiceTraceReader {
  /** Largest number of entries kept. */
  limit: number;
  /** Entries not stored because the limit was reached (or recording was off). */
  dropped = 0;
  /** When false, nothing is recorded (the order counter still advances). */
  enabled: boolean;
  private n = 0;
  private nextOrder = 0;
  private cap = 0;
  private order = new Float64Array(0);
  private engine = new Int32Array(0);
  private queue = new Uint8Array(0);
  private bytes = new Float64Array(0);
  private descs = new Uint32Array(0);
  private start = new Float64Array(0);
  private end = new Float64Array(0);
  private qos = new Uint8Array(0);
  private stage = new Uint8Array(0);

  constructor(opts: { enabled?: boolean; limit?: number } = {}) {
    this.enabled = opts.enabled ?? true;
    this.limit = opts.limit ?? 1_000_000;
  }

  get length(): number {
    return this.n;
  }

  record(
    engine: number,
    queue: number,
    bytes: number,
    descriptors: number,
    startCycle: number,
    endCycle: number,
    qQos: number,
    /** Index in SERVICE_STAGES (default: scheduler). */
    stage = 1,
  ): void {
    const order = this.nextOrder++;
    if (!this.enabled || this.n >= this.limit) {
      this.dropped++;
      return;
    }
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.order[i] = order;
    this.engine[i] = engine;
    this.queue[i] = queue;
    this.bytes[i] = bytes;
    this.descs[i] = descriptors;
    this.start[i] = startCycle;
    this.end[i] = endCycle;
    this.qos[i] = qQos;
    this.stage[i] = stage;
  }

  /** True when `record` stores an entry now (recording on, below the limit). */
  get storing(): boolean {
    return this.enabled && this.n < this.limit;
  }

  /**
   * What `n` calls of `record` do while it stores nothing (`storing` false): the order counter
   * advances and the entries count as dropped.
   */
  skip(n: number): void {
    this.nextOrder += n;
    this.dropped += n;
  }

  /** Entry i as an object (0 <= i < length). */
  at(i: number): ServiceTraceEntry {
    return {
      order: this.order[i],
      engine: this.engine[i],
      queue: this.queue[i],
      bytes: this.bytes[i],
      descriptors: this.descs[i],
      startCycle: this.start[i],
      endCycle: this.end[i],
      qQos: this.qos[i],
      stage: SERVICE_STAGES[this.stage[i]],
    };
  }

  /** All stored entries, optionally only those of one engine. */
  entries(filter: { engine?: number } = {}): ServiceTraceEntry[] {
    const out: ServiceTraceEntry[] = [];
    for (let i = 0; i < this.n; i++) {
      if (filter.engine !== undefined && this.engine[i] !== filter.engine) continue;
      out.push(this.at(i));
    }
    return out;
  }

  /** Bytes served per queue of one engine (index = queue), over the stored entries. */
  bytesPerQueue(engine: number, queues = 16): number[] {
    const out = new Array<number>(queues).fill(0);
    for (let i = 0; i < this.n; i++)
      if (this.engine[i] === engine) out[this.queue[i]] += this.bytes[i];
    return out;
  }

  /** Packets served per queue of one engine (index = queue), over the stored entries. */
  packetsPerQueue(engine: number, queues = 16): number[] {
    const out = new Array<number>(queues).fill(0);
    for (let i = 0; i < this.n; i++) if (this.engine[i] === engine) out[this.queue[i]]++;
    return out;
  }

  clear(): void {
    this.n = 0;
    this.dropped = 0;
    this.nextOrder = 0;
  }

  private grow(): void {
    const cap = Math.min(Math.max(this.cap * 2, 1024), Math.max(this.limit, 1));
    this.order = grown(this.order, cap);
    this.engine = grown(this.engine, cap);
    this.queue = grown(this.queue, cap);
    this.bytes = grown(this.bytes, cap);
    this.descs = grown(this.descs, cap);
    this.start = grown(this.start, cap);
    this.end = grown(this.end, cap);
    this.qos = grown(this.qos, cap);
    this.stage = grown(this.stage, cap);
    this.cap = cap;
  }
}
