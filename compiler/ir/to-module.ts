/**
 * Program -> Module: the semantic checks of a parsed program (names resolve, tensors fit their
 * regions, access patterns stay inside their tensors, run-time offsets are well formed, routes are
 * only preset where the passes can honour them) and the construction of the IR. This is the one
 * path from a program to IR: parseProgram (JSON) and ProgramBuilder (code) both end here.
 * Every problem is reported with its JSON path, all at once, before anything is built.
 */
import {
  DEFAULT_CARVEOUT_CFG,
  DEFAULT_DMA_CFG,
  carveoutProblem,
} from '../../csr/formats/dge-local-regs.ts';
import { DMAQoSClass } from '../../csr/formats/qos-class.ts';
import { AccessPattern, StaticPatterns } from './access-pattern.ts';
import {
  ArchLevel,
  DEFAULT_COMPUTE_ENGINE,
  DGELevels,
  DGEType,
  DMAKind,
  DTYPE_CODE,
  DTYPE_SIZE,
  DstReduce,
  EdgeKind,
  EngineType,
  InstructionType,
  MemoryType,
  TensorKind,
  TransposeKind,
  type ComputeOpName,
  type DtypeName,
} from './enums.ts';
import { Block, Func, Module, Region, Tensor, type ModuleOptions } from './module.ts';
import {
  type AccessPatternInput,
  type CheckedProgram,
  type ProgramIssue,
  parseProgramShape,
  programInvalid,
} from './program.ts';
import { VALID_ENGINES_CORE_V5 } from './target.ts';

const MEM_TYPE = {
  dram: MemoryType.DRAM,
  sb: MemoryType.SB,
  psum: MemoryType.PSUM,
  remote_sb: MemoryType.RemoteSB,
};

function toNumber(v: number | string): number {
  return typeof v === 'number' ? v : parseInt(v.slice(2), 16);
}

export interface ToModuleOptions {
  /** Overrides the program's ArchLevel (the CLI's --arch). */
  arch?: number;
  /** File name for messages. */
  file?: string;
}

/** Parses a program (JSON value) and builds its IR. Throws PROGRAM_INVALID naming JSON paths. */
export function parseProgram(json: unknown, opts: ToModuleOptions = {}): Module {
  return toModule(parseProgramShape(json, opts.file), opts);
}

