/**
 * The tables a QoS plan is planned in: PlannedWords, the plan's writes and their fields, flat and
 * in write order (what planQos materializes and applyQos applies), and EngineWords, the registers
 * of the engine being planned (driver/qos/plan-engine.ts fills them). Pure: no device, no I/O.
 */
import { NxdmaError } from '../../common/errors.ts';
import type { PlannedField, PlannedWrite, QosOrigin } from './planner.ts';
import type { PlanFieldSpec, RefillFieldSpecs, RefillKey } from './qos-regs.ts';

/**
 * The planned writes of a plan, flat and in write order: one row per register write (its register,
 * engine, bits, completeness and inferred facts) and one field row per field it sets, the fields
 * of write i a list in bit order from row `head[i]` on, each row naming the next (`fNext`, -1 for
 * the last). The engine planner writes the field rows as the plan sets them and links them in
 * place, so they are never copied. `plannedWrite` makes the PlannedWrite of a row; applyQos reads
 * the rows themselves. The arrays are reused: `clear()` empties the table, keeping their room.
 */
export class PlannedWords {
  /** Writes in the table. */
  n = 0;
  readonly engine: number[] = [];
  readonly reg: PlanFieldSpec['reg'][] = [];
  readonly mask: number[] = [];
  readonly value: number[] = [];
  readonly complete: boolean[] = [];
  /** Why the write puts inferred facts on the device (shared and never changed when empty). */
  readonly inferred: (readonly string[])[] = [];
  /** The first field row of the write. */
  readonly head: number[] = [];
  /** Field rows in the table. */
  nf = 0;
  readonly fSpec: PlanFieldSpec[] = [];
  readonly fValue: number[] = [];
  readonly fOrigin: QosOrigin[] = [];
  /**
   * The JSON path of the plan entry that asked for the field ("engines[0].queues[2]") and the
   * rest of its source (".class"): `source(k)` joins them (built only where a source is read).
   */
  readonly fWhere: string[] = [];
  readonly fKey: string[] = [];
  /** The queue the value belongs to, -1 for an engine-wide value. */
  readonly fQueue: number[] = [];
  /** The next field row of the same write, -1 after the last. */
  readonly fNext: number[] = [];

  clear(): void {
    this.n = 0;
    this.nf = 0;
  }

  /** The JSON path of the plan entry that asked for field row k ("engines[0].queues[2].class"). */
  source(k: number): string {
    return this.fWhere[k] + this.fKey[k];
  }

  /** Row i as the PlannedWrite planQos returns (fresh objects). */
  plannedWrite(i: number): PlannedWrite {
    const r = this.reg[i];
    const fields: PlannedField[] = [];
    for (let k = this.head[i]; k >= 0; k = this.fNext[k]) fields.push(this.plannedField(k));
    const inferred = this.inferred[i];
    return {
      engine: this.engine[i],
      file: r.file,
      path: r.path,
      offset: r.offset,
      mask: this.mask[i],
      value: this.value[i],
      fields,
      complete: this.complete[i],
      inferred: inferred.length === 0 ? [] : inferred.slice(),
      reset: r.reset,
      readMask: r.readMask,
    };
  }

  private plannedField(k: number): PlannedField {
    const f = this.fSpec[k];
    const s = f.spec;
    const queue = this.fQueue[k];
    const value = this.fValue[k];
    const origin = this.fOrigin[k];
    const source = this.source(k);
    return queue >= 0
      ? {
          name: s.name,
          lsb: s.lsb,
          width: s.width,
          value,
          origin,
          inferred: f.inferred,
          queue,
          source,
        }
      : { name: s.name, lsb: s.lsb, width: s.width, value, origin, inferred: f.inferred, source };
  }
}

/** Placeholder of a write's inferred facts when there are none (never changed). */
const NO_INFERRED: readonly string[] = Object.freeze([]);

/**
 * The registers of one engine being planned, by slot in the write order: for each register set so
 * far, its bits and the fields set, a list in bit order (a field set again keeps its place and
 * takes the new value). `writes()` appends the words set to a PlannedWords table in write order
 * and empties the slots, so the next engine can be planned in the same tables (`engineWords`).
 */
export class EngineWords {
  engine = -1;
  /** Per slot: 1 when the register is set. */
  private readonly isSet: Uint8Array;
  private readonly mask: Float64Array;
  private readonly value: Float64Array;
  /** Per slot: the first and the last field of its list (an entry index), or -1. */
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Per slot: the first field set (its register field starts the names of the inferred rule). */
  private readonly first: (PlanFieldSpec | undefined)[];
  /** Per slot: register fields named so far, in first-set order, once a second one is set. */
  private readonly names: (string[] | undefined)[];
  /** Per slot, once names are kept: 1 when a field named makes the word inferred on its own. */
  private readonly namesInferred: Uint8Array;
  /** The table the engine's words go to; its field rows are the slots' lists (linked by fNext). */
  out: PlannedWords | undefined;

  constructor(slots: number) {
    this.isSet = new Uint8Array(slots);
    this.mask = new Float64Array(slots);
    this.value = new Float64Array(slots);
    this.head = new Int32Array(slots).fill(-1);
    this.tail = new Int32Array(slots).fill(-1);
    this.first = new Array<PlanFieldSpec | undefined>(slots).fill(undefined);
    this.names = new Array<string[] | undefined>(slots).fill(undefined);
    this.namesInferred = new Uint8Array(slots);
  }

