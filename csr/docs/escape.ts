/**
 * Escaping for everything the docs generator takes from a schema. Names, descriptions, notes and
 * enum texts are untrusted text: HTML pages and Markdown files show them, never interpret them.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an HTML text node or a double- or single-quoted attribute value. */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * Text for Markdown (paragraphs and table cells): HTML-escaped (Markdown passes raw HTML through),
 * line breaks folded to spaces, and the characters that would start Markdown syntax or end a table
 * cell backslash-escaped. An `_` between two word characters is left alone (CommonMark never reads
 * it as emphasis), so dwrr_cfg_2 stays readable in the source.
 */
export function escapeMarkdown(text: string | number): string {
  return String(text)
    .replace(/\r?\n|\r/g, ' ')
    .replace(/[\\`*[\]|#!~]/g, (c) => '\\' + c)
    .replace(/_/g, (c, i: number, s: string) =>
      /\w/.test(s[i - 1] ?? '') && /\w/.test(s[i + 1] ?? '') ? c : '\\' + c,
    )
    .replace(/[&<>]/g, (c) => HTML_ESCAPES[c]);
}

/**
 * A Markdown code span for a name ("M2S_Q.dwrr_cfg_2", "0x1084"). Text that is not such a plain
 * name (a known gap's free-form name, say) is written as escaped text instead: inside a code span
 * an entity would show literally, and a `|` would still end a table cell.
 */
export function markdownCode(text: string | number): string {
  const s = String(text);
  return /^[\w.:[\]@+ -]*$/.test(s) ? '`' + s + '`' : escapeMarkdown(s);
}

/**
 * JSON for the body of a `<script type="application/json">` element: `<`, `>` and `&` are written
 * as \u escapes so no `</script>` or `<!--` can appear, and U+2028/U+2029 are escaped too.
 * `JSON.parse` of the element's text gives the value back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}
