import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProgramBuilder, type BlockBuilder } from '../../compiler/ir/builder.ts';
import type { Module } from '../../compiler/ir/module.ts';
import { compileProgram } from '../../compiler/passes/pipeline.ts';
import type { Program } from '../../compiler/ir/program.ts';
import type { Device, MemoryIO } from '../../csr/io.ts';
import {
  defaultRingBase,
  flowMock,
  mapQueues,
  prepareFlow,
  runFlow,
  runPrepared,
  type FlowReport,
} from '../../flow/index.ts';
import { MockDevice } from '../../mocks/device.ts';

const EXAMPLES = join(import.meta.dirname, '../../examples/programs');

function examples(): [string, unknown][] {
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8'))]);
}

function run(json: unknown, opts: Parameters<typeof runFlow>[1] = {}): Promise<FlowReport> {
  return runFlow(json, { makeDevice: flowMock, ...opts });
}

/** host (DRAM), hbm (DRAM) and sb regions; fp32 tensors x (Input), y (Output), h, t, u, v. */
function base(
  arch: 30 | 40 = 30,
  dgeLevels: ('spill_reload' | 'transpose')[] = [],
): ProgramBuilder {
  const b = new ProgramBuilder({ name: 'flow', arch, options: { dgeLevels } });
  b.region({ name: 'host', type: 'dram', base: 0x1_0000_0000, size: 0x4_0000 });
  b.region({ name: 'hbm', type: 'dram', base: 0x2_0000_0000, size: 0x4_0000 });
  b.region({ name: 'sb', type: 'sb', base: 0x400_0000, size: 0x4_0000 });
  b.tensor({ name: 'x', region: 'host', dtype: 'fp32', shape: [128, 64], kind: 'Input' });
  b.tensor({
    name: 'y',
    region: 'host',
    offset: 0x2_0000,
    dtype: 'fp32',
    shape: [128, 64],
    kind: 'Output',
  });
  b.tensor({ name: 'h', region: 'hbm', dtype: 'fp32', shape: [128, 64], kind: 'Internal' });
  b.tensor({ name: 't', region: 'sb', dtype: 'fp32', shape: [128, 64] });
  b.tensor({ name: 'u', region: 'sb', offset: 0x1_0000, dtype: 'fp32', shape: [128, 64] });
  b.tensor({ name: 'v', region: 'sb', offset: 0x2_0000, dtype: 'bf16', shape: [128, 128] });
  b.tensor({ name: 'w', region: 'sb', offset: 0x3_0000, dtype: 'bf16', shape: [128, 128] });
  return b;
}

function prog(body: (bb: BlockBuilder) => void, b = base()): Program {
  body(b.function('main').block('entry'));
  return b.program();
}

const full = { partition: [64, 128] as [number, number], free: [[1, 64]] as [number, number][] };

describe('the example programs', () => {
  for (const [file, json] of examples()) {
    it(`${file} runs through the rings with zero mismatches`, async () => {
      const r = await run(json, { file });
      expect(r.mismatches).toBe(0);
      expect(r.verifiedBytes).toBeGreaterThan(0);
      expect(r.bytesMoved).toBeGreaterThanOrEqual(r.verifiedBytes);
      expect(r.passes.length).toBeGreaterThan(0);
      for (const q of r.queues) {
        expect(q).toMatchObject({
          name: expect.any(String),
          engine: expect.any(Number),
          qid: expect.any(Number),
        });
        expect(q.descriptors).toBeGreaterThanOrEqual(q.dmas > 0 ? 1 : 0);
      }
      const served = r.arbitration.queues.reduce((a, q) => a + q.bytes, 0);
      expect(served).toBe(r.bytesMoved); // every byte went through an arbiter grant
    });
  }
});

describe('queue -> (engine, qid)', () => {
  it('engine = 16 * (EngineType - 1) + subId; qid = rank among the owner queues', () => {
    const p = prepareFlow(JSON.parse(readFileSync(join(EXAMPLES, 'qos-mix.json'), 'utf8')));
    const pl = mapQueues(p.module);
    expect(pl.map((x) => [x.queue.name, x.engine, x.qid])).toEqual([
      ['SP:0/input/P0/16/16', 80, 0],
      ['SP:0/input/P3/16/16', 80, 1],
      ['SP:0/input/P3/16/4', 80, 2],
      ['SP:0/output/P12/16/16', 80, 3],
      ['SP:0/output/Default/16/16', 80, 4],
    ]);
    const c = prepareFlow(JSON.parse(readFileSync(join(EXAMPLES, 'collective-cc.json'), 'utf8')));
    const owners = mapQueues(c.module).map(
      (x) => `${x.queue.name.split('/')[0]}=${x.engine}:${x.qid}`,
    );
    expect(owners).toEqual(['SP:0=80:0', 'Pool:0=0:0', 'Activation:0=16:0', 'SP:0=80:1']);
  });

  it('the report names the rings the BDs went to', async () => {
    const r = await run(JSON.parse(readFileSync(join(EXAMPLES, 'qos-mix.json'), 'utf8')));
    expect(r.queues.map((q) => `${q.engine}:${q.qid}`)).toEqual([
      '80:0',
      '80:1',
      '80:2',
      '80:3',
      '80:4',
    ]);
    expect(r.arbitration.queues.map((q) => `${q.engine}:${q.qid}`)).toEqual(
      r.queues.map((q) => `${q.engine}:${q.qid}`),
    );
  });
});

