/**
 * applyQos / diffQos: a QoS plan on a Device (mock or mapped).
 *
 * applyQos performs planQos's writes in order, one write per register touched. The current word of
 * a register the plan sets only partly comes from the shadow when it knows it, else from one read;
 * a register the plan sets entirely needs no read at all. A register already holding the new word
 * (known from the shadow or the read) is not written again. Everything is validated (the plan, the
 * inferred gate, the engines) before the first access, so a refused plan touches nothing.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { Device, UdmaUnitIO } from '../../csr/io.ts';
import { fieldValue } from '../../csr/runtime/fields.ts';
import { checkUnitWindows, unitWindow, type UdmaFileName } from '../udma/regs.ts';
import { deviceShadow, type RegisterShadow } from '../udma/shadow.ts';
import type { ShadowIO } from '../../csr/runtime/shadow.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import { snapshotOf, type RegisterSnapshot } from './snapshot.ts';
import { readQosPlan, type QosPlan, type QosPlanInput } from './plan.ts';
import { PlannedWords } from './plan-words.ts';
import {
  planInput,
  planWords,
  strictWarnings,
  withoutInferred,
  type PlanQosOptions,
  type PlannedWrite,
  type QosOrigin,
  type QosWarning,
} from './planner.ts';

export interface ApplyQosOptions extends PlanQosOptions {
  /** Compute and report, write nothing (reads still happen where the word is unknown). */
  dryRun?: boolean;
  /** Read every written register back and compare its readable bits (VERIFY_FAILED otherwise). */
  verify?: boolean;
  /**
   * Known register words; updated with what is read and written. Default: the device's own
   * shadow (deviceShadow), the one the engine driver uses.
   */
  shadow?: RegisterShadow;
  /**
   * Record the word of every register about to change before writing it (reads each one), as
   * `previous`: the snapshot `restoreRegisters` writes back. Default false.
   */
  savePrevious?: boolean;
  /**
   * With savePrevious and not a dry run: called with the snapshot after every word is composed and
   * before the first write (save it there: when it throws, nothing is written).
   */
  onPrevious?: (previous: RegisterSnapshot) => void;
  /**
   * Also read registers the plan sets entirely, so every write reports its old word (the CLI does).
   * Default false: such registers are written without a read and report `old: null`.
   */
  reportOld?: boolean;
}

export interface QosFieldChange {
  name: string;
  old: number | null;
  new: number;
  origin: QosOrigin;
}

/** One register as applied: the word before (null when not read) and after. */
export interface QosWrite {
  engine: number;
  file: UdmaFileName;
  path: string;
  offset: number;
  old: number | null;
  new: number;
  fields: QosFieldChange[];
}

export interface QosIoCounts {
  /** Device reads done to compose words (shadow hits are not reads). */
  reads: number;
  writes: number;
  /** Reads done by `verify`. */
  verifyReads: number;
  /** Words taken from the shadow instead of the device. */
  shadowHits: number;
}

export interface QosApplyResult {
  /** Registers written (or, in a dry run, that would be), in order. */
  writes: QosWrite[];
  /** Registers already holding their planned word: not written. */
  unchanged: QosWrite[];
  /** Inferred registers left out (class-derived values without allowInferred). */
  skipped: PlannedWrite[];
  warnings: QosWarning[];
  dryRun: boolean;
  verified: boolean;
  io: QosIoCounts;
  /** With savePrevious: the words of every register written (or, in a dry run, to be written). */
  previous?: RegisterSnapshot;
}

/** A device argument that is not one is a typed error (before anything else happens). */
export function checkDevice(device: unknown, where: string): asserts device is Device {
  const d = device as Partial<Device> | null;
  if (d === null || typeof d !== 'object' || typeof d.udma !== 'function' || !d.memory) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `${where}: no device given (got ${d === null ? 'null' : typeof d})`,
      {
        where: `${where}.device`,
        expected: 'a Device (a MockDevice or an opened mapped device)',
        actual: d === null ? null : typeof d,
      },
    );
  }
}

