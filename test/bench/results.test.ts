/**
 * The bench harness's pure parts on synthetic results: goal parsing, the `met` verdict, the shape of
 * out/bench/results.json and the timing helper's bookkeeping. No benchmark runs here and nothing is
 * asserted about a time.
 */
import { describe, expect, it } from 'vitest';
import {
  inUnit,
  measure,
  measureAgainst,
  measureAll,
  measureAllAsync,
  MIN_RUNS,
  Sections,
  sizeLabel,
  spread,
  timedResult,
} from '../../bench/measure.ts';
import {
  buildReport,
  isMet,
  isTimedUnit,
  parseGoal,
  toMetric,
  type FileResult,
  type Machine,
} from '../../bench/results.ts';
import type { BenchResult } from '../../bench/types.ts';
import { expectCode } from '../support/errors.ts';

const machine: Machine = {
  node: 'v20.0.0',
  platform: 'linux',
  arch: 'x64',
  cpu: 'test cpu',
  cores: 2,
  memoryGiB: 8,
  loadavg: [0, 0, 0],
};
const meta = {
  date: '2026-01-01T00:00:00.000Z',
  command: 'npm run bench',
  commit: 'abc1234',
  quick: false,
  machine,
};

const fiveRuns = {
  runs: 5,
  cpuMs: { min: 1, median: 2, max: 3 },
  wallMs: { min: 1, median: 2, max: 4 },
};

function result(over: Partial<BenchResult> = {}): BenchResult {
  return {
    metric: 'mock.desc64.throughput',
    name: 'mock copy, 64-byte descriptors',
    value: 3,
    unit: 'descriptors/s',
    baseline: { name: 'Buffer.copy of the same 64-byte chunks', value: 4, unit: 'copies/s' },
    goal: '>= 0.5x',
    notes: 'synthetic',
    timing: { value: fiveRuns, baseline: fiveRuns },
    ...over,
  };
}

describe('goal strings', () => {
  it('a goal ending in x is a ratio goal; trailing words are kept', () => {
    expect(parseGoal('<= 2x')).toEqual({ op: '<=', target: 2, on: 'ratio', rest: '' });
    expect(parseGoal('>= 0.5x')).toEqual({ op: '>=', target: 0.5, on: 'ratio', rest: '' });
    expect(parseGoal('<= 0.5x the naive accesses')).toEqual({
      op: '<=',
      target: 0.5,
      on: 'ratio',
      rest: 'the naive accesses',
    });
  });

  it('a goal without x is a goal on the value itself; digit separators are read', () => {
    expect(parseGoal('>= 500000 DMA instructions/s')).toEqual({
      op: '>=',
      target: 500000,
      on: 'value',
      rest: 'DMA instructions/s',
    });
    expect(parseGoal('>= 2,000,000 descriptors/s').target).toBe(2_000_000);
    expect(parseGoal('< 10 ms').op).toBe('<');
  });

  it('a word starting with x after the number is not the ratio mark', () => {
    expect(parseGoal('<= 3 xfers').on).toBe('value');
  });

  it('an unreadable goal is a BAD_ARGUMENT naming the goal', () => {
    const e = expectCode(
      () => parseGoal('linear in program size', 'compile.10k.memory'),
      'BAD_ARGUMENT',
    );
    expect(e.message).toContain('compile.10k.memory');
    expect(e.message).toContain('linear in program size');
    expectCode(() => parseGoal('2x'), 'BAD_ARGUMENT');
    expectCode(() => parseGoal('<= fast'), 'BAD_ARGUMENT');
  });
});

