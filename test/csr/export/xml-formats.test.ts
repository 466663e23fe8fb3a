/**
 * The CMSIS-SVD and IP-XACT exports read back with a real XML parser (fast-xml-parser, through
 * test/mocks/xml.ts: well-formedness checked first) and compared with the schema model field by
 * field: every register file, block, register and field, their offsets, sizes, bit ranges,
 * access, side effects, resets, enumerated values and provenance; the dim arrays expanded give
 * exactly the model's register words at their addresses. No npm package ships the official
 * CMSIS-SVD or IEEE 1685-2014 XSDs, so the structure is checked here instead.
 */
import { describe, expect, it } from 'vitest';
import { exportIpxact, exportSvd, exportTarget } from '../../../csr/export/index.ts';
import type { ExportTarget } from '../../../csr/export/common.ts';
import type {
  AccessKind,
  BlockModel,
  FieldModel,
  RegFileModel,
  RegisterModel,
} from '../../../csr/schema/model.ts';
import { el, leaf, xmlDocument } from '../../../csr/export/xml.ts';
import { fixtureModel } from '../docs/helpers.ts';
import { findAll, parseXml, textOf, type XmlElement } from '../../mocks/xml.ts';

/** The element children of `e` named `name`. */
function kids(e: XmlElement, name: string): XmlElement[] {
  return e.children.filter((c): c is XmlElement => typeof c !== 'string' && c.name === name);
}
function kid(e: XmlElement, name: string): XmlElement {
  const k = kids(e, name);
  if (k.length !== 1) throw new Error(`<${e.name}> has ${k.length} <${name}>`);
  return k[0];
}
function text(e: XmlElement, name: string): string | undefined {
  const k = kids(e, name);
  return k.length ? textOf(k[0]) : undefined;
}

/** SVD numbers: 0x..., decimal. */
function svdNum(s: string | undefined): number {
  if (s === undefined) throw new Error('number missing');
  return /^0x/i.test(s) ? parseInt(s.slice(2), 16) : Number(s);
}
/** IP-XACT numbers: SystemVerilog 'h... literals or decimal. */
function ipNum(s: string | undefined): number {
  if (s === undefined) throw new Error('number missing');
  const m = /^'h([0-9a-f]+)$/i.exec(s);
  return m ? parseInt(m[1], 16) : Number(s);
}

const ACCESS: Record<AccessKind, [string, string | undefined, string | undefined]> = {
  RW: ['read-write', undefined, undefined],
  RO: ['read-only', undefined, undefined],
  WO: ['write-only', undefined, undefined],
  W1C: ['read-write', 'oneToClear', undefined],
  RC: ['read-only', undefined, 'clear'],
  INC: ['write-only', 'modify', undefined],
};

/** The model's fields of a register, with the whole-word field of a register without fields. */
function fieldsOf(
  r: RegisterModel,
): readonly Pick<
  FieldModel,
  'name' | 'lsb' | 'msb' | 'width' | 'access' | 'reset' | 'resetKnown' | 'provenance' | 'enums'
>[] {
  return r.fields.length
    ? r.fields
    : [
        {
          name: 'value',
          lsb: 0,
          msb: 31,
          width: 32,
          access: r.access,
          reset: r.reset,
          resetKnown: r.resetKnown,
          provenance: r.provenance,
          enums: [],
        },
      ];
}

function regsOf(m: RegFileModel, b: BlockModel | null): readonly RegisterModel[] {
  return b ? b.registers : m.registers;
}

/** Every word address of the model, as `path@address`. */
function modelWords(target: ExportTarget): string[] {
  return target.files
    .flatMap((f) => f.model.instances.map((i) => `${f.model.name}:${i.path}@${f.base + i.offset}`))
    .sort();
}

const targets: [string, ExportTarget][] = [
  ['file-relative', exportTarget()],
  ['trn2 engine 37', exportTarget({ profile: 'trn2', engine: 37 })],
];

