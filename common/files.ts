/**
 * File handling of the nxdma command and the docs writer: how inputs are read and outputs written.
 *
 *   const inputs = new InputSet();
 *   const text = readInputText(file, 'program', inputs);      // a regular file, read once
 *   writeOutputFile(out, svg, { inputs, option: '--timeline' }); // atomic, never over an input
 *
 * Inputs must be regular files (a link to one is fine): a FIFO, a device, a directory or a
 * dangling link is refused with BAD_ARGUMENT before anything is read, so a command never blocks
 * on a pipe. The file is opened non-blocking and checked again on the open descriptor, so a
 * file swapped for a FIFO between the check and the read is refused too.
 *
 * Outputs are written atomically: the content goes to a temporary file in the target's folder,
 * which is then renamed over the target, so a reader (or a crash) sees the old file or the new
 * one, never half of it. An output is refused when the target is a symbolic link (rename would
 * replace the link, and writing through it could land anywhere), when it is not a regular file,
 * or when it is one of the command's own inputs (same device and inode, which also catches hard
 * links and other spellings of the same path).
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { NxdmaError, type ErrorCode } from './errors.ts';

/** `statSync(path)`, or undefined when nothing (readable) is there. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** What kind of file system object `st` is, in words. */
export function kindOf(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function fileError(
  where: string,
  message: string,
  expected: string,
  actual?: unknown,
  code: ErrorCode = 'BAD_ARGUMENT',
) {
  return new NxdmaError(code, message, { where, expected, actual });
}

/** The identities (device, inode) and real paths of the files a command reads. */
export class InputSet {
  private readonly ids = new Map<string, string>();
  private readonly real = new Map<string, string>();

  /** Records `file` (already checked to be a regular file) as an input. */
  add(file: string, st?: Stats): void {
    const s = st ?? statSync(file);
    this.ids.set(`${s.dev}:${s.ino}`, file);
    try {
      this.real.set(realpathSync(file), file);
    } catch {
      // the identity above is enough
    }
  }

  /** The input that `path` names (same inode or same real path), if any. */
  inputAt(path: string): string | undefined {
    const st = statOrUndefined(path);
    if (st) {
      const hit = this.ids.get(`${st.dev}:${st.ino}`);
      if (hit !== undefined) return hit;
    }
    let real: string;
    try {
      real = join(realpathSync(dirname(resolve(path))), basename(path));
    } catch {
      return undefined;
    }
    return this.real.get(real);
  }

  get size(): number {
    return this.ids.size;
  }
}

/**
 * Checks that `file` is a regular file (a link to one is fine) and returns its stats.
 * @throws NxdmaError BAD_ARGUMENT for a missing file, a dangling link, a FIFO, a device, a
 *   directory or a socket.
 */
export function checkInputFile(
  file: string,
  what: string,
  code: ErrorCode = 'BAD_ARGUMENT',
): Stats {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    let dangling = false;
    try {
      dangling = lstatSync(file).isSymbolicLink();
    } catch {
      dangling = false;
    }
    throw fileError(
      file,
      dangling
        ? `cannot read ${what} ${file}: it is a symbolic link to a file that does not exist`
        : `cannot read ${what} ${file}: ${(e as Error).message}`,
      `a readable ${what} file (a regular file)`,
      dangling ? 'a dangling symbolic link' : (e as NodeJS.ErrnoException).code,
      code,
    );
  }
  if (!st.isFile()) throw notRegularFile(file, what, st, code);
  return st;
}

/** The error of an input that is not a regular file (a FIFO, a device, a directory, ...). */
function notRegularFile(file: string, what: string, st: Stats, code: ErrorCode): NxdmaError {
  return fileError(
    file,
    `${what} ${file} is ${kindOf(st)}, not a regular file`,
    `a ${what} file (a regular file)`,
    kindOf(st),
    code,
  );
}
/** The error for a file that could not be opened or read: the system's message and code. */
function unreadable(file: string, what: string, e: unknown, code: ErrorCode): NxdmaError {
  return fileError(
    file,
    `cannot read ${what} ${file}: ${(e as Error).message}`,
    `a readable ${what} file`,
    (e as NodeJS.ErrnoException).code,
    code,
  );
}

