import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { NxdmaError } from '../../../common/errors.ts';
import { MAX_WINDOW_BYTES } from '../../../driver/mmio/mapping.ts';
import { loadLibc, NATIVE_INSTALL_HINT } from '../../../driver/mmio/native.ts';
import { openRegion } from '../../../driver/mmio/region.ts';
import {
  allocatedBytes,
  expectCode,
  fileBytes,
  mappingsOf,
  missingPath,
  removeFiles,
  sparseFile,
} from './helpers.ts';

afterEach(removeFiles);

const REPO = new URL('../../../', import.meta.url).pathname;

describe('openRegion: register access lands in the file', () => {
  it('write32 stores one little-endian word at the trn2 offset and nothing else', () => {
    const base = 0x82000000; // engine 0's UDMA unit in BAR0
    const p = sparseFile(base + 0x40000);
    const before = fileBytes(p, base - 0x1000, 0x42000);
    const r = openRegion(p, { offset: base, size: 0x20000 });
    r.write32(0x1084, 0x11223344);
    r.dispose();
    const after = fileBytes(p, base - 0x1000, 0x42000);
    expect([...after.subarray(0x1000 + 0x1084, 0x1000 + 0x1088)]).toEqual([0x44, 0x33, 0x22, 0x11]);
    after.fill(0, 0x1000 + 0x1084, 0x1000 + 0x1088);
    expect(after.equals(before)).toBe(true);
    // the rest of the 2 GiB sparse file was never touched: only one page is allocated
    expect(allocatedBytes(p)).toBe(4096);
  });

  it('read32 returns what the file holds, unsigned', () => {
    const p = sparseFile(0x10000);
    const fd = fs.openSync(p, 'r+');
    fs.writeSync(fd, Buffer.from([0x78, 0x56, 0x34, 0x12, 0xff, 0xff, 0xff, 0xff]), 0, 8, 0x2000);
    fs.closeSync(fd);
    using r = openRegion(p, { offset: 0x2000, size: 0x100 });
    expect(r.read32(0)).toBe(0x12345678);
    expect(r.read32(4)).toBe(0xffffffff);
  });

  it('a window that is not page aligned exposes exactly the requested bytes', () => {
    const p = sparseFile(0x3000);
    using r = openRegion(p, { offset: 0x1ff8, size: 0x10 }); // straddles a page boundary
    r.write32(0, 0xa1a2a3a4);
    r.write32(0xc, 0xb1b2b3b4);
    expect(fileBytes(p, 0x1ff8, 4).readUInt32LE(0)).toBe(0xa1a2a3a4);
    expect(fileBytes(p, 0x2004, 4).readUInt32LE(0)).toBe(0xb1b2b3b4);
    expectCode(() => r.read32(0x10), 'OUT_OF_WINDOW');
    expectCode(() => r.read32(-4), 'OUT_OF_WINDOW');
  });

  it('accepts negative int32 values (bit operations) and refuses wider ones, writing nothing', () => {
    const p = sparseFile(0x1000);
    using r = openRegion(p, { offset: 0, size: 0x1000 });
    r.write32(8, 1 << 31);
    expect(r.read32(8)).toBe(0x80000000);
    const before = fs.readFileSync(p);
    for (const v of [2 ** 32, -(2 ** 31) - 1, 1.5, Number.NaN])
      expectCode(() => r.write32(12, v), 'OUT_OF_RANGE');
    expect(fs.readFileSync(p).equals(before)).toBe(true);
  });

  it('sub-windows (registers) see offsets relative to themselves and stay inside', () => {
    const p = sparseFile(0x10000);
    using r = openRegion(p, { offset: 0x4000, size: 0x8000 });
    const s2m = r.registers(0x2000, 0x1000, 'udma_s2m');
    s2m.write32(0x38, 5);
    expect(fileBytes(p, 0x4000 + 0x2000 + 0x38, 4).readUInt32LE(0)).toBe(5);
    const e = expectCode(() => s2m.write32(0x1000, 1), 'OUT_OF_WINDOW');
    expect(e.message).toContain('udma_s2m');
    expectCode(() => r.registers(0x7ffc, 8), 'OUT_OF_WINDOW');
    expectCode(() => r.registers(2, 8), 'MISALIGNED');
  });
});

