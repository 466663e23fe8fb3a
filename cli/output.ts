/**
 * Output conventions shared by every sub-command: colour per colorEnabled (FORCE_COLOR, NO_COLOR,
 * a terminal), progress only on a terminal's stderr.
 */
export interface Out {
  log(line?: string): void;
  err(line: string): void;
  json(value: unknown): void;
  readonly color: boolean;
  /** stdout is a terminal. */
  readonly tty: boolean;
  /** stderr is a terminal (progress is drawn there only). */
  readonly errTty?: boolean;
  /** The stream progress is drawn on (stderr); absent: no progress at all. */
  readonly errStream?: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * Whether output is coloured: FORCE_COLOR forces it on (any value but "0" or "false", which
 * force it off), as Node.js reads it; otherwise NO_COLOR (any non-empty value) turns it off;
 * otherwise it is on when the stream is a terminal.
 */
export function colorEnabled(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY;
}

export function makeOut(
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Out {
  const tty = Boolean((stdout as { isTTY?: boolean }).isTTY);
  const errTty = Boolean((stderr as { isTTY?: boolean }).isTTY);
  const color = colorEnabled(process.env, tty);
  return {
    tty,
    errTty,
    errStream: stderr as NodeJS.WritableStream & { isTTY?: boolean },
    color,
    log: (line = '') => void stdout.write(line + '\n'),
    err: (line) => void stderr.write(line + '\n'),
    json: (value) => void stdout.write(JSON.stringify(value, null, 2) + '\n'),
  };
}

export function paint(out: Out, code: number, text: string): string {
  return out.color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** Renders rows as an aligned plain-text table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join(
    '\n',
  );
}