describe.each(targets)('CMSIS-SVD export read back (%s)', (_, target) => {
  const root = parseXml(exportSvd(target));

  it('is a device with one peripheral per register file at its base address', () => {
    expect(root.name).toBe('device');
    expect(root.attrs.schemaVersion).toBe('1.3');
    expect(text(root, 'name')).toBe(target.name);
    expect(svdNum(text(root, 'addressUnitBits'))).toBe(8);
    expect(svdNum(text(root, 'width'))).toBe(32);
    const ps = kids(kid(root, 'peripherals'), 'peripheral');
    expect(ps.map((p) => text(p, 'name'))).toEqual(target.files.map((f) => f.model.name));
    ps.forEach((p, k) => {
      const f = target.files[k];
      expect(svdNum(text(p, 'baseAddress'))).toBe(f.base);
      expect(svdNum(text(kid(p, 'addressBlock'), 'size'))).toBe(f.model.size);
    });
  });

  it('clusters, registers and fields match the model one by one', () => {
    const ps = kids(kid(root, 'peripherals'), 'peripheral');
    let fields = 0;
    ps.forEach((p, k) => {
      const m = target.files[k].model;
      const regs = kid(p, 'registers');
      const clusters = kids(regs, 'cluster');
      expect(clusters.length).toBe(m.blocks.length);
      const groups: [BlockModel | null, XmlElement][] = [
        ...clusters.map((c, i): [BlockModel, XmlElement] => [m.blocks[i], c]),
        [null, regs],
      ];
      for (const [b, holder] of groups) {
        if (b) {
          expect(text(holder, 'name')).toBe(b.indexed ? `${b.name}[%s]` : b.name);
          expect(svdNum(text(holder, 'addressOffset'))).toBe(b.base);
          if (b.indexed) {
            expect(svdNum(text(holder, 'dim'))).toBe(b.arraySize);
            expect(svdNum(text(holder, 'dimIncrement'))).toBe(b.stride);
          } else expect(text(holder, 'dim')).toBeUndefined();
          expect(text(holder, 'description')).toContain(`[provenance: ${b.provenance}`);
        }
        const xs = kids(holder, 'register');
        const rs = regsOf(m, b);
        expect(xs.length).toBe(rs.length);
        xs.forEach((x, i) => {
          const r = rs[i];
          const where = `${m.name}:${b?.name ?? ''}.${r.name}`;
          expect(text(x, 'name'), where).toBe(r.array ? `${r.name}[%s]` : r.name);
          expect(svdNum(text(x, 'addressOffset')), where).toBe(r.offset);
          expect(svdNum(text(x, 'size')), where).toBe(32);
          if (r.array) {
            expect(svdNum(text(x, 'dim'))).toBe(r.array.size);
            expect(svdNum(text(x, 'dimIncrement'))).toBe(r.array.stride);
          }
          const [acc, mwv, ra] = ACCESS[r.access];
          expect(text(x, 'access'), where).toBe(acc);
          expect(text(x, 'modifiedWriteValues'), where).toBe(mwv);
          expect(text(x, 'readAction'), where).toBe(ra);
          expect(svdNum(text(x, 'resetValue')), where).toBe(r.reset);
          expect(svdNum(text(x, 'resetMask')), where).toBe(r.resetKnownMask);
          const desc = text(x, 'description')!;
          expect(desc, where).toContain(`[provenance: ${r.provenance}`);
          if (r.inferred) for (const why of r.inferredReasons) expect(desc).toContain(why);
          if (r.incrementTarget)
            expect(desc).toContain(`${r.incrementTarget.register}.${r.incrementTarget.field}`);
          const xf = kids(kid(x, 'fields'), 'field');
          const mf = fieldsOf(r);
          expect(
            xf.map((e) => text(e, 'name')),
            where,
          ).toEqual(mf.map((f) => f.name));
          xf.forEach((e, j) => {
            const f = mf[j];
            fields++;
            expect(text(e, 'bitRange')).toBe(`[${f.msb}:${f.lsb}]`);
            const [fa, fm, fr] = ACCESS[f.access];
            expect([
              text(e, 'access'),
              text(e, 'modifiedWriteValues'),
              text(e, 'readAction'),
            ]).toEqual([fa, fm, fr]);
            expect(text(e, 'description')).toContain(`[provenance: ${f.provenance}`);
            const ev = kids(e, 'enumeratedValues').flatMap((v) => kids(v, 'enumeratedValue'));
            expect(ev.map((v) => [text(v, 'name'), svdNum(text(v, 'value'))])).toEqual(
              f.enums.map((en) => [en.name, en.value]),
            );
          });
        });
      }
    });
    expect(fields).toBe(
      target.files.reduce(
        (s, f) =>
          s +
          [...f.model.blocks.flatMap((b) => b.registers), ...f.model.registers].reduce(
            (n, r) => n + fieldsOf(r).length,
            0,
          ),
        0,
      ),
    );
  });

  it('the dim arrays expand to exactly the model register words at their addresses', () => {
    const words: string[] = [];
    const expand = (x: XmlElement): [string, number][] => {
      const name = text(x, 'name')!;
      const at = svdNum(text(x, 'addressOffset'));
      if (text(x, 'dim') === undefined) return [[name, at]];
      const n = svdNum(text(x, 'dim'));
      const step = svdNum(text(x, 'dimIncrement'));
      return Array.from({ length: n }, (_, i): [string, number] => [
        name.replace('%s', String(i)),
        at + i * step,
      ]);
    };
    for (const p of kids(kid(root, 'peripherals'), 'peripheral')) {
      const file = text(p, 'name')!;
      const base = svdNum(text(p, 'baseAddress'));
      const regs = kid(p, 'registers');
      for (const [rn, ro] of kids(regs, 'register').flatMap(expand))
        words.push(`${file}:${rn}@${base + ro}`);
      for (const c of kids(regs, 'cluster'))
        for (const [cn, co] of expand(c))
          for (const [rn, ro] of kids(c, 'register').flatMap(expand))
            words.push(`${file}:${cn}.${rn}@${base + co + ro}`);
    }
    expect(words.sort()).toEqual(modelWords(target));
  });
});

