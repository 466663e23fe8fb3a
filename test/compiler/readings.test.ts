/**
 * Readings the seeds leave open, written as decisions (not as seed facts) in the docs, and the code
 * that follows them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BACKEND_AVAILABILITY } from '../../compiler/lower/backend.ts';
import { DMAQoSClass, defaultQueueQos } from '../../csr/formats/qos-class.ts';

const doc = (name: string) =>
  readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('readings of seed 004 stated as decisions', () => {
  it('q_qos direction: "a higher class is served first" does not say which way q_qos runs; a larger q_qos is served first is a decision', () => {
    expect(doc('mock-arbitration.md')).toContain('never says which way `q_qos` runs');
    expect(doc('qos.md')).toContain('no source ever says which way `q_qos` runs');
    const levels = [DMAQoSClass.P0, DMAQoSClass.P1, DMAQoSClass.P3].map(
      (c) => defaultQueueQos(c).qQos,
    );
    expect(levels).toEqual([4, 3, 1]); // the most urgent class has the largest level
  });

  it('Default / Unassigned at the lowest level although the mailbox rule never throttles priority 0: the conflict and the choice are written', () => {
    for (const c of [DMAQoSClass.Unassigned, DMAQoSClass.Default]) {
      expect(defaultQueueQos(c).qQos).toBe(0);
    }
    const q = doc('qos.md');
    expect(q).toContain('conflicts with the DGE mailbox rule');
    expect(q).toContain('nxdma keeps Default lowest in the queue arbiters anyway');
  });

  it('backend availability table: the Trn1 and ArchLevel 50 rows are marked inferred', () => {
    const l = doc('lowering.md');
    expect(l).toContain('Two rows are **inferred**: Trn1 (20)');
    expect(l).toContain('ArchLevel 50 (no MAVERICK NX-POOL firmware ships');
    expect(BACKEND_AVAILABILITY[50]).toEqual(BACKEND_AVAILABILITY[40]);
  });
});
