/**
 * The interchange formats `nxdma regs export` writes, in a module of their own so the command's
 * options can name them without loading the exporters.
 */
export const EXPORT_FORMATS = ['svd', 'ipxact', 'c-header'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(v: string): v is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(v);
}
