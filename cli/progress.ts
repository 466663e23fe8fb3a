/**
 * The progress bar of the nxdma command: one home for when and how long work shows progress.
 *
 *   const bar = progress({ label: 'tiled-load-save.json', unit: 'DMAs' });
 *   ... bar.update(done, total) as work advances ...
 *   bar.stop();
 *
 * The bar (cli-progress) is drawn on stderr, only when stderr is a terminal, and only for work
 * that takes more than a moment: it appears at the first update after `delayMs` (default 500 ms)
 * that is not the last one, or at once when the total is at least `minTotal`. Quick work, pipes,
 * CI logs and --json output never see it, so stdout stays exactly the report. It uses no colour
 * (NO_COLOR holds trivially) and is cleared when it stops.
 */
import { Presets, SingleBar } from 'cli-progress';

/** Work shorter than this shows no bar. */
export const PROGRESS_DELAY_MS = 500;

export interface ProgressOptions {
  /** Text before the bar (a file name, "compile"). */
  label: string;
  /** What is counted ("DMAs", "passes"). */
  unit: string;
  /** False turns the bar off (e.g. with --json). Default true. */
  enabled?: boolean;
  /** Where the bar is drawn (default process.stderr); nothing is drawn unless it is a TTY. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Show the bar only after this many milliseconds (default PROGRESS_DELAY_MS). */
  delayMs?: number;
  /** Show the bar at once when the total is at least this (default: never at once). */
  minTotal?: number;
  /** Clock in milliseconds (default performance.now). */
  now?: () => number;
}

export interface Progress {
  /** Reports `done` of `total` items. */
  update(done: number, total: number): void;
  /** Removes the bar (if shown). Safe to call more than once. */
  stop(): void;
  /** True once the bar has been drawn. */
  readonly shown: boolean;
}

const NONE: Progress = { update: () => undefined, stop: () => undefined, shown: false };

/** A progress reporter for one piece of work (see the module comment). */
export function progress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.enabled === false || !stream.isTTY) return NONE;
  const now = opts.now ?? (() => performance.now());
  const delay = opts.delayMs ?? PROGRESS_DELAY_MS;
  const minTotal = opts.minTotal ?? Infinity;
  const t0 = now();
  let bar: SingleBar | null = null;
  let stopped = false;
  return {
    get shown() {
      return bar !== null;
    },
    update(done: number, total: number): void {
      if (stopped) return;
      if (bar === null) {
        if (done >= total) return;
        if (now() - t0 < delay && total < minTotal) return;
        bar = new SingleBar(
          {
            format: `  ${opts.label} [{bar}] {value}/{total} ${opts.unit}`,
            stream: stream as NodeJS.WriteStream,
            clearOnComplete: true,
            hideCursor: false,
          },
          Presets.legacy,
        );
        bar.start(total, done);
        return;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