describe('openRegion: refused accesses touch nothing', () => {
  it('misaligned and out-of-window accesses are typed errors and the file is unchanged', () => {
    const p = sparseFile(0x4000);
    fs.writeFileSync(p, Buffer.alloc(0x4000, 0x5a));
    const before = fs.readFileSync(p);
    using r = openRegion(p, { offset: 0x1000, size: 0x1000 });
    for (const off of [1, 2, 3, 0x7fe, 4.5]) {
      expectCode(() => r.write32(off, 0), 'MISALIGNED');
      expectCode(() => r.read32(off), 'MISALIGNED');
    }
    for (const off of [0x1000, 0x1004, 0xffe, -4, -1, 2 ** 32, 2 ** 40, Infinity, Number.NaN]) {
      expectCode(() => r.write32(off, 0), 'OUT_OF_WINDOW');
      expectCode(() => r.read32(off), 'OUT_OF_WINDOW');
    }
    expectCode(() => r.writeBytes(0xff0, new Uint8Array(0x11)), 'OUT_OF_WINDOW');
    expectCode(() => r.readBytes(-1, new Uint8Array(1)), 'OUT_OF_WINDOW');
    expect(fs.readFileSync(p).equals(before)).toBe(true);
  });

  it('errors name the offending offset, the window and what was expected', () => {
    const p = sparseFile(0x2000);
    using r = openRegion(p, { offset: 0x1000, size: 0x100 });
    const e = expectCode(() => r.read32(0x100), 'OUT_OF_WINDOW');
    expect(e.message).toContain('0x100');
    expect(e.message).toContain(p);
    expect(e.details.actual).toBe(0x100);
    expect(e.details.expected).toContain('0xfc');
  });
});

describe('openRegion: refused opens', () => {
  it('a missing file is DEVICE_OPEN naming the path', () => {
    const p = missingPath();
    const e = expectCode(() => openRegion(p, { offset: 0, size: 4 }), 'DEVICE_OPEN');
    expect(e.message).toContain(p);
    expect(e.details.errno).toBe('ENOENT');
  });

  it('a file shorter than the mapping is refused before mapping (no SIGBUS later)', () => {
    const p = sparseFile(0x2000);
    const e = expectCode(() => openRegion(p, { offset: 0x1000, size: 0x1004 }), 'DEVICE_OPEN');
    expect(e.message).toContain('beyond the end');
    expectCode(() => openRegion(p, { offset: 0x2000, size: 4 }), 'DEVICE_OPEN');
    expect(mappingsOf(p)).toEqual([]);
    // exactly up to the end is fine
    openRegion(p, { offset: 0x1ffc, size: 4 }).dispose();
  });

  it('size 0, a misaligned window and non-integers are refused', () => {
    const p = sparseFile(0x2000);
    expectCode(() => openRegion(p, { offset: 0, size: 0 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: 2, size: 4 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: 0, size: 6 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: -4, size: 4 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: 0.5, size: 4 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: 0, size: Number.NaN }), 'DEVICE_OPEN');
    expectCode(() => openRegion('', { offset: 0, size: 4 }), 'DEVICE_OPEN');
    expectCode(() => openRegion(p, { offset: 0, size: MAX_WINDOW_BYTES + 4 }), 'DEVICE_OPEN');
    expect(mappingsOf(p)).toEqual([]);
  });

  it('the largest window maps, even off a page boundary, and its last word is reachable', () => {
    const p = sparseFile(MAX_WINDOW_BYTES + 0x2000);
    using r = openRegion(p, { offset: 0xffc, size: MAX_WINDOW_BYTES });
    r.write32(MAX_WINDOW_BYTES - 4, 0x01020304);
    expect(fileBytes(p, 0xffc + MAX_WINDOW_BYTES - 4, 4).readUInt32LE(0)).toBe(0x01020304);
    expectCode(() => r.read32(MAX_WINDOW_BYTES), 'OUT_OF_WINDOW');
  });

  it('a directory is not a device file', () => {
    expectCode(() => openRegion('/dev/shm', { offset: 0, size: 4 }), 'DEVICE_OPEN');
  });

  it('a read-only file (mode 0444) is refused read-write, even for root', () => {
    const p = sparseFile(0x1000);
    fs.chmodSync(p, 0o444);
    const e = expectCode(() => openRegion(p, { offset: 0, size: 4 }), 'DEVICE_OPEN');
    expect(e.message).toContain('readOnly');
    using r = openRegion(p, { offset: 0, size: 0x1000, readOnly: true });
    expect(r.read32(0)).toBe(0);
  });

  it.runIf(process.getuid?.() === 0)(
    'permission denied for an unprivileged user is DEVICE_OPEN EACCES',
    () => {
      // The child runs as nobody and loads nxdma from the checkout: a checkout nobody cannot
      // reach (a 0700 temporary folder) makes this test unable to run, which it says plainly.
      const reach = spawnSync(
        process.execPath,
        ['-e', `require('fs').accessSync(${JSON.stringify(REPO + 'package.json')})`],
        { uid: 65534, gid: 65534, encoding: 'utf8' },
      );
      if (reach.status !== 0) {
        throw new Error(
          `the checkout ${REPO} is not readable by uid 65534 (a parent folder is not ` +
            `traversable by others): run the suite from a folder others can traverse`,
        );
      }
      const p = sparseFile(0x1000);
      fs.chmodSync(p, 0o600); // owned by root, not readable by nobody
      const script = `
      import { openRegion } from ${JSON.stringify(REPO + 'driver/mmio/region.ts')};
      try { openRegion(${JSON.stringify(p)}, { offset: 0, size: 4 }); console.log('OPENED'); }
      catch (e) { console.log(JSON.stringify({ code: e.code, errno: e.details?.errno, message: e.message })); }`;
      const out = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: REPO,
          uid: 65534,
          gid: 65534,
          encoding: 'utf8',
          env: { ...process.env, HOME: '/tmp' },
        },
      );
      expect(out.stderr).toBe('');
      const r = JSON.parse(out.stdout.trim()) as { code: string; errno: string; message: string };
      expect(r.code).toBe('DEVICE_OPEN');
      expect(r.errno).toBe('EACCES');
      expect(r.message).toContain('permission denied');
    },
  );
});

