/*
 * nxdma register docs: the page logic for words and fields (number parsing and formatting, field
 * decode/encode). A plain script with no dependencies and no DOM access: the generator embeds this
 * file verbatim in every HTML page, before search.js, and the tests evaluate the very same text
 * (csr/docs/client.ts).
 *
 * Words are unsigned 32-bit numbers held as JavaScript numbers; fields are read and written with
 * arithmetic (never with the signed 32-bit bitwise operators), so bit 31 needs no special case.
 */
var NxdmaWords = (function () {
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
  };
})();
