/**
 * The state the lowering carries: `LowerCtx` for the whole module (options resolved once, the
 * channel each queue's next descriptor program starts on) and `DmaBuild` for one DMA (its emit
 * context, the DMA-channel rotation of its descriptor programs, and what they produce: the walks
 * the ring descriptors are expanded from, the channel programs and the reduce descriptors).
 * affine.ts and indexed.ts add to a DmaBuild; bounds.ts checks it; lower.ts assembles it.
 */
import { NxdmaError } from '../../common/errors.ts';
import { keepShape } from '../../common/keep-shape.ts';
import {
  dgeDescriptorProblem,
  type BoundCheck,
  type DgeDescriptor,
} from '../../csr/formats/dge-desc.ts';
import type { MicroOp } from '../../csr/formats/dge-ops.ts';
import type { AccessPattern } from '../ir/access-pattern.ts';
import type { DmaQueue, Instr, Module } from '../ir/module.ts';
import { PairShape } from '../ir/pair-shape.ts';
import type { Backend, BackendAvailability } from './backend.ts';
import type { EmitContext } from './emit.ts';
import { walkOf, type Walk } from './expand.ts';
import { DGE_SHAPE_DEPTH, depthOf, dgeShapeOf, type Nest } from './shape.ts';
import type { PlannedMemo } from './planned.ts';
import type { LoweredStream, PacketInfo } from './types.ts';

/** The options of one lower() call, resolved and checked. */
export interface LowerCtx {
  m: Module;
  avail: BackendAvailability;
  maxPerPacket: number;
  carveout: number;
  ringSize: number;
  maxNests: number;
  keep: boolean;
  /** Hold host-plan DMAs as table rows only (LowerOptions.compact). */
  compact: boolean;
  /** Next channel per queue. */
  nextChannel: Map<DmaQueue, number>;
  packetBytes: ((d: PacketInfo) => number) | null;
  dmaMask: ((priorityClass: number) => number) | null;
  /** Host-built walks per pair of access-pattern shapes (affine.ts). */
  hostPlans: HostPlans;
  /** BOUND_CHECK_REG of each region, by region index. */
  regionBounds: BoundCheck[];
  /**
   * Scratch for one DMA's addresses (ROW_* slots): the byte ranges bound layer 1 finds [srcLo,
   * srcHi, dstLo, dstHi] (bounds.ts) and the two start addresses a host plan is moved to. Addresses
   * are doubles: passed in a Float64Array, they need no heap number per DMA between functions.
   */
  ranges: Float64Array;
  /** The planned-DMA memo (planned.ts), or null: every DMA through lowerDma. */
  planned: PlannedMemo | null;
}

/** The slots of LowerCtx.ranges: the four byte ranges, then the two start addresses. */
export const ROW_SRC_ADDR = 4;
export const ROW_DST_ADDR = 5;
export const ROW_SLOTS = 6;

/**
 * The host-built walks of one pair of access-pattern shapes, with addresses relative to the two
 * sides' first elements: DMAs that differ only in where they start share it (its dim arrays, its
 * BD counts and its byte ranges relative to each walk's addresses).
 */
export interface HostPlan {
  elemSize: number;
  walks: HostWalk[];
  /** BD pairs of each walk without a packet byte size (shared by the DMAs of the plan). */
  counts: readonly number[];
  /** The sum of `counts` (a DMA's BD pairs) and the largest of them. */
  total: number;
  maxCount: number;
  /**
   * The DMA's byte ranges relative to its two start addresses, [srcLo, srcHi, dstLo, dstHi]: the
   * lowest and highest of its walks' srcOff + srcLo, srcOff + srcHi, dstOff + dstLo, dstOff + dstHi
   * (bounds.ts checkPlanBounds), when every offset and range of every walk is an integer of at most
   * 2^50 in magnitude (a start address of at most 2^51 then moves each sum exactly); else null.
   */
  hull: Float64Array | null;
}

export interface HostWalk {
  srcOff: number;
  dstOff: number;
  srcNum: readonly number[];
  srcStep: readonly number[];
  dstNum: readonly number[];
  dstStep: readonly number[];
  /** walkRanges of the walk relative to its own source and destination addresses. */
  srcLo: number;
  srcHi: number;
  dstLo: number;
  dstHi: number;
}

/** Compares one side's dims with `key` from `k`: the next k, or -1 when they differ. */
function sameSide(key: readonly number[], k: number, ap: AccessPattern): number {
  if (key[k++] !== ap.partStep || key[k++] !== ap.partNum || key[k++] !== ap.free.length) return -1;
  const f = ap.free;
  for (let i = 0; i < f.length; i++) if (key[k++] !== f[i]) return -1;
  return k;
}

