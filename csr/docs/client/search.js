/*
 * nxdma register docs: the page's search by path and text (ranked name matching, suggestions for
 * typos) over the results of results.js, and the page logic as a whole (`NxdmaDocs`: the words
 * and fields logic of words.js plus search). A plain script with no dependencies and no DOM
 * access, embedded verbatim after results.js in every HTML page.
 */
var NxdmaDocs = (function (words, results) {
  'use strict';

  var parseNumber = words.parseNumber;
  var hex = results.hex;
  var regPart = results.regPart;
  var blockPart = results.blockPart;
  var joinPath = results.joinPath;
  var range = results.range;
  var fileFilter = results.fileFilter;
  var registerResult = results.registerResult;
  var addressResults = results.addressResults;
  var fieldsOf = results.fieldsOf;

  /**
   * Splits a path query into segments [{ name, index }]; null when it is not a path. Tolerates
   * what a user has half typed: a trailing "." or an unclosed "[3".
   */
  function pathSegments(q) {
    if (!/^[A-Za-z0-9_.[\]*]+$/.test(q)) return null;
    var parts = q.split('.');
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    var out = [];
    for (var i = 0; i < parts.length; i++) {
      var m = /^([A-Za-z0-9_]+)(?:\[(\d*|\*)\]?)?$/.exec(parts[i]);
      if (!m) return null;
      var idx = m[2] !== undefined && /^\d+$/.test(m[2]) ? parseInt(m[2], 10) : null;
      out.push({ name: m[1].toLowerCase(), index: idx });
    }
    return out;
  }

  function nameScore(q, name) {
    var n = name.toLowerCase();
    if (n === q) return 3;
    if (n.indexOf(q) === 0) return 2;
    if (n.indexOf(q) >= 0) return 1;
    return 0;
  }

  /**
   * Aligns the query segments with the candidate segments [{ name, count }] at some position.
   * Returns the best { score, start, indices } or null. An index in the query must fit the
   * segment's count (an index on a segment that is not repeated does not match).
   */
  function align(qs, cs) {
    var best = null;
    for (var p = 0; p + qs.length <= cs.length; p++) {
      var score = 0;
      var indices = [];
      var ok = true;
      for (var i = 0; i < qs.length && ok; i++) {
        var c = cs[p + i];
        var s = nameScore(qs[i].name, c.name);
        if (s === 0) ok = false;
        else if (qs[i].index !== null && !(c.count > 1 && qs[i].index < c.count)) ok = false;
        score += s;
        indices.push(qs[i].index);
      }
      if (ok && (best === null || score > best.score))
        best = { score: score, start: p, indices: indices };
    }
    return best;
  }

  /** Path and text matches of the registers, fields and known gaps. */
  function nameResults(index, files, rest) {
    var out = [];
    var qs = pathSegments(rest);
    var words = rest
      .toLowerCase()
      .split(/\s+/)
      .filter(function (w) {
        return w !== '';
      });
    var fileNames = files.map(function (f) {
      return f.name;
    });
    files.forEach(function (file) {
      file.blocks.forEach(function (block) {
        var ba =
          qs && block.name !== null ? align(qs, [{ name: block.name, count: block.count }]) : null;
        if (ba) {
          var given = ba.indices[0] !== null;
          var bi = given ? ba.indices[0] : 0;
          out.push({
            kind: 'block',
            file: file.name,
            page: file.page,
            anchor: block.anchor,
            instance: given ? bi : null,
            entry: null,
            path: given
              ? blockPart(block, bi)
              : block.indexed
                ? block.name + range(block.count)
                : block.name,
            hash: block.anchor,
            offset: block.base + bi * block.stride,
            access: '',
            provenance: '',
            score: 10 + ba.score + 1,
            note:
              'block, ' +
              block.regs.length +
              ' registers' +
              (block.indexed && !given
                ? '; ' + block.count + ' instances, stride ' + hex(block.stride)
                : ''),
          });
        }
        block.regs.forEach(function (reg) {
          var base = [];
          if (block.name !== null) base.push({ name: block.name, count: block.count });
          base.push({ name: reg.name, count: reg.count });
          var best = null;
          if (qs) {
            var a = align(qs, base);
            if (a && a.start + qs.length === base.length) {
              best = { score: 10 + a.score + 0.5, a: a, field: null };
            }
            fieldsOf(reg).forEach(function (fname) {
              var cs = base.concat([{ name: fname, count: 1 }]);
              var fa = align(qs, cs);
              if (fa && fa.start + qs.length === cs.length) {
                var sc = 10 + fa.score;
                if (!best || sc > best.score) best = { score: sc, a: fa, field: fname };
              }
            });
          }
          if (best) {
            var bi = 0;
            var k = 0;
            var biGiven = false;
            var kGiven = false;
            for (var i = 0; i < best.a.indices.length; i++) {
              var seg = best.a.start + i;
              var idx = best.a.indices[i];
              if (idx === null) continue;
              if (block.name !== null && seg === 0) {
                bi = idx;
                biGiven = true;
              } else if (seg === base.length - 1) {
                k = idx;
                kGiven = true;
              }
            }
            var r = registerResult(file, block, reg, bi, k, best.score);
            var bp =
              block.name === null
                ? ''
                : block.indexed && !biGiven
                  ? block.name + range(block.count) + '.'
                  : blockPart(block, bi) + '.';
            var rp = reg.count > 1 && !kGiven ? reg.name + range(reg.count) : regPart(reg, k);
            r.path = bp + rp + (best.field ? '.' + best.field : '');
            if (!biGiven) r.instance = null;
            if (!kGiven) r.entry = null;
            var concrete = (!block.indexed || biGiven) && (reg.count === 1 || kGiven);
            r.hash =
              (concrete ? joinPath(block, bi, reg, k) : reg.anchor) +
              (best.field ? '.' + best.field : '');
            if (best.field) r.kind = 'field';
            var notes = [];
            if (block.indexed && !biGiven)
              notes.push(block.count + ' instances, stride ' + hex(block.stride));
            if (reg.count > 1 && !kGiven)
              notes.push(reg.count + ' entries, stride ' + hex(reg.stride));
            r.note = notes.join('; ');
            out.push(r);
          } else if (
            words.length &&
            words.every(function (w) {
              return reg.text.indexOf(w) >= 0;
            })
          ) {
            var t = registerResult(file, block, reg, 0, 0, 1);
            t.path =
              (block.name === null
                ? ''
                : block.indexed
                  ? block.name + range(block.count) + '.'
                  : block.name + '.') + (reg.count > 1 ? reg.name + range(reg.count) : reg.name);
            t.instance = null;
            t.entry = null;
            t.hash = reg.anchor;
            t.note = 'text match';
            out.push(t);
          }
        });
      });
    });
    (index.gaps || []).forEach(function (g) {
      if (fileNames.indexOf(g.file) < 0) return;
      var cs = [];
      if (g.block !== null) cs.push({ name: g.block, count: 1 });
      cs.push({ name: g.name, count: 1 });
      var a = qs ? align(qs, cs) : null;
      var pathHit = a && a.start + qs.length === cs.length;
      var textHit =
        words.length &&
        words.every(function (w) {
          return g.text.indexOf(w) >= 0;
        });
      if (!pathHit && !textHit) return;
      out.push({
        kind: 'gap',
        file: g.file,
        page: g.page,
        anchor: g.anchor,
        instance: null,
        entry: null,
        path: (g.block !== null ? g.block + '.' : '') + g.name,
        hash: g.anchor,
        offset: null,
        access: '',
        provenance: g.provenance,
        score: pathHit ? 10 + a.score : 1,
        note: 'known gap: no known offset',
      });
    });
    return out;
  }

  /** Levenshtein distance between two strings (case-insensitive). */
  function editDistance(a, b) {
    var s = a.toLowerCase();
    var t = b.toLowerCase();
    var prev = [];
    for (var j = 0; j <= t.length; j++) prev.push(j);
    for (var i = 1; i <= s.length; i++) {
      var cur = [i];
      for (var k = 1; k <= t.length; k++) {
        cur.push(
          Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (s[i - 1] === t[k - 1] ? 0 : 1)),
        );
      }
      prev = cur;
    }
    return prev[t.length];
  }

  /**
   * For a query that found nothing: the results of the nearest register, block or field names to
   * its last word (a typo such as "dwrr_cfg2"), each noted "did you mean ...".
   */
  function suggestions(index, files, text) {
    var words = text.split(/\s+/);
    var last = words[words.length - 1];
    var segs = last.split('.');
    var bare = segs[segs.length - 1].replace(/\[\d*\]?$/, '');
    if (bare.length < 3) return [];
    var names = {};
    files.forEach(function (file) {
      file.blocks.forEach(function (block) {
        if (block.name !== null) names[block.name] = true;
        block.regs.forEach(function (reg) {
          names[reg.name] = true;
          fieldsOf(reg).forEach(function (f) {
            names[f] = true;
          });
        });
      });
    });
    var max = Math.max(2, Math.floor(bare.length / 3));
    var best = max + 1;
    var near = [];
    Object.keys(names)
      .sort()
      .forEach(function (n) {
        var d = editDistance(bare, n);
        if (d === 0 || d > max) return;
        if (d < best) {
          best = d;
          near = [n];
        } else if (d === best) near.push(n);
      });
    var out = [];
    near.slice(0, 4).forEach(function (n) {
      segs[segs.length - 1] = segs[segs.length - 1].replace(bare, n);
      var q = words
        .slice(0, -1)
        .concat([segs.join('.')])
        .join(' ');
      nameResults(index, files, q).forEach(function (r) {
        r.score = r.score / 100;
        r.note = 'did you mean ' + n + '?' + (r.note ? '; ' + r.note : '');
        r.suggestion = n;
        out.push(r);
      });
    });
    return out;
  }

  /**
   * Searches the index. The query is a register path ("M2S_Q[3].dwrr_cfg_2", "dwrr_cfg_2.q_qos",
   * a prefix "dwrr"), words of the descriptions ("deficit counter"), or a byte address ("0x1084",
   * decimal "4228"): an address inside a repeated block resolves to the instance that holds it,
   * and, with a unit layout, an address inside the UDMA unit resolves to its register file; with
   * the profile's engine groups, a BAR0 address ("0x82001084") resolves to its engine, file and
   * register. A query that finds nothing gets the nearest names ("dwrr_cfg2" -> dwrr_cfg_2).
   * A register-file name among the words ("s2m 0x1054", "udma_s2m:0x1054") limits the search to
   * that file. Results are sorted best first (then file, offset, path), at most `limit`.
   */
  function search(index, query, limit) {
    var q = String(query == null ? '' : query).trim();
    if (q === '') return [];
    var files = index.files;
    var rest = [];
    q.split(/[\s:]+/).forEach(function (t) {
      var f = t && files.length > 1 ? fileFilter(index, t) : null;
      if (f) {
        files = files.filter(function (x) {
          return f.indexOf(x) >= 0;
        });
      } else if (t) rest.push(t);
    });
    var text = rest.join(' ');
    var out;
    var num = rest.length === 1 ? parseNumber(rest[0], 10) : { error: 'no' };
    if (!num.error) out = addressResults(index, files, num.value);
    else if (text === '') out = [];
    else out = nameResults(index, files, text);
    if (out.length === 0 && num.error && text !== '') out = suggestions(index, files, text);
    var order = index.files.map(function (f) {
      return f.name;
    });
    out.sort(function (a, b) {
      if (a.score !== b.score) return b.score - a.score;
      var fa = order.indexOf(a.file);
      var fb = order.indexOf(b.file);
      if (fa !== fb) return fa - fb;
      var oa = a.offset === null ? Infinity : a.offset;
      var ob = b.offset === null ? Infinity : b.offset;
      if (oa !== ob) return oa - ob;
      return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
    });
    return out.slice(0, limit > 0 ? limit : 50);
  }

  /**
   * The link of a search result: its page and a fragment naming the register, the field or the
   * exact word ("udma_m2s.html#M2S_Q[2].dwrr_cfg_2"); the page's script selects that instance.
   */
  function resultHref(r) {
    return r.page + '#' + r.hash;
  }

  var docs = {};
  for (var k in words) docs[k] = words[k];
  docs.search = search;
  docs.resultHref = resultHref;
  return docs;
})(NxdmaWords, NxdmaResults);
