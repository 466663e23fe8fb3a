import { describe, expect, it } from 'vitest';
import { pageRegisters } from '../../../csr/docs/data.ts';
import { bitFieldEntries, registerDiagram } from '../../../csr/docs/diagram.ts';
import { all, one, parseHtml } from './dom.ts';
import { shippedModels } from './helpers.ts';

const regs = shippedModels().flatMap(pageRegisters);

describe('bit-field diagrams', () => {
  it('cover the 32 bits of every register with its fields in bit order, gaps unnamed', () => {
    for (const reg of regs) {
      const entries = bitFieldEntries(reg);
      expect(
        entries.reduce((n, e) => n + e.bits, 0),
        reg.name,
      ).toBe(32);
      const named = entries.filter((e) => e.name !== undefined);
      if (reg.fields.length === 0) {
        expect(named).toHaveLength(1);
        continue;
      }
      expect(named.map((e) => e.name)).toEqual(reg.fields.map((f) => f.name));
      let bit = 0;
      for (const e of entries) {
        const f = reg.fields.find((x) => x.name === e.name);
        if (f) {
          expect(bit).toBe(f.lsb);
          expect(e.bits).toBe(f.width);
          expect(e.type !== undefined).toBe(f.inferred);
          expect(e.attr).toBe(
            f.resetKnown
              ? f.reset <= 9
                ? String(f.reset)
                : `0x${f.reset.toString(16)}`
              : undefined,
          );
        }
        bit += e.bits;
      }
    }
  });

  it('draw every field name (whole, or trimmed to its box with "...") and its bit numbers', () => {
    for (const reg of regs) {
      const svg = one(parseHtml(registerDiagram(reg)), 'svg');
      const texts = all(svg, 'text').map((t) => t.textContent);
      for (const f of reg.fields) {
        const shown = texts.some(
          (t) => t === f.name || (t.endsWith('...') && f.name.startsWith(t.slice(0, -3))),
        );
        expect(shown, `${reg.name}.${f.name} in ${texts.join(' ')}`).toBe(true);
        expect(texts).toContain(String(f.lsb));
        expect(texts).toContain(String(f.msb));
      }
    }
  });

  it('are rendered once per register and title, and are valid standalone SVG', () => {
    const reg = regs[0];
    expect(registerDiagram(reg)).toBe(registerDiagram(reg));
    const svg = registerDiagram(reg, 'x & y');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<title>x &amp; y</title>');
    expect(svg).toContain('aria-label="x &amp; y"');
  });
});
