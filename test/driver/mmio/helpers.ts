/** Test helpers for driver/mmio: sparse files standing in for a PCI resource file. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { expectCode } from '../../support/errors.ts';

const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
let counter = 0;
const created: string[] = [];

/** A new sparse file of `size` bytes (tmpfs allocates only the pages that get written). */
export function sparseFile(size: number, tag = 'bar0'): string {
  const p = path.join(dir, `nxdma-mmio-${process.pid}-${counter++}-${tag}`);
  fs.writeFileSync(p, '');
  fs.truncateSync(p, size);
  created.push(p);
  return p;
}

/** A path that does not exist. */
export function missingPath(): string {
  return path.join(dir, `nxdma-mmio-${process.pid}-missing-${counter++}`);
}

export function removeFiles(): void {
  for (const p of created.splice(0)) fs.rmSync(p, { force: true });
}

/** `length` bytes of the file at `offset`, read with fs (not through the mapping). */
export function fileBytes(p: string, offset: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const fd = fs.openSync(p, 'r');
  try {
    fs.readSync(fd, b, 0, length, offset);
  } finally {
    fs.closeSync(fd);
  }
  return b;
}

/** Bytes the file occupies on disk (tmpfs: whole pages written). */
export function allocatedBytes(p: string): number {
  return fs.statSync(p).blocks * 512;
}

/** Mappings of `p` the process still holds (from /proc/self/maps). */
export function mappingsOf(p: string): string[] {
  const real = fs.realpathSync(p);
  return fs
    .readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .filter((l) => l.endsWith(' ' + real) || l.endsWith(' ' + p));
}
