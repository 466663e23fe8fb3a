import { describe, expect, it } from 'vitest';
import { BD_SIZE, decodeCompletion, encodeTx } from '../../../csr/formats/bd.ts';
import { MockDevice } from '../../../mocks/device.ts';
import { MOCK_QUEUE_STATUS } from '../../../mocks/udma/types.ts';
import { QueuePair, bringUp, modify, pattern, rd, rdf, strobe } from '../helpers.ts';

const HOST = 0;
const DRAM = 2 ** 32;
const RINGS = HOST + 0x10000;
const SRC = HOST + 0x400000;
const DST = DRAM + 0x400000;

function setup(
  opts: { ring?: number; autoRun?: 'none' | 'on-read' | 'on-doorbell'; q?: number } = {},
) {
  const dev = new MockDevice({ engines: [0], autoRun: opts.autoRun ?? 'on-read' });
  const u = dev.udma(0);
  bringUp(u);
  const qp = new QueuePair(dev, u, opts.q ?? 0, opts.ring ?? 64, RINGS);
  return { dev, u, qp };
}

function bytesAt(dev: MockDevice, addr: number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  dev.memory.read(addr, b);
  return b;
}

const STATE_FIELDS = ['comp_ctrl', 'stream_if', 'data_rd_ctrl', 'desc_pref'];

describe('mock UDMA engine: adjacent regions (docs/mock.md "accesses may span adjacent regions")', () => {
  // 'lo' [0, 0x100008) and 'hi' [0x100008, 0x200000) touch at a seam that is not 16-byte aligned
  const SEAM = 0x100008;
  const memory = [
    { name: 'lo', base: 0, size: SEAM },
    { name: 'hi', base: SEAM, size: 0x200000 - SEAM },
    { name: 'dram', base: DRAM, size: 0x100000 },
  ];

  it('a data buffer spanning two adjacent regions is copied (source and destination)', () => {
    const dev = new MockDevice({ engines: [0], memory });
    const u = dev.udma(0);
    bringUp(u);
    const qp = new QueuePair(dev, u, 0, 64, 0x1000);
    const data = pattern(0x1000, 7);
    dev.memory.write(SEAM - 0x64, data);
    qp.copy(SEAM - 0x64, DRAM + 0x100, 0x1000);
    expect(dev.faults()).toEqual([]);
    expect(Buffer.from(bytesAt(dev, DRAM + 0x100, 0x1000)).equals(Buffer.from(data))).toBe(true);
    // back again, landing across the seam, in RX buffers of 0x300 bytes
    dev.memory.fill(SEAM - 0x800, 0x1000, 0);
    qp.copy(DRAM + 0x100, SEAM - 0x7f4, 0x1000, { chunk: 0x300 });
    expect(dev.faults()).toEqual([]);
    expect(Buffer.from(bytesAt(dev, SEAM - 0x7f4, 0x1000)).equals(Buffer.from(data))).toBe(true);
  });

  it('a descriptor and a completion entry straddling the seam are fetched and written, not faulted', () => {
    const SEAM2 = 0x180008;
    const dev = new MockDevice({
      engines: [0],
      memory: [
        { name: 'lo', base: 0, size: SEAM },
        { name: 'hi', base: SEAM, size: SEAM2 - SEAM },
        { name: 'top', base: SEAM2, size: 0x200000 - SEAM2 },
        { name: 'dram', base: DRAM, size: 0x100000 },
      ],
    });
    const u = dev.udma(0);
    bringUp(u);
    // (ring bases are 64-byte aligned) TX ring slot 4 lies at [SEAM - 8, SEAM + 8), TX completion
    // entry 4 at [SEAM2 - 8, SEAM2 + 8)
    const qp = new QueuePair(dev, u, 0, 8, SEAM - 0x48, {
      completion: { tx: SEAM2 - 0x48, rx: SEAM2 + 0x1000 },
    });
    const data = pattern(0x140, 3);
    dev.memory.write(0x2000, data);
    qp.copy(0x2000, DRAM, 0x140, { chunk: 0x40 });
    expect(dev.faults()).toEqual([]);
    expect(Buffer.from(bytesAt(dev, DRAM, 0x140)).equals(Buffer.from(data))).toBe(true);
    expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(5);
    const entry = bytesAt(dev, SEAM2 - 8, 16);
    const c = decodeCompletion(entry, 0);
    expect([c.words[0] & 0xffff, c.first, c.last, c.ring_id]).toEqual([0x40, false, true, 1]);
  });
});

