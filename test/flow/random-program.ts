/**
 * Random programs for the flow's property test: a seeded generator (the property draws the seed
 * and a few knobs) that builds valid programs: several regions and tensors of a few dtypes, DMAs
 * with random multi-dimensional patterns (negative steps, gaps, reshapes between the two sides,
 * stride-permutation transposes), scalar and vector dynamic offsets, QoS classes, DMA-engine
 * fan-outs, trigger engines, compute instructions and loop bodies.
 */
import fc from 'fast-check';
import { ProgramBuilder, type APArgs, type BlockBuilder } from '../../compiler/ir/builder.ts';
import type { DtypeName } from '../../compiler/ir/enums.ts';
import type { Program } from '../../compiler/ir/program.ts';

export interface RandomKnobs {
  seed: number;
  dmas: number;
  /** Enable DGE levels (SWDGE / HWDGE routes). */
  dge: boolean;
  arch: 30 | 40;
}

/** Knobs for randomProgram: any seed, 1..maxDmas DMAs, DGE levels or not, either arch. */
export function randomKnobs(maxDmas = 14): fc.Arbitrary<RandomKnobs> {
  return fc.record({
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    dmas: fc.integer({ min: 1, max: maxDmas }),
    dge: fc.boolean(),
    arch: fc.constantFrom(30 as const, 40 as const),
  });
}

/** mulberry32 */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface TensorInfo {
  name: string;
  dtype: DtypeName;
  elems: number;
  kind: 'Input' | 'Output' | 'Internal';
}

const SIZE: Record<string, number> = { fp32: 4, bf16: 2, fp16: 2, uint8: 1, int32: 4 };

