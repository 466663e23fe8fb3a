/**
 * The hand-written instruction checker: zod's verdict (InstructionSchema, program.ts) on one
 * instruction, without building zod's output. It only answers "valid" or "not known to be valid":
 * a program whose instructions all pass goes to toModule as written, and anything else goes
 * through ProgramSchema, whose issues carry the messages and JSON paths the format promises. So
 * this file writes no message; it may refuse what zod accepts (that costs time only) but must
 * never accept what zod refuses (test/compiler/ir/program-check.test.ts runs both on random and
 * mutated instructions).
 *
 * It judges data as JSON.parse makes it: plain objects (prototype Object.prototype or null), arrays,
 * strings, numbers and booleans. It reads every field once; toModule reads it again, so an input
 * object whose property getters change their answer between reads is outside its contract.
 */
import { DMA_QOS_CLASS_NAMES } from '../../csr/formats/qos-class.ts';
import {
  AccessPatternSchema,
  CollectiveInstructionSchema,
  ComputeInstructionSchema,
  DmaInstructionSchema,
} from './program.ts';

type Obj = Record<string, unknown>;

/**
 * The keys zod's strict objects allow and the values of its enums, read off the schemas on first
 * use (program.ts imports this file, so its schemas are read only once both are loaded).
 */
let S: ReturnType<typeof readSchemas> | null = null;
function readSchemas() {
  const dma = DmaInstructionSchema.shape;
  return {
    dmaKeys: new Set(Object.keys(dma)),
    computeKeys: new Set(Object.keys(ComputeInstructionSchema.shape)),
    collectiveKeys: new Set(Object.keys(CollectiveInstructionSchema.shape)),
    apKeys: new Set(Object.keys(AccessPatternSchema.shape)),
    dmaOps: new Set<string>(dma.op.options),
    computeOps: new Set<string>(ComputeInstructionSchema.shape.op.options),
    engines: new Set<string>(dma.engine.unwrap().options),
    dgeTypes: new Set<string>(dma.dgeType.unwrap().options),
    dmaKinds: new Set<string>(dma.dmaKind.unwrap().options),
    transposes: new Set<string>(dma.transpose.unwrap().options),
    dstReduces: new Set<string>(dma.dstReduce.unwrap().options),
  };
}
const QOS_NAMES = new Set<string>(DMA_QOS_CLASS_NAMES);
const EDGE_KINDS = new Set<string>(['Ordered', 'Anti', 'Output', 'Flow']);
const DEP_KEYS = new Set(['on', 'kind']);
const DYNAMIC_KEYS = new Set(['scalar', 'vector']);
const SCALAR_KEYS = new Set(['register', 'value']);
const INDEX_KEYS = new Set(['indexTensor']);

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function isPlain(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

/** `name`: a string of 1..200 (zod counts a pair of surrogates as one; fewer units are safe). */
function isName(v: unknown): boolean {
  return typeof v === 'string' && v.length >= 1 && v.length <= 200;
}

function isInt(v: unknown, min: number, max: number): boolean {
  return Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
}

function isNames(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!isName(v[i])) return false;
  return true;
}

function inSet(v: unknown, set: ReadonlySet<string>): boolean {
  return typeof v === 'string' && set.has(v);
}

function isIndexRef(v: unknown): boolean {
  return isPlain(v) && onlyKeys(v, INDEX_KEYS) && isName(v.indexTensor);
}

function isDim(v: unknown): boolean {
  return (
    Array.isArray(v) && v.length === 2 && isInt(v[0], I32_MIN, I32_MAX) && isInt(v[1], 1, I32_MAX)
  );
}

/** AccessPatternSchema. */
function isAccessPattern(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, S!.apKeys)) return false;
  if (!isName(v.tensor) || !isDim(v.partition)) return false;
  if (v.offset !== undefined && !Number.isSafeInteger(v.offset)) return false;
  const free = v.free;
  if (free !== undefined) {
    if (!Array.isArray(free) || free.length > 8) return false;
    for (let i = 0; i < free.length; i++) if (!isDim(free[i])) return false;
  }
  const dyn = v.dynamic;
  if (dyn !== undefined) {
    if (!isPlain(dyn) || !onlyKeys(dyn, DYNAMIC_KEYS)) return false;
    const s = dyn.scalar;
    if (s !== undefined) {
      if (!isPlain(s) || !onlyKeys(s, SCALAR_KEYS)) return false;
      if (!isName(s.register) || !Number.isSafeInteger(s.value)) return false;
    }
    if (dyn.vector !== undefined && !isIndexRef(dyn.vector)) return false;
  }
  return v.indirect === undefined || isIndexRef(v.indirect);
}

/** The fields every instruction kind has: name, subId, deps. */
function isCommon(o: Obj): boolean {
  if (o.name !== undefined && !isName(o.name)) return false;
  if (o.subId !== undefined && !isInt(o.subId, 0, 255)) return false;
  const deps = o.deps;
  if (deps === undefined) return true;
  if (!Array.isArray(deps)) return false;
  for (let i = 0; i < deps.length; i++) {
    const d: unknown = deps[i];
    if (!isPlain(d) || !onlyKeys(d, DEP_KEYS) || !isName(d.on)) return false;
    if (d.kind !== undefined && !inSet(d.kind, EDGE_KINDS)) return false;
  }
  return true;
}

function optional(v: unknown, set: ReadonlySet<string>): boolean {
  return v === undefined || inSet(v, set);
}

/** DmaInstructionSchema. */
function isDma(o: Obj): boolean {
  if (!onlyKeys(o, S!.dmaKeys) || !isCommon(o)) return false;
  if (!optional(o.engine, S!.engines) || !optional(o.dgeType, S!.dgeTypes)) return false;
  if (!optional(o.dmaKind, S!.dmaKinds) || !optional(o.transpose, S!.transposes)) return false;
  if (!optional(o.dstReduce, S!.dstReduces)) return false;
  const q = o.qos;
  if (q !== undefined && !inSet(q, QOS_NAMES) && !isInt(q, 0, 16)) return false;
  if (o.dmaEngines !== undefined && !isInt(o.dmaEngines, 1, 1024)) return false;
  return isAccessPattern(o.src) && isAccessPattern(o.dst);
}

/** ComputeInstructionSchema. */
function isCompute(o: Obj): boolean {
  if (!onlyKeys(o, S!.computeKeys) || !isCommon(o) || !optional(o.engine, S!.engines)) return false;
  if (o.reads !== undefined && !isNames(o.reads)) return false;
  if (o.writes !== undefined && !isNames(o.writes)) return false;
  return o.accumulate === undefined || typeof o.accumulate === 'boolean';
}

/** CollectiveInstructionSchema. */
function isCollective(o: Obj): boolean {
  if (!onlyKeys(o, S!.collectiveKeys) || !isCommon(o) || !optional(o.engine, S!.engines))
    return false;
  const c = o.collective;
  if (c !== undefined && !(typeof c === 'string' && c.length >= 1)) return false;
  if (o.args !== undefined && !isNames(o.args)) return false;
  return o.results === undefined || isNames(o.results);
}

/** InstructionSchema (the union on `op`): true only when zod accepts the instruction. */
export function isValidInstruction(v: unknown): boolean {
  S ??= readSchemas();
  if (!isPlain(v)) return false;
  const op = v.op;
  if (typeof op !== 'string') return false;
  if (S!.dmaOps.has(op)) return isDma(v);
  if (S!.computeOps.has(op)) return isCompute(v);
  return op === 'CollectiveCompute' && isCollective(v);
}
