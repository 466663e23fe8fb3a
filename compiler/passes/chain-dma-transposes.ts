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
 */
import { type TensorFacts, tensorFacts } from '../ir/columns.ts';
import { EdgeKind, TransposeKind } from '../ir/enums.ts';
import { type Module, addDependency } from '../ir/module.ts';
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

/**
 * The latches of chainXbarTransposeAndRemoteDMA (LastXbarTranspose, LastSBCollective,
 * LastRemoteSBPush, JustGotSBCollective, JustGotRemoteSBPush), reset at each block.
 */
interface XbarLatches {
  lastXbarTranspose: number;
  lastSBCollective: number;
  lastRemoteSBPush: number;
  justGotSBCollective: boolean;
  justGotRemoteSBPush: boolean;
}

/**
 * One instruction of chainXbarTransposeAndRemoteDMA's one-pass latch scan: the edges instruction
 * `id` gets (logged as numbers: edge, id, on) and the latches it sets.
 */
function xbarStep(
  m: Module,
  tf: TensorFacts,
  id: number,
  x: XbarLatches,
  c: XbarCounters,
  log: number[] | null,
): void {
  const { op, transpose, dstTensor } = m.columns;
  const cols = m.columns;
  const edges = m.edges;
  if (isXbarTransposeOp(op[id], transpose[id] as TransposeKind)) {
    if (x.justGotSBCollective && x.lastSBCollective !== -1) {
      addDependency(cols, edges, id, x.lastSBCollective, EdgeKind.Ordered);
      c.transposeAfterCollective++;
      x.justGotSBCollective = false; // "Resetting JustGotSBCollective after xbar transpose"
      log?.push(0, id, x.lastSBCollective);
    }
    if (x.justGotRemoteSBPush && x.lastRemoteSBPush !== -1) {
      addDependency(cols, edges, id, x.lastRemoteSBPush, EdgeKind.Ordered);
      c.transposeAfterPush++;
      x.justGotRemoteSBPush = false; // "Resetting JustGotRemoteSBPush after xbar transpose"
      log?.push(1, id, x.lastRemoteSBPush);
    }
    x.lastXbarTranspose = id;
  } else if (isSBDstCollectiveAt(m, tf, id)) {
    if (x.lastXbarTranspose !== -1) {
      addDependency(cols, edges, id, x.lastXbarTranspose, EdgeKind.Ordered);
      c.collectiveAfterTranspose++;
      log?.push(2, id, x.lastXbarTranspose);
    }
    x.lastSBCollective = id;
    x.justGotSBCollective = true;
  } else if (isRemoteSBPushOp(op[id], dstTensor[id] === -1 ? -1 : tf.mem[dstTensor[id]])) {
    if (x.lastXbarTranspose !== -1) {
      addDependency(cols, edges, id, x.lastXbarTranspose, EdgeKind.Ordered);
      c.pushAfterTranspose++;
      log?.push(3, id, x.lastXbarTranspose);
    }
    x.lastRemoteSBPush = id;
    x.justGotRemoteSBPush = true; // "Setting JustGotRemoteSBPush after remote SB DMA"
  }
}

export const chainDmaTransposes: Pass = {
  name: 'chain_dma_transposes',
  order: 125,
  summary:
    'chain same-queue transposes with Output edges; order xbar transposes against SB collectives and remote-SB pushes',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const tf = tensorFacts(m);
    const { op, transpose, queue } = m.columns;
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
    const x: XbarLatches = {
      lastXbarTranspose: -1,
      lastSBCollective: -1,
      lastRemoteSBPush: -1,
      justGotSBCollective: false,
      justGotRemoteSBPush: false,
    };
    // the run gate of ChainDMATransposes::run, above both sub-passes
    const gated = !hwdgeAvailable(m.arch);
    for (const f of gated ? [] : m.functions) {
      for (const bb of f.blocks) {
        // chainDMATransposes(bb), then chainXbarTransposeAndRemoteDMA(bb), in one walk: each
        // adds edges only to the instruction it visits, the local chain's edge first, as when the
        // two sub-passes walk the block one after the other
        gen++;
        x.lastXbarTranspose = x.lastSBCollective = x.lastRemoteSBPush = -1;
        x.justGotSBCollective = x.justGotRemoteSBPush = false;
        let hasXbar = false;
        // the xbar lines are logged as numbers and written after the block's walk
        const log: number[] | null = ctx.notes.length < 1000 ? [] : null;
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          // chainDMATransposes: an Output edge from the previous transpose on the same queue
          if (isDMAFamily(op[id]) && isTransposeOp(op[id], transpose[id] as TransposeKind)) {
            transposes++;
            if (transpose[id] === TransposeKind.xbar) hasXbar = true;
            const q = queue[id];
            if (q !== -1) {
              if (queueGen[q] === gen) {
                addDependency(m.columns, m.edges, id, lastOnQueue[q], EdgeKind.Output);
                chainEdges++;
              }
              lastOnQueue[q] = id;
              queueGen[q] = gen;
            }
          }
          // chainXbarTransposeAndRemoteDMA: the latch scan (a block without an xbar transpose
          // gets no edge from it: every edge it adds waits for or on an xbar transpose)
          xbarStep(m, tf, id, x, xc, log);
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
