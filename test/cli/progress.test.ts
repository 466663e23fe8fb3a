import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PROGRESS_DELAY_MS, progress } from '../../cli/progress.ts';

/** A stream that records what is written; a terminal when `tty`. */
function sink(tty: boolean) {
  const chunks: string[] = [];
  const s = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (tty) {
    s.isTTY = true;
    s.columns = 100;
  }
  return { stream: s, text: () => chunks.join('') };
}

describe('cli/progress', () => {
  it('draws nothing for work shorter than the delay', () => {
    const { stream, text } = sink(true);
    let t = 0;
    const bar = progress({ label: 'p.json', unit: 'DMAs', stream, now: () => t });
    for (let i = 0; i <= 100; i++) {
      t = (i * (PROGRESS_DELAY_MS - 1)) / 100;
      bar.update(i, 100);
    }
    bar.stop();
    expect(bar.shown).toBe(false);
    expect(text()).toBe('');
  });

  it('draws the bar on a terminal once the work takes more than the delay, and clears it', () => {
    const { stream, text } = sink(true);
    let t = 0;
    const bar = progress({ label: 'p.json', unit: 'DMAs', stream, now: () => t });
    bar.update(10, 1000);
    expect(bar.shown).toBe(false);
    t = PROGRESS_DELAY_MS + 1;
    bar.update(20, 1000);
    expect(bar.shown).toBe(true);
    expect(text()).toContain('p.json');
    expect(text()).toContain('20/1000 DMAs');
    bar.stop();
    bar.stop();
  });

  it('never draws when the stream is not a terminal or the bar is disabled (--json)', () => {
    for (const [tty, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { stream, text } = sink(tty);
      let t = 0;
      const bar = progress({
        label: 'x',
        unit: 'DMAs',
        stream,
        enabled,
        now: () => t,
        minTotal: 1,
      });
      t = 10 * PROGRESS_DELAY_MS;
      bar.update(1, 1000);
      bar.stop();
      expect(bar.shown).toBe(false);
      expect(text()).toBe('');
    }
  });

  it('shows at once for a large total (minTotal), never for finished work', () => {
    const { stream } = sink(true);
    const bar = progress({ label: 'x', unit: 'passes', stream, minTotal: 100, now: () => 0 });
    bar.update(100, 100);
    expect(bar.shown).toBe(false);
    bar.update(1, 100);
    expect(bar.shown).toBe(true);
    bar.stop();
  });
});
