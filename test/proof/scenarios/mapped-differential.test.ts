/**
 * Differential proof of the mapped back end: the same bring-up, QoS plan, DGE host tables and
 * copies run once on the mock and once on openDevice over a sparse file laid out as a trn2 BAR0
 * (register windows holding their reset words, DMA memory and a DGE host table given by
 * barOffset) leave the same register image, word for word, and the same memory bytes.
 *
 * Compared: every plain register (RW, every field RW: what the driver composes and writes) of the
 * M2S and S2M windows of every engine used, the DGE core's whole dge_host window and every byte
 * of the DMA memory (data and rings). Not compared: registers whose value is a side effect the
 * file cannot have (RO heads and status, INC doorbells, WO change_state / q_sw_ctrl); the mock
 * runs no packet here (autoRun 'none'), so the mapped file and the mock agree that nothing moved.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Device } from '../../../csr/io.ts';
import { regFile } from '../../../csr/schema/files.ts';
import {
  UdmaEngine,
  applyQos,
  openDevice,
  registerFileOffset,
  setPriorityClassMap,
  writeMailboxes,
} from '../../../driver/index.ts';
import { MockDevice } from '../../../mocks/index.ts';

const PLAN = JSON.parse(
  fs.readFileSync(new URL('../../../examples/qos-plan.json', import.meta.url), 'utf8'),
);
const ENGINES = [0, 1, 2];
const BAR0_SIZE = 0xb4000000 + 32 * 0x100000;
/** DMA memory: device address, and where the BAR file holds it (no register window there). */
const MEM_ADDR = 0x1_0000_0000;
const MEM_FILE = 0x1000_0000;
const MEM_SIZE = 0x20_0000;
/** DGE core 0's host tables: dram_base, and its barOffset. */
const DGE_ADDR = 0x2_0000_0000;
const DGE_BAR = 0x2000_0000;

const dir = fs.mkdtempSync(
  path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'nxdma-diff-'),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const FILES = ['udma_m2s', 'udma_s2m'] as const;

/** The file's reset image: each register word at its offset (the mock starts the same way). */
function resetImage(file: (typeof FILES)[number]): Buffer {
  const model = regFile(file);
  const b = Buffer.alloc(model.size);
  for (const i of model.instances) b.writeUInt32LE(i.register.reset >>> 0, i.offset);
  return b;
}

/** Offsets of the plain registers of a file (what the image comparison covers). */
function plainOffsets(file: (typeof FILES)[number]): number[] {
  return regFile(file)
    .instances.filter(
      (i) => i.register.access === 'RW' && i.register.fields.every((f) => f.access === 'RW'),
    )
    .map((i) => i.offset);
}

function bar0(): string {
  const p = path.join(dir, 'bar0');
  fs.writeFileSync(p, '');
  fs.truncateSync(p, BAR0_SIZE);
  const fd = fs.openSync(p, 'r+');
  try {
    for (const e of ENGINES) {
      for (const f of FILES) {
        const img = resetImage(f);
        fs.writeSync(fd, img, 0, img.length, registerFileOffset('trn2', e, f));
      }
    }
    // the DGE host table window starts from the schema's reset image, as the mock's does
    const dge = regFile('dge_host');
    const t = Buffer.alloc(dge.size);
    for (const i of dge.instances) t.writeUInt32LE(i.register.reset >>> 0, i.offset);
    fs.writeSync(fd, t, 0, t.length, DGE_BAR);
  } finally {
    fs.closeSync(fd);
  }
  return p;
}

