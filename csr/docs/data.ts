/**
 * What the docs show, derived from the loaded models only: page names and anchors, the search
 * index and the encoder/decoder data the pages embed, and the small formatting rules shared by the
 * HTML and Markdown renderers.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type {
  AccessKind,
  BlockModel,
  Provenance,
  RegFileModel,
  RegisterModel,
} from '../schema/model.ts';
import type {
  ClientRegister,
  SearchBlock,
  SearchFile,
  SearchGap,
  SearchIndex,
  SearchRegister,
  SearchUnit,
} from './client.ts';

/** What each provenance means, for badges' tooltips and legends. */
export const PROVENANCE_TITLES: Readonly<Record<Provenance, string>> = {
  seed: 'seed: stated in the vendor sources (the Cayman UDMA CSR schemas; docs/sources.md)',
  public: 'public: stated in the publicly released Linux driver',
  inferred:
    'inferred: our own reading by analogy, unverified; tools never write it to hardware without an explicit opt-in',
};

/** What each access kind means. */
export const ACCESS_TITLES: Readonly<Record<AccessKind, string>> = {
  RW: 'read/write',
  RO: 'read-only: writes are ignored',
  WO: 'write-only: reads return 0',
  INC: 'doorbell: a write adds the written value to another register field; reads return 0',
  W1C: 'read; writing 1 clears a bit',
  RC: 'read; a read clears',
};

/** Page names the generator uses itself; a register file may not be called so. */
export const RESERVED_PAGES = ['index', 'gaps'] as const;

/** Checks that the files can share one site: distinct names, none a reserved page name. */
export function checkFiles(files: readonly RegFileModel[]): void {
  if (files.length === 0) {
    throw new NxdmaError('BAD_ARGUMENT', 'no register files to document', {
      where: 'docs',
      expected: 'at least one register file',
      actual: 0,
    });
  }
  const seen = new Map<string, string>();
  for (const f of files) {
    if ((RESERVED_PAGES as readonly string[]).includes(f.name)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${f.source}: register file name '${f.name}' is a page name of the docs site`,
        {
          where: f.source,
          expected: `a name other than ${RESERVED_PAGES.join(', ')}`,
          actual: f.name,
        },
      );
    }
    const prev = seen.get(f.name);
    if (prev !== undefined) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${f.source}: register file '${f.name}' is documented twice (also ${prev})`,
        { where: f.source, expected: 'register files with distinct names', actual: f.name },
      );
    }
    seen.set(f.name, f.source);
  }
}

/** Anchor (HTML id, Markdown heading target, SVG file stem) of a register: "M2S_Q.dwrr_cfg_2". */
export function registerAnchor(reg: RegisterModel): string {
  return reg.block === null ? reg.name : `${reg.block}.${reg.name}`;
}

/** Anchor of a block: "block-M2S_Q". */
export function blockAnchor(block: BlockModel): string {
  return `block-${block.name}`;
}