  /**
   * Sets the bits of `f` to `value` in its register's word (checked against the bits' width
   * first), asked for by the plan entry at `where` (its source: `where` + `key`).
   */
  set(
    f: PlanFieldSpec,
    value: number,
    origin: QosOrigin,
    where: string,
    key: string,
    queue = -1,
  ): void {
    const s = f.spec;
    if (!Number.isInteger(value) || value < 0 || value > s.max) {
      const source = where + key;
      throw new NxdmaError(
        'PLAN_INVALID',
        `${source}: ${f.reg.path}.${s.name} = ${String(value)} does not fit ${s.width} bits`,
        { where: source, expected: `0..${s.max}`, actual: value },
      );
    }
    this.put(f, value, origin, where, key, queue);
  }

  /** `set` of a value known to fit the bits of `f` (no check). */
  put(
    f: PlanFieldSpec,
    value: number,
    origin: QosOrigin,
    where: string,
    key: string,
    queue: number,
  ): void {
    const s = f.spec;
    const slot = f.slot;
    const out = this.out!;
    if (this.isSet[slot] === 0) {
      const e = this.entry(f, value, origin, where, key, queue, -1);
      this.isSet[slot] = 1;
      this.mask[slot] = s.mask >>> 0;
      this.value[slot] = s.place(value) >>> 0;
      this.head[slot] = e;
      this.tail[slot] = e;
      this.first[slot] = f;
      return;
    }
    this.mask[slot] = (this.mask[slot] | s.mask) >>> 0;
    this.value[slot] = ((this.value[slot] & ~s.mask) | s.place(value)) >>> 0;
    // Fields kept in bit order, as a stable sort by lsb of the first-set order would leave them
    // (a field set again keeps its place).
    // A field above every field set so far is appended: one set before would share its lsb.
    const tail = this.tail[slot];
    if (out.fSpec[tail].spec.lsb < s.lsb) {
      out.fNext[tail] = this.entry(f, value, origin, where, key, queue, -1);
      this.tail[slot] = out.fNext[tail];
    } else {
      let prev = -1;
      let cur = this.head[slot];
      while (cur >= 0 && out.fSpec[cur].spec.name !== s.name && out.fSpec[cur].spec.lsb <= s.lsb) {
        prev = cur;
        cur = out.fNext[cur];
      }
      if (cur >= 0 && out.fSpec[cur].spec.name === s.name) {
        out.fSpec[cur] = f;
        out.fValue[cur] = value;
        out.fOrigin[cur] = origin;
        out.fWhere[cur] = where;
        out.fKey[cur] = key;
        out.fQueue[cur] = queue;
      } else {
        const e = this.entry(f, value, origin, where, key, queue, cur);
        if (prev < 0) this.head[slot] = e;
        else out.fNext[prev] = e;
      }
    }
    const first = this.first[slot]!;
    if (f.field !== first.field) {
      let names = this.names[slot];
      if (names === undefined) {
        names = this.names[slot] = [first.field];
        this.namesInferred[slot] = first.writeInferred.length > 0 ? 1 : 0;
      }
      if (!names.includes(f.field)) {
        names.push(f.field);
        if (f.writeInferred.length > 0) this.namesInferred[slot] = 1;
      }
    }
  }

  private entry(
    f: PlanFieldSpec,
    value: number,
    origin: QosOrigin,
    where: string,
    key: string,
    queue: number,
    next: number,
  ): number {
    const out = this.out!;
    const e = out.nf++;
    out.fSpec[e] = f;
    out.fValue[e] = value;
    out.fOrigin[e] = origin;
    out.fWhere[e] = where;
    out.fKey[e] = key;
    out.fQueue[e] = queue;
    out.fNext[e] = next;
    return e;
  }

  /**
   * A bucket's refill words, as far as the plan gives them (asked for by the entry at `where`,
   * the bucket at `where` + `bucket`).
   */
  setRefill(
    r: { readonly [k in RefillKey]?: number },
    fields: RefillFieldSpecs,
    where: string,
    bucket: string,
    queue?: number,
  ): void {
    for (const { key, spec } of fields) {
      const v = r[key];
      if (v !== undefined) this.set(spec, v, 'explicit', where, `${bucket}.${key}`, queue);
    }
  }

  /**
   * The words set, completed, appended to `out` (the table their field rows are in) in write
   * order; the slots are left empty.
   */
  writes(out: PlannedWords): void {
    const slots = this.isSet.length;
    for (let i = 0; i < slots; i++) {
      if (this.isSet[i] === 0) continue;
      const first = this.first[i]!;
      const r = first.reg;
      const names = this.names[i];
      const mask = this.mask[i];
      const n = out.n++;
      out.engine[n] = this.engine;
      out.reg[n] = r;
      out.mask[n] = mask;
      out.value[n] = this.value[i];
      out.complete[n] = (mask & r.fieldMask) >>> 0 === r.fieldMask;
      // A word of several register fields, none inferred on its own, puts no inferred fact on the
      // device (the register's rule: an inferred address or an inferred field named).
      const alone = first.writeInferred;
      out.inferred[n] =
        names !== undefined
          ? this.namesInferred[i] === 1
            ? r.inferredWrite(names)
            : NO_INFERRED
          : alone.length === 0
            ? NO_INFERRED
            : alone;
      out.head[n] = this.head[i];
      this.isSet[i] = 0;
      this.head[i] = -1;
      this.tail[i] = -1;
      this.first[i] = undefined;
      this.names[i] = undefined;
    }
    this.out = undefined;
  }
}
