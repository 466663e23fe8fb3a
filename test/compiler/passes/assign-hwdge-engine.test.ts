import { describe, expect, it } from 'vitest';
import { DGEType, DMAKind, EngineType, type ArchLevel } from '../../../compiler/ir/enums.ts';
import type { ProgramOptionsInput } from '../../../compiler/ir/program.ts';
import { isHWDGEDMAWithEngineSet } from '../../../compiler/ir/predicates.ts';
import { VALID_ENGINES_CORE_V5, VALID_ENGINES_PRE_V5 } from '../../../compiler/ir/target.ts';
import {
  AssignHWDGEEngineImpl,
  assignHwdgeEngine,
  validEnginesFor,
} from '../../../compiler/passes/assign-hwdge-engine.ts';
import { makeContext } from '../../../compiler/passes/pass.ts';
import { fixture, inst, load } from '../helpers.ts';

type EngineName = 'Unassigned' | 'Pool' | 'Activation' | 'PE' | 'DMA' | 'DVE' | 'SP';

function moduleWith(
  arch: ArchLevel,
  dmas: {
    engine: EngineName;
    subId?: number;
    dge?: 'HWDGE' | 'SWDGE' | 'None';
    kind?: 'DGE' | 'Generic';
  }[],
  options: ProgramOptionsInput = {},
) {
  const b = fixture(arch, options);
  const e = b.function('main').block('e');
  dmas.forEach((d, k) =>
    e.load({
      ...load(`s${k % 4}`),
      name: `d${k}`,
      engine: d.engine,
      subId: d.subId ?? 0,
      dgeType: d.dge ?? 'HWDGE',
      dmaKind: d.kind ?? 'Generic',
    }),
  );
  return b.build();
}

function run(m: ReturnType<typeof moduleWith>) {
  const ctx = makeContext(m, 'assign_hwdge_engine');
  assignHwdgeEngine.run(ctx);
  return ctx;
}

const eng = (m: ReturnType<typeof moduleWith>, k: number) => [
  inst(m, `d${k}`).engine,
  inst(m, `d${k}`).subId,
];

