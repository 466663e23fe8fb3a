/**
 * chain_dma_transposes (seed 003, pipeline order 125). The run gate sits in ChainDMATransposes::run,
 * above both sub-passes: "for each Function: // run gate reads Func→[…]→[0xAC]==0x1D", the arch
 * compare the seeds use for "the xbar / HWDGE exists" (ArchLevel > 29). Below it the pass does
 * nothing. Above it, per basic block in program order:
 *  - chainDMATransposes: each transpose DMA depends (EdgeKind Output) on the previous transpose on
 *    the same queue in the block, so a queue's transposes form one ordered chain and reuse one warm
 *    descriptor context. The seed's prose, not its pseudo-code, is followed here
 *    (docs/compiler.md "chain_dma_transposes").
 *  - chainXbarTransposeAndRemoteDMA: orders cross-bar
 *    transposes against SB-destination collectives and remote-SB pushes in both directions with
 *    EdgeKind Ordered edges: a transpose waits for the collective / push latched since the previous
 *    transpose; a collective / push waits for the last transpose.
 * Both sub-passes add edges only to the instruction they visit, so they share one walk of the
 * block: at each instruction the local chain's step, then the latch scan's, which gives every
 * instruction the edges, in the order, of the two walks one after the other.
 */
import { tensorFacts } from '../ir/columns.ts';
import { EdgeKind, TransposeKind } from '../ir/enums.ts';
import { addDependency } from '../ir/module.ts';
import {
  isDMAFamily,
  isRemoteSBPushOp,
  isSBDstCollectiveAt,
  isTransposeOp,
  isXbarTransposeOp,
} from '../ir/predicates.ts';
import { hwdgeAvailable } from '../ir/target.ts';
import type { Pass, PassContext } from './pass.ts';

export interface XbarCounters {
  transposeAfterCollective: number;
  transposeAfterPush: number;
  collectiveAfterTranspose: number;
  pushAfterTranspose: number;
  skippedBlocks: number;
}

/** The seed's diagnostic lines of the four xbar edges, by the edge's index in a note log. */
const XBAR_NOTES = [
  'xbar transpose -> SB collective',
  'xbar transpose -> sb DMA',
  'sb collective -> xbar transpose',
  'sb DMA -> xbar transpose',
];

export const chainDmaTransposes: Pass = {
  name: 'chain_dma_transposes',
  order: 125,
  summary:
    'chain same-queue transposes with Output edges; order xbar transposes against SB collectives and remote-SB pushes',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const tf = tensorFacts(m);
    const cols = m.columns;
    const edges = m.edges;
    const { op, transpose, queue, dstTensor } = cols;
    const lastOnQueue = new Int32Array(m.queues.length).fill(-1);
    const queueGen = new Int32Array(m.queues.length);
    let gen = 0;
    let transposes = 0;
    let chainEdges = 0;
    const xc: XbarCounters = {
      transposeAfterCollective: 0,
      transposeAfterPush: 0,
      collectiveAfterTranspose: 0,
      pushAfterTranspose: 0,
      skippedBlocks: 0,
    };
    // the run gate of ChainDMATransposes::run, above both sub-passes
    const gated = !hwdgeAvailable(m.arch);
    for (const f of gated ? [] : m.functions) {
      for (const bb of f.blocks) {
        // chainDMATransposes(bb), then chainXbarTransposeAndRemoteDMA(bb), in one walk: each adds
        // edges only to the instruction it visits, the local chain's edge first, as when the two
        // sub-passes walk the block one after the other
        gen++;
        let hasXbar = false;
        // chainXbarTransposeAndRemoteDMA's latches, from the block's start
        let lastXbarTranspose = -1;
        let lastSBCollective = -1;
        let lastRemoteSBPush = -1;
        let justGotSBCollective = false;
        let justGotRemoteSBPush = false;
        // its lines are logged as numbers (edge, id, on) and written after the block's walk
        const log: number[] | null = ctx.notes.length < 1000 ? [] : null;
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          const o = op[id];
          const tk = transpose[id] as TransposeKind;
          // chainDMATransposes: an Output edge from the previous transpose on the same queue
          if (isDMAFamily(o) && isTransposeOp(o, tk)) {
            transposes++;
            if (tk === TransposeKind.xbar) hasXbar = true;
            const q = queue[id];
            if (q !== -1) {
              if (queueGen[q] === gen) {
                addDependency(cols, edges, id, lastOnQueue[q], EdgeKind.Output);
                chainEdges++;
              }
              lastOnQueue[q] = id;
              queueGen[q] = gen;
            }
          }
          // chainXbarTransposeAndRemoteDMA: the latch scan (in a block without an xbar transpose
          // it adds no edge: each of its edges waits for, or on, an xbar transpose)
          if (isXbarTransposeOp(o, tk)) {
            if (justGotSBCollective && lastSBCollective !== -1) {
              addDependency(cols, edges, id, lastSBCollective, EdgeKind.Ordered);
              xc.transposeAfterCollective++;
              justGotSBCollective = false; // "Resetting JustGotSBCollective after xbar transpose"
              log?.push(0, id, lastSBCollective);
            }
            if (justGotRemoteSBPush && lastRemoteSBPush !== -1) {
              addDependency(cols, edges, id, lastRemoteSBPush, EdgeKind.Ordered);
              xc.transposeAfterPush++;
              justGotRemoteSBPush = false; // "Resetting JustGotRemoteSBPush after xbar transpose"
              log?.push(1, id, lastRemoteSBPush);
            }
            lastXbarTranspose = id;
          } else if (isSBDstCollectiveAt(m, tf, id)) {
            if (lastXbarTranspose !== -1) {
              addDependency(cols, edges, id, lastXbarTranspose, EdgeKind.Ordered);
              xc.collectiveAfterTranspose++;
              log?.push(2, id, lastXbarTranspose);
            }
            lastSBCollective = id;
            justGotSBCollective = true;
          } else if (isRemoteSBPushOp(o, dstTensor[id] === -1 ? -1 : tf.mem[dstTensor[id]])) {
            if (lastXbarTranspose !== -1) {
              addDependency(cols, edges, id, lastXbarTranspose, EdgeKind.Ordered);
              xc.pushAfterTranspose++;
              log?.push(3, id, lastXbarTranspose);
            }
            lastRemoteSBPush = id;
            justGotRemoteSBPush = true; // "Setting JustGotRemoteSBPush after remote SB DMA"
          }
        }
        // "[xbar-transpose] Got no DMA transpose, skipping chaining"
        if (!hasXbar) xc.skippedBlocks++;
        if (log !== null) {
          for (let k = 0; k < log.length; k += 3) {
            ctx.notes.push(
              `[xbar-transpose] Adding dependency: ${XBAR_NOTES[log[k]]}: #${log[k + 1]} #${log[k + 2]}`,
            );
          }
        }
      }
    }
    if (gated) ctx.notes.push(`ArchLevel ${m.arch} <= 29: chain_dma_transposes does not run`);
    Object.assign(ctx.counters, {
      gated: gated ? 1 : 0,
      transposes,
      chainEdges,
      xbarEdges:
        xc.transposeAfterCollective +
        xc.transposeAfterPush +
        xc.collectiveAfterTranspose +
        xc.pushAfterTranspose,
      ...xc,
    });
  },
};
