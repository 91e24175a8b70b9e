// DOM of the studio's cut-point panel: one block per numeric variable, its cut points drawn on
// a small histogram of its training values (events stacked dark on the rows of each bin), a box
// per cut to move it, a box to add one, a button to remove one; a marker can be dragged.
// Pure functions of the `variables` trait: Python checks every edit and says what it refused.
import { el, guardKeys } from "./card-dom.js";

const SVG = "http://www.w3.org/2000/svg";
export const HIST = { width: 320, height: 58, pad: 4, axis: 12 };

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

/** A number as the panel writes it (no trailing zeros): 60, 2.5, 0.062. */
export function numberText(v) {
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

/** The x position (in the histogram's own units) of a value, and back. */
export function scaleOf(v) {
  const lo = v.bins.length ? v.bins[0].lo : v.min;
  const hi = v.bins.length ? v.bins[v.bins.length - 1].hi : v.max;
  const span = hi - lo || 1;
  const inner = HIST.width - 2 * HIST.pad;
  return {
    x: (value) => HIST.pad + ((value - lo) / span) * inner,
    value: (x) => lo + ((x - HIST.pad) / inner) * span,
  };
}

/** The step a dragged cut moves by: a round hundredth of the variable's range (at least 1 for whole-number data). */
export function stepOf(v) {
  const raw = (v.max - v.min) / 100;
  const exp = Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 5, 10].map((m) => m * 10 ** exp).find((s) => s >= raw) || 1;
  return v.integer ? Math.max(1, step) : step;
}

/** Where a dragged cut lands: a multiple of the variable's step. */
export function snap(value, v) {
  const step = stepOf(v);
  return Number((Math.round(value / step) * step).toPrecision(12));
}

/** The histogram with the cut markers; `drag(old, value)` is called when a marker is dropped. */
export function histogram(v, drag) {
  const { x } = scaleOf(v);
  const top = Math.max(1, ...v.bins.map((b) => b.rows));
  const base = HIST.height - HIST.axis;
  const plot = base - HIST.pad;
  const chart = svg("svg", { class: "sw-cut-hist", viewBox: `0 0 ${HIST.width} ${HIST.height}`, role: "img",
    "aria-label": `histogram of ${v.name} with its cut points` });
  for (const b of v.bins) {
    const h = (b.rows / top) * plot;
    const e = (b.events / top) * plot;
    const w = Math.max(0.5, x(b.hi) - x(b.lo) - 0.6);
    const rate = b.rows ? ` (${((100 * b.events) / b.rows).toFixed(1)} %)` : "";
    const bar = svg("g", { class: "sw-cut-bin" },
      svg("rect", { x: x(b.lo), y: base - h, width: w, height: h, class: "sw-cut-rows" }),
      svg("rect", { x: x(b.lo), y: base - e, width: w, height: e, class: "sw-cut-events" }));
    const tip = svg("title");
    tip.textContent = `${numberText(b.lo)} to ${numberText(b.hi)}: ${b.rows} rows, ${b.events} events${rate}`;
    bar.append(tip);
    chart.append(bar);
  }
  const axis = svg("text", { x: HIST.pad, y: HIST.height - 1, class: "sw-cut-axis" });
  axis.textContent = numberText(v.min);
  const axisEnd = svg("text", { x: HIST.width - HIST.pad, y: HIST.height - 1, class: "sw-cut-axis", "text-anchor": "end" });
  axisEnd.textContent = numberText(v.max);
  chart.append(svg("line", { x1: HIST.pad, x2: HIST.width - HIST.pad, y1: base, y2: base, class: "sw-cut-base" }), axis, axisEnd);
  v.cuts.forEach((cut, i) => chart.append(marker(chart, v, cut, v.labels[i], base, drag)));
  return chart;
}

