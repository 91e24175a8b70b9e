// DOM of the studio's per-group table: a pure function of the `view` trait, which Python builds
// from the card on screen (every figure is already in the user's units there).
import { el } from "./card-dom.js";

const SVG = "http://www.w3.org/2000/svg";
// the same symbols as the ROC plane's group marks (Vega's shape names), drawn in a 12 px box
const PATHS = {
  square: "M2 2H10V10H2Z",
  "triangle-up": "M6 1L11 10H1Z",
  "triangle-down": "M6 11L11 2H1Z",
  "triangle-right": "M11 6L2 1V11Z",
  "triangle-left": "M1 6L10 1V11Z",
  cross: "M4.5 1H7.5V4.5H11V7.5H7.5V11H4.5V7.5H1V4.5H4.5Z",
  circle: "M6 1A5 5 0 1 0 6 11A5 5 0 1 0 6 1Z",
};

/** The group's mark, as on the ROC plane: its colour and its shape (colour is never the only cue). */
export function groupMark(color, shape) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 12 12");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "sw-group-mark");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", PATHS[shape] || PATHS.circle);
  path.setAttribute("fill", color || "currentColor");
  svg.append(path);
  return svg;
}

const MEASURES = [["n", "n"], ["TPR", "TPR"], ["FPR", "FPR"], ["error", "error"]];

/** One row of the table: the group's mark and name (as text), then each figure, train above
 * held-out (two lines in one cell, so the table stays narrow beside the charts). */
export function groupRow(row, heldOut) {
  const cells = [el("th", { scope: "row", class: "sw-group-name", title: row.group },
    groupMark(row.color, row.shape), el("span", { text: row.group }))];
  for (const [key] of MEASURES) {
    const train = el("span", { class: "sw-group-train", text: (row.train || {})[key] ?? "–" });
    const held = heldOut ? el("span", { class: "sw-group-held", text: (row.held_out || {})[key] ?? "–" }) : null;
    cells.push(el("td", { class: `sw-group-${key.toLowerCase()}` }, train, held));
  }
  return el("tr", { "data-group": row.group }, cells);
}

/** The whole panel: the column, the status in words, a note (a refusal, a clash) and the table. */
export function groupPanel(view) {
  const v = view || {};
  if (!v.column) {
    return el("div", { class: "sw-groups", "data-column": "" },
      el("span", { class: "sw-groups-hint", text: v.hint || "" }),
      v.notice ? el("div", { class: "sw-groups-notice", role: "alert", text: v.notice }) : null);
  }
  const heldOut = Boolean(v.held_out);
  const head = el("tr", {}, el("th", { scope: "col", class: "sw-groups-column", title: v.column, text: v.column }),
    MEASURES.map(([, label]) => el("th", { scope: "col", text: label })));
  const key = heldOut ? el("caption", { class: "sw-groups-key" }, el("span", { class: "sw-group-train", text: "train" }),
    " above ", el("span", { class: "sw-group-held", text: "held-out" })) : null;
  const table = el("table", { class: "sw-groups-table", "data-held-out": heldOut ? "1" : "0" }, key,
    el("thead", {}, head), el("tbody", {}, (v.rows || []).map((r) => groupRow(r, heldOut))));
  return el("div", { class: "sw-groups", "data-column": v.column, "data-rows": (v.rows || []).length },
    el("div", { class: "sw-groups-status", "data-level": v.level || "info", text: v.status || "" }),
    v.notice ? el("div", { class: "sw-groups-notice", "data-level": v.notice_level || "error", role: "alert", text: v.notice }) : null,
    el("div", { class: "sw-groups-scroll" }, table));
}