describe('met', () => {
  it('a ratio goal compares the ratio, boundaries included for <= and >=', () => {
    expect(isMet('<= 2x', 100, 2)).toBe(true);
    expect(isMet('<= 2x', 100, 2.01)).toBe(false);
    expect(isMet('>= 0.5x', 0, 0.5)).toBe(true);
    expect(isMet('>= 0.5x', 1e9, 0.49)).toBe(false);
    expect(isMet('< 2x', 0, 2)).toBe(false);
    expect(isMet('> 0.5x', 0, 0.5)).toBe(false);
  });

  it('a value goal compares the value, not the ratio', () => {
    expect(isMet('>= 500000 DMA/s', 600_000, 0.01)).toBe(true);
    expect(isMet('>= 500000 DMA/s', 400_000, 100)).toBe(false);
  });

  it('a non-finite figure never meets a goal', () => {
    expect(isMet('<= 2x', 1, Number.NaN)).toBe(false);
    expect(isMet('>= 1x', 1, Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('a ratio goal on a figure without a baseline is a BAD_ARGUMENT', () => {
    expectCode(() => isMet('<= 2x', 1, undefined), 'BAD_ARGUMENT');
  });
});

describe('metric entries', () => {
  it('ratio is value / baseline, computed by the harness; met follows the goal', () => {
    const m = toMetric(result(), 'mock.bench.ts');
    expect(m).toEqual({
      value: 3,
      unit: 'descriptors/s',
      baseline: 4,
      ratio: 0.75,
      goal: '>= 0.5x',
      met: true,
      description: 'mock copy, 64-byte descriptors',
      baselineName: 'Buffer.copy of the same 64-byte chunks',
      baselineUnit: 'copies/s',
      notes: 'synthetic',
      file: 'mock.bench.ts',
      timing: { value: fiveRuns, baseline: fiveRuns },
    });
    expect(toMetric(result({ value: 1 }), 'mock.bench.ts').met).toBe(false);
  });

  it('a metric without a goal has no met', () => {
    const m = toMetric(result({ goal: undefined }), 'x.bench.ts');
    expect('met' in m).toBe(false);
    expect('goal' in m).toBe(false);
  });

  it('a metric without a baseline has no baseline or ratio and may carry a value goal', () => {
    const m = toMetric(result({ baseline: undefined, goal: '>= 2 descriptors/s' }), 'x.bench.ts');
    expect('baseline' in m || 'ratio' in m).toBe(false);
    expect(m.met).toBe(true);
  });

  it("a bench's own ratio that is not value / baseline is refused (an inverted ratio)", () => {
    expect(toMetric(result({ ratio: 0.75 }), 'x.bench.ts').ratio).toBe(0.75);
    expect(toMetric(result({ ratio: 0.754 }), 'x.bench.ts').ratio).toBe(0.75); // rounding
    const e = expectCode(() => toMetric(result({ ratio: 4 / 3 }), 'x.bench.ts'), 'BAD_ARGUMENT');
    expect(e.message).toContain('mock.desc64.throughput');
  });

  it('bad names, values and baselines are refused', () => {
    expectCode(() => toMetric(result({ metric: 'mock copy' }), 'x.bench.ts'), 'BAD_ARGUMENT');
    expectCode(() => toMetric(result({ metric: 'nodots' }), 'x.bench.ts'), 'BAD_ARGUMENT');
    expectCode(() => toMetric(result({ value: Number.NaN }), 'x.bench.ts'), 'BAD_ARGUMENT');
    expectCode(
      () => toMetric(result({ baseline: { name: 'b', value: 0, unit: 'u' } }), 'x.bench.ts'),
      'BAD_ARGUMENT',
    );
  });

  it(`a time or a rate needs CPU and wall spreads of at least ${MIN_RUNS} runs; a count does not`, () => {
    expect(isTimedUnit('ns/op')).toBe(true);
    expect(isTimedUnit('ms per queue')).toBe(true);
    expect(isTimedUnit('ms CPU')).toBe(true);
    expect(isTimedUnit('descriptor pairs/s')).toBe(true);
    expect(isTimedUnit('MMIO accesses')).toBe(false);
    expect(isTimedUnit('bytes/DMA (peak heap over start)')).toBe(false);
    expectCode(() => toMetric(result({ timing: undefined }), 'x.bench.ts'), 'BAD_ARGUMENT');
    const four = { ...fiveRuns, runs: MIN_RUNS - 1 };
    expectCode(
      () => toMetric(result({ timing: { value: four, baseline: fiveRuns } }), 'x.bench.ts'),
      'BAD_ARGUMENT',
    );
    expectCode(
      () => toMetric(result({ timing: { value: fiveRuns } }), 'x.bench.ts'),
      'BAD_ARGUMENT',
    );
    expectCode(
      () => toMetric(result({ timing: { value: fiveRuns, baseline: four } }), 'x.bench.ts'),
      'BAD_ARGUMENT',
    );
    const counted = result({
      unit: 'MMIO accesses',
      baseline: { name: 'naive', value: 4, unit: 'MMIO accesses' },
      timing: undefined,
    });
    expect(toMetric(counted, 'x.bench.ts').ratio).toBe(0.75);
  });

  it('timing spreads are carried through', () => {
    const t = {
      runs: 5,
      cpuMs: { min: 1, median: 2, max: 3 },
      wallMs: { min: 1, median: 2, max: 4 },
    };
    expect(toMetric(result({ timing: { value: t, baseline: t } }), 'x.bench.ts').timing).toEqual({
      value: t,
      baseline: t,
    });
  });
});

describe('the report', () => {
  const files: FileResult[] = [
    {
      file: 'cli.bench.ts',
      seconds: 1.5,
      results: [
        result({
          metric: 'cli.help.cpu',
          name: 'nxdma --help',
          value: 60,
          unit: 'ms CPU',
          baseline: { name: 'node -e 0', value: 40, unit: 'ms CPU' },
          goal: '<= 2x',
        }),
      ],
    },
    { file: 'mock.bench.ts', seconds: 2, results: [result()] },
    { file: 'broken.bench.ts', seconds: 0.1, results: [], error: 'Error: boom' },
  ];

  it('is { metrics: { name: entry }, machine, files } and survives JSON', () => {
    const r = buildReport(files, meta);
    const back = JSON.parse(JSON.stringify(r));
    expect(back).toEqual(r);
    expect(Object.keys(r.metrics)).toEqual(['cli.help.cpu', 'mock.desc64.throughput']);
    expect(r.metrics['cli.help.cpu']).toMatchObject({
      value: 60,
      baseline: 40,
      ratio: 1.5,
      met: true,
    });
    expect(r.machine).toEqual(machine);
    expect(r.commit).toBe('abc1234');
    expect(r.files).toEqual([
      { file: 'cli.bench.ts', seconds: 1.5, metrics: ['cli.help.cpu'] },
      { file: 'mock.bench.ts', seconds: 2, metrics: ['mock.desc64.throughput'] },
      { file: 'broken.bench.ts', seconds: 0.1, metrics: [], error: 'Error: boom' },
    ]);
  });

  it('a metric name reported twice is refused, naming both files', () => {
    const twice = [...files, { file: 'again.bench.ts', seconds: 1, results: [result()] }];
    const e = expectCode(() => buildReport(twice, meta), 'BAD_ARGUMENT');
    expect(e.message).toContain('mock.desc64.throughput');
    expect(e.details.actual).toEqual(['mock.bench.ts', 'again.bench.ts']);
  });
});

describe('the timing helper (bookkeeping only)', () => {
  it('spread is min / median / max', () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 3, max: 4 });
    expect(() => spread([])).toThrow(RangeError);
  });

  it(`refuses fewer than ${MIN_RUNS} runs`, () => {
    expect(() => measure(() => 0, { runs: MIN_RUNS - 1 })).toThrow(RangeError);
    expect(() => measure(() => 0, { warmup: -1 })).toThrow(RangeError);
  });

  it('warms up, then measures; each call gets its run index', () => {
    const seen: number[] = [];
    const t = measure((i) => seen.push(i), { runs: 5, warmup: 2 });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(t.runs).toBe(5);
    for (const s of [t.cpuMs, t.wallMs]) {
      expect(s.min).toBeLessThanOrEqual(s.median);
      expect(s.median).toBeLessThanOrEqual(s.max);
      expect(s.min).toBeGreaterThanOrEqual(0);
    }
  });

  it('measureAgainst warms both alike and interleaves their runs', () => {
    const order: string[] = [];
    const t = measureAgainst(
      (i) => order.push(`f${i}`),
      (i) => order.push(`b${i}`),
      { runs: 5, warmup: 1 },
    );
    expect(order).toEqual(['f0', 'b0', 'f1', 'b1', 'f2', 'b2', 'f3', 'b3', 'f4', 'b4', 'f5', 'b5']);
    expect(t.value.runs).toBe(5);
    expect(t.baseline.runs).toBe(5);
  });

  it('measureAll runs every case once a round, each after its own untimed setup', () => {
    const order: string[] = [];
    const t = measureAll(
      {
        a: { setup: (i) => void order.push(`sa${i}`), run: (i) => order.push(`a${i}`) },
        b: (i) => order.push(`b${i}`),
        c: { run: (i) => order.push(`c${i}`) },
      },
      { runs: 5, warmup: 0 },
    );
    expect(order.slice(0, 8)).toEqual(['sa0', 'a0', 'b0', 'c0', 'sa1', 'a1', 'b1', 'c1']);
    expect(order).toHaveLength(20);
    expect(Object.keys(t)).toEqual(['a', 'b', 'c']);
    expect(t.c.runs).toBe(5);
  });

  it('a sections case counts only what it times; an async case needs measureAllAsync', async () => {
    const seen: number[] = [];
    const t = measureAll(
      {
        s: {
          sections: (i, s: Sections) => {
            seen.push(i);
            s.time(() => 0);
          },
        },
      },
      { runs: 5, warmup: 1 },
    );
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(t.s.runs).toBe(5);
    expect(() => measureAll({ a: async () => 0 }, { runs: 5 })).toThrow(/measureAllAsync/);
    const order: string[] = [];
    const ta = await measureAllAsync(
      {
        a: async (i) => {
          await Promise.resolve();
          order.push(`a${i}`);
        },
        b: { sections: async (i, s) => s.time(async () => void order.push(`b${i}`)) },
      },
      { runs: 5, warmup: 0 },
    );
    expect(order.slice(0, 4)).toEqual(['a0', 'b0', 'a1', 'b1']);
    expect(ta.b.runs).toBe(5);
    const sec = new Sections();
    expect(await sec.time(async () => 7)).toBe(7); // the promise itself, timed until it settles
    expect(sec.time(() => 8)).toBe(8);
  });

  it('sizeLabel names program sizes as the metric names do', () => {
    expect([10_000, 100_000, 1_000_000].map(sizeLabel)).toEqual(['10k', '100k', '1M']);
  });

  it('inUnit: a rate is items per second, a time is per item', () => {
    expect(inUnit(2, 1000, 'descriptors/s')).toBe(500_000);
    expect(inUnit(2, 1000, 'ns/op')).toBe(2000);
    expect(inUnit(3, 1, 'ms')).toBe(3);
    expect(inUnit(512, 256, 'ms per queue')).toBe(2);
    expect(() => inUnit(1, 1, 'MMIO accesses')).toThrow(RangeError);
  });

  it('timedResult takes the median CPU time of each side, keeps the spreads, passes the harness', () => {
    const slow = { runs: 5, cpuMs: { min: 3, median: 4, max: 9 }, wallMs: fiveRuns.wallMs };
    const r = timedResult({
      metric: 'x.read.time',
      name: 'x',
      unit: 'ns/op',
      items: 1_000_000,
      timing: { value: slow, baseline: fiveRuns },
      baseline: { name: 'raw' },
      goal: '<= 2x',
    });
    expect(r.value).toBe(4);
    expect(r.baseline).toEqual({ name: 'raw', value: 2, unit: 'ns/op' });
    expect(r.ratio).toBe(2);
    expect(r.notes).toContain('CPU min/median/max 3.00/4.00/9.00 ms (baseline 1.00/2.00/3.00)');
    const m = toMetric(r, 'x.bench.ts');
    expect(m.met).toBe(true);
    expect(m.timing).toEqual({ value: slow, baseline: fiveRuns });
    const rate = timedResult({
      ...r,
      unit: 'reads/s',
      timing: { value: slow, baseline: fiveRuns },
      baseline: { name: 'raw' },
      items: 4000,
    });
    expect(rate.value).toBe(1_000_000);
    expect(rate.ratio).toBe(0.5);
  });
});
