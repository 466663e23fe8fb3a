/**
 * Test helpers for the mock device: register access by schema path (offsets from the loaded
 * model), and a minimal ring driver that writes descriptors with csr/formats/bd.ts and rings
 * doorbells through the register files, as a driver would.
 */
import { BD_MAX_LEN, BD_SIZE, encodeRx, encodeTx } from '../../csr/formats/bd.ts';
import { encodeFields, fieldValue } from '../../csr/runtime/fields.ts';
import { registerMapOf } from '../../csr/schema/map.ts';
import { getField, getInstance } from '../../csr/schema/model.ts';
import type { MockDevice } from '../../mocks/device.ts';
import type { MockRegisterFile } from '../../mocks/register-file.ts';
import type { MockUdmaUnit } from '../../mocks/udma/unit.ts';

export { pattern } from '../support/bytes.ts';

export function off(file: MockRegisterFile, path: string): number {
  return getInstance(file.model, path).offset;
}

export function rd(file: MockRegisterFile, path: string): number {
  return file.read32(off(file, path));
}

export function wr(file: MockRegisterFile, path: string, value: number): void {
  file.write32(off(file, path), value);
}

/** Reads one field ("M2S_Q[0].tdrhp.ring_id"). */
export function rdf(file: MockRegisterFile, path: string): number {
  const f = getField(file.model, path);
  return fieldValue(file.read32(f.instance.offset), f.field);
}

/** Read-modify-write of fields of one register: modify(file, 'M2S_Q[0].cfg', { en_pref: 1 }). */
export function modify(file: MockRegisterFile, path: string, fields: Record<string, number>): void {
  const inst = getInstance(file.model, path);
  const base = inst.register.readable ? file.read32(inst.offset) : 0;
  file.write32(inst.offset, encodeFields(registerMapOf(inst.register), fields, base, path));
}

/** Writes a WO / INC register by its fields. */
export function strobe(file: MockRegisterFile, path: string, fields: Record<string, number>): void {
  const inst = getInstance(file.model, path);
  file.write32(inst.offset, encodeFields(registerMapOf(inst.register), fields, 0, path));
}

/** Engine bring-up, the parts the mock honours: encode_64k, normal state on both halves. */
export function bringUp(u: MockUdmaUnit): void {
  modify(u.m2s, 'M2S.cfg_len', { max_pkt_size: 0xfffff, encode_64k: 1 });
  strobe(u.m2s, 'M2S.change_state', { normal: 1 });
  strobe(u.s2m, 'S2M.change_state', { normal: 1 });
}

/** One queue's TX and RX rings and a producer for them. */
export class QueuePair {
  readonly txBase: number;
  readonly rxBase: number;
  txTail = 0;
  txRid = 1;
  rxTail = 0;
  rxRid = 1;

  constructor(
    readonly dev: MockDevice,
    readonly u: MockUdmaUnit,
    readonly q: number,
    readonly size: number,
    ringArea: number,
    opts: { enable?: boolean; completion?: { tx: number; rx: number } } = {},
  ) {
    this.txBase = ringArea;
    this.rxBase = ringArea + size * BD_SIZE;
    const M = `M2S_Q[${q}]`;
    const S = `S2M_Q[${q}]`;
    wr(u.m2s, `${M}.tdrbp_low`, this.txBase % 2 ** 32);
    wr(u.m2s, `${M}.tdrbp_high`, Math.floor(this.txBase / 2 ** 32));
    wr(u.m2s, `${M}.tdrl`, size);
    wr(u.s2m, `${S}.rdrbp_low`, this.rxBase % 2 ** 32);
    wr(u.s2m, `${S}.rdrbp_high`, Math.floor(this.rxBase / 2 ** 32));
    wr(u.s2m, `${S}.rdrl`, size);
    if (opts.completion) {
      wr(u.m2s, `${M}.tcrbp_low`, opts.completion.tx % 2 ** 32);
      wr(u.m2s, `${M}.tcrbp_high`, Math.floor(opts.completion.tx / 2 ** 32));
      wr(u.s2m, `${S}.rcrbp_low`, opts.completion.rx % 2 ** 32);
      wr(u.s2m, `${S}.rcrbp_high`, Math.floor(opts.completion.rx / 2 ** 32));
      modify(u.m2s, `${M}.comp_cfg`, { en_comp_ring_update: 1 });
      modify(u.s2m, `${S}.comp_cfg`, { en_comp_ring_update: 1 });
    }
    if (opts.enable !== false) this.enable();
  }

  enable(): void {
    modify(this.u.m2s, `M2S_Q[${this.q}].cfg`, { en_pref: 1, en_scheduling: 1 });
    modify(this.u.s2m, `S2M_Q[${this.q}].cfg`, { en_stream: 1 });
  }

  /** Encodes one ring slot through `put` and writes it (a slot may cross a region seam). */
  private slot(addr: number, put: (b: Uint8Array) => void): void {
    const b = new Uint8Array(BD_SIZE);
    put(b);
    this.dev.memory.write(addr, b);
  }

  /** Writes TX descriptors for `bytes` from src (chunks of 64 KiB, one packet); no doorbell. */
  putTx(src: number, bytes: number, opts: { chunk?: number; ringId?: number } = {}): number {
    const chunk = opts.chunk ?? BD_MAX_LEN;
    const n = Math.max(1, Math.ceil(bytes / chunk));
    for (let i = 0; i < n; i++) {
      const len = Math.min(chunk, bytes - i * chunk);
      this.slot(this.txBase + this.txTail * BD_SIZE, (b) =>
        encodeTx(b, 0, {
          len,
          ring_id: opts.ringId ?? this.txRid,
          first: i === 0,
          last: i === n - 1,
          buf_ptr: src + i * chunk,
        }),
      );
      if (++this.txTail === this.size) {
        this.txTail = 0;
        this.txRid = (this.txRid + 1) & 3;
      }
    }
    return n;
  }

  /** Writes RX descriptors for `bytes` to dst; no doorbell. */
  putRx(dst: number, bytes: number, opts: { chunk?: number; ringId?: number } = {}): number {
    const chunk = opts.chunk ?? BD_MAX_LEN;
    const n = Math.max(1, Math.ceil(bytes / chunk));
    for (let i = 0; i < n; i++) {
      const len = Math.min(chunk, bytes - i * chunk);
      this.slot(this.rxBase + this.rxTail * BD_SIZE, (b) =>
        encodeRx(b, 0, {
          len,
          ring_id: opts.ringId ?? this.rxRid,
          buf1_ptr: dst + i * chunk,
        }),
      );
      if (++this.rxTail === this.size) {
        this.rxTail = 0;
        this.rxRid = (this.rxRid + 1) & 3;
      }
    }
    return n;
  }

  ringTx(n: number): void {
    strobe(this.u.m2s, `M2S_Q[${this.q}].tdrtp_inc`, { val: n });
  }

  ringRx(n: number): void {
    strobe(this.u.s2m, `S2M_Q[${this.q}].rdrtp_inc`, { val: n });
  }

  /** A copy as the driver does it: RX descriptors and doorbell first, then TX. */
  copy(src: number, dst: number, bytes: number, opts: { chunk?: number } = {}): void {
    const r = this.putRx(dst, bytes, opts);
    this.ringRx(r);
    const t = this.putTx(src, bytes, opts);
    this.ringTx(t);
  }
}
