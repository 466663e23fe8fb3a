/**
 * What the engine driver tells people and tools about an engine: its capabilities and limits
 * (dmadev rte_dma_info_get), its health (M2S.state, S2M.state), one queue's ring registers as read
 * from the device with the driver's producer state and counters (rte_dma_dump), and `dump()`
 * rendered as text. Reads only, never a write.
 */
import { hex } from '../../common/errors.ts';
import { BD_MAX_LEN } from '../../csr/formats/bd.ts';
import {
  MAX_RING_SIZE,
  MIN_RING_SIZE,
  RING_ALIGN,
  RING_SIZE_MULTIPLE,
} from '../../csr/formats/ring.ts';
import { fieldValue } from '../../csr/runtime/fields.ts';
import { engineRegs } from './bringup.ts';
import type { EngineIO } from './engine-io.ts';
import type { UdmaEngine } from './engine.ts';
import type { EngineDump, EngineHealth, EngineInfo, HalfDump, QueueDump } from './engine-types.ts';
import type { UdmaQueue } from './queue.ts';
import { queueRegs, type HalfQueueRegs } from './queue-regs.ts';
import { field, type Reg, type UdmaFileName } from './regs.ts';

/** Capabilities and limits of an engine (dmadev rte_dma_info_get). Reads nothing. */
export function engineInfo(eng: UdmaEngine): EngineInfo {
  const init = eng.initializedQueues();
  let minRing: number | null = null;
  for (const q of init) {
    const r = eng.queue(q).rings;
    const m = Math.min(r.tx.size, r.rx.size);
    if (minRing === null || m < minRing) minRing = m;
  }
  return {
    engine: eng.engine,
    device: {
      name: eng.device.name,
      profile: eng.device.profile,
      isHardware: eng.device.isHardware,
    },
    queues: eng.queueCount,
    initializedQueues: init,
    minRingSize: MIN_RING_SIZE,
    maxRingSize: MAX_RING_SIZE,
    ringSizeMultiple: RING_SIZE_MULTIPLE,
    ringAlign: RING_ALIGN,
    maxDescPerPkt: eng.maxDescPerPkt,
    maxSgSegments: eng.maxDescPerPkt,
    maxBytesPerDescriptor: BD_MAX_LEN,
    maxCopyBytes: minRing === null ? null : minRing * BD_MAX_LEN,
    capabilities: ['mem-to-mem', 'copy', 'copy-sg', 'fence', 'ops-status', 'completion-events'],
    broughtUp: eng.isBroughtUp,
    checkBuffers: eng.checkBuffers,
  };
}

/** Reads M2S.state and S2M.state (two reads): every state field, and whether either shows abort. */
export function readHealth(eio: EngineIO): EngineHealth {
  const R = engineRegs();
  const one = (r: Reg): [Record<string, number>, boolean] => {
    const w = eio.read(r);
    const out: Record<string, number> = {};
    let aborted = false;
    for (const f of r.model.fields) {
      const v = fieldValue(w, f);
      out[f.name] = v;
      const abort = f.enums.find((e) => e.name.toLowerCase() === 'abort')?.value ?? 2;
      if (v === abort) aborted = true;
    }
    return [out, aborted];
  };
  const [m2s, a] = one(R.m2sState);
  const [s2m, b] = one(R.s2mState);
  return { engine: eio.engine, m2s, s2m, aborted: a || b };
}

/** One half of queue `q` as read from the device: cfg, status, ring base and size, head, tail. */
function readHalf(eio: EngineIO, q: number, file: UdmaFileName, h: HalfQueueRegs): HalfDump {
  const Qn = file === 'udma_m2s' ? `M2S_Q[${q}]` : `S2M_Q[${q}]`;
  const p = file === 'udma_m2s' ? 't' : 'r';
  const cfg = eio.read(h.cfg);
  const lo = eio.read(h.baseLo.reg);
  const hi = eio.read(h.baseHi.reg);
  const hp = eio.read(h.headOffset.reg);
  const tOff = field(file, `${Qn}.${p}drtp.offset`);
  const tRid = field(file, `${Qn}.${p}drtp.ring_id`);
  const tp = eio.read(tOff.reg);
  return {
    cfg,
    enabled: (cfg & h.enableMask) === h.enableMask,
    status: eio.read(h.status),
    ringBase: h.baseLo.get(lo) * 2 ** h.baseLo.lsb + h.baseHi.get(hi) * 2 ** 32,
    ringSize: h.len.get(eio.read(h.len.reg)),
    head: { offset: h.headOffset.get(hp), ringId: h.headRingId.get(hp) },
    tail: { offset: tOff.get(tp), ringId: tRid.get(tp) },
  };
}

/** Queue `q` in a dump: both halves as read, and the driver's view when `d` drives the queue. */
export function dumpQueue(eio: EngineIO, q: number, d: UdmaQueue | undefined): QueueDump {
  const Q = queueRegs(q);
  return {
    queue: q,
    m2s: readHalf(eio, q, 'udma_m2s', Q.m2s),
    s2m: readHalf(eio, q, 'udma_s2m', Q.s2m),
    driver: d
      ? {
          rings: d.rings,
          tx: {
            tail: d.tx.tail,
            ringId: d.tx.ringId,
            produced: d.tx.produced,
            consumed: d.tx.consumed,
          },
          rx: {
            tail: d.rx.tail,
            ringId: d.rx.ringId,
            produced: d.rx.produced,
            consumed: d.rx.consumed,
          },
          stats: d.stats(),
        }
      : null,
  };
}

/** `dump()` as text. */
export function formatDump(d: EngineDump): string {
  const h = d.health;
  const state = (x: Record<string, number>): string =>
    Object.entries(x)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  const lines = [
    `udma${d.engine} on ${d.device.name} (${d.device.profile}${d.device.isHardware ? ', hardware' : ''})`,
    `  state: ${h.aborted ? 'ABORTED' : 'ok'}; M2S ${state(h.m2s)}; S2M ${state(h.s2m)}`,
    `  max_desc_per_pkt ${d.maxDescPerPkt}`,
  ];
  for (const q of d.queues) {
    const idle =
      q.driver === null &&
      q.m2s.ringSize === 0 &&
      q.s2m.ringSize === 0 &&
      q.m2s.status === 0 &&
      q.s2m.status === 0;
    if (idle) continue;
    lines.push(`  queue ${q.queue}:`);
    for (const [name, x] of [
      ['M2S', q.m2s],
      ['S2M', q.s2m],
    ] as const) {
      lines.push(
        `    ${name} ${x.enabled ? 'enabled ' : 'disabled'} ring ${hex(x.ringBase)} x ${x.ringSize}  ` +
          `head ${x.head.offset}/${x.head.ringId}  tail ${x.tail.offset}/${x.tail.ringId}  ` +
          `cfg ${hex(x.cfg, 8)}  status ${hex(x.status, 8)}`,
      );
    }
    if (q.driver) {
      const s = q.driver.stats;
      lines.push(
        `    driver: tx tail ${q.driver.tx.tail}/${q.driver.tx.ringId}, rx tail ${q.driver.rx.tail}/${q.driver.rx.ringId}; ` +
          `submitted ${s.submitted}, enqueued ${s.enqueued}, completed ${s.completed}, in flight ${s.inFlight}, ` +
          `aborted ${s.aborted}, discarded ${s.discarded}, refused ${s.refused}, errors ${s.errors}${s.paused ? ', paused' : ''}`,
      );
    }
  }
  if (lines.length === 3) lines.push('  no queue programmed');
  return lines.join('\n');
}