export function randomProgram(k: RandomKnobs): Program {
  const r = rng(k.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const b = new ProgramBuilder({
    name: `random-${k.seed}`,
    arch: k.arch,
    options: {
      dgeLevels: k.dge
        ? ['spill_reload', 'scalar_dynamic_offset', 'vector_dynamic_offsets', 'transpose']
        : [],
      considerMinElems: r() < 0.5,
    },
  });
  const regions = [
    { name: 'host', type: 'dram' as const, base: 0x1_0000_0000, size: 0x4_0000 },
    { name: 'hbm', type: 'dram' as const, base: 0x2_0000_0000, size: 0x4_0000 },
    { name: 'sb', type: 'sb' as const, base: 0x400_0000, size: 0x4_0000 },
  ];
  for (const reg of regions) b.region(reg);
  const next: Record<string, number> = { host: 0, hbm: 0, sb: 0 };
  const tensors: TensorInfo[] = [];
  const dtypes: DtypeName[] = ['fp32', 'bf16', 'uint8', 'int32', 'fp16'];
  const used = dtypes.slice(0, int(1, 3));
  for (const dtype of used) {
    for (let i = 0; i < 4; i++) {
      const region = pick(['host', 'hbm', 'sb']);
      const kind =
        region === 'host'
          ? pick(['Input', 'Output'] as const)
          : region === 'hbm'
            ? 'Internal'
            : 'Internal';
      const elems = 2048;
      const off = next[region];
      next[region] += elems * SIZE[dtype] + 64 * int(0, 3);
      next[region] = Math.ceil(next[region] / 64) * 64;
      const name = `${dtype}_${i}`;
      b.tensor({
        name,
        region,
        offset: off,
        dtype,
        shape: [elems],
        kind: region === 'sb' ? 'Internal' : kind,
      });
      tensors.push({ name, dtype, elems, kind: region === 'sb' ? 'Internal' : kind });
    }
  }
  // index tensors (read-only, uint32)
  const idxNames: string[] = [];
  for (let i = 0; i < 2; i++) {
    const n = 16;
    const name = `idx_${i}`;
    const init = Array.from({ length: n }, () => int(0, 7));
    b.tensor({
      name,
      region: 'host',
      offset: next.host,
      dtype: 'uint32',
      shape: [n],
      kind: 'Input',
      init,
    });
    next.host += 64 * 2;
    idxNames.push(name);
  }

  /** Random dims (outermost first) visiting `n` elements of a tensor of `elems`, with an offset that fits. */
  const pattern = (
    tensor: string,
    elems: number,
    nums: number[],
    gapped: boolean,
  ): APArgs | null => {
    // steps from the innermost out: contiguous, strided or reversed, optionally with gaps
    const steps: number[] = new Array(nums.length);
    let len = 1; // element positions the inner dims cover
    let ext = 1; // |step * num| of the dim just inside (an outer dim with this step would merge)
    for (let i = nums.length - 1; i >= 0; i--) {
      const kind = gapped
        ? pick(['gap', 'neg', 'gap'])
        : pick(['cont', 'cont', 'gap', 'neg', 'stride']);
      const room = Math.max(len, ext);
      let s: number;
      if (kind === 'cont') s = len;
      else if (kind === 'gap') s = room + int(1, 3);
      else if (kind === 'stride') s = len * int(2, 3);
      else s = -(gapped ? room + int(1, 2) : len + int(0, 2));
      steps[i] = s;
      len += Math.abs(s) * (nums[i] - 1);
      ext = Math.abs(s) * nums[i];
    }
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < nums.length; i++) {
      const span = steps[i] * (nums[i] - 1);
      if (span < 0) lo += span;
      else hi += span;
    }
    if (hi - lo >= elems) return null;
    const offset = -lo + int(0, elems - 1 - (hi - lo));
    return {
      tensor,
      offset,
      partition: [steps[0], nums[0]],
      free: nums.slice(1).map((v, i) => [steps[i + 1], v] as [number, number]),
    };
  };

  /** Nums (outermost first) with product n: a random factorization into up to `depth` dims. */
  const factor = (n: number, depth: number): number[] => {
    const out: number[] = [];
    let rest = n;
    for (let i = 0; i < depth - 1; i++) {
      const divs: number[] = [];
      for (let d = 2; d <= rest; d++) if (rest % d === 0) divs.push(d);
      if (divs.length === 0 || r() < 0.2) break;
      const d = pick(divs);
      out.push(d);
      rest /= d;
    }
    out.push(rest);
    return out.reverse().length > 0 ? out : [n];
  };

  const qos = ['Default', 'P0', 'P1', 'P2', 'P3', 'P7', 'P14'] as const;
  const fb = b.function('main');
  let bb: BlockBuilder = fb.block('b0');
  let blocks = 1;
  for (let d = 0; d < k.dmas; d++) {
    if (r() < 0.15)
      bb = fb.block(`b${blocks++}`, r() < 0.5 ? { loop: { iterations: int(2, 3) } } : {});
    if (r() < 0.15) {
      const t = pick(tensors);
      bb.compute(pick(['Activation', 'TensorScalar', 'Iota'] as const), {
        reads: [t.name],
        writes: [t.name],
      });
    }
    const dtype = pick(used);
    const group = tensors.filter((t) => t.dtype === dtype);
    const S = pick(group);
    const D = pick(group.filter((t) => t !== S));
    const n = pick([16, 32, 48, 64, 96, 128, 192, 256, 512]);
    const common = {
      qos: pick(qos),
      ...(r() < 0.2 ? { dmaEngines: int(1, 4) } : {}),
      ...(r() < 0.2 ? { engine: pick(['Activation', 'Pool', 'SP'] as const) } : {}),
    };
    const style = r();
    let src: APArgs | null;
    let dst: APArgs | null;
    let transpose: 'dma' | undefined;
    if (style < 0.15) {
      // vector dynamic offset on the source: 16 rows picked by an index tensor
      const row = pick([4, 8, 16]);
      const pitch = row + int(0, 8);
      src = {
        tensor: S.name,
        offset: int(0, 16),
        partition: [pitch, 16],
        free: [[1, row]],
        dynamic: { vector: { indexTensor: pick(idxNames) } },
      };
      if (7 * pitch + row + 16 >= S.elems) src = null;
      dst = pattern(D.name, D.elems, [16, row], false);
    } else if (style < 0.3) {
      // a transpose as a stride permutation of a rows x cols block
      const rows = pick([4, 8, 16]);
      const cols = pick([4, 8, 16]);
      const pitch = cols + int(0, 4);
      const base = int(0, 64);
      src = { tensor: S.name, offset: base, partition: [1, cols], free: [[pitch, rows]] };
      dst = { tensor: D.name, offset: int(0, 64), partition: [rows, cols], free: [[1, rows]] };
      transpose = 'dma';
    } else {
      const gapped = k.dge;
      const nums = factor(n, int(1, 4));
      src = pattern(S.name, S.elems, nums, gapped);
      dst = pattern(D.name, D.elems, k.dge ? nums : factor(n, int(1, 4)), gapped);
      if (src && r() < 0.15) {
        const v = int(0, 32);
        if ((src.offset ?? 0) + v < S.elems - 4 * n)
          src = { ...src, dynamic: { scalar: { register: 'r7', value: v } } };
      }
    }
    if (src === null || dst === null) continue;
    bb.dma(pick(['Load', 'Save', 'DMACopy'] as const), {
      name: `d${d}`,
      ...common,
      ...(transpose ? { transpose } : {}),
      src,
      dst,
    });
  }
  return b.program();
}