function unitOf(device: Device, engine: number): UdmaUnitIO {
  const u = device.udma(engine);
  checkUnitWindows(u, engine);
  return u;
}

/**
 * The register windows one apply uses, by engine * 2 (+ 1 for the S2M file), each bound to the
 * shadow before the first access (the shadow learns every read and write through it).
 */
class ApplyWindows {
  private readonly bound: ShadowIO[] = [];

  constructor(units: ReadonlyMap<number, UdmaUnitIO>, shadow: RegisterShadow) {
    for (const [engine, unit] of units) {
      this.bound[engine * 2] = shadow.bind(engine, 'udma_m2s', unit.m2s);
      this.bound[engine * 2 + 1] = shadow.bind(engine, 'udma_s2m', unit.s2m);
    }
  }

  of(engine: number, file: UdmaFileName): ShadowIO {
    return this.bound[engine * 2 + (file === 'udma_m2s' ? 0 : 1)];
  }
}

/**
 * The word write `i` of `W` finds before the apply: from the shadow, else read (when the write
 * sets it only partly, or `reportOld`), else -1 (not known).
 */
function wordBefore(
  W: PlannedWords,
  i: number,
  windows: ApplyWindows,
  reportOld: boolean,
  io: QosIoCounts,
): number {
  const r = W.reg[i];
  const win = windows.of(W.engine[i], r.file);
  const known = win.peek(r.offset);
  if (known !== undefined) {
    io.shadowHits++;
    return known;
  }
  if (!W.complete[i] || reportOld) {
    io.reads++;
    return win.read32(r.offset) >>> 0;
  }
  return -1;
}

/** Write `i` of `W` as applied: the word before (null when not read) and after, field by field. */
function applied(W: PlannedWords, i: number, old: number | null, next: number): QosWrite {
  const r = W.reg[i];
  const head = W.head[i];
  let fields: QosFieldChange[];
  if (W.fNext[head] < 0) fields = [fieldApplied(W, head, old)];
  else {
    fields = [];
    for (let k = head; k >= 0; k = W.fNext[k]) fields.push(fieldApplied(W, k, old));
  }
  return {
    engine: W.engine[i],
    file: r.file,
    path: r.path,
    offset: r.offset,
    old,
    new: next,
    fields,
  };
}

/** Field row `k` of `W` as applied over the word `old` (null when not read). */
function fieldApplied(W: PlannedWords, k: number, old: number | null): QosFieldChange {
  const f = W.fSpec[k].spec;
  return {
    name: f.name,
    old: old === null ? null : fieldValue(old, f),
    new: W.fValue[k],
    origin: W.fOrigin[k],
  };
}

/** The tables an apply works in (plain arrays, kept for the next apply with their room). */
class ApplyTables {
  /** The planned writes. */
  readonly words = new PlannedWords();
  /** The rows of `words` applied, in order. */
  readonly rows: number[] = [];
  /** Per applied row: the word before (-1: not read) and the word after. */
  readonly olds: number[] = [];
  readonly nexts: number[] = [];
}

/**
 * The tables of the last apply, for the next one (an apply takes them and gives them back when
 * done; an apply inside another, from `onPrevious`, makes its own).
 */
let spareTables: ApplyTables | undefined;

/**
 * Applies a plan (raw JSON or parsed) to `device`. See the module comment; options in
 * ApplyQosOptions. Throws before any access for an invalid plan (PLAN_INVALID), an explicit inferred
 * value without allowInferred (REGISTER_INFERRED), strict warnings, or an engine the device lacks;
 * VERIFY_FAILED after writing when a read-back differs.
 */
export function applyQos(
  device: Device,
  plan: QosPlanInput | QosPlan,
  opts: ApplyQosOptions = {},
): QosApplyResult {
  checkDevice(device, 'applyQos');
  checkSafetyFlags(
    opts,
    ['dryRun', 'verify', 'allowInferred', 'strict', 'reportOld', 'savePrevious'],
    'applyQos options',
  );
  const p = planInput(plan, opts, false);
  const tables = spareTables ?? new ApplyTables();
  spareTables = undefined;
  try {
    return applyWords(device, p, tables, opts);
  } finally {
    spareTables = tables;
  }
}