describe('cross-queue order', () => {
  it('a save that reads what a load on another queue wrote waits for it (new epoch), even at higher priority', async () => {
    const json = prog((bb) => {
      bb.load({
        name: 'ld',
        qos: 'P14',
        src: { tensor: 'x', ...full },
        dst: { tensor: 't', ...full },
      });
      bb.save({
        name: 'st',
        qos: 'P0',
        src: { tensor: 't', ...full },
        dst: { tensor: 'y', ...full },
      });
    });
    const r = await run(json);
    expect(r.queues).toHaveLength(2);
    expect(r.epochs).toBe(2);
    expect(r.mismatches).toBe(0);
  });

  it('independent DMAs share an epoch and the arbiter serves the higher class first', async () => {
    const json = prog((bb) => {
      bb.load({
        name: 'slow',
        qos: 'P14',
        src: { tensor: 'x', ...full },
        dst: { tensor: 't', ...full },
      });
      bb.load({
        name: 'fast',
        qos: 'P0',
        src: { tensor: 'x', ...full },
        dst: { tensor: 'u', ...full },
      });
    });
    const r = await run(json);
    expect(r.epochs).toBe(1);
    expect(r.mismatches).toBe(0);
    expect(r.arbitration.mode).toBe('qos');
    expect(r.arbitration.firstGrants[0]).toMatch(/P0/);
    const rr = await run(json, { qos: false });
    expect(rr.arbitration.mode).toBe('round-robin');
    expect(rr.arbitration.firstGrants[0]).toMatch(/P14/);
  });
});

describe('rings', () => {
  it('a small ring wraps (ring ids advance) and the flow drains when it fills', async () => {
    const json = prog((bb) => {
      // 128 rows of 256 bytes into a destination with a gap after each row: 128 BDs per DMA
      for (let i = 0; i < 3; i++) {
        bb.copy({
          src: { tensor: 't', partition: [64, 128], free: [[1, 64]] },
          dst: { tensor: 'u', offset: 0, partition: [64, 128], free: [[1, 64]] },
        });
        bb.copy({
          src: { tensor: 'x', partition: [64, 64], free: [[1, 64]] },
          dst: { tensor: 'h', partition: [128, 64], free: [[1, 64]] },
        });
      }
    });
    const small = await run(json, { ringSize: 32 });
    expect(small.mismatches).toBe(0);
    expect(small.queues.every((q) => q.ringSize === 64 || q.ringSize === 32)).toBe(true);
    expect(small.drains).toBeGreaterThan(2);
  });

  it('DMAs larger than 64 KiB are cut into 64 KiB descriptors, on the host path and on Pool', async () => {
    const b = base(30, ['spill_reload']);
    b.tensor({ name: 'big', region: 'host', dtype: 'fp32', shape: [49152], kind: 'Input' });
    b.tensor({ name: 'bigsb', region: 'sb', dtype: 'fp32', shape: [49152] });
    b.tensor({ name: 'bighbm', region: 'hbm', dtype: 'fp32', shape: [49152] });
    const bb = b.function('main').block('entry');
    // Pool (SWDGE): 196608 bytes = 3 x 64 KiB
    bb.load({
      src: { tensor: 'big', partition: [128, 384], free: [[1, 128]] },
      dst: { tensor: 'bigsb', partition: [128, 384], free: [[1, 128]] },
    });
    // host path: 180000 bytes = 64 KiB + 64 KiB + 48928
    bb.copy({
      src: { tensor: 'bigsb', partition: [1, 45000] },
      dst: { tensor: 'bighbm', partition: [1, 45000] },
    });
    const r = await run(b.program());
    expect(r.mismatches).toBe(0);
    expect(r.lowering.byBackend).toMatchObject({ pool: 1, none: 1 });
    expect(r.queues.map((q) => [q.descriptors, q.bytes])).toEqual([
      [3, 196608],
      [3, 180000],
    ]);
  });

  it('loop bodies run `iterations` times', async () => {
    const b = base();
    const fb = b.function('main');
    fb.block('pre').load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } });
    fb.block('loop', { loop: { iterations: 5 } }).save({
      src: { tensor: 't', ...full },
      dst: { tensor: 'h', ...full },
    });
    const r = await run(b.program());
    expect(r.lowering.executed).toBe(6);
    expect(r.bytesMoved).toBe(6 * 32768);
    expect(r.queues.find((q) => q.name.includes('data'))?.dmas).toBe(5);
    expect(r.mismatches).toBe(0);
  });
});

