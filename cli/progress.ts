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

export interface PhaseProgressOptions {
  /** Text before the phase name (a file name). */
  label: string;
  /** False turns it off. Default true. */
  enabled?: boolean;
  /** Where it is drawn (stderr); nothing is drawn without one, or unless it is a TTY. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /**
   * Show it only once the work has taken this many milliseconds (default: NXDMA_PROGRESS_DELAY_MS
   * when set to a non-negative integer, else PROGRESS_DELAY_MS).
   */
  delayMs?: number;
  /** Clock in milliseconds (default performance.now). */
  now?: () => number;
}

/** The delay before progress shows: NXDMA_PROGRESS_DELAY_MS (0: at once) or PROGRESS_DELAY_MS. */
export function progressDelay(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.NXDMA_PROGRESS_DELAY_MS;
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : PROGRESS_DELAY_MS;
}

/** A progress line for work made of named phases (parse, compile, lower, run, verify). */
export interface PhaseProgress {
  /** Enters a phase; `total` steps of `unit` when it reports steps (update), else one step. */
  phase(name: string, unit?: string, total?: number): void;
  /** Reports `done` of `total` steps of the current phase. */
  update(done: number, total: number): void;
  /** Removes the line (if shown). Safe to call more than once. */
  stop(): void;
  /** True once the line has been drawn. */
  readonly shown: boolean;
  /** The phases entered, in order. */
  readonly phases: readonly string[];
}

/**
 * The progress line of a command with phases, drawn on stderr of a terminal only:
 * `  qos-mix.json  compile [=====-----] 4/9 passes`. It appears once the command has taken
 * `delayMs` (checked whenever a phase starts or a step is reported, so a long phase that reports
 * steps shows while it runs, and any phase that starts after the delay shows at once), and it
 * is cleared when the work stops. Quick work, pipes and CI logs never see it.
 */
export function phases(opts: PhaseProgressOptions): PhaseProgress {
  const stream = opts.stream;
  const names: string[] = [];
  if (opts.enabled === false || !stream?.isTTY) {
    return {
      phase: (n) => void names.push(n),
      update: () => undefined,
      stop: () => undefined,
      shown: false,
      phases: names,
    };
  }
  const now = opts.now ?? (() => performance.now());
  const delay = opts.delayMs ?? progressDelay();
  const t0 = now();
  let bar: SingleBar | null = null;
  let stopped = false;
  let cur = { name: '', unit: '', total: 1, done: 0 };
  const draw = (now_ = false): void => {
    if (stopped) return;
    if (bar === null) {
      if (now() - t0 < delay) return;
      bar = new SingleBar(
        {
          format: `  ${opts.label}  {phase} [{bar}] {value}/{total} {unit}`,
          stream: stream as NodeJS.WriteStream,
          clearOnComplete: true,
          hideCursor: false,
        },
        Presets.legacy,
      );
      bar.start(cur.total, cur.done, { phase: cur.name, unit: cur.unit });
      return;
    }
    bar.setTotal(cur.total);
    bar.update(cur.done, { phase: cur.name, unit: cur.unit });
    // a new phase is drawn at once (steps within a phase follow the bar's frame rate)
    if (now_) bar.render();
  };
  return {
    get shown() {
      return bar !== null;
    },
    phases: names,
    phase(name: string, unit = '', total = 1): void {
      names.push(name);
      cur = { name, unit, total: Math.max(1, total), done: 0 };
      draw(true);
    },
    update(done: number, total: number): void {
      cur = { ...cur, done, total: Math.max(1, total) };
      draw();
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
