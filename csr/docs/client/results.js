/*
 * nxdma register docs: search results (the path and record of a register hit, the file filter)
 * and the lookup of a register by address. A plain script with no dependencies and no DOM
 * access, embedded verbatim in every HTML page before search.js, which builds on it.
 */
var NxdmaResults = (function () {
  'use strict';

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

  return {
    hex: hex,
    regPart: regPart,
    blockPart: blockPart,
    joinPath: joinPath,
    range: range,
    fileFilter: fileFilter,
    registerResult: registerResult,
    addressResults: addressResults,
    fieldsOf: fieldsOf,
  };
})();
