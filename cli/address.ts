/**
 * Register lookup by address and by near name, for `nxdma regs read|write|decode`:
 *
 *   0x1084                 a byte offset within a register file (searched in every file, or in
 *                          the one `--file` or a `udma_s2m:` prefix names)
 *   0x82001084 --profile   a BAR0 address: the profile's engine groups and UDMA unit layout give
 *                          the engine, the register file and the offset (udma0 M2S_Q[0].dwrr_cfg_2)
 *
 * and the nearest register names for a path that names none (`dwrr_cfg2` -> `dwrr_cfg_2`).
 */
import { NxdmaError, hex } from '../common/errors.ts';
import { regFile, type RegFileName } from '../csr/schema/files.ts';
import type { RegFileModel, RegisterInstance } from '../csr/schema/model.ts';
import { getProfile, type DeviceProfile, type UdmaRegisterFile } from '../csr/profiles.ts';

/** A BAR0 address resolved through a profile. */
export interface BarLocation {
  profile: string;
  engine: number;
  file: UdmaRegisterFile;
  /** Byte offset within the register file. */
  offset: number;
}

/**
 * The engine, register file and offset a BAR0 address falls in, or null when it lies in no
 * register file of the profile's UDMA units.
 */
export function barLocation(profile: string | DeviceProfile, addr: number): BarLocation | null {
  const p = getProfile(profile);
  for (const g of p.engineGroups) {
    if (addr < g.base) continue;
    const i = g.stride > 0 ? Math.floor((addr - g.base) / g.stride) : 0;
    if (i >= g.count) continue;
    const inUnit = addr - g.base - i * g.stride;
    for (const [file, w] of Object.entries(p.windows) as [
      UdmaRegisterFile,
      { offset: number; size: number },
    ][]) {
      if (inUnit >= w.offset && inUnit < w.offset + w.size) {
        return { profile: p.name, engine: g.first + i, file, offset: inUnit - w.offset };
      }
    }
  }
  return null;
}

/** The register word at `offset` of `model` (any byte of it), or undefined. */
export function instanceAt(model: RegFileModel, offset: number): RegisterInstance | undefined {
  const word = offset - (offset % 4);
  return model.instances.find((i) => i.offset === word);
}

/** Levenshtein distance (case-insensitive). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length];
}

/**
 * The register names of `files` nearest to `name` (a typo): those at the smallest edit distance,
 * if it is at most a third of the name's length (at least 2), up to `limit`.
 */
export function nearestNames(
  name: string,
  files: readonly RegFileName[],
  limit = 4,
): { file: RegFileName; name: string; distance: number }[] {
  const max = Math.max(2, Math.floor(name.length / 3));
  const seen = new Set<string>();
  const all: { file: RegFileName; name: string; distance: number }[] = [];
  for (const f of files) {
    for (const i of regFile(f).instances) {
      const n = i.register.name;
      const key = `${f}:${n}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const d = editDistance(name, n);
      if (d > 0 && d <= max) all.push({ file: f, name: n, distance: d });
    }
  }
  all.sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1));
  const best = all.length ? all[0].distance : 0;
  return all.filter((x) => x.distance === best).slice(0, limit);
}

/** The words of `files` at a file offset; throws REGISTER_UNKNOWN naming the nearest words. */
export function wordsAtOffset(
  files: readonly RegFileName[],
  offset: number,
  spec: string,
): { model: RegFileModel; inst: RegisterInstance }[] {
  if (offset % 4 !== 0) {
    throw new NxdmaError(
      'MISALIGNED',
      `${spec}: register accesses are 32-bit aligned; ${hex(offset)} is byte ${offset % 4} of the word at ${hex(offset - (offset % 4))}`,
      { where: spec, expected: 'a multiple of 4', actual: hex(offset) },
    );
  }
  const hits = files
    .map((n) => regFile(n))
    .map((model) => ({ model, inst: instanceAt(model, offset) }))
    .filter((h): h is { model: RegFileModel; inst: RegisterInstance } => h.inst !== undefined);
  if (hits.length > 0) return hits;
  const inside = files.filter((n) => offset < regFile(n).size);
  throw new NxdmaError(
    'REGISTER_UNKNOWN',
    `no register at offset ${hex(offset)} of ${files.join(', ')}` +
      (inside.length === 0
        ? ` (past the end of every window: ${files.map((n) => `${n} ${hex(regFile(n).size)} bytes`).join(', ')}; a BAR0 address needs --profile)`
        : ''),
    {
      where: spec,
      expected: `the offset of a register word (see nxdma regs list${files.length === 1 ? ` --file ${files[0]}` : ''})`,
      actual: hex(offset),
    },
  );
}
