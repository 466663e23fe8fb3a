/**
 * The C header export, compiled by the machine's C compiler: the test writes one `_Static_assert`
 * per number the schema model states (file bases and sizes, block bases, counts and strides,
 * every register's offset, the address of every register word, reset values and masks, the
 * inferred flag, every field's shift, width, mask and reset, every enumerated value), computed
 * here from the model, and compiles them against the exported header. A compiler that is
 * missing fails the test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportCHeader, exportRegisters, exportTarget } from '../../../csr/export/index.ts';
import { exportFields, type ExportTarget } from '../../../csr/export/common.ts';
import { parseRegFile } from '../../../csr/schema/loader.ts';
import { allRegisters, type RegFileModel } from '../../../csr/schema/model.ts';
import { registerFileOffset } from '../../../csr/profiles.ts';

const CC = process.env.CC ?? 'cc';
const dir = mkdtempSync(join(tmpdir(), 'nxdma-cheader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const up = (...parts: string[]) => parts.map((p) => p.toUpperCase()).join('_');
const u = (n: number) => `0x${n.toString(16)}u`;

/** One `_Static_assert(lhs == rhs)` per number of the model, for files exported at `bases`. */
function assertsFor(model: RegFileModel, base: number): string[] {
  const out: string[] = [];
  const eq = (lhs: string, rhs: string) =>
    out.push(`_Static_assert((${lhs}) == (${rhs}), "${lhs.replace(/"/g, '')}");`);
  const f = up(model.name);
  eq(`${f}_BASE`, u(base));
  eq(`${f}_SIZE`, u(model.size));
  for (const b of model.blocks) {
    eq(`${up(model.name, b.name)}_BASE`, u(b.base));
    if (b.arraySize > 1) {
      eq(`${up(model.name, b.name)}_COUNT`, `${b.arraySize}u`);
      eq(`${up(model.name, b.name)}_STRIDE`, u(b.stride));
    }
  }
  const prefix = (blockName: string | null, reg: string) =>
    blockName ? up(model.name, blockName, reg) : up(model.name, reg);
  for (const r of allRegisters(model)) {
    const p = prefix(r.block, r.name);
    eq(`${p}_OFFSET`, u(r.offset));
    if (r.array) {
      eq(`${p}_COUNT`, `${r.array.size}u`);
      eq(`${p}_STRIDE`, u(r.array.stride));
    }
    eq(`${p}_RESET_VALUE`, u(r.reset));
    eq(`${p}_RESET_KNOWN`, u(r.resetKnownMask));
    eq(`${p}_INFERRED`, r.inferred ? '1' : '0');
    const fields = r.fields.length
      ? r.fields
      : [{ name: 'value', lsb: 0, width: 32, mask: 0xffffffff, reset: r.reset, enums: [] }];
    for (const fd of fields) {
      const d = `${p}_${up(fd.name)}`;
      eq(`${d}_SHIFT`, `${fd.lsb}u`);
      eq(`${d}_WIDTH`, `${fd.width}u`);
      eq(`${d}_MASK`, u(fd.mask));
      eq(`${d}_RESET`, u(fd.reset));
      for (const e of fd.enums) eq(`${d}_VAL_${up(e.name)}`, u(e.value));
    }
  }
  // The address of every register word: file base + its absolute offset in the file.
  for (const inst of model.instances) {
    const p = prefix(inst.block?.name ?? null, inst.register.name);
    const args = [
      ...(inst.block && inst.block.arraySize > 1 ? [String(inst.blockIndex)] : []),
      ...(inst.register.array ? [String(inst.index)] : []),
    ];
    eq(args.length ? `${p}_ADDR(${args.join(', ')})` : `${p}_ADDR`, u(base + inst.offset));
  }
  return out;
}

function compile(header: string, asserts: string[], name: string) {
  const h = join(dir, `${name}.h`);
  const c = join(dir, `${name}.c`);
  writeFileSync(h, header);
  writeFileSync(
    c,
    [`#include "${name}.h"`, ...asserts, 'int main(void) { return 0; }', ''].join('\n'),
  );
  const r = spawnSync(
    CC,
    ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic', '-c', c, '-o', join(dir, `${name}.o`)],
    {
      encoding: 'utf8',
    },
  );
  return { status: r.status, out: `${r.error?.message ?? ''}${r.stderr}${r.stdout}` };
}

function expectCompiles(target: ExportTarget, name: string): number {
  const header = exportCHeader(target);
  const asserts = target.files.flatMap((f) => assertsFor(f.model, f.base));
  const r = compile(header, asserts, name);
  expect(r.status, `${CC}: ${r.out}`).toBe(0);
  return asserts.length;
}

