/**
 * Submitting a lowered program to its rings (docs/flow.md, "per epoch"): in program order (a loop
 * body `iterations` times), each DMA's walks are expanded into its queue's descriptor stream and
 * written by the driver's BD writer at the rings' tails. A DMA that conflicts with one of its
 * epoch (EpochHazards) starts a new epoch; a destination reduce is an epoch of its own, executed
 * by the Pool core; a walk that does not fit the room left waits for the rings to run.
 *
 * The walk over the program is synchronous: `advance()` submits until the device must run first
 * and says why (a new epoch, or a full ring); the flow awaits the drain and calls it again. Every
 * DMA is submitted from the lowering's table (compiler/lower/table.ts), no record is made.
 */
import { NxdmaError } from '../common/errors.ts';
import { PacketCut, expandWalk, type IndexValues, type Walk } from '../compiler/lower/expand.ts';
import type { DescriptorStream } from '../compiler/lower/bds.ts';
import type { LoweredProgram } from '../compiler/lower/types.ts';
import type { Module } from '../compiler/ir/module.ts';
import { encodeDgeDescriptorBytes } from '../csr/formats/dge-desc.ts';
import type { DgeCoreIO } from '../csr/io.ts';
import type { EpochHazards } from './hazards.ts';
import type { FlowQueue } from './rings.ts';

/**
 * What the device must do before advance() goes on: nothing ('done': everything is submitted),
 * run what is written and start a new epoch ('epoch': then newEpoch()), or run what is written
 * because a walk needs more room than its ring has left ('room').
 */
export type Wait = 'done' | 'epoch' | 'room';

/** A program's submission, DMA by DMA, stopping where the device must run first. */
export class Submission {
  epochs = 1;
  /** Descriptors the Pool core executed (destination reduces). */
  poolExecuted = 0;
  /** DMAs submitted (loop bodies counted per iteration). */
  done = 0;
  private epochDmas = 0;
  private lastProgress = 0;
  private readonly total: number;
  // where the walk is: block, iteration, row, and the row's next walk (-1: the row not begun)
  private b = 0;
  private it = 0;
  private d: number;
  private k = -1;
  /** The queue whose stream the walk being expanded goes to (null between walks), and where. */
  private openQueue: FlowQueue | null = null;
  private openAt = 0;
  /** Per queue index: the ring's room after the queue's pairs not written yet. */
  private readonly avail: Float64Array;
  /** The rings ran for the walk at (d, k) already: if it still does not fit, it never will. */
  private drained = false;

  constructor(
    private readonly m: Module,
    private readonly low: LoweredProgram,
    private readonly fqByQueue: (FlowQueue | undefined)[],
    private readonly hazards: EpochHazards,
    private readonly pool: DgeCoreIO | null,
    private readonly indexValues: (w: Walk) => IndexValues | null,
    private readonly onProgress: ((done: number, total: number) => void) | undefined,
    /** Gather each queue's walks before writing them (false: write each walk as it is made). */
    private readonly gather = true,
  ) {
    this.total = low.totals.executed;
    this.avail = new Float64Array(fqByQueue.length);
    this.d = low.blocks.length > 0 ? low.blocks[0].first : 0;
  }

  /** A new epoch: what was written has run. */
  newEpoch(): void {
    this.hazards.clear();
    this.epochs++;
    this.epochDmas = 0;
  }

  /**
   * Submits from where it stopped until everything is written or the device must run first. Each
   * queue's walks gather in its descriptor stream and are written at its ring tails in one go:
   * before the device runs (every return), when the ring's room is in question, every 256 DMAs
   * (where onProgress reports) and before an error leaves; the rings then hold what writing walk
   * by walk leaves in them.
   */
  advance(): Wait {
    try {
      const w = this.submit();
      this.flushAll();
      return w;
    } catch (e) {
      if (!this.gather) throw e;
      // the walk being expanded when it failed is not written
      const open = this.openQueue;
      if (open !== null) open.stream.length = this.openAt;
      this.openQueue = null;
      try {
        this.flushAll();
      } catch {
        // the first error stands
      }
      throw e;
    }
  }

  /** Writes each queue's gathered pairs at its ring tails. */
  private flushAll(): void {
    for (const fq of this.fqByQueue) if (fq !== undefined) flush(fq);
  }

