/**
 * Register snapshots: the rollback of a QoS experiment. `applyQos(..., { savePrevious: true })`
 * records the word of every register it is about to change; `restoreRegisters` writes those words
 * back (in reverse order of the apply), with the same safety as applyQos: everything validated
 * before the first access, inferred registers only with allowInferred, dry run and verify.
 *
 *   { "format": "nxdma-register-snapshot", "version": 1, "device": "trn2:/sys/.../resource0",
 *     "profile": "trn2", "registers": [{ "engine": 0, "file": "udma_m2s",
 *     "path": "M2S_Q[0].cfg", "offset": 4128, "value": 50528256 }] }
 *
 * Only plain registers (RW, every field RW: what a QoS plan writes) may be restored: a snapshot
 * cannot ring a doorbell or write a status register. Each entry's path must name the register at
 * its offset.
 */
import { z } from 'zod';
import { NxdmaError, hex } from '../../common/errors.ts';
import { checkSafetyFlags } from '../../common/flags.ts';
import type { Device, RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import { fieldValue } from '../../csr/runtime/fields.ts';
import { findInstance } from '../../csr/schema/model.ts';
import {
  checkUnitWindows,
  inferredWrite,
  reg,
  unitWindow,
  udmaModel,
  type Reg,
  type UdmaFileName,
} from '../udma/regs.ts';
import { deviceShadow, type RegisterShadow } from '../udma/shadow.ts';

export const REGISTER_SNAPSHOT_FORMAT = 'nxdma-register-snapshot';

const u32 = z.number().int().min(0).max(0xffffffff);

export const SavedRegisterSchema = z.strictObject({
  engine: z.number().int().min(0),
  file: z.enum(['udma_m2s', 'udma_s2m']),
  path: z.string().min(1),
  offset: z.number().int().min(0),
  value: u32,
});

export const RegisterSnapshotSchema = z.strictObject({
  format: z.literal(REGISTER_SNAPSHOT_FORMAT),
  version: z.literal(1),
  /** Name of the device the words were read from. */
  device: z.string(),
  profile: z.string(),
  registers: z.array(SavedRegisterSchema),
});

export type SavedRegister = z.infer<typeof SavedRegisterSchema>;
export type RegisterSnapshot = z.infer<typeof RegisterSnapshotSchema>;

/** A snapshot of `registers` as read from `device`. */
export function snapshotOf(device: Device, registers: readonly SavedRegister[]): RegisterSnapshot {
  return {
    format: REGISTER_SNAPSHOT_FORMAT,
    version: 1,
    device: device.name,
    profile: device.profile,
    registers: registers.map((r) => ({ ...r })),
  };
}

interface CheckedEntry {
  entry: SavedRegister;
  reg: Reg;
  inferred: string[];
}

/**
 * Parses and checks a snapshot (raw JSON or parsed): the format, and that every entry names a
 * plain register of its file at its offset, each register at most once.
 * @throws NxdmaError PLAN_INVALID naming the entry (`source` names the file in messages).
 */
export function parseRegisterSnapshot(input: unknown, source = 'snapshot'): RegisterSnapshot {
  const r = RegisterSnapshotSchema.safeParse(input);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: pathOf(i.path), message: i.message }));
    throw new NxdmaError(
      'PLAN_INVALID',
      `${source}: not a register snapshot: ${issues
        .slice(0, 4)
        .map((i) => `${i.path || '(root)'}: ${i.message}`)
        .join('; ')}`,
      {
        where: `${source}:${issues[0]?.path ?? ''}`,
        expected: `a ${REGISTER_SNAPSHOT_FORMAT} file (written by qos apply --save-previous)`,
        actual: issues,
        issues,
      },
    );
  }
  checkEntries(r.data, source);
  return r.data;
}

function pathOf(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path)
    s += typeof p === 'number' ? `[${p}]` : s === '' ? String(p) : `.${String(p)}`;
  return s;
}

function checkEntries(snap: RegisterSnapshot, source: string): CheckedEntry[] {
  const seen = new Map<string, number>();
  return snap.registers.map((entry, i) => {
    const where = `${source}:registers[${i}]`;
    const inst = findInstance(udmaModel(entry.file), entry.path);
    if (inst === undefined || inst.offset !== entry.offset) {
      throw new NxdmaError(
        'PLAN_INVALID',
        `${where}: ${entry.file} has no register ${entry.path} at ${hex(entry.offset)}` +
          (inst ? ` (it is at ${hex(inst.offset)})` : ''),
        {
          where,
          expected: 'a register path of the file and its offset (nxdma regs list)',
          actual: { path: entry.path, offset: entry.offset },
          path: `registers[${i}].offset`,
        },
      );
    }
    const r = reg(entry.file, entry.path);
    const plain = r.model.access === 'RW' && r.model.fields.every((f) => f.access === 'RW');
    if (!plain) {
      throw new NxdmaError(
        'REGISTER_READ_ONLY',
        `${where}: ${entry.file} ${entry.path} is not a plain read-write register (${r.model.access}); a snapshot restores only what QoS programming writes`,
        {
          where,
          expected: 'a register whose fields are all RW',
          actual: r.model.access,
          path: `registers[${i}].path`,
        },
      );
    }
    const key = `${entry.engine}/${entry.file}/${entry.offset}`;
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw new NxdmaError(
        'PLAN_INVALID',
        `${where}: engine ${entry.engine} ${entry.path} is already saved at registers[${prev}]`,
        {
          where,
          expected: 'each register at most once',
          actual: entry.path,
          path: `registers[${i}]`,
        },
      );
    }
    seen.set(key, i);
    return {
      entry,
      reg: r,
      inferred: inferredWrite(
        r,
        r.model.fields.map((f) => f.name),
      ),
    };
  });
}

