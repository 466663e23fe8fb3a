/**
 * What a flow reports after the run: every region read back and compared byte by byte with the
 * reference interpreter's image, who the arbiters served (from the device's service trace), and
 * the lowering records for --trace.
 */
import { Buffer } from 'node:buffer';
import { hex } from '../common/errors.ts';
import type { MemoryImage } from '../compiler/interp/memory.ts';
import { qosClassName } from '../compiler/ir/enums.ts';
import type { Module } from '../compiler/ir/module.ts';
import { formatMicroOp } from '../csr/formats/dge-ops.ts';
import { serviceTraceOf, type Device } from '../csr/io.ts';
import type { QueuePlacement } from './mapping.ts';
import type { FlowReport, FlowTrace, MismatchSample } from './report.ts';
import type { PreparedFlow } from './prepare.ts';

interface Verify {
  destinationBytes: number;
  checkedBytes: number;
  mismatches: number;
  samples: MismatchSample[];
}

/** Bytes compared at once by countNonZero against a span of 0s or of 1s. */
const SPAN = 4096;
const ZEROS = new Uint8Array(SPAN);
const ONES = new Uint8Array(SPAN).fill(1);

/** A Buffer over the bytes of `a` (no copy), for Buffer's byte comparisons. */
function bufferOf(a: Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.length);
}

/** Bytes of `mask[from, to)` that are not 0 (a word at a time where the array is 4-byte aligned). */
function countWords(mask: Uint8Array, from: number, to: number): number {
  let n = 0;
  let k = from;
  if ((mask.byteOffset + from) % 4 === 0) {
    const words = (to - from) >>> 2;
    const w32 = new Uint32Array(mask.buffer, mask.byteOffset + from, words);
    for (let i = 0; i < words; i++) {
      const w = w32[i];
      if (w === 0) continue;
      n += ((w & 0xff) !== 0 ? 1 : 0) + ((w & 0xff00) !== 0 ? 1 : 0);
      n += ((w & 0xff0000) !== 0 ? 1 : 0) + ((w & 0xff000000) !== 0 ? 1 : 0);
    }
    k = from + words * 4;
  }
  for (; k < to; k++) if (mask[k] !== 0) n++;
  return n;
}

/**
 * Bytes of `mask` that are not 0. A span of SPAN bytes equal to a span of 0s counts none and one
 * equal to a span of 1s (the interpreter's written marks) counts all; any other is counted word by
 * word.
 */
export function countNonZero(mask: Uint8Array): number {
  const len = mask.length;
  if (len < SPAN) return countWords(mask, 0, len);
  const b = bufferOf(mask);
  let n = 0;
  let k = 0;
  for (; k + SPAN <= len; k += SPAN) {
    if (b.compare(ZEROS, 0, SPAN, k, k + SPAN) === 0) continue;
    if (b.compare(ONES, 0, SPAN, k, k + SPAN) === 0) n += SPAN;
    else n += countWords(mask, k, k + SPAN);
  }
  return n + countWords(mask, k, len);
}

/** Whether two byte arrays of one length hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && bufferOf(a).equals(b);
}

/** Bytes read back at once by compare (one buffer for every call: compare runs to its end). */
const READ_BACK = 65536;
const back = new Uint8Array(READ_BACK);

/**
 * Reads every region back, READ_BACK bytes at a time, and compares it byte by byte with the
 * reference (a piece read back equal to it as a whole has no mismatch to list).
 */
export function compare(
  device: Device,
  expected: MemoryImage,
  written: Uint8Array[],
  m: Module,
): Verify {
  let destinationBytes = 0;
  let checkedBytes = 0;
  let mismatches = 0;
  const samples: MismatchSample[] = [];
  expected.regions.forEach((r, i) => {
    const want = r.bytes;
    const mask = written[i];
    destinationBytes += countNonZero(mask.subarray(0, r.size));
    checkedBytes += r.size;
    for (let at = 0; at < r.size; at += READ_BACK) {
      const n = Math.min(READ_BACK, r.size - at);
      const got = back.subarray(0, n);
      device.memory.read(r.base + at, got);
      if (sameBytes(got, want.subarray(at, at + n))) continue;
      for (let j = 0; j < n; j++) {
        const k = at + j;
        if (got[j] !== want[k]) {
          mismatches++;
          if (samples.length < 16) {
            const addr = r.base + k;
            const t = m.tensors.find((x) => addr >= x.address && addr < x.address + x.byteSize);
            samples.push({
              address: hex(addr),
              region: r.name,
              tensor: t ? t.name : null,
              destination: mask[k] !== 0,
              expected: want[k],
              actual: got[j],
            });
          }
        }
      }
    }
  });
  return { destinationBytes, checkedBytes, mismatches, samples };
}

