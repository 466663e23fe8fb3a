/**
 * TEMPORARY import point: the window sizes of the register files, until csr/generated (from
 * csr/schemas/*.json, SizeInBytes) lands. This is the only place driver/mmio learns them; it will
 * re-export the generated values.
 */
export const REGISTER_FILE_SIZES = {
  udma_m2s: 0x20000,
  udma_s2m: 0x18000,
  dge_host: 0x38,
} as const;
