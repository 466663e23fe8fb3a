/** Output conventions shared by every sub-command: plain when not a TTY or when NO_COLOR is set. */
export interface Out {
  log(line?: string): void;
  err(line: string): void;
  json(value: unknown): void;
  readonly color: boolean;
  readonly tty: boolean;
}

export function makeOut(
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Out {
  const tty = Boolean((stdout as { isTTY?: boolean }).isTTY);
  const color = tty && !process.env.NO_COLOR;
  return {
    tty,
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
