// DOM of the point table. Pure functions of the state sent by Python: every number shown
// comes from the `card` and `status` traits, which Python builds from the ScoringSystem.
import { explain, GLOSSARY } from "./glossary.js";

const STATE_CLASS = {
  solving: "solving", optimal: "optimal", time_limit: "limit", feasible: "limit",
  interrupted: "limit", edited: "edited", infeasible: "bad", invalid: "bad", error: "bad", idle: "idle",
  solver_stopped: "limit",
};

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-")) node.setAttribute(k, String(v));
    else if (k in node) node[k] = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

/** A small padlock icon (no emoji font needed), closed when `locked`. */
export function padlock(locked) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "13");
  svg.setAttribute("height", "13");
  svg.setAttribute("aria-hidden", "true");
  const body = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: "3", y: "7", width: "10", height: "8", rx: "1.5", fill: "currentColor" })) body.setAttribute(k, v);
  const shackle = document.createElementNS(SVG, "path");
  shackle.setAttribute("d", locked ? "M5 7V5a3 3 0 0 1 6 0v2" : "M5 7V5a3 3 0 0 1 6 0");
  shackle.setAttribute("fill", "none");
  shackle.setAttribute("stroke", "currentColor");
  shackle.setAttribute("stroke-width", "1.6");
  if (!locked) shackle.setAttribute("transform", "translate(3 -1)");
  svg.append(shackle, body);
  return svg;
}

/**
 * The status line: its text in the user's units, amber when its level is "warn", and the
 * solver's own figures (objective, bound, gap) folded away in a details element. The dot is green
 * whenever what the line calls best is proven, even if the solve stopped at a limit or work goes
 * on in the background (a proven best TPR under a cap): amber is kept for warnings.
 */
export function statusLine(status) {
  const s = status || {};
  const state = s.state || "idle";
  const warn = s.level === "warn";
  const proven = Boolean(s.proven) && !warn;
  const details = detailLines(s.details);
  const line = el("div", {
    class: `sw-status sw-${STATE_CLASS[state] || "idle"}${warn ? " sw-warn" : ""}${proven ? " sw-proven" : ""}`, "data-state": state,
    "data-level": s.level || null,
  },
  el("span", { class: "sw-dot", "aria-hidden": "true" }),
  el("span", { class: "sw-status-text", text: s.text || "", title: explain(s.text) || null }),
  state === "solving" ? el("span", { class: "sw-clock" }) : null);
  if (s.warning) line.append(el("div", { class: "sw-status-warning", text: s.warning }));
  if (details.length) {
    line.append(el("details", { class: "sw-status-details" }, el("summary", { text: "solver details" }),
      ...details.map((d) => el("div", { text: d }))));
  }
  return line;
}

/** Details as lines: a string, a list of strings, or {label: value} pairs. */
export function detailLines(details) {
  if (!details) return [];
  if (typeof details === "string") return [details];
  if (Array.isArray(details)) return details.map(String);
  return Object.entries(details).map(([k, v]) => `${k}: ${v === null || v === undefined ? "–" : v}`);
}

/** Keys typed in a cell stay in it (no notebook shortcuts); Enter commits the value. */
export function guardKeys(input) {
  input.addEventListener("keydown", (ev) => {
    ev.stopPropagation();
    if (ev.key === "Enter") {
      ev.preventDefault();
      input.dispatchEvent(new Event("change"));
    }
  });
  return input;
}

/** Parse what a user typed into a points cell: a whole number, or null when it is not one. */
export function parsePoints(text) {
  const t = String(text).trim().replace("\u2212", "-");
  if (!/^[+-]?\d+$/.test(t)) return null;
  const v = Number(t);
  return Number.isSafeInteger(v) ? v : null;
}

/**
 * Say in place that what was typed is not a whole number: the text stays in the box, marked,
 * with a line beside it naming the value the card keeps (Escape puts that value back).
 */
export function markInvalid(input, kept) {
  const typed = input.value;
  input.classList.add("sw-invalid");
  input.setAttribute("aria-invalid", "true");
  const text = `\u201c${typed}\u201d is not a whole number (e.g. 3 or \u22122): the card keeps ${kept}`;
  input.title = text;
  let note = noteOf(input);
  if (!note) {
    // under the row of the box (a points cell), or under the line that holds it (the threshold)
    const row = input.closest("tr");
    const anchor = row || input.parentElement;
    if (!anchor) return;
    note = row ? el("tr", { class: "sw-input-error-row" }, el("td", { colSpan: 4, class: "sw-input-error", role: "alert" }))
      : el("div", { class: "sw-input-error", role: "alert" });
    anchor.after(note);
  }
  (note.querySelector(".sw-input-error") || note).textContent = text;
}