/** Builds the IR of a parsed program after its semantic checks. */
export function toModule(p: CheckedProgram, opts: ToModuleOptions = {}): Module {
  const issues: ProgramIssue[] = [];
  const issue = (path: string, message: string) => {
    issues.push({ path, message });
  };

  // --- arch and options ---
  let arch: number = typeof p.arch === 'number' ? p.arch : ArchLevel[p.arch];
  if (opts.arch !== undefined) {
    if (
      opts.arch !== 10 &&
      opts.arch !== 20 &&
      opts.arch !== 30 &&
      opts.arch !== 40 &&
      opts.arch !== 50
    ) {
      issue('--arch', `ArchLevel must be one of 10, 20, 30, 40, 50, got ${opts.arch}`);
    }
    arch = opts.arch;
  }
  const o = p.options;
  let levels = 0;
  for (const l of o.dgeLevels) levels |= 1 << DGELevels[l];
  const options: ModuleOptions = {
    dgeEnabled: o.dgeEnabled,
    dgeLevels: levels,
    numDmaEngines: o.numDmaEngines,
    hwmDmaEngines: o.hwmDmaEngines ?? o.numDmaEngines,
    hwdgeEngines: o.hwdgeEngines
      ? o.hwdgeEngines.map((e) => ({ engine: EngineType[e.engine], subId: e.subId }))
      : VALID_ENGINES_CORE_V5,
    limitIoQueues: o.limitIoQueues,
    considerDescNum: o.considerDescNum,
    considerMinElems: o.considerMinElems,
    dynamicDmaScratchSizePerPartition: o.dynamicDmaScratchSizePerPartition,
    backends: o.backends ? { ...o.backends } : null,
    dgeHostTables:
      o.dgeHostTables === undefined
        ? null
        : o.dgeHostTables === 'device'
          ? 'device'
          : {
              priorityClassMap: [...(o.dgeHostTables.priorityClassMap ?? [])],
              mailboxes: (o.dgeHostTables.mailboxes ?? []).map((x) => ({ ...x })),
            },
    cceReducePrioPktSize: o.cceReducePrioPktSize ? [...o.cceReducePrioPktSize] : [0, 0, 0, 0, 0],
    memcopyCarveoutCfg: o.memcopyCarveoutCfg
      ? { ...o.memcopyCarveoutCfg }
      : { ...DEFAULT_CARVEOUT_CFG },
    memcopyDmaCfg: o.memcopyDmaCfg ? { ...o.memcopyDmaCfg } : { ...DEFAULT_DMA_CFG },
  };
  // MEMCOPY_CARVEOUT_CFG: "The carveout must be aligned to 64 bytes, a DMA restriction"
  const cp = carveoutProblem(options.memcopyCarveoutCfg);
  if (cp !== null) {
    issue(
      `$.options.memcopyCarveoutCfg.${cp.field}`,
      `expected ${cp.expected}, got ${String(cp.actual)}`,
    );
  }
  const m = new Module(p.name, arch, options);

  // --- memory ---
  const regionByName = new Map<string, Region>();
  p.memory.regions.forEach((r, i) => {
    const path = `$.memory.regions[${i}]`;
    const base = toNumber(r.base);
    const size = toNumber(r.size);
    if (regionByName.has(r.name)) issue(`${path}.name`, `duplicate region name "${r.name}"`);
    if (size === 0) issue(`${path}.size`, 'a region must not be empty');
    if (base + size > Number.MAX_SAFE_INTEGER) issue(path, 'region end must stay below 2^53');
    for (const other of m.regions) {
      if (base < other.base + other.size && other.base < base + size) {
        issue(path, `region "${r.name}" overlaps region "${other.name}"`);
      }
    }
    const region = new Region(r.name, MEM_TYPE[r.type], base, size);
    regionByName.set(r.name, region);
    m.regions.push(region);
  });
  p.memory.tensors.forEach((t, i) => {
    const path = `$.memory.tensors[${i}]`;
    if (m.tensorByName.has(t.name)) issue(`${path}.name`, `duplicate tensor name "${t.name}"`);
    const region = regionByName.get(t.region);
    if (!region) {
      issue(`${path}.region`, `unknown region "${t.region}"`);
      return;
    }
    const elemSize = DTYPE_SIZE[t.dtype as DtypeName];
    let n = 1;
    for (const d of t.shape) n *= d;
    const offset = toNumber(t.offset);
    if (offset % elemSize !== 0)
      issue(`${path}.offset`, `offset ${offset} is not a multiple of the ${elemSize}-byte element`);
    if (offset + n * elemSize > region.size) {
      issue(
        path,
        `tensor "${t.name}" (${n * elemSize} bytes at offset ${offset}) does not fit region "${region.name}" (${region.size} bytes)`,
      );
    }
    if (t.init && t.init.length > n)
      issue(`${path}.init`, `${t.init.length} initial values for ${n} elements`);
    const tensor = new Tensor(
      m.tensors.length,
      t.name,
      region,
      region.base + offset,
      t.dtype as DtypeName,
      elemSize,
      t.shape,
      n,
      TensorKind[t.kind],
      t.init ?? null,
    );
    m.tensors.push(tensor);
    m.tensorByName.set(t.name, tensor);
  });

  const indexTensors = new Set<string>();
  const range = [0, 0];
  // DMAs that touch the same elements through the same static pattern share its object
  const statics = new StaticPatterns();

  const buildAP = (ap: AccessPatternInput, field: string): AccessPattern | null => {
    const t = m.tensorByName.get(ap.tensor);
    if (!t) {
      issue(`${ipath()}.${field}.tensor`, `unknown tensor "${ap.tensor}"`);
      return null;
    }
    const dims = ap.free ?? [];
    let scalar = null;
    let vector = null;
    if (ap.dynamic) {
      const hasS = ap.dynamic.scalar !== undefined;
      const hasV = ap.dynamic.vector !== undefined;
      if (hasS === hasV) {
        // _validateOnlyOneOfScalarAndVectorDynamicOffsetIsProvided (seed 001)
        issue(
          `${ipath()}.${field}.dynamic`,
          'a dynamic access pattern must have exactly one of scalar or vector offset',
        );
      } else if (hasS) {
        scalar = { register: ap.dynamic.scalar!.register, value: ap.dynamic.scalar!.value };
      } else {
        const it = indexTensorRef(
          `${ipath()}.${field}.dynamic.vector.indexTensor`,
          ap.dynamic.vector!.indexTensor,
          ap.partition[1],
        );
        if (it) vector = { indexTensor: it };
      }
    }
    let indirect = null;
    if (ap.indirect) {
      if (vector)
        issue(
          `${ipath()}.${field}.indirect`,
          'an access pattern cannot be both indirect and vector-offset',
        );
      indirect =
        indexTensorRef(
          `${ipath()}.${field}.indirect.indexTensor`,
          ap.indirect.indexTensor,
          ap.partition[1],
        ) ?? null;
    }
    const flags = (scalar ? 1 : 0) | (vector ? 2 : 0) | (indirect ? 4 : 0);
    const shapeId = m.apShapes.intern(
      t.kind,
      DTYPE_CODE[t.dtype],
      ap.partition[0],
      ap.partition[1],
      dims,
      flags,
    );
    const pattern =
      flags === 0 && shapeId >= 0
        ? statics.get(
            t,
            ap.offset ?? 0,
            ap.partition[0],
            ap.partition[1],
            m.apShapes.free(shapeId),
            shapeId,
          )
        : new AccessPattern(
            t,
            ap.offset ?? 0,
            ap.partition[0],
            ap.partition[1],
            shapeId >= 0 ? m.apShapes.free(shapeId) : flatDims(dims),
            scalar,
            vector,
            indirect,
            shapeId,
          );
    // bounds: every element the walk can touch lies inside the tensor
    const idx = (vector?.indexTensor ?? indirect)?.init;
    let pLo = 0;
    let pHi = ap.partition[1] - 1;
    if (idx) {
      pLo = Infinity;
      pHi = -Infinity;
      for (let i = 0; i < ap.partition[1]; i++) {
        pLo = Math.min(pLo, idx[i]);
        pHi = Math.max(pHi, idx[i]);
      }
    }
    pattern.elementRange(pLo, pHi, range);
    const lo = range[0];
    const hi = range[1];
    if (lo < 0 || hi >= t.numElements) {
      issue(
        `${ipath()}.${field}`,
        `access pattern touches elements ${lo}..${hi} of tensor "${t.name}" (0..${t.numElements - 1})`,
      );
    }
    return pattern;
  };
  const indexTensorRef = (path: string, nm: string, need: number) => {
    const t = m.tensorByName.get(nm);
    if (!t) {
      issue(path, `unknown tensor "${nm}"`);
      return undefined;
    }
    indexTensors.add(nm);
    if (t.dtype !== 'uint32' && t.dtype !== 'int32')
      issue(path, `index tensor "${nm}" must be uint32 or int32, is ${t.dtype}`);
    if (!t.init || t.init.length < need) {
      issue(path, `index tensor "${nm}" needs init values for ${need} partitions`);
      return undefined;
    }
    for (let i = 0; i < need; i++) {
      if (!Number.isInteger(t.init[i])) {
        issue(path, `index tensor "${nm}" init[${i}] is not an integer`);
        return undefined;
      }
    }
    return t;
  };

  // --- functions, blocks, instructions ---
  if (!p.functions.some((f) => f.name === 'main'))
    issue('$.functions', 'a program needs a function named "main"');
  const pendingDeps: { inst: number; path: string; on: string; kind: EdgeKind }[] = [];
  const fnNames = new Set<string>();
  // Paths are built only when an issue is reported (no string building per instruction).
  let fi = 0;
  let bi = 0;
  let ii = 0;
  const ipath = () => `$.functions[${fi}].blocks[${bi}].instructions[${ii}]`;
  for (fi = 0; fi < p.functions.length; fi++) {
    const f = p.functions[fi];
    if (fnNames.has(f.name))
      issue(`$.functions[${fi}].name`, `duplicate function name "${f.name}"`);
    fnNames.add(f.name);
    const fn = new Func(f.name);
    m.functions.push(fn);
    const blockNames = new Set<string>();
    for (bi = 0; bi < f.blocks.length; bi++) {
      const b = f.blocks[bi];
      if (blockNames.has(b.name)) {
        issue(
          `$.functions[${fi}].blocks[${bi}].name`,
          `duplicate block name "${b.name}" in function "${f.name}"`,
        );
      }
      blockNames.add(b.name);
      const block = new Block(
        m.blocks.length,
        b.name,
        fn,
        b.loop ? { iterations: b.loop.iterations } : null,
      );
      fn.blocks.push(block);
      m.blocks.push(block);
      for (ii = 0; ii < b.instructions.length; ii++) {
        const ins = b.instructions[ii];
        const nm = ins.name ?? null;
        if (nm !== null && m.instrByName.has(nm))
          issue(`${ipath()}.name`, `duplicate instruction name "${nm}"`);
        let inst;
        if (ins.op === 'CollectiveCompute') {
          inst = m.newInstr(
            InstructionType.CollectiveCompute,
            nm,
            block,
            EngineType[ins.engine ?? 'Pool'],
            ins.subId ?? 0,
          );
          inst.collective = ins.collective ?? 'all_reduce';
          inst.reads = resolveTensors(ins.args ?? [], 'args');
          inst.writes = resolveTensors(ins.results ?? [], 'results');
        } else if (isComputeOp(ins.op)) {
          const c = ins as Extract<typeof ins, { op: ComputeOpName }>;
          const engine = EngineType[c.engine ?? DEFAULT_COMPUTE_ENGINE[ins.op]];
          inst = m.newInstr(InstructionType[ins.op], nm, block, engine, c.subId ?? 0);
          const writes = c.writes ?? [];
          inst.reads = resolveTensors(c.reads ?? [], 'reads');
          inst.writes = resolveTensors(writes, 'writes');
          if (c.accumulate) {
            if (ins.op !== 'Activation')
              issue(`${ipath()}.accumulate`, 'only an Activation has an accumulator dump');
            else if (writes.length === 0)
              issue(`${ipath()}.accumulate`, 'an accumulating Activation must write a tensor');
            inst.accumulate = true;
          }
        } else {
          const d = ins as Extract<typeof ins, { src: unknown }>;
          const op = InstructionType[d.op];
          inst = m.newInstr(op, nm, block, EngineType[d.engine ?? 'DMA'], d.subId ?? 0);
          inst.src = buildAP(d.src, 'src');
          inst.dst = buildAP(d.dst, 'dst');
          if (inst.src && inst.dst && inst.src.numElements !== inst.dst.numElements) {
            issue(
              ipath(),
              `source visits ${inst.src.numElements} elements, destination ${inst.dst.numElements}`,
            );
          }
          if (d.qos !== undefined) {
            if (typeof d.qos === 'number') inst.qos = d.qos as DMAQoSClass;
            else inst.qos = DMAQoSClass[d.qos as keyof typeof DMAQoSClass];
          }
          // Any DMA-family opcode may carry a preset route (the DGEType field is InstDMA's): on
          // opcodes 41-46 and 67 the route predicate and pass 123 leave it alone and the cleanup's
          // checks judge it (docs/compiler.md "The route predicate's opcode mask").
          if (d.dgeType !== undefined) inst.dgeType = DGEType[d.dgeType];
          if (d.dmaKind !== undefined) inst.dmaKind = DMAKind[d.dmaKind];
          if (d.transpose !== undefined) inst.transpose = TransposeKind[d.transpose];
          if (d.dstReduce !== undefined) inst.dstReduce = DstReduce[d.dstReduce];
          if (d.dmaEngines !== undefined) inst.dmaEngines = d.dmaEngines;
        }
        block.append(inst);
        if (ins.deps) {
          for (let k = 0; k < ins.deps.length; k++) {
            const dp = ins.deps[k];
            pendingDeps.push({
              inst: inst.id,
              path: `${ipath()}.deps[${k}].on`,
              on: dp.on,
              kind: EdgeKind[dp.kind ?? 'Flow'],
            });
          }
        }
      }
    }
  }
  for (const d of pendingDeps) {
    const on = m.instrByName.get(d.on);
    if (!on) issue(d.path, `unknown instruction "${d.on}"`);
    else if (on.id >= d.inst) issue(d.path, `"${d.on}" is not an earlier instruction`);
    else m.instrs[d.inst].addDependency(on.id, d.kind);
  }
  if (indexTensors.size > 0) {
    // index tensors are read-only: their values are fixed by init (the bounds check relies on it)
    for (const inst of m.instrs) {
      const ws = inst.dst ? [inst.dst.tensor] : (inst.writes ?? []);
      for (const t of ws) {
        if (indexTensors.has(t.name)) {
          issue(
            instrPath(p, inst.id),
            `index tensor "${t.name}" is read-only (its values are fixed by init)`,
          );
        }
      }
    }
  }
  if (issues.length > 0) programInvalid(issues, opts.file);
  return m;

  function resolveTensors(list: readonly string[], field: string) {
    const out: Tensor[] = [];
    for (let k = 0; k < list.length; k++) {
      const t = m.tensorByName.get(list[k]);
      if (t) out.push(t);
      else issue(`${ipath()}.${field}[${k}]`, `unknown tensor "${list[k]}"`);
    }
    return out;
  }
}