describe('openRegion: read-only mappings', () => {
  it('the readOnly option maps O_RDONLY / PROT_READ and refuses every write without touching memory', () => {
    const p = sparseFile(0x2000);
    fs.writeFileSync(p, Buffer.alloc(0x2000, 0x33));
    const before = fs.readFileSync(p);
    using r = openRegion(p, { offset: 0x1000, size: 0x1000, readOnly: true });
    expect(r.readOnly).toBe(true);
    expect(r.read32(0)).toBe(0x33333333);
    const e = expectCode(() => r.write32(0, 1), 'DEVICE_READ_ONLY');
    expect(e.message).toContain('read-only');
    // refused before any other check: a bad offset also gets DEVICE_READ_ONLY, never a fault
    expectCode(() => r.write32(0x1000, 1), 'DEVICE_READ_ONLY');
    expectCode(() => r.registers(0, 0x100).write32(4, 1), 'DEVICE_READ_ONLY');
    expectCode(() => r.writeBytes(0, new Uint8Array(4)), 'DEVICE_READ_ONLY');
    expectCode(() => r.view(0, 4), 'DEVICE_READ_ONLY');
    expect(fs.readFileSync(p).equals(before)).toBe(true);
    // the mapping really is PROT_READ, shared
    const [line] = mappingsOf(p);
    expect(line?.split(/\s+/)[1]).toBe('r--s');
  });

  it('a read-write mapping is shared and writable', () => {
    const p = sparseFile(0x1000);
    using r = openRegion(p, { offset: 0, size: 0x1000 });
    expect(r.readOnly).toBe(false);
    const [line] = mappingsOf(p);
    expect(line?.split(/\s+/)[1]).toBe('rw-s');
  });
});