describe('assign_hwdge_engine', () => {
  it('ValidEngines for ArchLevel <= 49 is [SP, Activation]; core_v5 uses the target list', () => {
    expect(validEnginesFor(30, VALID_ENGINES_CORE_V5)).toEqual([
      { engine: EngineType.SP, subId: 0 },
      { engine: EngineType.Activation, subId: 0 },
    ]);
    expect(validEnginesFor(49, VALID_ENGINES_CORE_V5)).toBe(VALID_ENGINES_PRE_V5);
    expect(validEnginesFor(50, VALID_ENGINES_CORE_V5)).toBe(VALID_ENGINES_CORE_V5);
  });

  it('gate: only DGEType == HWDGE DMAs are touched', () => {
    const m = moduleWith(30, [
      { engine: 'DMA', dge: 'SWDGE' },
      { engine: 'Pool', dge: 'None' },
      { engine: 'DMA', dge: 'HWDGE' },
    ]);
    const ctx = run(m);
    expect(eng(m, 0)).toEqual([EngineType.DMA, 0]);
    expect(eng(m, 1)).toEqual([EngineType.Pool, 0]);
    expect(eng(m, 2)).toEqual([EngineType.SP, 0]);
    expect(ctx.counters).toMatchObject({ skipped: 2, assigned: 1 });
  });

  it('arch <= 49: DMA / Unassigned / Pool -> SP, Activation / DVE -> Activation, SP stays', () => {
    const m = moduleWith(40, [
      { engine: 'DMA' },
      { engine: 'Unassigned' },
      { engine: 'Pool', subId: 3 },
      { engine: 'Activation', subId: 2 },
      { engine: 'DVE' },
      { engine: 'SP', subId: 1 },
    ]);
    expect(run(m).errors).toEqual([]);
    expect([0, 1, 2, 3, 4, 5].map((k) => eng(m, k))).toEqual([
      [EngineType.SP, 0],
      [EngineType.SP, 0],
      [EngineType.SP, 0],
      [EngineType.Activation, 0],
      [EngineType.Activation, 0],
      [EngineType.SP, 1],
    ]);
    for (let k = 0; k < 6; k++) expect(isHWDGEDMAWithEngineSet(inst(m, `d${k}`))).toBe(true);
  });

  it('InstDMA cannot be on PE engine (arch <= 49); every such DMA is reported', () => {
    const m = moduleWith(30, [{ engine: 'PE' }, { engine: 'DMA' }, { engine: 'PE' }]);
    const ctx = run(m);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['DMA_ON_PE_ENGINE', inst(m, 'd0').id],
      ['DMA_ON_PE_ENGINE', inst(m, 'd2').id],
    ]);
    expect(eng(m, 1)).toEqual([EngineType.SP, 0]);
  });

  it('core_v5: round robin over ValidEngines, PE included (no PE rejection)', () => {
    const m = moduleWith(50, [
      { engine: 'DMA' },
      { engine: 'PE' },
      { engine: 'DVE' },
      { engine: 'SP' },
      { engine: 'DMA' },
    ]);
    const ctx = run(m);
    expect(ctx.errors).toEqual([]);
    const rr = VALID_ENGINES_CORE_V5;
    expect([0, 1, 2, 3, 4].map((k) => eng(m, k))).toEqual(
      [0, 1, 2, 3, 0].map((i) => [rr[i].engine, rr[i].subId]),
    );
    expect(ctx.counters.roundRobin).toBe(5);
  });

  it('fast path (DMA kind 2): an engine already in ValidEngines is kept, compared by engine and sub id', () => {
    const m = moduleWith(50, [
      { engine: 'Activation', subId: 1, kind: 'DGE' }, // in the list: kept
      { engine: 'Activation', subId: 7, kind: 'DGE' }, // same engine, other sub id: reassigned
      { engine: 'Activation', subId: 1, kind: 'Generic' }, // valid but kind != 2: reassigned
    ]);
    run(m);
    expect(eng(m, 0)).toEqual([EngineType.Activation, 1]);
    expect(eng(m, 1)).toEqual([VALID_ENGINES_CORE_V5[0].engine, VALID_ENGINES_CORE_V5[0].subId]);
    expect(eng(m, 2)).toEqual([VALID_ENGINES_CORE_V5[1].engine, VALID_ENGINES_CORE_V5[1].subId]);
  });

  it('fast path does not advance the round-robin counter', () => {
    const m = moduleWith(50, [{ engine: 'SP', kind: 'DGE' }, { engine: 'DMA' }]);
    const ctx = run(m);
    expect(ctx.counters).toMatchObject({ kept: 1, roundRobin: 1 });
    expect(eng(m, 1)).toEqual([VALID_ENGINES_CORE_V5[0].engine, 0]);
  });

  it('visits main first (the round robin starts in main)', () => {
    const b = fixture(50);
    b.function('helper')
      .block('e')
      .load({ ...load(), name: 'h', dgeType: 'HWDGE' });
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'm', dgeType: 'HWDGE' });
    const m = b.build();
    run(m);
    expect(inst(m, 'm').subId).toBe(VALID_ENGINES_CORE_V5[0].subId);
    expect(inst(m, 'm').engine).toBe(VALID_ENGINES_CORE_V5[0].engine);
    expect(inst(m, 'h').engine).toBe(VALID_ENGINES_CORE_V5[1].engine);
  });

  it('Number of valid engines for HWDGE must be greater than or equal to 2', () => {
    const m = moduleWith(50, [{ engine: 'DMA' }], { hwdgeEngines: [{ engine: 'SP' }] });
    const ctx = run(m);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['TOO_FEW_VALID_ENGINES', null],
    ]);
    expect(eng(m, 0)).toEqual([EngineType.DMA, 0]);
    // below core_v5 the literal [SP, Activation] always satisfies it
    expect(
      run(moduleWith(40, [{ engine: 'DMA' }], { hwdgeEngines: [{ engine: 'SP' }] })).errors,
    ).toEqual([]);
  });

  it('a target-supplied core_v5 list is used as given', () => {
    const m = moduleWith(50, [{ engine: 'DMA' }, { engine: 'DMA' }, { engine: 'DMA' }], {
      hwdgeEngines: [
        { engine: 'Activation', subId: 3 },
        { engine: 'SP', subId: 9 },
      ],
    });
    run(m);
    expect([0, 1, 2].map((k) => eng(m, k))).toEqual([
      [EngineType.Activation, 3],
      [EngineType.SP, 9],
      [EngineType.Activation, 3],
    ]);
  });

  it('Unknown Instruction type encountered! for an unknown opcode in [0, 32]; 33..127 are skipped', () => {
    const m = moduleWith(30, [{ engine: 'DMA' }]);
    const bb = m.blocks[0];
    const bogus = m.newInstr(17 as never, 'bogus', bb);
    const high = m.newInstr(100 as never, 'high', bb);
    bb.instrs.push(bogus, high);
    const ctx = run(m);
    expect(ctx.errors.map((e) => [e.subCode, e.instruction])).toEqual([
      ['UNKNOWN_INSTRUCTION_TYPE', bogus.id],
    ]);
  });

  it('the HWDGE engine write is what makes isHWDGEDMAWithEngineSet true', () => {
    const m = moduleWith(30, [{ engine: 'DMA' }]);
    const d = inst(m, 'd0');
    expect(isHWDGEDMAWithEngineSet(d)).toBe(false);
    const impl = new AssignHWDGEEngineImpl(VALID_ENGINES_PRE_V5, 30, () => {});
    impl.assignEngine(d);
    expect(isHWDGEDMAWithEngineSet(d)).toBe(true);
    expect(d.dgeType).toBe(DGEType.HWDGE); // the route itself is never written
    expect(d.dmaKind).toBe(DMAKind.Generic);
  });
});
