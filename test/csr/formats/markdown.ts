/** Markdown tables compared cell by cell (prettier pads the columns): the table lines, trimmed. */
export function normalizeTables(md: string): string {
  return md
    .split('\n')
    .filter((l) => l.trim().startsWith('|'))
    .map((l) =>
      l
        .trim()
        .split('|')
        .map((c) => (/^\s*:?-+:?\s*$/.test(c) ? '-' : c.trim()))
        .join('|'),
    )
    .join('\n');
}
