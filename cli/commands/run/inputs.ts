/**
 * What `nxdma run` reads and where a directory run may write: the program files a path names,
 * the loop iterations a program asks for (checked against --max-iterations before compiling), and
 * the outputs refused inside the program folder.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { badArg } from '../../input.ts';

/**
 * The program files a path names: the file, or the *.json entries of a directory (sorted). Every
 * entry that is not a directory is listed, so a FIFO, a device or a dangling link named *.json is
 * reported as a failed program (each is read through readInputText, which refuses them).
 */
export function programFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw badArg(
      path,
      `cannot read ${path}: ${(e as Error).message}`,
      'a program file or a directory of programs',
    );
  }
  if (!st.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(path, f))
    .filter((f) => {
      try {
        return !statSync(f).isDirectory();
      } catch {
        return lstatSync(f).isSymbolicLink(); // a dangling link: reported when it is read
      }
    });
  if (files.length === 0)
    throw badArg(path, `no *.json program in ${path}`, 'a directory holding program files');
  return files;
}

/** The loop iterations a program asks for (the sum over its loop blocks), read from its JSON. */
export function loopIterationsOf(json: unknown): { total: number; where: string } {
  let total = 0;
  let where = '$';
  let most = 0;
  const fns = (json as { functions?: unknown })?.functions;
  if (!Array.isArray(fns)) return { total, where };
  fns.forEach((f, fi) => {
    const blocks = (f as { blocks?: unknown })?.blocks;
    if (!Array.isArray(blocks)) return;
    blocks.forEach((b, bi) => {
      const n = (b as { loop?: { iterations?: unknown } })?.loop?.iterations;
      if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return;
      total += n;
      if (n > most) {
        most = n;
        where = `$.functions[${fi}].blocks[${bi}].loop.iterations`;
      }
    });
  });
  return { total, where };
}

/**
 * For a directory run, refuses an output that would land in the program directory with a .json
 * name: the next run of that directory would take it for a program.
 */
export function checkDirectoryRunOutput(file: string, dir: string, option: string): void {
  if (!file.toLowerCase().endsWith('.json')) return;
  let outDir: string;
  let progDir: string;
  try {
    progDir = realpathSync(dir);
    outDir = realpathSync(dirname(resolve(file)));
  } catch {
    return;
  }
  if (outDir === progDir) {
    throw badArg(
      option,
      `${option} ${file} would put .json files into the program directory ${dir}, which the next run of it would read as programs`,
      'an output path outside the program directory, or a name not ending in .json',
      file,
    );
  }
}
