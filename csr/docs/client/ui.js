/*
 * nxdma register docs: wires NxdmaDocs (words.js, results.js, search.js) to the page. A plain
 * script embedded after search.js in every generated page; it reads the page's data from the JSON
 * element #nxdma-data (inline: pages opened from the file system cannot fetch) and never builds
 * HTML from strings (text goes through textContent only).
 *
 * - the search box (#search, results in #search-results): path, words or address; Enter opens
 *   the first result, Escape clears, "/" focuses the box; ?q=... fills it on load;
 * - one encoder/decoder per register (.codec): type a value (hex, decimal or binary) and see the
 *   fields, edit a field (a number or an enumerated name) and see the value, switch the radix,
 *   load the reset value; ?decode=<register>:<value> fills one on load;
 * - the word selector of repeated registers (select.inst) and fragments naming one word
 *   ("#M2S_Q[3].dwrr_cfg_2"), which select that word and show its address.
 */
(function () {
  'use strict';
  var D = NxdmaDocs;
  var data = JSON.parse(document.getElementById('nxdma-data').textContent);

  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.setAttribute('class', cls);
    if (text !== undefined && text !== null) n.textContent = text;
    return n;
  }

  // ---- search ----------------------------------------------------------------------------------

  var box = document.getElementById('search');
  var list = document.getElementById('search-results');
  var results = [];

  function showResults(query) {
    var q = String(query).trim();
    results = D.search(data.search, q, 40);
    list.textContent = '';
    if (q === '') {
      list.hidden = true;
      return;
    }
    if (results.length === 0) list.appendChild(el('li', 'none', 'Nothing matches "' + q + '"'));
    results.forEach(function (r) {
      var a = el('a');
      a.setAttribute('href', D.resultHref(r));
      a.setAttribute('data-kind', r.kind);
      a.appendChild(el('code', null, r.path));
      var meta = [r.file];
      if (r.offset !== null) meta.push(D.formatNumber(r.offset, 16, 1));
      if (r.access) meta.push(r.access);
      if (r.provenance) meta.push(r.provenance);
      a.appendChild(el('span', 'meta', meta.join(' \u00b7 ')));
      if (r.note) a.appendChild(el('span', 'note', r.note));
      var li = el('li');
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = false;
  }

  box.addEventListener('input', function () {
    showResults(box.value);
  });
  box.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' && results.length) {
      ev.preventDefault();
      list.hidden = true;
      location.href = D.resultHref(results[0]);
    } else if (ev.key === 'Escape') {
      box.value = '';
      showResults('');
    }
  });
  list.addEventListener('click', function () {
    list.hidden = true;
  });
  document.addEventListener('keydown', function (ev) {
    var t = ev.target;
    var typing = t && t.tagName && /^(INPUT|SELECT|TEXTAREA)$/i.test(t.tagName);
    if (ev.key === '/' && !typing) {
      ev.preventDefault();
      box.focus();
    }
  });

  // ---- encoders/decoders ---------------------------------------------------------------------

  var codecs = {};

  function wire(c) {
    var reg = data.registers[c.getAttribute('data-reg')];
    if (!reg) return;
    var raw = c.querySelector('input.raw');
    var radixButton = c.querySelector('button.radix');
    var alt = c.querySelector('.alt');
    var err = c.querySelector('.err');
    var inputs = c.querySelectorAll('input.fv');
    var state = { word: reg.reset, radix: 16 };
    var fields = {};
    reg.fields.forEach(function (f) {
      fields[f.name] = f;
    });

    function enumCell(input) {
      return input.parentNode.parentNode.querySelector('.en');
    }

    // Shows state.word everywhere but in `keep` (the input the user is typing in).
    function refresh(keep) {
      if (keep !== raw) raw.value = D.formatNumber(state.word, state.radix, 32);
      raw.classList.remove('bad');
      alt.textContent = D.altText(state.word, state.radix);
      err.textContent = '';
      for (var i = 0; i < inputs.length; i++) {
        var input = inputs[i];
        var f = fields[input.getAttribute('data-field')];
        var v = D.fieldValue(state.word, f);
        if (input !== keep) input.value = D.formatNumber(v, state.radix, f.width);
        input.classList.remove('bad');
        enumCell(input).textContent = D.enumText(f, v);
      }
    }

    function refuse(input, message) {
      input.classList.add('bad');
      err.textContent = message;
    }

    function setRaw(text) {
      var p = D.parseWord(text, state.radix);
      if (p.error) return refuse(raw, p.error);
      state.word = p.value;
      refresh(raw);
    }

    raw.addEventListener('input', function () {
      setRaw(raw.value);
    });
    raw.addEventListener('change', function () {
      if (!D.parseWord(raw.value, state.radix).error) refresh(null);
    });
    for (var i = 0; i < inputs.length; i++) {
      (function (input) {
        var f = fields[input.getAttribute('data-field')];
        input.addEventListener('input', function () {
          var p = D.parseField(f, input.value, state.radix);
          if (p.error) return refuse(input, p.error);
          state.word = D.withField(state.word, f, p.value);
          refresh(input);
        });
        input.addEventListener('change', function () {
          if (!D.parseField(f, input.value, state.radix).error) refresh(null);
        });
      })(inputs[i]);
    }
    radixButton.addEventListener('click', function () {
      state.radix = D.nextRadix(state.radix);
      radixButton.textContent = D.radixName(state.radix);
      refresh(null);
    });
    c.querySelector('button.reset').addEventListener('click', function () {
      state.word = reg.reset;
      refresh(null);
    });
    codecs[c.getAttribute('data-reg')] = {
      set: function (text) {
        raw.value = String(text);
        setRaw(raw.value);
      },
    };
  }

  var all = document.querySelectorAll('.codec');
  for (var k = 0; k < all.length; k++) wire(all[k]);

  // ---- words of repeated registers -----------------------------------------------------------

  function optionOf(sel, value) {
    var opts = sel.querySelectorAll('option');
    for (var i = 0; i < opts.length; i++)
      if (opts[i].getAttribute('value') === value) return opts[i];
    return null;
  }

  function showWord(sel) {
    var opt = optionOf(sel, sel.value);
    var abs = sel.parentNode.querySelector('code.abs');
    if (opt && abs) abs.textContent = opt.getAttribute('data-offset');
  }

  var sels = document.querySelectorAll('select.inst');
  for (var s = 0; s < sels.length; s++) {
    (function (sel) {
      sel.addEventListener('change', function () {
        showWord(sel);
      });
    })(sels[s]);
  }

  var lastHit = null;

  function sectionOf(node) {
    while (node && !(node.classList && node.classList.contains('reg'))) node = node.parentNode;
    return node || null;
  }

  // "#M2S_Q[3].dwrr_cfg_2" (or ".q_qos" after it): the element without indices, that word selected.
  function applyHash() {
    var h = '';
    try {
      h = decodeURIComponent(String(location.hash || '').replace(/^#/, ''));
    } catch (e) {
      return;
    }
    if (h === '') return;
    var id = h.replace(/\[\d+\]/g, '');
    var target = document.getElementById(id);
    if (!target) return;
    var section = sectionOf(target);
    if (section) {
      var sel = section.querySelector('select.inst');
      var word = target === section ? h : h.slice(0, h.lastIndexOf('.'));
      if (sel && id !== h && optionOf(sel, word)) {
        sel.value = word;
        showWord(sel);
      }
      if (lastHit) lastHit.classList.remove('hit');
      section.classList.add('hit');
      lastHit = section;
    }
    if (id !== h && target.scrollIntoView) target.scrollIntoView();
  }

  window.addEventListener('hashchange', applyHash);
  applyHash();

  // ---- ?q=... and ?decode=register:value -------------------------------------------------------

  var params = {};
  String(location.search || '')
    .replace(/^\?/, '')
    .split('&')
    .forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i <= 0) return;
      try {
        params[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, ' '));
      } catch (e) {
        /* a malformed parameter is ignored */
      }
    });
  if (params.q) {
    box.value = params.q;
    showResults(params.q);
  }
  if (params.decode) {
    var colon = params.decode.lastIndexOf(':');
    var name = params.decode.slice(0, colon);
    if (colon > 0 && codecs[name]) {
      codecs[name].set(params.decode.slice(colon + 1));
      var target = document.getElementById(name);
      if (target && target.scrollIntoView) target.scrollIntoView();
    }
  }
})();