describe('mock UDMA engine: copies', () => {
  for (const size of [1, 4096, 65536, 65537, 1 << 20]) {
    it(`copies ${size} bytes host -> DRAM byte for byte`, () => {
      const { dev, u, qp } = setup();
      const data = pattern(size, size);
      dev.memory.write(SRC, data);
      dev.memory.fill(DST, size + 64, 0xee);
      qp.copy(SRC, DST, size);
      const descs = Math.ceil(size / 65536);
      expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(descs);
      expect(rdf(u.s2m, 'S2M_Q[0].rdrhp.offset')).toBe(descs);
      expect(Buffer.from(bytesAt(dev, DST, size)).equals(Buffer.from(data))).toBe(true);
      expect(bytesAt(dev, DST + size, 64).every((b) => b === 0xee)).toBe(true);
      const s = u.queueStats(0);
      expect(s.m2s).toMatchObject({
        bytes: size,
        descriptors: descs,
        packets: 1,
        pending: 0,
        status: 0,
      });
      expect(s.s2m).toMatchObject({
        bytes: size,
        descriptors: descs,
        packets: 1,
        pending: 0,
        status: 0,
      });
      expect(dev.faults()).toEqual([]);
    });
  }

  it('65536 bytes is one descriptor with length field 0 (encode_64k)', () => {
    const { dev, u, qp } = setup();
    qp.putTx(SRC, 65536);
    const w0 = dev.memory.readU32(RINGS);
    expect(w0 & 0xffff).toBe(0);
    qp.putRx(DST, 65536);
    qp.ringRx(1);
    qp.ringTx(1);
    expect(u.queueStats(0).m2s.bytes).toBe(65536);
  });

  it('without encode_64k a length field of 0 moves nothing', () => {
    const { dev, u, qp } = setup();
    modify(u.m2s, 'M2S.cfg_len', { encode_64k: 0 });
    dev.memory.fill(DST, 16, 0x11);
    qp.copy(SRC, DST, 65536);
    expect(u.queueStats(0).m2s).toMatchObject({ bytes: 0, descriptors: 1, packets: 1 });
    expect(bytesAt(dev, DST, 16).every((b) => b === 0x11)).toBe(true);
  });

  it('65537 bytes takes two descriptors of one packet (FIRST on the first, LAST on the second)', () => {
    const { dev, u, qp } = setup({ autoRun: 'none' });
    qp.copy(SRC, DST, 65537);
    const w0a = dev.memory.readU32(RINGS);
    const w0b = dev.memory.readU32(RINGS + 16);
    expect([(w0a >>> 26) & 3, (w0b >>> 26) & 3]).toEqual([1, 2]);
    dev.runUntilIdle();
    expect(dev.serviceTrace.entries()).toMatchObject([{ queue: 0, bytes: 65537, descriptors: 2 }]);
    expect(u.queueStats(0).m2s.packets).toBe(1);
  });

  it('three ring laps: the head ring id goes 1, 2, 3, 0, 1 and every copy lands', () => {
    const { dev, u, qp } = setup({ ring: 32 });
    const ids: number[] = [];
    for (let i = 0; i < 32 * 4 + 3; i++) {
      const data = pattern(96, i + 1);
      dev.memory.write(SRC, data);
      qp.copy(SRC, DST + i * 128, 96);
      if (rdf(u.m2s, 'M2S_Q[0].tdrhp.offset') === 1) ids.push(rdf(u.m2s, 'M2S_Q[0].tdrhp.ring_id'));
      expect(Buffer.from(bytesAt(dev, DST + i * 128, 96)).equals(Buffer.from(data))).toBe(true);
      // The ring id the engine expects and the producer's agree.
      expect(rdf(u.m2s, 'M2S_Q[0].tdrtp.ring_id')).toBe(qp.txRid);
    }
    expect(ids).toEqual([1, 2, 3, 0, 1]);
    expect(rdf(u.s2m, 'S2M_Q[0].rdrhp.ring_id')).toBe(1);
    expect(u.queueStats(0).m2s.descriptors).toBe(131);
  });

  it('a packet spanning RX descriptors of other sizes lands contiguously; the next packet starts a new RX descriptor', () => {
    const { dev, u, qp } = setup({ autoRun: 'none' });
    const data = pattern(10000, 7);
    dev.memory.write(SRC, data);
    qp.putRx(DST, 10000, { chunk: 3000 }); // 4 RX descriptors: 3000, 3000, 3000, 1000
    qp.putRx(DST + 20000, 100);
    qp.ringRx(5);
    qp.putTx(SRC, 10000, { chunk: 4096 }); // 3 TX descriptors
    qp.putTx(SRC, 100);
    qp.ringTx(4);
    dev.runUntilIdle();
    expect(Buffer.from(bytesAt(dev, DST, 10000)).equals(Buffer.from(data))).toBe(true);
    expect(
      Buffer.from(bytesAt(dev, DST + 20000, 100)).equals(Buffer.from(data.subarray(0, 100))),
    ).toBe(true);
    expect(u.queueStats(0).s2m).toMatchObject({ descriptors: 5, packets: 2, bytes: 10100 });
  });

  it('a queue waits (without error) until the RX ring can take the whole packet', () => {
    const { dev, u, qp } = setup({ autoRun: 'none' });
    qp.putTx(SRC, 8192);
    qp.ringTx(1);
    qp.putRx(DST, 4096);
    qp.ringRx(1);
    expect(dev.runUntilIdle()).toBe(0);
    expect(u.queueStats(0).m2s.status).toBe(0);
    qp.putRx(DST + 4096, 4096);
    qp.ringRx(1);
    expect(dev.runUntilIdle()).toBe(1);
    expect(u.queueStats(0).s2m.descriptors).toBe(2);
  });

  it('writes completion entries when enabled (first/last, ring id, bytes landed)', () => {
    const dev = new MockDevice({ engines: [0] });
    const u = dev.udma(0);
    bringUp(u);
    const CT = HOST + 0x80000;
    const CR = HOST + 0x90000;
    const qp = new QueuePair(dev, u, 2, 32, RINGS, { completion: { tx: CT, rx: CR } });
    qp.copy(SRC, DST, 65536 + 10);
    const t0 = decodeCompletion(dev.memory.view(CT, 16)!);
    const t1 = decodeCompletion(dev.memory.view(CT + 16, 16)!);
    expect([t0.first, t0.last, t0.ring_id, t1.first, t1.last, t1.ring_id]).toEqual([
      true,
      false,
      1,
      false,
      true,
      1,
    ]);
    const r1 = decodeCompletion(dev.memory.view(CR + 16, 16)!);
    expect(r1).toMatchObject({ first: false, last: true, ring_id: 1 });
    expect(r1.words[0] & 0xffff).toBe(10);
    expect([rdf(u.m2s, 'M2S_Q[2].tcrhp.offset'), rdf(u.s2m, 'S2M_Q[2].rcrhp.offset')]).toEqual([
      2, 2,
    ]);
  });

  it('rings and buffers whose low address word has bit 31 set (at and above 2 GiB) are fetched there', () => {
    const LOW = 0x8000_0000;
    const dev = new MockDevice({
      engines: [0],
      memory: [{ name: 'high', base: LOW, size: 1 << 20 }],
    });
    const u = dev.udma(0);
    bringUp(u);
    const qp = new QueuePair(dev, u, 0, 16, LOW, {
      completion: { tx: LOW + 0x400, rx: LOW + 0x800 },
    });
    const data = pattern(256);
    dev.memory.write(LOW + 0x1_0000, data);
    qp.copy(LOW + 0x1_0000, LOW + 0x2_0000, 256);
    dev.runUntilIdle();
    expect(u.faults).toEqual([]);
    expect(bytesAt(dev, LOW + 0x2_0000, 256)).toEqual(data);
    expect(decodeCompletion(dev.memory.view(LOW + 0x400, 16)!)).toMatchObject({
      first: true,
      last: true,
    });
  });

  it('counts interrupts of descriptors with int_en', () => {
    const { dev, u, qp } = setup({ autoRun: 'none' });
    qp.putRx(DST, 64);
    qp.ringRx(1);
    encodeTx(dev.memory.view(RINGS, 16)!, 0, {
      len: 64,
      ring_id: 1,
      first: true,
      last: true,
      int_en: true,
      buf_ptr: SRC,
    });
    qp.ringTx(1);
    dev.runUntilIdle();
    expect(u.queueStats(0).m2s.interrupts).toBe(1);
  });
});

