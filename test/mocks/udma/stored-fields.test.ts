/**
 * The fields docs/mock-arbitration.md calls "stored without effect" really are: writing each one
 * (every bit of it set, on every queue) before a contended mix of traffic leaves the service
 * trace and the completion entries exactly as they were, in round-robin and in QoS mode. A field
 * that gains an effect fails here until its row in the table says what it does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getInstance } from '../../../csr/schema/model.ts';
import { MockDevice } from '../../../mocks/device.ts';
import type { MockRegisterFile } from '../../../mocks/register-file.ts';
import { QueuePair, bringUp, modify, wr } from '../helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/mock-arbitration.md'), 'utf8');

/** Table rows whose effect starts "Stored without effect": their field paths. */
function storedWithoutEffect(): string[] {
  return DOC.split('\n')
    .filter((l) => /^\|\s*`[^`]+`\s*\|\s*stored without effect/i.test(l))
    .map((l) => /^\|\s*`([^`]+)`/.exec(l)![1]);
}

const SRC = 0x400000;
const DST = 2 ** 32;
const RING = 256;

/** Four queues with different sizes, levels and weights, all queued before the engine runs. */
function run(mode: 'rr' | 'qos', poke: (u: ReturnType<MockDevice['udma']>) => void) {
  const dev = new MockDevice({ engines: [0], autoRun: 'none' });
  const u = dev.udma(0);
  bringUp(u);
  const qps = [0, 1, 2, 3].map(
    (q) =>
      new QueuePair(dev, u, q, RING, 0x10000 + q * 4 * RING * 16, {
        completion: { tx: 0x80000 + q * 2 * RING * 16, rx: 0x80000 + (q * 2 + 1) * RING * 16 },
      }),
  );
  if (mode === 'qos') {
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { pref_force_rr: 0 });
    modify(u.m2s, 'M2S_dwrr.cfg_sched', { en_dwrr: 1 });
    [2, 1, 1, 0].forEach((lvl, q) => wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_2`, lvl));
    [1, 3, 1, 2].forEach((w, q) => wr(u.m2s, `M2S_Q[${q}].dwrr_cfg_3`, w));
  }
  poke(u);
  qps.forEach((qp, q) => {
    for (let i = 0; i < 12; i++) {
      const size = 256 * (q + 1) + 64 * i;
      qp.putRx(DST, size);
      qp.putTx(SRC, size);
    }
    qp.ringRx(12);
    qp.ringTx(12);
  });
  dev.runUntilIdle();
  const completions = new Uint8Array(8 * RING * 16);
  dev.memory.read(0x80000, completions);
  return { trace: dev.serviceTrace.entries(), completions: Array.from(completions) };
}

/** Sets every bit of the field (or whole-word register) at `key` on every instance. */
function setAll(file: MockRegisterFile, key: string): void {
  const parts = key.split('.');
  const reg = parts.slice(0, 2).join('.');
  const field = parts[2];
  const queues = reg.includes('[q]') ? 16 : 1;
  for (let q = 0; q < queues; q++) {
    const p = reg.replace('[q]', `[${q}]`);
    const inst = getInstance(file.model, p);
    const f = field ? inst.register.fields.find((x) => x.name === field) : undefined;
    const mask = field ? f!.mask : 0xffffffff;
    file.write32(inst.offset, ((file.peek(inst.offset) | mask) >>> 0) as number);
  }
}

describe('fields stored without effect (docs/mock-arbitration.md)', () => {
  const keys = storedWithoutEffect();

  it('the table lists some', () => {
    expect(keys.length).toBeGreaterThan(5);
  });

  it('a field the table calls stored without effect leaves the service trace unchanged', () => {
    for (const mode of ['rr', 'qos'] as const) {
      const base = run(mode, () => {});
      expect(base.trace.length).toBe(48);
      for (const key of keys) {
        const file = (u: ReturnType<MockDevice['udma']>) => (key.startsWith('S2M') ? u.s2m : u.m2s);
        const r = run(mode, (u) => setAll(file(u), key));
        expect(r.trace, `${key} (${mode})`).toEqual(base.trace);
        expect(r.completions, `${key} (${mode}): completion entries`).toEqual(base.completions);
      }
    }
  });
});