/**
 * Reads a regular file as UTF-8 (see the module comment); records it in `inputs`.
 * @throws NxdmaError BAD_ARGUMENT when it is not a readable regular file.
 */
export function readInputText(
  file: string,
  what: string,
  inputs?: InputSet,
  code: ErrorCode = 'BAD_ARGUMENT',
): string {
  checkInputFile(file, what, code);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw unreadable(file, what, e, code);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegularFile(file, what, st, code);
    inputs?.add(file, st);
    try {
      return readFileSync(fd, 'utf8');
    } catch (e) {
      throw unreadable(file, what, e, code);
    }
  } finally {
    closeSync(fd);
  }
}

export interface OutputOptions {
  /** The command's inputs: an output may not be one of them. */
  inputs?: InputSet;
  /** The option that named the output ("--timeline"), for messages. */
  option: string;
}

/**
 * Checks that `file` may be written as an output: not a symbolic link, not a directory or any
 * other non-regular file, not one of the inputs; its folder (created when missing) is a folder.
 * @throws NxdmaError BAD_ARGUMENT naming the option and the file.
 */
export function checkOutputFile(file: string, opts: OutputOptions): void {
  const { option } = opts;
  if (file.trim() === '' || file.endsWith('/')) {
    throw fileError(
      option,
      `${option} needs a file name, got ${JSON.stringify(file)}`,
      'a file path',
      file,
    );
  }
  let st: Stats | undefined;
  try {
    st = lstatSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    throw fileError(
      option,
      `${option}: ${file} is a symbolic link; nxdma does not write through links`,
      'a path that is not a symbolic link',
      file,
    );
  }
  if (st && !st.isFile()) {
    throw fileError(option, `${option}: ${file} is ${kindOf(st)}`, 'a regular file path', file);
  }
  const input = opts.inputs?.inputAt(file);
  if (input !== undefined) {
    throw fileError(
      option,
      `${option}: ${file} is the input ${input} of this command; refusing to overwrite it`,
      'an output path that is not one of the inputs',
      file,
    );
  }
  // The folder is created when missing; a path that runs through a file can never be created.
  let dir = dirname(resolve(file));
  for (;;) {
    const ds = statOrUndefined(dir);
    if (ds) {
      if (!ds.isDirectory())
        throw fileError(option, `${option}: ${dir} is not a directory`, 'a directory', dir);
      break;
    }
    if (dirname(dir) === dir) break;
    dir = dirname(dir);
  }
}

let tempCounter = 0;

/**
 * A temporary file name next to `file` (same folder, so a rename is atomic): the process id, a
 * counter and a random suffix. Callers create it with O_EXCL, so a name that exists fails instead
 * of being reused; the name only has to be unlikely to exist (node:crypto is not loaded for it:
 * it costs every command's start-up).
 */
export function tempNameFor(file: string): string {
  const suffix = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return join(dirname(file), `.${basename(file)}.${process.pid}.${tempCounter++}.${suffix}.tmp`);
}

/** Writes `content` to a new temporary file next to `file`; returns its path. */
export function writeTemp(file: string, content: string | Uint8Array): string {
  const tmp = tempNameFor(file);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  return tmp;
}

/**
 * Writes an output file atomically after checkOutputFile (its folder created when missing).
 * @throws NxdmaError BAD_ARGUMENT when the target may not be written or the write fails
 *   (the target is then unchanged and no temporary file is left).
 */
export function writeOutputFile(
  file: string,
  content: string | Uint8Array,
  opts: OutputOptions,
): void {
  checkOutputFile(file, opts);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = writeTemp(file, content);
    try {
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  } catch (e) {
    if (e instanceof NxdmaError) throw e;
    throw fileError(
      opts.option,
      `cannot write ${file}: ${(e as Error).message}`,
      'a writable file',
      file,
    );
  }
}
