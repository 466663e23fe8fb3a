/** Helpers for consumers of the bound IR (the lowering, the reference interpreter). */
import type { DmaQueue, Instr, Module } from './ir/module.ts';
import { isDMAFamily } from './ir/predicates.ts';

/** Every instruction in program order (functions in declaration order, blocks, instructions). */
export function* walkInstructions(m: Module): Generator<Instr> {
  for (const f of m.functions) for (const bb of f.blocks) yield* bb.instrs;
}

/** Every DMA-family instruction in program order. */
export function* walkDmas(m: Module): Generator<Instr> {
  for (const I of walkInstructions(m)) if (isDMAFamily(I.op)) yield I;
}

/** The DMAs bound to each queue, in program order, indexed like module.queues. */
export function dmasByQueue(m: Module): { queue: DmaQueue; dmas: Instr[] }[] {
  const out = m.queues.map((queue) => ({ queue, dmas: [] as Instr[] }));
  for (const I of walkDmas(m)) if (I.queue !== null) out[I.queue.index].dmas.push(I);
  return out;
}
