/**
 * dynamic_dma_scan (seed 001, pipeline order 73): a pure annotator. For every DMA-family
 * instruction whose route is still Unassigned it computes getDGEInstructionType and stamps the
 * primary route; a DMA that already has a route is left alone, so the scan is idempotent and can
 * run again to route only DMAs introduced since. Functions are visited `main` first. The route is a
 * function of the DMA's opcode, flavours and access-pattern shapes: it is computed once per such
 * key (RouteMemo) and read back for the other DMAs of that key. The walk reads and stamps the
 * instruction columns.
 */
import { DGEType, InstructionType, type DstReduce } from '../ir/enums.ts';
import { isDMAFamily, isDstReduceRoute } from '../ir/predicates.ts';
import { RouteMemo, routeFirst, routeSet } from './dge-route.ts';
import { type Pass, type PassContext, instLabel } from './pass.ts';

export const dynamicDmaScan: Pass = {
  name: 'dynamic_dma_scan',
  order: 73,
  summary: 'stamp the primary DGE route on every Unassigned DMA (getDGEInstructionType)',
  run(ctx: PassContext): void {
    const m = ctx.module;
    const { considerDescNum, considerMinElems } = m.options;
    const err = ctx.error;
    // getDGEInstructionType, computed once per opcode, flavour and shape pair
    const routes = new RouteMemo(m, considerDescNum, considerMinElems);
    let visited = 0;
    let stamped = 0;
    let alreadyRouted = 0;
    let inLoop = 0;
    const byRoute = [0, 0, 0, 0];
    const { op: ops, dgeType, eligible, dstReduce } = m.columns;
    for (const f of m.functionsMainFirst()) {
      for (const bb of f.blocks) {
        const isInLoop = bb.isLoopBody;
        const ids = bb.ids();
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i];
          const op = ops[id];
          if (
            op === InstructionType.DMACopy &&
            isDstReduceRoute(dstReduce[id] as DstReduce, dgeType[id] as DGEType)
          ) {
            // dynamic_dma.cpp:124: dst-reduce DGE is handled elsewhere in the lowering, not here
            err(
              'DST_REDUCE_DGE',
              id,
              `${instLabel(m, id)}: !isDstReduceDGE(&I): a destination-reduce DMACopy cannot carry a DGE route`,
            );
          }
          if (!isDMAFamily(op)) continue;
          visited++;
          if (isInLoop) inLoop++;
          if (dgeType[id] === DGEType.Unassigned) {
            const r = routes.routeAt(id, err);
            dgeType[id] = routeFirst(r); // the eligible set is not stamped; kept for reports only
            eligible[id] = routeSet(r);
            stamped++;
            byRoute[dgeType[id]]++;
          } else {
            alreadyRouted++;
          }
        }
      }
    }
    Object.assign(ctx.counters, {
      visited,
      stamped,
      alreadyRouted,
      none: byRoute[DGEType.None],
      swdge: byRoute[DGEType.SWDGE],
      hwdge: byRoute[DGEType.HWDGE],
      inLoopBodies: inLoop,
    });
  },
};