/** What a host plan depends on: both sides' dims (partition first, then the free [step, num]s) and the element size. */
function sameShape(
  key: readonly number[],
  src: AccessPattern,
  dst: AccessPattern,
  es: number,
): boolean {
  if (key[0] !== es) return false;
  const k = sameSide(key, 1, src);
  return k >= 0 && sameSide(key, k, dst) === key.length;
}

function hashSide(h: number, ap: AccessPattern): number {
  h = Math.imul(h ^ ap.partStep, 0x9e3779b1);
  h = Math.imul(h ^ ap.partNum, 0x85ebca77);
  const f = ap.free;
  for (let i = 0; i < f.length; i++) h = Math.imul(h ^ f[i], 0xc2b2ae3d);
  return h;
}

function shapeHash(src: AccessPattern, dst: AccessPattern, es: number): number {
  return hashSide(hashSide(es | 0, src), dst);
}

/** A HostPlans cache slot: the plan of two interned patterns' dims (free arrays by identity). */
interface HostSlot {
  shape: PairShape;
  plan: HostPlan;
}

/** Slots of the HostPlans cache (a power of two). */
const HOST_SLOTS = 64;

/**
 * Host plans by the shapes of their two access patterns (a hash of the dims, then the dims
 * compared). In front of the hash, a direct-mapped cache by the patterns' ApShapes ids: patterns
 * of one interned shape share one frozen free array, so the same two free arrays (by identity),
 * partition dims and element size are the same dims, and the plan the hash would find.
 */
export class HostPlans {
  private readonly byHash = new Map<number, { key: number[]; plan: HostPlan }[]>();
  private readonly slots = new Array<HostSlot | null>(HOST_SLOTS).fill(null);

  get(src: AccessPattern, dst: AccessPattern, es: number): HostPlan | undefined {
    const interned = src.shapeId >= 0 && dst.shapeId >= 0;
    const k = interned ? slotOf(src.shapeId, dst.shapeId) : 0;
    if (interned) {
      const e = this.slots[k];
      if (e !== null && e.shape.fits(src, dst, es)) return e.plan;
    }
    const list = this.byHash.get(shapeHash(src, dst, es));
    if (list === undefined) return undefined;
    for (const e of list) {
      if (!sameShape(e.key, src, dst, es)) continue;
      if (interned) this.slots[k] = { shape: new PairShape(src, dst, es), plan: e.plan };
      return e.plan;
    }
    return undefined;
  }

  set(src: AccessPattern, dst: AccessPattern, es: number, plan: HostPlan): void {
    const key = [es];
    for (const ap of [src, dst]) key.push(ap.partStep, ap.partNum, ap.free.length, ...ap.free);
    const h = shapeHash(src, dst, es);
    const list = this.byHash.get(h);
    if (list === undefined) this.byHash.set(h, [{ key, plan }]);
    else list.push({ key, plan });
  }
}

/** A fresh HostPlans for one lowering; the class's shape outlives each program (keepShape). */
export function newHostPlans(): HostPlans {
  keepShape(HostPlans, () => new HostPlans());
  return new HostPlans();
}

function slotOf(srcShape: number, dstShape: number): number {
  return (Math.imul(srcShape, 0x9e3779b1) ^ dstShape) & (HOST_SLOTS - 1);
}

/** The empty record list of a DMA that has none (shared; replaced on the first push). */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** A LOWER_ERROR about one DMA: `label: message`. */
export function lowerError(
  label: string,
  message: string,
  expected: string,
  actual: unknown,
): NxdmaError {
  return new NxdmaError('LOWER_ERROR', `${label}: ${message}`, {
    where: label,
    expected,
    actual,
  });
}

/** `#12 (name)`: how messages name a DMA. */
export function dmaLabel(I: Instr): string {
  return I.name ? `#${I.id} (${I.name})` : `#${I.id}`;
}

/** The lowest set bit of a non-zero 16-bit mask. */
export function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}

/** The next set bit of `mask` after bit `b`, wrapping (the channels a queue rotates over). */
export function nextBit(mask: number, b: number): number {
  for (let k = 1; k <= 16; k++) {
    const c = (b + k) & 15;
    if ((mask & (1 << c)) !== 0) return c;
  }
  return b;
}

