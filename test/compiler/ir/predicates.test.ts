import { describe, expect, it } from 'vitest';
import { DGEType, EngineType, InstructionType } from '../../../compiler/ir/enums.ts';
import {
  isDGEOpcode,
  isDMAFamily,
  isHWDGEDMAWithEngineSet,
} from '../../../compiler/ir/predicates.ts';
import { fixture, inst, load } from '../helpers.ts';

describe('DMA-family table byte_1DF3660', () => {
  it('the 49 bytes read off .rodata plus IT == 18 give exactly {18, 19, 22, 32, 41-46, 67}', () => {
    const bytes = [
      0x01, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01, 0x01,
      0x01, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
    ];
    expect(bytes.length).toBe(49);
    const fromTable = new Set([18]);
    bytes.forEach((b, i) => b !== 0 && fromTable.add(i + 19));
    const family: number[] = [];
    for (let op = 0; op < 256; op++) if (isDMAFamily(op)) family.push(op);
    expect(family).toEqual([18, 19, 22, 32, 41, 42, 43, 44, 45, 46, 67]);
    expect(new Set(family)).toEqual(fromTable);
  });

  it('the unsigned compare keeps opcodes below 19 (other than 18) out', () => {
    for (let op = 0; op < 18; op++) expect(isDMAFamily(op)).toBe(false);
    expect(isDMAFamily(-1)).toBe(false);
  });

  it('alloc_queues opcode gate: the same family (0x3B and 0x2F-0x32 are not DMAs)', () => {
    for (const op of [47, 48, 49, 50, 59]) expect(isDMAFamily(op)).toBe(false);
  });

  it('route predicate opcodes: Load, Save, DMACopy only (nothing above 32, not the InstDMA base)', () => {
    const dge: number[] = [];
    for (let op = 0; op < 128; op++) if (isDGEOpcode(op)) dge.push(op);
    expect(dge).toEqual([InstructionType.Load, InstructionType.Save, InstructionType.DMACopy]);
  });
});

describe('isHWDGEDMAWithEngineSet', () => {
  it('is DGEType == HWDGE && (engine & ~4) != 0', () => {
    const b = fixture();
    b.function('main')
      .block('e')
      .load({ ...load(), name: 'l' });
    const m = b.build();
    const l = inst(m, 'l');
    l.dgeType = DGEType.HWDGE;
    for (const [engine, expected] of [
      [EngineType.DMA, false],
      [EngineType.Unassigned, false],
      [EngineType.SP, true],
      [EngineType.Activation, true],
      [EngineType.Pool, true],
      [EngineType.PE, true],
    ] as const) {
      l.engine = engine;
      expect(isHWDGEDMAWithEngineSet(l)).toBe(expected);
    }
    l.engine = EngineType.SP;
    l.dgeType = DGEType.SWDGE;
    expect(isHWDGEDMAWithEngineSet(l)).toBe(false);
  });
});