/** The line markInvalid put under ``input`` (null when there is none). */
function noteOf(input) {
  const anchor = input.closest("tr") || input.parentElement;
  const next = anchor ? anchor.nextElementSibling : null;
  return next && (next.classList.contains("sw-input-error-row") || next.classList.contains("sw-input-error")) ? next : null;
}

/** Undo markInvalid once the box holds a whole number again. */
function clearInvalid(input) {
  input.classList.remove("sw-invalid");
  input.removeAttribute("aria-invalid");
  input.removeAttribute("title");
  const note = noteOf(input);
  if (note) note.remove();
}

/** A points (or threshold) box: a whole number is sent, anything else is said in place. */
function pointsBox(input, current, sendValue) {
  guardKeys(input);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { input.value = String(current); clearInvalid(input); }
  });
  input.addEventListener("change", () => {
    const v = parsePoints(input.value);
    if (v === null) { markInvalid(input, current); return; }
    clearInvalid(input);
    // Enter commits, and the browser's own change event on blur would commit the same value again
    if (v !== current && input.dataset.sent !== String(v)) {
      input.dataset.sent = String(v);
      sendValue(v);
    }
  });
  return input;
}

// Above this many rows, the rules with 0 points fold away behind "show all N rules" (the feature
// panel is where they are edited), so the status, the card and its figures stay in view.
export const FOLD_ABOVE = 12;

/**
 * Build the table; `send(type, payload)` is called with a request of protocol.json's card view. `view.expanded` shows
 * the folded rules, `view.toggle()` is called by the button that folds or shows them.
 */
export function cardTable(card, status, send, view = {}) {
  const root = el("div", { class: "sw-card-body" });
  if (!card) {
    root.append(el("div", { class: "sw-empty", text: status && status.state === "solving" ? "solving…" : "no card to show" }));
    return root;
  }
  const editable = !!card.editable;
  if (card.is_previous && status && status.state === "solving") {
    // the previous card stays, dimmed, until a card for the new settings is worth showing
    root.append(el("div", { class: "sw-previous-note", role: "status", text: "solving for the new settings\u2026 (the card below is for the previous ones)" }));
  }
  const thr = el("input", {
    class: "sw-threshold", type: "text", inputMode: "numeric", defaultValue: String(card.threshold), value: String(card.threshold),
    disabled: !editable, "aria-label": "threshold", "data-feature": "__threshold__",
  });
  pointsBox(thr, card.threshold, (v) => send("threshold", { value: v }));
  // ">" only for cards made under the paper's rule (a zero total is an error); else "score >= threshold"
  const sign = card.rule === ">" ? " IF SCORE > " : " IF SCORE \u2265 ";
  root.append(el("div", { class: "sw-rule" }, "PREDICT ", el("b", { text: String(card.positive).toUpperCase() }), sign, thr));

  const words = { sum: card.variables_sum, note: card.variables_note };
  const byVariable = Array.isArray(card.variables) ? variableTable(card.variables, editable, send, words) : null;
  if (byVariable) root.append(byVariable);
  const pointers = monotonePointers(card.monotone, editable, send);
  if (pointers) root.append(pointers);
  const table = el("table", { class: "sw-table" + (byVariable && !view.expanded ? " sw-rules-folded" : "") });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: "feature" }),
    el("th", { text: "points" }), el("th", { text: "" }))));
  const body = el("tbody");
  const unused = card.rows.filter((r) => r.points === 0 && !r.edited && !(r.locked !== null && r.locked !== undefined)).length;
  const folding = !byVariable && card.rows.length > FOLD_ABOVE && unused > 0;
  const folded = folding && !view.expanded;
  let n = 0;
  for (const row of card.rows) {
    const used = row.points !== 0;
    const locked0 = row.locked !== null && row.locked !== undefined;
    if (used) n += 1;
    const input = el("input", {
      class: "sw-points", type: "text", inputMode: "numeric", defaultValue: String(row.points), value: String(row.points),
      disabled: !editable, "aria-label": `points of ${row.name}`, "data-feature": row.name,
    });
    pointsBox(input, row.points, (v) => send("edit", { feature: row.name, value: v }));
    const locked = row.locked !== null && row.locked !== undefined;
    const lockBtn = el("button", {
      class: "sw-lock" + (locked ? " sw-locked" : ""), type: "button", disabled: !editable && !locked,
      title: locked ? `locked at ${row.locked}: click to unlock` : "lock this value for the next solves",
      "aria-pressed": locked ? "true" : "false", "data-feature": row.name,
    }, padlock(locked));
    lockBtn.addEventListener("click", () => {
      send(locked ? "unlock" : "lock", { feature: row.name });
    });
    const label = row.binary ? row.name : `× ${row.name}`;
    body.append(el("tr", {
      class: [used ? "sw-used" : "sw-unused", row.edited ? "sw-edited-row" : "",
        folded && !used && !locked0 && !row.edited ? "sw-folded" : ""].join(" ").trim(),
      "data-feature": row.name,
    }, el("td", { class: "sw-num", text: used ? `${n}.` : "" }), el("td", { class: "sw-name", text: label, title: row.name }),
    el("td", { class: "sw-cell" }, input), el("td", { class: "sw-cell" }, lockBtn)));
  }
  table.append(body);
  root.append(table);
  if (byVariable) {
    // the card by variable is the card; its rules one by one (0 points included) fold away below it
    const label = view.expanded ? "hide the rules" : `edit rule by rule (${card.rows.length} rules)`;
    const button = el("button", { class: "sw-fold sw-rules-toggle", type: "button", text: label, "aria-expanded": view.expanded ? "true" : "false",
      title: "each rule's own points (a band's points are the sum of the rules that hold in it); give a rule with 0 points some to add a cut to the card" });
    button.addEventListener("click", () => { if (view.toggle) view.toggle(); });
    root.append(button);
  } else if (folding) {
    const label = folded ? `show all ${card.rows.length} rules (${unused} with 0 points)` : `fold the ${unused} rules with 0 points`;
    const button = el("button", { class: "sw-fold", type: "button", text: label, "aria-expanded": folded ? "false" : "true",
      title: "the rules the card does not use; the feature panel below is where they are edited" });
    button.addEventListener("click", () => { if (view.toggle) view.toggle(); });
    root.append(button);
  }
  const figures = Array.isArray(card.metrics) && card.metrics.length > 1 ? figuresTable(card.metrics, n) : null;
  if (figures) root.append(figures);
  else if (card.metrics_text) root.append(el("div", { class: "sw-metrics", text: card.metrics_text, title: explain(card.metrics_text) || null }));
  if (card.cost_text) root.append(el("div", { class: "sw-cost", text: card.cost_text, title: explain(card.cost_text) || null }));
  if (card.spec_text) root.append(el("div", { class: "sw-spec", text: card.spec_text, title: explain(card.spec_text) || null }));
  return root;
}