/**
 * Runs `json` on a mock whose memory flips bit 6 of the byte at `addr` in every read once the
 * flow's set-up has returned: the flow's last reads are the verification's.
 */
async function runCorrupting(
  json: unknown,
  addr: number,
  opts: Parameters<typeof runPrepared>[2] = {},
): Promise<FlowReport> {
  const p = prepareFlow(json);
  const ringBase = defaultRingBase(p.module);
  const mock = flowMock(p, ringBase);
  let armed = false;
  const memory: MemoryIO = {
    read(a, dst) {
      mock.memory.read(a, dst);
      if (armed && a <= addr && a + dst.length > addr) dst[addr - a] ^= 0x40;
    },
    write: (a, s) => mock.memory.write(a, s),
    isMapped: (a, l) => mock.memory.isMapped(a, l),
    view: (a, l) => mock.memory.view?.(a, l),
  };
  const dev = Object.assign(Object.create(Object.getPrototypeOf(mock)), mock, {
    memory,
  }) as Device;
  const runP = runPrepared(p, dev, { ...opts, ringBase });
  armed = true;
  return runP;
}

describe('every destination byte is verified', () => {
  it('a device that corrupts one byte is caught, with the tensor named', async () => {
    const json = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } }),
    );
    const r = await runCorrupting(json, 0x400_0010);
    expect(r.mismatches).toBe(1);
    expect(r.mismatchSamples[0]).toMatchObject({
      address: '0x4000010',
      tensor: 't',
      destination: true,
    });
  });

  it('a flow run after another of the same memory (its reference memory reused) finds only its own differences', async () => {
    // the first flow writes t; the second writes u and leaves t as it was loaded
    const first = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } }),
    );
    const second = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 'u', ...full } }),
    );
    expect((await run(first, { seed: 9 })).mismatches).toBe(0);
    const r = await runCorrupting(second, 0x400_0010, { seed: 2 });
    // t is no destination of this flow: the first flow's written masks are not this one's
    expect(r.mismatches).toBe(1);
    expect(r.mismatchSamples[0]).toMatchObject({
      address: '0x4000010',
      tensor: 't',
      destination: false,
    });
    // and the same flow on a sound device, after that one, verifies clean
    const again = await run(second, { seed: 2 });
    expect(again.mismatches).toBe(0);
    expect(again.verifiedBytes).toBe(r.verifiedBytes);
    expect(again.checkedBytes).toBe(r.checkedBytes);
  });

  it('a device without a clock (polled like hardware) runs the same flow', async () => {
    const json = prog((bb) => {
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } });
      bb.save({ src: { tensor: 't', ...full }, dst: { tensor: 'y', ...full } });
    });
    const p = prepareFlow(json);
    const ringBase = defaultRingBase(p.module);
    const mock = new MockDevice({
      engines: [...new Set(p.active.map((a) => a.engine))],
      memory: [
        ...p.module.regions.map((r) => ({ name: r.name, base: r.base, size: r.size })),
        { name: 'rings', base: ringBase, size: p.ringBytes },
      ],
      autoRun: 'on-read', // engines run when the driver reads their heads
    });
    // a Device without step(): the flow polls head pointers as on hardware
    const dev: Device = {
      name: 'polled',
      profile: mock.profile,
      isHardware: false,
      memory: mock.memory,
      udma: (e) => mock.udma(e),
      engines: () => mock.engines(),
      dgeCore: (c) => mock.dgeCore(c),
      dgeCores: () => mock.dgeCores(),
    };
    const r = await runPrepared(p, dev, { ringBase });
    expect(r.mismatches).toBe(0);
    expect(r.arbitration.observed).toBe(false);
  });
});

/** A mock laid out for a program (from its compiled module only) that records every register write. */
function watched(
  json: unknown,
  ringBase: (m: Module) => number,
  opts: { dropRegion?: string; engines?: number[] },
) {
  const m = compileProgram(json).module;
  let writes = 0;
  const rb = ringBase(m);
  const memory = m.regions
    .filter((r) => r.name !== opts.dropRegion)
    .map((r) => ({ name: r.name, base: r.base, size: r.size }));
  const size = 1 << 22;
  if (!m.regions.some((r) => rb < r.base + r.size && r.base < rb + size)) {
    memory.push({ name: 'rings', base: rb, size });
  }
  const dev = new MockDevice({
    engines: opts.engines ?? [...new Set(mapQueues(m).map((a) => a.engine))],
    memory,
    autoRun: 'none',
    registerTrace: (ev) => {
      if (ev.op === 'write') writes++;
    },
  });
  const snapshot = () => dev.memory.regions().map((r) => r.bytes.slice());
  return { dev, ringBase: rb, writes: () => writes, snapshot };
}

