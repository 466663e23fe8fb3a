/**
 * The page search (csr/docs/client/results.js, search.js), evaluated from the very text the pages
 * embed: by path, words and address, over every register of the shipped files.
 */
import { describe, expect, it } from 'vitest';
import { hex } from '../../../../common/errors.ts';
import { loadClientLogic } from '../../../../csr/docs/client.ts';
import { searchIndex } from '../../../../csr/docs/data.ts';
import { findInstance } from '../../../../csr/schema/model.ts';
import { shippedModels, trn2Unit } from '../helpers.ts';

const L = loadClientLogic();
const models = shippedModels();
const index = searchIndex(models, trn2Unit());
const [m2s, s2m] = models;

describe('page logic: search', () => {
  it('0x1084 finds M2S_Q[0].dwrr_cfg_2 first', () => {
    const [first] = L.search(index, '0x1084');
    expect(first).toMatchObject({
      kind: 'register',
      file: 'udma_m2s',
      path: 'M2S_Q[0].dwrr_cfg_2',
      offset: 0x1084,
      instance: 0,
    });
    expect(L.resultHref(first)).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
  });

  it('every word of every file is found by its address, in the right instance', () => {
    for (const m of models) {
      for (const inst of m.instances) {
        const hits = L.search(index, `${m.name} ${hex(inst.offset)}`);
        expect(hits[0], `${m.name} ${hex(inst.offset)}`).toMatchObject({
          file: m.name,
          path: inst.path,
          offset: inst.offset,
        });
        // Any byte of the word resolves to the word.
        const byte = L.search(index, `${m.name} ${hex(inst.offset + 3)}`)[0];
        expect(byte.path).toBe(inst.path);
        expect(byte.note).toContain('byte 3');
      }
    }
  });

  it('an address inside a repeated block but on no register names the instance and the offset', () => {
    const q = m2s.blocks.find((b) => b.name === 'M2S_Q')!;
    const used = new Set(q.registers.map((r) => r.offset));
    let rel = 0;
    while (used.has(rel)) rel += 4;
    const addr = q.base + 5 * q.stride + rel;
    const hit = L.search(index, `m2s ${hex(addr)}`)[0];
    expect(hit).toMatchObject({ kind: 'block', path: `M2S_Q[5] + ${hex(rel)}`, instance: 5 });
  });

  it('an address inside the UDMA unit resolves to the register file that holds it', () => {
    const unit = trn2Unit();
    const w = unit.windows.find((x) => x.file === 'udma_s2m')!;
    const inst = findInstance(s2m, 'S2M_Q[3].comp_cfg')!;
    const hits = L.search(index, hex(w.offset + inst.offset));
    expect(hits[0]).toMatchObject({
      file: 'udma_s2m',
      path: 'S2M_Q[3].comp_cfg',
      offset: inst.offset,
    });
    expect(hits[0].note).toContain('trn2 unit');
  });

  it('decimal addresses work as well', () => {
    expect(L.search(index, '4228')[0].path).toBe('M2S_Q[0].dwrr_cfg_2');
  });

  it('every word is found by its path, with its offset', () => {
    for (const m of models) {
      for (const inst of m.instances) {
        const hit = L.search(index, `${m.name} ${inst.path}`)[0];
        expect(hit, inst.path).toMatchObject({
          path: inst.path,
          offset: inst.offset,
          file: m.name,
        });
        expect(L.resultHref(hit)).toBe(`${m.name}.html#${inst.path}`);
      }
    }
  });

  it('a path without an index names every instance; an index out of range finds nothing', () => {
    const [hit] = L.search(index, 'dwrr_cfg_2');
    expect(hit).toMatchObject({ path: 'M2S_Q[0..15].dwrr_cfg_2', instance: null, offset: 0x1084 });
    expect(hit.note).toContain('16 instances');
    expect(L.resultHref(hit)).toBe('udma_m2s.html#M2S_Q.dwrr_cfg_2');
    expect(L.search(index, 'M2S_Q[16].dwrr_cfg_2')).toEqual([]);
    expect(L.search(index, 'priority_class_map[4]')).toEqual([]);
  });

  it('prefixes, fields and blocks match while typing', () => {
    const paths = L.search(index, 'M2S_Q[3].dwrr').map((r) => r.path);
    expect(paths.slice(0, 3)).toEqual([
      'M2S_Q[3].dwrr_cfg_1',
      'M2S_Q[3].dwrr_cfg_2',
      'M2S_Q[3].dwrr_cfg_3',
    ]);
    expect(L.search(index, 'dwrr_cfg_2.q_qos')[0]).toMatchObject({
      kind: 'field',
      path: 'M2S_Q[0..15].dwrr_cfg_2.q_qos',
      hash: 'M2S_Q.dwrr_cfg_2.q_qos',
    });
    expect(L.search(index, 'M2S_Q[3]')[0]).toMatchObject({ kind: 'block', path: 'M2S_Q[3]' });
    expect(L.search(index, 'M2S_Q.')[0]).toMatchObject({ kind: 'block' });
  });

  it('q_qos finds the M2S field and the S2M known gap (without an offset)', () => {
    const hits = L.search(index, 'q_qos');
    expect(hits.find((h) => h.kind === 'field')!.path).toBe('M2S_Q[0..15].dwrr_cfg_2.q_qos');
    const gap = hits.find((h) => h.kind === 'gap')!;
    expect(gap).toMatchObject({ file: 'udma_s2m', path: 'S2M_Q.q_qos', offset: null });
    expect(L.resultHref(gap)).toBe('gaps.html#gap-udma_s2m-S2M_Q.q_qos');
  });

  it('words search the descriptions', () => {
    const paths = L.search(index, 'initial deficit').map((h) => h.path);
    expect(paths).toContain('M2S_dwrr.ctrl_deficit_cnt');
    expect(L.search(index, 'doorbell').map((h) => h.path)).toContain('M2S_Q[0..15].tdrtp_inc');
    expect(L.search(index, 'no such words at all')).toEqual([]);
    expect(L.search(index, '   ')).toEqual([]);
  });

  it('a register-file name limits the search to that file', () => {
    const hits = L.search(index, 's2m 0x1054');
    expect(hits.every((h) => h.file === 'udma_s2m')).toBe(true);
    expect(hits[0].path).toBe('S2M_Q[0].comp_cfg');
    expect(L.search(index, 'udma_m2s:cfg').every((h) => h.file === 'udma_m2s')).toBe(true);
  });

  it('results are sorted and limited', () => {
    const all = L.search(index, 'cfg', 1000);
    expect(all.length).toBeGreaterThan(20);
    for (let i = 1; i < all.length; i++)
      expect(all[i - 1].score).toBeGreaterThanOrEqual(all[i].score);
    expect(L.search(index, 'cfg', 5)).toHaveLength(5);
  });
});