function marker(chart, v, cut, label, base, drag) {
  const { x, value } = scaleOf(v);
  const line = svg("line", { x1: x(cut), x2: x(cut), y1: 0, y2: base, class: "sw-cut-line" });
  const grip = svg("rect", { x: x(cut) - 4, y: 0, width: 8, height: base, class: "sw-cut-grip" });
  const text = svg("text", { x: x(cut) + 2, y: 9, class: "sw-cut-label" });
  text.textContent = label;
  const g = svg("g", { class: "sw-cut-marker", "data-cut": String(cut), tabindex: "0" }, line, grip, text);
  const tip = svg("title");
  tip.textContent = `cut at ${label}: drag it (or focus it and press \u2190 \u2192), or type a new value in its box`;
  g.append(tip);
  let dragging = false;
  const toValue = (ev) => {
    const box = chart.getBoundingClientRect();
    const px = box.width ? ((ev.clientX - box.left) / box.width) * HIST.width : x(cut);
    return snap(Math.min(v.max, Math.max(v.min, value(px))), v);
  };
  // a focused marker moves by one step with the arrow keys (the keys stay out of the notebook)
  g.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    ev.preventDefault();
    ev.stopPropagation();
    drag(cut, snap(cut + (ev.key === "ArrowRight" ? 1 : -1) * stepOf(v), v));
  });
  g.addEventListener("pointerdown", (ev) => { dragging = true; if (g.setPointerCapture) g.setPointerCapture(ev.pointerId); ev.preventDefault(); });
  g.addEventListener("pointermove", (ev) => {
    if (!dragging) return;
    const at = toValue(ev);
    for (const n of [line]) { n.setAttribute("x1", x(at)); n.setAttribute("x2", x(at)); }
    grip.setAttribute("x", x(at) - 4);
    text.setAttribute("x", x(at) + 2);
    text.textContent = numberText(at);
  });
  g.addEventListener("pointerup", (ev) => {
    if (!dragging) return;
    dragging = false;
    const at = toValue(ev);
    if (at !== cut) drag(cut, at);
  });
  return g;
}

/** A box holding a value to commit with Enter or on leaving it; Escape puts `current` back. */
function valueBox(attrs, current, commit) {
  const input = guardKeys(el("input", { type: "text", inputMode: "decimal", value: current, defaultValue: current, ...attrs }));
  input.addEventListener("keydown", (ev) => { if (ev.key === "Escape") input.value = current; });
  input.addEventListener("change", () => {
    const text = input.value.trim();
    if (text === current || input.dataset.sent === text) return;
    input.dataset.sent = text;
    commit(text);
  });
  return input;
}

/** One variable's block: its head (name, range, rows, use and sign), histogram, cut boxes, error. */
export function variableBlock(v, send) {
  const head = el("div", { class: "sw-cut-head" },
    el("b", { class: "sw-cut-name", text: v.name, title: v.name }),
    el("span", { class: "sw-cut-range", text: countsText(v, `${numberText(v.min)} to ${numberText(v.max)} \u00b7 `) }),
    el("span", { class: "sw-cut-settings" }, "use ", useChoice(v, send),
      " sign ", choice(v, "sign", [["free", "free"], ["+", "+ (rises)"], ["-", "\u2212 (falls)"]], send),
      " monotone ", choice(v, "monotone", [["none", "none"], ["increasing", "increasing"], ["decreasing", "decreasing"]], send)));
  const error = v.error || null;
  const refused = (input) => { // what was typed stays, marked, beside what the panel refused
    input.value = error.typed;
    input.classList.add("sw-invalid");
    input.setAttribute("aria-invalid", "true");
  };
  const boxes = v.cuts.map((cut, i) => {
    const box = valueBox({ class: "sw-cut-value", "aria-label": `cut ${v.labels[i]} of ${v.name}`, "data-cut": String(cut) },
      v.labels[i], (text) => send("move", { variable: v.name, old: cut, value: text }));
    if (error && error.old === cut) refused(box);
    const remove = el("button", { class: "sw-cut-remove", type: "button", text: "\u00d7", title: `remove the cut at ${v.labels[i]}`,
      "aria-label": `remove the cut at ${v.labels[i]} of ${v.name}`, "data-cut": String(cut) });
    remove.addEventListener("click", () => send("remove", { variable: v.name, old: cut }));
    return el("span", { class: "sw-cut-chip" }, "\u2265 ", box, remove);
  });
  const add = valueBox({ class: "sw-cut-add", placeholder: "add a cut", "aria-label": `add a cut point to ${v.name}` }, "",
    (text) => { if (text) send("add", { variable: v.name, value: text }); });
  if (error && error.op === "add") refused(add);
  const block = el("div", { class: "sw-cutvar", "data-variable": v.name },
    head, groupNote(v), histogram(v, (old, value) => send("move", { variable: v.name, old, value: String(value) })),
    el("div", { class: "sw-cut-list" }, el("span", { class: "sw-cut-lead", text: "cuts" }), ...boxes, add));
  if (error) block.append(el("div", { class: "sw-cut-error", role: "alert", text: `${error.text} \u2014 the cuts stay as they were` }));
  return block;
}

