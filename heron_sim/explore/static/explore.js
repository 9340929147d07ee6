/* heron-sim explore: the page's script (no library; charts drawn as inline SVG). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var TAB = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
  var state = { schema: null, changes: {}, stream: null, job: null, timer: null, last: null, exports: null, panelStream: null };
  var BASE_COLOR = "#7a8a9a", VAR_COLOR = "#d9531e";

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
  function post(url, body) {
    return fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); });
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function fmtNum(x, d) { return (x === null || x === undefined) ? "n/a" : x.toFixed(d); }
  function signed(x, d) { return (x === null || x === undefined) ? "n/a" : (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(d); }
  var UNITS = {
    rate: { scale: 100, d: 2, suffix: " %", dsuffix: " pt" },
    points: { scale: 100, d: 2, suffix: " pt", dsuffix: " pt" },
    share: { scale: 1, d: 4, suffix: "", dsuffix: "" },
    rounds: { scale: 1, d: 2, suffix: "", dsuffix: "" },
    minutes: { scale: 1, d: 1, suffix: " min", dsuffix: " min" },
    count: { scale: 1, d: 3, suffix: "", dsuffix: "" }
  };
  function value(row, which) {
    var u = UNITS[row.unit] || UNITS.count, v = row[which];
    if (v === null) return "n/a";
    var lo = row[which + "_low"], hi = row[which + "_high"];
    var s = fmtNum(v * u.scale, u.d) + u.suffix;
    if (lo !== null && hi !== null) s += " [" + fmtNum(lo * u.scale, u.d) + ", " + fmtNum(hi * u.scale, u.d) + "]";
    return s;
  }
  function diffText(row) {
    var u = UNITS[row.unit] || UNITS.count;
    if (row.diff === null) return "n/a";
    var s = signed(row.diff * u.scale, u.d) + u.dsuffix;
    if (row.low !== null) s += " [" + signed(row.low * u.scale, u.d) + ", " + signed(row.high * u.scale, u.d) + "]";
    if ((row.unit === "rounds" || row.unit === "minutes" || row.unit === "count") && row.relative !== null && row.rel_low !== null)
      s += " = " + signed(100 * row.relative, 1) + " % [" + signed(100 * row.rel_low, 1) + ", " + signed(100 * row.rel_high, 1) + "]";
    return s;
  }
  function readingBadge(r) {
    if (!r) return el("span", { "class": "small", text: "—" });
    return el("span", { "class": "reading r-" + r.replace(/[^a-z]+/g, "-"), text: r });
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
  function setChange(f, v) {
    if (same(v, f["default"]) || (f.type === "text" && v.trim() === "")) delete state.changes[f.key];
    else state.changes[f.key] = v;
    var box = $(idOf(f.key) + "-box");
    if (box) box.classList.toggle("changed", Object.prototype.hasOwnProperty.call(state.changes, f.key));
    changed();
  }
  function defaultText(f) {
    var d = f["default"];
    if (f.type === "bool") return "rulings: " + (d ? "on" : "off");
    if (f.type === "int" || f.type === "float") return "rulings: " + d + (f.min !== undefined && f.min !== null ? " · " + f.min + ".." + (f.max === null ? "∞" : f.max) : "");
    if (f.type === "multi") return "rulings: " + (d.length ? d.join(", ") : "none");
    return "";
  }
  function renderField(f) {
    var box = el("div", { "class": "field", id: idOf(f.key) + "-box" });
    var name = el("div", { "class": "name" }, [el("label", { "for": idOf(f.key), text: f.label }), el("span", { "class": "dflt", text: defaultText(f) })]);
    box.appendChild(name);
    if (f.help) box.appendChild(el("div", { "class": "help", text: f.help }));
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
      f.choices.forEach(function (c) { input.appendChild(el("option", { value: c, text: c })); });
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
        input.appendChild(el("label", {}, [cb, " " + c]));
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
          inp = el("input", { type: "number", min: "0", step: "1", name: f.key + "[" + i + "]", "aria-label": f.label + " " + i });
          inp.value = x;
        } else {
          inp = el("select", { name: f.key + "[" + i + "]", "aria-label": f.label + " " + i });
          f.choices.forEach(function (c) { inp.appendChild(el("option", { value: c, text: c })); });
          inp.value = x;
        }
        inp.addEventListener(f.type === "list-int" ? "input" : "change", function () {
          var out = [];
          input.querySelectorAll("input, select").forEach(function (y) {
            var s = y.value.trim();
            out.push(f.type === "list-int" && /^\d+$/.test(s) ? parseInt(s, 10) : s);
          });
          if (same(out, defs)) delete state.changes[f.key]; else state.changes[f.key] = out;
          $(idOf(f.key) + "-box").classList.toggle("changed", !!state.changes[f.key]);
          changed();
        });
        input.appendChild(el("div", {}, [el("label", { text: (f.labels && f.labels[i]) || "set " + i }), inp]));
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
      var num = el("input", { type: "number", min: String(f.min), max: String(f.max), step: "1", value: n, "aria-label": "square" });
      var sel = el("select", { "aria-label": "effect of square " + n });
      f.choices.forEach(function (c) { sel.appendChild(el("option", { value: c, text: c })); });
      sel.value = e;
      var del = el("button", { type: "button", title: "remove this square", text: "×" });
      var row = el("div", { "class": "sq-row", style: "display:contents" }, [num, sel, del]);
      num.addEventListener("change", collect);
      sel.addEventListener("change", collect);
      del.addEventListener("click", function () { row.remove(); collect(); });
      grid.appendChild(row);
    }
    keys.forEach(function (k) { addRow(k, v[k]); });
    wrap.appendChild(grid);
    var add = el("button", { type: "button", text: "add a square" });
    add.addEventListener("click", function () { addRow("", "loup"); });
    wrap.appendChild(el("div", { "class": "buttons" }, [add]));
    return wrap;
  }
  function renderForm() {
    var form = $("rules");
    var open = {};
    form.querySelectorAll("details").forEach(function (d) { open[d.dataset.title] = d.open; });
    form.innerHTML = "";
    state.schema.groups.forEach(function (g, i) {
      var d = el("details", { "class": "group" });
      d.dataset.title = g.title;
      var touched = g.fields.some(function (f) { return Object.prototype.hasOwnProperty.call(state.changes, f.key); });
      d.open = touched || ((g.title in open) ? open[g.title] : i === 0);
      d.appendChild(el("summary", { text: g.title }));
      g.fields.forEach(function (f) { d.appendChild(renderField(f)); });
      form.appendChild(d);
    });
  }
  function renderSeats(keep) {
    var sc = state.schema.scenario, P = parseInt($("players").value, 10) || 4;
    var old = keep || [];
    var box = $("seats");
    box.innerHTML = "";
    for (var s = 0; s < P; s++) {
      var v = old[s] || sc.seats[s % sc.seats.length];
      var inp = el("input", { type: "text", list: "strategy-list", id: "seat-" + s, name: "seat-" + s, value: v, spellcheck: "false" });
      inp.addEventListener("input", changed);
      box.appendChild(el("div", {}, [el("label", { "for": "seat-" + s, text: "seat " + (s + 1) }), inp,
        el("div", { "class": "err", id: "e-seat_" + s })]));
    }
  }
  function seats() {
    var out = [];
    document.querySelectorAll("#seats input").forEach(function (i) { out.push(i.value.trim()); });
    return out;
  }
  function settings() {
    return { tab: TAB, mode: $("mode").value, players: $("players").value, seed: $("seed").value,
             games: $("games").value, seats: seats(), rotate: $("rotate").checked, values: state.changes };
  }
  function loadSchema(keepSeats) {
    var q = "?mode=" + encodeURIComponent($("mode").value) + "&players=" + encodeURIComponent($("players").value || "4");
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
  function showErrors(errors) {
    clearErrors();
    Object.keys(errors).forEach(function (k) {
      var box = $(errId(k)) || $("e-extra");
      box.textContent = errors[k];
      var inp = $(idOf(k)) || $(k.replace("seat.", "seat-"));
      if (inp) inp.classList.add("bad");
      var det = box.closest && box.closest("details");
      if (det) det.open = true;
    });
  }

  // ------------------------------------------------------------ running
  function changed() {
    var keys = Object.keys(state.changes);
    $("changes").textContent = keys.length ? "Variant: " + keys.map(function (k) {
      return k + " = " + (typeof state.changes[k] === "object" ? JSON.stringify(state.changes[k]) : state.changes[k]);
    }).join("; ") : "No change: both sides play the rulings.";
    state.editAt = Date.now();  // the designer's last edit: the status line counts from it
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
        $("status").textContent = ((res.data.errors || {}).extra || "The server is busy.") + " Trying again…";
        clearTimeout(state.timer);
        state.timer = setTimeout(run, 2000);
        return;
      }
      if (res.status !== 200) {
        closeStream();
        showErrors(res.data.errors || {});
        $("status").textContent = "Fix the value marked in red: the figures below are those of the last valid rules.";
        document.body.dataset.state = "invalid";
        return;
      }
      clearErrors();
      state.exports = res.data;
      renderCommands(res.data);
      follow(res.data.job);
    }).catch(function (err) { $("status").textContent = "The server does not answer (" + err + ")."; });
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
      $("status").textContent = "Playing the new rules… (dimmed: the figures of the previous rules)";
      $("mini").textContent = "playing the new rules…";
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
    es.onerror = function () { if (state.stream === es && es.readyState === 2) $("status").textContent = "Connection lost (a tab idle for 10 minutes is forgotten): change a value to play again."; };
  }

  // ------------------------------------------------------------ the figures
  function render(snap) {
    if (snap.error) { $("status").textContent = "Error: " + snap.error; document.body.dataset.state = "error"; return; }
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
    $("status").textContent = snap.games.toLocaleString("en") + " of " + snap.target.toLocaleString("en") +
      " games per side (" + (2 * snap.games).toLocaleString("en") + " in all), " + sinceEdit.toFixed(1) +
      " s since your last change · first figures " + state.firstAfterEdit.toFixed(2) + " s after it" +
      (done ? " · done" : " · playing…");
    document.body.dataset.firstAfterEdit = state.firstAfterEdit.toFixed(3);
    document.body.dataset.state = done ? "done" : "running";
    document.body.dataset.games = snap.games;
    document.body.dataset.rendered = snap.job;
    renderHeadline(snap);
    var L = row(snap, "length");
    $("mini").textContent = L ? "length " + (L.relative !== null && L.rel_low !== null ? signed(100 * L.relative, 1) + " % [" +
      signed(100 * L.rel_low, 1) + ", " + signed(100 * L.rel_high, 1) + "]" + (L.reading ? " · " + L.reading : "") : "no change") +
      " · " + snap.games.toLocaleString("en") + " games" + (done ? "" : "…") : "";
    renderTable(snap);
    drawLength(snap);
    drawRates($("chart-guides"), snap.rows.filter(function (r) { return r.group === "Guides"; }), snap.fair, function (r) { return r.label.split(" ")[0]; });
    drawRates($("chart-seats"), snap.rows.filter(function (r) { return r.group === "Seats"; }), snap.fair, function (r) { return r.label.replace(" wins", ""); });
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
        ? signed(100 * r.relative, 1) + " %" : signed(r.diff * u.scale, u.d) + u.dsuffix;
      // a figure whose interval is still wider than its margin does not shout: greyed, small,
      // "too few games yet"; it becomes a headline once its reading is settled
      var settled = r.settled !== false;
      cards.appendChild(el("div", { "class": "card" + (settled ? "" : " unsettled"), id: "card-" + k,
                                    "data-settled": settled ? "yes" : "no" }, [
        el("div", { "class": "what", text: r.label }),
        el("div", { "class": "big", text: big }),
        el("div", { "class": "ci", text: diffText(r) }),
        el("div", { "class": "ci", text: value(r, "base") + " → " + value(r, "variant") }),
        settled ? readingBadge(r.reading) : el("span", { "class": "reading r-early", text: "too few games yet" })]));
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
        tb.appendChild(el("tr", { "class": "group" }, [el("td", { colspan: "6", text: group })]));
      }
      var tr = el("tr", { id: "row-" + r.key });
      ["diff", "low", "high", "relative", "rel_low", "rel_high", "base", "variant"].forEach(function (k) {
        if (r[k] !== null) tr.dataset[k.replace("_l", "L").replace("_h", "H")] = r[k];
      });
      tr.dataset.reading = r.reading;
      tr.dataset.n = r.n;
      tr.appendChild(el("td", { text: r.label }));
      tr.appendChild(el("td", { "data-label": "base", text: value(r, "base") }));
      tr.appendChild(el("td", { "data-label": "variant", text: value(r, "variant") }));
      tr.appendChild(el("td", { "data-label": "difference", text: diffText(r) }));
      var td = el("td", { "data-label": "reading" });
      td.appendChild(readingBadge(r.reading));
      tr.appendChild(td);
      tr.appendChild(el("td", { "class": "small", "data-label": "n", text: r.n.toLocaleString("en") }));
      tb.appendChild(tr);
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
    host.appendChild(el("div", { "class": "legend", html: '<span style="background:' + BASE_COLOR + '"></span>base (rulings)<span style="background:' + VAR_COLOR + '"></span>variant' }));
  }
  function drawLength(snap) {
    var host = $("chart-length");
    host.innerHTML = "";
    var W = 460, H = 220, L = 40, R = 10, T = 10, B = 30;
    var s = svg(W, H);
    var hs = snap.hist.map(function (h) { var t = h.reduce(function (a, b) { return a + b; }, 0) || 1; return h.map(function (x) { return x / t; }); });
    var n = hs[0].length, lo = n, hi = 0;
    hs.forEach(function (h) { h.forEach(function (x, i) { if (x > 0.0005) { lo = Math.min(lo, i); hi = Math.max(hi, i); } }); });
    if (lo > hi) { lo = 0; hi = n - 1; }
    var ymax = Math.max.apply(null, hs[0].concat(hs[1])) || 1;
    var x = function (i) { return L + (i - lo) / (hi - lo + 1) * (W - L - R); };
    var y = function (v) { return T + (1 - v / ymax) * (H - T - B); };
    add(s, "line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" });
    add(s, "line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" });
    for (var t = Math.ceil(lo / 5) * 5; t <= hi; t += 5) {
      add(s, "text", { x: x(t) + 0.5 * (x(1) - x(0)), y: H - B + 14, "text-anchor": "middle" }, t === snap.hist_max ? t + "+" : String(t));
    }
    add(s, "text", { x: L - 4, y: T + 8, "text-anchor": "end" }, (100 * ymax).toFixed(0) + "%");
    add(s, "text", { x: L - 4, y: H - B, "text-anchor": "end" }, "0");
    [[0, BASE_COLOR], [1, VAR_COLOR]].forEach(function (p) {
      var h = hs[p[0]], d = "M" + x(lo) + "," + y(0);
      for (var i = lo; i <= hi; i++) d += " L" + x(i) + "," + y(h[i]) + " L" + x(i + 1) + "," + y(h[i]);
      d += " L" + x(hi + 1) + "," + y(0);
      add(s, "path", { d: d, fill: p[1], "fill-opacity": p[0] ? "0.18" : "0.28", stroke: p[1], "stroke-width": "1.5" });
    });
    add(s, "text", { x: (W + L) / 2, y: H - 3, "text-anchor": "middle" }, "rounds");
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
      add(s, "text", { x: L - 4, y: y(g) + 4, "text-anchor": "end" }, (100 * g).toFixed(0) + "%");
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
    $("panel-out").textContent = "Starting…";
    post("/api/panel", body).then(function (res) {
      if (res.status !== 200) { showErrors(res.data.errors || {}); $("panel-out").textContent = "Fix the values marked in red first."; return; }
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
    if (snap.error) { out.textContent = "Error: " + snap.error; return; }
    if (!snap.scenarios) return;
    out.innerHTML = "";
    out.dataset.state = snap.state;
    out.appendChild(el("p", { "class": "note", text: snap.played + " of " + snap.target + " tables played" + (snap.state === "done" ? "." : "…") }));
    var worst = snap.scenarios.filter(function (s) { return s.name === snap.worst; })[0];
    if (worst) {
      out.appendChild(el("p", { "class": "worst-line", id: "panel-worst", text: "Worst table (" + snap.rank_label + "): " + worst.describe + "." }));
    }
    var t = el("table", { "class": "panel" });
    t.appendChild(el("thead", {}, [el("tr", {}, ["table", "length change", "guide spread", "first-player adv.", "seat balance"].map(function (h) { return el("th", { text: h }); }))]));
    var tb = el("tbody");
    snap.scenarios.forEach(function (sc) {
      var tr = el("tr", { "class": sc.name === snap.worst ? "worst" : "" });
      tr.appendChild(el("td", { text: sc.describe }));
      var L = sc.rows["length"];
      tr.appendChild(el("td", { "data-label": "length", text: L.relative !== null ? signed(100 * L.relative, 1) + " % [" + signed(100 * L.rel_low, 1) + ", " + signed(100 * L.rel_high, 1) + "] " + (L.reading || "") : "n/a" }));
      ["guide_spread", "first_player_advantage", "seat_balance"].forEach(function (k) {
        var r = sc.rows[k];
        tr.appendChild(el("td", { "data-label": k.replace(/_/g, " "), text: value(r, "base") + " → " + value(r, "variant") + (r.reading ? " (" + r.reading + ")" : "") }));
      });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    out.appendChild(t);
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
    var btn = el("button", { type: "button", text: "copy" });
    btn.addEventListener("click", function () {
      var done = function () { btn.textContent = "copied"; setTimeout(function () { btn.textContent = "copy"; }, 1200); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () { selectText(pre); });
      else selectText(pre);
    });
    return el("div", {}, [el("div", { "class": "cmdrow" }, [el("span", { text: title }), btn]), pre]);
  }
  function selectText(node) {
    var r = document.createRange(); r.selectNodeContents(node);
    var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  function renderCommands(d) {
    var box = $("commands");
    box.innerHTML = "";
    var titles = { compare: "the same games with compare (save the variant as " + d.file_name + " first)",
                   simulate_base: "the rulings' games with simulate", simulate: "the variant's games with simulate" };
    Object.keys(d.commands).forEach(function (k) { box.appendChild(cmdBlock(titles[k] || k, d.commands[k], "cmd-" + k)); });
  }
  function tune() {
    post("/api/tune", settings()).then(function (res) {
      if (res.status !== 200) { showErrors(res.data.errors || {}); return; }
      download(res.data.file_name, res.data.toml);
      var box = $("tune-out");
      box.innerHTML = "";
      box.appendChild(cmdBlock("tune study written to your downloads as " + res.data.file_name + "; run it with", res.data.command, "cmd-tune"));
      var det = el("details", {}, [el("summary", { text: "the tune file" }), el("pre", { "class": "cmd", text: res.data.toml })]);
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
      if (w) { w.document.title = "Rule sheet"; var pre = w.document.createElement("pre"); pre.textContent = text; pre.style.whiteSpace = "pre-wrap"; w.document.body.appendChild(pre); w.print(); }
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
    fetch("/api/proposals").then(function (r) { return r.json(); }).then(function (d) {
      if (!d.proposals || !d.proposals.length) return;
      d.proposals.forEach(function (p) { $("proposal").appendChild(el("option", { value: p, text: p })); });
      $("proposal-box").hidden = false;
      $("proposal").addEventListener("change", function () {
        if (this.value) post("/api/load", { proposal: this.value }).then(loaded);
      });
    });
  }

  // ------------------------------------------------------------ start
  function start() {
    fetch("/api/schema").then(function (r) { return r.json(); }).then(function (sch) {
      state.schema = sch;
      var sc = sch.scenario;
      sc.mode.choices.forEach(function (m) { $("mode").appendChild(el("option", { value: m, text: m })); });
      $("mode").value = sc.mode["default"];
      $("players").value = sc.players["default"];
      sc.games.forEach(function (g) { $("games").appendChild(el("option", { value: g, text: g.toLocaleString("en") })); });
      $("games").value = sc.default_games;
      $("seed").value = 1;
      sc.strategies.forEach(function (s) { $("strategy-list").appendChild(el("option", { value: s })); });
      Object.keys(sch.panel_ranks).forEach(function (k) { $("panel-rank").appendChild(el("option", { value: k, text: sch.panel_ranks[k] })); });
      $("panel-games").textContent = sch.panel_games.toLocaleString("en");
      renderForm();
      renderSeats();
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
    window.addEventListener("pagehide", function () {
      if (navigator.sendBeacon) navigator.sendBeacon("/api/cancel", new Blob([JSON.stringify({ tab: TAB })], { type: "application/json" }));
    });
  }
  start();
})();
