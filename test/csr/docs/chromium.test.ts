/**
 * The generated site in a real browser, when one is installed: headless Chromium opens the pages
 * from the file system, runs their script (search, decoder) and the test reads the resulting DOM.
 * A screenshot is kept under test/artifacts/ (gitignored). Without /usr/bin/chromium the same
 * checks run against the page's script in page.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDocs } from '../../../csr/docs/index.ts';
import { shippedBuild } from './helpers.ts';
import { parseHtml } from './mini-dom.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));

describe.skipIf(!existsSync(CHROMIUM))('the site in headless Chromium', () => {
  let dir = '';
  let profile = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nxdma-docs-'));
    profile = mkdtempSync(join(tmpdir(), 'nxdma-chromium-'));
    writeDocs(shippedBuild(), dir);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  function chromium(args: string[]): string {
    return execFileSync(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--virtual-time-budget=2000',
        ...args,
      ],
      { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
  }

  function page(name: string, query: string): string {
    return `${pathToFileURL(join(dir, 'html', name)).href}${query}`;
  }

  it('search: 0x1084 lists M2S_Q[0].dwrr_cfg_2 first', () => {
    const dom = parseHtml(chromium(['--dump-dom', page('index.html', '?q=0x1084')]));
    const list = dom.getElementById('search-results')!;
    expect(list.hidden).toBe(false);
    expect(list.querySelector('a')!.getAttribute('href')).toBe('udma_m2s.html#M2S_Q[0].dwrr_cfg_2');
  });

  it('decoder: a value given in the URL is decoded into named fields', () => {
    const dom = parseHtml(
      chromium(['--dump-dom', page('udma_m2s.html', '?decode=M2S_dwrr.cfg_sched:0x00030111')]),
    );
    const c = dom
      .querySelectorAll('.codec')
      .find((x) => x.getAttribute('data-reg') === 'M2S_dwrr.cfg_sched')!;
    expect(c.querySelector('.alt')!.textContent).toContain(`dec ${0x00030111}`);
    const enums = c.querySelectorAll('td.en').map((td) => td.textContent);
    expect(enums).toContain('dwrr');
    expect(enums).toContain('packet');
  });

  it('keeps a screenshot of a register page with the search open', () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, 'docs-udma_m2s.png');
    rmSync(shot, { force: true });
    chromium([
      `--screenshot=${shot}`,
      '--window-size=1280,1600',
      page('udma_m2s.html', '?q=0x1084&decode=M2S_dwrr.cfg_sched:0x00030111'),
    ]);
    expect(existsSync(shot)).toBe(true);
  });
});