/** The variable's use; the group column's is fixed (kept off the card while it is the group: its note says why). */
function useChoice(v, send) {
  const select = choice(v, "use", [["auto", "auto"], ["exclude", "exclude"]], send);
  if (v.group) {
    select.disabled = true;
    select.title = `the group column: ${v.group}`;
  }
  return select;
}

/** At the group column: why its use says "exclude", and how to change that, in words (nothing elsewhere). */
function groupNote(v) {
  if (!v.group) return null;
  return el("div", { class: "sw-cut-group", role: "note" }, el("b", { text: "group column: " }), v.group);
}

/** A select that sends {op: key, variable, value}; "mixed" (its rules differ) is shown, not chosen. */
function choice(v, key, options, send) {
  const select = el("select", { class: `sw-cut-${key}`, "aria-label": `${key} of ${v.name}`, "data-variable": v.name });
  for (const [value, text] of options) select.append(el("option", { value, text, selected: v[key] === value }));
  if (v[key] === "mixed") select.append(el("option", { value: "mixed", text: "mixed", selected: true, disabled: true }));
  select.addEventListener("change", () => send(key, { variable: v.name, value: select.value }));
  return select;
}

/** The line under a variable's name: its rows, missing rows and share of events. */
function countsText(v, range = "") {
  const pctText = v.rate === null || v.rate === undefined ? "" : ` \u00b7 ${(100 * v.rate).toFixed(1)} % events`;
  const missing = v.missing ? ` \u00b7 ${v.missing} missing` : "";
  return `${range}${v.rows} rows${missing}${pctText}`;
}

/** A variable of levels: each frequent level's rows (light) and events (dark) as a bar, and its use. */
export function levelsBlock(v, send) {
  const top = Math.max(1, ...v.levels.map((l) => l.rows));
  const rows = v.levels.map((l) => {
    const rate = l.rows ? ` (${((100 * l.events) / l.rows).toFixed(1)} %)` : "";
    return el("div", { class: "sw-level", title: `${l.label}: ${l.rows} rows, ${l.events} events${rate}` },
      el("span", { class: "sw-level-name", text: l.label }),
      el("span", { class: "sw-level-bar" },
        el("span", { class: "sw-level-rows", style: `width: ${(100 * l.rows) / top}%` },
          el("span", { class: "sw-level-events", style: `width: ${l.rows ? (100 * l.events) / l.rows : 0}%` }))),
      el("span", { class: "sw-level-n", text: String(l.rows) }));
  });
  if (v.more) rows.push(el("div", { class: "sw-level-more", text: `and ${v.more} more level${v.more === 1 ? "" : "s"}` }));
  const head = el("div", { class: "sw-cut-head" }, el("b", { class: "sw-cut-name", text: v.name, title: v.name }),
    el("span", { class: "sw-cut-range", text: countsText(v) }),
    el("span", { class: "sw-cut-settings" }, "use ", useChoice(v, send)));
  return el("div", { class: "sw-cutvar sw-levels", "data-variable": v.name }, head, groupNote(v),
    el("div", { class: "sw-level-list" }, ...rows));
}

/** The panel: one block per variable, numeric ones with their cut points (nothing when there is none). */
export function cutPanel(variables, send) {
  const list = Array.isArray(variables) ? variables : [];
  if (!list.length) return el("div", { class: "sw-cuts sw-cuts-empty", text: "no variable to show" });
  return el("div", { class: "sw-cuts" }, ...list.map((v) => (v.kind === "levels" ? levelsBlock(v, send) : variableBlock(v, send))));
}
