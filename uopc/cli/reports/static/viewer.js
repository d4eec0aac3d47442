// uopc viewer: renders the JSON a `uopc ... --format json` command prints (embedded in the page as
// the element with id uopc-data) with plain DOM and SVG. No library, nothing fetched: the page works offline.
// The data is never changed here; everything shown is read from it.
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("uopc-data").textContent);
  const KIND = document.body.dataset.kind;
  const LIST_CAP = 200;      // states listed at once in a depth group or a search result
  const DAG_CAP = 400;       // nodes drawn in one DAG; a bigger graph is shown as text only
  const GRAPH_CAP = 200;     // states drawn in the state graph; a bigger exploration is listed by depth only

  // ---- DOM helpers
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "onclick" || k === "oninput" || k === "onchange") e.addEventListener(k.slice(2), v);
      else if (k === "class") e.className = v;
      else if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
    return e;
  }
  function put(parent, ...kids) { parent.append(...kids.flat().filter((k) => k !== null && k !== undefined)); }
  function section(title, ...kids) { return el("section", {}, el("h2", {}, title), ...kids); }
  // a stuck state may stand for many failing steps of its rule and exception type (its group counts them)
  function stuckSteps(d) { return d.stuck_groups ? d.stuck_groups.reduce((n, g) => n + g.count, 0) : d.stuck.length; }
  function termText(t, cls) { return el("div", { class: "term" + (cls ? " " + cls : "") }, t === null ? "(none)" : t); }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  // a verdict on two results' values in words, and verdicts counted by kind (uopc/smt/classify.py: verdict_words, kinds_text)
  const KIND_WORDS = { "semantic": "semantic", "syntactic": "syntactic (proved)", "no-difference-found": "no difference found", "unknown": "unknown" };
  function verdictWords(kind, detail) {
    if (!kind) return detail || "";
    const words = (KIND_WORDS[kind] || kind).replace(/ \(proved\)$/, "");
    return detail && detail.startsWith(words) ? detail : detail ? kind + ": " + detail : kind;
  }
  function kindsText(counts) {
    return Object.entries(counts || {}).filter(([, n]) => n > 0).map(([k, n]) => n + " " + (KIND_WORDS[k] || k)).join(", ");
  }
  function shortRule(rule) { if (!rule) return ""; const i = rule.indexOf(" "); return i < 0 || !rule.slice(0, i).includes("#") ? rule : rule.slice(i + 1); }

  // ---- terms: the one-line form (with its let names) parsed into a hash-consed DAG: one node per distinct subterm
  const INTERN = new Map();   // label and the keys of its sources -> a key shared by every term on the page
  function internKey(label, kidKeys) {
    const k = label + "\u0000" + kidKeys.join(",");
    let v = INTERN.get(k);
    if (v === undefined) { v = INTERN.size; INTERN.set(k, v); }
    return v;
  }
  function parseTerm(text) {
    if (typeof text !== "string" || text.includes("\u2026")) return null;   // a cut term: text only
    const nodes = [], byKey = new Map(), names = new Map();
    let i = 0;
    const n = text.length;
    function skip() { while (i < n && text[i] === " ") i++; }
    function balanced(open, close) {   // a literal tuple or list argument, kept as one leaf
      let d = 0;
      do { if (text[i] === open) d++; else if (text[i] === close) d--; i++; } while (i < n && d > 0);
    }
    function intern(label, kids) {
      const key = internKey(label, kids.map((k) => nodes[k].key));
      let id = byKey.get(key);
      if (id === undefined) { id = nodes.length; nodes.push({ id, key, label, kids }); byKey.set(key, id); }
      return id;
    }
    function node() {
      skip();
      const start = i;
      if (text[i] === "(") { balanced("(", ")"); return intern(text.slice(start, i), []); }
      if (text[i] === "'" || text[i] === '"') {
        const q = text[i++];
        while (i < n && text[i] !== q) i += text[i] === "\\" ? 2 : 1;
        i++;
        return intern(text.slice(start, i), []);
      }
      while (i < n && !"()[], ".includes(text[i])) i++;
      const label = text.slice(start, i);
      if (!label) throw new Error("term: expected a node at " + i);
      if (text[i] !== "[" && text[i] !== "(" && names.has(label)) return names.get(label);   // a let name: its node
      const kids = [];
      if (text[i] === "[") { i++; kids.push(node()); skip(); if (text[i++] !== "]") throw new Error("term: expected ]"); }
      if (text[i] === "(") {
        i++;
        skip();
        while (i < n && text[i] !== ")") { kids.push(node()); skip(); if (text[i] === ",") i++; skip(); }
        if (text[i++] !== ")") throw new Error("term: expected )");
      } else if (kids.length) throw new Error("term: expected (");
      return intern(label, kids);
    }
    function letNames() {   // let a = term, b = term in ...: each name its node
      if (!text.startsWith("let ")) return;
      i = 4;
      for (;;) {
        skip();
        const start = i;
        while (i < n && text[i] !== " " && text[i] !== "=") i++;
        const name = text.slice(start, i);
        skip();
        if (!name || text[i++] !== "=") throw new Error("term: expected name =");
        names.set(name, node());
        skip();
        if (text[i] === ",") { i++; continue; }
        if (text.startsWith("in ", i)) { i += 3; return; }
        throw new Error("term: expected , or in");
      }
    }
    try {
      letNames();
      const root = node();
      skip();
      return i === n ? { root, nodes, byKey } : null;
    } catch (e) { return null; }
  }
  function rootKey(text) { const g = text ? parseTerm(text) : null; return g ? g.nodes[g.root].key : null; }
  function treeText(g, id, limit) {   // a node's subterm written out, cut at limit characters (a tooltip)
    let out = "";
    const stack = [id];
    while (stack.length && out.length <= limit) {
      const x = stack.pop();
      if (typeof x === "string") { out += x; continue; }
      const nd = g.nodes[x];
      if (!nd.kids.length) { out += nd.label; continue; }
      const parts = [nd.label + "("];
      nd.kids.forEach((k, j) => { if (j) parts.push(", "); parts.push(k); });
      parts.push(")");
      for (let j = parts.length - 1; j >= 0; j--) stack.push(parts[j]);
    }
    return out.length > limit ? out.slice(0, limit) + "\u2026" : out;
  }

  // ---- format 2 (docs/visualize.md): each distinct node once in DATA.nodes, a row a leaf's text or its pieces (strings and
  // the rows of its sources); a graph is a row. nodeTexts(rows)(i) writes row i's graph in the let form, as uopc.term.show
  // does (the same names, in the same order: the page shows the text the Python loader reads back).
  const RESERVED = new Set((document.body.dataset.reserved || "").split(" "));
  function* letNames() {
    for (let n = 1; ; n++) {
      const idx = new Array(n).fill(0);
      for (;;) {
        const name = idx.map((k) => String.fromCharCode(97 + k)).join("");
        if (!RESERVED.has(name)) yield name;
        let j = n - 1;
        while (j >= 0 && idx[j] === 25) { idx[j] = 0; j--; }
        if (j < 0) break;
        idx[j]++;
      }
    }
  }
  function nodeTexts(rows) {
    const cache = new Map();
    function inline(x, named, top) {
      const out = [], stack = [x];
      while (stack.length) {
        const item = stack.pop();
        if (typeof item === "string") { out.push(item); continue; }
        if (named.has(item) && !(top && item === x)) { out.push(named.get(item)); continue; }
        const p = rows[item];
        if (typeof p === "string") { out.push(p); continue; }
        for (let j = p.length - 1; j >= 0; j--) stack.push(p[j]);
      }
      return out.join("");
    }
    return function text(root) {
      if (root === null || root === undefined) return null;
      if (cache.has(root)) return cache.get(root);
      const uses = new Map(), seen = new Set(), order = [], stack = [[root, false]];
      while (stack.length) {   // the distinct nodes, sources first, left to right; a source counted once per use
        const [x, ready] = stack.pop();
        if (ready) { order.push(x); continue; }
        if (seen.has(x)) continue;
        seen.add(x);
        stack.push([x, true]);
        const p = rows[x];
        if (typeof p === "string") continue;
        const kids = p.filter((c) => typeof c === "number");
        for (const c of kids) uses.set(c, (uses.get(c) || 0) + 1);
        for (let j = kids.length - 1; j >= 0; j--) stack.push([kids[j], false]);
      }
      const names = letNames(), named = new Map();
      for (const x of order) if ((uses.get(x) || 0) > 1 && typeof rows[x] !== "string") named.set(x, names.next().value);
      let t = inline(root, named, false);
      if (named.size) t = "let " + [...named.keys()].map((x) => named.get(x) + " = " + inline(x, named, true)).join(", ") + " in " + t;
      cache.set(root, t);
      return t;
    };
  }

  // A layered drawing: each node one box, on the layer of its longest distance from the root.
  function dagSvg(text, opts) {
    opts = opts || {};
    const g = parseTerm(text);
    if (!g) return el("div", { class: "muted" }, "(graph not drawn: the term is cut, or not in the one-line term form)");
    if (g.nodes.length > DAG_CAP) return el("div", { class: "muted" }, "(graph not drawn: " + g.nodes.length + " nodes)");
    const hl = new Set(), mark = new Map();
    const hk = rootKey(opts.highlight);
    if (hk !== null && g.byKey.has(hk)) hl.add(g.byKey.get(hk));
    if (opts.other) {   // the difference: nodes not in the other graph
      const o = parseTerm(opts.other);
      if (o) for (const nd of g.nodes) if (!o.byKey.has(nd.key)) mark.set(nd.id, opts.otherClass);
    }
    const layer = new Array(g.nodes.length).fill(0);
    const order = topoFromRoot(g);
    for (const id of order) for (const k of g.nodes[id].kids) layer[k] = Math.max(layer[k], layer[id] + 1);
    const rows = [];
    for (const id of order) (rows[layer[id]] = rows[layer[id]] || []).push(id);
    const W = (id) => Math.min(160, 8 + 7 * g.nodes[id].label.length), H = 20, GAP = 10, VGAP = 26;
    const pos = new Map(), users = new Map();
    for (const nd of g.nodes) for (const k of nd.kids) (users.get(k) || users.set(k, []).get(k)).push(nd.id);
    let width = 0;
    rows.forEach((row, r) => {
      // each row ordered by where its users sit (the rows above are placed): fewer crossing edges
      const key = (id) => { const us = users.get(id) || []; return us.reduce((a, u) => a + pos.get(u).x, 0) / Math.max(1, us.length); };
      if (r) row.sort((a, b) => key(a) - key(b));
      let x = GAP;
      for (const id of row) { pos.set(id, { x, y: GAP + r * (H + VGAP), w: W(id) }); x += W(id) + GAP; }
      width = Math.max(width, x);
    });
    const height = GAP + rows.length * (H + VGAP);
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "dag");
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("width", width);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", text);
    for (const nd of g.nodes) for (const k of nd.kids) {
      const a = pos.get(nd.id), b = pos.get(k), line = document.createElementNS(ns, "line");
      line.setAttribute("x1", a.x + a.w / 2); line.setAttribute("y1", a.y + H);
      line.setAttribute("x2", b.x + b.w / 2); line.setAttribute("y2", b.y);
      svg.append(line);
    }
    for (const nd of g.nodes) {
      const p = pos.get(nd.id), grp = document.createElementNS(ns, "g");
      grp.setAttribute("class", hl.has(nd.id) ? "hl" : (mark.get(nd.id) || ""));
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", p.x); rect.setAttribute("y", p.y); rect.setAttribute("width", p.w); rect.setAttribute("height", H);
      rect.setAttribute("rx", 4);
      const t = document.createElementNS(ns, "text");
      t.setAttribute("x", p.x + 4); t.setAttribute("y", p.y + 14);
      t.textContent = nd.label.length > 21 ? nd.label.slice(0, 20) + "\u2026" : nd.label;
      const title = document.createElementNS(ns, "title");
      title.textContent = treeText(g, nd.id, 200);
      grp.append(rect, t, title);
      svg.append(grp);
    }
    return svg;
  }
  function topoFromRoot(g) {   // users before sources (iterative: deep graphs)
    const out = [], seen = new Set(), stack = [[g.root, false]];
    while (stack.length) {
      const [id, done] = stack.pop();
      if (done) { out.push(id); continue; }
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push([id, true]);
      for (const k of g.nodes[id].kids) if (!seen.has(k)) stack.push([k, false]);
    }
    return out.reverse();
  }

  // ---- a path, step by step: a slider, the rule, before (rewritten node highlighted) and after (what is new)
  function stepper(steps, title, start) {
    const box = el("div", { class: "stepper" });
    if (!steps.length) { box.append(el("div", { class: "muted" }, "no steps")); return box; }
    const label = el("div", { class: "term stepinfo" });
    const sides = el("div", { class: "sides" });
    const slider = el("input", { type: "range", min: 1, max: steps.length, value: start || 1, class: "stepslider",
                                 "aria-label": (title || "path") + ": step" });
    function show() {
      const k = Number(slider.value), s = steps[k - 1];
      label.textContent = "step " + k + " of " + steps.length + ": " + (s.rule || "") + (s.node ? " @ " + s.node : "") +
                          (s.error ? "  ERROR: " + s.error : "");
      sides.replaceChildren(
        el("div", {}, el("div", { class: "muted" }, "before"), termText(s.before, "before"),
           dagSvg(s.before, { highlight: s.node, other: s.after, otherClass: "gone" })),
        el("div", {}, el("div", { class: "muted" }, "after"), termText(s.after, "after"),
           s.after ? dagSvg(s.after, { highlight: s.result, other: s.before, otherClass: "new" }) : null));
    }
    slider.addEventListener("input", show);
    box.append(slider, label, sides);
    show();
    return box;
  }

  // ---- explorations (reachable, normal-forms): states and edges
  function explorationView(d) {
    // A page of many states holds them in chunks (d.chunks, uopc/cli/reports/page.py): each parsed the first time one of its states,
    // or their steps, are needed; the overview is drawn from the chunks' summary. A small page holds them all in d.
    const lazy = d.chunks || null;
    const byId = new Map(), out = new Map(), loaded = new Set();
    function add(ss, es) {
      for (const s of ss) byId.set(s.id, s);
      for (const e of es) (out.get(e.from) || out.set(e.from, []).get(e.from)).push(e);
    }
    function loadChunk(k) {
      if (loaded.has(k) || !(k >= 0 && k < lazy.count)) return;   // a state past the chunks: not in this file
      loaded.add(k);
      const c = JSON.parse(document.getElementById("uopc-chunk-" + k).textContent);
      add(c.states, c.edges);
    }
    function state(id) { if (lazy) loadChunk(Math.floor(id / lazy.size)); return byId.get(id); }
    // a file cut short (its report stopped by a bound, docs/visualize.md) may name states it does not list
    function held(id) { return lazy ? Number.isInteger(id) && id >= 0 && id < lazy.states : byId.has(id); }
    const cutReport = d.report && d.report.complete === false ? d.report : null;
    const missingWhy = cutReport ? "the report lists only its first " + plural(cutReport.states, "state") + " (stopped by " +
      (cutReport.stopped_by || "a bound") + ")" : "the file does not list it";
    function stepsFrom(id) { state(id); return out.get(id) || []; }
    let all = null;
    function allStates() {   // every state, in id order (a page in chunks parses them all: a search, a rule filter)
      if (all) return all;
      if (lazy) for (let k = 0; k < lazy.count; k++) loadChunk(k);
      all = [...byId.values()].sort((a, b) => a.id - b.id);
      return all;
    }
    if (!lazy) add(d.states, d.edges);
    const T = d.format >= 2 ? nodeTexts(d.nodes) : null;
    const txt = (x) => (T ? T(x) : x);                    // a step's node or result: a row (format 2) or its text
    const termOf = (s) => (T ? T(s.graph) : s.term);      // a state's graph as text
    const cut = (t, n) => (t === null ? "(none)" : t.length > n ? t.slice(0, n - 1) + "\u2026" : t);
    const normal = new Set(d.normal_form_ids || []), stuck = new Set((d.stuck || []).map((s) => s.id));
    const cyc = lazy ? (d.cycles || []).map((c) => [...c.states].sort((a, b) => a - b)) : cycles(allStates(), out);
    const terminal = new Map((d.cycles || []).map((c) => [[...c.states].sort((a, b) => a - b).join(","), c.rules || []]));   // the JSON's
    const inspector = document.getElementById("inspector");
    const chips = new Map();
    let selected = null;

    function chip(id) {
      const s = lazy ? null : byId.get(id);   // a page in chunks: no term as a tooltip (it would parse the chunk)
      const cls = ["chip", held(id) ? "" : "missing", normal.has(id) ? "normal" : "", id === d.canonical_state ? "canonical" : "",
                   stuck.has(id) ? "stuck" : "", id === selected ? "selected" : ""].join(" ");
      const c = el("span", { class: cls, "data-state": id, title: s ? termOf(s) : held(id) ? "" : "not in this file", role: "button", tabindex: 0,
                             onclick: () => select(id) }, "#" + id);
      c.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(id); } });
      (chips.get(id) || chips.set(id, []).get(id)).push(c);
      return c;
    }
    function pathTo(id) {   // the path through the states' parents: the first way each was reached
      const ids = [];
      for (let s = state(id); s; s = s.parent === null ? null : state(s.parent)) ids.push(s.id);
      return ids.reverse();
    }
    function edgeInto(id) {
      const s = state(id);
      return s.parent === null ? null : stepsFrom(s.parent).find((e) => e.to === id) || null;
    }
    function stepsTo(id) {
      const ids = pathTo(id);
      return ids.slice(1).map((to, k) => {
        const e = edgeInto(to), s = state(to);
        return { rule: s.rule, node: txt(s.node), result: e ? txt(e.result) : null, before: termOf(state(ids[k])),
                 after: s.error ? null : termOf(s), error: s.error };
      });
    }
    function stepText(e) { return shortRule(e.rule) + ": " + cut(txt(e.node), 120) + " -> " + (e.error ? "error: " + e.error : cut(txt(e.result), 120)); }
    function select(id) {
      for (const c of chips.get(selected) || []) c.classList.remove("selected");
      selected = id;
      for (const c of chips.get(id) || []) c.classList.add("selected");
      for (const b of document.querySelectorAll("svg.states g.state")) b.classList.toggle("selected", Number(b.dataset.state) === id);
      if (!held(id)) {
        inspector.replaceChildren(section("state #" + id, el("div", { class: "muted", id: "missing-state" }, "not in this file: " + missingWhy)));
        return;
      }
      const s = state(id), e = edgeInto(id);
      const succ = collapse(stepsFrom(id));
      inspector.replaceChildren(
        section("state #" + id,
          el("div", { class: "muted" }, "depth " + s.depth + (normal.has(id) ? ", normal form" : "") +
             (id === d.canonical_state ? ", the canonical engine's result" : "") + (s.error ? ", stuck: " + s.error : "")),
          termText(termOf(s), "selected-term"),
          s.parent === null ? el("div", { class: "muted" }, "the program") :
            el("div", { class: "term" }, "reached from ", chip(s.parent), " by ", s.rule, " @ ", txt(s.node)),
          dagSvg(termOf(s), { highlight: e ? txt(e.result) : null, other: s.parent === null ? null : termOf(state(s.parent)),
                              otherClass: "new" })),
        section("path from the program (" + plural(s.depth, "step") + ")", el("div", {}, pathTo(id).map(chip)),
                stepper(stepsTo(id), "path to #" + id, s.depth)),   // opens on the step that reached the state
        section("next steps (" + plural(succ.length, "target") + ")",
                succ.map(([to, es]) => el("div", { class: "row next" }, chip(to), " by ",
                  es.map((x, k) => el("div", { class: "term step" + (k ? "" : " first") }, stepText(x)))))));
    }
    function collapse(edges) {   // parallel edges (same target) grouped, each step kept (its rule, node and result)
      const m = new Map();
      for (const e of edges) (m.get(e.to) || m.set(e.to, []).get(e.to)).push(e);
      return [...m.entries()];
    }

    // the overview: grouped by depth; a group lists its states (chip and term) only when opened
    const filterBox = el("input", { type: "search", id: "search", placeholder: "search: a term, a pattern with ?holes, or /regex/",
                                    "aria-label": "search states" });
    const rules = lazy ? lazy.rules : [...new Set(allStates().map((s) => s.rule).filter((r) => r))].sort();
    const ruleSel = el("select", { id: "rule-filter", "aria-label": "filter by rule" }, el("option", { value: "" }, "every rule"),
                       rules.map((r) => el("option", { value: r }, r)));
    const results = el("div", { id: "search-results" });
    function matching() {
      const test = patternTest(filterBox.value), rule = ruleSel.value;
      return allStates().filter((s) => (!rule || s.rule === rule) && (!test || test(termOf(s))));
    }
    function refresh() {
      for (const [id, list] of chips) {   // forget the chips the last refresh removed
        const live = list.filter((c) => c.isConnected);
        if (live.length) chips.set(id, live); else chips.delete(id);
      }
      if (!filterBox.value && !ruleSel.value) { results.replaceChildren(); depthView(null); return; }
      const found = matching();
      results.replaceChildren();
      put(results, el("div", { class: "muted" }, plural(found.length, "matching state") +
                              (found.length > LIST_CAP ? " (the first " + LIST_CAP + " listed)" : "")),
                              found.slice(0, LIST_CAP).map((s) => el("div", { class: "row" }, chip(s.id), " ", termOf(s))));
      depthView(found);
    }
    filterBox.addEventListener("input", refresh);
    ruleSel.addEventListener("change", refresh);
    const depths = el("div", { id: "depths" });
    function depthGroups(subset) {   // [depth, states, normal forms, forks, the states (a function: parsed when opened)]
      if (!subset && lazy) return lazy.depths.map(([depth, n, nf, forks, first, last]) => [depth, n, nf, forks, () => {
        const ss = [];
        for (let id = first; id <= last && ss.length < LIST_CAP; id++) { const s = state(id); if (s.depth === depth) ss.push(s); }
        return ss;
      }]);
      const groups = [];
      for (const s of subset || allStates()) (groups[s.depth] = groups[s.depth] || []).push(s);
      return groups.map((g, depth) => g && [depth, g.length, g.filter((s) => normal.has(s.id)).length,
                                            g.filter((s) => collapse(out.get(s.id) || []).length > 1).length, () => g.slice(0, LIST_CAP)])
                   .filter((g) => g);
    }
    function depthView(subset) {
      const groups = depthGroups(subset);
      const most = Math.max(1, ...groups.map((g) => g[1]));
      depths.replaceChildren();
      put(depths, groups.map(([depth, n, nf, forks, list]) => {
        const box = el("div", { class: "states", hidden: "" });
        const row = el("div", { class: "depthrow", "data-depth": depth, onclick: () => {
          if (box.hidden && !box.childElementCount) {
            box.append(...list().map((s) => el("div", { class: "row" }, chip(s.id), " ", el("span", { class: "term" }, cut(termOf(s), 100)))));
            if (n > LIST_CAP) box.append(el("span", { class: "muted" }, " and " + (n - LIST_CAP) + " more (search to narrow)"));
          }
          box.hidden = !box.hidden;
        } }, el("span", { class: "label" }, "depth " + depth + ": " + plural(n, "state") + (nf ? ", " + nf + " normal" : "") +
               (forks ? ", " + plural(forks, "fork") : "")),
          el("span", { class: "bar", style: "width:" + Math.max(2, Math.round(200 * n / most)) + "px" }));
        return el("div", {}, row, box);
      }));
    }
    depthView(null);

    const canonPath = d.canonical_state === null || d.canonical_state === undefined || !held(d.canonical_state) ? null
      : lazy ? lazy.canonical_path : pathTo(d.canonical_state);
    const overview = document.getElementById("overview");
    const nothing = !(lazy ? lazy.states : byId.size);
    put(overview,
      cutReport || nothing ? section(nothing ? "no state" : "a cut report", el("div", { class: "muted", id: "cut-report" },
        nothing ? "this file lists no state: " + (cutReport ? "the report was stopped by " + (cutReport.stopped_by || "a bound") + " before its first"
          : d.complete === false ? "the search was stopped by " + (d.stopped_by || d.bound || "a bound") + " before the program was explored"
          : "a whole exploration holds at least its program, state 0")
                : "this file lists " + plural(cutReport.states, "state") + " and " + plural(cutReport.edges, "step") + " of those found: " +
                  "the report was stopped by " + (cutReport.stopped_by || "a bound") +
                  "; a state it names past them is shown as not in this file")) : null,
      lazy ? section("a large exploration", el("div", { class: "muted", id: "chunked" }, plural(lazy.states, "state") + " and " +
        plural(lazy.edges, "step") + " in " + plural(lazy.count, "chunk") + " of " + lazy.size + " states, each read when one of " +
        "its states is shown; a search or a rule filter reads them all")) : null,
      section("program", termText(d.program, "program"), chip(0)),
      section(formsTitle(d, (d.normal_forms || []).length),
        (d.normal_form_ids || []).map((id, k) => el("div", { class: "row" }, chip(id), " ",
          el("span", { class: "term nf" }, d.normal_forms[k]), id === d.canonical_state ? "   \u2190 canonical" : ""))),
      section("canonical result", termText(d.canonical === null ? "none (" + d.canonical_error + ")" : d.canonical),
        canonPath ? el("div", {}, el("span", { class: "muted" }, "a shortest path to it: "), canonPath.map(chip))
                  : el("div", { class: "muted" }, d.canonical_state === null || d.canonical_state === undefined ? "not reached within the bounds"
                                                    : "reached: state #" + d.canonical_state + ", not in this file: " + missingWhy)),
      sampledSection(d), terminationSection(d),
      nothing ? null : section("state graph", !lazy && byId.size <= GRAPH_CAP ? stateGraph() : el("div", { class: "muted", id: "no-state-graph" },
        "not drawn: " + plural(lazy ? lazy.states : byId.size, "state") + " (up to " + GRAPH_CAP + " are); the depth rows below list them")),
      cyc.length ? section((lazy ? "terminal cycles (" : "cycles (") + cyc.length + ")", cyc.slice(0, 50).map((c) => el("div", { class: "row" },
        plural(c.length, "state") + ": ", c.slice(0, 20).map(chip), c.length > 20 ? " \u2026" : "",
        terminal.has(c.join(",")) ? el("span", { class: "muted terminal" }, "  terminal (no step leaves it); rules: " +
          terminal.get(c.join(",")).map(shortRule).join(", ")) : null))) : null,
      (d.stuck || []).length ? section("stuck steps (" + stuckSteps(d) + ")", d.stuck_groups ? d.stuck_groups.map((g) => el("div", { class: "row" },
        // grouped, one row per rule and exception type (a saved file from before the groups lists each step)
        g.count + "\u00d7 " + g.rule + " raised " + g.error_type + ", e.g. ", chip(g.example.id), " @ " + txt(g.example.node) + ": " + g.example.error))
        : d.stuck.map((s) => el("div", { class: "row" }, chip(s.id), " " + s.rule + " @ " + txt(s.node) + ": " + s.error))) : null,
      section("all states by depth", el("div", { class: "controls" }, filterBox, ruleSel),
        el("div", { class: "muted" }, "search: a term with ?holes (add(?x, 0); _ matches anything, the same ?name twice one node) finds the " +
           "states with a subterm of that shape; other text matches a substring of the term; /.../ is a regular expression"), results, depths));
    if (nothing) inspector.replaceChildren(section("no state", el("div", { class: "muted" }, "nothing to inspect: this file lists no state")));
    else select(0);

    // The state graph of a small exploration, as Redex's traces draws it: a box per state (its term), an arrow per step
    // (parallel steps one arrow, their rules' short names as its label), layered by depth; the canonical path, the normal
    // forms and the canonical result marked. A box selects its state.
    function stateGraph() {
      const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
      const mk = (tag, attrs, text) => {
        const e = document.createElementNS(ns, tag);
        for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
        if (text !== undefined) e.textContent = text;
        return e;
      };
      const ss = allStates(), rows = [], pos = new Map(), H = 22, GAP = 14, VGAP = 46, M = 10;
      for (const s of ss) (rows[s.depth] = rows[s.depth] || []).push(s);
      const label = (s) => "#" + s.id + " " + cut(s.error ? "stuck: " + s.error : termOf(s), 36);
      const width = (s) => 10 + 6.6 * label(s).length;
      let W = 0;
      rows.forEach((row, r) => {   // each row in the order of its parents' places: fewer crossing arrows
        if (!row) return;
        const key = (s) => (s.parent === null || !pos.has(s.parent) ? 0 : pos.get(s.parent).x);
        if (r) row.sort((a, b) => key(a) - key(b) || a.id - b.id);
        let x = M;
        for (const s of row) { pos.set(s.id, { x, y: M + r * (H + VGAP), w: width(s) }); x += width(s) + GAP; }
        W = Math.max(W, x);
      });
      let Hh = M + rows.length * (H + VGAP);
      svg.setAttribute("class", "states");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "the state graph: " + plural(ss.length, "state"));
      const defs = mk("defs", {});
      for (const [id, cls] of [["uopc-arrow", "head"], ["uopc-arrow-canon", "head canon"]]) {
        const m = mk("marker", { id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
        m.append(mk("path", { d: "M 0 0 L 10 5 L 0 10 z", class: cls }));
        defs.append(m);
      }
      svg.append(defs);
      // Each arrow's label goes where it overlaps no label placed before it and no state's box: the first free place along
      // its arrow (from the middle outwards, right or left of it), else the nearest free one above or below the middle.
      const placed = ss.map((s) => { const p = pos.get(s.id); return { left: p.x, top: p.y, right: p.x + p.w, bottom: p.y + H, box: true }; });
      const measure = document.createElement("canvas").getContext("2d");
      measure.font = "10px ui-monospace, monospace";   // svg.states g.step text.rule's font (viewer.css)
      const PAD = 2, ALONG = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.45, 0.55, 0.35, 0.65, 0.25, 0.75];
      const NEAR = [];   // offsets from the arrow's middle, nearest first
      for (const dx of [0, -20, 20, -40, 40, -80, 80, -120, 120]) for (let dy = -48; dy <= 48; dy += 6) NEAR.push([dx, dy]);
      NEAR.sort((p, q) => Math.abs(p[0]) / 2 + Math.abs(p[1]) - Math.abs(q[0]) / 2 - Math.abs(q[1]));
      function placeLabel(c, text) {
        const m = measure.measureText(text), w = m.width;
        const up = Math.max(10, m.fontBoundingBoxAscent || 0), down = Math.max(3, m.fontBoundingBoxDescent || 0);
        const at = (t) => { const u = 1 - t; return [u * u * u * c[0] + 3 * u * u * t * c[2] + 3 * u * t * t * c[4] + t * t * t * c[6],
                                                     u * u * u * c[1] + 3 * u * u * t * c[3] + 3 * u * t * t * c[5] + t * t * t * c[7]]; };
        const boxAt = (x, y) => ({ left: x - PAD, top: y - up - PAD, right: x + w + PAD, bottom: y + down + PAD });
        const free = (b, boxes) => b.top >= 0 && b.left >= 0 && !placed.some((o) => (boxes || !o.box) && b.left < o.right && o.left < b.right &&
                                                                                  b.top < o.bottom && o.top < b.bottom);
        const take = (x, y) => { const box = boxAt(x, y); placed.push(box); return { x, y, box }; };
        for (const t of ALONG) for (const dy of [0, -6, 6]) for (const side of [1, -1]) {
          const [px, py] = at(t), x = side > 0 ? px + 3 : px - 3 - w, y = py + 4 + dy;
          if (free(boxAt(x, y), true)) return take(x, y);
        }
        const [px, py] = at(0.5);
        for (const [dx, dy] of NEAR) if (free(boxAt(px + 3 + dx, py + 4 + dy), true)) return take(px + 3 + dx, py + 4 + dy);
        const step = up + down + 2 * PAD + 1;   // else over a state's box if need be, never over a label: below them all at worst
        for (let k = 1; ; k++) for (const y of [py + 4 - k * step, py + 4 + k * step]) if (free(boxAt(px + 3, y), false)) return take(px + 3, y);
      }
      const canon = new Set();
      if (canonPath) canonPath.slice(1).forEach((to, k) => canon.add(canonPath[k] + ">" + to));
      for (const s of ss) for (const [to, es] of collapse(out.get(s.id) || [])) {
        const a = pos.get(s.id), b = pos.get(to);
        if (!b) continue;
        const onCanon = canon.has(s.id + ">" + to), g = mk("g", { class: "step" + (onCanon ? " canon" : "") + (es.some((e) => e.error) ? " error" : ""),
                                                               "data-from": s.id, "data-to": to });
        let c;   // the arrow, a cubic curve: from, two control points, to
        if (to === s.id) {   // a step to itself: a loop on the right
          const x = a.x + a.w, y = a.y + H / 2;
          c = [x, y - 5, x + 30, y - 25, x + 30, y + 25, x, y + 5];
        } else if (b.y > a.y) {   // down a layer or more
          const x1 = a.x + a.w / 2, y1 = a.y + H, x2 = b.x + b.w / 2, y2 = b.y;
          c = [x1, y1, x1, y1 + VGAP / 2, x2, y2 - VGAP / 2, x2, y2];
        } else {   // back up (a cycle) or sideways: a curve beside the boxes
          const x1 = a.x + a.w, y1 = a.y + H / 2, x2 = b.x + b.w, y2 = b.y + H / 2, bend = Math.max(x1, x2) + 40;
          c = [x1, y1, bend, y1, bend, y2, x2, y2];
        }
        const rulesText = cut([...new Set(es.map((e) => shortRule(e.rule)))].join("; "), 40);
        const at = placeLabel(c, rulesText);
        g.append(mk("path", { d: "M " + c[0] + " " + c[1] + " C " + c[2] + " " + c[3] + ", " + c[4] + " " + c[5] + ", " + c[6] + " " + c[7],
                              "marker-end": "url(#" + (onCanon ? "uopc-arrow-canon" : "uopc-arrow") + ")" }),
                 mk("text", { x: at.x, y: at.y, class: "rule" }, rulesText),
                 mk("title", {}, es.map(stepText).join("\n")));
        svg.append(g);
        W = Math.max(W, c[2] + M, c[4] + M, at.box.right + M);
        Hh = Math.max(Hh, at.box.bottom + M);
      }
      svg.setAttribute("viewBox", "0 0 " + W + " " + Hh);
      svg.setAttribute("width", W);
      svg.setAttribute("height", Hh);
      for (const s of ss) {
        const p = pos.get(s.id);
        const cls = ["state", normal.has(s.id) ? "normal" : "", s.id === d.canonical_state ? "canonical" : "", stuck.has(s.id) ? "stuck" : "",
                     canonPath && canonPath.includes(s.id) ? "on-canon" : "", s.id === 0 ? "program" : ""].join(" ");
        const g = mk("g", { class: cls, "data-state": s.id, role: "button", tabindex: 0 });
        g.append(mk("rect", { x: p.x, y: p.y, width: p.w, height: H, rx: 4 }),
                 mk("text", { x: p.x + 5, y: p.y + 15 }, label(s)), mk("title", {}, "#" + s.id + " " + termOf(s)));
        g.addEventListener("click", () => select(s.id));
        g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(s.id); } });
        svg.append(g);
      }
      return el("div", { class: "stategraph" }, el("div", { class: "muted" }, "normal forms doubled, the canonical result filled, " +
        "the canonical path in green; click a state"), svg);
    }
  }

  // The cycles: strongly connected components with more than one state, or a state with a step to itself.
  function cycles(states, out) {
    const index = new Map(), low = new Map(), onStack = new Set(), stack = [], comps = [];
    let next = 0;
    for (const s of states) {
      if (index.has(s.id)) continue;
      const work = [[s.id, 0]];
      index.set(s.id, next); low.set(s.id, next); next++; stack.push(s.id); onStack.add(s.id);
      while (work.length) {
        const top = work[work.length - 1], [v, i] = top, es = out.get(v) || [];
        if (i < es.length) {
          top[1]++;
          const w = es[i].to;
          if (!index.has(w)) { index.set(w, next); low.set(w, next); next++; stack.push(w); onStack.add(w); work.push([w, 0]); }
          else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
          continue;
        }
        work.pop();
        if (work.length) { const u = work[work.length - 1][0]; low.set(u, Math.min(low.get(u), low.get(v))); }
        if (low.get(v) === index.get(v)) {
          const comp = [];
          let w;
          do { w = stack.pop(); onStack.delete(w); comp.push(w); } while (w !== v);
          if (comp.length > 1 || es.some((e) => e.to === v)) comps.push(comp.sort((a, b) => a - b));
        }
      }
    }
    return comps;
  }

  // A search box's text as a test of a term: "/re/" a regular expression; a term with ?holes (or _) that parses,
  // a structural match of any subterm (the same ?name twice: one node); else a plain substring (or, with holes that
  // do not parse yet, the text with each hole matching any text).
  const parsed = new Map();   // term text -> its DAG, parsed once
  function parsedTerm(text) { if (!parsed.has(text)) parsed.set(text, parseTerm(text)); return parsed.get(text); }
  function patternTest(text) {
    text = text.trim();
    if (!text) return null;
    const m = /^\/(.*)\/$/.exec(text);
    if (m) { let re; try { re = new RegExp(m[1]); } catch (e) { re = /$^/; } return (t) => re.test(t); }
    const holes = /\?\w+|\b_\b/.test(text), pat = holes ? parseTerm(text) : null;
    if (pat) return (t) => { const g = parsedTerm(t); return g ? g.nodes.some((nd) => matchAt(pat, pat.root, g, nd.id, new Map())) : false; };
    if (!holes) return (t) => t.includes(text);
    const parts = text.split(/(\?\w+|\b_\b)/);
    const re = new RegExp(parts.map((p, k) => (k % 2 ? ".+?" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join(""));
    return (t) => re.test(t);
  }
  function matchAt(pat, pid, g, gid, binds) {   // iterative: a pattern can be as deep as its text
    const work = [[pid, gid]];
    while (work.length) {
      const [p, n] = work.pop(), pn = pat.nodes[p], gn = g.nodes[n];
      if (pn.label === "_") continue;
      if (pn.label[0] === "?") {
        if (binds.has(pn.label) && binds.get(pn.label) !== n) return false;
        binds.set(pn.label, n);
        continue;
      }
      if (pn.label !== gn.label || pn.kids.length !== gn.kids.length) return false;
      pn.kids.forEach((k, i) => work.push([k, gn.kids[i]]));
    }
    return true;
  }

  // A value of a key no view knows, as text to read, not JSON: a list of plain values comma-separated, records and
  // lists of them nested a few levels, long ones cut (the JSON holds all of it).
  function readable(v, depth) {
    const plain = (x) => x === null || typeof x !== "object";
    const text = (x) => (x === null ? "none" : typeof x === "string" ? (x.length > 200 ? x.slice(0, 199) + "\u2026" : x) : String(x));
    if (plain(v)) return el("span", { class: "value" }, text(v));
    const items = Array.isArray(v) ? v.map((x, k) => [null, x, k]) : Object.entries(v).map(([k, x]) => [k, x]);
    if (!items.length) return el("span", { class: "value muted" }, Array.isArray(v) ? "(none)" : "(empty)");
    const shown = items.slice(0, 20), more = items.length > 20 ? "\u2026 and " + (items.length - 20) + " more" : null;
    if (Array.isArray(v) && v.every(plain)) {
      return el("span", { class: "value" }, shown.map(([, x]) => text(x)).join(", ") + (more ? ", " + more : ""));
    }
    if (depth >= 3) return el("span", { class: "value muted" }, Array.isArray(v) ? plural(v.length, "item") : plural(items.length, "field"));
    return el("ul", { class: "value" },
              shown.map(([k, x]) => el("li", {}, k === null ? null : el("span", { class: "key" }, k + ": "), readable(x, depth + 1))),
              more ? el("li", { class: "muted" }, more) : null);
  }

  // ---- the other reports
  // a count only where the search was exhaustive (a bounded one may have missed forms), and the forms random runs found after a bound, each with its path
  function formsTitle(d, n) { return d.complete === false ? "normal forms found (" + n + "; there may be more: the space was not exhausted)" : "normal forms (" + n + ")"; }
  function sampledSection(d) {
    const sf = d.sampled_normal_forms || [];
    if (!d.sampling) return null;
    return section("sampled normal forms (" + sf.length + " in " + plural(d.sampling.runs, "random run") + ", seed " + d.sampling.seed + ")",
      sf.length ? sf.slice(0, 50).map((f, k) => el("details", { class: "sampled" }, el("summary", { class: "term nf" }, "[" + (k + 1) + "] " + f.term),
        stepper(f.path, "sampled run " + (k + 1)))) : el("div", { class: "muted" }, "no run reached a normal form"));
  }

  // Whether every rule order terminates (uopc/cli/reports/termination.py): the loop, a shortest path into it, the engine's runs
  function terminationSection(d) {
    const t = d.termination;
    if (!t) return null;
    const loop = t.loop;
    return section("termination", el("div", { class: t.terminates === false ? "verdict" : "muted" }, t.text),
      loop ? el("div", { class: "muted" }, "a shortest path into a cycle (" + (loop.path.length ? plural(loop.path.length, "step") : "the program lies on it") +
        "), to state #" + loop.entry_state) : null,
      loop && loop.path.length ? stepper(loop.path, "path into the cycle") : null,
      loop ? el("div", { class: "term loop-rules" }, "the cycle (" + plural(loop.cycle.length, "step") + ", in a component of " +
        plural(loop.component_states, "state") + "); rules: " + loop.rules.join("; ")) : null,
      loop ? stepper(loop.cycle, "the cycle") : null,
      (t.strategies || []).map((s) => el("div", { class: "term strategy" }, s.label + ": " + s.outcome + " (" + s.detail + ")" +
        (s.through_cycle ? (s.outcome === "terminates" ? "; its path passes through states on a cycle and leaves it" : "; its path reaches a state on a cycle") : ""))));
  }

  function orderView(d) {
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    const inForms = Number.isInteger(d.canonical_index) && d.canonical_index >= 0 && d.canonical_index < d.normal_forms.length;
    put(ov,
      d.verdict_text || d.basis ? section("verdict", d.verdict_text ? el("div", { class: "verdict" }, d.verdict_text +
        (kindsText(d.fork_kinds) ? " (" + kindsText(d.fork_kinds) + ")" : "")) : null,
        d.basis ? el("div", { class: "muted basis" }, d.basis) : null) : null,
      section("program", termText(d.program, "program"), dagSvg(d.program)),
      section(formsTitle(d, d.normal_forms.length), d.normal_forms.map((t, k) =>
        el("div", { class: "row" }, "[" + (k + 1) + "] ", el("span", { class: "term nf" }, t), k === d.canonical_index ? "   \u2190 canonical" : ""))),
      inForms ? null : section("canonical result",
        termText(d.canonical === null || d.canonical === undefined ? "none (" + d.canonical_error + ")" : d.canonical),
        d.canonical ? el("div", { class: "muted" }, "not among the normal forms found") : null),
      section("canonical path (" + plural(d.canonical_path.length, "step") + (d.canonical_path_complete ? "" : ", incomplete") + ")",
        stepper(d.canonical_path, "canonical path")),
      (d.cycles || []).length ? section("terminal cycles (" + d.cycles.length + ")", d.cycles.slice(0, 50).map((c) => el("div", { class: "term" },
        plural(c.states.length, "state") + ": " + c.states.slice(0, 20).map((id) => "#" + id).join(" ") + (c.states.length > 20 ? " \u2026" : "") +
        "; rules: " + (c.rules || []).map(shortRule).join(", ")))) : null,
      terminationSection(d),
      d.permutations ? section("other rule orders: " + d.permutations.tried + " tried, " + d.permutations.changed.length + " change the result",
        d.permutations.changed.map((t) => el("div", { class: "term" }, t.label + " \u2192 " + (t.result || "error: " + t.error)))) : null);
    const forks = d.forks || [];
    function showFork(k) {
      const f = forks[k];
      insp.replaceChildren(section("fork to [" + (f.normal_form_index + 1) + "]: " + verdictWords(f.kind, f.detail),
        el("div", { class: "muted" }, "at state #" + f.fork_state), termText(f.fork_term, "fork-term"),
        dagSvg(f.fork_term, { highlight: f.node }),
        el("div", { class: "term" }, "node: " + f.node),
        el("div", { class: "sides" },
          el("div", {}, el("h2", {}, "canonical: " + (f.canonical_rule || "(cut short by a bound)")),
             stepper(f.canonical_path, "canonical path from the fork")),
          el("div", {}, el("h2", {}, "competing: " + f.competing_rule), stepper(f.competing_path, "competing path from the fork")))));
    }
    put(ov, section("forks (" + forks.length + ")", forks.length ? forks.map((f, k) => el("div", { class: "row fork", onclick: () => showFork(k) },
      "[" + (f.normal_form_index + 1) + "] " + (KIND_WORDS[f.kind] || f.kind) + ": ", el("span", { class: "term" }, f.normal_form)))
      : el("div", { class: "muted" }, d.verdict_text || "no fork found")), sampledSection(d),
      d.sampled_witness ? section("witness (sampled): " + verdictWords(d.sampled_witness.kind, d.sampled_witness.detail),
        el("div", { class: "term nf" }, d.sampled_witness.normal_form), stepper(d.sampled_witness.path, "the run")) : null);
    if (forks.length) showFork(0);
  }

  function searchView(d) {
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    put(ov, section(d.to !== undefined ? "programs" : "program", termText(d.program, "program"),
                      d.to !== undefined ? termText(d.to, "program") : null),
              section(d.target !== undefined ? "target" : "meeting", termText(d.target !== undefined ? d.target : d.meeting)),
              section("result", el("div", {}, d.found ? "found (" + plural(d.length ?? d.path.length, "step") + ")" : "not found" +
                      (d.bound ? " (stopped by " + d.bound + ")" : "")),
                      el("div", { class: "muted searched" }, "searched " + plural(d.searched, "graph") +
                        (d.searched_a !== undefined ? " (" + d.searched_a + " from a, " + d.searched_b + " from b)" : "")),
                      Object.entries(d.bindings || {}).map(([k, v]) => el("div", { class: "term" }, "?" + k + " = " + v))),
              (d.stuck || []).length ? section("stuck steps (" + stuckSteps(d) + ")", d.stuck_groups ? d.stuck_groups.map((g) =>
                el("div", { class: "term stuck" }, g.count + "\u00d7 " + g.rule + (g.location ? " (" + g.location + ")" : "") + " raised " +
                   g.error_type + ", e.g. @ " + g.example.node + ": " + g.example.error)) : d.stuck.map((x) =>
                el("div", { class: "term stuck" }, x.rule + (x.location ? " (" + x.location + ")" : "") + " @ " + x.node + ": " + x.error))) : null);
    if (d.paths) put(insp, section("from a", stepper(d.paths.from_a, "from a")), section("from b", stepper(d.paths.from_b, "from b")));
    else if (d.matches) put(insp, d.matches.slice(0, 50).map((m, k) => section("match " + (k + 1) + ": " + m.graph, stepper(m.path, "match " + (k + 1)))),
                            d.matches.length > 50 ? el("div", { class: "muted" }, "and " + (d.matches.length - 50) + " more matches (in the JSON)") : null);
    else put(insp, section("path", d.graph ? termText(d.graph) : null, stepper(d.path, "path")));
  }

  function pairsView(d) {
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    function showPair(k) {
      const p = d.pairs[k];
      insp.replaceChildren(section(p.rules.join("  \u00d7  "),
        el("div", { class: "status-" + p.status }, p.status + ": " + p.how),
        el("div", { class: "term" }, "overlap: " + p.overlap), el("div", { class: "muted" }, "witness"), termText(p.witness, "witness"),
        p.witness ? dagSvg(p.witness) : null,
        p.error ? el("div", { class: "term" }, p.error_rule + " raised " + p.error) : null,
        p.verdict ? el("div", { class: "verdict verdict-" + p.verdict }, "values: " + verdictWords(p.verdict, p.verdict_detail)) : null,
        el("div", { class: "sides" }, p.results.map((r, i) => el("div", {}, el("div", { class: "muted" }, "by " + p.rules[i]),
          termText(r), r ? dagSvg(r, { other: p.results[1 - i], otherClass: "new" }) : null,
          p.normal_forms[i] && p.normal_forms[i] !== r ? el("div", { class: "term" }, "normal form: " + p.normal_forms[i]) : null)))));
    }
    const statuses = [...new Set(d.pairs.map((p) => p.status))];
    const sel = el("select", { id: "rule-filter", "aria-label": "filter by status" }, el("option", { value: "" }, "every status"),
                   statuses.map((s) => el("option", { value: s }, s)));
    const search = el("input", { type: "search", id: "search", placeholder: "search rules, overlaps, witnesses", "aria-label": "search pairs" });
    const body = el("tbody");
    function refresh() {
      const test = patternTest(search.value);
      body.replaceChildren(...d.pairs.map((p, k) => [p, k]).filter(([p]) => (!sel.value || p.status === sel.value) &&
        (!test || test(p.rules.join(" ") + " " + p.overlap + " " + (p.witness || "")))).map(([p, k]) =>
        el("tr", { class: "clickable", onclick: () => showPair(k) }, el("td", { class: "status-" + p.status }, p.status),
           el("td", {}, p.rules.map(shortRule).join(" \u00d7 ")), el("td", { class: "term" }, p.overlap),
           el("td", { class: "verdict-" + (p.verdict || "none") }, p.verdict || ""))));
    }
    search.addEventListener("input", refresh);
    sel.addEventListener("change", refresh);
    put(ov, section("summary", el("div", {}, d.summary.line), d.summary.verdicts_line ? el("div", { class: "verdicts" }, d.summary.verdicts_line) : null),
              (d.skipped_rules || []).length ? section("rules not analyzed (" + d.skipped_rules.length + ")", d.skipped_rules.map((x) =>
                el("div", { class: "term skipped" }, x.rule + ": " + x.reason))) : null,
              section("pairs", el("div", { class: "controls" }, search, sel), el("table", {}, body)));
    refresh();
    const first = d.pairs.findIndex((p) => p.status !== "joinable");
    if (d.pairs.length) showPair(first < 0 ? 0 : first);
  }

  function checkView(d) {   // uopc check: one row per finding (a cause), the smallest example and the corpus line that has it
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    function showFinding(k) {
      const f = d.findings[k];
      insp.replaceChildren(section(f.kind + ": " + f.title, el("div", {}, f.graphs + " graphs, " + f.steps + " steps" +
          (f.new === true ? " (new: not in the baseline)" : f.new === false ? " (in the baseline)" : "")),
        el("div", { class: "muted" }, "example"), termText(f.example), el("div", { class: "muted" }, "key: " + f.key),
        el("div", { class: "muted" }, "reproducer: line " + (f.entry + 2) + " of the corpus"),
        f.minimized ? section("minimized", termText(f.minimized), dagSvg(f.minimized)) : null));
    }
    const body = el("tbody");
    body.replaceChildren(...d.findings.map((f, k) => el("tr", { class: "clickable", onclick: () => showFinding(k) },
      el("td", {}, (f.new ? "NEW " : "") + f.kind), el("td", {}, f.title), el("td", {}, String(f.graphs)))));
    const undecided = Object.entries(d.undecided || {}).map(([k, v]) => k + " " + v).join(", ");
    put(ov, section("summary", el("div", {}, d.checked + " of " + d.graphs + " graphs checked, " + d.states + " states, " +
                                      d.findings.length + " findings" + (undecided ? "; undecided: " + undecided : ""))),
        (d.undecided_examples || []).length ? section("undecided (smallest)", d.undecided_examples.map((x) =>
          el("div", { class: "term" }, "line " + (x.entry + 2) + ": " + x.graph))) : null,
        section("findings", el("table", {}, body)));
    if (d.findings.length) showFinding(0);
  }

  function traceView(d) {
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    put(ov, section("program", termText(d.program, "program"), dagSvg(d.program)),
              section("result" + (d.error ? " (failed)" : ""), termText(d.result === null ? "none (" + d.error + ")" : d.result, "result"),
                      d.result ? dagSvg(d.result) : null),
              section("firings (" + d.steps.length + ")", d.steps.map((s, k) =>
                el("div", { class: "term" }, k + 1 + ". " + s.rule + ": " + s.node + " \u2192 " + s.result))));
    put(insp, section("each rewrite of graph_rewrite, step by step", stepper(d.steps, "canonical engine")));
  }

  function bestView(d) {   // uopc saturate and uopc explore best: the cheapest graph, its cost, and how it is reached
    const ov = document.getElementById("overview"), insp = document.getElementById("inspector");
    const stats = d.iterations !== undefined
      ? "saturation: " + (d.complete ? "saturated" : "stopped by " + d.stop) + " after " + plural(d.iterations, "iteration") + "; " +
        d.enodes + " e-nodes in " + d.eclasses + " e-classes; " + d.applied + " rule results added (" + d.matches + " matches, " +
        d.rejected + " rejected)" + (d.native === undefined ? "" : d.native ? " in saturation's C core" : " in the Python loop") +
        "; reachability searched " + plural(d.reach_searched, "graph") + (d.reach_stopped_by ? " (stopped by " + d.reach_stopped_by + ")" : "")
      : "searched " + plural(d.seen, "graph") + " (" + d.expanded + " expanded)" + (d.complete ? "" : "; stopped by " + d.bound);
    const reach = d.reachable === undefined ? null
      : el("div", {}, "reachable by rewriting: " + (d.reachable === true ? "yes" : d.reachable === false ? "no, only equal" : "unknown"));
    put(ov, section("program", termText(d.program, "program"), dagSvg(d.program)),
              section("best (cost " + d.cost + ", " + d.cost_function + ")", termText(d.best, "normal-form"), dagSvg(d.best, { other: d.program, otherClass: "new" })),
              section("canonical (cost " + (d.canonical_cost ?? "none") + ")", termText(d.canonical === null ? "none (" + d.canonical_error + ")" : d.canonical),
                      d.canonical ? dagSvg(d.canonical) : null),
              section("search", el("div", { class: "muted" }, stats), reach,
                      (d.conflicts || []).map((c) => el("div", { class: "term" }, "refused: " + c))));
    put(insp, section("path to the best graph", d.path && d.path.length ? stepper(d.path, "path") : el("div", { class: "muted" }, "no path")));
  }

  const summary = document.getElementById("summary");
  const reportCut = DATA.report && DATA.report.complete === false ? DATA.report : null;   // a report whose detail a bound cut
  summary.textContent = [DATA.rules || DATA.ruleset ? "rules " + (DATA.rules || DATA.ruleset) : "",
    Array.isArray(DATA.states) ? plural(DATA.states.length, "state") + ", " + plural((DATA.edges || []).length, "edge") :
      DATA.chunks ? plural(DATA.chunks.states, "state") + ", " + plural(DATA.chunks.edges, "edge") :
      typeof DATA.states === "number" ? plural(DATA.states, "state") + " explored" : "",
    DATA.complete === false ? "incomplete: stopped by " + (DATA.stopped_by || DATA.bound) +
      (!DATA.stopped_by && DATA.bounds && DATA.bounds[DATA.bound] ? " (" + DATA.bounds[DATA.bound] + ")" : "") : "",
    reportCut ? "the report lists " + plural(reportCut.states, "state") + " and " + plural(reportCut.edges, "edge") + " (cut by " +
      (reportCut.stopped_by || "a bound") + ")" : "",
    DATA.reduced === true && ["reachable", "normal-forms", "order"].includes(KIND)
      ? "reduced: one persistent set of steps per state, so every normal form but not every graph" : "",
    typeof DATA.elapsed === "number" ? DATA.elapsed + " s" : ""].filter((x) => x).join("; ");
  // The paths of order, search, best and saturate (format 2) name graphs by row: the views read a copy with their texts
  // (the sampled runs' paths, uopc/cli/reports/sampled.py, are texts).
  function pathTexts(d) {
    if (!(d.format >= 2) || !Array.isArray(d.nodes) || KIND === "reachable" || KIND === "normal-forms") return d;
    const T = nodeTexts(d.nodes);
    const steps = (p) => (Array.isArray(p) ? p.map((x) => Object.assign({}, x, { node: T(x.node), result: T(x.result),
                                                                                 before: T(x.before), after: T(x.after) })) : p);
    const v = Object.assign({}, d, { canonical_path: steps(d.canonical_path), path: steps(d.path) });
    if (Array.isArray(d.forks)) v.forks = d.forks.map((f) => Object.assign({}, f, { canonical_path: steps(f.canonical_path), competing_path: steps(f.competing_path) }));
    if (Array.isArray(d.matches)) v.matches = d.matches.map((m) => Object.assign({}, m, { path: steps(m.path) }));
    if (d.termination && d.termination.loop) v.termination = Object.assign({}, d.termination, {
      loop: Object.assign({}, d.termination.loop, { path: steps(d.termination.loop.path), cycle: steps(d.termination.loop.cycle) }) });
    if (d.paths && d.paths.from_a) v.paths = { from_a: steps(d.paths.from_a), from_b: steps(d.paths.from_b) };
    return v;
  }
  const views = { reachable: explorationView, "normal-forms": explorationView, order: orderView, search: searchView,
                  pairs: pairsView, trace: traceView, saturate: bestView, best: bestView, check: checkView };
  (views[KIND] || explorationView)(pathTexts(DATA));
  // The keys each view draws (the header draws COMMON's); any other key (a newer command's, say) is still shown, as readable text.
  const COMMON = ["format", "nodes", "chunks", "rules", "ruleset", "complete", "bound", "bounds", "stopped_by", "report", "elapsed"];
  const EXPLORED = ["reduced", "program", "states", "edges", "normal_forms", "normal_form_ids", "stuck", "canonical", "canonical_state",
                    "stuck_groups", "canonical_error", "paths", "cycles", "exhaustive", "sampled_normal_forms", "sampling", "termination"];
  const BEST = ["program", "best", "cost", "cost_function", "canonical", "canonical_cost", "canonical_error", "reachable", "path"];
  const DRAWN = { reachable: EXPLORED, "normal-forms": EXPLORED,
    order: ["reduced", "program", "states", "canonical", "canonical_error", "canonical_index", "canonical_path", "canonical_path_complete",
            "normal_forms", "cycles", "basis", "fork_kinds", "forks", "permutations", "exhaustive", "sampled_normal_forms", "sampling", "sampled_witness",
            "verdict", "verdict_text", "one_normal_form", "termination"],
    search: ["program", "to", "target", "meeting", "found", "graph", "length", "path", "paths", "matches", "bindings", "searched", "searched_a",
             "searched_b", "stuck", "stuck_groups"],
    pairs: ["pairs", "skipped_rules", "summary"], trace: ["program", "result", "error", "steps"],
    saturate: [...BEST, "stop", "iterations", "enodes", "eclasses", "applied", "matches", "rejected", "conflicts", "native", "reach_searched",
               "reach_stopped_by"],
    best: [...BEST, "seen", "expanded", "conflicts"],
    check: ["corpus", "findings", "graphs", "checked", "states", "undecided", "undecided_examples"] };
  const known = new Set([...COMMON, ...(DRAWN[KIND] || EXPLORED)]);
  const extra = Object.keys(DATA).filter((k) => !known.has(k));
  if (extra.length) put(document.getElementById("overview"), section("other fields", extra.map((k) =>
    el("div", { class: "extra", "data-key": k }, el("span", { class: "key" }, k + ": "), readable(DATA[k], 0)))));
  document.body.dataset.ready = "1";
})();
