/**
 * The site model: the register files to document, their search index, the counts and the known
 * gaps, computed once from the loaded models and shared by the HTML and Markdown renderers.
 */
import type { FieldModel, KnownGap, RegFileModel, RegisterModel } from '../schema/model.ts';
import type { SearchIndex, SearchUnit } from './client.ts';
import { checkFiles, pageRegisters, searchIndex } from './data.ts';

export interface DocsCounts {
  readonly registerFiles: number;
  readonly blocks: number;
  /** Register definitions (one per diagram), not words. */
  readonly registers: number;
  /** Register words: block instances and register-array entries expanded. */
  readonly words: number;
  readonly fields: number;
  readonly enumeratedValues: number;
  /** Known to exist, no known offset. */
  readonly unplaced: number;
  readonly inferredRegisters: number;
  readonly inferredFields: number;
}

export interface GapsReport {
  /** Registers a source says exist but does not place (KnownGaps). */
  readonly unplaced: readonly { file: RegFileModel; gap: KnownGap }[];
  /** Registers with anything inferred (block base, placement or a field). */
  readonly inferredRegisters: readonly { file: RegFileModel; reg: RegisterModel }[];
  readonly inferredFields: readonly { file: RegFileModel; reg: RegisterModel; field: FieldModel }[];
  /** Registers documented as one word, with no known fields. */
  readonly wholeWord: readonly { file: RegFileModel; reg: RegisterModel }[];
  /** Registers whose reset value is not fully stated, with the fields concerned (none: the word). */
  readonly resetUnknown: readonly {
    file: RegFileModel;
    reg: RegisterModel;
    fields: readonly FieldModel[];
  }[];
}

export interface DocsSite {
  readonly title: string;
  readonly files: readonly RegFileModel[];
  readonly unit: SearchUnit | null;
  readonly search: SearchIndex;
  readonly counts: DocsCounts;
  readonly gaps: GapsReport;
}

export function collectGaps(files: readonly RegFileModel[]): GapsReport {
  const regs = files.flatMap((file) => pageRegisters(file).map((reg) => ({ file, reg })));
  return {
    unplaced: files.flatMap((file) => file.knownGaps.map((gap) => ({ file, gap }))),
    inferredRegisters: regs.filter(({ reg }) => reg.inferred),
    inferredFields: regs.flatMap(({ file, reg }) =>
      reg.fields.filter((f) => f.inferred).map((field) => ({ file, reg, field })),
    ),
    wholeWord: regs.filter(({ reg }) => reg.fields.length === 0),
    resetUnknown: regs
      .filter(({ reg }) => !reg.resetKnown)
      .map(({ file, reg }) => ({ file, reg, fields: reg.fields.filter((f) => !f.resetKnown) })),
  };
}

/** "1 register", "2 registers". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** One sentence summing up the known gaps (plain text; the renderers escape it). */
export function gapsSummary(g: GapsReport): string {
  return (
    `${count(g.unplaced.length, 'register')} known to exist without a known offset, ` +
    `${count(g.inferredRegisters.length, 'register')} with something inferred ` +
    `(${count(g.inferredFields.length, 'inferred field')}), ` +
    `${count(g.wholeWord.length, 'register')} without known fields.`
  );
}

export interface SiteOptions {
  /** Heading of the site (default "nxdma registers"). */
  readonly title?: string;
  /** Where the register files sit in a UDMA unit, so the search also reads unit addresses. */
  readonly unit?: SearchUnit | null;
}

export function buildSite(files: readonly RegFileModel[], opts: SiteOptions = {}): DocsSite {
  checkFiles(files);
  const unit = opts.unit ?? null;
  const search = searchIndex(files, unit);
  const gaps = collectGaps(files);
  const regs = files.flatMap(pageRegisters);
  return {
    title: opts.title ?? 'nxdma registers',
    files,
    unit: search.unit,
    search,
    gaps,
    counts: {
      registerFiles: files.length,
      blocks: files.reduce((n, f) => n + f.blocks.length, 0),
      registers: regs.length,
      words: files.reduce((n, f) => n + f.instances.length, 0),
      fields: regs.reduce((n, r) => n + r.fields.length, 0),
      enumeratedValues: regs.reduce(
        (n, r) => n + r.fields.reduce((m, f) => m + f.enums.length, 0),
        0,
      ),
      unplaced: gaps.unplaced.length,
      inferredRegisters: gaps.inferredRegisters.length,
      inferredFields: gaps.inferredFields.length,
    },
  };
}
