/**
 * Dependence edges: the module's edges in growable typed arrays, one linked list per instruction
 * (its head in the instruction columns), and the one way to add an edge.
 */
import { grown } from '../../common/typed-arrays.ts';
import type { InstrColumns } from './columns.ts';
import type { EdgeKind } from './enums.ts';

/** A dependence edge: this instruction depends on instruction `on` with `kind`. */
export interface Dep {
  on: number;
  kind: EdgeKind;
}

/**
 * The module's dependence edges, held in growable typed arrays: one linked list per instruction
 * (Instr.depHead -> next -> ...), in the order the edges were added. Adding an edge allocates
 * nothing per edge (the arrays double when full), so a pass that adds an edge per DMA leaves no
 * garbage and no per-edge object behind.
 */
export class DepEdges {
  private on = new Int32Array(64);
  private kind = new Uint8Array(64);
  private next = new Int32Array(64);
  /** Edges held. */
  count = 0;

  /** Adds `on` to the list that starts at `head`; returns the (possibly new) head. */
  add(head: number, on: number, kind: EdgeKind): number {
    let last = -1;
    for (let e = head; e !== -1; e = this.next[e]) {
      if (this.on[e] === on) {
        if (kind > this.kind[e]) this.kind[e] = kind; // the stronger kind wins
        return head;
      }
      last = e;
    }
    if (this.count === this.on.length) this.grow();
    const e = this.count++;
    this.on[e] = on;
    this.kind[e] = kind;
    this.next[e] = -1;
    if (last === -1) return e;
    this.next[last] = e;
    return head;
  }

  /** The edges of the list that starts at `head`, as Dep values (null when there are none). */
  list(head: number): Dep[] | null {
    if (head === -1) return null;
    const out: Dep[] = [];
    for (let e = head; e !== -1; e = this.next[e])
      out.push({ on: this.on[e], kind: this.kind[e] as EdgeKind });
    return out;
  }

  private grow(): void {
    const n = this.on.length * 2;
    this.on = grown(this.on, n);
    this.kind = grown(this.kind, n);
    this.next = grown(this.next, n);
  }
}

/** Adds to instruction `id` a dependence on `on` (the stronger kind wins on an existing edge). */
export function addDependency(
  cols: InstrColumns,
  edges: DepEdges,
  id: number,
  on: number,
  kind: EdgeKind,
): void {
  cols.depHead[id] = edges.add(cols.depHead[id], on, kind);
}
