/**
 * nxdma as a user installs it: the packed tarball (`npm pack` of the built package), installed
 * into fresh consumer projects outside the checkout, offline, from the npm cache `npm ci` filled
 * (the consumer's lockfile pins the same versions as ours, so nothing is resolved on the network).
 *
 * There: a plain .mjs script imports every public subpath and programs QoS on the mock; a .cjs
 * script require()s nxdma/driver and nxdma/csr; a strict TypeScript consumer (nodenext,
 * noUncheckedIndexedAccess, skipLibCheck false) type-checks and runs the README's library
 * snippets, and fails to compile the forbidden register accesses with the expected diagnostics;
 * `npx nxdma` runs; an isolated (`--install-strategy=linked`) install runs every command.
 *
 * The tarball is packed from dist/ as `npm test` builds it (`npm run build` runs before the
 * suites); publint and @arethetypeswrong/cli check the package itself.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const ENV = {
  ...process.env,
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  npm_config_update_notifier: 'false',
};

function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeout = 240_000,
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: ENV, encoding: 'utf8', timeout });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  expect(r.error, `${what}: ${String(r.error)}`).toBeUndefined();
  expect(r.status, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The README's ```ts blocks that import nxdma (the library snippets). */
function readmeSnippets(): string[] {
  const md = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const out: string[] = [];
  const re = /^```ts\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(md); m; m = re.exec(md)) if (/from 'nxdma/.test(m[1])) out.push(m[1]);
  return out;
}

let work: string;
let tarball: string;

/**
 * A consumer project whose lockfile installs `tarball` and exactly the versions our own lockfile
 * holds for nxdma's run-time dependencies (plus @types/node for the TypeScript consumer), so
 * `npm ci --offline` needs nothing but the cache.
 */
function consumer(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const ours = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>;
  };
  const packages: Record<string, unknown> = {};
  const typesNode = ['node_modules/@types/node', 'node_modules/undici-types'];
  for (const [path, entry] of Object.entries(ours.packages)) {
    if (path === '') continue;
    if (entry.dev && !typesNode.includes(path)) continue;
    const { dev: _dev, devOptional: _devOptional, ...rest } = entry;
    packages[path] = rest;
  }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const rel = `file:../${tarball.split('/').pop()}`;
  packages['node_modules/nxdma'] = {
    version: PKG.version,
    resolved: rel,
    integrity,
    license: 'MIT',
    dependencies: PKG.dependencies,
    optionalDependencies: PKG.optionalDependencies,
    bin: { nxdma: 'bin/nxdma.mjs' },
    engines: { node: '>=20.19' },
  };
  const typesVersion = (ours.packages['node_modules/@types/node'] as { version: string }).version;
  const manifest = {
    name: `consumer-${name}`,
    version: '1.0.0',
    private: true,
    dependencies: { nxdma: rel, '@types/node': typesVersion },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify(
      {
        name: manifest.name,
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { ...manifest, name: manifest.name }, ...packages },
      },
      null,
      2,
    ),
  );
  return dir;
}

function npmCi(dir: string, ...extra: string[]): void {
  ok(run('npm', ['ci', '--offline', '--no-audit', '--no-fund', ...extra], dir), `npm ci in ${dir}`);
}

beforeAll(() => {
  for (const f of ['dist/common/index.js', 'dist/cli/main.js', 'dist/csr/index.d.ts']) {
    if (!existsSync(join(ROOT, f))) {
      throw new Error(`${f} is missing: run \`npm run build\` first (\`npm test\` does)`);
    }
  }
  work = mkdtempSync(join(tmpdir(), 'nxdma-consumer-'));
  ok(run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], ROOT), 'npm pack');
  const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error('npm pack wrote no tarball');
  tarball = join(work, tgz);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the built code, types, schemas, README, LICENSE and user docs; no tests, benches or sources', () => {
    const r = ok(
      run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT),
      'npm pack --dry-run',
    );
    const files = (JSON.parse(r) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    expect(files).toContain('dist/driver/index.js');
    expect(files).toContain('dist/driver/index.d.ts');
    expect(files).toContain('dist/csr/schemas/udma_m2s.json');
    expect(files).toContain('dist/compiler/ir/program.schema.json');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('docs/qos.md');
    for (const f of files) {
      expect(f, f).not.toMatch(/^(test|bench|scripts|csr|driver|compiler|mocks|flow|cli|common)\//);
      expect(f, f).not.toMatch(/\.ts$(?<!\.d\.ts)|\.map$|results\.json$/);
    }
    expect(files).not.toContain('docs/testing.md');
    expect(files).not.toContain('docs/performance.md');
  });

  it('ships docs that link only to files it ships', () => {
    const r = ok(
      run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT),
      'npm pack --dry-run',
    );
    const files = new Set(
      (JSON.parse(r) as { files: { path: string }[] }[])[0].files.map((f) => f.path),
    );
    const broken: string[] = [];
    for (const doc of [...files].filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const resolved = join(dirname(doc), target).replace(/\\/g, '/');
        if (!files.has(resolved) && !files.has(resolved.replace(/\/$/, ''))) {
          const isDir = [...files].some((f) => f.startsWith(resolved.replace(/\/?$/, '/')));
          if (!isDir) broken.push(`${doc} -> ${target}`);
        }
      }
      // files of the specification that the package does not ship, and its section numbering
      for (const m of text.matchAll(/\bspec\/[A-Z-]+\.md|\.\.\/shared\/\S*|\bseeds?\/\S+/g)) {
        broken.push(`${doc} cites ${m[0]}`);
      }
      // the specification's own document numbers and sections, which a reader cannot look up
      for (const m of text.matchAll(/\bseeds? *`?0\d\d\b[^.\n]*|§ ?\d[^.\n]*/gi)) {
        broken.push(`${doc}: ${m[0]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('passes publint and @arethetypeswrong/cli (ESM-only profile)', () => {
    ok(
      run(process.execPath, [join(ROOT, 'node_modules/publint/src/cli.js'), '--strict'], ROOT),
      'publint',
    );
    const attw = run(
      process.execPath,
      [
        join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'),
        tarball,
        '--profile',
        'esm-only',
        '--format',
        'json',
      ],
      ROOT,
    );
    // The esm-only profile leaves out node10 and require-from-CJS resolutions: the package is ESM
    // only, and Node >= 20.19 require()s it (the .cjs test below).
    const report = JSON.parse(attw.stdout) as {
      analysis: { problems: { resolutionKind?: string }[] };
    };
    const ignored = new Set(['node10', 'node16-cjs']);
    const problems = report.analysis.problems.filter((p) => !ignored.has(p.resolutionKind ?? ''));
    expect(problems).toEqual([]);
    expect(attw.status).toBe(0);
  });
});

describe('a consumer project that installed the tarball', () => {
  let dir: string;

  beforeAll(() => {
    dir = consumer('plain');
    npmCi(dir);
    cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  }, 240_000);

  it('imports every public subpath from a plain .mjs script and programs QoS on the mock', () => {
    const subpaths = Object.keys(PKG.exports).filter((k) => !k.endsWith('.json'));
    const json = Object.keys(PKG.exports).filter((k) => k.endsWith('.json'));
    const script = [
      `const names = ${JSON.stringify(subpaths.map((s) => s.replace(/^\./, 'nxdma')))};`,
      `const where = {};`,
      `const clash = [];`,
      `for (const n of names) {`,
      `  const m = await import(n);`,
      `  if (Object.keys(m).length === 0) throw new Error(n + ' exports nothing');`,
      `  for (const [k, v] of Object.entries(m)) {`,
      `    if (where[k] && where[k].value !== v) clash.push(k + ': ' + where[k].from + ' vs ' + n);`,
      `    (where[k] ??= { value: v, from: [] }).from.push(n);`,
      `  }`,
      `}`,
      `const internal = ['EngineIO', 'Reg', 'Field', 'reg', 'field', 'queueRegs', 'inferredWrite']`,
      `  .filter((k) => where[k]);`,
      `for (const n of ${JSON.stringify(json.map((s) => s.replace(/^\./, 'nxdma')))}) {`,
      `  const m = await import(n, { with: { type: 'json' } });`,
      `  if (typeof m.default !== 'object') throw new Error(n);`,
      `}`,
      `import { readFileSync } from 'node:fs';`,
      `import { applyQos, diffQos } from 'nxdma/driver';`,
      `import { MockDevice } from 'nxdma/mocks';`,
      `import { NxdmaError } from 'nxdma';`,
      `const plan = JSON.parse(readFileSync('examples/qos-plan.json', 'utf8'));`,
      `const device = new MockDevice({ engines: [0, 1, 2] });`,
      `const done = applyQos(device, plan, { verify: true });`,
      `const left = diffQos(device, plan).fields.filter((f) => f.differs && !f.inferred);`,
      `let typed = false;`,
      `try { applyQos(device, { format: 'nope' }); } catch (e) { typed = e instanceof NxdmaError; }`,
      `const once = (k) => where[k]?.from.join(',');`,
      `console.log(JSON.stringify({ writes: done.io.writes, left: left.length, typed, clash, internal,`,
      `  ring: once('INITIAL_RING_ID'), shadow: once('RegisterShadow') }));`,
    ].join('\n');
    writeFileSync(join(dir, 'index.mjs'), script);
    const out = JSON.parse(ok(run(process.execPath, ['index.mjs'], dir), 'index.mjs')) as {
      writes: number;
      left: number;
      typed: boolean;
      clash: string[];
      internal: string[];
      ring: string;
      shadow: string;
    };
    expect(out.writes).toBeGreaterThan(0);
    expect(out.left).toBe(0);
    expect(out.typed).toBe(true);
    // a name two subpaths export is one and the same thing; the driver's internals stay inside
    expect(out.clash).toEqual([]);
    expect(out.internal).toEqual([]);
    expect(out.ring).toBe('nxdma/driver');
    expect(out.shadow).toBe('nxdma/driver');
  });

  it('require()s nxdma/driver and nxdma/csr from a .cjs script', () => {
    writeFileSync(
      join(dir, 'index.cjs'),
      [
        `const driver = require('nxdma/driver');`,
        `const csr = require('nxdma/csr');`,
        `const m2s = csr.bindUdmaM2S(csr.ArrayRegisterIO.withResetValues(csr.regFile('udma_m2s')));`,
        `m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 'dwrr' });`,
        `console.log(typeof driver.applyQos, m2s.M2S_dwrr.cfg_sched.read().en_dwrr);`,
      ].join('\n'),
    );
    expect(ok(run(process.execPath, ['index.cjs'], dir), 'index.cjs').trim()).toBe('function 1');
  });

  it('type-checks and runs the README library snippets under strict nodenext TypeScript', () => {
    const snippets = readmeSnippets();
    expect(snippets.length).toBeGreaterThanOrEqual(3);
    mkdirSync(join(dir, 'snippets'), { recursive: true });
    snippets.forEach((code, i) => writeFileSync(join(dir, 'snippets', `readme-${i}.mts`), code));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023'],
          types: ['node'],
          skipLibCheck: false,
          outDir: 'build',
        },
        include: ['snippets/*.mts'],
      }),
    );
    ok(run(process.execPath, [TSC, '--noEmit', '-p', 'tsconfig.json'], dir), 'tsc --noEmit');
    ok(run(process.execPath, [TSC, '-p', 'tsconfig.json'], dir), 'tsc');
    snippets.forEach((_, i) => {
      const r = run(process.execPath, [join('build', `readme-${i}.mjs`)], dir);
      ok(r, `README snippet ${i}`);
      expect(r.stdout.length).toBeGreaterThan(0);
    });
  });

  it('refuses to compile a read-only write, a write-only read and an unknown field', () => {
    const lines = [
      `import { ArrayRegisterIO, bindUdmaM2S, regFile } from 'nxdma/csr';`,
      `const m2s = bindUdmaM2S(ArrayRegisterIO.withResetValues(regFile('udma_m2s')));`,
      `m2s.M2S.state.write({ comp_ctrl: 1 });`, // line 3: RO
      `m2s.M2S_Q[0].tdrtp_inc.read();`, // line 4: WO / INC
      `m2s.M2S_Q[3].dwrr_cfg_2.modify({ q_qoss: 5 });`, // line 5: unknown field
      `m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 7 });`, // line 6: not a value of a 1-bit field
      `m2s.M2S_dwrr.cfg_sched.modify({ en_dwrr: 'dwrr' });`, // line 7: fine
    ];
    mkdirSync(join(dir, 'bad'), { recursive: true });
    writeFileSync(join(dir, 'bad', 'bad.mts'), lines.join('\n'));
    writeFileSync(
      join(dir, 'tsconfig.bad.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        include: ['bad/*.mts'],
        compilerOptions: { noEmit: true },
      }),
    );
    const r = run(process.execPath, [TSC, '-p', 'tsconfig.bad.json', '--pretty', 'false'], dir);
    expect(r.status).not.toBe(0);
    const diags = r.stdout
      .split('\n')
      .map((l) => /^bad\/bad\.mts\((\d+),\d+\): error (TS\d+): (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ line: Number(m[1]), code: m[2], text: m[3] }));
    expect(diags.map((d) => d.line)).toEqual([3, 4, 5, 6]);
    expect(diags[0]).toMatchObject({ code: 'TS2339' });
    expect(diags[0].text).toContain("Property 'write' does not exist");
    expect(diags[1]).toMatchObject({ code: 'TS2339' });
    expect(diags[1].text).toContain("Property 'read' does not exist");
    expect(diags[2].text).toContain('q_qoss');
    expect(diags[3].text).toMatch(/'7' is not assignable/);
  });

  it('runs `npx nxdma --version` and `npx nxdma run <example> --mock`', () => {
    expect(ok(run('npx', ['nxdma', '--version'], dir), 'nxdma --version').trim()).toBe(PKG.version);
    const out = ok(
      run('npx', ['nxdma', 'run', 'examples/programs/qos-mix.json', '--mock', '--json'], dir),
      'nxdma run',
    );
    const report = JSON.parse(out) as { total?: { mismatches?: number }; mismatches?: number };
    expect(report.total?.mismatches ?? report.mismatches).toBe(0);
  });
});

describe('an isolated (--install-strategy=linked) install', () => {
  let dir: string;

  beforeAll(() => {
    dir = consumer('linked');
    npmCi(dir, '--install-strategy=linked');
    cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  }, 240_000);

  it('runs `nxdma regs decode` and every other command', () => {
    const decode = ok(
      run('npx', ['nxdma', 'regs', 'decode', 'M2S_dwrr.cfg_sched', '0x00070201'], dir),
      'regs decode',
    );
    expect(decode).toMatch(/en_dwrr\s+\[\s*0:0\] =\s+1\s+0x1\s+dwrr/);
    const commands: string[][] = [
      ['--help'],
      ['regs', 'list', '--file', 'dge_host', '--json'],
      ['regs', 'read', 'M2S_rd.desc_pref_cfg_2', '--mock', '--json'],
      ['regs', 'write', 'M2S_Q[3].dwrr_cfg_2', 'q_qos=5', '--mock', '--json'],
      ['regs', 'dump', '--block', 'M2S_rd', '--mock', '--json'],
      ['regs', 'export', '--format', 'svd', '--out', join(dir, 'regs.svd')],
      ['compile', 'examples/programs/qos-mix.json', '--json'],
      ['run', 'examples/programs/transpose-chain.json', '--mock', '--json'],
      ['qos', 'show', 'examples/qos-plan.json'],
      ['qos', 'apply', 'examples/qos-plan.json', '--mock', '--dry-run'],
      ['udma', 'info', '--json'],
      ['udma', 'dump', '--mock', '--json'],
      ['docs', '--out', join(dir, 'site'), '--json'],
    ];
    for (const args of commands) ok(run('npx', ['nxdma', ...args], dir), `nxdma ${args.join(' ')}`);
    expect(existsSync(join(dir, 'site', 'html', 'index.html'))).toBe(true);
  });
});