/**
 * The card by variable, as clinical scores are printed: "age  < 50: 0 · 50–59: 1 · ≥ 60: 3". Each
 * band's points are a box (the lowest band of a variable is the reference, its 0 is text); an
 * edit sends {op: "band", variable, band, label, value} and Python changes the rules so that
 * every other band keeps its points. The padlock locks all of a variable's rules as shown.
 */
export function variableTable(variables, editable, send, words = {}) {
  const body = el("tbody");
  for (const v of variables) {
    const cells = [];
    v.bands.forEach((band, i) => {
      if (i) cells.push(el("span", { class: "sw-band-sep", text: " \u00b7 " }));
      const id = `band:${v.variable}:${i}`;
      let value;
      if (band.editable) {
        value = el("input", {
          class: "sw-points sw-band-points", type: "text", inputMode: "numeric", defaultValue: String(band.points),
          value: String(band.points), disabled: !editable, "aria-label": `points of ${v.variable} ${band.label}`, "data-feature": id,
          title: `the points of ${v.variable} ${band.label} (from ${band.rules.join(", ")}); the other bands keep theirs`,
        });
        pointsBox(value, band.points, (p) => send("band", { variable: v.variable, band: i, label: band.label, value: p }));
      } else {
        value = el("b", { class: "sw-band-ref", text: String(band.points), title: `the reference band of ${v.variable}: the other bands count from it` });
      }
      cells.push(el("span", { class: "sw-band" + (band.edited ? " sw-edited-band" : ""), "data-band": String(i), "data-kind": band.kind },
        el("span", { class: "sw-band-label", text: `${band.label}: ` }), value));
    });
    const lockBtn = el("button", {
      class: "sw-lock" + (v.locked ? " sw-locked" : ""), type: "button", disabled: !editable && !v.locked,
      title: v.locked ? `${v.variable}'s points are locked: click to unlock` : `lock ${v.variable}'s points as shown for the next solves`,
      "aria-pressed": v.locked ? "true" : "false", "data-variable": v.variable,
    }, padlock(v.locked));
    lockBtn.addEventListener("click", () => send(v.locked ? "unlock_variable" : "lock_variable", { variable: v.variable }));
    body.append(el("tr", { class: "sw-var-row", "data-variable": v.variable },
      el("td", { class: "sw-name sw-var-name", text: v.variable, title: v.variable }),
      el("td", { class: "sw-bands" }, ...cells), el("td", { class: "sw-cell" }, lockBtn)));
  }
  const table = el("table", { class: "sw-table sw-vars" },
    el("thead", {}, el("tr", {}, el("th", { text: "variable" }), el("th", { text: "points by band" }), el("th", { text: "" }))), body);
  // what every export prints under a card by variable: Python sends its words (one source)
  const sum = words.sum ? el("div", { class: "sw-vars-sum", text: words.sum }) : null;
  const note = words.note ? el("div", { class: "sw-vars-note", text: words.note }) : null;
  return el("div", { class: "sw-by-variable" }, table, sum, note);
}