/** What the descriptor programs of one DMA add up to while it is lowered. */
export class DmaBuild {
  readonly ctx: LowerCtx;
  readonly instr: Instr;
  readonly backend: Backend;
  /** A DGE backend builds the descriptors (not the host). */
  readonly dge: boolean;
  readonly ec: EmitContext;
  /**
   * What the BDs are expanded from: one walk per 64-byte descriptor (or host transfer). A host
   * plan's walks are added by addPlanWalks only when the record needs them.
   */
  walks: Walk[] = NONE;
  /** Channel programs (kept only when the records are). */
  streams: LoweredStream[] = NONE;
  /** A destination reduce's DIRECT2D descriptors, in order. */
  reduceDescriptors: DgeDescriptor[] = NONE;
  dgeDescriptors = 0;
  /** BD pairs of each walk (bounds.ts). */
  pieces: number[] = NONE;
  /** BD pairs of all walks. */
  total = 0;
  /** Byte ranges the DMA reads and writes, [lo, hi) (bounds.ts). */
  srcLo = Infinity;
  srcHi = -Infinity;
  dstLo = Infinity;
  dstHi = -Infinity;
  /** The host plan the walks come from (affine.ts), or null; and the two sides' start addresses it is moved to. */
  plan: HostPlan | null = null;
  planSrc = 0;
  planDst = 0;
  /** The channel the next descriptor program goes to. */
  private ch: number;

  constructor(ctx: LowerCtx, I: Instr, backend: Backend, ec: EmitContext) {
    this.ctx = ctx;
    this.instr = I;
    this.backend = backend;
    this.dge = backend !== 'none';
    this.ec = ec;
    const mask = ec.channelMask;
    let ch = this.dge ? (ctx.nextChannel.get(I.queue!) ?? lowestBit(mask)) : 0;
    if (this.dge && (mask & (1 << ch)) === 0) ch = nextBit(mask, ch);
    this.ch = ch;
  }

  /** How messages name the DMA (dmaLabel; made when a message needs it). */
  get label(): string {
    return dmaLabel(this.instr);
  }

  /** Moves the emit context to the next descriptor program's channel (the queue's rotation). */
  nextChannel(): void {
    this.ec.channel = this.ch;
    this.ch = nextBit(this.ec.channelMask, this.ch);
  }

  /** Records where the queue's next DMA starts its rotation. */
  finish(): void {
    if (this.dge) this.ctx.nextChannel.set(this.instr.queue!, this.ch);
  }

  /** Adds a destination reduce's DIRECT2D descriptor. */
  addReduce(d: DgeDescriptor): void {
    if (this.reduceDescriptors === NONE) this.reduceDescriptors = [];
    this.reduceDescriptors.push(d);
  }

  /** A host-built transfer (backend none): one walk, no descriptor. */
  addWalk(w: Walk): void {
    if (this.walks === NONE) this.walks = [];
    this.walks.push(w);
  }

  /** The host plan's walks, moved to the DMA's two start addresses (planSrc, planDst). */
  addPlanWalks(): void {
    const plan = this.plan!;
    for (const w of plan.walks) {
      this.addWalk({
        type: 'affine',
        elemSize: plan.elemSize,
        srcAddr: this.planSrc + w.srcOff,
        dstAddr: this.planDst + w.dstOff,
        srcNum: w.srcNum,
        srcStep: w.srcStep,
        dstNum: w.dstNum,
        dstStep: w.dstStep,
      });
    }
  }

  /**
   * One channel program: its micro-ops, the nest it walks (null for indexed rows) and the 64-byte
   * descriptors it builds, each checked field by field (dgeDescriptorProblem) and walked.
   */
  addStream(ops: MicroOp[], n: Nest | null, descs: DgeDescriptor[]): void {
    for (const d of descs) {
      const p = dgeDescriptorProblem(d);
      if (p) {
        throw lowerError(
          this.label,
          `${d.kind}.${p.field}: expected ${p.expected}, got ${String(p.actual)}`,
          p.expected,
          p.actual,
        );
      }
      this.addWalk(walkOf(d));
    }
    this.dgeDescriptors += descs.length;
    if (this.ctx.keep) {
      if (this.streams === NONE) this.streams = [];
      this.streams.push({
        channel: this.ec.channel,
        microOps: ops,
        // the dge_shape is the firmware's 4-deep view; a deeper RTL program has none
        src: n && depthOf(n) <= DGE_SHAPE_DEPTH ? dgeShapeOf(n, true) : null,
        dst: n && depthOf(n) <= DGE_SHAPE_DEPTH ? dgeShapeOf(n, false) : null,
        descriptors: descs,
      });
    }
  }
}
