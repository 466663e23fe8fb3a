import { describe, expect, it } from 'vitest';
import { DMAQoSClass as QoSHome } from '../../../csr/formats/qos-class.ts';
import {
  ARCH_CODENAMES,
  ArchLevel,
  DGELevels,
  DGEType,
  DMAQoSClass,
  DMAQueueType,
  EdgeKind,
  EngineType,
  InstructionType,
  MemoryType,
  TensorKind,
  isKnownInstructionType,
} from '../../../compiler/ir/enums.ts';

describe('IR enums carry the seeds ordinals', () => {
  it('InstructionType: DMA family, CollectiveCompute 48, SwitchQueueInstance 85, ResetQueueInstance 86', () => {
    expect(InstructionType.DMA).toBe(18);
    expect(InstructionType.Load).toBe(19);
    expect(InstructionType.Save).toBe(22);
    expect(InstructionType.DMACopy).toBe(32);
    expect([
      InstructionType.AbstractCopy,
      InstructionType.GenericLoad,
      InstructionType.GenericSave,
      InstructionType.IndirectLoad,
      InstructionType.IndirectSave,
      InstructionType.CollectiveDMA,
    ]).toEqual([41, 42, 43, 44, 45, 46]);
    expect(InstructionType.DMATrigger).toBe(67);
    expect(InstructionType.CollectiveCompute).toBe(48);
    expect(InstructionType.SwitchQueueInstance).toBe(85);
    expect(InstructionType.ResetQueueInstance).toBe(86);
  });

  it('compute opcodes never collide with a seed-pinned ordinal', () => {
    const pinned = new Set([
      18, 19, 22, 32, 41, 42, 43, 44, 45, 46, 48, 67, 85, 86, 33, 47, 49, 50, 59,
    ]);
    for (const op of [
      'Activation',
      'Matmult',
      'TensorTensor',
      'TensorScalar',
      'TensorReduce',
      'Iota',
      'Memset',
    ] as const) {
      expect(pinned.has(InstructionType[op])).toBe(false);
      expect(InstructionType[op]).toBeLessThan(18);
    }
    expect(isKnownInstructionType(17)).toBe(false);
    expect(isKnownInstructionType(19)).toBe(true);
  });

  it('EngineType: Unassigned 0, Pool 1, Activation 2, PE 3, DMA 4, DVE 5, SP 6', () => {
    expect(EngineType).toEqual({
      Unassigned: 0,
      Pool: 1,
      Activation: 2,
      PE: 3,
      DMA: 4,
      DVE: 5,
      SP: 6,
    });
  });

  it('DGEType: None 0, SWDGE 1, HWDGE 2, Unassigned 3', () => {
    expect(DGEType).toEqual({ None: 0, SWDGE: 1, HWDGE: 2, Unassigned: 3 });
  });

  it('DGELevels ordinals: the 0-based value-table index (transpose is 5)', () => {
    expect(Object.entries(DGELevels)).toEqual([
      ['spill_reload', 0],
      ['scalar_dynamic_offset', 1],
      ['vector_dynamic_offsets', 2],
      ['dynamic_size', 3],
      ['dst_reduce', 4],
      ['transpose', 5],
    ]);
  });

  it('DMAQueue.Type: input 0 .. dynamic 8', () => {
    expect(Object.values(DMAQueueType)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(DMAQueueType.data).toBe(2);
    expect(DMAQueueType.collective_compute).toBe(6);
    expect(DMAQueueType.dynamic).toBe(8);
  });

  it('EdgeKind precedence Invalid 0 < Ordered 1 < Anti 2 < Output 3 < Flow 4', () => {
    expect(EdgeKind).toEqual({ Invalid: 0, Ordered: 1, Anti: 2, Output: 3, Flow: 4 });
  });

  it('ArchLevel 10/20/30/40/50 with their codenames', () => {
    expect(ArchLevel).toEqual({ Tonga: 10, Sunda: 20, Cayman: 30, CoreV4: 40, CoreV5: 50 });
    expect(ARCH_CODENAMES[30]).toBe('Cayman');
  });

  it('TensorKind keeps the seed-pinned values (6, 7, 9 DATA; 1 Output; 4 Const) and MemoryType DRAM 8 / SB 4', () => {
    expect([TensorKind.Internal, TensorKind.Scratch, TensorKind.Spill]).toEqual([6, 7, 9]);
    expect(TensorKind.Output).toBe(1);
    expect(TensorKind.Const).toBe(4);
    expect(MemoryType.DRAM).toBe(8);
    expect(MemoryType.SB).toBe(4);
  });

  it('DMAQoSClass is the one from csr/formats/qos-class.ts', () => {
    expect(DMAQoSClass).toBe(QoSHome);
  });
});
