/**
 * The sums lower() reports of its table's rows (lower.ts): per queue, per backend and in all.
 */
import { BACKENDS } from './backend.ts';
import type { DmaTable } from './table.ts';
import type { QueueExecution } from './types.ts';

/**
 * What lower() reports of its rows: per queue (by index), per backend (by BACKENDS index), in all.
 * Every sum is a typed-array element, so the loop over the rows is all the hot code there is (a
 * field store after the loop, reached only from optimized code, would have no type feedback and
 * drop that code every program).
 */
export class RowSums {
  readonly count: Float64Array;
  readonly descriptors: Float64Array;
  readonly bytes: Float64Array;
  /** The largest BD count of one walk of a queue's copies (a destination reduce's are the Pool's). */
  readonly maxWalk: Float64Array;
  readonly perBackend = new Float64Array(BACKENDS.length);
  /** DMAs, DGE descriptors, descriptors and bytes executed (loop bodies once per iteration). */
  readonly all = new Float64Array(4);
  /** Per queue: BD pairs, bytes and DMAs executed (loop bodies once per iteration). */
  readonly executed: QueueExecution;
  /** Per queue: the DMAs, BD pairs and bytes of the block being added (scratch of add). */
  private readonly blockCount: Float64Array;
  private readonly blockDescs: Float64Array;
  private readonly blockBytes: Float64Array;

  constructor(queues: number) {
    this.count = new Float64Array(queues);
    this.descriptors = new Float64Array(queues);
    this.bytes = new Float64Array(queues);
    this.maxWalk = new Float64Array(queues);
    this.blockCount = new Float64Array(queues);
    this.blockDescs = new Float64Array(queues);
    this.blockBytes = new Float64Array(queues);
    this.executed = {
      descriptors: new Float64Array(queues),
      bytes: new Float64Array(queues),
      dmas: new Float64Array(queues),
    };
  }

  /**
   * Adds rows first..end-1 of `t`, of a block run `iterations` times: the rows' sums per queue
   * (DMAs, BD pairs, bytes) in the block's scratch first, then each executed sum as `iterations`
   * times the block's (integers, so the products are the per-row sums exactly).
   */
  add(t: DmaTable, first: number, end: number, iterations: number): void {
    // the sums and the table's columns in locals: the row loop reads typed arrays only
    const { all, count, descriptors, bytes, maxWalk, perBackend } = this;
    const { blockCount: bc, blockDescs: bd, blockBytes: bb } = this;
    const { descriptors: qDescs, bytes: qBytes, dmas: qDmas } = this.executed;
    const { queue, reduce, backend, dgeDescriptors } = t;
    const rowDescs = t.descriptors;
    const rowBytes = t.bytes;
    const rowMaxWalk = t.maxWalk;
    bc.fill(0);
    bd.fill(0);
    bb.fill(0);
    let dge = 0;
    for (let d = first; d < end; d++) {
      const q = queue[d];
      bc[q]++;
      bd[q] += rowDescs[d];
      bb[q] += rowBytes[d];
      if (reduce[d] === 0 && rowMaxWalk[d] > maxWalk[q]) maxWalk[q] = rowMaxWalk[d];
      perBackend[backend[d]]++;
      dge += dgeDescriptors[d];
    }
    all[1] += dge;
    for (let q = 0; q < bc.length; q++) {
      if (bc[q] === 0) continue;
      count[q] += bc[q];
      descriptors[q] += bd[q];
      bytes[q] += bb[q];
      all[0] += bc[q] * iterations;
      all[2] += bd[q] * iterations;
      all[3] += bb[q] * iterations;
      qDescs[q] += bd[q] * iterations;
      qBytes[q] += bb[q] * iterations;
      qDmas[q] += bc[q] * iterations;
    }
  }
}