describe('openRegion: dispose', () => {
  it('dispose unmaps and closes; a second dispose is harmless', () => {
    const p = sparseFile(0x3000);
    const r = openRegion(p, { offset: 0x1000, size: 0x1000 });
    expect(mappingsOf(p)).toHaveLength(1);
    r.dispose();
    expect(r.disposed).toBe(true);
    expect(mappingsOf(p)).toEqual([]);
    expect(() => r.dispose()).not.toThrow();
    expect(() => r[Symbol.dispose]()).not.toThrow();
  });

  it('access after dispose is DEVICE_CLOSED, for the region and for its sub-windows', () => {
    const p = sparseFile(0x2000);
    const r = openRegion(p, { offset: 0, size: 0x2000 });
    const sub = r.registers(0x1000, 0x100);
    r.dispose();
    expectCode(() => r.read32(0), 'DEVICE_CLOSED');
    expectCode(() => r.write32(0, 1), 'DEVICE_CLOSED');
    expectCode(() => sub.read32(0), 'DEVICE_CLOSED');
    expectCode(() => sub.write32(0, 1), 'DEVICE_CLOSED');
    expectCode(() => r.readBytes(0, new Uint8Array(4)), 'DEVICE_CLOSED');
    expectCode(() => r.view(0, 4), 'DEVICE_CLOSED');
    expectCode(() => r.registers(0, 4), 'DEVICE_CLOSED');
    expect(fs.readFileSync(p).every((b) => b === 0)).toBe(true);
  });

  it('`using` disposes at the end of the block', () => {
    const p = sparseFile(0x1000);
    let escaped: ReturnType<typeof openRegion> | undefined;
    {
      using r = openRegion(p, { offset: 0, size: 0x1000 });
      escaped = r;
      expect(mappingsOf(p)).toHaveLength(1);
    }
    expect(escaped.disposed).toBe(true);
    expect(mappingsOf(p)).toEqual([]);
  });

  it('a live view handed out before dispose no longer reaches the file afterwards', () => {
    const p = sparseFile(0x1000);
    const r = openRegion(p, { offset: 0, size: 0x1000 });
    const v = r.view(0x10, 16);
    v[0] = 0xab;
    expect(fileBytes(p, 0x10, 1)[0]).toBe(0xab);
    r.dispose();
    expect(mappingsOf(p)).toEqual([]);
    v[1] = 0xcd; // lands in private scratch memory, not in the file nor in anything mapped later
    expect(fileBytes(p, 0x10, 2)).toEqual(Buffer.from([0xab, 0x00]));
  });
});

describe('optional native modules', () => {
  it('without ffi-napi / ref-napi the back end fails with DEVICE_UNAVAILABLE and the install command', () => {
    const e = expectCode(
      () =>
        loadLibc({
          require: (id) => {
            throw new Error(`Cannot find module '${id}'`);
          },
        }),
      'DEVICE_UNAVAILABLE',
    );
    expect(e.message).toContain(NATIVE_INSTALL_HINT);
    expect(e.message).toContain('C++ toolchain');
  });

  it('openRegion on a machine where the modules cannot be resolved says how to get them', () => {
    const p = sparseFile(0x1000);
    const script = `
      import Module from 'node:module';
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'ffi-napi' || request === 'ref-napi') throw new Error("Cannot find module '" + request + "'");
        return resolve.call(this, request, ...rest);
      };
      const { openRegion } = await import(${JSON.stringify(REPO + 'driver/mmio/index.ts')});
      try { openRegion(${JSON.stringify(p)}, { offset: 0, size: 4 }); console.log('OPENED'); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
    const out = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: REPO,
        encoding: 'utf8',
      },
    );
    expect(out.stderr).toBe('');
    const r = JSON.parse(out.stdout.trim()) as { code: string; message: string };
    expect(r.code).toBe('DEVICE_UNAVAILABLE');
    expect(r.message).toContain(NATIVE_INSTALL_HINT);
  });

  it('errors are NxdmaError instances with JSON-serialisable details', () => {
    const e = expectCode(() => openRegion(missingPath(), { offset: 0, size: 4 }), 'DEVICE_OPEN');
    expect(e).toBeInstanceOf(NxdmaError);
    expect(() => JSON.stringify(e)).not.toThrow();
  });
});
