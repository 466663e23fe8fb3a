/**
 * `--timeline <file>` of the nxdma commands: the mock's service trace drawn as an SVG
 * (flow/timeline.ts) and written to a file. Only a mock device keeps a service trace, so the
 * option is refused (bad input, before anything runs) on a mapped device.
 */
import { basename, dirname, extname, join } from 'node:path';
import { type InputSet, checkOutputFile, writeOutputFile } from '../common/files.ts';
import { serviceTraceOf, type Device } from '../csr/io.ts';
import { badArg } from './input.ts';
import { chromeTrace, type ChromeTraceOptions } from '../flow/chrome-trace.ts';
import { renderTimeline, type TimelineOptions, type TimelineResult } from '../flow/timeline.ts';

/** What a command reports about a timeline it wrote. */
export interface TimelineJson {
  file: string;
  lanes: number;
  bars: number;
  packets: number;
  bytes: number;
}

/**
 * Checks a --timeline value before anything runs: the command uses the mock, the path names a
 * regular file or nothing yet (not a directory, not a symbolic link, not one of the command's
 * inputs) whose folder exists or can be created (common/files.ts checkOutputFile).
 */
export function checkTimelineOption(
  file: string | undefined,
  opts: { mock: boolean; inputs?: InputSet },
): void {
  checkTraceOutput('--timeline', 'draws', file, opts);
}

/** An output of the mock's service trace: on the mock only, to a file checkOutputFile accepts. */
function checkTraceOutput(
  option: '--timeline' | '--trace-json',
  verb: string,
  file: string | undefined,
  opts: { mock: boolean; inputs?: InputSet },
): void {
  if (file === undefined) return;
  if (!opts.mock) {
    throw badArg(
      option,
      `${option} ${verb} the mock device service trace; a mapped device keeps none (use --mock)`,
      '--mock',
      '--device',
    );
  }
  checkOutputFile(file, { option, inputs: opts.inputs });
}

/**
 * The file the timeline of one program goes to: `file` itself for a single program; for a
 * directory run, the program's name inserted before the extension (out.svg -> out.qos-mix.svg).
 */
export function timelineFileFor(file: string, program: string, single: boolean): string {
  if (single) return file;
  const ext = extname(file) || '.svg';
  const stem = basename(file, extname(file));
  const name = basename(program, extname(program)).replace(/[^A-Za-z0-9._-]/g, '_');
  return join(dirname(file), `${stem}.${name}${ext}`);
}

/** Renders the device's service trace and writes it to `file`. */
export function writeTimeline(
  file: string,
  device: Device,
  opts: TimelineOptions = {},
  inputs?: InputSet,
): TimelineResult & { file: string } {
  const trace = serviceTraceOf(device);
  if (trace === null) {
    throw badArg(
      '--timeline',
      `${device.name} keeps no service trace`,
      'a mock device',
      device.name,
    );
  }
  const r = renderTimeline(trace, opts);
  writeOutputFile(file, r.svg, { option: '--timeline', inputs });
  return { ...r, file };
}

/** The JSON summary of a written timeline. */
export function timelineJson(r: TimelineResult & { file: string }): TimelineJson {
  return { file: r.file, lanes: r.lanes.length, bars: r.bars, packets: r.packets, bytes: r.bytes };
}

/** What a command reports about a Chrome trace it wrote (--trace-json). */
export interface TraceJsonReport {
  file: string;
  tracks: number;
  events: number;
  packets: number;
}

/** Checks a --trace-json value before anything runs (as checkTimelineOption). */
export function checkTraceJsonOption(
  file: string | undefined,
  opts: { mock: boolean; inputs?: InputSet },
): void {
  checkTraceOutput('--trace-json', 'writes', file, opts);
}

/** Writes the device's service trace to `file` in the Chrome trace event format (Perfetto). */
export function writeTraceJson(
  file: string,
  device: Device,
  opts: ChromeTraceOptions = {},
  inputs?: InputSet,
): TraceJsonReport {
  const trace = serviceTraceOf(device);
  if (trace === null) {
    throw badArg(
      '--trace-json',
      `${device.name} keeps no service trace`,
      'a mock device',
      device.name,
    );
  }
  const doc = chromeTrace(trace, opts);
  writeOutputFile(file, JSON.stringify(doc) + '\n', { option: '--trace-json', inputs });
  const x = doc.traceEvents.filter((e) => e.ph === 'X').length;
  const tracks = doc.traceEvents.filter((e) => e.name === 'thread_name').length;
  return { file, tracks, events: doc.traceEvents.length, packets: x };
}
