/** The stylesheet every HTML page carries inline (the site has no other file to load). */
export const PAGE_CSS = `
:root {
  --fg: #1d2330; --muted: #5b6474; --bg: #ffffff; --panel: #f6f7f9; --line: #dfe3ea;
  --accent: #2456c7; --accent-soft: #e8eefb; --code: #0f3a8a;
  --seed: #17663a; --seed-bg: #e3f4e9; --public: #1f4f9c; --public-bg: #e6eefa;
  --inferred: #8a5200; --inferred-bg: #fff1d6; --bad: #b3261e; --bad-bg: #fdecea;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e4e7ee; --muted: #9aa3b2; --bg: #14171d; --panel: #1c2028; --line: #2e3440;
    --accent: #7aa2ff; --accent-soft: #1f2a44; --code: #a9c1ff;
    --seed: #7fd6a0; --seed-bg: #173325; --public: #9dbcf5; --public-bg: #1b2a45;
    --inferred: #ffc266; --inferred-bg: #3a2a10; --bad: #ff8a80; --bad-bg: #3d1d1b;
  }
}
* { box-sizing: border-box; }
html { scroll-padding-top: 4.5rem; }
body { margin: 0; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono { font-family: var(--mono); font-size: 0.92em; }
code { color: var(--code); }
h1, h2, h3 { line-height: 1.25; }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.6rem; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 0.5rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.08rem; margin: 0; display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem; }
header.top { position: sticky; top: 0; z-index: 10; display: flex; align-items: center; gap: 1.2rem;
  padding: 0.55rem 1.2rem; background: var(--panel); border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 650; color: var(--fg); white-space: nowrap; }
header.top nav { display: flex; gap: 0.9rem; flex-wrap: wrap; font-size: 0.93rem; }
header.top nav a.here { font-weight: 650; color: var(--fg); }
.search { position: relative; margin-left: auto; width: min(28rem, 45vw); }
.search input { width: 100%; padding: 0.38rem 0.6rem; font: inherit; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; }
.search input:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
#search-results { position: absolute; right: 0; left: 0; top: 2.3rem; margin: 0; padding: 0.25rem 0;
  list-style: none; max-height: 70vh; overflow: auto; background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; box-shadow: 0 8px 24px rgba(0, 0, 0, 0.14); }
#search-results li a { display: block; padding: 0.3rem 0.7rem; color: var(--fg); }
#search-results li a:hover, #search-results li a:focus { background: var(--accent-soft); text-decoration: none; }
#search-results .meta { color: var(--muted); font-size: 0.85em; margin-left: 0.5rem; }
#search-results .note { display: block; color: var(--muted); font-size: 0.82em; }
#search-results li.none { padding: 0.3rem 0.7rem; color: var(--muted); }
.layout { display: grid; grid-template-columns: 15.5rem minmax(0, 1fr); }
nav.side { position: sticky; top: 3.2rem; align-self: start; max-height: calc(100vh - 3.2rem); overflow: auto;
  padding: 1rem 0.8rem 2rem 1.2rem; font-size: 0.88rem; border-right: 1px solid var(--line); }
nav.side ul { list-style: none; margin: 0; padding: 0; }
nav.side > ul > li { margin: 0.5rem 0 0.15rem; }
nav.side > ul > li > a { font-weight: 600; color: var(--fg); }
nav.side li li { padding-left: 0.7rem; }
nav.side li li a { color: var(--muted); font-family: var(--mono); font-size: 0.92em; }
main { padding: 1rem 2rem 4rem; max-width: 72rem; }
main.wide { margin: 0 auto; }
p.lead { color: var(--muted); margin-top: 0; }
.badge { display: inline-block; padding: 0.02rem 0.45rem; border-radius: 999px; font-size: 0.75rem;
  font-weight: 600; letter-spacing: 0.02em; border: 1px solid transparent; vertical-align: middle; white-space: nowrap; }
.prov-seed { color: var(--seed); background: var(--seed-bg); border-color: var(--seed); }
.prov-public { color: var(--public); background: var(--public-bg); border-color: var(--public); }
.prov-inferred { color: var(--inferred); background: var(--inferred-bg); border: 1px dashed var(--inferred); }
.acc { color: var(--fg); background: var(--panel); border-color: var(--line); font-family: var(--mono); }
.tag { color: var(--muted); background: var(--panel); border-color: var(--line); }
section.block { margin-bottom: 1rem; }
section.reg { margin: 1.1rem 0 1.6rem; padding: 0.9rem 1rem 1rem; border: 1px solid var(--line); border-radius: 8px; }
section.reg.inferred { border-left: 4px solid var(--inferred); }
section.reg.hit { box-shadow: 0 0 0 3px var(--accent-soft); border-color: var(--accent); }
section.reg h3 code { font-size: 1.02rem; font-weight: 650; }
.desc { margin: 0.45rem 0 0.6rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { text-align: left; vertical-align: top; padding: 0.28rem 0.6rem; border-bottom: 1px solid var(--line); }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
table.props th { width: 7.5rem; }
table.props td, table.props th { border: none; padding: 0.12rem 0.6rem 0.12rem 0; }
table.grid, table.fields { width: 100%; margin: 0.3rem 0 0.6rem; }
table.grid thead th, table.fields thead th { border-bottom: 2px solid var(--line); }
table.fields td.bits, table.fields td.rst { font-family: var(--mono); white-space: nowrap; }
table.fields tr.inferred td:first-child { box-shadow: inset 3px 0 0 var(--inferred); }
table.enums { margin: 0.35rem 0 0.1rem; font-size: 0.85rem; }
table.enums td, table.enums th { padding: 0.1rem 0.55rem 0.1rem 0; border: none; }
.note { color: var(--muted); font-size: 0.86em; }
figure.diagram { margin: 0.6rem 0; padding: 0.3rem; background: #ffffff; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; }
figure.diagram svg { display: block; max-width: 100%; height: auto; }
.codec { margin-top: 0.7rem; padding: 0.6rem 0.8rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.codec .head { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.codec .head .label { font-weight: 600; font-size: 0.88rem; }
.codec input { font-family: var(--mono); font-size: 0.9rem; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: 0.18rem 0.4rem; }
.codec input.raw { width: 25rem; max-width: 100%; }
.codec input.fv { width: 20rem; max-width: 100%; }
.codec input.bad { border-color: var(--bad); background: var(--bad-bg); }
.codec button { font: inherit; font-size: 0.82rem; padding: 0.15rem 0.55rem; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; cursor: pointer; }
.codec button:hover { border-color: var(--accent); }
.codec .alt { font-family: var(--mono); font-size: 0.82rem; color: var(--muted); }
.codec .err { color: var(--bad); font-size: 0.85rem; }
.codec table { width: 100%; margin-top: 0.4rem; }
.codec td { border: none; padding: 0.12rem 0.6rem 0.12rem 0; }
.codec td.en { color: var(--muted); font-family: var(--mono); font-size: 0.85rem; }
select.inst { font-family: var(--mono); font-size: 0.85rem; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
.cards { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; margin: 1rem 0; }
.card table.grid { display: block; overflow-x: auto; }
.card { padding: 0.9rem 1rem; border: 1px solid var(--line); border-radius: 8px; }
.card h2 { margin: 0 0 0.3rem; border: none; font-size: 1.15rem; }
.legend { display: flex; flex-wrap: wrap; gap: 1.2rem; font-size: 0.88rem; color: var(--muted); margin: 0.6rem 0 1rem; }
footer { color: var(--muted); font-size: 0.82rem; padding: 1.5rem 2rem; border-top: 1px solid var(--line); }
@media (max-width: 820px) {
  .layout { display: block; }
  nav.side { display: none; }
  main { padding: 1rem; }
  header.top { flex-wrap: wrap; }
  .search { width: 100%; }
}
`;
