/**
 * The mock UDMA engine's errors, shown where the device shows them (docs/mock.md "Errors"): the
 * queue's `status` word (the mock's MOCK_QUEUE_STATUS encoding), the halves' `state` fields on an
 * abort, and a `UdmaFault` record in the engine's fault log. Nothing here throws.
 *
 * - `stall`: a descriptor the queue must not process (stale ring id, packet too long) stops that
 *   queue until a doorbell (ring id) or rst_q.
 * - `fault`: an access to unmapped memory aborts the engine (both halves) and stops the queue
 *   until its rst_q.
 */
import { hex } from '../../common/errors.ts';
import { PKT_UNKNOWN, PKT_WAIT, type UdmaCore } from './core.ts';
import { MOCK_QUEUE_STATUS, type UdmaFault, type UdmaHalf } from './types.ts';

const FAULT_LOG_LIMIT = 256;

const ST = MOCK_QUEUE_STATUS;

/** Writes queue q's status word from its sticky error bits and stall flag. */
export function mirrorStatus(c: UdmaCore, half: UdmaHalf, q: number): void {
  c.wordsOf(half)[c.refsOf(half).q[q].status >>> 2] = statusOf(c, half, q);
}

/** Queue q's status word (MOCK_QUEUE_STATUS bits). */
export function statusOf(c: UdmaCore, half: UdmaHalf, q: number): number {
  const st = c.stateOf(half);
  return (st.err[q] | (st.stalled[q] !== 0 ? ST.STALLED : 0)) >>> 0;
}

function record(c: UdmaCore, f: UdmaFault): void {
  if (c.faults.length >= FAULT_LOG_LIMIT) c.faults.shift();
  c.faults.push(f);
}

/** A queue stops on a descriptor it must not process (ring id, packet length). */
export function stall(
  c: UdmaCore,
  half: UdmaHalf,
  q: number,
  kind: 'ring-id' | 'packet-too-long',
  desc: number,
  addr: number,
  expected: number,
  actual: number,
): void {
  const R = c.refsOf(half);
  const st = c.stateOf(half);
  const w = c.wordsOf(half);
  st.stalled[q] = 1;
  if (kind === 'ring-id') {
    if (!R.errMaskRingId.isSet(w)) st.err[q] |= ST.RING_ID_ERROR;
  } else {
    st.err[q] |= ST.PKT_TOO_LONG;
  }
  mirrorStatus(c, half, q);
  if (half === 'm2s') c.pktState[q] = PKT_WAIT;
  const Q = `${R.name}_Q[${q}]`;
  record(c, {
    engine: c.engine,
    half,
    queue: q,
    kind,
    aborted: false,
    descriptor: desc,
    address: addr,
    length: 16,
    expected,
    actual,
    cycle: c.cycle,
    message:
      kind === 'ring-id'
        ? `udma${c.engine} ${Q}: descriptor ${desc} at ${hex(addr)} has ring id ${actual}, ` +
          `expected ${expected} (stale descriptor: the queue stalls)`
        : `udma${c.engine} ${Q}: no LAST within ${expected} descriptors ` +
          `(M2S_rd.desc_pref_cfg_2.max_desc_per_pkt) from descriptor ${desc}`,
  });
}

/** An access to unmapped memory: the engine aborts (both halves), the queue is marked. */
export function fault(
  c: UdmaCore,
  half: UdmaHalf,
  q: number,
  kind: 'descriptor-fetch' | 'data' | 'completion',
  desc: number,
  addr: number,
  length: number,
): void {
  const R = c.refsOf(half);
  const st = c.stateOf(half);
  st.err[q] |=
    kind === 'descriptor-fetch'
      ? ST.DESC_FETCH_FAULT
      : kind === 'data'
        ? ST.DATA_FAULT
        : ST.COMPLETION_FAULT;
  st.stalled[q] = 1;
  st.faulted[q] = 1;
  mirrorStatus(c, half, q);
  for (const f of c.M.stateFields) f.write(c.mw, c.M.stateValues.abort);
  for (const f of c.S.stateFields) f.write(c.sw, c.S.stateValues.abort);
  c.pktState.fill(PKT_UNKNOWN);
  const what =
    kind === 'descriptor-fetch'
      ? 'descriptor fetch'
      : kind === 'data'
        ? 'data buffer'
        : 'completion write';
  record(c, {
    engine: c.engine,
    half,
    queue: q,
    kind,
    aborted: true,
    descriptor: desc,
    address: addr,
    length,
    cycle: c.cycle,
    message:
      `udma${c.engine} ${R.name}_Q[${q}]: ${what} at ${hex(addr)} is not mapped ` +
      `(descriptor ${desc}); the engine aborted`,
  });
}
