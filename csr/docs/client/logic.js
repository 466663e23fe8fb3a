/*
 * nxdma register docs: the page logic (number parsing, field decode/encode, search by path, text
 * and address). A plain script with no dependencies and no DOM access: the generator embeds this
 * file verbatim in every HTML page, and the tests evaluate the very same text (csr/docs/client.ts).
 *
 * Words are unsigned 32-bit numbers held as JavaScript numbers; fields are read and written with
 * arithmetic (never with the signed 32-bit bitwise operators), so bit 31 needs no special case.
 */
var NxdmaDocs = (function () {
  'use strict';

  var WORD_MAX = 4294967295;

  function pow2(n) {
    return Math.pow(2, n);
  }

  /**
   * Parses "0x1f", "0b101", "0o17", "31" (underscores allowed: "0x0000_1084"). Digits without a
   * prefix are read in `radix` (10 when omitted). Returns { value } or { error }.
   */
  function parseNumber(text, radix) {
    var s = String(text == null ? '' : text)
      .trim()
      .replace(/_/g, '')
      .toLowerCase();
    var r = radix === 16 || radix === 2 ? radix : 10;
    if (s === '') return { error: 'empty' };
    var digits = s;
    if (/^0x/.test(s)) {
      r = 16;
      digits = s.slice(2);
    } else if (/^0b/.test(s)) {
      r = 2;
      digits = s.slice(2);
    } else if (/^0o/.test(s)) {
      r = 8;
      digits = s.slice(2);
    }
    var valid = r === 16 ? /^[0-9a-f]+$/ : r === 8 ? /^[0-7]+$/ : r === 2 ? /^[01]+$/ : /^[0-9]+$/;
    if (!valid.test(digits)) {
      var name = r === 16 ? 'hex' : r === 8 ? 'octal' : r === 2 ? 'binary' : 'decimal';
      return { error: '"' + String(text).trim() + '" is not a ' + name + ' number' };
    }
    var v = parseInt(digits, r);
    if (!(v <= Number.MAX_SAFE_INTEGER)) return { error: 'number too large' };
    return { value: v };
  }

  /**
   * Formats `value` in radix 16 ("0x..."), 10 or 2 ("0b...", in groups of four bits when wider
   * than 8), zero-padded to `width` bits. parseNumber reads every form back.
   */
  function formatNumber(value, radix, width) {
    var w = width > 0 ? width : 1;
    if (radix === 16) return '0x' + value.toString(16).padStart(Math.ceil(w / 4), '0');
    if (radix === 2) {
      var b = value.toString(2).padStart(w, '0');
      if (b.length > 8) {
        var groups = [];
        for (var end = b.length; end > 0; end -= 4)
          groups.unshift(b.slice(Math.max(0, end - 4), end));
        b = groups.join('_');
      }
      return '0b' + b;
    }
    return String(value);
  }

  /** The word in the two radices other than `radix`: "dec 132 · bin 0b...". */
  function altText(word, radix) {
    var parts = [];
    if (radix !== 16) parts.push('hex ' + formatNumber(word, 16, 32));
    if (radix !== 10) parts.push('dec ' + word);
    if (radix !== 2) parts.push('bin ' + formatNumber(word, 2, 32));
    return parts.join(' \u00b7 ');
  }

  /** The next radix of the toggle: hex, dec, bin, hex... */
  function nextRadix(radix) {
    return radix === 16 ? 10 : radix === 10 ? 2 : 16;
  }

  /** The toggle's label for a radix. */
  function radixName(radix) {
    return radix === 16 ? 'hex' : radix === 10 ? 'dec' : 'bin';
  }

  /** What the decoder shows next to a field value: its enumerated name, if the field has names. */
  function enumText(field, value) {
    if (!field.enums || field.enums.length === 0) return '';
    var n = enumName(field, value);
    return n === null ? '(not enumerated)' : n;
  }

  /** Field value of `word`: bits lsb..lsb+width-1. */
  function fieldValue(word, field) {
    return Math.floor(word / pow2(field.lsb)) % pow2(field.width);
  }

  /** `word` with `field` replaced by `value` (which must already be in range). */
  function withField(word, field, value) {
    return word + (value - fieldValue(word, field)) * pow2(field.lsb);
  }

  function fieldMax(field) {
    return pow2(field.width) - 1;
  }

  /** The enumerated name of `value` in `field`, or null. */
  function enumName(field, value) {
    var es = field.enums || [];
    for (var i = 0; i < es.length; i++) if (es[i].value === value) return es[i].name;
    return null;
  }

  /** Every field of `reg` decoded from `word`: [{ name, value, enumName }]. */
  function decode(reg, word) {
    return reg.fields.map(function (f) {
      var v = fieldValue(word, f);
      return { name: f.name, value: v, enumName: enumName(f, v) };
    });
  }

  /** Parses a register word typed by the user: { value } (0..0xffffffff) or { error }. */
  function parseWord(text, radix) {
    var p = parseNumber(text, radix);
    if (p.error) return p;
    if (p.value > WORD_MAX)
      return { error: formatNumber(p.value, 16, 0) + ' does not fit 32 bits' };
    return p;
  }

  /**
   * Parses a field value typed by the user: an enumerated name (any case) or a number that fits
   * the field. Returns { value } or { error }; a value wider than the field is an error, never
   * truncated.
   */
  function parseField(field, text, radix) {
    var t = String(text == null ? '' : text).trim();
    var es = field.enums || [];
    for (var i = 0; i < es.length; i++) {
      if (es[i].name.toLowerCase() === t.toLowerCase()) return { value: es[i].value };
    }
    var p = parseNumber(t, radix);
    if (p.error) return p;
    var max = fieldMax(field);
    if (p.value > max) {
      return {
        error:
          field.name +
          ': ' +
          p.value +
          ' does not fit ' +
          field.width +
          ' bit' +
          (field.width === 1 ? '' : 's') +
          ' (0..' +
          max +
          ')',
      };
    }
    return p;
  }

  /**
   * Encodes `values` ({ name: number }) over `base` (the reset word when omitted). Returns
   * { value } or { error } (unknown field, value out of range); nothing is truncated.
   */
  function encode(reg, values, base) {
    var word = base == null ? reg.reset : base;
    var names = Object.keys(values);
    for (var i = 0; i < names.length; i++) {
      var f = null;
      for (var j = 0; j < reg.fields.length; j++)
        if (reg.fields[j].name === names[i]) f = reg.fields[j];
      if (!f) return { error: 'no field ' + names[i] };
      var v = values[names[i]];
      if (typeof v !== 'number' || !(v >= 0) || v % 1 !== 0 || v > fieldMax(f)) {
        return { error: f.name + ': ' + v + ' is not an integer in 0..' + fieldMax(f) };
      }
      word = withField(word, f, v);
    }
    return { value: word };
  }

  // ---- search ----------------------------------------------------------------------------------

  function hex(n) {
    return '0x' + n.toString(16);
  }

  function regPart(reg, k) {
    return reg.count > 1 ? reg.name + '[' + k + ']' : reg.name;
  }

  function blockPart(block, i) {
    return block.indexed ? block.name + '[' + i + ']' : block.name;
  }

  function joinPath(block, bi, reg, k) {
    var r = regPart(reg, k);
    return block.name === null ? r : blockPart(block, bi) + '.' + r;
  }

  function range(n) {
    return '[0..' + (n - 1) + ']';
  }

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

  function fileFilter(index, token) {
    var t = token.toLowerCase();
    var hits = index.files.filter(function (f) {
      var n = f.name.toLowerCase();
      return n === t || (t.length >= 3 && n.split('_').indexOf(t) >= 0);
    });
    return hits.length ? hits : null;
  }

  function registerResult(file, block, reg, bi, k, score, extra) {
    var path = joinPath(block, bi, reg, k);
    var offset = block.base + bi * block.stride + reg.offset + k * reg.stride;
    var r = {
      kind: 'register',
      file: file.name,
      page: file.page,
      anchor: reg.anchor,
      instance: block.indexed ? bi : null,
      entry: reg.count > 1 ? k : null,
      path: path,
      hash: path,
      offset: offset,
      access: reg.access,
      provenance: reg.provenance,
      score: score,
      note: '',
    };
    if (extra) for (var key in extra) r[key] = extra[key];
    return r;
  }

  /** Every reading of `addr` as a byte offset in a register file's window (and in the unit). */
  function addressResults(index, files, addr) {
    var out = [];
    var unit = index.unit;
    // a BAR0 address: the engine groups' units it may fall in (a file window decides below)
    var bars = [];
    if (unit && unit.groups) {
      unit.groups.forEach(function (g) {
        if (addr < g.base) return;
        var i = g.stride > 0 ? Math.floor((addr - g.base) / g.stride) : 0;
        if (i < g.count) bars.push({ engine: g.first + i, inUnit: addr - g.base - i * g.stride });
      });
    }
    files.forEach(function (file) {
      var readings = [{ off: addr, via: '' }];
      bars.forEach(function (bar) {
        unit.windows.forEach(function (w) {
          if (w.file === file.name && bar.inUnit >= w.offset && bar.inUnit < w.offset + file.size) {
            readings.push({
              off: bar.inUnit - w.offset,
              via:
                unit.name +
                ' BAR0 ' +
                hex(addr) +
                ' = udma' +
                bar.engine +
                ' ' +
                file.name +
                ' + ' +
                hex(bar.inUnit - w.offset),
            });
          }
        });
      });
      if (unit) {
        unit.windows.forEach(function (w) {
          if (
            w.file === file.name &&
            w.offset !== 0 &&
            addr >= w.offset &&
            addr < w.offset + file.size
          ) {
            readings.push({
              off: addr - w.offset,
              via:
                unit.name + ' unit ' + hex(addr) + ' = ' + file.name + ' + ' + hex(addr - w.offset),
            });
          }
        });
      }
      readings.forEach(function (rd) {
        var off = rd.off;
        if (off >= file.size) return;
        var hit = null;
        var inBlock = null;
        for (var b = 0; b < file.blocks.length && !hit; b++) {
          var block = file.blocks[b];
          var end = block.base + block.count * block.stride;
          if (off < block.base || off >= end) continue;
          var bi = Math.floor((off - block.base) / block.stride);
          var rel = off - block.base - bi * block.stride;
          for (var j = 0; j < block.regs.length && !hit; j++) {
            var reg = block.regs[j];
            var d = rel - reg.offset;
            if (d < 0) continue;
            var k = reg.count > 1 ? Math.floor(d / reg.stride) : 0;
            if (k >= reg.count || d - k * reg.stride >= 4) continue;
            var byte = d - k * reg.stride;
            hit = registerResult(file, block, reg, bi, k, 100 - (rd.via ? 1 : 0), {
              note:
                (byte ? 'byte ' + byte + ' of the word' : '') +
                (rd.via ? (byte ? '; ' : '') + rd.via : ''),
            });
          }
          if (!hit && block.name !== null && inBlock === null) {
            inBlock = { block: block, bi: bi, rel: rel };
          }
        }
        if (hit) {
          out.push(hit);
        } else if (inBlock) {
          var bp = blockPart(inBlock.block, inBlock.bi);
          out.push({
            kind: 'block',
            file: file.name,
            page: file.page,
            anchor: inBlock.block.anchor,
            instance: inBlock.block.indexed ? inBlock.bi : null,
            entry: null,
            path: bp + ' + ' + hex(inBlock.rel),
            hash: inBlock.block.anchor,
            offset: off,
            access: '',
            provenance: '',
            score: 50 - (rd.via ? 1 : 0),
            note:
              'inside ' + bp + ', no register known at this offset' + (rd.via ? '; ' + rd.via : ''),
          });
        }
      });
    });
    return out;
  }

  function fieldsOf(reg) {
    return reg.fields || [];
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

  return {
    WORD_MAX: WORD_MAX,
    parseNumber: parseNumber,
    formatNumber: formatNumber,
    altText: altText,
    nextRadix: nextRadix,
    radixName: radixName,
    enumText: enumText,
    fieldValue: fieldValue,
    withField: withField,
    enumName: enumName,
    decode: decode,
    encode: encode,
    parseWord: parseWord,
    parseField: parseField,
    search: search,
    resultHref: resultHref,
  };
})();