/** applyQos with the plan parsed and the tables to plan and compose it in. */
function applyWords(
  device: Device,
  plan: QosPlan,
  tables: ApplyTables,
  opts: ApplyQosOptions,
): QosApplyResult {
  const W = tables.words;
  const warnings = planWords(plan, opts.engines, W);
  const n = W.n;
  // The inferred-write gate (planQos's): without allowInferred the writes that put inferred facts
  // on the device are refused or left out, before any access.
  const gated = opts.allowInferred !== true;
  let skipped: PlannedWrite[] = [];
  if (gated) {
    const inferred: PlannedWrite[] = [];
    for (let i = 0; i < n; i++) if (W.inferred[i].length > 0) inferred.push(W.plannedWrite(i));
    if (inferred.length > 0) skipped = withoutInferred(inferred, warnings).skipped;
  }
  strictWarnings(opts, warnings);
  // The rows applied, in order.
  const rows = tables.rows;
  let m = 0;
  for (let i = 0; i < n; i++) if (!gated || W.inferred[i].length === 0) rows[m++] = i;

  const units = new Map<number, UdmaUnitIO>();
  let last = -1;
  for (let j = 0; j < m; j++) {
    const e = W.engine[rows[j]];
    if (e === last) continue;
    last = e;
    if (!units.has(e)) units.set(e, unitOf(device, e));
  }
  const shadow = opts.shadow ?? deviceShadow(device);
  const io: QosIoCounts = { reads: 0, writes: 0, verifyReads: 0, shadowHits: 0 };
  const dryRun = opts.dryRun === true;
  const savePrevious = opts.savePrevious === true;
  const reportOld = opts.reportOld === true || savePrevious;

  const windows = new ApplyWindows(units, shadow);

  const result: QosApplyResult = {
    writes: [],
    unchanged: [],
    skipped,
    warnings,
    dryRun,
    verified: false,
    io,
  };
  // Compose every word (`olds[j]` the word before, -1: not read; `nexts[j]` the word after) and
  // record it.
  const olds = tables.olds;
  const nexts = tables.nexts;
  for (let j = 0; j < m; j++) {
    const i = rows[j];
    const old = wordBefore(W, i, windows, reportOld, io);
    const next = (((old === -1 ? W.reg[i].reset : old) & ~W.mask[i]) | W.value[i]) >>> 0;
    olds[j] = old;
    nexts[j] = next;
    const rec = applied(W, i, old === -1 ? null : old, next);
    if (old === next) result.unchanged.push(rec);
    else result.writes.push(rec);
  }
  if (savePrevious) {
    result.previous = snapshotOf(
      device,
      result.writes.map((w) => ({
        engine: w.engine,
        file: w.file,
        path: w.path,
        offset: w.offset,
        value: w.old!,
      })),
    );
  }
  if (!dryRun && result.previous && opts.onPrevious) opts.onPrevious(result.previous);
  if (!dryRun) {
    for (let j = 0; j < m; j++) {
      if (olds[j] === nexts[j]) continue;
      const i = rows[j];
      const r = W.reg[i];
      windows.of(W.engine[i], r.file).write32(r.offset, nexts[j]);
      io.writes++;
    }
  }

  if (opts.verify && !dryRun) {
    const bad: {
      engine: number;
      file: UdmaFileName;
      path: string;
      offset: number;
      expected: string;
      actual: string;
    }[] = [];
    for (let j = 0; j < m; j++) {
      const i = rows[j];
      const r = W.reg[i];
      const engine = W.engine[i];
      const next = nexts[j];
      const got = unitWindow(units.get(engine)!, r.file).read32(r.offset) >>> 0;
      io.verifyReads++;
      if ((got & r.readMask) >>> 0 !== (next & r.readMask) >>> 0) {
        bad.push({
          engine,
          file: r.file,
          path: r.path,
          offset: r.offset,
          expected: hex(next, 8),
          actual: hex(got, 8),
        });
        shadow?.forget(engine, r.file, r.offset);
      }
    }
    if (bad.length > 0) {
      throw new NxdmaError(
        'VERIFY_FAILED',
        `QoS verify: ${bad.length} register${bad.length > 1 ? 's' : ''} read back differently: ` +
          bad
            .slice(0, 4)
            .map((b) => `engine ${b.engine} ${b.path} wrote ${b.expected}, read ${b.actual}`)
            .join('; '),
        {
          where: `engine ${bad[0].engine} ${bad[0].path}`,
          expected: bad[0].expected,
          actual: bad,
          result,
        },
      );
    }
    result.verified = true;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------

export interface QosDiffField {
  engine: number;
  file: UdmaFileName;
  path: string;
  offset: number;
  /** "q_qos", "enable[3]". */
  field: string;
  /** Value on the device; null when the register was not read (address inferred). */
  current: number | null;
  planned: number;
  differs: boolean;
  origin: QosOrigin;
  /** The field's position (or its register's address) is inferred. */
  inferred: boolean;
  queue?: number;
  /** JSON path of the plan entry. */
  source: string;
}

export interface QosDiff {
  fields: QosDiffField[];
  /** Registers that would change: old = current word, new = planned word. */
  writes: QosWrite[];
  /** Number of planned fields whose current value differs (unknown counts as differing). */
  differences: number;
  /** Registers not read: their address is inferred (pass allowInferred to read them). */
  notRead: { engine: number; file: UdmaFileName; path: string; offset: number }[];
  warnings: QosWarning[];
  io: { reads: number };
}

export interface DiffQosOptions {
  /** Also read registers whose address is inferred. Default false. */
  allowInferred?: boolean;
  /** Only these engines of the plan. */
  engines?: readonly number[];
}

/**
 * Current vs planned, field by field: reads each register the plan touches once from the device
 * (never the shadow) and writes nothing. A register whose address is inferred is not read unless
 * `allowInferred` (its fields report `current: null`).
 */
export function diffQos(
  device: Device,
  plan: QosPlanInput | QosPlan,
  opts: DiffQosOptions = {},
): QosDiff {
  checkDevice(device, 'diffQos');
  checkSafetyFlags(opts, ['allowInferred'], 'diffQos options');
  const p = readQosPlan(plan);
  const W = new PlannedWords();
  const warnings = planWords(p, opts.engines, W);
  const units = new Map<number, UdmaUnitIO>();
  for (let i = 0; i < W.n; i++) {
    const e = W.engine[i];
    if (!units.has(e)) units.set(e, unitOf(device, e));
  }
  const out: QosDiff = {
    fields: [],
    writes: [],
    differences: 0,
    notRead: [],
    warnings,
    io: { reads: 0 },
  };
  for (let i = 0; i < W.n; i++) {
    const r = W.reg[i];
    const engine = W.engine[i];
    const addressInferred = W.inferred[i].some((x) => x.startsWith('its address'));
    let cur: number | null = null;
    if (!addressInferred || opts.allowInferred) {
      cur = unitWindow(units.get(engine)!, r.file).read32(r.offset) >>> 0;
      out.io.reads++;
    } else {
      out.notRead.push({ engine, file: r.file, path: r.path, offset: r.offset });
    }
    let differs = false;
    for (let k = W.head[i]; k >= 0; k = W.fNext[k]) {
      const f = W.fSpec[k];
      const planned = W.fValue[k];
      const c = cur === null ? null : fieldValue(cur, f.spec);
      const d = c !== planned;
      if (d) {
        differs = true;
        out.differences++;
      }
      const queue = W.fQueue[k];
      out.fields.push({
        engine,
        file: r.file,
        path: r.path,
        offset: r.offset,
        field: f.spec.name,
        current: c,
        planned,
        differs: d,
        origin: W.fOrigin[k],
        inferred: f.inferred,
        ...(queue >= 0 ? { queue } : {}),
        source: W.source(k),
      });
    }
    if (differs)
      out.writes.push(applied(W, i, cur, (((cur ?? r.reset) & ~W.mask[i]) | W.value[i]) >>> 0));
  }
  return out;
}

/** Re-exported for callers that hold a parsed plan. */
export type { QosPlan };
