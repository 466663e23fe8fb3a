/**
 * The generated pages' own inline script, run against the parsed page (dom.ts, happy-dom): the search
 * box, the encoder/decoders, the radix toggle, word selection from the URL fragment and the
 * ?q= / ?decode= parameters.
 */
import { describe, expect, it } from 'vitest';
import { hex } from '../../../common/errors.ts';
import { decodeFields, encodeFields } from '../../../csr/runtime/index.ts';
import { toRegisterMap } from '../../../csr/schema/map.ts';
import { findInstance } from '../../../csr/schema/model.ts';
import { fileOf, shippedBuild, shippedModels } from './helpers.ts';
import { all, byId, one, runPage, type El, type PageRun } from './dom.ts';

const build = shippedBuild();
const [m2s] = shippedModels();
const cfgSched = m2s.blocks
  .find((b) => b.name === 'M2S_dwrr')!
  .registers.find((r) => r.name === 'cfg_sched')!;

function codecOf(run: PageRun, anchor: string) {
  const c = all(run.document, '.codec').find((x) => x.getAttribute('data-reg') === anchor)!;
  const field = (name: string) => one(c, `input.fv[data-field="${name}"]`);
  const enumOf = (name: string) =>
    one(field(name).parentElement!.parentElement!, '.en').textContent;
  return {
    el: c,
    raw: one(c, 'input.raw'),
    radix: one(c, 'button.radix'),
    reset: one(c, 'button.reset'),
    alt: one(c, '.alt'),
    err: one(c, '.err'),
    field,
    enumOf,
    values: () =>
      Object.fromEntries(all(c, 'input.fv').map((i) => [i.getAttribute('data-field'), i.value])),
  };
}

function links(list: El): string[] {
  return all(list, 'a').map((a) => a.getAttribute('href')!);
}

describe('page script: search', () => {
  it('typing 0x1084 on the index lists M2S_Q[0].dwrr_cfg_2 first; Enter opens it; Escape clears', () => {
    const run = runPage(fileOf(build, 'html/index.html'));
    const box = byId(run.document, 'search');
    const list = byId(run.document, 'search-results');
    expect(list.hidden).toBe(true);
    run.type(box, '0x1084');
    expect(list.hidden).toBe(false);
    const first = one(list, 'a');
    expect(one(first, 'code').textContent).toBe('M2S_Q[0].dwrr_cfg_2');
    expect(first.getAttribute('href')).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
    expect(one(first, '.meta').textContent).toContain('0x1084');
    run.key(box, 'Enter');
    expect(run.location.href).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
    run.key(box, 'Escape');
    expect(box.value).toBe('');
    expect(list.hidden).toBe(true);
  });

  it('an address in a later queue resolves to that instance; paths and words search too', () => {
    const run = runPage(fileOf(build, 'html/udma_s2m.html'));
    const box = byId(run.document, 'search');
    const list = byId(run.document, 'search-results');
    run.type(box, hex(findInstance(m2s, 'M2S_Q[7].dwrr_cfg_2')!.offset));
    expect(links(list)[0]).toBe('udma_m2s.html#M2S_Q[7].dwrr_cfg_2');
    run.type(box, 'M2S_rd.desc_pref_cfg_2.pref_force_rr');
    expect(links(list)[0]).toBe('udma_m2s.html#M2S_rd.desc_pref_cfg_2.pref_force_rr');
    run.type(box, 'round robin');
    expect(links(list).length).toBeGreaterThan(2);
    run.type(box, 'zzzz nothing');
    expect(one(list, 'li.none').textContent).toContain('zzzz nothing');
  });

  it('"/" focuses the search box; ?q= fills it on load', () => {
    const run = runPage(fileOf(build, 'html/gaps.html'), { search: '?q=0x3084' });
    const box = byId(run.document, 'search');
    expect(box.value).toBe('0x3084');
    expect(links(byId(run.document, 'search-results'))[0]).toBe(
      'udma_m2s.html#M2S_Q[2].dwrr_cfg_2',
    );
    run.key(run.document.body as unknown as El, '/');
    expect(run.focusCount(box)).toBe(1);
    expect(run.document.activeElement).toBe(box);
  });
});