function isComputeOp(op: string): op is ComputeOpName {
  return op in DEFAULT_COMPUTE_ENGINE;
}

/** The JSON path of the instruction with id `id` (ids follow program order). */
function instrPath(p: CheckedProgram, id: number): string {
  let n = 0;
  for (let fi = 0; fi < p.functions.length; fi++) {
    const f = p.functions[fi];
    for (let bi = 0; bi < f.blocks.length; bi++) {
      const len = f.blocks[bi].instructions.length;
      if (id < n + len) return `$.functions[${fi}].blocks[${bi}].instructions[${id - n}]`;
      n += len;
    }
  }
  return '$';
}

const NO_DIMS: readonly number[] = Object.freeze([]);

/** [[step, num], ...] -> [step, num, ...], allocated at its exact size. */
function flatDims(dims: readonly (readonly [number, number])[]): readonly number[] {
  switch (dims.length) {
    case 0:
      return NO_DIMS;
    case 1:
      return [dims[0][0], dims[0][1]];
    case 2:
      return [dims[0][0], dims[0][1], dims[1][0], dims[1][1]];
    default: {
      const out = new Array<number>(dims.length * 2);
      for (let i = 0; i < dims.length; i++) {
        out[2 * i] = dims[i][0];
        out[2 * i + 1] = dims[i][1];
      }
      return out;
    }
  }
}
