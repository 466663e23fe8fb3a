/**
 * The UDMA registers and fields the driver uses, resolved by path from the loaded register models
 * (csr/schemas/udma_m2s.json, udma_s2m.json) as the csr resolved-register vocabulary
 * (csr/runtime/resolved.ts). Only names appear here: every offset, bit position, reset value and
 * provenance comes from the model.
 */
import { NxdmaError, hex } from '../../common/errors.ts';
import type { RegisterIO, UdmaUnitIO } from '../../csr/io.ts';
import {
  resolveRegister,
  type ResolvedField,
  type ResolvedRegister,
} from '../../csr/runtime/resolved.ts';
import { regFile } from '../../csr/schema/files.ts';
import { getBlock, type RegFileModel } from '../../csr/schema/model.ts';

/** The two register files of a UDMA unit. */
export type UdmaFileName = 'udma_m2s' | 'udma_s2m';

export const UDMA_FILES: readonly UdmaFileName[] = ['udma_m2s', 'udma_s2m'];

/** One register word of a UDMA file (the csr resolved-register vocabulary). */
export type Reg = ResolvedRegister<UdmaFileName>;

/** One field of a UDMA register word: its FieldSpec (position, `get`, `place`) with its register. */
export type Field = ResolvedField<UdmaFileName>;

/** The loaded model of a UDMA file. */
export function udmaModel(file: UdmaFileName): RegFileModel {
  return regFile(file);
}

/** The window of `file` in a UDMA unit (m2s or s2m). */
export function unitWindow(unit: UdmaUnitIO, file: UdmaFileName): RegisterIO {
  return file === 'udma_m2s' ? unit.m2s : unit.s2m;
}

/** Throws OUT_OF_WINDOW unless both windows of engine `engine`'s unit hold their register file. */
export function checkUnitWindows(unit: UdmaUnitIO, engine: number): void {
  for (const f of UDMA_FILES) {
    const io = unitWindow(unit, f);
    const need = udmaModel(f).size;
    if (!(io.size >= need)) {
      throw new NxdmaError(
        'OUT_OF_WINDOW',
        `udma${engine}: the ${f} window is ${hex(io.size)} bytes, the register file needs ${hex(need)}`,
        {
          where: `udma${engine}.${f}`,
          expected: `a window of at least ${hex(need)} bytes`,
          actual: io.size,
        },
      );
    }
  }
}

/** The register at `path` of `file`; a schema without it is a programming error (REGISTER_UNKNOWN). */
export function reg(file: UdmaFileName, path: string): Reg {
  return resolveRegister<UdmaFileName>(regFile(file), path);
}

/** The field at "register-path.field" of `file`. */
export function field(file: UdmaFileName, path: string): Field {
  const dot = path.lastIndexOf('.');
  return reg(file, path.slice(0, dot)).field(path.slice(dot + 1));
}

/** Number of queues of a UDMA half: the instance count of its queue bundle (M2S_Q / S2M_Q). */
export function queueCount(file: UdmaFileName): number {
  return getBlock(regFile(file), file === 'udma_m2s' ? 'M2S_Q' : 'S2M_Q').arraySize;
}

/**
 * Why writing `names` (the fields a write sets on purpose) to `r` puts an inferred fact on the
 * device (the resolved register's rule, csr/runtime/resolved.ts); empty when it does not.
 */
export function inferredWrite(r: Reg, names: readonly string[]): string[] {
  return r.inferredWrite(names);
}