describe('page script: encoder/decoder', () => {
  const page = fileOf(build, 'html/udma_m2s.html');
  const map = toRegisterMap(cfgSched);
  const hexFields = (word: number) =>
    Object.fromEntries(
      cfgSched.fields.map((f) => [
        f.name,
        '0x' +
          decodeFields(map, word)
            [f.name].toString(16)
            .padStart(Math.ceil(f.width / 4), '0'),
      ]),
    );

  it('starts at the reset word; typing a value shows the fields and their enumerated names', () => {
    const run = runPage(page);
    const c = codecOf(run, 'M2S_dwrr.cfg_sched');
    expect(c.raw.value).toBe(hex(cfgSched.reset, 8));
    expect(c.values()).toEqual(hexFields(cfgSched.reset));
    const word = 0x00030111;
    run.type(c.raw, hex(word));
    expect(c.values()).toEqual(hexFields(word));
    expect(c.enumOf('en_dwrr')).toBe('dwrr');
    expect(c.enumOf('pkt_mode_en')).toBe('packet');
    expect(c.alt.textContent).toContain(`dec ${word}`);
    expect(c.err.textContent).toBe('');
    // In hex mode, digits without a prefix are hex.
    run.type(c.raw, '111');
    expect(c.values()).toEqual(hexFields(0x111));
  });

  it('editing a field changes the value (numbers or enumerated names); other fields keep theirs', () => {
    const run = runPage(page);
    const c = codecOf(run, 'M2S_dwrr.cfg_sched');
    run.type(c.raw, '0x00000000');
    run.type(c.field('inc_factor'), '0x7');
    expect(c.raw.value).toBe(hex(encodeFields(map, { inc_factor: 7 }, 0), 8));
    run.type(c.field('en_dwrr'), 'dwrr');
    expect(c.raw.value).toBe(hex(encodeFields(map, { inc_factor: 7, en_dwrr: 1 }, 0), 8));
    expect(c.enumOf('en_dwrr')).toBe('dwrr');
    expect(c.field('inc_factor').value).toBe('0x7');
  });

  it('refuses bad input without changing anything', () => {
    const run = runPage(page);
    const c = codecOf(run, 'M2S_dwrr.cfg_sched');
    run.type(c.raw, '0x00010011');
    const before = c.values();
    run.type(c.raw, '0xzz');
    expect(c.raw.classList.contains('bad')).toBe(true);
    expect(c.err.textContent).toMatch(/not a hex number/);
    expect(c.values()).toEqual(before);
    run.type(c.raw, '0x1_0000_0000');
    expect(c.err.textContent).toMatch(/32 bits/);
    run.type(c.raw, '0x00010011');
    expect(c.raw.classList.contains('bad')).toBe(false);
    run.type(c.field('weight_inc'), '4');
    expect(c.field('weight_inc').classList.contains('bad')).toBe(true);
    expect(c.err.textContent).toMatch(/weight_inc: 4 does not fit 2 bits/);
    expect(c.raw.value).toBe('0x00010011');
  });

  it('the radix toggle cycles hex, dec, bin and reformats the value and the fields', () => {
    const run = runPage(page);
    const c = codecOf(run, 'M2S_dwrr.cfg_sched');
    run.type(c.raw, '0x00070211', true);
    run.click(c.radix);
    expect(c.radix.textContent).toBe('dec');
    expect(c.raw.value).toBe(String(0x00070211));
    expect(c.field('inc_factor').value).toBe('7');
    run.type(c.raw, '255');
    expect(c.field('en_dwrr').value).toBe('1');
    run.click(c.radix);
    expect(c.radix.textContent).toBe('bin');
    expect(c.raw.value).toBe('0b' + '0000_0000_0000_0000_0000_0000_1111_1111');
    expect(c.field('pkt_mode_en').value).toBe('0b1');
    expect(c.field('weight_inc').value).toBe('0b00');
    run.click(c.radix);
    expect(c.radix.textContent).toBe('hex');
    expect(c.raw.value).toBe('0x000000ff');
    run.click(c.reset);
    expect(c.raw.value).toBe(hex(cfgSched.reset, 8));
  });

  it('a whole-word register decodes the value in the other radices', () => {
    const run = runPage(page);
    const c = codecOf(run, 'AXI_M2S.comp_wr_cfg_1');
    run.type(c.raw, '0b1000_0000');
    expect(c.alt.textContent).toBe('dec 128 · bin 0b0000_0000_0000_0000_0000_0000_1000_0000');
  });

  it('?decode=<register>:<value> fills that decoder on load', () => {
    const run = runPage(page, { search: '?decode=M2S_Q.dwrr_cfg_2%3A0x5' });
    const c = codecOf(run, 'M2S_Q.dwrr_cfg_2');
    expect(c.field('q_qos').value).toBe('0x05');
    expect(run.scrollCount(byId(run.document, 'M2S_Q.dwrr_cfg_2'))).toBe(1);
  });
});

describe('page script: words of repeated registers', () => {
  it('a fragment naming one word selects it and shows its address; hashchange follows', () => {
    const page = fileOf(build, 'html/udma_m2s.html');
    const run = runPage(page, { hash: '#M2S_Q[3].dwrr_cfg_2' });
    const s = byId(run.document, 'M2S_Q.dwrr_cfg_2');
    expect(s.classList.contains('hit')).toBe(true);
    expect(one(s, 'select.inst').value).toBe('M2S_Q[3].dwrr_cfg_2');
    expect(one(s, 'code.abs').textContent).toBe(
      hex(findInstance(m2s, 'M2S_Q[3].dwrr_cfg_2')!.offset),
    );
    expect(run.scrollCount(s)).toBe(1);
    run.navigate('#M2S_Q[12].cfg.AXI_qos');
    const cfg = byId(run.document, 'M2S_Q.cfg');
    expect(cfg.classList.contains('hit')).toBe(true);
    expect(s.classList.contains('hit')).toBe(false);
    expect(one(cfg, 'select.inst').value).toBe('M2S_Q[12].cfg');
    expect(one(cfg, 'code.abs').textContent).toBe(hex(findInstance(m2s, 'M2S_Q[12].cfg')!.offset));
  });

  it('choosing a word in the selector shows its address', () => {
    const run = runPage(fileOf(build, 'html/dge_host.html'));
    const sel = one(byId(run.document, 'mailbox'), 'select.inst');
    sel.value = 'mailbox[3]';
    run.change(sel);
    const dge = shippedModels()[2];
    expect(one(sel.parentElement!, 'code.abs').textContent).toBe(
      hex(findInstance(dge, 'mailbox[3]')!.offset),
    );
  });

  it('an unknown fragment changes nothing', () => {
    const run = runPage(fileOf(build, 'html/udma_m2s.html'), { hash: '#nothing[2].here' });
    expect(all(run.document, 'section.hit')).toHaveLength(0);
  });
});
