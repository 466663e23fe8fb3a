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
import { type Block, type Module, addDependency } from '../ir/module.ts';
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
 * chainXbarTransposeAndRemoteDMA(bb): the one-pass latch scan over the block's instruction
 * columns. `hasXbar` says whether the block has an xbar transpose (the caller knows it from its
 * own walk; null to look).
 */
export function chainXbarTransposeAndRemoteDMA(
  m: Module,
  tf: TensorFacts,
  bb: Block,
  c: XbarCounters,
  notes: string[] | null,
  hasXbar: boolean | null = null,
): void {
  const { op, transpose, dstTensor } = m.columns;
  const ids = bb.ids();
  let any = hasXbar ?? false;
  if (hasXbar === null) {
    for (let i = 0; i < ids.length; i++) {
      if (isXbarTransposeOp(op[ids[i]], transpose[ids[i]] as TransposeKind)) {
        any = true;
        break;
      }
    }
  }
  if (!any) {
    c.skippedBlocks++; // "[xbar-transpose] Got no DMA transpose, skipping chaining"
    return;
  }
  const cols = m.columns;
  const edges = m.edges;
  let lastXbarTranspose = -1;
  let lastSBCollective = -1;
  let lastRemoteSBPush = -1;
  let justGotSBCollective = false;
  let justGotRemoteSBPush = false;
  // the lines are logged as numbers (edge, id, on) and written after the scan
  const log: number[] | null = notes === null ? null : [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const dst = dstTensor[id];
    if (isXbarTransposeOp(op[id], transpose[id] as TransposeKind)) {
      if (justGotSBCollective && lastSBCollective !== -1) {
        addDependency(cols, edges, id, lastSBCollective, EdgeKind.Ordered);
        c.transposeAfterCollective++;
        justGotSBCollective = false; // "Resetting JustGotSBCollective after xbar transpose"
        log?.push(0, id, lastSBCollective);
      }
      if (justGotRemoteSBPush && lastRemoteSBPush !== -1) {
        addDependency(cols, edges, id, lastRemoteSBPush, EdgeKind.Ordered);
        c.transposeAfterPush++;
        justGotRemoteSBPush = false; // "Resetting JustGotRemoteSBPush after xbar transpose"
        log?.push(1, id, lastRemoteSBPush);
      }
      lastXbarTranspose = id;
    } else if (isSBDstCollectiveAt(m, tf, id)) {
      if (lastXbarTranspose !== -1) {
        addDependency(cols, edges, id, lastXbarTranspose, EdgeKind.Ordered);
        c.collectiveAfterTranspose++;
        log?.push(2, id, lastXbarTranspose);
      }
      lastSBCollective = id;
      justGotSBCollective = true;
    } else if (isRemoteSBPushOp(op[id], dst === -1 ? -1 : tf.mem[dst])) {
      if (lastXbarTranspose !== -1) {
        addDependency(cols, edges, id, lastXbarTranspose, EdgeKind.Ordered);
        c.pushAfterTranspose++;
        log?.push(3, id, lastXbarTranspose);
      }
      lastRemoteSBPush = id;
      justGotRemoteSBPush = true; // "Setting JustGotRemoteSBPush after remote SB DMA"
    }
  }
  if (log !== null && notes !== null) {
    for (let k = 0; k < log.length; k += 3) {
      notes.push(
        `[xbar-transpose] Adding dependency: ${XBAR_NOTES[log[k]]}: #${log[k + 1]} #${log[k + 2]}`,
      );
    }
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
    // the run gate of ChainDMATransposes::run, above both sub-passes
    const gated = !hwdgeAvailable(m.arch);
    for (const f of gated ? [] : m.functions) {
      for (const bb of f.blocks) {
        gen++;
        let hasXbar = false;
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          if (!isDMAFamily(op[id]) || !isTransposeOp(op[id], transpose[id] as TransposeKind))
            continue;
          transposes++;
          if (transpose[id] === TransposeKind.xbar) hasXbar = true;
          const q = queue[id];
          if (q === -1) continue;
          if (queueGen[q] === gen) {
            addDependency(m.columns, m.edges, id, lastOnQueue[q], EdgeKind.Output);
            chainEdges++;
          }
          lastOnQueue[q] = id;
          queueGen[q] = gen;
        }
        const notes = ctx.notes.length < 1000 ? ctx.notes : null;
        chainXbarTransposeAndRemoteDMA(m, tf, bb, xc, notes, hasXbar);
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