describe('c-header export: compiled with _Static_assert against the schema model', () => {
  it('file-relative offsets: every number of the three register files', () => {
    const target = exportTarget();
    const n = expectCompiles(target, 'nxdma_regs');
    const words = target.files.reduce((s, f) => s + f.model.instances.length, 0);
    const fields = target.files.reduce(
      (s, f) => s + allRegisters(f.model).reduce((k, r) => k + exportFields(r).length, 0),
      0,
    );
    // Every word's address and every field's four numbers at least.
    expect(n).toBeGreaterThan(words + 4 * fields);
    expect(words).toBe(676);
  });

  it('trn2 engine 4 and host engine 130: the UDMA files at their BAR0 addresses', () => {
    for (const engine of [4, 130]) {
      const target = exportTarget({ profile: 'trn2', engine });
      expect(target.files.map((f) => f.model.name)).toEqual(['udma_m2s', 'udma_s2m']);
      expect(target.files.map((f) => f.base)).toEqual([
        registerFileOffset('trn2', engine, 'udma_m2s'),
        registerFileOffset('trn2', engine, 'udma_s2m'),
      ]);
      expectCompiles(target, `nxdma_trn2_engine${engine}_regs`);
    }
    // 0x82000000 + 4 * 0x100000 (engine 4) + 0x1000 (M2S_Q) + 3 * 0x1000 + 0x84: M2S_Q[3].dwrr_cfg_2.
    const h = exportRegisters('c-header', { engine: 4 }).content;
    const r = compile(
      h,
      ['_Static_assert(UDMA_M2S_M2S_Q_DWRR_CFG_2_ADDR(3) == 0x82404084u, "bar0");'],
      'bar0',
    );
    expect(r.status, r.out).toBe(0);
  });

  it('the asserts can fail: a wrong offset is a compile error naming it', () => {
    const header = exportCHeader(exportTarget());
    const r = compile(
      header,
      ['_Static_assert((UDMA_M2S_M2S_Q_DWRR_CFG_2_ADDR(3)) == (0x3088u), "wrong_dwrr_cfg_2");'],
      'wrong',
    );
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/wrong_dwrr_cfg_2/);
  });

  it('is a header: guarded, includable twice, macros only', () => {
    const header = exportCHeader(exportTarget({ files: ['dge_host'] }));
    expect(header).toMatch(/^\/\* Register map of dge_host\./);
    const r = compile(
      `${header}${header}`,
      [
        '_Static_assert(DGE_HOST_PRIORITY_CLASS_MAP_ADDR(2) == 0x20u, "entry 2");',
        '_Static_assert(DGE_HOST_MAILBOX_BITMASK_MASK == 0xffff0000u, "bitmask");',
      ],
      'twice',
    );
    expect(r.status, r.out).toBe(0);
    for (const line of header.split('\n').filter(Boolean)) {
      expect(line).toMatch(/^(#define |#ifndef |#endif|\/\* .* \*\/$)/);
    }
  });

  it('refuses two schema names that would give the same macro', () => {
    const json = (blocks: { name: string; reg: string; at: string }[]) => ({
      RegFile: {
        Name: 'clash',
        Description: 'Two names, one macro.',
        SizeInBytes: 4096,
        RegistersBundleArrays: blocks.map((b) => ({
          Name: b.name,
          Description: 'Block.',
          AddressOffset: b.at,
          ArraySize: 1,
          BundleSizeInBytes: 256,
          Provenance: 'seed',
          Registers: [
            {
              Name: b.reg,
              AddressOffset: '0x0',
              Description: 'Register.',
              Provenance: 'seed',
              Fields: [
                {
                  Name: 'f',
                  Bits: '0:0',
                  Access: 'RW',
                  ResetValue: '0x0',
                  Description: 'Field.',
                  Provenance: 'seed',
                },
              ],
            },
          ],
        })),
      },
    });
    const model = parseRegFile(
      json([
        { name: 'A', reg: 'B_C', at: '0x0' },
        { name: 'A_B', reg: 'C', at: '0x100' },
      ]),
      'clash.json',
    );
    const target: ExportTarget = {
      files: [{ model, base: 0, baseOf: 'the clash window' }],
      profile: null,
      engine: null,
      name: 'clash',
      addressing: '',
    };
    expect(() => exportCHeader(target)).toThrow(/CLASH_A_B_C_OFFSET/);
  });
});