export interface RestoreOptions {
  /** Read the current words and report; write nothing. */
  dryRun?: boolean;
  /** Read every restored register back (VERIFY_FAILED when one differs). */
  verify?: boolean;
  /** Also restore registers holding inferred facts (REGISTER_INFERRED otherwise). */
  allowInferred?: boolean;
  /** Default: the device's shadow. */
  shadow?: RegisterShadow;
}

/** One register as restored: the current word before and the saved word. */
export interface RestoreWrite {
  engine: number;
  file: UdmaFileName;
  path: string;
  offset: number;
  old: number;
  new: number;
  /** Fields whose value changes: name, current, saved. */
  fields: { name: string; old: number; new: number }[];
}

export interface RestoreResult {
  writes: RestoreWrite[];
  /** Registers already holding their saved word. */
  unchanged: RestoreWrite[];
  dryRun: boolean;
  verified: boolean;
  io: { reads: number; writes: number; verifyReads: number };
}

/**
 * Writes the saved words of `snapshot` back to `device`, last saved first. Every register is read
 * once (its current word is reported and a register already holding its word is not written).
 * Everything is checked before the first access: the snapshot, the engines, the inferred gate.
 */
export function restoreRegisters(
  device: Device,
  snapshot: RegisterSnapshot | unknown,
  opts: RestoreOptions = {},
): RestoreResult {
  if (
    device === null ||
    typeof device !== 'object' ||
    typeof (device as Device).udma !== 'function'
  ) {
    throw new NxdmaError('BAD_ARGUMENT', 'restoreRegisters: no device given', {
      where: 'restoreRegisters.device',
      expected: 'a Device',
      actual: device === null ? null : typeof device,
    });
  }
  checkSafetyFlags(opts, ['dryRun', 'verify', 'allowInferred'], 'restoreRegisters options');
  const snap = parseRegisterSnapshot(snapshot);
  const entries = checkEntries(snap, 'snapshot').reverse();
  if (!opts.allowInferred) {
    const bad = entries.find((e) => e.inferred.length > 0);
    if (bad) {
      throw new NxdmaError(
        'REGISTER_INFERRED',
        `engine ${bad.entry.engine}: ${bad.entry.file} ${bad.entry.path} is not restored without allowInferred: ${bad.inferred.join(', ')} ${bad.inferred.length > 1 ? 'are' : 'is'} inferred`,
        {
          where: `engine ${bad.entry.engine} ${bad.entry.path}`,
          expected: 'registers whose facts a source states, or allowInferred',
          actual: bad.inferred,
        },
      );
    }
  }
  const units = new Map<number, UdmaUnitIO>();
  for (const e of entries) {
    if (!units.has(e.entry.engine)) {
      const u = device.udma(e.entry.engine);
      checkUnitWindows(u, e.entry.engine);
      units.set(e.entry.engine, u);
    }
  }
  const shadow = opts.shadow ?? deviceShadow(device);
  const window = (e: SavedRegister): RegisterIO =>
    shadow.bind(e.engine, e.file, unitWindow(units.get(e.engine)!, e.file));
  const dryRun = opts.dryRun === true;
  const result: RestoreResult = {
    writes: [],
    unchanged: [],
    dryRun,
    verified: false,
    io: { reads: 0, writes: 0, verifyReads: 0 },
  };
  const todo: { e: CheckedEntry; rec: RestoreWrite }[] = [];
  for (const e of entries) {
    const { entry } = e;
    const old = unitWindow(units.get(entry.engine)!, entry.file).read32(entry.offset) >>> 0;
    shadow.set(entry.engine, entry.file, entry.offset, old);
    result.io.reads++;
    const rec: RestoreWrite = {
      engine: entry.engine,
      file: entry.file,
      path: entry.path,
      offset: entry.offset,
      old,
      new: entry.value,
      fields: e.reg.model.fields
        .map((f) => ({ name: f.name, old: fieldValue(old, f), new: fieldValue(entry.value, f) }))
        .filter((f) => f.old !== f.new),
    };
    if (old === entry.value) result.unchanged.push(rec);
    else {
      result.writes.push(rec);
      todo.push({ e, rec });
    }
  }
  if (dryRun) return result;
  for (const { e } of todo) {
    window(e.entry).write32(e.entry.offset, e.entry.value);
    result.io.writes++;
  }
  if (opts.verify) {
    const bad: string[] = [];
    for (const { e } of todo) {
      const got = unitWindow(units.get(e.entry.engine)!, e.entry.file).read32(e.entry.offset) >>> 0;
      result.io.verifyReads++;
      if ((got & e.reg.readMask) >>> 0 !== (e.entry.value & e.reg.readMask) >>> 0) {
        bad.push(
          `engine ${e.entry.engine} ${e.entry.path} wrote ${hex(e.entry.value, 8)}, read ${hex(got, 8)}`,
        );
        shadow.forget(e.entry.engine, e.entry.file, e.entry.offset);
      }
    }
    if (bad.length > 0) {
      throw new NxdmaError('VERIFY_FAILED', `restore verify: ${bad.slice(0, 4).join('; ')}`, {
        where: bad[0],
        expected: 'every restored word reads back',
        actual: bad,
        result,
      });
    }
    result.verified = true;
  }
  return result;
}