  /** advance() without the last writes. */
  private submit(): Wait {
    const blocks = this.low.blocks;
    const t = this.low.table;
    const hazards = this.hazards;
    // each queue's room after its pairs not written yet (none are at the start)
    const avail = this.avail;
    for (let q = 0; q < avail.length; q++) {
      const fq = this.fqByQueue[q];
      avail[q] = fq !== undefined ? fq.room : 0;
    }
    // the position as locals, saved where the walk stops
    let b = this.b;
    let it = this.it;
    let d = this.d;
    let k = this.k;
    for (; b < blocks.length; b++, it = 0, d = b < blocks.length ? blocks[b].first : 0) {
      const blk = blocks[b];
      const end = blk.first + blk.count;
      for (; it < blk.iterations; it++, d = blk.first) {
        for (; d < end; d++) {
          const qi = t.queue[d];
          if (k < 0) {
            if (t.reduce[d] !== 0) {
              // B op= A: an epoch of its own (reduceRow)
              if (this.epochDmas > 0) return this.stop(b, it, d, k, 'epoch');
              this.reduceRow(d);
              continue;
            }
            if (this.epochDmas > 0 && hazards.conflictsAt(qi, t, d))
              return this.stop(b, it, d, k, 'epoch');
            hazards.addAt(qi, t, d);
            this.epochDmas++;
            k = 0;
          }
          const fq = this.fqByQueue[qi]!;
          const stream = fq.stream;
          const packetBytes = t.packetBytes[d];
          const walks = t.walksOf(d);
          for (; k < walks; k++) {
            const n = t.piecesOf(d, k);
            // the room the ring has after the queue's pairs not written yet; written, the ring's
            if (avail[qi] < n) {
              flush(fq);
              avail[qi] = fq.room;
              if (avail[qi] < n) {
                // the ring is full: hand over what is written, let everything run, continue
                if (!this.drained) {
                  this.drained = true;
                  return this.stop(b, it, d, k, 'room');
                }
                throw this.ringFull(fq, qi, n);
              }
            }
            this.drained = false;
            // the lowering's descriptor stream of the walk, after the queue's pairs not written yet
            this.openQueue = fq;
            this.openAt = stream.length;
            stream.begin(n);
            // a compact row's pieces are its plan's, moved (table.ts movePieces); else its walk
            if (packetBytes > 0 || !t.movePieces(d, k, stream))
              this.expand(d, k, packetBytes, stream);
            stream.end();
            this.openQueue = null;
            avail[qi] -= n;
            if (!this.gather) flush(fq);
          }
          k = -1;
          this.progress();
        }
      }
    }
    return this.stop(b, it, d, k, 'done');
  }

  /** Expands walk k of row d into `stream` (cut into packets of `packetBytes` when > 0). */
  private expand(d: number, k: number, packetBytes: number, stream: DescriptorStream): void {
    const walk = this.low.table.walk(d, k);
    expandWalk(
      walk,
      packetBytes > 0 ? new PacketCut(stream, packetBytes) : stream,
      walk.type === 'affine' ? null : this.indexValues(walk),
    );
  }

  /**
   * B op= A, row d: the Pool core executes the DIRECT2D descriptors itself, after everything
   * before it has landed (the caller has ended the epoch before it).
   */
  private reduceRow(d: number): void {
    this.flushAll();
    const reduce = this.low.table.reduceOf(d);
    for (const x of reduce) this.pool!.executeDescriptor!(encodeDgeDescriptorBytes(x));
    this.poolExecuted += reduce.length;
    this.done++; // onProgress reports ring DMAs only
  }

  /**
   * The error for a walk of `n` pairs that queue qi's ring cannot hold even once it has run, after
   * writing what is gathered.
   */
  private ringFull(fq: FlowQueue, qi: number, n: number): NxdmaError {
    this.flushAll();
    return new NxdmaError(
      'RING_FULL',
      `queue "${this.m.queues[qi].name}": ${n} descriptors do not fit a ring of ${fq.size}`,
      {
        where: `udma${fq.placement.engine} queue ${fq.placement.qid}`,
        expected: `<= ${fq.size} descriptors per program`,
        actual: n,
      },
    );
  }

  /** Saves where the walk stopped. */
  private stop(b: number, it: number, d: number, k: number, w: Wait): Wait {
    this.b = b;
    this.it = it;
    this.d = d;
    this.k = k;
    return w;
  }

  /** One more DMA submitted: every 256 of them and at the last, the pairs written and onProgress. */
  private progress(): void {
    const done = ++this.done;
    if (done - this.lastProgress >= 256 || done === this.total) {
      this.lastProgress = done;
      this.flushAll();
      if (this.onProgress) this.onProgress(done, this.total);
    }
  }
}

/** Writes a queue's gathered pairs at its ring tails (the driver's BD writer) and empties them. */
function flush(fq: FlowQueue): void {
  const s = fq.stream;
  if (s.length === 0) return;
  try {
    fq.write(s);
  } finally {
    s.clear();
  }
}