function fill(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** The scenario, on any Device: the only thing that differs between the two runs is `dev`. */
function scenario(dev: Device): void {
  dev.memory.write(MEM_ADDR, fill(0x10000, 7));
  const engines = ENGINES.map((e) => new UdmaEngine(dev, e, { allowInferred: true }));
  for (const eng of engines) eng.bringUp();
  const r = applyQos(dev, PLAN, { allowInferred: true });
  expect(r.writes.length).toBeGreaterThan(20);
  expect(setPriorityClassMap(dev, 0, [0x1000, 0x2000, 0x4000, 0x8000])).toBe(0);
  expect(
    writeMailboxes(dev, 0, [
      { reserved: 0, priority: 2, bitmask: 0x00ff },
      { reserved: 0, priority: 5, bitmask: 0x0f0f },
    ]),
  ).toBe(0);
  const ringBase = MEM_ADDR + 0x10_0000;
  engines.forEach((eng, i) => {
    for (const q of [0, 3]) {
      const base = ringBase + (i * 4 + (q === 0 ? 0 : 1)) * 0x2000;
      eng.initQueue(q, { tx: { base, size: 64 }, rx: { base: base + 0x1000, size: 64 } });
    }
    eng.copy(MEM_ADDR, MEM_ADDR + 0x20000 + i * 0x10000, 0x1800, { queue: 0 });
    eng.copyBatch(3, [
      { src: MEM_ADDR + 0x100, dst: MEM_ADDR + 0x80000 + i * 0x10000, bytes: 0x200 },
      {
        src: MEM_ADDR + 0x4000,
        dst: MEM_ADDR + 0x90000 + i * 0x10000,
        bytes: 0x20000 - 0x1000,
        barrier: true,
      },
    ]);
    eng.pause(3);
    eng.resume(3);
  });
}

describe('mock vs mapped: the same register image, word for word', () => {
  it('bring-up, QoS plan, DGE tables and copies leave identical registers, host tables and memory', () => {
    const mock = new MockDevice({
      engines: ENGINES,
      autoRun: 'none',
      strict: true,
      memory: [
        { name: 'dram', base: MEM_ADDR, size: MEM_SIZE },
        { name: 'dge', base: DGE_ADDR, size: 0x1000 },
      ],
      dgeCores: [{ core: 0, kind: 9, bootState: 1, dramBase: DGE_ADDR }],
    });
    scenario(mock);

    const p = bar0();
    {
      using mapped = openDevice({
        path: p,
        profile: 'trn2',
        engines: ENGINES,
        memory: [{ deviceAddress: MEM_ADDR, fileOffset: MEM_FILE, size: MEM_SIZE }],
        dgeCores: [{ core: 0, kind: 9, bootState: 1, barOffset: DGE_BAR, deviceAddress: DGE_ADDR }],
      });
      scenario(mapped);
    }

    const fd = fs.openSync(p, 'r');
    const at = (offset: number, length: number): Buffer => {
      const b = Buffer.alloc(length);
      fs.readSync(fd, b, 0, length, offset);
      return b;
    };
    try {
      const diffs: string[] = [];
      let compared = 0;
      for (const e of ENGINES) {
        for (const f of FILES) {
          const win = at(registerFileOffset('trn2', e, f), regFile(f).size);
          const u = mock.udma(e);
          const io = f === 'udma_m2s' ? u.m2s : u.s2m;
          for (const o of plainOffsets(f)) {
            compared++;
            const m = io.peek(o) >>> 0;
            const d = win.readUInt32LE(o);
            if (m !== d)
              diffs.push(
                `engine ${e} ${f} @ 0x${o.toString(16)}: mock ${m.toString(16)}, mapped ${d.toString(16)}`,
              );
          }
        }
      }
      expect(diffs).toEqual([]);
      expect(compared).toBeGreaterThan(1000);

      const dgeSize = regFile('dge_host').size;
      const mockTable = new Uint8Array(dgeSize);
      mock.memory.read(DGE_ADDR, mockTable);
      expect(Buffer.from(mockTable).equals(at(DGE_BAR, dgeSize))).toBe(true);
      expect(at(DGE_BAR + 0x18, 4).readUInt32LE(0)).toBe(0x1000);

      const mockMem = new Uint8Array(MEM_SIZE);
      mock.memory.read(MEM_ADDR, mockMem);
      const fileMem = at(MEM_FILE, MEM_SIZE);
      expect(Buffer.from(mockMem).equals(fileMem)).toBe(true);
      // the rings hold descriptors (not all zero), on both sides alike
      expect(fileMem.subarray(0x10_0000, 0x10_0000 + 0x1000).some((x) => x !== 0)).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });
});
