/**
 * The register snapshot file of `qos apply --save-previous` / `qos restore`. A snapshot is what a
 * QoS experiment is undone with, so it is written as a new file only: never over an existing file
 * (an older snapshot, the plan itself), atomically (a temporary file in the same folder, fsynced,
 * then linked into place, which fails rather than replace anything).
 */
import fs from 'node:fs';
import path from 'node:path';
import { NxdmaError } from '../common/errors.ts';
import { parseRegisterSnapshot, type RegisterSnapshot } from '../driver/qos/snapshot.ts';
import { tempNameFor, type InputSet } from '../common/files.ts';
import { badArg, readJsonDocument } from './input.ts';

function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Checks, before anything is opened, that `target` can be created: it does not exist (not even as
 * a dangling link), it is none of the command's `inputs`, and its folder exists.
 * @throws NxdmaError BAD_ARGUMENT
 */
export function checkSnapshotTarget(target: string, inputs: readonly string[]): void {
  for (const i of inputs) {
    if (path.resolve(i) === path.resolve(target) || sameFile(i, target)) {
      throw badArg(
        '--save-previous',
        `--save-previous ${target} is the command's input ${i}: the snapshot never overwrites it`,
        'a new file name',
        target,
      );
    }
  }
  let exists = true;
  try {
    fs.lstatSync(target);
  } catch {
    exists = false;
  }
  if (exists) {
    throw badArg(
      '--save-previous',
      `--save-previous ${target} already exists: a snapshot is never overwritten (it may be the only way back); choose a new name`,
      'a file that does not exist yet',
      target,
    );
  }
  const dir = path.dirname(path.resolve(target));
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) {
    throw badArg(
      '--save-previous',
      `--save-previous ${target}: folder ${dir} does not exist`,
      'a file in an existing folder',
      target,
    );
  }
}

/**
 * Writes `snap` to `target` as a new file, atomically. Called before the first register write: a
 * failure here leaves the device untouched.
 * @throws NxdmaError BAD_ARGUMENT (exists, an input, no folder), DEVICE_OPEN never.
 */
export function writeSnapshot(
  target: string,
  snap: RegisterSnapshot,
  inputs: readonly string[],
): void {
  checkSnapshotTarget(target, inputs);
  const tmp = tempNameFor(path.resolve(target));
  const text = JSON.stringify(snap, null, 2) + '\n';
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o644);
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    // link(2) fails with EEXIST instead of replacing a file that appeared meanwhile.
    fs.linkSync(tmp, target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `--save-previous ${target}: cannot write the snapshot (${code ?? (e as Error).message}); nothing was written to the device`,
      { where: '--save-previous', expected: 'a new, writable file', actual: code ?? String(e) },
    );
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Reads and checks a snapshot file: BAD_ARGUMENT when it is not a readable regular file (a FIFO
 * included), PLAN_INVALID (with line:column) when it is not JSON or not a snapshot.
 */
export function readSnapshot(file: string, inputs?: InputSet): RegisterSnapshot {
  return readJsonDocument(
    file,
    'snapshot',
    'PLAN_INVALID',
    'a register snapshot written by qos apply --save-previous',
    parseRegisterSnapshot,
    inputs,
  );
}