describe.each(targets)('IP-XACT 1685-2014 export read back (%s)', (_, target) => {
  const root = parseXml(exportIpxact(target));

  it('is a component with one memoryMap and addressBlock per register file', () => {
    expect(root.name).toBe('ipxact:component');
    expect(root.attrs['xmlns:ipxact']).toBe('http://www.accellera.org/XMLSchema/IPXACT/1685-2014');
    expect(['vendor', 'library', 'name', 'version'].map((n) => text(root, `ipxact:${n}`))).toEqual([
      'nxdma',
      'registers',
      target.name,
      '0.1.0',
    ]);
    const maps = kids(kid(root, 'ipxact:memoryMaps'), 'ipxact:memoryMap');
    expect(maps.map((m) => text(m, 'ipxact:name'))).toEqual(target.files.map((f) => f.model.name));
    maps.forEach((mm, k) => {
      const ab = kid(mm, 'ipxact:addressBlock');
      expect(ipNum(text(ab, 'ipxact:baseAddress'))).toBe(target.files[k].base);
      expect(ipNum(text(ab, 'ipxact:range'))).toBe(target.files[k].model.size);
      expect(ipNum(text(ab, 'ipxact:width'))).toBe(32);
      expect(text(ab, 'ipxact:usage')).toBe('register');
      expect(ipNum(text(mm, 'ipxact:addressUnitBits'))).toBe(8);
    });
  });

  it('registerFiles, registers and fields match the model, provenance in vendor extensions', () => {
    const maps = kids(kid(root, 'ipxact:memoryMaps'), 'ipxact:memoryMap');
    const ext = (e: XmlElement) => {
      const v = kid(e, 'ipxact:vendorExtensions');
      return { provenance: text(v, 'nxdma:provenance'), inferred: text(v, 'nxdma:inferred') };
    };
    maps.forEach((mm, k) => {
      const m = target.files[k].model;
      const ab = kid(mm, 'ipxact:addressBlock');
      const rfs = kids(ab, 'ipxact:registerFile');
      expect(rfs.map((r) => text(r, 'ipxact:name'))).toEqual(m.blocks.map((b) => b.name));
      const groups: [BlockModel | null, XmlElement][] = [
        ...rfs.map((c, i): [BlockModel, XmlElement] => [m.blocks[i], c]),
        [null, ab],
      ];
      for (const [b, holder] of groups) {
        if (b) {
          expect(ipNum(text(holder, 'ipxact:addressOffset'))).toBe(b.base);
          expect(ipNum(text(holder, 'ipxact:range'))).toBe(b.stride);
          expect(text(holder, 'ipxact:dim')).toBe(b.indexed ? String(b.arraySize) : undefined);
          expect(ext(holder).provenance).toBe(b.provenance);
        }
        const xs = kids(holder, 'ipxact:register');
        const rs = regsOf(m, b);
        expect(xs.map((x) => text(x, 'ipxact:name'))).toEqual(rs.map((r) => r.name));
        xs.forEach((x, i) => {
          const r = rs[i];
          const where = `${m.name}:${b?.name ?? ''}.${r.name}`;
          expect(ipNum(text(x, 'ipxact:addressOffset')), where).toBe(r.offset);
          expect(ipNum(text(x, 'ipxact:size'))).toBe(32);
          expect(text(x, 'ipxact:dim')).toBe(r.array ? String(r.array.size) : undefined);
          expect(text(x, 'ipxact:access'), where).toBe(ACCESS[r.access][0]);
          expect(ext(x), where).toEqual({ provenance: r.provenance, inferred: String(r.inferred) });
          expect(text(x, 'ipxact:description')).toContain(`[provenance: ${r.provenance}`);
          const xf = kids(x, 'ipxact:field');
          const mf = fieldsOf(r);
          expect(
            xf.map((e) => text(e, 'ipxact:name')),
            where,
          ).toEqual(mf.map((f) => f.name));
          xf.forEach((e, j) => {
            const f = mf[j];
            const fw = `${where}.${f.name}`;
            expect(ipNum(text(e, 'ipxact:bitOffset')), fw).toBe(f.lsb);
            expect(ipNum(text(e, 'ipxact:bitWidth')), fw).toBe(f.width);
            const resets = kids(e, 'ipxact:resets');
            if (f.resetKnown) {
              const reset = kid(kid(resets[0], 'ipxact:reset'), 'ipxact:value');
              expect(ipNum(textOf(reset)), fw).toBe(f.reset);
            } else expect(resets, fw).toEqual([]);
            const [fa, fm, fr] = ACCESS[f.access];
            expect(
              [
                text(e, 'ipxact:access'),
                text(e, 'ipxact:modifiedWriteValue'),
                text(e, 'ipxact:readAction'),
              ],
              fw,
            ).toEqual([fa, fm, fr]);
            expect(ext(e).provenance, fw).toBe(f.provenance);
            const ev = kids(e, 'ipxact:enumeratedValues').flatMap((v) =>
              kids(v, 'ipxact:enumeratedValue'),
            );
            expect(ev.map((v) => [text(v, 'ipxact:name'), ipNum(text(v, 'ipxact:value'))])).toEqual(
              f.enums.map((en) => [en.name, en.value]),
            );
          });
        });
      }
    });
  });

  it('the dims expand to exactly the model register words at their addresses', () => {
    const words: string[] = [];
    for (const mm of kids(kid(root, 'ipxact:memoryMaps'), 'ipxact:memoryMap')) {
      const file = text(mm, 'ipxact:name')!;
      const ab = kid(mm, 'ipxact:addressBlock');
      const base = ipNum(text(ab, 'ipxact:baseAddress'));
      const regWords = (holder: XmlElement, prefix: string, at: number) => {
        for (const x of kids(holder, 'ipxact:register')) {
          const name = text(x, 'ipxact:name')!;
          const off = at + ipNum(text(x, 'ipxact:addressOffset'));
          const dim = text(x, 'ipxact:dim');
          const size = ipNum(text(x, 'ipxact:size')) / 8;
          if (dim === undefined) words.push(`${file}:${prefix}${name}@${off}`);
          else
            for (let j = 0; j < Number(dim); j++)
              words.push(`${file}:${prefix}${name}[${j}]@${off + j * size}`);
        }
      };
      regWords(ab, '', base);
      for (const rf of kids(ab, 'ipxact:registerFile')) {
        const name = text(rf, 'ipxact:name')!;
        const off = base + ipNum(text(rf, 'ipxact:addressOffset'));
        const range = ipNum(text(rf, 'ipxact:range'));
        const dim = text(rf, 'ipxact:dim');
        if (dim === undefined) regWords(rf, `${name}.`, off);
        else for (let i = 0; i < Number(dim); i++) regWords(rf, `${name}[${i}].`, off + i * range);
      }
    }
    expect(words.sort()).toEqual(modelWords(target));
  });
});