/**
 * Where the flow's own entries of the device's service trace start: the entries stored (and
 * dropped) before it, as a device that served earlier flows keeps theirs. Zeros for a device
 * without a trace.
 */
export interface TraceMark {
  length: number;
  dropped: number;
}

export function traceMark(device: Device): TraceMark {
  const t = serviceTraceOf(device);
  return t === null ? { length: 0, dropped: 0 } : { length: t.length, dropped: t.dropped };
}

/**
 * Who the arbiters served during the flow (the trace's entries from `mark` on, see traceMark): per
 * queue packets, bytes, first and last cycle, the first grants.
 */
export function arbitration(
  device: Device,
  p: PreparedFlow,
  mode: 'qos' | 'round-robin',
  warnings: string[],
  mark: TraceMark,
): FlowReport['arbitration'] {
  const t = serviceTraceOf(device);
  const lost = t === null ? 0 : t.dropped - mark.dropped;
  if (lost > 0) {
    warnings = [
      ...warnings,
      `the device's service trace did not store ${lost} of the flow's packets (over its limit, or off): the per-queue counts leave them out`,
    ];
  }
  const byRing = new Map<string, QueuePlacement>();
  for (const pl of p.active) byRing.set(`${pl.engine}:${pl.qid}`, pl);
  const stats = new Map<
    string,
    { packets: number; bytes: number; first: number; last: number; qQos: number }
  >();
  const grants: string[] = [];
  if (t !== null) {
    for (let i = mark.length; i < t.length; i++) {
      const e = t.at(i);
      const key = `${e.engine}:${e.queue}`;
      let s = stats.get(key);
      if (!s) {
        s = { packets: 0, bytes: 0, first: e.startCycle, last: e.endCycle, qQos: e.qQos };
        stats.set(key, s);
      }
      s.packets++;
      s.bytes += e.bytes;
      if (e.endCycle > s.last) s.last = e.endCycle;
      if (grants.length < 64) grants.push(byRing.get(key)?.queue.name ?? key);
    }
  }
  return {
    mode,
    observed: t !== null,
    warnings,
    queues: p.active.map((pl) => {
      const s = stats.get(`${pl.engine}:${pl.qid}`);
      return {
        name: pl.queue.name,
        engine: pl.engine,
        qid: pl.qid,
        qos: qosClassName(pl.queue.qos),
        qQos: s ? s.qQos : null,
        packets: s ? s.packets : 0,
        bytes: s ? s.bytes : 0,
        firstCycle: s ? s.first : null,
        lastCycle: s ? s.last : null,
      };
    }),
    firstGrants: grants,
  };
}

/** The lowering records and the flow's service trace entries from `mark` on (for --trace). */
export function traceOf(p: PreparedFlow, device: Device, mark: TraceMark): FlowTrace {
  const dmas = p.lowered.dmas.map((d) => ({
    dma: d.label,
    queue: d.queue.name,
    backend: d.backend,
    priorityClass: d.priorityClass,
    descriptors: d.descriptors,
    streams: d.streams.map((s) => ({
      channel: s.channel,
      microOps: s.microOps.map(formatMicroOp),
      src: s.src,
      dst: s.dst,
      descriptors: s.descriptors.map((x) => x.kind),
    })),
  }));
  const t = serviceTraceOf(device);
  const service: FlowTrace['service'] = [];
  if (t !== null) {
    for (let i = mark.length; i < Math.min(t.length, mark.length + 10000); i++) {
      service.push(t.at(i));
    }
  }
  return { dmas, service };
}
