/**
 * The generated pages' own inline script, run against the parsed page (mini-dom.ts): the search
 * box, the encoder/decoders, the radix toggle, word selection from the URL fragment and the
 * ?q= / ?decode= parameters.
 */
import { describe, expect, it } from 'vitest';
import { hex } from '../../../common/errors.ts';
import { decodeFields, encodeFields } from '../../../csr/runtime/index.ts';
import { toRegisterMap } from '../../../csr/schema/map.ts';
import { findInstance } from '../../../csr/schema/model.ts';
import { fileOf, shippedBuild, shippedModels } from './helpers.ts';
import { runPage, type MElement, type PageRun } from './mini-dom.ts';

const build = shippedBuild();
const [m2s] = shippedModels();
const cfgSched = m2s.blocks
  .find((b) => b.name === 'M2S_dwrr')!
  .registers.find((r) => r.name === 'cfg_sched')!;

function codecOf(run: PageRun, anchor: string) {
  const c = run.document
    .querySelectorAll('.codec')
    .find((x) => x.getAttribute('data-reg') === anchor)!;
  const field = (name: string) => c.querySelector(`input.fv[data-field="${name}"]`)!;
  const enumOf = (name: string) =>
    field(name).parentNode!.parentNode!.querySelector('.en')!.textContent;
  return {
    el: c,
    raw: c.querySelector('input.raw')!,
    radix: c.querySelector('button.radix')!,
    reset: c.querySelector('button.reset')!,
    alt: c.querySelector('.alt')!,
    err: c.querySelector('.err')!,
    field,
    enumOf,
    values: () =>
      Object.fromEntries(
        c.querySelectorAll('input.fv').map((i) => [i.getAttribute('data-field'), i.value]),
      ),
  };
}

function links(list: MElement): string[] {
  return list.querySelectorAll('a').map((a) => a.getAttribute('href')!);
}

describe('page script: search', () => {
  it('typing 0x1084 on the index lists M2S_Q[0].dwrr_cfg_2 first; Enter opens it; Escape clears', () => {
    const run = runPage(fileOf(build, 'html/index.html'));
    const box = run.document.getElementById('search')!;
    const list = run.document.getElementById('search-results')!;
    expect(list.hidden).toBe(true);
    run.type(box, '0x1084');
    expect(list.hidden).toBe(false);
    const first = list.querySelector('a')!;
    expect(first.querySelector('code')!.textContent).toBe('M2S_Q[0].dwrr_cfg_2');
    expect(first.getAttribute('href')).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
    expect(first.querySelector('.meta')!.textContent).toContain('0x1084');
    run.key(box, 'Enter');
    expect(run.location.href).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
    run.key(box, 'Escape');
    expect(box.value).toBe('');
    expect(list.hidden).toBe(true);
  });

  it('an address in a later queue resolves to that instance; paths and words search too', () => {
    const run = runPage(fileOf(build, 'html/udma_s2m.html'));
    const box = run.document.getElementById('search')!;
    const list = run.document.getElementById('search-results')!;
    run.type(box, hex(findInstance(m2s, 'M2S_Q[7].dwrr_cfg_2')!.offset));
    expect(links(list)[0]).toBe('udma_m2s.html#M2S_Q[7].dwrr_cfg_2');
    run.type(box, 'M2S_rd.desc_pref_cfg_2.pref_force_rr');
    expect(links(list)[0]).toBe('udma_m2s.html#M2S_rd.desc_pref_cfg_2.pref_force_rr');
    run.type(box, 'round robin');
    expect(links(list).length).toBeGreaterThan(2);
    run.type(box, 'zzzz nothing');
    expect(list.querySelector('li.none')!.textContent).toContain('zzzz nothing');
  });

  it('"/" focuses the search box; ?q= fills it on load', () => {
    const run = runPage(fileOf(build, 'html/gaps.html'), { search: '?q=0x3084' });
    const box = run.document.getElementById('search')!;
    expect(box.value).toBe('0x3084');
    expect(links(run.document.getElementById('search-results')!)[0]).toBe(
      'udma_m2s.html#M2S_Q[2].dwrr_cfg_2',
    );
    run.key(run.document.body!, '/');
    expect(box.focused).toBe(1);
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
    expect(run.document.getElementById('M2S_Q.dwrr_cfg_2')!.scrolled).toBe(1);
  });
});

describe('page script: words of repeated registers', () => {
  it('a fragment naming one word selects it and shows its address; hashchange follows', () => {
    const page = fileOf(build, 'html/udma_m2s.html');
    const run = runPage(page, { hash: '#M2S_Q[3].dwrr_cfg_2' });
    const s = run.document.getElementById('M2S_Q.dwrr_cfg_2')!;
    expect(s.classList.contains('hit')).toBe(true);
    expect(s.querySelector('select.inst')!.value).toBe('M2S_Q[3].dwrr_cfg_2');
    expect(s.querySelector('code.abs')!.textContent).toBe(
      hex(findInstance(m2s, 'M2S_Q[3].dwrr_cfg_2')!.offset),
    );
    expect(s.scrolled).toBe(1);
    run.navigate('#M2S_Q[12].cfg.AXI_qos');
    const cfg = run.document.getElementById('M2S_Q.cfg')!;
    expect(cfg.classList.contains('hit')).toBe(true);
    expect(s.classList.contains('hit')).toBe(false);
    expect(cfg.querySelector('select.inst')!.value).toBe('M2S_Q[12].cfg');
    expect(cfg.querySelector('code.abs')!.textContent).toBe(
      hex(findInstance(m2s, 'M2S_Q[12].cfg')!.offset),
    );
  });

  it('choosing a word in the selector shows its address', () => {
    const run = runPage(fileOf(build, 'html/dge_host.html'));
    const sel = run.document.getElementById('mailbox')!.querySelector('select.inst')!;
    sel.value = 'mailbox[3]';
    sel.dispatchEvent({
      type: 'change',
      target: null,
      defaultPrevented: false,
      preventDefault() {},
    });
    const dge = shippedModels()[2];
    expect(sel.parentNode!.querySelector('code.abs')!.textContent).toBe(
      hex(findInstance(dge, 'mailbox[3]')!.offset),
    );
  });

  it('an unknown fragment changes nothing', () => {
    const run = runPage(fileOf(build, 'html/udma_m2s.html'), { hash: '#nothing[2].here' });
    expect(run.document.querySelectorAll('section.hit')).toHaveLength(0);
  });
});
