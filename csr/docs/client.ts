/**
 * The script every generated HTML page carries, and a typed handle on its logic for Node.
 *
 * The page logic is three plain browser scripts run in order: `client/words.js` (number parsing,
 * field decode/encode), `client/results.js` (search results, lookup by address) and
 * `client/search.js` (search by path and text; defines `NxdmaDocs`), then `client/ui.js` wires
 * it to the page. The generator embeds their text verbatim; `loadClientLogic`
 * evaluates the same text, so the tests run exactly the code a reader's browser runs. They are
 * kept as .js files (not TypeScript turned back into text with Function.prototype.toString):
 * transpilers rewrite function text differently (tsx injects helpers), which would make the pages
 * depend on the tool that generated them.
 */
import { readFileSync } from 'node:fs';
import type { AccessKind, Provenance } from '../schema/model.ts';

function readClient(name: string): string {
  return readFileSync(new URL(`./client/${name}`, import.meta.url), 'utf8');
}

/** The page logic's scripts, in the order a page runs them. */
export const CLIENT_LOGIC_FILES = ['words.js', 'results.js', 'search.js'] as const;

/** Text of the page logic (client/words.js, results.js, search.js): defines the global `NxdmaDocs`. */
export const CLIENT_LOGIC_JS: string = CLIENT_LOGIC_FILES.map((f) => readClient(f).trim()).join(
  '\n',
);
/** Text of client/ui.js: wires NxdmaDocs to the page (search box, encoder/decoders). */
export const CLIENT_UI_JS: string = readClient('ui.js');

/** The one inline script of a page: the logic, then the wiring. */
export function pageScript(): string {
  return `\n${CLIENT_LOGIC_JS.trim()}\n${CLIENT_UI_JS.trim()}\n`;
}

// ---- data the pages embed (JSON in <script type="application/json" id="nxdma-data">) ----------

export interface ClientEnum {
  readonly name: string;
  readonly value: number;
}

export interface ClientField {
  readonly name: string;
  readonly lsb: number;
  readonly width: number;
  readonly access: AccessKind;
  readonly enums: readonly ClientEnum[];
}

/** What a page's encoder/decoder needs of one register. */
export interface ClientRegister {
  readonly path: string;
  readonly reset: number;
  readonly fields: readonly ClientField[];
}

export interface SearchRegister {
  readonly name: string;
  readonly anchor: string;
  /** Offset of entry 0 in the block instance (or the window for top-level registers). */
  readonly offset: number;
  /** Entries of a register array; 1 otherwise. */
  readonly count: number;
  /** Bytes between entries; 0 when not an array. */
  readonly stride: number;
  readonly access: AccessKind;
  readonly provenance: Provenance;
  /** Field names, in bit order. */
  readonly fields: readonly string[];
  /** Lower-case text the word search looks in: names, descriptions, notes, enum names. */
  readonly text: string;
}

export interface SearchBlock {
  /** null for the file's top-level registers (then base 0, count 1, stride = window size). */
  readonly name: string | null;
  readonly anchor: string | null;
  readonly base: number;
  readonly count: number;
  readonly stride: number;
  readonly indexed: boolean;
  readonly regs: readonly SearchRegister[];
}

export interface SearchFile {
  readonly name: string;
  /** The HTML page of the file ("udma_m2s.html"). */
  readonly page: string;
  /** Window size in bytes. */
  readonly size: number;
  readonly blocks: readonly SearchBlock[];
}

export interface SearchGap {
  readonly file: string;
  readonly page: string;
  readonly anchor: string;
  readonly block: string | null;
  readonly name: string;
  readonly provenance: Provenance;
  readonly text: string;
}

/** Where each register file sits in a UDMA unit (from a device profile), for unit addresses. */
export interface SearchUnit {
  readonly name: string;
  readonly windows: readonly { readonly file: string; readonly offset: number }[];
  /**
   * Where the units sit in BAR0 (the profile's engine groups: engines first..first+count-1, the
   * unit of engine first+i at base + i x stride), so the search also reads BAR0 addresses.
   */
  readonly groups?: readonly {
    readonly first: number;
    readonly count: number;
    readonly base: number;
    readonly stride: number;
  }[];
}

export interface SearchIndex {
  readonly files: readonly SearchFile[];
  readonly gaps: readonly SearchGap[];
  readonly unit: SearchUnit | null;
}

/** The JSON every page embeds. */
export interface PageData {
  readonly search: SearchIndex;
  /** The registers of this page by anchor (empty on the index and gaps pages). */
  readonly registers: { readonly [anchor: string]: ClientRegister };
}

// ---- the logic's API, as seen from Node -------------------------------------------------------

export type Radix = 2 | 10 | 16;

export type Parsed = { value: number; error?: undefined } | { error: string; value?: undefined };

export interface SearchResult {
  readonly kind: 'register' | 'field' | 'block' | 'gap';
  readonly file: string;
  readonly page: string;
  readonly anchor: string;
  /** Block instance the result names, or null (single block, or "any instance"). */
  readonly instance: number | null;
  /** Register-array entry the result names, or null. */
  readonly entry: number | null;
  /** "M2S_Q[0].dwrr_cfg_2", "M2S_Q[0..15].dwrr_cfg_2.q_qos", "S2M_Q[0] + 0x84", "S2M_Q.q_qos". */
  readonly path: string;
  /**
   * Fragment of the link: the exact word ("M2S_Q[2].dwrr_cfg_2"), a register or field anchor
   * ("M2S_Q.dwrr_cfg_2.q_qos") when no instance is named, a block or gap anchor.
   */
  readonly hash: string;
  /** Byte offset in the file's window (instance 0 when no instance is named); null for a gap. */
  readonly offset: number | null;
  readonly access: string;
  readonly provenance: string;
  readonly score: number;
  readonly note: string;
  /** For a query that found nothing: the nearest name this result is for. */
  readonly suggestion?: string;
}

export interface ClientLogic {
  readonly WORD_MAX: number;
  parseNumber(text: string, radix?: Radix): Parsed;
  formatNumber(value: number, radix: Radix, width: number): string;
  altText(word: number, radix: Radix): string;
  nextRadix(radix: Radix): Radix;
  radixName(radix: Radix): 'hex' | 'dec' | 'bin';
  enumText(field: ClientField, value: number): string;
  fieldValue(word: number, field: Pick<ClientField, 'lsb' | 'width'>): number;
  withField(word: number, field: Pick<ClientField, 'lsb' | 'width'>, value: number): number;
  enumName(field: ClientField, value: number): string | null;
  decode(
    reg: ClientRegister,
    word: number,
  ): { name: string; value: number; enumName: string | null }[];
  encode(reg: ClientRegister, values: Record<string, number>, base?: number): Parsed;
  parseWord(text: string, radix?: Radix): Parsed;
  parseField(field: ClientField, text: string, radix?: Radix): Parsed;
  search(index: SearchIndex, query: string, limit?: number): SearchResult[];
  resultHref(r: SearchResult): string;
}

let logic: ClientLogic | undefined;

/** Evaluates the page logic (the text the pages embed) and returns its `NxdmaDocs` object. */
export function loadClientLogic(): ClientLogic {
  logic ??= new Function(`${CLIENT_LOGIC_JS}\nreturn NxdmaDocs;`)() as ClientLogic;
  return logic;
}
