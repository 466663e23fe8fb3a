/** Seed 004 rules the compile-to-ring flow exercises end to end on the mock, each named after its rule. */
import { describe, expect, it } from 'vitest';
import { ProgramBuilder, type BlockBuilder } from '../../compiler/ir/builder.ts';
import { DTYPE_NAMES, type DtypeName } from '../../compiler/ir/enums.ts';
import type { Program } from '../../compiler/ir/program.ts';
import type { Device } from '../../csr/io.ts';
import { setPriorityClassMap } from '../../driver/dge/host.ts';
import { defaultRingBase, flowMock, prepareFlow, runFlow, runPrepared } from '../../flow/index.ts';

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
      // nothing of it went through the rings: the Pool core executed it
      expect(r.lowering.descriptors).toBe(0);
      expect(r.queues.reduce((a, q) => a + q.descriptors, 0)).toBe(0);
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

/** host (Input) x and SB t, fp32 [64 x 64]; one contiguous Load of 16 KiB with `extra`. */
function oneLoad(
  arch: 20 | 30,
  options: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Program {
  const b = new ProgramBuilder({ name: 'one-load', arch, options });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x4_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x4_0000 });
  b.tensor({ name: 'x', region: 'host', dtype: 'fp32', shape: [64, 64], kind: 'Input' });
  b.tensor({ name: 't', region: 'sb', dtype: 'fp32', shape: [64, 64] });
  b.function('main')
    .block('entry')
    .load({
      name: 'ld',
      qos: 'P0',
      src: { tensor: 'x', partition: [64, 64], free: [[1, 64]] },
      dst: { tensor: 't', partition: [64, 64], free: [[1, 64]] },
      ...extra,
    });
  return b.program();
}

const packetsOf = (r: Awaited<ReturnType<typeof runFlow>>) =>
  r.arbitration.queues.reduce((a, q) => a + q.packets, 0);

describe('seed 004 §7.2 / §10.3: the host tables reach the data path', () => {
  it('+0x18 bytes per packet shapes the packets of a DGE transfer of its class; +0x28 mailboxes AND-mask its DMA channels', async () => {
    const tables = {
      priorityClassMap: [1024, 0, 0, 0],
      mailboxes: [{ priority: 0, bitmask: 0x0005 }],
    };
    const sw = { dgeType: 'SWDGE' };
    const plain = await runFlow(oneLoad(30, {}, sw), { makeDevice: flowMock });
    const shaped = await runFlow(oneLoad(30, { dgeHostTables: tables }, sw), {
      makeDevice: flowMock,
      trace: true,
    });
    expect(plain.mismatches).toBe(0);
    expect(shaped.mismatches).toBe(0);
    expect(packetsOf(plain)).toBe(1); // 16 KiB in one piece, one packet
    expect(packetsOf(shaped)).toBe(16); // 16 KiB in packets of 1024 bytes (wire class 1 = P0)
    expect(shaped.trace!.dmas[0].streams[0].microOps[0]).toBe('push REGWRITE to DMA[0]');
    // priority 1 > mailbox priority 0: channels 0 and 2 only, and the REGWRITE's lo16 says so
    const p = prepareFlow(oneLoad(30, { dgeHostTables: tables }, sw));
    expect(p.lowered.dmas[0]).toMatchObject({ packetBytes: 1024, channelMask: 0x0005 });
    expect(p.lowered.dmas[0].streams[0].microOps[0]).toMatchObject({
      op: 'REGWRITE',
      value: 0xffff0005,
    });
    // a 3-deep source splits into Pool programs, which rotate over channels 0 and 2 only
    const split = prepareFlow(
      oneLoad(
        30,
        { dgeHostTables: tables },
        {
          ...sw,
          src: {
            tensor: 'x',
            partition: [64, 16],
            free: [
              [4, 4],
              [1, 2],
            ],
          },
          dst: { tensor: 't', partition: [8, 16], free: [[1, 8]] },
        },
      ),
    );
    const chans = split.lowered.dmas[0].streams.map((x) => x.channel);
    expect(chans.length).toBeGreaterThan(2);
    expect(chans.slice(0, 4)).toEqual([0, 2, 0, 2]);
    // a class the mailbox does not outrank (Default, wire 0) keeps every channel and no packet size
    const q = prepareFlow(oneLoad(30, { dgeHostTables: tables }, { ...sw, qos: 'Default' }));
    expect(q.lowered.dmas[0]).toMatchObject({ packetBytes: 0, channelMask: 0xffff });
  });

  it("options.dgeHostTables 'device' reads both tables from DGE core 0 of the device", async () => {
    const p = prepareFlow(oneLoad(30, { dgeHostTables: 'device' }, { dgeType: 'SWDGE' }));
    expect(p.lowered.dmas[0].packetBytes).toBe(0);
    const ringBase = defaultRingBase(p.module);
    const dev = flowMock(p, ringBase);
    expect(setPriorityClassMap(dev, 0, [2048])).toBe(0);
    const r = await runPrepared(p, dev, { ringBase });
    expect(r.mismatches).toBe(0);
    expect(packetsOf(r)).toBe(8);
  });

  it('a mailbox that leaves a DGE operation no channel refuses it before anything is written', () => {
    const tables = { mailboxes: [{ priority: 0, bitmask: 0 }] };
    expect(() => prepareFlow(oneLoad(30, { dgeHostTables: tables }, { dgeType: 'SWDGE' }))).toThrow(
      /the DGE mailboxes leave priority class 1 no DMA channel/,
    );
  });
});

