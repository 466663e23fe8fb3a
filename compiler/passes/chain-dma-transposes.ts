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
import { EdgeKind, TransposeKind } from '../ir/enums.ts';
import type { Block, Instr } from '../ir/module.ts';
import {
  isDMAFamily,
  isRemoteSBPush,
  isSBDstCollective,
  isTransposeDMA,
  isXbarTransposeDMA,
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

/**
 * chainXbarTransposeAndRemoteDMA(bb): the one-pass latch scan. `hasXbar` says whether the block
 * has an xbar transpose (the caller knows it from its own walk; null to look).
 */
export function chainXbarTransposeAndRemoteDMA(
  bb: Block,
  c: XbarCounters,
  notes: string[] | null,
  hasXbar: boolean | null = null,
): void {
  let any = hasXbar ?? false;
  if (hasXbar === null) {
    const instrs = bb.instrs;
    for (let i = 0; i < instrs.length; i++) {
      const I = instrs[i];
      if (isXbarTransposeDMA(I)) {
        any = true;
        break;
      }
    }
  }
  if (!any) {
    c.skippedBlocks++; // "[xbar-transpose] Got no DMA transpose, skipping chaining"
    return;
  }
  let lastXbarTranspose: Instr | null = null;
  let lastSBCollective: Instr | null = null;
  let lastRemoteSBPush: Instr | null = null;
  let justGotSBCollective = false;
  let justGotRemoteSBPush = false;
  const instrs = bb.instrs;
  for (let i = 0; i < instrs.length; i++) {
    const I = instrs[i];
    if (isXbarTransposeDMA(I)) {
      if (justGotSBCollective && lastSBCollective !== null) {
        I.addDependency(lastSBCollective.id, EdgeKind.Ordered);
        c.transposeAfterCollective++;
        justGotSBCollective = false; // "Resetting JustGotSBCollective after xbar transpose"
        notes?.push(
          `[xbar-transpose] Adding dependency: xbar transpose -> SB collective: #${I.id} #${lastSBCollective.id}`,
        );
      }
      if (justGotRemoteSBPush && lastRemoteSBPush !== null) {
        I.addDependency(lastRemoteSBPush.id, EdgeKind.Ordered);
        c.transposeAfterPush++;
        justGotRemoteSBPush = false; // "Resetting JustGotRemoteSBPush after xbar transpose"
        notes?.push(
          `[xbar-transpose] Adding dependency: xbar transpose -> sb DMA: #${I.id} #${lastRemoteSBPush.id}`,
        );
      }
      lastXbarTranspose = I;
    } else if (isSBDstCollective(I)) {
      if (lastXbarTranspose !== null) {
        I.addDependency(lastXbarTranspose.id, EdgeKind.Ordered);
        c.collectiveAfterTranspose++;
        notes?.push(
          `[xbar-transpose] Adding dependency: sb collective -> xbar transpose: #${I.id} #${lastXbarTranspose.id}`,
        );
      }
      lastSBCollective = I;
      justGotSBCollective = true;
    } else if (isRemoteSBPush(I)) {
      if (lastXbarTranspose !== null) {
        I.addDependency(lastXbarTranspose.id, EdgeKind.Ordered);
        c.pushAfterTranspose++;
        notes?.push(
          `[xbar-transpose] Adding dependency: sb DMA -> xbar transpose: #${I.id} #${lastXbarTranspose.id}`,
        );
      }
      lastRemoteSBPush = I;
      justGotRemoteSBPush = true; // "Setting JustGotRemoteSBPush after remote SB DMA"
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
    const lastOnQueue = new Array<Instr | null>(m.queues.length).fill(null);
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
        const instrs = bb.instrs;
        for (let i = 0; i < instrs.length; i++) {
          const I = instrs[i];
          if (!isDMAFamily(I.op) || !isTransposeDMA(I)) continue;
          transposes++;
          if (I.transpose === TransposeKind.xbar) hasXbar = true;
          const q = I.queue;
          if (q === null) continue;
          if (queueGen[q.index] === gen) {
            I.addDependency(lastOnQueue[q.index]!.id, EdgeKind.Output);
            chainEdges++;
          }
          lastOnQueue[q.index] = I;
          queueGen[q.index] = gen;
        }
        chainXbarTransposeAndRemoteDMA(bb, xc, ctx.notes.length < 1000 ? ctx.notes : null, hasXbar);
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
