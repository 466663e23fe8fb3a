/**
 * The mock UDMA engine fed random rings and doorbells (mocks/udma/; docs/mock.md), with an
 * exact write-set check that test/mocks/udma/engine-fuzz.test.ts (no throw, pointers in range) leaves
 * out.
 *
 * Each run brings an engine up through driver/udma, initializes two queues, then applies random
 * operations: well-formed descriptors written at the producer position (with the right ring id or
 * a stale one), random descriptors at random slots, doorbells announcing as many, more or fewer
 * descriptors than were written, queue resets, state changes and engine steps. Buffer addresses
 * point into the source and destination regions, across their ends, into unmapped gaps, or past
 * 2^53.
 *
 * Properties, checked after every step:
 *  - nothing throws out of the engine;
 *  - every byte of data memory that changed lies inside a buffer of an RX descriptor the step
 *    consumed (or the one it stopped at): the engine writes nowhere else, and never the source;
 *  - every fault names an address that is indeed unmapped; heads stay inside their rings;
 *  - an aborted engine moves nothing (until change_state.normal).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BD_SIZE, LEN_CTRL, putRx, putTx } from '../../../csr/formats/bd.ts';
import { UdmaEngine } from '../../../driver/udma/engine.ts';
import { queueRegs } from '../../../driver/udma/queue-regs.ts';
import { reg } from '../../../driver/udma/regs.ts';
import { MockDevice } from '../../../mocks/device.ts';
import { fuzz } from '../../support/fuzz.ts';

const RING = 32;
const QUEUES = 2;
// Above 2^31: the low word of every ring base has bit 31 set.
const RINGS = { base: 0x8000_0000, size: 0x4000 };
const SRC = { base: 0x10000, size: 0x4000 };
const DST = { base: 0x20000, size: 0x10000 };

type Half = 'tx' | 'rx';

const addrArb = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: SRC.size - 1 }).map((o) => ({ in: 'src', o })) },
  { weight: 6, arbitrary: fc.nat({ max: DST.size - 1 }).map((o) => ({ in: 'dst', o })) },
  { weight: 1, arbitrary: fc.nat({ max: 0xff }).map((o) => ({ in: 'gap', o })) },
  { weight: 1, arbitrary: fc.constant({ in: 'huge', o: 0 }) },
);
type AddrChoice = { in: string; o: number };

function address(a: AddrChoice, len: number): number {
  switch (a.in) {
    case 'src':
      return SRC.base + a.o;
    case 'dst':
      // Most buffers fit; those near the end run past it into unmapped memory.
      return DST.base + (a.o % 8 === 0 ? a.o : Math.min(a.o, Math.max(0, DST.size - len)));
    case 'gap':
      return SRC.base + SRC.size + a.o; // between the source and destination regions
    default:
      return 2 ** 53 + 2 ** 40; // not a safe integer: the engine must not reach anything
  }
}

const descArb = fc.record({
  len: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constantFrom(0, 1, 16, 4096, 8192)),
  addr: addrArb,
  first: fc.boolean(),
  last: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false)),
  staleRid: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 3 })),
});

type Op =
  | { k: 'produce'; half: Half; q: number; descs: Desc[]; extra: number }
  | { k: 'raw'; half: Half; q: number; slot: number; words: number[] }
  | { k: 'doorbell'; half: Half; q: number; n: number }
  | { k: 'reset'; half: Half; q: number }
  | { k: 'state'; half: Half; to: 'normal' | 'dis' | 'abort' }
  | { k: 'step'; n: number };
type Desc = { len: number; addr: AddrChoice; first: boolean; last: boolean; staleRid: number };

const halfArb = fc.constantFrom<Half>('tx', 'rx');
const qArb = fc.integer({ min: 0, max: QUEUES - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('produce' as const),
      half: halfArb,
      q: qArb,
      descs: fc.array(descArb, { minLength: 1, maxLength: 6 }),
      // doorbell announces this many more (or fewer) than written
      extra: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, fc.integer({ min: -2, max: 3 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('raw' as const),
      half: halfArb,
      q: qArb,
      slot: fc.nat({ max: RING - 1 }),
      words: fc.array(fc.nat({ max: 0xffffffff }), { minLength: 4, maxLength: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('doorbell' as const),
      half: halfArb,
      q: qArb,
      n: fc.integer({ min: 0, max: 40 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('reset' as const), half: halfArb, q: qArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('state' as const),
      half: halfArb,
      to: fc.constantFrom('normal', 'normal', 'dis', 'abort'),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ k: fc.constant('step' as const), n: fc.integer({ min: 1, max: 4 }) }),
  },
) as fc.Arbitrary<Op>;

/** The test's own producer position per half and queue (what a driver would keep). */
class Producer {
  tail = 0;
  rid = 1;
  advance(): void {
    if (++this.tail === RING) {
      this.tail = 0;
      this.rid = (this.rid + 1) & 3;
    }
  }
  reset(): void {
    this.tail = 0;
    this.rid = 1;
  }
}

