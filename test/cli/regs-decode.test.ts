import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFromMaps } from '../../cli/commands/regs/decode.ts';
import { regsValue, resolveWord } from '../../cli/commands/regs/words.ts';
import { placeField } from '../../csr/runtime/fields.ts';
import { REGFILE_NAMES, regFile } from '../../csr/schema/files.ts';
import { nxdma as run } from './helpers.ts';

/** Every register word of the three shipped files, with words that hit each field's named values. */
const words = REGFILE_NAMES.flatMap((file) =>
  regFile(file).instances.map((inst) => ({
    file,
    inst,
    named: inst.register.fields.flatMap((f) => f.enums.map((e) => placeField(e.value, f))),
  })),
);

describe('nxdma regs decode: the typed-map path against the schema model', () => {
  it('decodes every register word of every file as resolveWord + regsValue do (random words and every named value)', () => {
    let bare = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (random) => {
        for (const { file, inst, named } of words) {
          for (const word of [random, 0, 0xffffffff, ...named]) {
            const want = regsValue(resolveWord(`${file}:${inst.path}`).inst, word);
            expect(decodeFromMaps(`${file}:${inst.path}`, word, undefined)).toEqual(want);
            expect(decodeFromMaps(inst.path, word, file)).toEqual(want);
            const found = decodeFromMaps(inst.path, word, undefined);
            if (found !== undefined) {
              expect(found).toEqual(regsValue(resolveWord(inst.path).inst, word));
              bare++;
            }
          }
        }
      }),
      { numRuns: 20 },
    );
    // a path of one file is found without its prefix (the three files share no path)
    expect(bare).toBeGreaterThan(0);
  });

  it('leaves to resolveWord what it must read or refuse: addresses, unknown names and files', () => {
    expect(decodeFromMaps('0x1084', 4, undefined)).toBeUndefined();
    expect(decodeFromMaps('udma_s2m:0x1054', 4, undefined)).toBeUndefined();
    expect(decodeFromMaps('M2S_dwrr.cfg_schd', 4, undefined)).toBeUndefined();
    expect(decodeFromMaps('M2S_dwrr.cfg_sched', 4, 'udma_s2m')).toBeUndefined();
    expect(decodeFromMaps('udma_x:M2S_dwrr.cfg_sched', 4, undefined)).toBeUndefined();
    expect(decodeFromMaps('M2S_dwrr.cfg_sched', 4, 'nope')).toBeUndefined();
  });

  it('the command prints the same from either path (a path, then the offset of the same word)', async () => {
    const at = `udma_m2s:0x${resolveWord('M2S_dwrr.cfg_sched').inst.offset.toString(16)}`;
    const byPath = await run('regs', 'decode', 'M2S_dwrr.cfg_sched', '0x00070211', '--json');
    const byOffset = await run('regs', 'decode', at, '0x00070211', '--json');
    expect(byPath.code).toBe(0);
    expect(byOffset.code).toBe(0);
    expect(byPath.json).toEqual(byOffset.json);
    expect(byPath.json).toMatchObject({ file: 'udma_m2s', path: 'M2S_dwrr.cfg_sched' });
    const text = await run('regs', 'decode', 'M2S_dwrr.cfg_sched', '0x00070211');
    const viaOffset = await run('regs', 'decode', at, '0x00070211');
    expect(text.text).toBe(viaOffset.text);
    expect(text.text).toContain('udma_m2s M2S_dwrr.cfg_sched @ 0x340 = 0x00070211');
  });
});