describe('mock UDMA engine: what stops it', () => {
  it('a stale ring id stalls the queue and raises the ring-id error status', () => {
    const { dev, u, qp } = setup();
    dev.memory.fill(DST, 64, 0);
    dev.memory.fill(SRC, 64, 0x77);
    qp.putRx(DST, 64);
    qp.ringRx(1);
    qp.putTx(SRC, 64, { ringId: 0 }); // written under the wrong phase
    qp.ringTx(1);
    const st = rd(u.m2s, 'M2S_Q[0].status');
    expect(st & MOCK_QUEUE_STATUS.RING_ID_ERROR).not.toBe(0);
    expect(st & MOCK_QUEUE_STATUS.STALLED).not.toBe(0);
    expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(0);
    expect(u.queueStats(0).m2s.bytes).toBe(0);
    expect(bytesAt(dev, DST, 64).every((b) => b === 0)).toBe(true);
    expect(dev.faults()).toMatchObject([
      { half: 'm2s', queue: 0, kind: 'ring-id', expected: 1, actual: 0, aborted: false },
    ]);
    // The engine itself is not aborted.
    expect(rdf(u.m2s, 'M2S.state.desc_pref')).toBe(1);
    // The producer rewrites the descriptor under the right phase and rings again (0 more).
    encodeTx(dev.memory.view(RINGS, 16)!, 0, {
      len: 64,
      ring_id: 1,
      first: true,
      last: true,
      buf_ptr: SRC,
    });
    qp.ringTx(0);
    expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(1);
    expect(bytesAt(dev, DST, 64).every((b) => b === 0x77)).toBe(true);
    // The error bit is sticky until rst_q; the stall is over.
    expect(rd(u.m2s, 'M2S_Q[0].status')).toBe(MOCK_QUEUE_STATUS.RING_ID_ERROR);
  });

  it('a doorbell announcing more descriptors than were written stalls on the stale slot', () => {
    const { dev, u, qp } = setup();
    qp.putRx(DST, 64 * 3, { chunk: 64 });
    qp.ringRx(3);
    qp.putTx(SRC, 64);
    qp.putTx(SRC, 64);
    qp.ringTx(3); // the third slot was never written (ring id 0)
    expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(2);
    expect(u.queueStats(0).m2s).toMatchObject({ packets: 2, stalled: true, pending: 1 });
    expect(dev.faults().at(-1)).toMatchObject({ kind: 'ring-id', descriptor: 2 });
  });

  it('the err_log_mask.pref_ring_id bit masks the error status, not the stall', () => {
    const { u, qp } = setup();
    modify(u.m2s, 'M2S.err_log_mask', { pref_ring_id: 1 });
    qp.putRx(DST, 64);
    qp.ringRx(1);
    qp.putTx(SRC, 64, { ringId: 3 });
    qp.ringTx(1);
    expect(rd(u.m2s, 'M2S_Q[0].status')).toBe(MOCK_QUEUE_STATUS.STALLED);
  });

  it('a stale RX descriptor stalls the S2M queue', () => {
    const { u, qp } = setup();
    qp.putRx(DST, 64, { ringId: 2 });
    qp.ringRx(1);
    qp.putTx(SRC, 64);
    qp.ringTx(1);
    expect(rd(u.s2m, 'S2M_Q[0].status')).toBe(
      MOCK_QUEUE_STATUS.RING_ID_ERROR | MOCK_QUEUE_STATUS.STALLED,
    );
    expect(u.queueStats(0).m2s.bytes).toBe(0);
  });

  it('a disabled queue does not run (M2S en_pref / en_scheduling, S2M en_stream)', () => {
    for (const [file, path, field] of [
      ['m2s', 'M2S_Q[1].cfg', 'en_pref'],
      ['m2s', 'M2S_Q[1].cfg', 'en_scheduling'],
      ['s2m', 'S2M_Q[1].cfg', 'en_stream'],
    ] as const) {
      const { dev, u, qp } = setup({ q: 1 });
      modify(u[file], path, { [field]: 0 });
      qp.copy(SRC, DST, 4096);
      expect(dev.runUntilIdle()).toBe(0);
      expect(rdf(u.m2s, 'M2S_Q[1].tdrhp.offset')).toBe(0);
      expect(u.queueStats(1).m2s.bytes).toBe(0);
      modify(u[file], path, { [field]: 1 });
      expect(rdf(u.m2s, 'M2S_Q[1].tdrhp.offset')).toBe(1);
    }
  });

  it('nothing runs unless both halves are in the normal state', () => {
    const dev = new MockDevice({ engines: [0] });
    const u = dev.udma(0);
    const qp = new QueuePair(dev, u, 0, 32, RINGS);
    modify(u.m2s, 'M2S.cfg_len', { encode_64k: 1 });
    qp.copy(SRC, DST, 128);
    expect(dev.runUntilIdle()).toBe(0);
    strobe(u.m2s, 'M2S.change_state', { normal: 1 });
    expect(dev.runUntilIdle()).toBe(0);
    strobe(u.s2m, 'S2M.change_state', { normal: 1 });
    expect(dev.runUntilIdle()).toBe(1);
    strobe(u.m2s, 'M2S.change_state', { dis: 1 });
    qp.copy(SRC, DST, 128);
    expect(dev.runUntilIdle()).toBe(0);
    expect(u.queueStats(0).m2s.pending).toBe(1);
  });

  it('an unmapped source buffer aborts the engine with nothing written past the fault', () => {
    const { dev, u, qp } = setup();
    const HOLE = 0x80000000; // between the host and DRAM regions
    dev.memory.fill(DST, 3 * 4096 + 64, 0xcc);
    dev.memory.write(SRC, pattern(4096, 3));
    qp.putRx(DST, 3 * 4096, { chunk: 4096 });
    qp.ringRx(3);
    // One packet of three descriptors; the second one reads unmapped memory.
    const ring = (i: number) => dev.memory.view(RINGS + i * BD_SIZE, 16)!;
    encodeTx(ring(0), 0, { len: 4096, ring_id: 1, first: true, buf_ptr: SRC });
    encodeTx(ring(1), 0, { len: 4096, ring_id: 1, buf_ptr: HOLE });
    encodeTx(ring(2), 0, { len: 4096, ring_id: 1, last: true, buf_ptr: SRC });
    qp.ringTx(3);
    for (const f of STATE_FIELDS) {
      expect(rdf(u.m2s, `M2S.state.${f}`)).toBe(2);
      expect(rdf(u.s2m, `S2M.state.${f}`)).toBe(2);
    }
    const st = rd(u.m2s, 'M2S_Q[0].status');
    expect(st & MOCK_QUEUE_STATUS.DATA_FAULT).not.toBe(0);
    expect(dev.faults()).toMatchObject([
      { kind: 'data', half: 'm2s', descriptor: 1, address: HOLE, aborted: true },
    ]);
    // The first chunk landed; nothing after it did.
    expect(Buffer.from(bytesAt(dev, DST, 4096)).equals(Buffer.from(pattern(4096, 3)))).toBe(true);
    expect(bytesAt(dev, DST + 4096, 2 * 4096 + 64).every((b) => b === 0xcc)).toBe(true);
    // The head stops at the faulting descriptor.
    expect(rdf(u.m2s, 'M2S_Q[0].tdrhp.offset')).toBe(1);
    // Nothing else runs while aborted; other queues included.
    const other = new QueuePair(dev, u, 3, 32, RINGS + 0x8000);
    other.copy(SRC, DST + 0x100000, 64);
    expect(u.queueStats(3).m2s.bytes).toBe(0);
    // Back to normal: other queues run; the faulted queue stays stopped until rst_q.
    strobe(u.m2s, 'M2S.change_state', { normal: 1 });
    strobe(u.s2m, 'S2M.change_state', { normal: 1 });
    expect(u.queueStats(3).m2s.bytes).toBe(64);
    expect(u.queueStats(0).m2s.descriptors).toBe(1);
  });

  it('an unmapped destination buffer aborts the engine; the source side consumed nothing of that chunk', () => {
    const { dev, u, qp } = setup();
    qp.putRx(0x90000000, 64);
    qp.ringRx(1);
    qp.putTx(SRC, 64);
    qp.ringTx(1);
    expect(rd(u.s2m, 'S2M_Q[0].status') & MOCK_QUEUE_STATUS.DATA_FAULT).not.toBe(0);
    expect(dev.faults()).toMatchObject([{ kind: 'data', half: 's2m', address: 0x90000000 }]);
    expect(u.queueStats(0).m2s.descriptors).toBe(0);
    expect(rdf(u.s2m, 'S2M.state.stream_if')).toBe(2);
  });

  it('an unmapped ring aborts the engine with a descriptor-fetch fault', () => {
    const dev = new MockDevice({ engines: [0] });
    const u = dev.udma(0);
    bringUp(u);
    const qp = new QueuePair(dev, u, 0, 32, 0x7fff0000, { enable: true });
    qp.ringRx(1);
    qp.ringTx(1);
    expect(dev.faults()).toMatchObject([
      { kind: 'descriptor-fetch', half: 'm2s', address: 0x7fff0000 },
    ]);
    expect(rd(u.m2s, 'M2S_Q[0].status') & MOCK_QUEUE_STATUS.DESC_FETCH_FAULT).not.toBe(0);
    expect(rdf(u.m2s, 'M2S.state.desc_pref')).toBe(2);
  });

  it('a packet longer than max_desc_per_pkt stalls the queue', () => {
    const { dev, u, qp } = setup({ ring: 128 });
    modify(u.m2s, 'M2S_rd.desc_pref_cfg_2', { max_desc_per_pkt: 8 });
    qp.putRx(DST, 9 * 64, { chunk: 64 });
    qp.ringRx(9);
    qp.putTx(SRC, 9 * 64, { chunk: 64 });
    qp.ringTx(9);
    expect(rd(u.m2s, 'M2S_Q[0].status')).toBe(
      MOCK_QUEUE_STATUS.PKT_TOO_LONG | MOCK_QUEUE_STATUS.STALLED,
    );
    expect(dev.faults().at(-1)).toMatchObject({ kind: 'packet-too-long', expected: 8 });
    expect(u.queueStats(0).m2s.bytes).toBe(0);
  });

  it('nothing throws into the caller for random ring contents', () => {
    const { dev, u, qp } = setup({ ring: 32 });
    const junk = pattern(32 * 16, 99);
    dev.memory.write(qp.txBase, junk);
    dev.memory.write(qp.rxBase, pattern(32 * 16, 98));
    qp.ringRx(32);
    qp.ringTx(32);
    expect(() => dev.runUntilIdle()).not.toThrow();
    expect(() => rd(u.m2s, 'M2S_Q[0].status')).not.toThrow();
  });

  it('is deterministic: the same program gives the same trace and memory', () => {
    const run = () => {
      const { dev, qp } = setup({ autoRun: 'none' });
      dev.memory.write(SRC, pattern(200000, 5));
      for (let i = 0; i < 10; i++) qp.copy(SRC + i * 1000, DST + i * 20000, 10000 + i * 777);
      dev.runUntilIdle();
      return {
        trace: dev.serviceTrace.entries(),
        mem: Buffer.from(bytesAt(dev, DST, 200000)).toString('base64'),
      };
    };
    expect(run()).toEqual(run());
  });
});
