/**
 * dynamic_dma_cleanup (seed 001, pipeline order 71, and again as nxdma's final verify after 126):
 * not a memory teardown but the consistency check of DGE routing and HWDGE engine binding, plus the
 * feature-flag stripper. Three checks per DMA-family instruction, flat over the module:
 *  (A) a DGE route with DGE disabled is an error, and with DGE disabled every route becomes None;
 *  (B) a dynamic-AP DMA's route must still be in the eligible set getDGEInstructionType returns
 *      (an assertion the predicate raises is reported alone: the real compiler stops there);
 *  (C) an HWDGE DMA with an engine set must be on SP or Activation.
 */
import type { PassName } from '../errors.ts';
import {
  DGEType,
  DGE_TYPE_NAMES,
  ENGINE_TYPE_NAMES,
  EngineType,
  dgeSetNames,
} from '../ir/enums.ts';
import { hasDynamicAPAt } from '../ir/columns.ts';
import { isDMAFamily, isHWDGEWithEngineSet } from '../ir/predicates.ts';
import { RouteMemo, routeSet } from './dge-route.ts';
import { type Pass, type PassContext, instLabel } from './pass.ts';

function runCleanup(ctx: PassContext): void {
  const m = ctx.module;
  const dgeEnabled = m.options.dgeEnabled;
  const { considerDescNum, considerMinElems } = m.options;
  const routes = new RouteMemo(m, considerDescNum, considerMinElems);
  const { op, dgeType, engine } = m.columns;
  let visited = 0;
  let stripped = 0;
  let routesChecked = 0;
  let enginesChecked = 0;
  let asserted = 0;
  for (const f of m.functions) {
    for (const bb of f.blocks) {
      const ids = bb.ids();
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        if (!isDMAFamily(op[id])) continue;
        visited++;
        // (A) feature guard
        const route = dgeType[id] as DGEType;
        if ((route === DGEType.SWDGE || route === DGEType.HWDGE) && !dgeEnabled) {
          ctx.error(
            'DGE_NOT_ENABLED',
            id,
            `${instLabel(m, id)}: Input uses DGE (${DGE_TYPE_NAMES[route]}) but DGE is not enabled at Walrus`,
          );
        }
        if (!dgeEnabled) {
          if (dgeType[id] !== DGEType.None) stripped++;
          dgeType[id] = DGEType.None;
        }
        // (B) route validity
        if (hasDynamicAPAt(m.columns, id) && dgeType[id] !== DGEType.Unassigned) {
          routesChecked++;
          const before = ctx.errors.length;
          const valid = routeSet(routes.routeAt(id, ctx.error));
          // A NeuronAssertion inside getDGEInstructionType (TensorIndirect AP, dynamic transpose
          // shape, "DMA Instruction with dynamic AP must have Scalar/Vector Dynamic offset
          // enabled") aborts the compiler: it is reported alone, never followed by a route check
          // against the `{None}` fallback the predicate returns after it.
          if (ctx.errors.length > before) {
            asserted++;
          } else if ((valid & (1 << dgeType[id])) === 0) {
            ctx.error(
              'DGE_ROUTE_INVALID',
              id,
              `${instLabel(m, id)}: route ${DGE_TYPE_NAMES[dgeType[id]]} is not among the eligible routes {${dgeSetNames(valid).join(', ')}}`,
            );
          }
        }
        // (C) engine binding: CurEngine = engine with bit 2 stripped
        const cur = engine[id] & 0xfffffffb;
        if (isHWDGEWithEngineSet(dgeType[id] as DGEType, engine[id] as EngineType)) {
          enginesChecked++;
          if (
            (cur & ~EngineType.DMA) !== 2 &&
            !(cur === EngineType.SP || cur === EngineType.Activation)
          ) {
            ctx.error(
              'HWDGE_ENGINE_INVALID',
              id,
              `${instLabel(m, id)}: HWDGE DMA on engine ${ENGINE_TYPE_NAMES[engine[id]] ?? engine[id]}, expected SP or Activation`,
            );
          }
        }
      }
    }
  }
  Object.assign(ctx.counters, { visited, stripped, routesChecked, enginesChecked, asserted });
}

function cleanupPass(name: PassName, order: number | null, summary: string): Pass {
  return { name, order, summary, run: runCleanup };
}

/** The cleanup at order 71: strips routes when DGE is disabled, checks preset routes and engines. */
export const dynamicDmaCleanup: Pass = cleanupPass(
  'dynamic_dma_cleanup',
  71,
  'strip DGE routes when DGE is disabled; check route validity and HWDGE engines',
);

/** The authoritative verify after the queue passes (seed 001: "the cleanup that follows codegen"). */
export const dynamicDmaCleanupVerify: Pass = cleanupPass(
  'dynamic_dma_cleanup',
  null,
  'final verify: every route still eligible, every bound HWDGE DMA on SP or Activation',
);
