/** Seed 004 rules the compile-to-ring flow exercises end to end on the mock, each named after its rule. */
import { describe, expect, it } from 'vitest';
import { ProgramBuilder, type BlockBuilder } from '../../../compiler/ir/builder.ts';
import { DTYPE_NAMES, type DtypeName } from '../../../compiler/ir/enums.ts';
import type { Program } from '../../../compiler/ir/program.ts';
import type { Device } from '../../../csr/io.ts';
import {
  defaultRingBase,
  flowMock,
  prepareFlow,
  runFlow,
  runPrepared,
} from '../../../driver/flow/index.ts';

const OPS = ['add', 'multiply', 'max', 'min'] as const;

/** host (Input) tensor `a` and SB tensors r_<op> of one dtype, [64 x 32]. */
function reduceProgram(dtype: DtypeName, body?: (bb: BlockBuilder) => void): Program {
  const b = new ProgramBuilder({ name: `reduce-${dtype}`, arch: 30 });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x4_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x4_0000 });
  b.tensor({ name: 'a', region: 'host', dtype, shape: [64, 32], kind: 'Input' });
  OPS.forEach((op, k) =>
    b.tensor({ name: `r_${op}`, region: 'sb', offset: k * 0x8000, dtype, shape: [64, 32] }),
  );
  const bb = b.function('main').block('entry');
  if (body) body(bb);
  else
    for (const op of OPS)
      bb.load({
        name: `reduce_${op}`,
        dgeType: 'SWDGE',
        dstReduce: op,
        src: { tensor: 'a', partition: [32, 64], free: [[1, 32]] },
        dst: { tensor: `r_${op}`, partition: [32, 64], free: [[1, 32]] },
      });
  return b.program();
}

describe('seed 004 §4.1: "a Pool descriptor can do B op= A in transfer" (DIRECT2D compute_op)', () => {
  for (const dtype of DTYPE_NAMES) {
    it(`ADD, MULTIPLY, MAX, MIN on ${dtype}: the Pool core executes them and the flow verifies with 0 mismatches`, async () => {
      const r = await runFlow(reduceProgram(dtype), { makeDevice: flowMock });
      expect(r.lowering.byBackend.pool).toBe(4);
      expect(r.lowering.poolExecuted).toBe(4);
      expect(r.mismatches).toBe(0);
      expect(r.verifiedBytes).toBeGreaterThan(0);
    });
  }

  it('a device whose DGE cores cannot execute descriptors refuses the reduce before anything is written', async () => {
    const p = prepareFlow(reduceProgram('fp32'));
    const ringBase = defaultRingBase(p.module);
    const mock = flowMock(p, ringBase);
    let writes = 0;
    const device: Device = {
      name: 'no-pool',
      profile: mock.profile,
      isHardware: false,
      memory: {
        ...mock.memory,
        isMapped: (a: number, l: number) => mock.memory.isMapped(a, l),
        read: (a: number, d: Uint8Array) => mock.memory.read(a, d),
        write: (a: number, s: Uint8Array) => {
          writes++;
          mock.memory.write(a, s);
        },
      },
      udma: (e) => mock.udma(e),
      engines: () => mock.engines(),
      dgeCore: (c) => {
        const core = mock.dgeCore(c);
        return {
          core: core.core,
          dram: core.dram,
          dramBase: core.dramBase,
          kind: core.kind,
          bootState: core.bootState,
        };
      },
      dgeCores: () => mock.dgeCores(),
    };
    await expect(runPrepared(p, device, { ringBase })).rejects.toMatchObject({
      code: 'DEVICE_UNAVAILABLE',
      message: expect.stringMatching(/destination reduce is a DIRECT2D compute_op/),
    });
    expect(writes).toBe(0);
  });

  it('a destination reduce on an indexed DMA is refused by the lowering (INDIRECT1D has no compute_op)', () => {
    const b = new ProgramBuilder({ name: 'ri', arch: 30 });
    b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x4_0000 });
    b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x4_0000 });
    b.tensor({ name: 'a', region: 'host', dtype: 'fp32', shape: [64, 32], kind: 'Input' });
    b.tensor({ name: 'r', region: 'sb', dtype: 'fp32', shape: [64, 32] });
    b.tensor({
      name: 'ix',
      region: 'host',
      offset: 0x2_0000,
      dtype: 'uint32',
      shape: [4],
      kind: 'Input',
      init: [3, 1, 2, 0],
    });
    b.function('main')
      .block('e')
      .load({
        dgeType: 'SWDGE',
        dstReduce: 'add',
        src: { tensor: 'a', partition: [32, 4], free: [[1, 32]], indirect: { indexTensor: 'ix' } },
        dst: { tensor: 'r', partition: [32, 4], free: [[1, 32]] },
      });
    expect(() => prepareFlow(b.program())).toThrow(/an indexed \(INDIRECT1D\) DMA only copies/);
  });
});