/**
 * Beside the card: each numeric variable whose bands' points go up and down, what the monotone
 * setting that fixes it costs (Python's words, in the user's units), and the button that sets it
 * ({op: "monotone", variable, choice}: one undo step, its card shown from the cache when solved).
 */
export function monotonePointers(pointers, editable, send) {
  if (!Array.isArray(pointers) || !pointers.length) return null;
  const items = pointers.map((p) => {
    const button = el("button", { class: "sw-monotone-fix", type: "button", text: p.action, disabled: !editable,
      title: `set ${p.variable} to ${p.choice} in the variable settings (undo goes back)`, "data-variable": p.variable });
    button.addEventListener("click", () => send("monotone", { variable: p.variable, choice: p.choice }));
    return el("li", { class: "sw-monotone", "data-variable": p.variable, "data-ready": p.ready ? "true" : "false" },
      el("span", { class: "sw-monotone-text", text: `${p.text} ` }), button,
      el("span", { class: "sw-monotone-cost", text: p.cost ? ` ${p.cost}` : "" }));
  });
  return el("ul", { class: "sw-monotone-list", role: "note" }, ...items);
}

const pct = (v) => (v === null || v === undefined ? "–" : `${(100 * v).toFixed(1)} %`);
const SET_NAME = { train: "train", validation: "held-out" };

/** Train and held-out figures side by side: one row per set of rows, as Python measured them. */
export function figuresTable(rows, size) {
  // a risk card is judged by how its risks fit (log-loss) and rank (AUC), a decision card by its errors
  const risk = rows.some((r) => "auc" in r);
  const heads = risk ? ["", "log-loss", "AUC", "rows"] : ["", "error", "TPR", "FPR", "rows"];
  const fixed = (v, digits) => (v === null || v === undefined ? "–" : v.toFixed(digits));
  const cells = (r) => (risk ? [fixed(r.log_loss, 4), fixed(r.auc, 3)] : [pct(r.error), pct(r.tpr), pct(r.fpr)]);
  const table = el("table", { class: "sw-figures" },
    el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { text: h, title: GLOSSARY[h] || null })))),
    el("tbody", {}, ...rows.map((r) => el("tr", { "data-set": r.set },
      el("th", { text: SET_NAME[r.set] || r.set }), ...cells(r).map((text) => el("td", { text })),
      el("td", { text: r.n === null || r.n === undefined ? "–" : String(r.n) })))));
  return el("div", { class: "sw-metrics" }, table, el("div", { text: `${size} feature${size === 1 ? "" : "s"}` }));
}

/**
 * Replace `host`'s content, keeping the focus of an input the user is in, and what they have
 * typed there but not yet committed (a new incumbent may arrive while they type).
 */
export function swap(host, node) {
  const active = host.ownerDocument.activeElement;
  const key = active && host.contains(active) ? active.getAttribute("data-feature") : null;
  const tag = active ? active.tagName : null;
  const cls = active ? active.className : null;
  const typing = key && tag === "INPUT" && active.value !== active.defaultValue && active.dataset.sent === undefined
    ? { value: active.value, start: active.selectionStart, end: active.selectionEnd } : null;
  host.replaceChildren(node);
  if (key && tag) {
    const twin = [...host.querySelectorAll(`${tag.toLowerCase()}[data-feature]`)]
      .find((n) => n.getAttribute("data-feature") === key && n.className.split(" ")[0] === cls.split(" ")[0]);
    if (twin && !twin.disabled) {
      if (typing) {
        twin.value = typing.value;
        twin.setSelectionRange(typing.start, typing.end);
      }
      twin.focus();
    }
  }
}