async function rejected(
  json: unknown,
  opts: Parameters<typeof runFlow>[1] & { dropRegion?: string; engines?: number[] } = {},
  ringBaseOf: (m: Module) => number = defaultRingBase,
): Promise<string> {
  const w = watched(json, ringBaseOf, opts);
  const before = w.snapshot();
  let msg = 'no error';
  try {
    await runFlow(json, { ...opts, device: w.dev, ringBase: w.ringBase });
  } catch (e) {
    msg = `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  expect(w.writes()).toBe(0);
  const after = w.snapshot();
  after.forEach((b, i) => expect(Buffer.compare(b, before[i])).toBe(0));
  return msg;
}

describe('violations are rejected before any byte or register is written', () => {
  it('bound layer 2: source and destination byte counts differ', async () => {
    const json = prog((bb) =>
      bb.copy({ src: { tensor: 't', ...full }, dst: { tensor: 'v', ...full } }),
    );
    expect(await rejected(json)).toMatch(/^LOWER_ERROR: .*bound layer 2/);
  });

  it('bound layer 3: a DMA needing more descriptors than the carveout', async () => {
    const json = prog(
      (bb) =>
        bb.copy({
          transpose: 'xbar',
          src: { tensor: 'v', partition: [1, 128], free: [[128, 128]] },
          dst: { tensor: 'w', partition: [128, 128], free: [[1, 128]] },
        }),
      base(30, ['transpose']),
    );
    expect(await rejected(json, { lower: { carveoutDescriptors: 1000 } })).toMatch(
      /^LOWER_ERROR: .*bound layer 3: .*carveout/,
    );
  });

  it('bound layer 3: a descriptor program larger than the ring', async () => {
    const json = prog(
      (bb) =>
        bb.copy({
          transpose: 'xbar',
          src: { tensor: 'v', partition: [1, 128], free: [[128, 128]] },
          dst: { tensor: 'w', partition: [128, 128], free: [[1, 128]] },
        }),
      base(30, ['transpose']),
    );
    expect(await rejected(json, { lower: { ringSize: 4096 } })).toMatch(
      /^LOWER_ERROR: .*does not fit a ring of 4096/,
    );
  });

  it('gather-transpose constraint: a destination that is not 32-byte aligned', async () => {
    const b = base(30, []);
    b.tensor({
      name: 'idx',
      region: 'host',
      offset: 0x3_0000,
      dtype: 'uint32',
      shape: [16],
      kind: 'Input',
      init: [...Array(16).keys()],
    });
    const p0 = new ProgramBuilder({
      name: 'gx',
      arch: 30,
      options: { dgeLevels: ['vector_dynamic_offsets'] },
    });
    const json = b.program();
    json.options = p0.program().options;
    json.functions = [
      {
        name: 'main',
        blocks: [
          {
            name: 'entry',
            instructions: [
              {
                op: 'DMACopy',
                transpose: 'xbar',
                src: {
                  tensor: 'v',
                  offset: 0,
                  partition: [128, 16],
                  free: [[1, 128]],
                  dynamic: { vector: { indexTensor: 'idx' } },
                },
                dst: { tensor: 'w', offset: 3, partition: [1, 16], free: [[128, 128]] },
              },
            ],
          },
        ],
      },
    ];
    expect(await rejected(json)).toMatch(
      /^LOWER_ERROR: .*gather transpose: dst_addr expected 32-byte aligned/,
    );
  });

  it('bound layer 1 on the device: a declared region the device does not map', async () => {
    const json = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } }),
    );
    expect(await rejected(json, { dropRegion: 'hbm' })).toMatch(
      /^MEMORY_UNMAPPED: bound layer 1: region "hbm"/,
    );
  });

  it('a queue placed on an engine the device lacks', async () => {
    const json = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } }),
    );
    expect(await rejected(json, { engines: [0] })).toMatch(/^DEVICE_UNAVAILABLE: .*udma80 queue 0/);
  });

  it('rings that would overlap a declared region', async () => {
    const json = prog((bb) =>
      bb.load({ src: { tensor: 'x', ...full }, dst: { tensor: 't', ...full } }),
    );
    const msg = await rejected(json, {}, () => 0x1_0000_0000);
    expect(msg).toMatch(/^MEMORY_OVERLAP: the rings .* overlap region "host"/);
  });
});