/** Anchor of a known gap on the gaps page: "gap-udma_s2m-S2M_Q.q_qos". */
export function gapAnchor(file: RegFileModel, block: string | null, name: string): string {
  return `gap-${file.name}-${block === null ? '' : block + '.'}${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

export function htmlPage(file: RegFileModel): string {
  return `${file.name}.html`;
}

export function mdPage(file: RegFileModel): string {
  return `${file.name}.md`;
}

/** Relative path of a register's diagram in the Markdown output. */
export function svgPath(file: RegFileModel, reg: RegisterModel): string {
  return `svg/${file.name}/${registerAnchor(reg)}.svg`;
}

/** Every register of a file in page order: blocks by base (registers by offset), then top-level. */
export function pageRegisters(file: RegFileModel): RegisterModel[] {
  return [...file.blocks.flatMap((b) => b.registers), ...file.registers];
}

/** "0x00000084": a 32-bit word. */
export function hexWord(v: number): string {
  return hex(v >>> 0, 8);
}

/** "7:0", or "16" for a one-bit field. */
export function bitsText(msb: number, lsb: number): string {
  return msb === lsb ? String(lsb) : `${msb}:${lsb}`;
}

/** "0x1f" or "5" (values up to 9 in decimal). */
export function valueText(v: number): string {
  return v <= 9 ? String(v) : hex(v);
}

/** Where the register sits, in words: offsets, instances and register-array entries. */
export interface Placement {
  /** Offset within the block instance (or window). */
  readonly offset: number;
  /** Absolute offset of the first word (block instance 0, entry 0). */
  readonly first: number;
  /** Absolute offset of the last word. */
  readonly last: number;
  /** Block instances (1 for a single block or a top-level register). */
  readonly instances: number;
  readonly blockStride: number;
  /** Register-array entries (1 when not an array). */
  readonly entries: number;
  readonly entryStride: number;
  /** Number of words: instances * entries. */
  readonly words: number;
}

export function placement(file: RegFileModel, reg: RegisterModel): Placement {
  const insts = file.instances.filter((i) => i.register === reg);
  const block = reg.block === null ? null : file.blocks.find((b) => b.name === reg.block);
  return {
    offset: reg.offset,
    first: insts[0].offset,
    last: insts[insts.length - 1].offset,
    instances: block ? block.arraySize : 1,
    blockStride: block ? block.stride : 0,
    entries: reg.array ? reg.array.size : 1,
    entryStride: reg.array ? reg.array.stride : 0,
    words: insts.length,
  };
}

/** The encoder/decoder data of one register. */
export function clientRegister(reg: RegisterModel): ClientRegister {
  return {
    path: registerAnchor(reg),
    reset: reg.reset >>> 0,
    fields: reg.fields.map((f) => ({
      name: f.name,
      lsb: f.lsb,
      width: f.width,
      access: f.access,
      enums: f.enums.map((e) => ({ name: e.name, value: e.value })),
    })),
  };
}

function searchText(parts: readonly (string | null | undefined)[]): string {
  return parts
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .join(' ')
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

function searchRegister(reg: RegisterModel): SearchRegister {
  return {
    name: reg.name,
    anchor: registerAnchor(reg),
    offset: reg.offset,
    count: reg.array ? reg.array.size : 1,
    stride: reg.array ? reg.array.stride : 0,
    access: reg.access,
    provenance: reg.provenance,
    fields: reg.fields.map((f) => f.name),
    text: searchText([
      reg.block,
      reg.name,
      reg.description,
      reg.provenanceNote,
      ...reg.fields.flatMap((f) => [
        f.name,
        f.description,
        f.provenanceNote,
        ...f.enums.flatMap((e) => [e.name, e.description]),
      ]),
    ]),
  };
}

/** The search index of a set of register files (every page embeds the same one). */
export function searchIndex(
  files: readonly RegFileModel[],
  unit: SearchUnit | null = null,
): SearchIndex {
  const sfiles: SearchFile[] = files.map((file) => {
    const blocks: SearchBlock[] = file.blocks.map((b) => ({
      name: b.name,
      anchor: blockAnchor(b),
      base: b.base,
      count: b.arraySize,
      stride: b.stride,
      indexed: b.indexed,
      regs: b.registers.map(searchRegister),
    }));
    if (file.registers.length) {
      blocks.push({
        name: null,
        anchor: null,
        base: 0,
        count: 1,
        stride: file.size,
        indexed: false,
        regs: file.registers.map(searchRegister),
      });
    }
    return { name: file.name, page: htmlPage(file), size: file.size, blocks };
  });
  const gaps: SearchGap[] = files.flatMap((file) =>
    file.knownGaps.map((g) => ({
      file: file.name,
      page: 'gaps.html',
      anchor: gapAnchor(file, g.block, g.name),
      block: g.block,
      name: g.name,
      provenance: g.provenance,
      text: searchText([g.block, g.name, g.description]),
    })),
  );
  const names = new Set(files.map((f) => f.name));
  const u =
    unit === null
      ? null
      : {
          name: unit.name,
          windows: unit.windows
            .filter((w) => names.has(w.file))
            .map((w) => ({ file: w.file, offset: w.offset })),
          ...(unit.groups
            ? {
                groups: unit.groups.map((g) => ({
                  first: g.first,
                  count: g.count,
                  base: g.base,
                  stride: g.stride,
                })),
              }
            : {}),
        };
  return { files: sfiles, gaps, unit: u };
}
