import { afterEach, describe, expect, it } from 'vitest';
import { dge_host, udma_m2s, udma_s2m } from '../../../csr/generated/index.ts';
import { bindRegFile } from '../../../csr/runtime/index.ts';
import { openDevice } from '../../../driver/mmio/device.ts';
import { unitOffset } from '../../../driver/mmio/profiles.ts';
import { fileBytes, removeFiles, sparseFile } from './helpers.ts';

afterEach(removeFiles);

describe('generated register maps run unchanged over a mapped device', () => {
  it('M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 }) lands at unit + 0x4084; S2M and dge_host too', () => {
    const p = sparseFile(0xa2000000);
    using dev = openDevice({
      path: p,
      profile: 'trn2',
      engines: [35],
      dgeCores: [{ core: 2, kind: 9, bootState: 1, barOffset: 0x2000 }],
    });
    const unit = unitOffset('trn2', 35);
    const m2s = bindRegFile(udma_m2s, dev.udma(35).m2s, { hardware: dev.isHardware });
    m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qos: 5 });
    expect(fileBytes(p, unit + 0x4084, 4).readUInt32LE(0)).toBe(5);
    expect(m2s.M2S_Q[3].dwrr_cfg_2.read().q_qos).toBe(5);

    const s2m = bindRegFile(udma_s2m, dev.udma(35).s2m, { hardware: dev.isHardware });
    s2m.S2M_Q[1].rdrtp_inc.write({ val: 7 });
    expect(fileBytes(p, unit + 0x20000 + 0x2038, 4).readUInt32LE(0)).toBe(7);

    const dge = bindRegFile(dge_host, dev.dgeCore(2).dram, { hardware: dev.isHardware });
    dge.priority_class_map[1].write({ bytes_per_packet: 0x1000 });
    expect(fileBytes(p, 0x2000 + 0x18 + 4, 4).readUInt32LE(0)).toBe(0x1000);
  });
});
