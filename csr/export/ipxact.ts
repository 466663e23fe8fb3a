/**
 * IP-XACT (IEEE 1685-2014) of the register files: one component, one memoryMap per register file
 * holding one addressBlock over the file's window (baseAddress, range, width 32, usage register),
 * one registerFile per block (a repeated bundle such as M2S_Q[16] has dim 16 and its stride as
 * range), registers with addressOffset, size 32, access and fields (bitOffset, resets, bitWidth,
 * access, enumeratedValues, modifiedWriteValue / readAction for W1C, RC and INC). A register
 * array (priority_class_map[4]) is a register with a dim (one with a stride other than 4 bytes, a
 * registerFile with a dim holding the register).
 *
 * Numbers are written as SystemVerilog literals ('h1084), as IP-XACT 2014 expressions are.
 * Provenance is both a description tag and a vendor extension (nxdma:provenance,
 * nxdma:inferred, nxdma:provenanceNote) on every registerFile, register and field.
 */
import type { BlockModel, FieldModel, Provenance, RegisterModel } from '../schema/model.ts';
import {
  GENERATOR,
  accessWords,
  blockProvenanceTag,
  checkAddress,
  doorbellNote,
  exportFields,
  fieldProvenanceTag,
  registerProvenanceTag,
  withTag,
  type ExportFile,
  type ExportTarget,
} from './common.ts';
import { el, leaf, xmlDocument, type XmlElement } from './xml.ts';

export const IPXACT_NS = 'http://www.accellera.org/XMLSchema/IPXACT/1685-2014';
/** Namespace of the nxdma vendor extensions (a URN: an identifier, not a location). */
export const NXDMA_NS = 'urn:nxdma:ipxact-extensions:1';

/** A number as a SystemVerilog based literal: 'h1084. */
export function svHex(n: number): string {
  return `'h${n.toString(16)}`;
}

const ix = (name: string) => `ipxact:${name}`;
const ixLeaf = (name: string, text: string | number | null | undefined) => leaf(ix(name), text);

function provenanceExtension(p: Provenance, inferred: boolean, note: string | null): XmlElement {
  return el(
    ix('vendorExtensions'),
    null,
    leaf('nxdma:provenance', p),
    leaf('nxdma:inferred', String(inferred)),
    note ? leaf('nxdma:provenanceNote', note) : null,
  );
}

function field(f: FieldModel): XmlElement {
  const a = accessWords(f.access);
  return el(
    ix('field'),
    null,
    ixLeaf('name', f.name),
    ixLeaf('description', withTag(f.description, fieldProvenanceTag(f))),
    ixLeaf('bitOffset', f.lsb),
    f.resetKnown
      ? el(ix('resets'), null, el(ix('reset'), null, ixLeaf('value', svHex(f.reset))))
      : null,
    ixLeaf('bitWidth', f.width),
    ixLeaf('access', a.access),
    f.enums.length
      ? el(
          ix('enumeratedValues'),
          null,
          f.enums.map((e) =>
            el(
              ix('enumeratedValue'),
              null,
              ixLeaf('name', e.name),
              e.description.trim() ? ixLeaf('description', e.description.trim()) : null,
              ixLeaf('value', svHex(e.value)),
            ),
          ),
        )
      : null,
    ixLeaf('modifiedWriteValue', a.modifiedWriteValue),
    ixLeaf('readAction', a.readAction),
    provenanceExtension(f.provenance, f.inferred, f.provenanceNote),
  );
}

function register(reg: RegisterModel): XmlElement {
  if (reg.array && reg.array.stride !== 4) {
    // IP-XACT 2014 places the elements of a register array one register size apart: a wider
    // stride is written as a registerFile array (range = stride) holding the register.
    return el(
      ix('registerFile'),
      null,
      ixLeaf('name', reg.name),
      ixLeaf(
        'description',
        `${reg.name}[${reg.array.size}], one word every ${reg.array.stride} bytes.`,
      ),
      ixLeaf('dim', reg.array.size),
      ixLeaf('addressOffset', svHex(reg.offset)),
      ixLeaf('range', svHex(reg.array.stride)),
      registerElement({ ...reg, offset: 0, array: null }),
      provenanceExtension(reg.provenance, reg.inferred, reg.provenanceNote),
    );
  }
  return registerElement(reg);
}

function registerElement(reg: RegisterModel): XmlElement {
  const a = accessWords(reg.access);
  const text = [reg.description, doorbellNote(reg)].filter(Boolean).join(' ');
  return el(
    ix('register'),
    null,
    ixLeaf('name', reg.name),
    ixLeaf('description', withTag(text, registerProvenanceTag(reg))),
    reg.array ? ixLeaf('dim', reg.array.size) : null,
    ixLeaf('addressOffset', svHex(reg.offset)),
    ixLeaf('size', 32),
    ixLeaf('access', a.access),
    exportFields(reg).map(field),
    provenanceExtension(reg.provenance, reg.inferred, reg.provenanceNote),
  );
}

function registerFile(b: BlockModel): XmlElement {
  return el(
    ix('registerFile'),
    null,
    ixLeaf('name', b.name),
    ixLeaf(
      'description',
      withTag(b.description, blockProvenanceTag(b.provenance, b.provenanceNote)),
    ),
    b.indexed ? ixLeaf('dim', b.arraySize) : null,
    ixLeaf('addressOffset', svHex(b.base)),
    ixLeaf('range', svHex(b.stride)),
    b.registers.map(register),
    provenanceExtension(b.provenance, b.provenance === 'inferred', b.provenanceNote),
  );
}

function memoryMap(f: ExportFile): XmlElement {
  const m = f.model;
  return el(
    ix('memoryMap'),
    null,
    ixLeaf('name', m.name),
    ixLeaf('description', `${m.description.trim()} (schema ${m.source})`),
    el(
      ix('addressBlock'),
      null,
      ixLeaf('name', m.name),
      ixLeaf('description', `The ${m.name} window at ${f.baseOf}.`),
      ixLeaf('baseAddress', svHex(checkAddress(f.base, `${m.name} base`))),
      ixLeaf('range', svHex(m.size)),
      ixLeaf('width', 32),
      ixLeaf('usage', 'register'),
      m.blocks.map(registerFile),
      m.registers.map(register),
    ),
    ixLeaf('addressUnitBits', 8),
  );
}

export function exportIpxact(target: ExportTarget): string {
  const component = el(
    ix('component'),
    {
      'xmlns:ipxact': IPXACT_NS,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xmlns:nxdma': NXDMA_NS,
      'xsi:schemaLocation': `${IPXACT_NS} ${IPXACT_NS}/index.xsd`,
    },
    ixLeaf('vendor', GENERATOR.name),
    ixLeaf('library', 'registers'),
    ixLeaf('name', target.name),
    ixLeaf('version', GENERATOR.version),
    el(ix('memoryMaps'), null, target.files.map(memoryMap)),
    ixLeaf(
      'description',
      `UDMA / DGE register files (${target.files.map((f) => f.model.name).join(', ')}). ${target.addressing}`,
    ),
  );
  return xmlDocument(
    component,
    `Generated by ${GENERATOR.name} ${GENERATOR.version} (nxdma regs export, format ipxact) from the register schemas; do not edit.`,
  );
}