function ringBase(half: Half, q: number): number {
  return RINGS.base + (q * 2 + (half === 'tx' ? 0 : 1)) * RING * BD_SIZE;
}

function setup() {
  const dev = new MockDevice({
    autoRun: 'none',
    memory: [
      { name: 'rings', ...RINGS },
      { name: 'src', ...SRC },
      { name: 'dst', ...DST },
    ],
  });
  const eng = new UdmaEngine(dev, 0);
  eng.bringUp({ maxDescPerPkt: 8 });
  for (let q = 0; q < QUEUES; q++) {
    eng.initQueue(q, {
      tx: { base: ringBase('tx', q), size: RING },
      rx: { base: ringBase('rx', q), size: RING },
    });
  }
  const src = new Uint8Array(SRC.size);
  for (let i = 0; i < src.length; i++) src[i] = (i * 131 + 7) & 0xff;
  dev.memory.write(SRC.base, src);
  return { dev, eng, unit: dev.udma(0) };
}

const view = (dev: MockDevice, r: { base: number; size: number }) =>
  dev.memory.view(r.base, r.size)!;

describe('mock engine fed random rings and doorbells (write set)', () => {
  it('writes only into the buffers of the RX descriptors it consumed; faults name unmapped addresses', () => {
    let moved = 0;
    let faults = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 50 }), (ops) => {
        const { dev, unit } = setup();
        const prod = new Map<string, Producer>();
        const P = (half: Half, q: number): Producer => {
          const k = `${half}${q}`;
          if (!prod.has(k)) prod.set(k, new Producer());
          return prod.get(k)!;
        };
        const rings = view(dev, RINGS);
        const dv = new DataView(rings.buffer, rings.byteOffset, rings.byteLength);
        const data = [
          { base: SRC.base, v: view(dev, SRC) },
          { base: DST.base, v: view(dev, DST) },
        ];
        const doorbell = (half: Half, q: number, n: number) => {
          const h = half === 'tx' ? queueRegs(q).m2s : queueRegs(q).s2m;
          const io = half === 'tx' ? unit.m2s : unit.s2m;
          io.write32(h.doorbell.reg.offset, h.doorbell.place(n));
        };
        for (const op of ops) {
          switch (op.k) {
            case 'produce': {
              const p = P(op.half, op.q);
              for (const d of op.descs) {
                const off = ringBase(op.half, op.q) + p.tail * BD_SIZE - RINGS.base;
                const len = d.len === 0 ? 65536 : d.len;
                const addr = address(d.addr, len);
                const rid = (p.rid + d.staleRid) & 3;
                // the positional encoders refuse addresses >= 2^53: write those words by hand
                if (addr > Number.MAX_SAFE_INTEGER) {
                  dv.setUint32(
                    off,
                    ((d.len & 0xffff) | (rid << 24) | LEN_CTRL.LAST | LEN_CTRL.FIRST) >>> 0,
                    true,
                  );
                  dv.setUint32(off + 8, 0, true);
                  dv.setUint32(off + 12, Math.floor(addr / 2 ** 32) >>> 0, true);
                } else if (op.half === 'tx') {
                  const flags = (d.first ? LEN_CTRL.FIRST : 0) | (d.last ? LEN_CTRL.LAST : 0);
                  putTx(rings, off, d.len === 0 ? 65536 : d.len, rid, flags, addr);
                } else {
                  putRx(rings, off, d.len === 0 ? 65536 : d.len, rid, 0, addr);
                }
                p.advance();
              }
              doorbell(op.half, op.q, Math.max(0, op.descs.length + op.extra));
              break;
            }
            case 'raw': {
              const off = ringBase(op.half, op.q) + op.slot * BD_SIZE - RINGS.base;
              // keep the buffer pointer out of the ring region (the write-set check covers data memory)
              const w3 =
                op.words[3] === 0 &&
                op.words[2] >= RINGS.base &&
                op.words[2] < RINGS.base + RINGS.size
                  ? 1
                  : op.words[3];
              for (let i = 0; i < 4; i++)
                dv.setUint32(off + 4 * i, i === 3 ? w3 : op.words[i], true);
              break;
            }
            case 'doorbell':
              doorbell(op.half, op.q, op.n);
              break;
            case 'reset': {
              const h = op.half === 'tx' ? queueRegs(op.q).m2s : queueRegs(op.q).s2m;
              const io = op.half === 'tx' ? unit.m2s : unit.s2m;
              io.write32(h.swCtrl.offset, h.swCtrl.encode({ [h.rstQ.name]: 1 }, 0));
              P(op.half, op.q).reset();
              break;
            }
            case 'state': {
              const r = reg(
                op.half === 'tx' ? 'udma_m2s' : 'udma_s2m',
                op.half === 'tx' ? 'M2S.change_state' : 'S2M.change_state',
              );
              (op.half === 'tx' ? unit.m2s : unit.s2m).write32(
                r.offset,
                r.encode({ [op.to]: 1 }, 0),
              );
              break;
            }
            case 'step': {
              for (let i = 0; i < op.n; i++) {
                // What the step may write: the buffers of the RX descriptors from the head on.
                const before = data.map((d) => Buffer.from(d.v));
                const heads = [];
                for (let q = 0; q < QUEUES; q++) {
                  const s = unit.queueStats(q).s2m;
                  heads.push({ off: s.headOffset, descs: s.descriptors });
                }
                const ranges: [number, number][] = [];
                const rxDesc = (q: number, slot: number): [number, number] => {
                  const o = ringBase('rx', q) + (slot % RING) * BD_SIZE - RINGS.base;
                  const w0 = dv.getUint32(o, true);
                  const a = dv.getUint32(o + 8, true) + dv.getUint32(o + 12, true) * 2 ** 32;
                  return [a, a + (w0 & 0xffff || 65536)];
                };
                const faultsBefore = unit.faults.length;
                const wasAborted = unit.isAborted();
                expect(() => dev.step()).not.toThrow();
                for (let q = 0; q < QUEUES; q++) {
                  const s = unit.queueStats(q).s2m;
                  const used = s.descriptors - heads[q].descs;
                  expect(s.headOffset >= 0 && s.headOffset < RING).toBe(true);
                  const span = Math.min(used + 1, RING);
                  for (let k = 0; k < span; k++) ranges.push(rxDesc(q, heads[q].off + k));
                  const t = unit.queueStats(q).m2s;
                  expect(t.headOffset >= 0 && t.headOffset < RING).toBe(true);
                }
                // An aborted engine moves nothing.
                if (wasAborted) {
                  expect(data.every((d, r) => Buffer.from(d.v).equals(before[r]))).toBe(true);
                  continue;
                }
                data.forEach((d, r) => {
                  const now = Buffer.from(d.v);
                  if (now.equals(before[r])) return;
                  moved++;
                  let bad = -1;
                  for (let j = 0; j < now.length && bad < 0; j++) {
                    if (now[j] === before[r][j]) continue;
                    const a = d.base + j;
                    if (!ranges.some(([lo, hi]) => a >= lo && a < hi)) bad = a;
                  }
                  expect(
                    bad,
                    `byte at 0x${bad.toString(16)} written outside every consumed RX buffer`,
                  ).toBe(-1);
                });
                for (const f of unit.faults.slice(faultsBefore)) {
                  if (f.kind === 'ring-id' || f.kind === 'packet-too-long') continue;
                  faults++;
                  expect(f.aborted).toBe(true);
                  const unmapped =
                    !Number.isSafeInteger(f.address) || !dev.memory.isMapped(f.address, 1);
                  expect(unmapped, f.message).toBe(true);
                  expect(unit.isAborted()).toBe(true);
                }
              }
              break;
            }
          }
        }
        expect(() => dev.runUntilIdle({ maxPackets: 1000 })).not.toThrow();
      }),
      fuzz(0x30c4a001, 80, 1500),
    );
    expect(moved).toBeGreaterThan(0);
    expect(faults).toBeGreaterThan(0);
  });
});
