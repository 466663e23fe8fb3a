/**
 * Register interchange formats generated from the register schemas: CMSIS-SVD (svd.ts), IP-XACT
 * IEEE 1685-2014 (ipxact.ts) and a C header (c-header.ts). `exportRegisters` validates the
 * options, resolves the files and their base addresses (common.ts) and returns the text.
 */
import { NxdmaError } from '../../common/errors.ts';
import { exportCHeader } from './c-header.ts';
import {
  EXPORT_FORMATS,
  countsOf,
  exportTarget,
  isExportFormat,
  type ExportCounts,
  type ExportFormat,
  type ExportOptions,
  type ExportTarget,
} from './common.ts';
import { exportIpxact } from './ipxact.ts';
import { exportSvd } from './svd.ts';

export { EXPORT_FORMATS, exportTarget, isExportFormat } from './common.ts';
export type {
  ExportCounts,
  ExportFile,
  ExportFormat,
  ExportOptions,
  ExportTarget,
} from './common.ts';
export { exportSvd } from './svd.ts';
export { exportIpxact } from './ipxact.ts';
export { exportCHeader } from './c-header.ts';

export interface ExportResult {
  readonly format: ExportFormat;
  /** The exported text (UTF-8, ends with a newline). */
  readonly content: string;
  readonly target: ExportTarget;
  readonly counts: ExportCounts;
}

const WRITERS: Record<ExportFormat, (t: ExportTarget) => string> = {
  svd: exportSvd,
  ipxact: exportIpxact,
  'c-header': exportCHeader,
};

export function exportRegisters(format: string, opts: ExportOptions = {}): ExportResult {
  if (!isExportFormat(format)) {
    throw new NxdmaError('BAD_ARGUMENT', `--format must be one of ${EXPORT_FORMATS.join(', ')}`, {
      where: '--format',
      expected: EXPORT_FORMATS.join(' | '),
      actual: format,
    });
  }
  const target = exportTarget(opts);
  return { format, content: WRITERS[format](target), target, counts: countsOf(target) };
}
