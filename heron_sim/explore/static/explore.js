/* heron-sim explore: the page's script (no library; charts drawn as inline SVG). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var TAB = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
  var state = { schema: null, changes: {}, stream: null, job: null, timer: null, last: null, exports: null, panelStream: null };
  var BASE_COLOR = "#7a8a9a", VAR_COLOR = "#d9531e";
  // the page's language and its catalogue (heron_sim/locale/fr.po, sent by the server): every
  // text this script draws goes through t() so that a test can list them (tests/test_explore_i18n.py)
  var I18N = window.HERON_I18N || { lang: "en", messages: {}, guides: {} };
  var LANG = I18N.lang, LOCALE = LANG === "fr" ? "fr-FR" : "en";
  var SEP = LANG === "fr" ? "\u00a0; " : ", ";  // an interval: [25,5 ; 26,1] in French
  function t(s) { return I18N.messages[s] || s; }
  function tf(s, o) { var r = t(s); for (var k in o) r = r.split("{" + k + "}").join(o[k]); return r; }
  function tfNodes(s, o) {  // a translated phrase whose {name} parts are elements (a file name in <code>)
    return t(s).split(/(\{[a-z]+\})/).map(function (p) { var m = /^\{([a-z]+)\}$/.exec(p); return m && o[m[1]] ? o[m[1]] : p; });
  }
  var PCT = LANG === "fr" ? "\u00a0%" : "%";  // an axis' 30 % / 30%
  function colon(s) { return s + (LANG === "fr" ? "\u00a0:" : ":"); }  // "lecture :" / "reading:"
  function int(n) { return Number(n).toLocaleString(LOCALE); }
  function local(s) { return LANG === "fr" ? s.replace(/\./g, ",") : s; }
  // what a figure means, beside it (issue 33: the statistical words explained where they appear)
  var MEANS = {
    guide_spread: t("How far the luckiest or unluckiest guide is from a fair share of the wins: 0 is perfectly fair."),
    seat_balance: t("1 means every seat wins as often as the others; 0.98 means the worst seat is 2 points from its fair share."),
    first_player_advantage: t("How much more often the player who starts wins than a fair share: 0 is fair."),
    dead_turn_rate: t("Turns after which nobody is any closer to the finish (an Angoisse, or no set of three)."),
    lead_changes: t("How often the pawn in front changes during a game: more means a closer race.")
  };
  var READINGS = [
    ["negligible", t("The change is too small to matter: its whole interval lies within the margin.")],
    ["real but small", t("The change is real (its interval excludes 0) but stays within the margin.")],
    ["real, possibly relevant", t("The change is real and may be larger than the margin.")],
    ["real and relevant", t("The change is real and larger than the margin: a designer will notice it.")],
    ["uncertain", t("Too few games to tell yet: the interval still holds 0 and values beyond the margin.")]
  ];
  function readingMeans(r) { for (var i = 0; i < READINGS.length; i++) if (READINGS[i][0] === r) return READINGS[i][1]; return ""; }
  var GROUP_WORDS = { Pace: t("Pace"), Turns: t("Turns"), Balance: t("Balance"), Seats: t("Seats"), Guides: t("Guides"), Powers: t("Powers") };
  var READING_WORDS = { "negligible": t("negligible"), "real but small": t("real but small"),
    "real, possibly relevant": t("real, possibly relevant"), "real and relevant": t("real and relevant"), "uncertain": t("uncertain") };
  function guideName(g) { return (I18N.guides || {})[g] || g; }
  // a figure's name in the page's language (the server's rows are in English, by key)
  function rowLabel(r) {
    var m = /^seat_(\d+)_win_rate$/.exec(r.key);
    if (m) return tf("seat {n} wins", { n: parseInt(m[1], 10) + 1 });
    m = /^guide_([a-z]+)_win_rate$/.exec(r.key);
    if (m) return tf("{guide} wins when dealt", { guide: guideName(m[1]) });
    m = /^power_([a-z]+)$/.exec(r.key);
    if (m) return tf("{guide} power uses per game dealt", { guide: guideName(m[1]) });
    if (r.key === "minutes") return tf("length in minutes (assumed {s} s a turn)", { s: (/assumed (\d+)/.exec(r.label) || [0, "?"])[1] });
    return t(r.label);
  }

  // ------------------------------------------------------------ helpers
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    for (var k in (attrs || {})) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "html") e.innerHTML = attrs[k];
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function idOf(key) { return "f-" + key.replace(/[^A-Za-z0-9_-]/g, "_"); }
  function errId(key) { return "e-" + key.replace(/[^A-Za-z0-9_-]/g, "_"); }
  // every POST is JSON: the server refuses any other body (a page elsewhere could send one unasked)
  function jsonPost(body) { return { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }; }
  function post(url, body) {
    return fetch(url, jsonPost(body))
      .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); });
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  // a value that rounds to zero has no minus sign (never "−0,00")
  function fmtNum(x, d) { return (x === null || x === undefined) ? t("n/a") : local((parseFloat(x.toFixed(d)) === 0 ? 0 : x).toFixed(d)).replace("-", "−"); }
  function signed(x, d) { return (x === null || x === undefined) ? t("n/a") : (x >= 0 || parseFloat(Math.abs(x).toFixed(d)) === 0 ? "+" : "−") + local(Math.abs(x).toFixed(d)); }
  var UNITS = {
    rate: { scale: 100, d: 2, suffix: "\u00a0%", dsuffix: "\u00a0pt" },
    points: { scale: 100, d: 2, suffix: "\u00a0pt", dsuffix: "\u00a0pt" },
    share: { scale: 1, d: 4, suffix: "", dsuffix: "" },
    rounds: { scale: 1, d: 2, suffix: "", dsuffix: "" },
    minutes: { scale: 1, d: 1, suffix: "\u00a0min", dsuffix: "\u00a0min" },
    count: { scale: 1, d: 3, suffix: "", dsuffix: "" }
  };
  function value(row, which) {
    var u = UNITS[row.unit] || UNITS.count, v = row[which];
    if (v === null) return t("n/a");
    var lo = row[which + "_low"], hi = row[which + "_high"];
    var s = fmtNum(v * u.scale, u.d) + u.suffix;
    if (lo !== null && hi !== null) s += " [" + fmtNum(lo * u.scale, u.d) + SEP + fmtNum(hi * u.scale, u.d) + "]";
    return s;
  }
  function diffText(row) {
    var u = UNITS[row.unit] || UNITS.count;
    if (row.diff === null) return t("n/a");
    var s = signed(row.diff * u.scale, u.d) + u.dsuffix;
    if (row.low !== null) s += " [" + signed(row.low * u.scale, u.d) + SEP + signed(row.high * u.scale, u.d) + "]";
    if ((row.unit === "rounds" || row.unit === "minutes" || row.unit === "count") && row.relative !== null && row.rel_low !== null)
      s += " = " + relText(row);
    return s;
  }
  function relText(r) {
    return signed(100 * r.relative, 1) + "\u00a0% [" + signed(100 * r.rel_low, 1) + SEP + signed(100 * r.rel_high, 1) + "]";
  }
  function readingBadge(r) {
    if (!r) return el("span", { "class": "small", text: "—" });
    return el("span", { "class": "reading r-" + r.replace(/[^a-z]+/g, "-"), text: READING_WORDS[r] || t(r), title: readingMeans(r) });
  }

  // ------------------------------------------------------------ the form, from the schema
  function fieldValue(f) {
    return Object.prototype.hasOwnProperty.call(state.changes, f.key) ? state.changes[f.key] : f["default"];
  }
  function listLength(f) {
    if (f.key.indexOf("combinations.") !== 0) return f["default"].length;
    var cnt = state.changes["dice.count"];
    var n = parseInt(cnt, 10);
    return (isFinite(n) && n >= 1 && n <= 16) ? n + 1 : f["default"].length;
  }
  function explainValue(f, v) {  // the rule in the booklet's words at the value typed
    var box = $(idOf(f.key) + "-explain");
    if (!box || !f.explain) return;
    fetch("/api/explain?lang=" + LANG + "&key=" + encodeURIComponent(f.key) + "&value=" + encodeURIComponent(JSON.stringify(v)))
      .then(function (r) { return r.json(); }).then(function (d) { if (d.text) box.textContent = d.text; })
      .catch(function () { /* the explanation stays that of the last value */ });
  }
  function setChange(f, v) {
    explainValue(f, v);
    if (same(v, f["default"]) || (f.type === "text" && v.trim() === "")) delete state.changes[f.key];
    else state.changes[f.key] = v;
    var box = $(idOf(f.key) + "-box");
    if (box) box.classList.toggle("changed", Object.prototype.hasOwnProperty.call(state.changes, f.key));
    changed();
  }
  function defaultText(f) {
    var d = f["default"];
    if (f.type === "bool") return tf("rulings: {v}", { v: d ? t("on") : t("off") });
    if (f.type === "int" || f.type === "float") return tf("rulings: {v}", { v: d }) + (f.allowed ? " · " + f.allowed : "");
    if (f.type === "multi") return tf("rulings: {v}", { v: d.length ? d.map(function (c) { return choiceLabel(f, c); }).join(", ") : t("none") });
    return "";
  }
  function choiceLabel(f, c) { return (f.choice_labels && f.choice_labels[c]) || c; }
  function fieldLabel(key) {
    var found = key;
    ((state.schema || {}).groups || []).forEach(function (g) { g.fields.forEach(function (f) { if (f.key === key) found = f.label; }); });
    return found;
  }
  function renderField(f) {
    var box = el("div", { "class": "field", id: idOf(f.key) + "-box" });
    var name = el("div", { "class": "name" }, [el("label", { "for": idOf(f.key), text: f.label }), el("span", { "class": "dflt", text: defaultText(f) })]);
    box.appendChild(name);
    var words = f.explain || (LANG === "en" ? f.help : "");
    if (words) box.appendChild(el("div", { "class": "help", id: idOf(f.key) + "-explain", text: words }));
    var v = fieldValue(f), input;
    if (f.type === "int" || f.type === "float") {
      input = el("input", { type: "number", id: idOf(f.key), name: f.key, step: f.type === "int" ? "1" : "any", inputmode: "decimal" });
      if (f.min !== null && f.min !== undefined) input.min = f.min;
      if (f.max !== null && f.max !== undefined) input.max = f.max;
      input.value = v;
      input.addEventListener("input", function () {
        var s = input.value.trim();
        if (s === "" && input.validity && input.validity.badInput) s = "not a number";
        setChange(f, s === "" ? f["default"] : (/^[+-]?\d+$/.test(s) && f.type === "int" ? parseInt(s, 10) : (/^[+-]?[\d.]+(e[+-]?\d+)?$/i.test(s) && f.type === "float" ? parseFloat(s) : s)));
        if (f.key === "dice.count") renderForm();
      });
    } else if (f.type === "bool") {
      input = el("input", { type: "checkbox", id: idOf(f.key), name: f.key });
      input.checked = !!v;
      input.addEventListener("change", function () { setChange(f, this.checked); });
      name.firstChild.insertBefore(input, name.firstChild.firstChild);
      input = null;
    } else if (f.type === "choice") {
      input = el("select", { id: idOf(f.key), name: f.key });
      f.choices.forEach(function (c) { input.appendChild(el("option", { value: c, text: choiceLabel(f, c) })); });
      input.value = v;
      input.addEventListener("change", function () { setChange(f, input.value); });
    } else if (f.type === "multi") {
      input = el("div", { "class": "multi", id: idOf(f.key) });
      f.choices.forEach(function (c) {
        var cb = el("input", { type: "checkbox", value: c, name: f.key + ":" + c });
        cb.checked = v.indexOf(c) >= 0;
        cb.addEventListener("change", function () {
          var sel = [];
          input.querySelectorAll("input").forEach(function (x) { if (x.checked) sel.push(x.value); });
          setChange(f, sel);
        });
        input.appendChild(el("label", {}, [cb, " " + choiceLabel(f, c)]));
      });
    } else if (f.type === "list-int" || f.type === "list-choice") {
      input = el("div", { "class": f.type === "list-choice" ? "list choices" : "list", id: idOf(f.key) });
      var n = listLength(f), cur = v.slice(0, n);
      while (cur.length < n) cur.push(cur[cur.length - 1]);
      var defs = f["default"].slice(0, n);
      while (defs.length < n) defs.push(defs[defs.length - 1]);
      cur.forEach(function (x, i) {
        var inp;
        if (f.type === "list-int") {
          inp = el("input", { type: "number", min: "0", step: "1", name: f.key + "[" + i + "]", "aria-label": f.label + " · " + ((f.labels && f.labels[i]) || i) });
          inp.value = x;
        } else {
          inp = el("select", { name: f.key + "[" + i + "]", "aria-label": f.label + " · " + ((f.labels && f.labels[i]) || i) });
          f.choices.forEach(function (c) { inp.appendChild(el("option", { value: c, text: choiceLabel(f, c) })); });
          inp.value = x;
        }
        inp.addEventListener(f.type === "list-int" ? "input" : "change", function () {
          var out = [];
          input.querySelectorAll("input, select").forEach(function (y) {
            var s = y.value.trim();
            out.push(f.type === "list-int" && /^\d+$/.test(s) ? parseInt(s, 10) : s);
          });
          explainValue(f, out);
          if (same(out, defs)) delete state.changes[f.key]; else state.changes[f.key] = out;
          $(idOf(f.key) + "-box").classList.toggle("changed", !!state.changes[f.key]);
          changed();
        });
        input.appendChild(el("div", {}, [el("label", { text: (f.labels && f.labels[i]) || String(i) }), inp]));
      });
    } else if (f.type === "squares") {
      input = renderSquares(f, v);
    } else {  // toml or text
      input = el("textarea", { id: idOf(f.key), name: f.key, rows: f.type === "text" ? "3" : "1", spellcheck: "false" });
      input.value = v;
      input.addEventListener("input", function () { setChange(f, input.value); });
    }
    if (input) box.appendChild(input);
    box.appendChild(el("div", { "class": "err", id: errId(f.key) }));
    if (Object.prototype.hasOwnProperty.call(state.changes, f.key)) box.classList.add("changed");
    return box;
  }
  function renderSquares(f, v) {
    var wrap = el("div", { id: idOf(f.key) });
    var grid = el("div", { "class": "squares" });
    var keys = Object.keys(v).sort(function (a, b) { return a - b; });
    function collect() {
      var out = {};
      grid.querySelectorAll(".sq-row").forEach(function (row) {
        var n = row.querySelector("input").value.trim(), e = row.querySelector("select").value;
        if (n !== "") out[n] = e;
      });
      setChange(f, out);
    }
    function addRow(n, e) {
      var num = el("input", { type: "number", min: String(f.min), max: String(f.max), step: "1", value: n, "aria-label": t("square") });
      var sel = el("select", { "aria-label": tf("effect of square {n}", { n: n }) });
      f.choices.forEach(function (c) { sel.appendChild(el("option", { value: c, text: choiceLabel(f, c) })); });
      sel.value = e;
      var del = el("button", { type: "button", title: t("remove this square"), text: "×" });
      var row = el("div", { "class": "sq-row", style: "display:contents" }, [num, sel, del]);
      num.addEventListener("change", collect);
      sel.addEventListener("change", collect);
      del.addEventListener("click", function () { row.remove(); collect(); });
      grid.appendChild(row);
    }
    keys.forEach(function (k) { addRow(k, v[k]); });
    wrap.appendChild(grid);
    var add = el("button", { type: "button", text: t("add a square") });
    add.addEventListener("click", function () { addRow("", "loup"); });
    wrap.appendChild(el("div", { "class": "buttons" }, [add]));
    return wrap;
  }
  var OPEN_GROUPS = ["lancer", "angoisse", "etang"];
  function renderForm() {
    var form = $("rules");
    var open = {};
    form.querySelectorAll("details").forEach(function (d) { open[d.dataset.title] = d.open; });
    form.innerHTML = "";
    state.schema.groups.forEach(function (g, i) {
      var d = el("details", { "class": "group" });
      d.dataset.title = g.id || g.title;
      var touched = g.fields.some(function (f) { return Object.prototype.hasOwnProperty.call(state.changes, f.key); });
      // open at first: the booklet's heart (rolling, the Angoisse, the Étang), where a designer starts
      d.open = touched || ((d.dataset.title in open) ? open[d.dataset.title] : OPEN_GROUPS.indexOf(g.id) >= 0 || (!g.id && i === 0));
      d.appendChild(el("summary", { text: g.title }));
      g.fields.forEach(function (f) { d.appendChild(renderField(f)); });
      form.appendChild(d);
    });
  }
  // each seat: its player chosen by name in the page's language (people first, the bots below),
  // and the command line's name under it (a parameter such as prudent:risk=0.6 is typed there)
  function seatPick(s, v) {
    var sc = state.schema.scenario, names = sc.player_names || {};
    var sel = el("select", { id: "seat-pick-" + s, name: "seat-pick-" + s, "aria-label": tf("seat {n}", { n: s + 1 }) });
    [[t("people"), sc.people || []], [t("bots"), sc.bots || []]].forEach(function (g) {
      var og = el("optgroup", { label: g[0] });
      g[1].forEach(function (n) { og.appendChild(el("option", { value: n, text: names[n] || n })); });
      sel.appendChild(og);
    });
    sel.appendChild(el("option", { value: "", text: t("other (with parameters)…") }));
    sel.value = (names[v] !== undefined) ? v : "";
    return sel;
  }
  function renderSeats(keep) {
    var sc = state.schema.scenario, P = parseInt($("players").value, 10) || 4;
    var old = keep || [];
    var box = $("seats");
    box.innerHTML = "";
    for (var s = 0; s < P; s++) {
      var v = old[s] || sc.seats[s % sc.seats.length];
      var pick = seatPick(s, v);
      var inp = el("input", { type: "text", list: "strategy-list", id: "seat-" + s, name: "seat-" + s, value: v, spellcheck: "false",
                              "class": "seat-name", "aria-label": tf("seat {n}", { n: s + 1 }) + " · " + t("name on the command line") });
      var who = el("div", { "class": "help seat-who", id: "seat-who-" + s, text: seatWords(v) });
      inp.addEventListener("input", (function (inp, who, pick) {
        return function () {
          var names = state.schema.scenario.player_names || {};
          pick.value = names[inp.value.trim()] !== undefined ? inp.value.trim() : "";
          who.textContent = seatWords(inp.value); showTable(); changed();
        };
      })(inp, who, pick));
      pick.addEventListener("change", (function (inp, who, pick) {
        return function () {
          if (!pick.value) { inp.focus(); return; }  // "other": the name is typed below
          inp.value = pick.value; who.textContent = seatWords(inp.value); showTable(); changed();
        };
      })(inp, who, pick));
      box.appendChild(el("div", { "class": "seat" }, [el("label", { "for": "seat-pick-" + s, text: tf("seat {n}", { n: s + 1 }) }), pick, inp, who,
        el("div", { "class": "err", id: "e-seat_" + s })]));
    }
    showTable();
  }
  // the table the seats make, in words (« 4 habitués », « 1 expert et 3 débutants »), or "your own table"
  function showTable() {
    var sel = $("table"), cur = seats(), found = "";
    (state.schema.scenario.tables || []).forEach(function (tb) { if (!found && same(tb.seats, cur)) found = tb.id; });
    sel.value = found;
    document.body.dataset.table = found;
  }
  function renderTables() {
    var sc = state.schema.scenario, sel = $("table");
    sel.innerHTML = "";
    var groups = { panel: t("the lab's panel"), mixed: t("mixed tables"), bots: t("bots") };
    ["panel", "mixed", "bots"].forEach(function (g) {
      var og = el("optgroup", { label: groups[g] });
      (sc.tables || []).forEach(function (tb) { if (tb.group === g) og.appendChild(el("option", { value: tb.id, text: tb.label })); });
      sel.appendChild(og);
    });
    sel.appendChild(el("option", { value: "", text: t("your own table (seats below)") }));
  }
  function pickTable(id) {
    var tb = (state.schema.scenario.tables || []).filter(function (x) { return x.id === id; })[0];
    if (!tb) return Promise.resolve(false);
    $("players").value = tb.players;
    return loadSchema(tb.seats.slice());
  }
  function seatWords(name) {  // the player of a seat in the page's language (its name stays the command line's)
    var labels = (state.schema && state.schema.scenario.strategy_labels) || {};
    var base = String(name || "").trim().split(":")[0];
    return labels[base] || "";
  }
  function seats() {
    var out = [];
    document.querySelectorAll("#seats input").forEach(function (i) { out.push(i.value.trim()); });
    return out;
  }
  function settings() {
    return { tab: TAB, lang: LANG, mode: $("mode").value, players: $("players").value, seed: $("seed").value,
             games: $("games").value, seats: seats(), rotate: $("rotate").checked, values: state.changes };
  }
  function loadSchema(keepSeats) {
    var q = "?mode=" + encodeURIComponent($("mode").value) + "&players=" + encodeURIComponent($("players").value || "4") + "&lang=" + LANG;
    return fetch("/api/schema" + q).then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); })
      .then(function (res) {
        if (res.status !== 200) { showErrors(res.data.errors || {}); return false; }
        state.schema = res.data;
        renderForm();
        renderSeats(keepSeats);
        return true;
      });
  }

  // ------------------------------------------------------------ errors
  function clearErrors() {
    document.querySelectorAll(".err").forEach(function (e) { e.textContent = ""; });
    document.querySelectorAll(".bad").forEach(function (e) { e.classList.remove("bad"); });
  }
  // the rules' messages name the key ("anxiety_threshold: 0 is out of range; allowed: 1..99"):
  // the page names the rule instead, and in French translates the message's usual words
  var ERROR_WORDS = [["is out of range", t("is out of range")], ["is not an integer", t("is not an integer")],
    ["is not a boolean", t("is not a boolean")], ["is not a square effect", t("is not a square effect")],
    ["is not an animal", t("is not an animal")], ["allowed:", t("allowed:")], ["malformed TOML", t("malformed TOML")],
    ["other rules", t("other rules")]];
  function errorText(k, msg) {
    var m = /^([A-Za-z_][A-Za-z_.]*)((?:\[\d+\]|\.\d+)?): ([\s\S]*)$/.exec(msg || "");
    var rest = m ? m[3] : msg, head = "";
    if (m && fieldLabel(m[1]) !== m[1]) head = fieldLabel(m[1]) + (m[2] ? " " + m[2].replace(/^\./, "[") + (m[2][0] === "." ? "]" : "") : "");
    else if (m) { head = m[1] + m[2]; }
    if (LANG === "fr") {
      ERROR_WORDS.forEach(function (p) { rest = rest.split(p[0]).join(p[1]); head = head.split(p[0]).join(p[1]); });
      rest = rest.replace(/(\d+)\.\.(\d+)/g, function (x, lo, hi) { return tf("{lo} to {hi}", { lo: lo, hi: hi }); });
      rest = rest.replace(/([^ ]); /g, "$1 ; ");
    }
    return head ? head + (LANG === "fr" ? " : " : ": ") + rest : rest;
  }
  function showErrors(errors) {
    clearErrors();
    Object.keys(errors).forEach(function (k) {
      var box = $(errId(k)) || $("e-extra");
      box.textContent = errorText(k, errors[k]);
      var inp = $(idOf(k)) || $(k.replace("seat.", "seat-"));
      if (inp) inp.classList.add("bad");
      var det = box.closest && box.closest("details");
      if (det) det.open = true;
    });
  }

  // ------------------------------------------------------------ running
  // the variant in a line; rules by guide ([guide.NAME]) and by player count ([seats.N]) written in
  // "other rules" are said in the booklet's words (the server's rule_words), never as TOML
  function changesLine() {
    var keys = Object.keys(state.changes), words = state.ruleWords || [];
    $("changes").textContent = keys.length ? t("Variant:") + " " + keys.map(function (k) {
      var v = state.changes[k];
      if (k === "extra" && words.length) return words.map(function (w) { return w.title; }).join("; ");
      return fieldLabel(k) + " = " + (typeof v === "boolean" ? (v ? t("on") : t("off")) : typeof v === "object" ? JSON.stringify(v) : v);
    }).join("; ") : t("No change: both sides play the rulings.");
  }
  function renderRuleWords(words) {
    state.ruleWords = words || [];
    var box = $("rule-words");
    box.innerHTML = "";
    box.hidden = !state.ruleWords.length;
    if (!state.ruleWords.length) return;
    box.appendChild(el("h3", { text: t("Rules by guide and by player count") }));
    state.ruleWords.forEach(function (w) {
      box.appendChild(el("div", { "class": "field changed", "data-key": w.key }, [
        el("div", { "class": "name" }, [el("span", { "class": "rule-title", text: w.title })]),
        el("div", { "class": "help", text: w.sentence })]));
    });
    changesLine();
  }
  function changed() {
    if (!Object.prototype.hasOwnProperty.call(state.changes, "extra")) state.ruleWords = [];
    changesLine();
    state.editAt = Date.now();  // the designer's last edit: the status line counts from it
    boardStale();
    clearTimeout(state.timer);
    state.timer = setTimeout(run, 150);
  }
  function closeStream() {
    if (state.stream) { state.stream.close(); state.stream = null; }
  }
  function run() {
    var body = settings();
    post("/api/run", body).then(function (res) {
      if (res.status === 503) {  // too many games running (other tabs): ask again in a moment
        $("status").textContent = t("The server is busy (games of other tabs). Trying again…");
        clearTimeout(state.timer);
        state.timer = setTimeout(run, 2000);
        return;
      }
      if (res.status !== 200) {
        closeStream();
        showErrors(res.data.errors || {});
        $("status").textContent = t("Fix the value marked in red: the figures below are those of the last valid rules.");
        document.body.dataset.state = "invalid";
        return;
      }
      clearErrors();
      state.exports = res.data;
      renderRuleWords(res.data.rule_words);
      renderCommands(res.data);
      document.body.dataset.changed = res.data.changed ? "yes" : "no";  // rules other than the base's
      follow(res.data.job);
    }).catch(function (err) { $("status").textContent = tf("The server does not answer ({err}).", { err: err }); });
  }
  function follow(job) {
    closeStream();
    state.job = job;
    state.jobEditAt = state.editAt || Date.now();
    state.firstAfterEdit = null;
    document.body.dataset.job = job;
    document.body.dataset.state = "running";
    if (state.last) {  // until the new rules' first figures arrive, the old ones are shown dimmed
      document.body.classList.add("stale");
      $("status").textContent = t("Playing the new rules… (dimmed: the figures of the previous rules)");
      $("mini").textContent = t("playing the new rules…");
    }
    var es = new EventSource("/api/stream/" + job);
    state.stream = es;
    es.addEventListener("update", function (ev) {
      if (state.job !== job) return;
      var snap = JSON.parse(ev.data);
      if (snap.state === "cancelled") return;
      render(snap);
    });
    es.addEventListener("end", function () { if (state.stream === es) { es.close(); state.stream = null; } });
    es.onerror = function () { if (state.stream === es && es.readyState === 2) $("status").textContent = t("Connection lost (a tab idle for 10 minutes is forgotten): change a value to play again."); };
  }

  // ------------------------------------------------------------ the figures
  function render(snap) {
    if (snap.error) { $("status").textContent = t("Error:") + " " + snap.error; document.body.dataset.state = "error"; return; }
    if (!snap.rows) return;
    state.last = snap;
    document.body.classList.remove("stale");
    var pct = snap.target ? Math.min(100, 100 * snap.played / snap.target) : 0;
    $("bar").style.width = pct.toFixed(1) + "%";
    document.querySelector(".progress").setAttribute("aria-valuenow", pct.toFixed(0));
    var done = snap.state === "done";
    if (state.firstAfterEdit === null || state.firstAfterEdit === undefined) {
      state.firstAfterEdit = (Date.now() - (state.jobEditAt || Date.now())) / 1000;
    }
    var sinceEdit = (Date.now() - (state.jobEditAt || Date.now())) / 1000;
    $("status").textContent = tf("{games} of {target} games per side ({all} in all), {since} s since your last change · first figures {first} s after it",
      { games: int(snap.games), target: int(snap.target), all: int(2 * snap.games), since: local(sinceEdit.toFixed(1)),
        first: local(state.firstAfterEdit.toFixed(2)) }) + " · " + (done ? t("done") : t("playing…"));
    document.body.dataset.firstAfterEdit = state.firstAfterEdit.toFixed(3);
    document.body.dataset.state = done ? "done" : "running";
    document.body.dataset.games = snap.games;
    document.body.dataset.rendered = snap.job;
    renderHeadline(snap);
    var L = row(snap, "length");
    $("mini").textContent = L ? t("length") + " " + (L.relative !== null && L.rel_low !== null ? relText(L) +
      (L.reading ? " · " + (READING_WORDS[L.reading] || L.reading) : "") : t("no change")) +
      " · " + tf("{n} games", { n: int(snap.games) }) + (done ? "" : "…") : "";
    renderTable(snap);
    drawLength(snap);
    drawRates($("chart-guides"), snap.rows.filter(function (r) { return r.group === "Guides"; }), snap.fair, function (r) { return guideName(r.key.split("_")[1]); });
    drawRates($("chart-seats"), snap.rows.filter(function (r) { return r.group === "Seats"; }), snap.fair, function (r) { return tf("seat {n}", { n: parseInt(r.key.split("_")[1], 10) + 1 }); });
  }
  function row(snap, key) { return snap.rows.filter(function (r) { return r.key === key; })[0]; }
  function renderHeadline(snap) {
    var box = $("headline");
    box.innerHTML = "";
    var cards = el("div", { "class": "cards" });
    ["length", "minutes", "dead_turn_rate", "guide_spread", "first_player_advantage", "lead_changes"].forEach(function (k) {
      var r = row(snap, k);
      if (!r) return;
      var u = UNITS[r.unit] || UNITS.count;
      var big = (r.unit === "rounds" || r.unit === "minutes" || r.unit === "count") && r.relative !== null
        ? signed(100 * r.relative, 1) + "\u00a0%" : signed(r.diff * u.scale, u.d) + u.dsuffix;
      // a figure whose interval is still wider than its margin does not shout: greyed, small,
      // "too few games yet"; it becomes a headline once its reading is settled
      var settled = r.settled !== false;
      cards.appendChild(el("div", { "class": "card" + (settled ? "" : " unsettled"), id: "card-" + k,
                                    "data-settled": settled ? "yes" : "no" }, [
        el("div", { "class": "what", text: rowLabel(r) }),
        MEANS[k] ? el("div", { "class": "means", text: MEANS[k] }) : null,
        el("div", { "class": "big", text: big }),
        el("div", { "class": "ci", text: diffText(r) }),
        el("div", { "class": "ci", text: value(r, "base") + " → " + value(r, "variant") }),
        settled ? readingBadge(r.reading) : el("span", { "class": "reading r-early", text: t("too few games yet") })]));
    });
    box.appendChild(cards);
  }
  function renderTable(snap) {
    var tb = document.querySelector("#figs tbody");
    tb.innerHTML = "";
    var group = null;
    snap.rows.forEach(function (r) {
      if (r.group !== group) {
        group = r.group;
        tb.appendChild(el("tr", { "class": "group" }, [el("td", { colspan: "6", text: GROUP_WORDS[group] || t(group) })]));
      }
      var tr = el("tr", { id: "row-" + r.key });
      ["diff", "low", "high", "relative", "rel_low", "rel_high", "base", "variant"].forEach(function (k) {
        if (r[k] !== null) tr.dataset[k.replace("_l", "L").replace("_h", "H")] = r[k];
      });
      tr.dataset.reading = r.reading;
      tr.dataset.n = r.n;
      tr.appendChild(el("td", {}, [rowLabel(r), MEANS[r.key] ? el("div", { "class": "means", text: MEANS[r.key] }) : null]));
      tr.appendChild(el("td", { "data-label": colon(t("base")), text: value(r, "base") }));
      tr.appendChild(el("td", { "data-label": colon(t("variant")), text: value(r, "variant") }));
      tr.appendChild(el("td", { "data-label": colon(t("difference")), text: diffText(r) }));
      var td = el("td", { "data-label": colon(t("reading")) });
      td.appendChild(readingBadge(r.reading));
      tr.appendChild(td);
      tr.appendChild(el("td", { "class": "small", "data-label": colon("n"), text: int(r.n) }));
      tb.appendChild(tr);
    });
    var dl = $("readings");
    if (!dl.firstChild) READINGS.forEach(function (p) {  // what each reading means, under the table
      dl.appendChild(el("dt", {}, [readingBadge(p[0])]));
      dl.appendChild(el("dd", { text: p[1] }));
    });
  }

  // ------------------------------------------------------------ SVG charts
  var NS = "http://www.w3.org/2000/svg";
  function svg(w, h) {
    var s = document.createElementNS(NS, "svg");
    s.setAttribute("viewBox", "0 0 " + w + " " + h);
    s.setAttribute("role", "img");
    return s;
  }
  function add(s, tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    s.appendChild(e);
    return e;
  }
  function legend(host) {
    host.appendChild(el("div", { "class": "legend" }, [el("span", { style: "background:" + BASE_COLOR }), t("base (rulings)"),
      el("span", { style: "background:" + VAR_COLOR }), t("variant")]));
  }
  function drawLength(snap) {
    var host = $("chart-length");
    host.innerHTML = "";
    var W = 460, H = 220, L = 40, R = 10, T = 10, B = 30;
    var s = svg(W, H);
    var hs = snap.hist.map(function (h) { var tot = h.reduce(function (a, b) { return a + b; }, 0) || 1; return h.map(function (x) { return x / tot; }); });
    var n = hs[0].length, lo = n, hi = 0;
    hs.forEach(function (h) { h.forEach(function (x, i) { if (x > 0.0005) { lo = Math.min(lo, i); hi = Math.max(hi, i); } }); });
    if (lo > hi) { lo = 0; hi = n - 1; }
    var ymax = Math.max.apply(null, hs[0].concat(hs[1])) || 1;
    var x = function (i) { return L + (i - lo) / (hi - lo + 1) * (W - L - R); };
    var y = function (v) { return T + (1 - v / ymax) * (H - T - B); };
    add(s, "line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" });
    add(s, "line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" });
    for (var tick = Math.ceil(lo / 5) * 5; tick <= hi; tick += 5) {
      add(s, "text", { x: x(tick) + 0.5 * (x(1) - x(0)), y: H - B + 14, "text-anchor": "middle" }, tick === snap.hist_max ? tick + "+" : String(tick));
    }
    add(s, "text", { x: L - 4, y: T + 8, "text-anchor": "end" }, (100 * ymax).toFixed(0) + PCT);
    add(s, "text", { x: L - 4, y: H - B, "text-anchor": "end" }, "0");
    [[0, BASE_COLOR], [1, VAR_COLOR]].forEach(function (p) {
      var h = hs[p[0]], d = "M" + x(lo) + "," + y(0);
      for (var i = lo; i <= hi; i++) d += " L" + x(i) + "," + y(h[i]) + " L" + x(i + 1) + "," + y(h[i]);
      d += " L" + x(hi + 1) + "," + y(0);
      add(s, "path", { d: d, fill: p[1], "fill-opacity": p[0] ? "0.18" : "0.28", stroke: p[1], "stroke-width": "1.5" });
    });
    add(s, "text", { x: (W + L) / 2, y: H - 3, "text-anchor": "middle" }, t("rounds"));
    host.appendChild(s);
    legend(host);
  }
  function drawRates(host, rows, fair, name) {
    host.innerHTML = "";
    rows = rows.filter(function (r) { return r.base !== null || r.variant !== null; });
    var W = 460, H = 220, L = 40, R = 10, T = 10, B = 30;
    var s = svg(W, H);
    var vals = [fair];
    rows.forEach(function (r) { ["base_high", "variant_high", "base", "variant"].forEach(function (k) { if (r[k] !== null) vals.push(r[k]); }); });
    var ymax = Math.min(1, Math.max.apply(null, vals) * 1.15), ymin = 0;
    var y = function (v) { return T + (1 - (v - ymin) / (ymax - ymin)) * (H - T - B); };
    var bw = (W - L - R) / Math.max(1, rows.length);
    add(s, "line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" });
    for (var g = 0; g <= ymax + 1e-9; g += (ymax > 0.5 ? 0.2 : ymax > 0.2 ? 0.1 : 0.05)) {
      add(s, "line", { x1: L, y1: y(g), x2: W - R, y2: y(g), stroke: "#eee" });
      add(s, "text", { x: L - 4, y: y(g) + 4, "text-anchor": "end" }, (100 * g).toFixed(0) + PCT);
    }
    rows.forEach(function (r, i) {
      var x0 = L + i * bw;
      [["base", BASE_COLOR, 0.12], ["variant", VAR_COLOR, 0.52]].forEach(function (p) {
        if (r[p[0]] === null) return;
        var bx = x0 + bw * p[2], w = bw * 0.36;
        add(s, "rect", { x: bx, y: y(r[p[0]]), width: w, height: Math.max(0, y(0) - y(r[p[0]])), fill: p[1] });
        if (r[p[0] + "_low"] !== null) {
          var cx = bx + w / 2;
          add(s, "line", { x1: cx, y1: y(r[p[0] + "_low"]), x2: cx, y2: y(r[p[0] + "_high"]), stroke: "#222", "stroke-width": "1.2" });
          add(s, "line", { x1: cx - 3, y1: y(r[p[0] + "_low"]), x2: cx + 3, y2: y(r[p[0] + "_low"]), stroke: "#222" });
          add(s, "line", { x1: cx - 3, y1: y(r[p[0] + "_high"]), x2: cx + 3, y2: y(r[p[0] + "_high"]), stroke: "#222" });
        }
      });
      add(s, "text", { x: x0 + bw / 2, y: H - B + 14, "text-anchor": "middle" }, name(r));
    });
    add(s, "line", { x1: L, y1: y(fair), x2: W - R, y2: y(fair), stroke: "#2e7d32", "stroke-dasharray": "5,4", "stroke-width": "1.3" });
    host.appendChild(s);
    legend(host);
  }

  // ------------------------------------------------------------ panel
  function runPanel() {
    var body = settings();
    body.rank = $("panel-rank").value;
    $("panel-out").textContent = t("Starting…");
    post("/api/panel", body).then(function (res) {
      if (res.status !== 200) { showErrors(res.data.errors || {}); $("panel-out").textContent = t("Fix the values marked in red first."); return; }
      if (state.stream) state.stream.close();
      state.stream = null;
      state.job = res.data.job;
      var es = new EventSource("/api/stream/" + res.data.job);
      state.panelStream = es;
      es.addEventListener("update", function (ev) { renderPanel(JSON.parse(ev.data)); });
      es.addEventListener("end", function () { es.close(); });
    });
  }
  function renderPanel(snap) {
    var out = $("panel-out");
    if (snap.error) { out.textContent = t("Error:") + " " + snap.error; return; }
    if (!snap.scenarios) return;
    out.innerHTML = "";
    out.dataset.state = snap.state;
    out.appendChild(el("p", { "class": "note", text: tf("{played} of {target} tables played", { played: snap.played, target: snap.target }) + (snap.state === "done" ? "." : "…") }));
    var worst = snap.scenarios.filter(function (s) { return s.name === snap.worst; })[0];
    if (worst) {
      out.appendChild(el("p", { "class": "worst-line", id: "panel-worst", text: tf("Worst table ({rank}): {table}.", { rank: t(snap.rank_label), table: describe(worst) }) }));
    }
    var tbl = el("table", { "class": "panel" });
    tbl.appendChild(el("thead", {}, [el("tr", {}, [t("table"), t("length change"), t("guide spread"), t("first-player adv."), t("seat balance")].map(function (h) { return el("th", { text: h }); }))]));
    var tb = el("tbody");
    snap.scenarios.forEach(function (sc) {
      var tr = el("tr", { "class": sc.name === snap.worst ? "worst" : "" });
      tr.appendChild(el("td", { text: describe(sc) }));
      var L = sc.rows["length"];
      tr.appendChild(el("td", { "data-label": colon(t("length")), text: L.relative !== null ? relText(L) + " " + (READING_WORDS[L.reading] || "") : t("n/a") }));
      [["guide_spread", t("guide spread")], ["first_player_advantage", t("first-player adv.")], ["seat_balance", t("seat balance")]].forEach(function (p) {
        var r = sc.rows[p[0]];
        tr.appendChild(el("td", { "data-label": colon(p[1]), text: value(r, "base") + " → " + value(r, "variant") + (r.reading ? " (" + (READING_WORDS[r.reading] || r.reading) + ")" : "") }));
      });
      tb.appendChild(tr);
    });
    tbl.appendChild(tb);
    out.appendChild(tbl);
  }

  // the board view: asked on request, then again after every change once drawn; the board on
  // screen is marked stale (greyed, « previous settings, recomputing… ») from the moment a rule
  // changes until the new one arrives. A first view on fewer games comes quickly, then it is refined.
  var board = { seq: 0, busy: false, again: false, timer: null };
  function boardStale() {
    var out = $("board-out");
    if (!out.dataset.drawn) return;
    out.classList.add("stale");
    out.dataset.state = "stale";
    $("board-stale").hidden = false;
    clearTimeout(board.timer);
    board.timer = setTimeout(runBoard, 400);
  }
  function runBoard() {
    if (board.busy) { board.again = true; return; }  // one board at a time: the latest settings next
    var body = settings(), seq = ++board.seq, out = $("board-out");
    body.lang = LANG;
    board.busy = true;
    board.again = false;
    if (!out.dataset.drawn) out.textContent = t("Replaying the games turn by turn…");
    $("board-run").disabled = true;
    function done() { board.busy = false; $("board-run").disabled = false; if (board.again) runBoard(); }
    function ask(quick) {
      body.quick = quick;
      return post("/api/board", body).then(function (res) {
        if (seq !== board.seq || board.again) { done(); return; }  // the settings changed meanwhile
        if (res.status !== 200) { if (res.data.errors) showErrors(res.data.errors); if (!out.dataset.drawn) out.textContent = ""; done(); return; }
        out.innerHTML = res.data.html;  // the server's fragment: its texts escaped there
        out.dataset.drawn = "1";
        out.dataset.games = res.data.games;
        out.classList.remove("stale");
        $("board-stale").hidden = true;
        out.dataset.state = quick ? "first" : "done";
        if (quick && !res.data.final) {
          out.insertBefore(el("p", { "class": "note board-refining", text: tf("First view on {n} games per side; refining…", { n: int(res.data.games) }) }), out.firstChild);
          return ask(false);
        }
        done();
      });
    }
    ask(true).catch(function (err) { done(); if (!out.dataset.drawn) out.textContent = tf("The server does not answer ({err}).", { err: err }); });
  }
  function describe(sc) {  // "4 players: casual, regular (rotated)" in the page's language
    var d = sc.describe || "";
    if (LANG === "en") return d;
    return d.replace(/^(\d+) players/, function (m, n) { return tf("{n} players", { n: n }); }).replace(" (rotated)", " " + t("(rotated)"));
  }

  // ------------------------------------------------------------ exports
  function download(name, text) {
    var a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "text/plain" })), download: name });
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }
  function cmdBlock(title, text, id) {
    var pre = el("pre", { "class": "cmd", id: id, text: text });
    var btn = el("button", { type: "button", text: t("copy") });
    btn.addEventListener("click", function () {
      var done = function () { btn.textContent = t("copied"); setTimeout(function () { btn.textContent = t("copy"); }, 1200); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () { selectText(pre); });
      else selectText(pre);
    });
    return el("div", {}, [el("div", { "class": "cmdrow" }, [el("span", {}, typeof title === "string" ? [title] : title), btn]), pre]);
  }
  function selectText(node) {
    var r = document.createRange(); r.selectNodeContents(node);
    var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  function renderCommands(d) {
    var box = $("commands");
    box.innerHTML = "";
    var titles = { compare: tfNodes("the same games with compare (save the variant as {file} first)", { file: el("code", { text: d.file_name }) }),
                   simulate_base: t("the rulings' games with simulate"), simulate: t("the variant's games with simulate") };
    Object.keys(d.commands).forEach(function (k) { box.appendChild(cmdBlock(titles[k] || k, d.commands[k], "cmd-" + k)); });
  }
  function tune() {
    post("/api/tune", settings()).then(function (res) {
      if (res.status !== 200) { showErrors(res.data.errors || {}); return; }
      download(res.data.file_name, res.data.toml);
      var box = $("tune-out");
      box.innerHTML = "";
      box.appendChild(cmdBlock(tfNodes("tune study written to your downloads as {file}; run it with", { file: el("code", { text: res.data.file_name }) }), res.data.command, "cmd-tune"));
      var det = el("details", {}, [el("summary", { text: t("the tune file") }), el("pre", { "class": "cmd", text: res.data.toml })]);
      box.appendChild(det);
    });
  }
  function sheet(lang) {
    var body = settings();
    body.lang = lang;
    post("/api/sheet", body).then(function (res) {
      var box = $("sheet-out");
      if (res.status !== 200) { showErrors(res.data.errors || {}); return; }
      box.innerHTML = "";
      var text = res.data.sheet;
      box.appendChild(el("div", { "class": "sheet-text", text: text }));
      var w = window.open("", "_blank");
      if (w) { w.document.title = t("Rule sheet"); var pre = w.document.createElement("pre"); pre.textContent = text; pre.style.whiteSpace = "pre-wrap"; w.document.body.appendChild(pre); w.print(); }
    });
  }
  function loaded(res) {
    if (res.status !== 200) { showErrors(res.data.errors || {}); return; }
    $("mode").value = res.data.mode;
    $("players").value = res.data.players;
    state.changes = res.data.values;
    loadSchema(seats()).then(function () { changed(); });
  }
  function loadFile(file) {
    var reader = new FileReader();
    reader.onload = function () { post("/api/load", { text: String(reader.result) }).then(loaded); };
    reader.readAsText(file);
  }
  function listProposals() {
    fetch("/api/proposals?lang=" + LANG).then(function (r) { return r.json(); }).then(function (d) {
      if (!d.proposals || !d.proposals.length) return;
      // by headline (what the proposal changes, in the booklet's words) under its study's title
      var groups = {};
      (d.headlines || []).forEach(function (p) {
        if (!groups[p.study]) { groups[p.study] = el("optgroup", { label: p.study_title }); $("proposal").appendChild(groups[p.study]); }
        groups[p.study].appendChild(el("option", { value: p.name, text: p.headline, title: p.name }));
      });
      $("proposal-box").hidden = false;
      $("proposal").addEventListener("change", function () {
        if (this.value) post("/api/load", { proposal: this.value }).then(loaded);
      });
    });
  }

  // ------------------------------------------------------------ start
  function restore() {
    try {
      var s = JSON.parse(sessionStorage.getItem("heron-explore") || "null");
      sessionStorage.removeItem("heron-explore");
      return s && typeof s === "object" && s.mode ? s : null;
    } catch (e) { return null; }
  }
  function start() {
    var saved = restore();
    fetch("/api/schema?lang=" + LANG + (saved ? "&mode=" + encodeURIComponent(saved.mode) + "&players=" + encodeURIComponent(saved.players) : ""))
      .then(function (r) { return r.json(); }).then(function (sch) {
      state.schema = sch;
      var sc = sch.scenario;
      sc.mode.choices.forEach(function (m) { $("mode").appendChild(el("option", { value: m, text: m })); });
      $("mode").value = sc.mode["default"];
      $("players").value = sc.players["default"];
      sc.games.forEach(function (g) { $("games").appendChild(el("option", { value: g, text: int(g) })); });
      $("games").value = sc.default_games;
      $("seed").value = 1;
      if (saved) {  // the same settings after a change of language
        $("games").value = saved.games; $("seed").value = saved.seed; $("rotate").checked = saved.rotate;
        state.changes = saved.values || {};
      }
      sc.strategies.forEach(function (s) { $("strategy-list").appendChild(el("option", { value: s, label: s + " — " + (sc.strategy_labels[s] || s) })); });
      Object.keys(sch.panel_ranks).forEach(function (k) { $("panel-rank").appendChild(el("option", { value: k, text: sch.panel_ranks[k] })); });
      $("panel-games").textContent = int(sch.panel_games);
      renderForm();
      renderTables();
      renderSeats(saved ? saved.seats : undefined);
      $("table").addEventListener("change", function () { if (this.value) pickTable(this.value).then(changed); });
      ["fr", "en"].forEach(function (l) {
        var a = $("lang-" + l);
        if (l === LANG) a.setAttribute("aria-current", "true");
        a.addEventListener("click", function () {  // the page in the other language keeps the settings
          try { sessionStorage.setItem("heron-explore", JSON.stringify(settings())); } catch (e) { /* private mode */ }
        });
      });
      $("mode").addEventListener("change", function () { loadSchema(seats()).then(changed); });
      $("players").addEventListener("input", function () {
        var p = parseInt($("players").value, 10);
        if (p >= 2 && p <= 7) loadSchema(seats()).then(changed); else changed();
      });
      ["games", "seed"].forEach(function (id) { $(id).addEventListener("input", changed); });
      $("rotate").addEventListener("change", changed);
      $("reset").addEventListener("click", function () { state.changes = {}; renderForm(); changed(); });
      $("load-file").addEventListener("change", function () { if (this.files[0]) loadFile(this.files[0]); this.value = ""; });
      $("panel-run").addEventListener("click", runPanel);
      $("board-run").addEventListener("click", runBoard);
      listProposals();
      $("save").addEventListener("click", function () { if (state.exports) download(state.exports.file_name, state.exports.variant_toml); });
      $("tune").addEventListener("click", tune);
      if (window.HERON_HAS_SHEET) {
        document.querySelectorAll(".sheet").forEach(function (b) { b.hidden = false; });
        $("sheet-en").addEventListener("click", function () { sheet("en"); });
        $("sheet-fr").addEventListener("click", function () { sheet("fr"); });
      }
      changed();
    });
    // a closed (or reloaded) tab stops its games at once; the stream's end would too, a little later
    // (keepalive: the request outlives the page, as a beacon would, but is JSON like every POST)
    window.addEventListener("pagehide", function () {
      var init = jsonPost({ tab: TAB });
      init.keepalive = true;
      fetch("/api/cancel", init).catch(function () {});
    });
  }
  start();
})();