describe('XML exports: schema text stays text', () => {
  const model = fixtureModel('hostile.json');
  const target: ExportTarget = {
    files: [{ model, base: 0, baseOf: 'the hostile window' }],
    profile: null,
    engine: null,
    name: 'hostile',
    addressing: 'Offsets.',
  };

  it('markup in descriptions and notes reads back as the same characters, in both formats', () => {
    const reg = model.blocks[0].registers.find((r) => r.name === 'ctrl')!;
    for (const [xml, prefix] of [
      [exportSvd(target), ''],
      [exportIpxact(target), 'ipxact:'],
    ] as const) {
      const root = parseXml(xml);
      const names = new Set(findAll(root, () => true).map((e) => e.name));
      for (const bad of ['script', 'img', 'iframe', 'b']) expect(names.has(bad)).toBe(false);
      const regEl = findAll(root, (e) => e.name === `${prefix}register`).find(
        (e) => text(e, `${prefix}name`) === 'ctrl',
      )!;
      const desc = text(regEl, `${prefix}description`)!;
      expect(desc.startsWith(reg.description.trim())).toBe(true);
      expect(desc).toContain(reg.provenanceNote!);
    }
  });
});

describe('XML writer (csr/export/xml.ts)', () => {
  it('escapes markup, replaces characters XML forbids, keeps surrogate pairs, and makes a safe comment', () => {
    const nasty = `a<b>&"c'\u0001\u000b\ud800x\ud83d\ude00 -- end-`;
    const doc = xmlDocument(el('r', { t: nasty }, leaf('d', nasty)), `note -- with --- dashes-`);
    const root = parseXml(doc);
    const expected = `a<b>&"c'\ufffd\ufffd\ufffdx\ud83d\ude00 -- end-`;
    expect(root.attrs.t).toBe(expected);
    expect(text(root, 'd')).toBe(expected);
    const comment = /<!--([\s\S]*?)-->/.exec(doc)![1];
    expect(comment).not.toMatch(/--/);
    expect(comment.endsWith('-')).toBe(false);
  });
});
