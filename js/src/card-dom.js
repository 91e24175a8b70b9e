// DOM of the point table. Pure functions of the state sent by Python: every number shown
// comes from the `card` and `status` traits, which Python builds from the ScoringSystem.

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
 * The status line: the headline in the user's units, amber when its level is "warn", and the
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
  el("span", { class: "sw-status-text", text: s.headline || s.text || "" }),
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

/** Build the table; `send(request)` is called with {op, feature?, value?}. */
export function cardTable(card, status, send) {
  const root = el("div", { class: "sw-card-body" });
  if (!card) {
    root.append(el("div", { class: "sw-empty", text: status && status.state === "solving" ? "solving…" : "no card to show" }));
    return root;
  }
  const editable = !!card.editable;
  const thr = el("input", {
    class: "sw-threshold", type: "text", inputMode: "numeric", defaultValue: String(card.threshold), value: String(card.threshold),
    disabled: !editable, "aria-label": "threshold", "data-feature": "__threshold__",
  });
  guardKeys(thr);
  thr.addEventListener("change", () => {
    const v = parsePoints(thr.value);
    if (v === null) { thr.value = String(card.threshold); thr.classList.add("sw-invalid"); return; }
    if (v !== card.threshold && thr.dataset.sent !== String(v)) {
      thr.dataset.sent = String(v);
      send({ op: "threshold", value: v });
    }
  });
  // ">" only for cards made under the paper's rule (a zero total is an error); else "score >= threshold"
  const sign = card.rule === ">" ? " IF SCORE > " : " IF SCORE \u2265 ";
  root.append(el("div", { class: "sw-rule" }, "PREDICT ", el("b", { text: String(card.positive).toUpperCase() }), sign, thr));

  const table = el("table", { class: "sw-table" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: "feature" }),
    el("th", { text: "points" }), el("th", { text: "" }))));
  const body = el("tbody");
  let n = 0;
  for (const row of card.rows) {
    const used = row.points !== 0;
    if (used) n += 1;
    const input = el("input", {
      class: "sw-points", type: "text", inputMode: "numeric", defaultValue: String(row.points), value: String(row.points),
      disabled: !editable, "aria-label": `points of ${row.name}`, "data-feature": row.name,
    });
    guardKeys(input);
    input.addEventListener("change", () => {
      const v = parsePoints(input.value);
      if (v === null) { input.value = String(row.points); input.classList.add("sw-invalid"); return; }
      // Enter commits, and the browser's own change event on blur would commit the same value again
      if (v !== row.points && input.dataset.sent !== String(v)) {
        input.dataset.sent = String(v);
        send({ op: "edit", feature: row.name, value: v });
      }
    });
    const locked = row.locked !== null && row.locked !== undefined;
    const lockBtn = el("button", {
      class: "sw-lock" + (locked ? " sw-locked" : ""), type: "button", disabled: !editable && !locked,
      title: locked ? `locked at ${row.locked}: click to unlock` : "lock this value for the next solves",
      "aria-pressed": locked ? "true" : "false", "data-feature": row.name,
    }, padlock(locked));
    lockBtn.addEventListener("click", () => {
      send(locked ? { op: "unlock", feature: row.name } : { op: "lock", feature: row.name });
    });
    const label = row.binary ? row.name : `× ${row.name}`;
    body.append(el("tr", {
      class: [used ? "sw-used" : "sw-unused", row.edited ? "sw-edited-row" : ""].join(" ").trim(),
      "data-feature": row.name,
    }, el("td", { class: "sw-num", text: used ? `${n}.` : "" }), el("td", { class: "sw-name", text: label, title: row.name }),
    el("td", { class: "sw-cell" }, input), el("td", { class: "sw-cell" }, lockBtn)));
  }
  table.append(body);
  root.append(table);
  const figures = Array.isArray(card.metrics) && card.metrics.length > 1 ? figuresTable(card.metrics, n) : null;
  if (figures) root.append(figures);
  else if (card.metrics_text) root.append(el("div", { class: "sw-metrics", text: card.metrics_text }));
  if (card.cost_text) root.append(el("div", { class: "sw-cost", text: card.cost_text }));
  if (card.spec_text) root.append(el("div", { class: "sw-spec", text: card.spec_text }));
  return root;
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
    el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { text: h })))),
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
