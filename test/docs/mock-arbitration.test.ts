/**
 * docs/mock-arbitration.md holds one table: every field of the arbitration, rate-limit and QoS
 * registers of both halves (engine and per queue), its effect in the mock and the test that shows
 * it. These tests keep the table whole (every such schema field has exactly one row, no row names
 * a field the schema lacks) and honest (every cited test exists under that name in that file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { regFile } from '../../csr/schema/files.ts';
import type { BlockModel, RegisterModel } from '../../csr/schema/model.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/mock-arbitration.md'), 'utf8');

/** Whole blocks that are arbitration or rate-limit machinery. */
const BLOCKS = new Set([
  'M2S_rd',
  'M2S_dwrr',
  'M2S_rate_limiter',
  'M2S_stream_rate_limiter',
  'M2S_comp',
  'S2M_rd',
  'S2M_comp',
]);

/** The arbitration / rate-limit / QoS registers (or single fields) outside those blocks. */
function selected(block: BlockModel, reg: RegisterModel, field: string | null): boolean {
  if (BLOCKS.has(block.name)) return true;
  const r = `${block.name}.${reg.name}`;
  if (r === 'AXI_M2S_MLA.high_priority') return true;
  if (/^M2S\.(indirect_ctrl|sel_rate_limit_status|sel_dwrr_status)$/.test(r)) return true;
  if (block.name === 'M2S_Q' && /^(rate_limit_|dwrr_cfg_)/.test(reg.name)) return true;
  if ((r === 'M2S_Q.cfg' || r === 'S2M_Q.cfg') && field === 'AXI_qos') return true;
  return false;
}

/** Every selected field as the table names it ("M2S_Q[q].dwrr_cfg_2.q_qos"; a whole-word register
 * without fields by its register path). */
function schemaKeys(): string[] {
  const keys: string[] = [];
  for (const name of ['udma_m2s', 'udma_s2m'] as const) {
    for (const b of regFile(name).blocks) {
      const bp = b.indexed ? `${b.name}[q]` : b.name;
      for (const r of b.registers) {
        if (r.fields.length === 0) {
          if (selected(b, r, null)) keys.push(`${bp}.${r.name}`);
          continue;
        }
        for (const f of r.fields)
          if (selected(b, r, f.name)) keys.push(`${bp}.${r.name}.${f.name}`);
      }
    }
  }
  return keys;
}

interface Row {
  key: string;
  effect: string;
  tests: string;
}

/** The rows of the table whose header starts with "field". */
function tableRows(): Row[] {
  const lines = DOC.split('\n');
  const start = lines.findIndex((l) => /^\|\s*field\s*\|/i.test(l));
  expect(start, 'the field table').toBeGreaterThanOrEqual(0);
  const rows: Row[] = [];
  for (let i = start + 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const cells = lines[i]
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    const key = /^`([^`]+)`$/.exec(cells[0])?.[1];
    expect(key, `row ${i + 1}: first cell is one \`path\``).toBeDefined();
    rows.push({ key: key!, effect: cells[1], tests: cells[2] ?? '' });
  }
  return rows;
}

describe('docs/mock-arbitration.md: the one table', () => {
  const rows = tableRows();

  it('has exactly one row for every arbitration, rate-limit and QoS field of both schemas', () => {
    const keys = schemaKeys();
    expect(keys.length).toBeGreaterThan(50);
    const inTable = rows.map((r) => r.key);
    expect(
      inTable.filter((k, i) => inTable.indexOf(k) !== i),
      'rows listed twice',
    ).toEqual([]);
    expect(
      keys.filter((k) => !inTable.includes(k)),
      'schema fields missing from the table',
    ).toEqual([]);
    expect(
      inTable.filter((k) => !keys.includes(k)),
      'rows naming no such field (or one outside the set)',
    ).toEqual([]);
  });

  it('every row says what the field does in the mock and cites a test that exists', () => {
    for (const r of rows) {
      expect(r.effect.length, `${r.key}: effect`).toBeGreaterThan(10);
      const cited = [...r.tests.matchAll(/`(test\/[^`]+\.test\.ts)`\s*"([^"]+)"/g)];
      expect(cited.length, `${r.key}: cites a test as \`file\` "name"`).toBeGreaterThan(0);
      for (const [, file, name] of cited) {
        const abs = path.join(ROOT, file);
        expect(fs.existsSync(abs), `${r.key}: ${file} exists`).toBe(true);
        const text = fs.readFileSync(abs, 'utf8');
        expect(text.includes(name), `${r.key}: ${file} has a test "${name}"`).toBe(true);
      }
    }
  });

  it('a field stored without effect says why', () => {
    for (const r of rows) {
      if (!/^stored without effect/i.test(r.effect)) continue;
      expect(r.effect, `${r.key}: the reason`).toMatch(/stored without effect[^:]*:\s*\S.{15,}/i);
    }
  });
});