describe('seed 004 §9: CCE packets: aws_hal_get_sdma_max_cce_elements and cceReducePacketSize per class', () => {
  it('a collective-reduce DMA moves in packets of min(dtype_size * min(N, max_cce_elements[arch]), cap[class]) & ~0x1F bytes', async () => {
    const cce = { dmaKind: 'CCE' };
    const a20 = prepareFlow(oneLoad(20, {}, cce)).lowered.dmas[0];
    const a30 = prepareFlow(oneLoad(30, {}, cce)).lowered.dmas[0];
    expect(a20.packetBytes).toBe(4 * 1024); // arch 2 (Trn1): 1024 elements
    expect(a30.packetBytes).toBe(4 * 2048); // arch 3 (Trn2): 2048 elements
    const capped = oneLoad(30, { cceReducePrioPktSize: [0, 2000, 0, 0, 0] }, cce);
    expect(prepareFlow(capped).lowered.dmas[0].packetBytes).toBe(1984); // 2000 & ~0x1F, class 1
    const r = await runFlow(capped, { makeDevice: flowMock });
    expect(r.mismatches).toBe(0);
    expect(packetsOf(r)).toBe(Math.ceil((64 * 64 * 4) / 1984));
    const r20 = await runFlow(oneLoad(20, {}, cce), { makeDevice: flowMock });
    expect(r20.mismatches).toBe(0);
    expect(packetsOf(r20)).toBe(4);
  });

  it('a CCE packet that rounds down to 0 bytes is refused before anything is written', () => {
    const capped = oneLoad(30, { cceReducePrioPktSize: [0, 16, 0, 0, 0] }, { dmaKind: 'CCE' });
    expect(() => prepareFlow(capped)).toThrow(/rounds down to 0/);
  });
});

describe('seed 004 §5.4: MEMCOPY_DMA_CFG hi16, "which queues ... may be used"', () => {
  it('a DGE DMA on a queue the DGE engine may not use is refused before anything is written', async () => {
    const ok = await runFlow(
      oneLoad(30, { memcopyDmaCfg: { queues: 0x0001 } }, { dgeType: 'SWDGE' }),
      {
        makeDevice: flowMock,
      },
    );
    expect(ok.mismatches).toBe(0);
    expect(() =>
      prepareFlow(oneLoad(30, { memcopyDmaCfg: { queues: 0x0002 } }, { dgeType: 'SWDGE' })),
    ).toThrow(/is queue 0 of udma\d+, which MEMCOPY_DMA_CFG's queue mask 0x0002 \(hi16\)/);
    // a host-built DMA has no DGE engine: the mask does not apply
    expect(
      prepareFlow(oneLoad(30, { memcopyDmaCfg: { queues: 0x0002 } })).lowered.dmas[0].backend,
    ).toBe('none');
  });
});
